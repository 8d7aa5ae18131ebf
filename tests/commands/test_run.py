"""`bench-op run` as a command: one run at a time in a repository, a second run over the same range commits
nothing, a benchmark staged for removal is left alone."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

from tests.helpers.asserts import one_line_error, state
from tests.helpers.changes import reduction_change, stage_reduction_change
from tests.helpers.process import popen
from tests.helpers.repo import Repo
from tests.helpers.sources import HANG

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def test_two_runs_at_once(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_hang.py", HANG)
    repo.commit("a benchmark that hangs")
    stage_reduction_change(repo)
    pidfile = tmp_path / "pid"
    first = popen(
        [sys.executable, "-m", "benchop_hook", "run", "--timeout", "60"],
        repo.path,
        env={"HANG_PIDFILE": str(pidfile)},
    )
    try:
        deadline = time.monotonic() + 120
        while not pidfile.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        during = repo.snapshot()
        r = repo.bench_op("run", env={"BENCH_OP_LOCK_WAIT": "1"})
        assert r.returncode == 1
        assert f"another bench-op run (pid {first.pid}) is working in this repository" in one_line_error(r)
        assert repo.snapshot() == during, "the second run wrote nothing"
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)


def test_run_twice_commits_once(repo: Repo) -> None:
    reduction_change(repo)
    repo.commit("reduce")
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.log()[0].startswith("bench-op: align")
    after = state(repo)
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0 and "nothing to do" in r.stdout
    assert state(repo) == after


def _commit_change(repo: Repo) -> None:
    reduction_change(repo)
    repo.commit("reduce: rows come from the input")


def test_a_benchmark_staged_for_removal_is_left_alone(repo: Repo) -> None:
    _commit_change(repo)
    repo.git("rm", "-q", "--cached", BENCH_RED)
    status = repo.git("status", "--porcelain")
    r = repo.cli("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run")
    assert r.returncode == 1 and "staged for removal" in r.stdout
    assert repo.log()[0] == "reduce: rows come from the input"
    assert repo.git("status", "--porcelain") == status
    assert "Traceback" not in r.stderr
