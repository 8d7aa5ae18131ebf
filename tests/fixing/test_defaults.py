"""Changed defaults (fixing/plan.py): the old default pinned in the call, unless the updated tests adopt the
new one, `pin-defaults = false` says not to, or the value needs an import the benchmark lacks."""

from __future__ import annotations

from tests.helpers.repo import Repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def _default_change(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/norm.py",
        "def __init__(self, M, hidden, dtype, eps=1e-6):",
        "def __init__(self, M, hidden, dtype, eps=1e-5):",
    )


def test_changed_default_is_pinned(repo: Repo) -> None:
    _default_change(repo)
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "op = RMSNormOp(M, hidden=hidden, dtype=torch.float32, eps=1e-6)" in repo.read(
        "benchmarks/ops/bench_norm.py"
    )
    assert "eps=1e-6 pinned" in r.stdout


def test_changed_default_not_pinned_when_tests_adopt_it(repo: Repo) -> None:
    _default_change(repo)
    repo.replace(
        "tests/ops/test_norm.py",
        "op = RMSNormOp(4, 64, torch.float32, eps=1e-6)",
        "op = RMSNormOp(4, 64, torch.float32)",
    )
    repo.replace("tests/ops/test_norm.py", "+ 1e-6)", "+ 1e-5)")
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert "op = RMSNormOp(M, hidden=hidden, dtype=torch.float32)" in repo.read(
        "benchmarks/ops/bench_norm.py"
    )
    assert "not pinned: the updated tests use the new default" in r.stdout
    assert r.returncode == 0


def test_pin_defaults_false(repo: Repo) -> None:
    repo.replace("pyproject.toml", "timeout = 300", "timeout = 300\npin-defaults = false")
    repo.commit("no pinning")
    _default_change(repo)
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "eps=1e-6" not in repo.read("benchmarks/ops/bench_norm.py")
    assert "not pinned (pin-defaults = false)" in r.stdout


def test_a_default_that_needs_an_import_is_not_pinned(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/reduction.py",
        "import torch\n",
        "import enum\n\nimport torch\n\n\nclass Layout(enum.Enum):\n    ROW = 0\n    COL = 1\n",
    )
    repo.replace(
        "src/minitile/ops/reduction.py",
        "def __init__(self, M, N, dtype, tune=False):",
        "def __init__(self, M, N, dtype, tune=False, layout=Layout.ROW):",
    )
    repo.commit("layouts")
    repo.replace("src/minitile/ops/reduction.py", "layout=Layout.ROW):", "layout=Layout.COL):")
    repo.git("add", "-A")
    before = repo.read(BENCH_RED)
    r = repo.cli("fix")
    assert r.returncode == 1
    assert "not pinned: Layout is not imported in the benchmark; pin layout=Layout.ROW by hand" in r.stdout
    assert repo.read(BENCH_RED) == before
