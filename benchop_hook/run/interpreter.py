"""Which Python runs the benchmarks, and the environment it gets.

The one named (`--python`, `[tool.bench-op] python`) is used as it is. Otherwise the first of the
project's own environments that can import pytest: the repository's `.venv` or `venv`, the active
virtualenv, the active conda environment, the interpreter bench-op runs in, `python3` / `python` on PATH.
pre-commit's hook environments are never taken (they hold bench-op and not the project: no torch, no
pytest), wherever they show up: as this interpreter, as `$VIRTUAL_ENV` (pre-commit sets it for a hook), or
first on PATH. The choice is made once per process: every stage of a run asks for it.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from benchop_hook.errors import EXIT_USAGE, BenchOpError
from benchop_hook.run.notrun import CannotRun


@dataclass(frozen=True)
class Interpreter:
    """The benchmark interpreter, where it came from (for the user), and what it has."""

    path: str
    source: str  # where it came from, for the user: "--python", "the repository's .venv", ...
    has_xdist: bool = False
    has_pytest_benchmark: bool = False
    # chosen by looking around: the interpreters looked at first, which could not import pytest
    passed_over: tuple[str, ...] = ()
    has_pytest: bool | None = None  # None: not asked yet


def pre_commit_home() -> str:
    """Where pre-commit keeps its hook environments."""
    return os.environ.get("PRE_COMMIT_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "pre-commit"
    )


def in_hook_env(where: str) -> bool:
    """True when `where` (an environment's folder, or an interpreter in one) is inside pre-commit's home.
    An interpreter is judged by its folder: a virtualenv's `python` is a link out of the environment."""
    folder = where if os.path.isdir(where) else os.path.dirname(os.path.abspath(where))
    home = os.path.realpath(pre_commit_home())
    try:
        return os.path.commonpath([os.path.realpath(folder), home]) == home
    except ValueError:
        return False


def child_env(extra: dict[str, str]) -> dict[str, str]:
    """The environment of a process in the benchmark interpreter: this one's, without git's hook variables,
    a pytest session's own markers or a virtualenv's activation, plus `extra`."""
    # A pytest session's own markers are not passed on: bench-op run from inside a pytest-xdist worker (a
    # test suite, a CI job) would otherwise start benchmark sessions that take themselves for xdist workers
    # (pytest-benchmark then switches itself off). The user's PYTEST_ADDOPTS stays.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GIT_", "PYTEST_XDIST_"))
        and k not in ("PYTHONHOME", "VIRTUAL_ENV", "__PYVENV_LAUNCHER__", "PYTEST_CURRENT_TEST")
    }
    if in_hook_env(sys.prefix):
        bindir = os.path.dirname(sys.executable)
        env["PATH"] = os.pathsep.join(
            p
            for p in env.get("PATH", "").split(os.pathsep)
            if os.path.realpath(p) != os.path.realpath(bindir)
        )
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def candidates(root: str) -> Iterator[tuple[str, str]]:
    """(path, where it came from) of each interpreter worth asking, best first; pre-commit's hook
    environments left out."""
    for venv in (".venv", "venv"):
        yield os.path.join(root, venv, "bin", "python"), f"the repository's {venv}"
    for var, what in (("VIRTUAL_ENV", "the active virtualenv"), ("CONDA_PREFIX", "the active conda env")):
        prefix = os.environ.get(var)
        if prefix:
            yield os.path.join(prefix, "bin", "python"), f"{what} (${var})"
    yield sys.executable, "the interpreter bench-op runs in"
    for d in os.environ.get("PATH", "").split(os.pathsep):
        for name in ("python3", "python"):
            if d:
                yield os.path.join(d, name), "PATH"


def _runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK) and not in_hook_env(path)


def imports_pytest(path: str) -> bool:
    """Whether `path` can import pytest (asked without importing it: a fraction of pytest's import)."""
    code = "import importlib.util as u, sys; sys.exit(u.find_spec('pytest') is None)"
    try:
        proc = subprocess.run([path, "-c", code], capture_output=True, timeout=60, env=child_env({}))
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


_chosen: dict[tuple[str, ...], Interpreter] = {}


def resolve_python(
    root: str, cli_value: str | None, cfg_value: str | None, cli_source: str = "--python"
) -> Interpreter:
    """--python (or what `cli_source` names: a value a caller resolved before), then [tool.bench-op] python,
    then the first of `candidates` that can import pytest. Asked once per process for the same inputs."""
    for value, source in ((cli_value, cli_source), (cfg_value, "[tool.bench-op] python")):
        if value:
            path = value if os.path.isabs(value) else os.path.join(root, value)
            if not os.path.exists(path):
                raise BenchOpError(
                    f"the interpreter {value} (from {source}) does not exist: fix {source} or leave it out.",
                    EXIT_USAGE,
                )
            return Interpreter(path, source)
    env = tuple(os.environ.get(k, "") for k in ("VIRTUAL_ENV", "CONDA_PREFIX", "PATH", "PRE_COMMIT_HOME"))
    key = (root, sys.executable, *env)
    if key not in _chosen:
        _chosen[key] = _look_around(root)
    return _chosen[key]


def _look_around(root: str) -> Interpreter:
    seen: set[str] = set()
    without: list[Interpreter] = []
    for path, source in candidates(root):
        # (by the path as named: two virtualenvs' pythons link to one interpreter, with other packages)
        named = os.path.normpath(os.path.abspath(path))
        if named in seen or not _runnable(path):
            continue
        seen.add(named)
        if imports_pytest(path):
            return Interpreter(path, source, passed_over=tuple(i.path for i in without), has_pytest=True)
        without.append(Interpreter(path, source, has_pytest=False))
    if without:
        # None can: the best guess runs, and the run says once what to set.
        first = without[0]
        return dataclasses.replace(first, passed_over=tuple(i.path for i in without[1:]))
    raise BenchOpError(
        'no Python found to run the benchmarks: set `python = "<your project\'s python>"` in [tool.bench-op].'
    )


def no_pytest(interp: Interpreter) -> CannotRun:
    """The interpreter can't import pytest: one sentence with the fix (said once per run), and a short
    reason for each file that did not run (it goes into the follow-up commit's message)."""
    if interp.source == "--python":
        other = "pass the project's interpreter to --python"
    else:
        other = 'set `python = "path/to/python"` in [tool.bench-op] to the project\'s interpreter'
    nor = f" (nor can {', '.join(interp.passed_over)})" if interp.passed_over else ""
    return CannotRun(
        f"{interp.path} (from {interp.source}) cannot import pytest{nor}: install pytest there "
        f"(`{interp.path} -m pip install pytest`), or {other}",
        reason=f"no pytest in {interp.path}",
    )


def probe(interp: Interpreter) -> Interpreter:
    """Check the interpreter imports pytest; learn which optional plugins it has. One line on failure."""
    code = (
        "import importlib.util as u, pytest; "
        "print(u.find_spec('xdist') is not None, u.find_spec('pytest_benchmark') is not None)"
    )
    try:
        proc = subprocess.run(
            [interp.path, "-c", code], capture_output=True, text=True, timeout=120, env=child_env({})
        )
    except OSError as exc:
        raise BenchOpError(
            f"cannot start {interp.path} ({exc.strerror}): point --python or [tool.bench-op] python at a "
            "working interpreter."
        ) from None
    except subprocess.TimeoutExpired:
        raise BenchOpError(f"{interp.path} did not start within 120 s: check that interpreter.") from None
    if proc.returncode != 0:
        if "No module named" in proc.stderr and "pytest" in proc.stderr:
            raise no_pytest(interp)
        last = (proc.stderr.strip().splitlines() or ["exit " + str(proc.returncode)])[-1]
        raise BenchOpError(f"{interp.path} (from {interp.source}) failed to start: {last}")
    xdist, bench = (w == "True" for w in proc.stdout.split()[:2])
    return dataclasses.replace(interp, has_xdist=xdist, has_pytest_benchmark=bench, has_pytest=True)


_said: set[str] = set()


def first_time(line: str) -> bool:
    """True the first time this process is about to say `line`: a run's stages each meet the same missing
    pytest, and it is said once."""
    if line in _said:
        return False
    _said.add(line)
    return True
