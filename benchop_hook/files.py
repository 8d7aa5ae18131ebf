"""Writing benchmark files: only inside the repository, never through a symlink, never over a concurrent edit."""

from __future__ import annotations

import os

from benchop_hook.errors import BenchOpError


def inside(root: str, path: str) -> bool:
    full = os.path.join(root, path)
    real_root = os.path.realpath(root)
    return os.path.realpath(full).startswith(real_root + os.sep) and not os.path.islink(full)


def write_file(root: str, path: str, before: bytes | None, after: bytes) -> None:
    """Replace `path` (repo-relative) with `after`, if it still holds `before`. Raises BenchOpError."""
    full = os.path.join(root, path)
    if not inside(root, path):
        raise BenchOpError(f"{path} is a symlink or lies outside the repository: bench-op never writes through it.")
    try:
        with open(full, "rb") as f:
            current = f.read()
    except OSError as exc:
        raise BenchOpError(f"cannot read {path} ({exc.strerror}): bench-op did not change it.") from None
    if before is not None and current != before:
        raise BenchOpError(f"{path} changed while bench-op was running: bench-op left it alone; run it again.")
    if not os.access(full, os.W_OK):
        raise BenchOpError(f"{path} is read-only: bench-op did not change it; make it writable and run again.")
    st = os.stat(full)
    tmp = f"{full}.bench-op-tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(after)
        os.chmod(tmp, st.st_mode & 0o7777)
        os.replace(tmp, full)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise BenchOpError(f"cannot write {path} ({exc.strerror}): bench-op did not change it.") from None


def read_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None
