"""`bench-op run` as a command: one run at a time in a repository, a second run over the same range commits
nothing, a benchmark staged for removal is left alone, `--op` runs the calls of one Op class."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.asserts import one_line_error, state
from tests.helpers.changes import gemm_shapes_change, reduction_change, stage_reduction_change
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


def _two_changes(repo: Repo) -> None:
    reduction_change(repo)
    gemm_shapes_change(repo)
    repo.commit("reduce and gemm")


def test_op_restricts_a_run_to_one_op_class(repo: Repo, tmp_path: Path) -> None:
    """What a coding-agent skill asks for by `op_name`: the calls of that class, nothing else."""
    _two_changes(repo)
    out = tmp_path / "run.json"
    r = repo.cli(
        "run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run", "--op", "SumFwdOp", "--json", str(out)
    )
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(out.read_text())
    assert [c["op"] for c in data["changes"]] == ["SumFwdOp"]
    assert {f["op"] for f in data["findings"]} == {"SumFwdOp"}
    bench = repo.read(BENCH_RED)
    assert "SumFwdOp(N, dtype)" in bench and "MeanFwdOp(M, N, dtype=torch.float32)" in bench
    assert repo.git("status", "--porcelain", "benchmarks/ops/bench_gemm.py") == ""
    assert repo.log()[0].startswith("bench-op: align bench_reduction.py with the new SumFwdOp interface")


def test_op_naming_a_base_class_takes_the_family_that_inherits_its_change(repo: Repo, tmp_path: Path) -> None:
    _two_changes(repo)
    out = tmp_path / "run.json"
    r = repo.cli(
        "run",
        "--from-ref",
        "HEAD~1",
        "--to-ref",
        "HEAD",
        "--no-run",
        "--no-commit",
        "--op",
        "ReduceOp",
        "--json",
        str(out),
    )
    assert r.returncode == 0, r.stdout + r.stderr
    changes = {c["op"] for c in json.loads(out.read_text())["changes"]}
    assert changes == {"ReduceOp", "SumFwdOp", "MeanFwdOp", "AmaxFwdOp"}


def test_op_that_did_not_change_says_so(repo: Repo) -> None:
    _two_changes(repo)
    before = state(repo)
    r = repo.cli("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run", "--op", "RMSNormOp")
    assert r.returncode == 0 and "--op RMSNormOp: no class of that name changed its signature" in r.stdout
    assert state(repo) == before


@pytest.mark.parametrize("args", [("--all-files",), ("--op", "not-a-name")])
def test_op_needs_a_class_name_and_a_diff(repo: Repo, args: tuple[str, ...]) -> None:
    extra = args if args[0] == "--op" else (*args, "--op", "SumFwdOp")
    r = repo.cli("run", *extra)
    assert r.returncode == 2 and "--op takes an Op class name and works on a diff" in r.stderr
