"""Which calls a changed Op reaches (analysis/callsites.py): through a dict of classes, parametrize, a loop,
a helper, a method of the Op; and only names really in scope count as evidence."""

from __future__ import annotations

from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo

INDIRECT = """import pytest
import torch

from benchmarks.benchmark import report, time_ms
from minitile.ops import AmaxFwdOp, GemmOp, MeanFwdOp, SumFwdOp
from workloads import randn

OPS = {"sum": SumFwdOp, "mean": MeanFwdOp}
FAMILY = [SumFwdOp, MeanFwdOp, AmaxFwdOp]


def _make_op(cls, M, N, dtype):
    return cls(M, N, dtype)


@pytest.mark.parametrize("kind", ["sum", "mean"])
def test_dict_of_classes(kind, record_property):
    op_cls = OPS[kind]
    op = op_cls(64, 256, torch.float32)
    x = randn(64, 256)
    report(record_property, kind, time_ms(op, x))


@pytest.mark.parametrize("op_cls", [SumFwdOp, MeanFwdOp])
def test_parametrized_classes(op_cls, record_property):
    op = op_cls(64, 256, dtype=torch.float32)
    x = randn(64, 256)
    report(record_property, "p", time_ms(op, x))


def test_loop_over_family(record_property):
    x = randn(64, 256)
    for cls in FAMILY:
        op = cls(64, 256, torch.float32)
        report(record_property, cls.__name__, time_ms(op, x))


def test_helper(record_property):
    op = _make_op(SumFwdOp, 64, 256, torch.float32)
    report(record_property, "h", time_ms(op, randn(64, 256)))


def test_disagreeing_classes(record_property):
    for cls in [SumFwdOp, GemmOp]:
        if cls is GemmOp:
            continue
        op = cls(64, 256, torch.float32)
        report(record_property, "d", time_ms(op, randn(64, 256)))
"""


def test_indirect_construction_is_followed(repo: Repo) -> None:
    repo.write("benchmarks/ops/bench_indirect.py", INDIRECT)
    repo.commit("indirect benchmarks")
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    text = repo.read("benchmarks/ops/bench_indirect.py")
    assert (
        "    op = op_cls(256, torch.float32)\n    x = randn(64, 256)\n    report(record_property, kind"
        in text
    )
    assert "op = op_cls(256, dtype=torch.float32)" in text
    assert "op = cls(256, torch.float32)\n        report(record_property, cls.__name__" in text
    assert "return cls(N, dtype)" in text
    assert "[reached through dict]" in r.stdout and "[reached through parametrize]" in r.stdout
    assert "[reached through loop]" in r.stdout and "[reached through helper]" in r.stdout
    # SumFwdOp and GemmOp don't agree on one fix: reported, left as it was.
    assert 'op = cls(64, 256, torch.float32)\n        report(record_property, "d"' in text
    assert "don't agree on one fix" in r.stdout


def test_changed_forward_signature_reaches_calls_on_the_op(repo: Repo) -> None:
    # A benchmark that calls the Op and its forward directly, committed before the change (one written in
    # the same change would be judged against the new signature only).
    repo.write(
        "benchmarks/ops/bench_norm_direct.py",
        (
            "import torch\nfrom minitile.ops import RMSNormOp\nfrom workloads import randn\n\n\n"
            "def test_direct():\n    op = RMSNormOp(4, 64, torch.float32)\n    x, w = randn(4, 64), "
            "torch.ones(64)\n"
            "    op(x, w)\n    op.forward(x, w)\n"
        ),
    )
    repo.commit("a direct benchmark")
    repo.replace(
        "src/minitile/ops/norm.py",
        "    def forward(self, x, weight):",
        "    def forward(self, x, *, weight):",
    )
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "forward" in r.stdout
    assert "ms = time_ms(op, x, w)" in repo.read(
        "benchmarks/ops/bench_norm.py"
    )  # passed through time_ms: not a call bench-op sees
    text = repo.read("benchmarks/ops/bench_norm_direct.py")
    assert "    op(x, weight=w)\n    op.forward(x, weight=w)\n" in text


def test_a_call_written_in_the_same_change_is_judged_against_the_new_signature_only(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/norm.py",
        "    def forward(self, x, weight):",
        "    def forward(self, x, *, weight):",
    )
    repo.write(
        "benchmarks/ops/bench_norm_direct.py",
        (
            "import torch\nfrom minitile.ops import RMSNormOp\nfrom workloads import randn\n\n\n"
            "def test_direct():\n    op = RMSNormOp(4, 64, torch.float32)\n    x, w = randn(4, 64), "
            "torch.ones(64)\n"
            "    op(x, w)\n"
        ),
    )
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    # written for the new signature, and it does not bind it: reported, never rewritten from the old one
    assert "this call was written in this change for the new signature" in r.stdout, r.stdout
    assert "    op(x, w)\n" in repo.read("benchmarks/ops/bench_norm_direct.py")


SCOPES = """import torch
from minitile.ops import SumFwdOp


class TestSum:
    dim = -1

    def test_class_attr(self):
        SumFwdOp(64, 256, torch.float32)


def test_comprehension():
    dims = [dim for dim in (0, 1)]
    SumFwdOp(64, 256, torch.float32)


def test_later_loop():
    SumFwdOp(64, 256, torch.float32)
    for dim in (0, 1):
        pass


def test_later_unpack():
    SumFwdOp(64, 256, torch.float32)
    dim, k = divmod(7, 2)


def test_earlier_loop():
    for dim in (0, 1):
        SumFwdOp(64, 256, torch.float32)
"""


def test_only_names_really_in_scope_are_evidence(repo: Repo) -> None:
    repo.write("benchmarks/ops/bench_scope.py", SCOPES)
    repo.commit("scopes")
    repo.replace(
        "src/minitile/ops/reduction.py",
        "def __init__(self, M, N, dtype, tune=False):",
        "def __init__(self, M, N, dtype, dim, tune=False):",
    )
    repo.git("add", "-A")
    repo.cli("fix")
    text = repo.read("benchmarks/ops/bench_scope.py")
    assert text.count("dim=dim") == 1 and "        SumFwdOp(64, 256, torch.float32, dim=dim)\n" in text
