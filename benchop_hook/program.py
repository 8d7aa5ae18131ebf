"""How the person types this bench-op: every message that tells them to run a bench-op command asks here.

Through pre-commit, `bench-op` lives only inside pre-commit's cache (its environment's `bin` is on the PATH
of the hook, not of the person's shell): a hint that says `bench-op status` then names a command their shell
does not have. Where the `bench-op` the shell would find is not this installation, the hint names this one
by its full path.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys

NAME = "bench-op"
_PLAIN = re.compile(r"[\w@%+=:,./~-]+")


def command(args: str = "") -> str:
    """`bench-op ARGS` as the person's shell can run it: `bench-op` when their PATH finds this installation,
    else this installation's own executable by its path."""
    program = _program()
    return f"{program} {args}" if args else program


def word(text: str) -> str:
    """`text` as one word of a command line: as it is where the shell leaves it alone (`HEAD~1`,
    `main..topic`), else quoted."""
    if _PLAIN.fullmatch(text) and not text.startswith("~"):
        return text
    return shlex.quote(text)


def _program() -> str:
    running = _running()
    if running is None:
        # No `bench-op` script beside this interpreter: the module form works wherever the interpreter does.
        return f"{_shown(sys.executable)} -m benchop_hook"
    found = shutil.which(NAME, path=_shell_path())
    if found is not None and _same(found, running):
        return NAME
    return _shown(running)


def _running() -> str | None:
    """The `bench-op` script of this installation: the one that was started, else the one beside the
    interpreter (`python -m benchop_hook`, the background run, the tests)."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == NAME and os.path.isfile(argv0):
        return os.path.abspath(argv0)
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), NAME)
    return beside if os.path.isfile(beside) else None


def _shell_path() -> str:
    """The person's PATH: the hook's, less the hook environment's `bin` that pre-commit put in front."""
    path = os.environ.get("PATH", os.defpath)
    env = os.environ.get("VIRTUAL_ENV")
    if not (os.environ.get("PRE_COMMIT") and env):
        return path
    hook_bin = os.path.realpath(os.path.join(env, "bin"))
    return os.pathsep.join(p for p in path.split(os.pathsep) if p and os.path.realpath(p) != hook_bin)


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _shown(path: str) -> str:
    """A path the shell takes as one word; under the home folder as `~/...` (shorter, and the shell expands
    it)."""
    home = os.path.expanduser("~")
    if home not in ("", "~", "/"):
        rel = os.path.relpath(path, home)
        if not rel.startswith(".." + os.sep) and rel != ".." and shlex.quote(rel) == rel:
            return f"~/{rel}"
    return shlex.quote(path)
