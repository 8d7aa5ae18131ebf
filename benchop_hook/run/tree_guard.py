"""Writing benchmark files: only inside the repository, never through a symlink, never over a concurrent
edit; and the tree guard that puts them back."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator

from benchop_hook.errors import BenchOpError
from benchop_hook.report.text import unified_diff


def inside(root: str, path: str) -> bool:
    full = os.path.join(root, path)
    real_root = os.path.realpath(root)
    return os.path.realpath(full).startswith(real_root + os.sep) and not os.path.islink(full)


def write_file(root: str, path: str, before: bytes | None, after: bytes) -> None:
    """Replace `path` (repo-relative) with `after`, if it still holds `before`. Raises BenchOpError."""
    full = os.path.join(root, path)
    if not inside(root, path):
        raise BenchOpError(
            f"{path} is a symlink or lies outside the repository: bench-op never writes through it."
        )
    try:
        with open(full, "rb") as f:
            current = f.read()
    except OSError as exc:
        raise BenchOpError(f"cannot read {path} ({exc.strerror}): bench-op did not change it.") from None
    if before is not None and current != before:
        raise BenchOpError(
            f"{path} changed while bench-op was running: bench-op left it alone; run it again."
        )
    st = os.stat(full)
    # Read-only means its mode says so (root could write it anyway; bench-op doesn't).
    if not (st.st_mode & 0o222) or not os.access(full, os.W_OK):
        raise BenchOpError(
            f"{path} is read-only: bench-op did not change it; make it writable and run again."
        )
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


@contextlib.contextmanager
def tree_guard(root: str, git_dir: str, is_bench: Callable[[str], bool]) -> Iterator[TreeGuard]:
    """Write benchmark files through the guard; put them back if anything goes wrong.

    The shape of pre-commit's `staged_files_only`: whatever leaves the block by an exception (an error,
    Ctrl-C, SIGTERM) restores every file that was not kept, from the bytes read before the first write (a
    copy also waits in .git/bench-op/backup until then). A normal exit keeps what is still written.
    """
    guard = TreeGuard(root, git_dir, is_bench)
    try:
        yield guard
    except BenchOpError:
        # an error the user can act on: no rewrite is dropped, each waits in a patch
        for path in sorted(p for p in guard.current if p not in guard.kept):
            if guard.current[path] != guard.originals.get(path):
                patch = save_patch(git_dir, path, guard.originals[path], guard.current[path])
                print(f"bench-op: the proposed rewrite of {path} is saved as {patch}", file=sys.stderr)
        guard.restore_all()
        raise
    except BaseException:
        guard.restore_all()
        raise
    guard.keep_all()


class TreeGuard:
    """Every benchmark file bench-op writes during a run, with its original bytes, so that any
    outcome (blocked, error, Ctrl-C) can put the tree back exactly as it was. Use it through `tree_guard`."""

    def __init__(self, root: str, git_dir: str, is_bench: Callable[[str], bool]) -> None:
        self.root = root
        self.is_bench = is_bench
        self.originals: dict[str, bytes] = {}
        self.current: dict[str, bytes] = {}
        self.kept: set[str] = set()  # settled: no longer put back on an error
        self.backup_dir = os.path.join(git_dir, "bench-op", "backup")

    def read(self, path: str) -> bytes | None:
        if path in self.current:
            return self.current[path]
        return read_bytes(os.path.join(self.root, path))

    def write(self, path: str, data: bytes) -> None:
        if not self.is_bench(path):
            raise BenchOpError(f"bench-op refused to write {path}: it is not under benchmark-paths.")
        if path not in self.originals:
            original = read_bytes(os.path.join(self.root, path))
            if original is None:
                raise BenchOpError(f"cannot read {path}: bench-op did not change it.")
            self.originals[path] = original
            backup = os.path.join(self.backup_dir, path)
            os.makedirs(os.path.dirname(backup), exist_ok=True)
            with open(backup, "wb") as f:
                f.write(original)
        before = self.current.get(path, self.originals[path])
        if data == before:
            return
        write_file(self.root, path, before, data)
        self.current[path] = data

    def restore(self, path: str) -> None:
        if path in self.current and self.current[path] != self.originals[path]:
            write_file(self.root, path, self.current[path], self.originals[path])
        self.current.pop(path, None)
        self._drop_backup(path)

    def keep(self, path: str) -> None:
        """The written content stays: forget the backup."""
        self.kept.add(path)
        self._drop_backup(path)

    def keep_all(self) -> None:
        for path in list(self.originals):
            self.keep(path)

    def restore_all(self) -> None:
        for path in list(self.originals):
            if path in self.kept:
                continue
            with contextlib.suppress(BenchOpError):  # the backup stays in .git/bench-op/backup for the user
                self.restore(path)

    def _drop_backup(self, path: str) -> None:
        backup = os.path.join(self.backup_dir, path)
        if os.path.exists(backup):
            os.unlink(backup)
        folder = os.path.dirname(backup)
        while folder.startswith(self.backup_dir) and folder != os.path.dirname(self.backup_dir):
            try:
                os.rmdir(folder)  # only when empty
            except OSError:
                break
            folder = os.path.dirname(folder)


def save_patch(git_dir: str, path: str, before: bytes, after: bytes) -> str:
    """Save a proposed rewrite as a patch `git apply` takes; return its path."""
    folder = os.path.join(git_dir, "bench-op", "patches")
    os.makedirs(folder, exist_ok=True)
    name = time.strftime("%Y%m%d-%H%M%S-") + path.replace("/", "__") + ".patch"
    text = unified_diff(path, before, after, "surrogateescape")
    full = os.path.join(folder, name)
    with open(full, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    return full
