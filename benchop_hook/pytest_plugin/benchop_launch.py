"""`python -m benchop_launch`: a pytest process started before bench-op knows what to run.

bench-op starts it while its static pass plans and writes the rewrites, so that the interpreter's start,
pytest's import and the heavy third-party imports (BENCHOP_WARM, e.g. torch) overlap with that work. It then
waits for one JSON line on stdin: {"argv": [...], "env": {...}}, written only after the benchmark files are
on disk, and runs pytest exactly as `python -m pytest ARGV` would, in that environment (`-m` puts the working
directory first on sys.path, as for pytest). EOF instead of a line: nothing to run, exit quietly.

Nothing the project owns (conftest, benchmark files, its package) is imported before the line arrives. Like
benchop_collect, it imports nothing from bench-op.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys


def _warm() -> None:
    for name in filter(None, os.environ.get("BENCHOP_WARM", "").split(",")):
        try:
            if importlib.util.find_spec(name) is not None:
                importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module that fails to import fails again, in pytest, where it is reported
            sys.modules.pop(name, None)


def main() -> int:
    import time

    marks = [("started", time.time())]
    try:
        import pytest
    except ModuleNotFoundError as exc:
        if exc.name != "pytest":
            raise
        # word for word what `python -m pytest` says, which bench-op turns into "install pytest there"
        print(f"{sys.executable}: No module named pytest", file=sys.stderr)
        return 1
    marks.append(("pytest imported", time.time()))
    _warm()
    marks.append(("warm modules imported", time.time()))
    line = sys.stdin.readline()
    if not line.strip():
        return 0
    marks.append(("argv received", time.time()))
    order = json.loads(line)
    if os.environ.get(
        "BENCHOP_TIMINGS"
    ):  # bench-op's per-stage timers are on: say when this process was ready
        print(
            "benchop_launch timings (wall clock): " + ", ".join(f"{k} {t:.3f}" for k, t in marks),
            file=sys.stderr,
            flush=True,
        )
    # the run itself reads nothing from bench-op: stdin is /dev/null, as for a cold start
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.environ.clear()
    os.environ.update(order["env"])
    sys.argv = [sys.argv[0], *order["argv"]]
    # pytest's supported entry point (console_main is deprecated and goes with the next major version)
    return int(pytest.main(order["argv"]))


if __name__ == "__main__":
    raise SystemExit(main())
