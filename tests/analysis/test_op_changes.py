"""Op changes beyond a new signature (analysis/changes.py): an Op renamed, moved to another module or file,
removed, or its file deleted."""

from __future__ import annotations

from tests.helpers.asserts import state
from tests.helpers.changes import REDUCTION_N_DIM
from tests.helpers.repo import Repo

RENAMED = """from .op import Op


class SumFwdOp(Op):
    def __init__(self, M, N, dtype):
        self.M, self.N, self.dtype = M, N, dtype

    def forward(self, x):
        return x.sum(dim=-1)
"""


def test_renamed_op_rewrites_imports_and_uses(repo: Repo) -> None:
    repo.write("src/minitile/ops/simple.py", RENAMED.replace("class SumFwdOp", "class SumOp"))
    repo.write(
        "benchmarks/ops/bench_simple.py",
        (
            "import torch\nfrom minitile.ops.simple import SumOp\nfrom benchmarks.benchmark import report, "
            "time_ms\n"
            "from workloads import randn\n\n\ndef test_simple(record_property):\n    op = SumOp(64, 256, "
            "torch.float32)\n"
            "    report(record_property, 's', time_ms(op, randn(64, 256)))\n"
        ),
    )
    repo.commit("a simple op")
    repo.write("src/minitile/ops/simple.py", RENAMED)
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    text = repo.read("benchmarks/ops/bench_simple.py")
    assert "from minitile.ops.simple import SumFwdOp\n" in text
    assert "op = SumFwdOp(64, 256, torch.float32)" in text
    assert "SumOp -> SumFwdOp" in r.stdout or "SumOp(M, N, dtype) -> SumFwdOp" in r.stdout


def test_moved_op_rewrites_the_import_module(repo: Repo) -> None:
    repo.write("src/minitile/ops/simple.py", RENAMED)
    repo.write(
        "benchmarks/ops/bench_simple.py",
        (
            "import torch\nfrom minitile.ops.simple import SumFwdOp\nfrom benchmarks.benchmark import "
            "report, time_ms\n"
            "from workloads import randn\n\n\ndef test_simple(record_property):\n    op = SumFwdOp(64, 256, "
            "torch.float32)\n"
            "    report(record_property, 's', time_ms(op, randn(64, 256)))\n"
        ),
    )
    repo.commit("a simple op")
    repo.git("mv", "src/minitile/ops/simple.py", "src/minitile/ops/reduction_simple.py")
    repo.git("add", "-A")
    repo.cli("fix")
    assert "from minitile.ops.reduction_simple import SumFwdOp\n" in repo.read(
        "benchmarks/ops/bench_simple.py"
    )


def test_removed_op_is_reported(repo: Repo) -> None:
    repo.write("src/minitile/ops/simple.py", RENAMED)
    repo.write(
        "benchmarks/ops/bench_simple.py",
        (
            "import torch\nfrom minitile.ops.simple import SumFwdOp\n\n\ndef test_simple():\n    "
            "SumFwdOp(64, 256, torch.float32)\n"
        ),
    )
    repo.commit("a simple op")
    repo.write("src/minitile/ops/simple.py", "from .op import Op\n")
    repo.git("add", "-A")
    r = repo.cli("check")
    assert r.returncode == 1
    assert "SumFwdOp(M, N, dtype) -> removed" in r.stdout
    assert "removed with no successor" in r.stdout or "nothing replaced it" in r.stdout


def test_renamed_op_file_is_followed(repo: Repo) -> None:
    repo.git("mv", "src/minitile/ops/reduction.py", "src/minitile/ops/reductions.py")
    repo.replace("src/minitile/ops/__init__.py", "from .reduction import", "from .reductions import")

    repo.write("src/minitile/ops/reductions.py", REDUCTION_N_DIM)
    repo.git("add", "-A")
    r = repo.cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "ReduceOp(M, N, dtype, tune=False) -> ReduceOp(N, dtype, dim=-1, *, tune=False)" in r.stdout
    assert "fix: SumFwdOp(N, dtype)" in r.stdout


def test_op_file_deleted_in_the_diff(repo: Repo) -> None:
    repo.git("rm", "-q", "src/minitile/ops/gemm.py")
    repo.replace("src/minitile/ops/__init__.py", "from .gemm import GemmOp\n", "")
    repo.replace("src/minitile/ops/__init__.py", '"GemmOp", ', "")
    repo.git("add", "-A")
    before = state(repo)
    r = repo.cli("check")
    assert r.returncode == 1
    assert "GemmOp(M, N, K, dtype, trans_b=False) -> removed" in r.stdout
    assert "benchmarks/ops/bench_gemm.py:15" in r.stdout and "nothing replaced it" in r.stdout
    assert state(repo) == before
