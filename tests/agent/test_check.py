"""The agent's edit judged as bench-op judges its own rewrites, in-process over a real repository's static
pass: what binds and keeps every choice and case passes; anything else is refused with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchop_hook import config
from benchop_hook.agent.check import Checked, check_file, counted, judging, outside, too_few
from benchop_hook.fixing.context import StaticContext
from benchop_hook.fixing.static import static_pass
from benchop_hook.git import repo as gitrepo
from benchop_hook.git.repo import Change
from benchop_hook.git.target import Target
from tests.helpers import agents
from tests.helpers.changes import gemm_shapes_change
from tests.helpers.kern import make
from tests.helpers.repo import Repo
from tests.helpers.sources import GEMM_NT_CASE

BENCH = "benchmarks/ops/bench_gemm.py"
NN, NT = "ops.GemmOp(M, N, K, DTYPE)", "ops.GemmOp(M, N, K, DTYPE, trans_b=True)"
# A class made for the choice trans_b=True: its name is GemmOp's with the choice's words added.
TRANS_B_OP = """

class GemmTransBOp(GemmOp):
    def __init__(self, shape_a, shape_b, dtype):
        super().__init__(shape_a, shape_b, dtype, trans_b=True)
"""


def _context(repo: Repo) -> tuple[StaticContext, config.Config]:
    root = gitrepo.find_repo(str(repo.path))
    cfg = config.load(root.root)
    base, head = repo.git("rev-parse", "HEAD~1").strip(), repo.head()
    target = Target("range", base[:12], head[:12], base, head)
    changes = gitrepo.range_changes(root.root, base, head)
    _, ctx = static_pass(root, cfg, target, changes, bench_from="target")
    return ctx, cfg


def _check(repo: Repo, edited: str, path: str = BENCH) -> Checked:
    ctx, cfg = _context(repo)
    start = repo.git("show", f"HEAD:{path}").encode()
    return check_file(path, start, start, edited.encode(), judging(ctx, cfg), ctx.paths.bench)


@pytest.fixture
def gemm(repo: Repo) -> Repo:
    """The fixture library with a transposed GemmOp case, then the GemmOp shapes change (and a class made
    for trans_b=True), committed."""
    repo.write(BENCH, repo.read(BENCH) + GEMM_NT_CASE)
    repo.commit("bench: the transposed case")
    gemm_shapes_change(repo)
    repo.write("src/minitile/ops/gemm.py", repo.read("src/minitile/ops/gemm.py") + TRANS_B_OP)
    repo.replace(
        "src/minitile/ops/__init__.py", "from .gemm import GemmOp", "from .gemm import GemmOp, GemmTransBOp"
    )
    repo.commit("gemm: built from the shapes of its inputs")
    return repo


def test_an_edit_that_binds_and_keeps_everything_passes(gemm: Repo) -> None:
    edited = gemm.read(BENCH).replace(NT, agents.FIXED_NT).replace(NN, agents.FIXED_NN)
    assert _check(gemm, edited) == Checked()


def test_the_class_made_for_the_choice_carries_it(gemm: Repo) -> None:
    edited = (
        gemm.read(BENCH).replace(NT, "ops.GemmTransBOp((M, K), (N, K), DTYPE)").replace(NN, agents.FIXED_NN)
    )
    assert _check(gemm, edited) == Checked()


@pytest.mark.parametrize(
    ("nn", "nt", "problem"),
    [
        (
            agents.FIXED_NN,
            agents.FIXED_NN,
            "passes trans_b=True, a choice, and the edit drops it: carry it over, or build the class made",
        ),
        ("ops.GemmOp((M, K), DTYPE)", agents.FIXED_NT, "ops.GemmOp((M, K), DTYPE): TypeError: missing"),
        (NN, agents.FIXED_NT, "ops.GemmOp(M, N, K, DTYPE): argument M now reaches 'shape_a' instead of 'M'"),
        (
            agents.FIXED_NN,
            "ops.GemmTransBOp((M, K), (N, K), DTYPE, True)",
            "ops.GemmTransBOp((M, K), (N, K), DTYPE, True): TypeError",
        ),
        (agents.FIXED_NN + "\n    ops.RMSNormOp(M)", agents.FIXED_NT, "ops.RMSNormOp(M): TypeError: missing"),
    ],
    ids=["a dropped choice", "does not bind", "a call left as it was", "another class", "an unchanged Op"],
)
def test_an_edit_bench_op_would_not_make_is_refused(gemm: Repo, nn: str, nt: str, problem: str) -> None:
    edited = gemm.read(BENCH).replace(NT, nt).replace(NN, nn)
    checked = _check(gemm, edited)
    assert len(checked.problems) == 1 and problem in checked.problems[0], checked.problems


def test_an_edit_that_does_not_parse_or_changes_nothing_is_refused(gemm: Repo) -> None:
    assert "does not parse after the edit" in _check(gemm, "def broken(:\n").problems[0]
    assert _check(gemm, gemm.read(BENCH)).problems == (f"the agent left {BENCH} as it was",)


def test_a_choice_carried_under_another_name_is_kept(tmp_path: Path) -> None:
    """`fill_value=-1.5` becomes `value=-1.5`: the value a case measures is still passed."""
    old = (
        "from .op import Op\n\n\n"
        "class FillOp(Op):\n    def __init__(self, n, dtype, fill_value=0.0):\n        pass\n"
    )
    bench = (
        "import torch\nfrom kern.ops.fill import FillOp\n\n\n"
        "def test_fill():\n    FillOp(64, torch.float32, fill_value=-1.5)\n"
    )
    repo = make(tmp_path, {"src/kern/ops/fill.py": old, "benchmarks/bench_fill.py": bench})
    repo.write("src/kern/ops/fill.py", old.replace("n, dtype, fill_value=0.0", "shape, dtype, value=0.0"))
    repo.commit("fill: shapes and torch's names")
    call = "FillOp(64, torch.float32, fill_value=-1.5)"
    kept = _check(
        repo, bench.replace(call, "FillOp((64,), torch.float32, value=-1.5)"), "benchmarks/bench_fill.py"
    )
    assert kept == Checked()
    lost = _check(repo, bench.replace(call, "FillOp((64,), torch.float32)"), "benchmarks/bench_fill.py")
    assert "passes fill_value=-1.5, a choice, and the edit drops it" in lost.problems[0]


def test_only_the_blocked_file_or_a_benchmark_file_with_a_reason() -> None:
    changes = [Change("M", BENCH, BENCH), Change("M", "benchmarks/benchmark.py", "benchmarks/benchmark.py")]
    is_bench = lambda p: p.startswith("benchmarks/")  # noqa: E731 - a predicate, as Paths gives one
    assert outside(changes, BENCH, {}, is_bench) == ["benchmarks/benchmark.py"]
    assert outside(changes, BENCH, {"benchmarks/benchmark.py": "a helper it shares"}, is_bench) == []
    op = [Change("M", "src/minitile/ops/gemm.py", "src/minitile/ops/gemm.py")]
    assert outside(op, BENCH, {"src/minitile/ops/gemm.py": "the Op is wrong"}, is_bench) == [
        "src/minitile/ops/gemm.py"
    ]
    assert outside([Change("A", None, "benchmarks/new.py")], BENCH, {}, is_bench) == ["benchmarks/new.py"]


def test_computed_cases_are_counted_from_collection() -> None:
    ids = [f"{BENCH}::test_a[1]", f"{BENCH}::test_a[2]", f"{BENCH}::TestB::test_c[x]", "other.py::test_a[1]"]
    assert counted(ids, BENCH) == {"test_a": 2, "TestB::test_c": 1}
    assert too_few({"test_a": 3, "TestB::test_c": 1}, counted(ids, BENCH)) == [
        "test_a had 3 cases and collects 2 after the edit"
    ]
