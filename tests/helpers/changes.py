"""The Op changes the tests make to the fixture library, as edits of its sources."""

from __future__ import annotations

from tests.helpers.repo import PROJECT, Repo
from tests.helpers.sources import SPLAT_BENCH

CHANGE = PROJECT / "examples" / "reduce-rows-from-input"  # the Op change the README's demo commits
REDUCTION_N_DIM = (CHANGE / "src/minitile/ops/reduction.py").read_text()


def reduction_change(repo: Repo, *, update_tests: bool = True) -> None:
    """ReduceOp(M, N, dtype, tune=False) -> ReduceOp(N, dtype,
    dim=-1, *, tune=False), for the whole family.
    """
    repo.write("src/minitile/ops/reduction.py", REDUCTION_N_DIM)
    if update_tests:
        repo.write("tests/ops/test_reduction.py", (CHANGE / "tests/ops/test_reduction.py").read_text())


BENCH_RED = "benchmarks/ops/bench_reduction.py"


def three_states(repo: Repo) -> None:
    """The demo's history: the library, the Op change that breaks its benchmarks, the benchmarks fixed."""
    reduction_change(repo)
    repo.commit("reduce: rows come from the input")
    repo.replace(
        BENCH_RED,
        "    op = SumFwdOp(M, N, dtype)\n",
        "    op = SumFwdOp(N, dtype)\n",
    )
    repo.replace(
        BENCH_RED,
        "MeanFwdOp(M, N, dtype=torch.float32)",
        "MeanFwdOp(N, dtype=torch.float32)",
    )
    repo.replace(
        BENCH_RED,
        "AmaxFwdOp(M, N, torch.float32, True)",
        "AmaxFwdOp(N, torch.float32, tune=True)",
    )
    repo.commit("benchmarks: the new ReduceOp")


def stage_reduction_change(repo: Repo) -> None:
    """The reduction change, staged: what `bench-op check` and `fix` compare with HEAD by default."""
    reduction_change(repo)
    repo.git("add", "-A")


def change_reduction(repo: Repo) -> None:
    reduction_change(repo)


def change_norm_rename(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/norm.py",
        "def __init__(self, M, hidden, dtype, eps=1e-6):",
        "def __init__(self, M, dim, dtype, eps=1e-6):",
    )
    repo.replace("src/minitile/ops/norm.py", "self.hidden = hidden", "self.hidden = dim")


def change_gemm_keyword_only(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/gemm.py",
        "def __init__(self, M, N, K, dtype, trans_b=False):",
        "def __init__(self, M, N, K, *, dtype, trans_b=False):",
    )


def change_attention_shift(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/attention.py",
        "def __init__(self, batch, heads, seq_len, dim, causal, dtype):",
        "def __init__(self, batch, heads, seq_len, dim, dtype, kernel_map=None):",
    )
    repo.replace("src/minitile/ops/attention.py", "self.causal = causal", "self.causal = False")


def change_gelu_default(repo: Repo) -> None:
    repo.replace("src/minitile/ops/elementwise.py", 'approximate="none"', 'approximate="tanh"')


CHANGES = [
    change_reduction,
    change_norm_rename,
    change_gemm_keyword_only,
    change_attention_shift,
    change_gelu_default,
]


def every_kind_of_call(repo: Repo) -> None:
    """Two commits, the second an Op change that meets every kind of call: provably broken with a fix, broken
    with no fix (a new required parameter and no evidence), reported (a default that changed under it),
    unknown (a splatted dict)."""
    repo.write("benchmarks/ops/bench_splat.py", SPLAT_BENCH)
    repo.commit("a benchmark built from workload dicts")
    reduction_change(repo)
    change_norm_rename(repo)
    change_gelu_default(repo)
    repo.replace(
        "src/minitile/ops/gemm.py",
        "def __init__(self, M, N, K, dtype, trans_b=False):",
        "def __init__(self, M, N, K, dtype, alpha, trans_b=False):",
    )
    repo.commit("the Op changes")


GEMM_SHAPES = PROJECT / "examples" / "gemm-from-input-shapes"  # the Op change the agent demo commits


def gemm_shapes_change(repo: Repo) -> None:
    """GemmOp(M, N, K, dtype, trans_b=False) -> GemmOp(shape_a, shape_b, dtype, trans_b=False), with tests
    that build it from constants of their own: bench-op has no evidence for a benchmark's shapes, and blocks
    (a call only a person, or their agent, can fix)."""
    for rel in ("src/minitile/ops/gemm.py", "tests/ops/test_gemm.py"):
        repo.write(rel, (GEMM_SHAPES / rel).read_text())
