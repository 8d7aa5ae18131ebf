"""Could not run here: reasons outside the repository that keep a benchmark from running on this machine.

A missing third-party module, an interpreter without pytest, no CUDA device: the static fix stands and the
file is reported "not run" with the reason, never blocked (unless `require-run = true`). A module of the
repository that the diff moved or removed is not such a reason: it is an interface error to repair.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from benchop_hook.errors import BenchOpError

MISSING = re.compile(r"No module named '(?P<module>[\w.]+)'")


class CannotRun(BenchOpError):
    """The benchmark interpreter can't run pytest at all (raised by the runner; every file is "not run").
    `message` is said once, with the fix; `reason` is each file's short "not run" reason."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message


def _module_of(path: str) -> str | None:
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or None


@dataclass(frozen=True)
class Environment:
    """What tells an environment problem from an interface error: the repository, what the diff took away."""

    root: str
    python: str
    gone: frozenset[str] = frozenset()  # modules the diff moved or removed

    @classmethod
    def of(cls, root: str, python: str, changes: Iterable[object]) -> Environment:
        gone = set()
        for c in changes:
            old, new = getattr(c, "old_path", None), getattr(c, "new_path", None)
            if old and old != new:
                m = _module_of(old)
                if m:
                    gone.add(m)
        return cls(root, python, frozenset(gone))

    def in_repo(self, top: str) -> bool:
        return any(
            os.path.exists(os.path.join(self.root, *pre, top + ext))
            for pre in ((), ("src",))
            for ext in ("", ".py")
        )

    def missing_module(self, text: str) -> str | None:
        """Why `No module named 'X'` in `text` means "could not run here", or None: an interface error."""
        m = MISSING.search(text)
        if m is None:
            return None
        name = m.group("module")
        top = name.split(".", 1)[0]
        if any(g == name or g.startswith(name + ".") or name.startswith(g + ".") for g in self.gone):
            return None  # the diff moved or removed it: repair the import
        if self.in_repo(top):
            if name != top:
                return None  # a module of the repository that is not there: an interface error
            return (
                f"No module named '{top}': the repository's own package is not installed in "
                f"{self.python}; run `{self.python} -m pip install -e .` to get numbers"
            )
        return (
            f"No module named '{name}': it is not installed in {self.python}; install it there to get numbers"
        )
