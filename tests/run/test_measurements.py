"""Numbers from a benchmark run (run/measurements.py): pytest-benchmark's JSON read as latencies, and a
benchmark that passes without printing a number is not done."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo, run_json


def test_passing_without_numbers_is_not_done(repo: Repo, tmp_path: Path) -> None:
    repo.write(
        "benchmarks/ops/bench_quiet.py",
        "import torch\nfrom minitile.ops import SumFwdOp\n\n\ndef test_quiet():\n    SumFwdOp(4, 8, "
        "torch.float32)\n",
    )
    repo.commit("a benchmark that measures nothing")
    reduction_change(repo)
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    quiet = next(b for b in data["benchmarks"] if b["path"] == "benchmarks/ops/bench_quiet.py")
    assert quiet["status"] == "failed" and "printed no latency" in quiet["reason"]
    assert r.returncode == 1


PB_BENCH = """import torch

from minitile.ops import SumFwdOp


def test_sum_pytest_benchmark(benchmark):
    x = torch.randn(64, 256)
    op = SumFwdOp(64, 256, torch.float32)
    benchmark(op, x)
"""


def test_numbers_from_pytest_benchmark_json(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_pb.py", PB_BENCH)
    repo.commit("a pytest-benchmark benchmark")
    reduction_change(repo)
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    pb = next(b for b in data["benchmarks"] if b["path"] == "benchmarks/ops/bench_pb.py")
    assert pb["status"] == "passed"
    (n,) = [n for n in pb["numbers"] if n["case"] == "test_sum_pytest_benchmark"]
    assert n["name"] == "latency" and n["unit"] == "ms" and n["value"] > 0
