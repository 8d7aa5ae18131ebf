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
    assert r.returncode == 1, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if "bench_table.py" in ln or ln.startswith("    ")]
    for e in expected:
        assert any(e in ln for ln in lines), r.stdout
    assert "don't agree on one fix" not in r.stdout


def test_a_class_the_call_never_bound_is_left_out_of_the_fixes(repo: Repo) -> None:
    # quack's `GemmCls = GemmSm100 if sm100 else GemmSm90`, one call per branch: the reductions never took
    # `eps`, so this call only ever ran for RMSNormOp, which still binds it. Not "update it by hand".
    body = "    return cls(m, n, torch.float32, eps=1e-5)\n"
    repo.write("benchmarks/ops/bench_table.py", TABLE + body + TESTS)
    repo.commit("a table benchmark")
    reduction_change(repo)
    repo.replace(NORM, "def __init__(self, M, hidden, dtype, eps=1e-6):", NORM_CHANGES["rename-M"])
    repo.git("add", "-A")
    r = repo.cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "bench_table.py" not in r.stdout and "by hand" not in r.stdout, r.stdout


# fla (flash-linear-attention): `configs[name]()` over a dict of config classes of which one changed.
DICT_BENCH = (
    "import pytest\nfrom minitile.ops.other import AConfig, BConfig\n\n"
    "configs = {'a': AConfig, 'b': BConfig}\n\n\n"
    "@pytest.mark.parametrize('name', ['a', 'b'])\ndef test_cfg(name):\n    {call}\n"
)
CONFIGS = (
    "class AConfig:\n    def __init__(self, hidden=64, num_heads=8, eps=1e-5):\n"
    "        self.h = num_heads\n\n\n"
    "class BConfig:\n    def __init__(self, hidden=64, num_heads=4, eps=1e-5):\n        self.h = num_heads\n"
)


@pytest.mark.parametrize(
    "call, change, shown",
    [
        pytest.param(
            "configs[name]()",
            ("num_heads=8, eps", "num_heads=4, eps"),
            "AConfig: configs[name](num_heads=8); the others: no change needed",
            id="a-pinned-default-would-change-the-other-classes",
        ),
        pytest.param(
            "configs[name](64, eps=1e-6)",
            ("num_heads=8, eps=1e-5)", "num_heads=8, epsilon=1e-5)"),
            "AConfig: configs[name](64, epsilon=1e-6); the others: no change needed",
            id="a-renamed-keyword-would-not-bind-the-other-classes",
        ),
    ],
)
def test_a_call_through_a_dict_is_not_rewritten_for_the_one_class_that_changed(
    repo: Repo, call: str, change: tuple[str, str], shown: str
) -> None:
    # The edit the changed class needs would pin AConfig's old 8 on BConfig's cases too, or pass BConfig a
    # keyword it does not take: each class's fix is listed for a hand edit.
    repo.write("src/minitile/ops/other.py", CONFIGS)
    repo.write("benchmarks/ops/bench_cfg.py", DICT_BENCH.replace("{call}", call))
    repo.commit("configs and their benchmark")
    repo.replace("src/minitile/ops/other.py", *change)
    repo.git("add", "-A")
    before = repo.read("benchmarks/ops/bench_cfg.py")
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read("benchmarks/ops/bench_cfg.py") == before, repo.read("benchmarks/ops/bench_cfg.py")
    assert "[reached through dict]" in r.stdout, r.stdout
    assert shown in r.stdout, r.stdout


def test_an_opaque_splat_reaching_changed_and_unchanged_classes_is_left_to_the_run(repo: Repo) -> None:
    # fla's `config_class(**{...})` under parametrize: the changed class can only be judged by a run, and the
    # others bind as they did, so the call is left to the run (not a hand edit).
    repo.write("src/minitile/ops/other.py", CONFIGS)
    repo.write(
        "benchmarks/ops/bench_cfg.py",
        "import pytest\nfrom minitile.ops.other import AConfig, BConfig\n\n\n"
        "@pytest.mark.parametrize('cls', [AConfig, BConfig])\ndef test_cfg(cls, extra):\n"
        "    cls(hidden=64, **extra)\n",
    )
    repo.commit("configs and their benchmark")
    repo.replace("src/minitile/ops/other.py", "num_heads=8, eps=1e-5)", "num_heads=8, epsilon=1e-5)")
    repo.git("add", "-A")
    r = repo.cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "left to the run" in r.stdout, r.stdout
    assert "don't agree on one fix" not in r.stdout


def test_a_class_renamed_in_a_dict_with_other_values_has_its_import_followed(repo: Repo) -> None:
    # TileOPs c39d65d3: `_CMP_OPS[op_name](...)` over EqOp (renamed EqFwdOp, same constructor) and values
    # bench-op can't follow: only the import changes, the call stays as it is for all of them.
    repo.write("src/minitile/ops/other.py", CONFIGS)
    repo.write(
        "benchmarks/ops/bench_cfg.py",
        "import pytest\nfrom minitile.ops.other import AConfig\n\n\ndef make():\n    return object\n\n\n"
        "configs = {'a': AConfig, 'b': make()}\n\n\n"
        "@pytest.mark.parametrize('name', ['a', 'b'])\ndef test_cfg(name):\n    configs[name](hidden=64)\n",
    )
    repo.commit("configs and their benchmark")
    repo.replace("src/minitile/ops/other.py", "class AConfig:", "class AConfigV2:")
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout
    text = repo.read("benchmarks/ops/bench_cfg.py")
    assert "from minitile.ops.other import AConfigV2" in text and "configs[name](hidden=64)" in text, text
    assert "don't agree on one fix" not in r.stdout
