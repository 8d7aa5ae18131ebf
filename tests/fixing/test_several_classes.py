"""One call that several Op classes reach, whose signatures changed differently: rewritten when the rewritten
call is the same for every class (outcomes, not edits, are compared); otherwise each class's fix is reported.
A guard on the table's key narrows the classes each branch sees.

Changes: `ReduceOp(M, N, dtype, tune=False)` -> `ReduceOp(N, dtype, dim=-1, *, tune=False)` (the fixture's),
and `RMSNormOp(M, hidden, dtype, eps=1e-6)` -> one of NORM_CHANGES.
"""

from __future__ import annotations

import pytest

from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo

NORM = "src/minitile/ops/norm.py"


NORM_CHANGES = {
    "drop-M": "def __init__(self, hidden, dtype, eps=1e-6):",
    "rename-M": "def __init__(self, rows, hidden, dtype, eps=1e-6):",
}


TABLE = (
    "import torch\nfrom minitile.ops import SumFwdOp, MeanFwdOp, RMSNormOp\n\n\n"
    "def make(kind, m, n):\n    table = {'sum': SumFwdOp, 'mean': MeanFwdOp, 'norm': RMSNormOp}\n    cls = "
    "table[kind]\n"
)


TESTS = "\n\ndef test_x():\n    for kind in ('sum', 'mean', 'norm'):\n        make(kind, 8, 16)\n"


# (id, norm change, body of make after `cls = table[kind]`, expected lines in the output)
CASES = [
    (
        "same-rewrite-for-both-families",
        "drop-M",
        "    return cls(m, n, torch.float32)\n",
        ["fix: cls(n, torch.float32)"],
    ),
    (
        "different-outcomes-are-reported-per-class",
        "rename-M",
        "    return cls(m, n, torch.float32)\n",
        [
            "the classes need different fixes, update it by hand",
            "RMSNormOp: no change needed",
            "MeanFwdOp, SumFwdOp: cls(n, torch.float32)",
        ],
    ),
    (
        "a-guard-splits-the-classes",
        "drop-M",
        "    if kind == 'norm':\n        return cls(m, n, torch.float32, eps=1e-5)\n    return cls(m, n, "
        "torch.float32, tune=True)\n",
        ["fix: cls(n, torch.float32, eps=1e-5)", "fix: cls(n, torch.float32, tune=True)"],
    ),
]


@pytest.mark.parametrize("norm, body, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_one_call_several_classes(repo: Repo, norm: str, body: str, expected: list[str]) -> None:
    repo.write("benchmarks/ops/bench_table.py", TABLE + body + TESTS)
    repo.commit("a table benchmark")
    reduction_change(repo)
    repo.replace(NORM, "def __init__(self, M, hidden, dtype, eps=1e-6):", NORM_CHANGES[norm])
    repo.git("add", "-A")
    r = repo.cli("check")
    lines = [ln for ln in r.stdout.splitlines() if "bench_table.py" in ln or ln.startswith("    ")]
    for e in expected:
        assert any(e in ln for ln in lines), r.stdout
    assert "don't agree on one fix" not in r.stdout
