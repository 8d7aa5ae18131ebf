"""The static pass in the terminal: `check -q` says only what the exit status is about."""

from __future__ import annotations

from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"

# A call whose arguments only a run can judge: information, nothing to act on.
UNKNOWN_BENCH = """import torch

from benchmarks.benchmark import report, time_ms
from minitile.ops import SumFwdOp
from workloads import randn


def test_sum_shape_bench(shape, record_property):
    x = randn(*shape)
    op = SumFwdOp(*shape, torch.float32)
    report(record_property, "sum", time_ms(op, x), nbytes=x.numel() * x.element_size())
"""


def test_quiet_check_prints_nothing_when_nothing_is_broken(repo: Repo) -> None:
    repo.write("benchmarks/ops/bench_shape.py", UNKNOWN_BENCH)
    repo.commit("a benchmark only a run can judge")
    loud = repo.cli("check", "--all-files")
    assert loud.returncode == 0 and "unknown: the run decides" in loud.stdout, loud.stdout
    r = repo.cli("check", "-q", "--all-files")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "", r.stdout


def test_quiet_check_prints_the_broken_calls_and_what_to_do(repo: Repo) -> None:
    repo.write("benchmarks/ops/bench_shape.py", UNKNOWN_BENCH)
    repo.commit("a benchmark only a run can judge")
    reduction_change(repo)
    repo.git("add", "-A")
    loud = repo.cli("check")
    r = repo.cli("check", "-q")
    assert r.returncode == loud.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) < len(loud.stdout.splitlines()), r.stdout
    assert "Op signature change" not in r.stdout and "inherited by" not in r.stdout, r.stdout
    assert lines[0].startswith(f"{BENCH_RED}:15: SumFwdOp(M, N, dtype): "), r.stdout
    assert lines[1].startswith("    fix: SumFwdOp(N, dtype)"), r.stdout
    # the splatted call is broken too in a diff (the run decides it, and the exit status counts it)
    assert any(ln.startswith("benchmarks/ops/bench_shape.py:10: SumFwdOp(*shape") for ln in lines), r.stdout
    assert lines[-1] == loud.stdout.splitlines()[-1], r.stdout
    assert lines[-1].endswith("run `bench-op fix` to apply."), r.stdout
