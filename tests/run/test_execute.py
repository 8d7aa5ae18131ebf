"""`bench-op run` on real pytest subprocesses over the fixture library (CPU): what runs (only the functions a
change reaches, each file once when the static pass fixed it) and what a run without a GPU or with --no-run
does."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo, run_json

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def test_fixed_statically_then_numbers_on_the_first_run(repo: Repo, tmp_path: Path) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert data["status"] == "done"
    (bench,) = data["benchmarks"]
    assert bench["path"] == BENCH_RED and bench["status"] == "passed"
    assert bench["iterations"] == 1, "a file the static pass fixed runs exactly once"
    cases = {n["case"] for n in bench["numbers"]}
    assert "test_sum_bench[64-256]" in cases and "test_amax_bench" in cases
    assert {n["unit"] for n in bench["numbers"]} >= {"ms", "TFLOPS", "GB/s"}
    assert "latency" in r.stdout and "passed with numbers" in r.stdout
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)
    # The interpreter used is printed.
    assert f"running benchmarks with {sys.executable}" in r.stdout


GPU_BENCH = """import torch

from minitile.ops import GemmOp


def test_gemm_cuda_bench(record_property):
    a = torch.randn(64, 64, device="cuda")
    op = GemmOp(64, 64, 64, torch.float32)
    op(a, a)
"""


def test_no_gpu_is_a_skip_unless_required(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_cuda.py", GPU_BENCH)
    repo.commit("a benchmark that needs a GPU")
    repo.replace(
        "src/minitile/ops/gemm.py",
        "def __init__(self, M, N, K, dtype, trans_b=False):",
        "def __init__(self, M, N, K, *, dtype, trans_b=False):",
    )
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    cuda = next(b for b in data["benchmarks"] if b["path"] == "benchmarks/ops/bench_cuda.py")
    assert cuda["status"] == "not-run" and cuda["reason"] == "no CUDA device is visible", cuda
    assert "GemmOp(64, 64, 64, dtype=torch.float32)" in repo.read("benchmarks/ops/bench_cuda.py"), (
        "the static fix stands"
    )
    assert r.returncode == 0, r.stdout
    repo.replace("pyproject.toml", "timeout = 300", "timeout = 300\nrequire-gpu = true")
    repo.git("checkout", "--", "benchmarks")
    repo.git("add", "pyproject.toml")
    r, data = run_json(repo, tmp_path)
    assert r.returncode == 1 and data["status"] == "blocked"


def test_no_run_is_static_only(repo: Repo, tmp_path: Path) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("run", "--no-run")
    assert r.returncode == 0 and "--no-run" in r.stdout
    assert "running benchmarks" not in r.stdout
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)


LITERAL_SPLAT = """import torch

from benchmarks.benchmark import report, time_ms
from minitile.ops import SumFwdOp
from workloads import randn


def test_literal(record_property):
    params = {"M": 64, "N": 256, "dtype": torch.float32}
    op = SumFwdOp(**params)
    report(record_property, "s", time_ms(op, randn(64, 256)))


def test_inline(record_property):
    op = SumFwdOp(**{"M": 64, "N": 256, "dtype": torch.float32})
    report(record_property, "s", time_ms(op, randn(64, 256)))
"""


def test_literal_splat_is_fixed_statically(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_literal.py", LITERAL_SPLAT)
    repo.commit("literal dict benchmarks")
    reduction_change(repo)
    repo.git("add", "-A")
    out = tmp_path / "r.json"
    r = repo.bench_op("run", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    text = repo.read("benchmarks/ops/bench_literal.py")
    assert 'params = {"N": 256, "dtype": torch.float32}' in text
    assert 'op = SumFwdOp(**{"N": 256, "dtype": torch.float32})' in text
    bench = next(
        b for b in json.loads(out.read_text())["benchmarks"] if b["path"] == "benchmarks/ops/bench_literal.py"
    )
    assert bench["iterations"] == 1


TWO_FUNCS = """import torch

from benchmarks.benchmark import report, time_ms
from minitile.ops import GemmOp, SumFwdOp
from workloads import randn


def test_affected(record_property):
    op = SumFwdOp(64, 256, torch.float32)
    report(record_property, "a", time_ms(op, randn(64, 256)))


def test_untouched(record_property):
    raise AssertionError("bench-op ran a function the change does not reach")
"""


def test_only_the_functions_that_build_a_changed_op_run(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_two.py", TWO_FUNCS)
    repo.commit("two functions")
    reduction_change(repo)
    repo.git("add", "-A")
    out = tmp_path / "r.json"
    r = repo.bench_op("run", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    bench = next(
        b for b in json.loads(out.read_text())["benchmarks"] if b["path"] == "benchmarks/ops/bench_two.py"
    )
    assert bench["targets"] == ["benchmarks/ops/bench_two.py::test_affected"]
    assert bench["status"] == "passed"
