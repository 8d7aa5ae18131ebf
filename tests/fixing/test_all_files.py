"""`check --all-files` on healthy and broken trees: a call is broken only when it provably fails to bind.

Each case is one benchmark file added to the fixture library (whose reductions are
`ReduceOp(M, N, dtype, tune=False)`, called as `op(x)`), checked against the current signatures.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"

HEAD = (
    "import inspect\nimport torch\nimport pytest\n"
    "from minitile.ops import SumFwdOp, MeanFwdOp, RMSNormOp\n\n\n"
)


# A table of classes narrowed by a guard on the key: each branch only sees the classes that fit it.
NARROWED = (
    "def make(kind, m, n):\n    table = {'sum': SumFwdOp, 'norm': RMSNormOp}\n    cls = table[kind]\n"
    "    if kind in ('norm',):\n        return cls(m, n, torch.float32, eps=1e-5)\n"
    "    return cls(m, n, torch.float32, tune=True)\n\n\n"
    "def test_x():\n    make('sum', 8, 16)\n    make('norm', 8, 16)\n"
)


def _workload(repo: Repo) -> None:
    repo.write(
        "workloads/reduce.py",
        (
            "import torch\n\n\nclass ReduceWorkload:\n    def __init__(self, M, N):\n        self.M, self.N "
            "= M, N\n\n"
            "    def gen_inputs(self):\n        return (torch.randn(self.M, self.N),)\n\n\n"
            "def reduce_params():\n    return [{'M': 8, 'N': 16, 'dtype': torch.float32}]\n"
        ),
    )


# (id, benchmark body, whether a splat stays opaque): never broken; opaque ones are "unknown: the run
# decides".
HEALTHY = [
    (
        "star-of-gen-inputs",
        "from workloads.reduce import ReduceWorkload\n\n\ndef test_x():\n    op = SumFwdOp(8, 16, "
        "torch.float32)\n"
        "    inputs = ReduceWorkload(8, 16).gen_inputs()\n    op(*inputs)\n",
        True,
    ),
    (
        "dstar-parametrize-from-a-helper-with-setdefault",
        "from workloads.reduce import reduce_params\n\n\n@pytest.mark.parametrize('op_params', "
        "reduce_params())\n"
        "def test_x(op_params):\n    op_params.setdefault('dim', -1)\n    op_params.pop('dim')\n    "
        "SumFwdOp(**op_params)\n",
        True,
    ),
    (
        "dstar-of-a-full-literal-dict",
        "def test_x():\n    params = {'M': 8, 'N': 16, 'dtype': torch.float32}\n    MeanFwdOp(**params)\n",
        False,
    ),
    (
        "dstar-of-dict-call",
        "def test_x():\n    kw = dict(M=8, N=16, dtype=torch.float32, tune=True)\n    MeanFwdOp(**kw)\n",
        False,
    ),
    (
        "star-of-a-literal-tuple",
        "def test_x():\n    x = torch.randn(8, 16)\n    op = SumFwdOp(8, 16, torch.float32)\n    args = "
        "(x,)\n    op(*args)\n",
        False,
    ),
    (
        "lambda-star",
        "def test_x():\n    op = SumFwdOp(8, 16, torch.float32)\n    f = lambda *a: op(*a)\n    "
        "f(torch.randn(8, 16))\n",
        True,
    ),
    ("guard-narrows-a-table", NARROWED, False),
    (
        "guard-inspects-the-class",
        "def test_x():\n    cls = SumFwdOp\n    if 'K' in inspect.signature(cls.__init__).parameters:\n"
        "        cls(M=8, N=16, K=32, dtype=torch.float32)\n    else:\n        cls(8, 16, torch.float32)\n",
        True,
    ),
    (
        "try-except-type-error",
        "def test_x():\n    try:\n        SumFwdOp(8, 16, torch.float32, block=4)\n    except TypeError:\n"
        "        SumFwdOp(8, 16, torch.float32)\n",
        True,
    ),
    (
        "classes-routed-by-a-condition",
        "def run(op, x, weight=None):\n    if weight is None:\n        return op(x)\n    return op(x, "
        "weight)\n\n\n"
        "def test_x():\n    x = torch.randn(8, 16)\n    run(SumFwdOp(8, 16, torch.float32), x)\n"
        "    run(RMSNormOp(8, 16, torch.float32), x, torch.ones(16))\n",
        True,
    ),
    (
        "dstar-with-explicit-keyword",
        "def test_x(extra):\n    SumFwdOp(8, dtype=torch.float32, **extra)\n",
        True,
    ),
]


# (id, benchmark body, the TypeError the check must name)
BROKEN = [
    (
        "literal-dict-with-a-stray-key",
        "def test_x():\n    params = {'M': 8, 'N': 16, 'dtype': torch.float32, 'dim': -1}\n    "
        "MeanFwdOp(**params)\n",
        "got an unexpected keyword argument 'dim'",
    ),
    (
        "literal-tuple-too-long",
        "def test_x():\n    x = torch.randn(8, 16)\n    op = SumFwdOp(8, 16, torch.float32)\n    args = (x, "
        "x)\n    op(*args)\n",
        "takes 1 positional argument but 2 were given",
    ),
    (
        "explicit-keyword-beside-an-opaque-splat",
        "def test_x(extra):\n    SumFwdOp(8, 16, torch.float32, block=4, **extra)\n",
        "got an unexpected keyword argument 'block'",
    ),
    (
        "guard-lets-the-wrong-class-through",
        NARROWED.replace("kind in ('norm',)", "kind == 'sum'"),
        "got an unexpected keyword argument 'eps'",
    ),
    (
        "one-of-two-classes-fails-unguarded",
        "def test_x():\n    for cls in (SumFwdOp, RMSNormOp):\n        cls(8, 16, torch.float32, "
        "tune=True)\n",
        "got an unexpected keyword argument 'tune'",
    ),
    (
        "too-many-positionals-beside-a-star",
        "def test_x(rest):\n    SumFwdOp(8, 16, torch.float32, True, 1, *rest)\n",
        "takes 4 positional arguments but 5 or more were given",
    ),
]


@pytest.mark.parametrize(
    "body, opaque_expected", [(b, o) for _, b, o in HEALTHY], ids=[i for i, _, _ in HEALTHY]
)
def test_opaque_or_visible_splats_are_no_false_alarm(
    repo: Repo, body: str, opaque_expected: bool, tmp_path: Path
) -> None:
    _workload(repo)
    repo.write("benchmarks/ops/bench_case.py", HEAD + body)
    repo.commit("a benchmark")
    out = tmp_path / "r.json"
    r = repo.cli("check", "--all-files", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert (
        "does not bind" not in r.stdout
        and "hand edit" not in r.stdout
        and ("no call is provably broken" in r.stdout or "every benchmark call binds" in r.stdout)
    )
    assert "Op signature change" not in r.stdout
    assert r.stdout.startswith("bench-op: checked ")
    data = json.loads(out.read_text())
    assert not [f for f in data["findings"] if f["path"] == "benchmarks/ops/bench_case.py"]
    opaque = [u for u in data["unknown"] if u["path"] == "benchmarks/ops/bench_case.py"]
    if opaque_expected:
        assert opaque and all("the run decides" in u["reason"] for u in opaque)
        assert "only a run can judge (unknown: the run decides)" in r.stdout
    else:
        assert not opaque, opaque  # fully visible: judged, and it binds


@pytest.mark.parametrize("body, error", [(b, e) for _, b, e in BROKEN], ids=[i for i, _, _ in BROKEN])
def test_provably_broken_calls_are_reported(repo: Repo, body: str, error: str) -> None:
    repo.write("benchmarks/ops/bench_case.py", HEAD + body)
    repo.commit("a benchmark")
    r = repo.cli("check", "--all-files")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"TypeError: {error}" in r.stdout


def test_all_files_counts_calls_and_classes_and_lists_no_changes(repo: Repo) -> None:
    repo.write("benchmarks/ops/bench_case.py", HEAD + "def test_x(extra):\n    SumFwdOp(**extra)\n")
    repo.commit("an opaque splat")
    r = repo.cli("check", "--all-files")
    assert r.returncode == 0
    first = r.stdout.splitlines()[0]
    assert (
        first.startswith("bench-op: checked ")
        and "calls of" in first
        and "Op classes against the current signatures" in first
    )
    assert "bench_case.py:8: SumFwdOp(**extra): unknown: the run decides (**extra: a parameter)" in r.stdout
    again = repo.cli("check", "--all-files")  # from the cache: the same report
    assert (repo.path / ".git" / "bench-op" / "all-files-cache.json").exists()
    assert again.stdout == r.stdout and again.returncode == 0


def test_all_files_fixes_from_the_benchmarks_last_commit(repo: Repo) -> None:
    reduction_change(repo)
    repo.commit("reduce: N and dim")  # committed without fixing the benchmarks
    r = repo.cli("check", "--all-files")
    assert r.returncode == 1
    assert "fix: SumFwdOp(N, dtype)" in r.stdout
    repo.cli("fix", "--all-files")
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)
    r = repo.cli("check", "--all-files")
    assert r.returncode == 0, r.stdout


def test_all_files_cache_never_hides_a_change(repo: Repo) -> None:
    r = repo.cli("check", "--all-files")
    assert r.returncode == 0
    assert (repo.path / ".git" / "bench-op" / "all-files-cache.json").exists()
    assert repo.cli("check", "--all-files").returncode == 0  # from the cache
    reduction_change(repo)
    repo.commit("reduce: N and dim")  # the benchmarks did not change; a module they resolve through did
    r = repo.cli("check", "--all-files")
    assert r.returncode == 1 and "fix: SumFwdOp(N, dtype)" in r.stdout


def test_all_files_cache_sees_a_base_change_for_every_benchmark(tmp_path: Path) -> None:
    """Two benchmarks build the same Op, whose constructor comes from a base class in another file:
    the second one's cache entry must depend on that file too, though the answer was already known."""
    repo = Repo(tmp_path / "lib")
    repo.write("pyproject.toml", '[tool.bench-op]\nop-paths = ["src/lib/ops/**/*.py"]\n')
    repo.write("src/lib/ops/__init__.py", "from .x import XOp\n")
    repo.write(
        "src/lib/ops/base.py",
        "class Op:\n    pass\n\n\nclass Base(Op):\n    def __init__(self, m, n):\n        self.m = m\n",
    )
    repo.write(
        "src/lib/ops/x.py",
        "from .base import Base\n\n\nclass XOp(Base):\n    def forward(self, a):\n        return a\n",
    )
    for name in ("a", "b"):
        repo.write(
            f"benchmarks/bench_{name}.py", f"from lib.ops import XOp\n\n\ndef test_{name}():\n    XOp(1, 2)\n"
        )
    repo.git("init", "-q", "-b", "main")
    repo.commit("lib")
    assert repo.cli("check", "--all-files").returncode == 0  # both files cached as clean
    repo.replace("src/lib/ops/base.py", "def __init__(self, m, n):", "def __init__(self, m):")
    r = repo.cli("check", "--all-files")
    assert r.returncode == 1
    assert "benchmarks/bench_a.py:5" in r.stdout and "benchmarks/bench_b.py:5" in r.stdout


def test_a_bare_import_is_read_from_the_benchmarks_own_folder(repo: Repo) -> None:
    # Two script folders, each with its own common.py: `from common import Kernel` in norm/ is norm/common.py
    # (its folder is first on sys.path, run as a script or by pytest), not attn/common.py, which sorts first
    # and whose Kernel takes no `tune`.
    repo.write("benchmarks/attn/common.py", "from minitile.ops import RMSNormOp as Kernel\n")
    repo.write("benchmarks/norm/common.py", "from minitile.ops import SumFwdOp as Kernel\n")
    bench = "import torch\nfrom common import Kernel\n\n\ndef test_x():\n"
    bench += "    Kernel(8, 16, torch.float32, tune=True)\n"
    repo.write("benchmarks/norm/bench_norm.py", bench)
    repo.write("benchmarks/attn/bench_attn.py", bench)
    repo.commit("two script folders")
    r = repo.cli("check", "--all-files")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "benchmarks/attn/bench_attn.py:6: Kernel(" in r.stdout
    assert "unexpected keyword argument 'tune'" in r.stdout
    assert "bench_norm.py" not in r.stdout
