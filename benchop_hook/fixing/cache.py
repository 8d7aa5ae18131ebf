"""A cache for --all-files: benchmark files whose calls all bound the current signatures last time.

A file is skipped only when its own bytes and the bytes of every module its
names were resolved through are unchanged, and so are the list of Python files,
the configuration and bench-op's version and source files. Anything else means: analyse again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable

from benchop_hook import __version__

_NAME = "all-files-cache.json"


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _code_stamp() -> str:
    """bench-op's own source files, by name, size and modification time: a file that bound last time may
    not under the rules of another build of the same version (an editable install, a reinstall)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            st = os.stat(os.path.join(folder, name))
            parts.append(f"{os.path.relpath(os.path.join(folder, name), root)}:{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(parts)


class CleanCache:
    def __init__(self, folder: str | None, context: Iterable[str]) -> None:
        self.folder = folder
        h = hashlib.blake2b(digest_size=16)
        h.update(__version__.encode())
        h.update(_code_stamp().encode())
        for item in context:
            h.update(item.encode("utf-8", "surrogateescape"))
            h.update(b"\0")
        self.key = h.hexdigest()
        self.entries: dict[str, dict[str, object]] = {}
        self.dirty = False
        if folder:
            try:
                with open(os.path.join(folder, _NAME), encoding="utf-8") as f:
                    data = json.load(f)
                if data.get("key") == self.key and isinstance(data.get("files"), dict):
                    self.entries = data["files"]
            except (OSError, ValueError):
                pass

    def is_clean(self, path: str, content: str, dep_digest: Callable[[str], str | None]) -> bool:
        e = self.entries.get(path)
        if not e or e.get("digest") != content:
            return False
        deps = e.get("deps")
        if not isinstance(deps, dict):
            return False
        return all(dep_digest(p) == d for p, d in deps.items())

    def mark_clean(
        self, path: str, content: str, deps: dict[str, str | None], extra: dict[str, object] | None = None
    ) -> None:
        """`extra`: what the report says about a clean file (calls checked, calls only a run can judge)."""
        self.entries[path] = {"digest": content, "deps": deps, "extra": extra or {}}
        self.dirty = True

    def extra(self, path: str) -> dict[str, object]:
        e = self.entries.get(path, {}).get("extra")
        return e if isinstance(e, dict) else {}

    def forget(self, path: str) -> None:
        if self.entries.pop(path, None) is not None:
            self.dirty = True

    def save(self) -> None:
        if not self.folder or not self.dirty:
            return
        try:
            os.makedirs(self.folder, exist_ok=True)
            tmp = os.path.join(self.folder, f"{_NAME}.{os.getpid()}")
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump({"key": self.key, "files": self.entries}, f)
            os.replace(tmp, os.path.join(self.folder, _NAME))
        except OSError:
            pass  # a cache that can't be written is only a slower next run
