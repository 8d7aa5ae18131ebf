"""The repair loop (run/repair.py) on real pytest runs: a splatted call fixed from its traceback, a helper
under benchmarks/ fixed with the benchmark that reaches it, and a kernel error that blocks and leaves the tree
as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.changes import REDUCTION_N_DIM, reduction_change
from tests.helpers.repo import Repo, run_json
from tests.helpers.sources import SPLAT_BENCH


def test_splatted_params_only_the_run_can_fix(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_splat.py", SPLAT_BENCH)
    repo.commit("a benchmark built from workload dicts")
    reduction_change(repo)
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    splat = next(b for b in data["benchmarks"] if b["path"] == "benchmarks/ops/bench_splat.py")
    assert splat["status"] == "passed" and splat["numbers"]
    assert splat["iterations"] == 3  # one case per function, repaired, then the full set once
    text = repo.read("benchmarks/ops/bench_splat.py")
    # params is used for the inputs too: the Op gets its own copy without 'M'.
    assert (
        "    op_params = dict(params)\n    op_params.pop('M', None)\n    op = SumFwdOp(**op_params)\n" in text
    )
    assert 'x = randn(params["M"], params["N"], dtype=params["dtype"])' in text
    assert "repaired from the traceback" in r.stdout


def test_kernel_error_after_interface_fix_blocks_and_leaves_the_tree(repo: Repo, tmp_path: Path) -> None:
    crashing = REDUCTION_N_DIM.replace(
        "    def forward(self, x):\n",
        "    def forward(self, x):\n        raise RuntimeError('CUDA error: an illegal memory access was "
        "encountered')\n",
        1,
    )
    repo.write("src/minitile/ops/reduction.py", crashing)
    repo.git("add", "-A")
    before = repo.snapshot()
    r, data = run_json(repo, tmp_path)
    assert r.returncode == 1
    assert data["status"] == "blocked"
    (bench,) = data["benchmarks"]
    assert bench["status"] == "failed" or bench["status"] == "blocked"
    assert "RuntimeError: CUDA error: an illegal memory access was encountered" in bench["reason"]
    assert "src/minitile/ops/reduction.py:" in bench["reason"]
    assert repo.snapshot() == before, "a blocked file is never half-fixed in the tree"
    patch = Path(bench["patch"])
    assert patch.exists() and "+    op = SumFwdOp(N, dtype)" in patch.read_text()
    # The patch applies to the tree as it is.
    repo.git("apply", "--check", str(patch))
    assert str(patch) in r.stdout


def _commit_change(repo: Repo) -> None:
    reduction_change(repo)
    repo.commit("reduce: rows come from the input")


HELPER_SPLAT = (
    "from minitile.ops import MeanFwdOp\n\n\ndef build_mean(**params):\n    return MeanFwdOp(**params)\n"
)


@pytest.mark.parametrize("numbers", [True, False])
def test_a_helper_fixed_from_a_traceback_stands_or_falls_with_its_benchmark(
    repo: Repo, numbers: bool
) -> None:
    repo.write("benchmarks/common.py", HELPER_SPLAT)
    repo.write(
        "benchmarks/ops/bench_helper.py",
        (
            "import torch\nfrom benchmarks.benchmark import report\nfrom benchmarks.common import "
            "build_mean\n\n\n"
            "from minitile.ops import SumFwdOp\n\n\ndef test_helper(record_property):\n"
            "    SumFwdOp(64, 256, torch.float32)\n    build_mean(M=64, N=256, dtype=torch.float32)\n"
            + ("    report(record_property, 'x', 0.5)\n" if numbers else "    pass\n")
        ),
    )
    repo.commit("a helper")
    _commit_change(repo)
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "benchmarks/ops/bench_helper.py")
    if numbers:
        assert r.returncode == 0, r.stdout + r.stderr
        assert sorted(repo.git("show", "--format=", "--name-only", "HEAD").split()) == [
            "benchmarks/common.py",
            "benchmarks/ops/bench_helper.py",
        ]
        assert repo.git("status", "--porcelain") == ""
    else:
        assert r.returncode == 1
        assert repo.log()[0] == "reduce: rows come from the input"
        assert repo.git("status", "--porcelain") == "", (
            "the helper was put back along with the blocked benchmark"
        )


def test_a_helper_without_tests_is_checked_through_its_importers(repo: Repo) -> None:
    repo.write(
        "benchmarks/factories.py",
        "import torch\nfrom minitile.ops import SumFwdOp\n\n\ndef make_sum(M, N):\n    return SumFwdOp(M, "
        "N, torch.float32)\n",
    )
    repo.write(
        "benchmarks/ops/bench_factory.py",
        (
            "from benchmarks.benchmark import report\nfrom benchmarks.factories import make_sum\n\n\n"
            "def test_factory(record_property):\n    make_sum(64, 256)\n    report(record_property, 'x', "
            "0.5)\n"
        ),
    )
    repo.commit("a factory")
    _commit_change(repo)
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "benchmarks/factories.py: fixed; checked through benchmarks/ops/bench_factory.py" in r.stdout
    assert "benchmarks/factories.py" in repo.git("show", "--format=", "--name-only", "HEAD").split()
    assert "return SumFwdOp(N, torch.float32)" in repo.git("show", "HEAD:benchmarks/factories.py")


def test_the_repair_loop_imports_libcst_only_to_fix_a_dict() -> None:
    """A run whose benchmarks need no repair never pays for libcst's import (0.15 to 0.2 s): the dict fix
    imports it when it edits (test_splatted_params_only_the_run_can_fix)."""
    import subprocess
    import sys

    code = "import sys, benchop_hook.run.repair, benchop_hook.run.execute; print('libcst' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "False", r.stdout + r.stderr


OUTSIDE_OP_BENCH = """import torch

from minitile.ops import RMSNormOp, SumFwdOp
from workloads import randn

PARAMS = dict(M=64, N=256, dtype=torch.float32)


def test_both_bench():
    x = randn(64, 256)
    norm = RMSNormOp(64, hidden=256, dtype=torch.float32)
    op = SumFwdOp(**PARAMS)
    assert norm is not None and op(x) is not None
"""


def test_a_call_of_an_op_outside_op_is_named_so(repo: Repo, tmp_path: Path) -> None:
    # The run is restricted to RMSNormOp; the same function builds SumFwdOp, whose change is not this run's.
    repo.write("benchmarks/ops/bench_both.py", OUTSIDE_OP_BENCH)
    repo.commit("a benchmark of two Ops")
    reduction_change(repo)
    repo.replace("src/minitile/ops/norm.py", "eps=1e-6):", "eps=1e-5):")
    repo.commit("reduction: rows from the input; norm: a new eps")
    r, data = run_json(
        repo, tmp_path, "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--op", "RMSNormOp", "--no-commit"
    )
    both = next(b for b in data["benchmarks"] if b["path"] == "benchmarks/ops/bench_both.py")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "outside --op" in both["reason"], both["reason"]
    assert "does not build an Op whose signature changed" not in both["reason"]
