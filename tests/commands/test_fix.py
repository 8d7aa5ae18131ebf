"""`bench-op fix` on real git repositories of the fixture library: the rewrite for each kind of change, the
files it must not or cannot write (unreadable, huge, read-only, symlinked), and a second fix in a row."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from tests.helpers.asserts import state
from tests.helpers.changes import reduction_change, stage_reduction_change, three_states
from tests.helpers.process import run
from tests.helpers.repo import Repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def test_fix_diff_prints_and_writes_nothing(repo: Repo) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    before = repo.snapshot()
    r = repo.cli("fix", "--diff")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "-    op = SumFwdOp(M, N, dtype)\n+    op = SumFwdOp(N, dtype)" in r.stdout
    assert repo.snapshot() == before


def test_removed_parameter_keyword_callers(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/norm.py",
        "def __init__(self, M, hidden, dtype, eps=1e-6):\n        self.M = M\n",
        "def __init__(self, hidden, dtype, eps=1e-6):\n        self.M = None\n",
    )
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "op = RMSNormOp(hidden=hidden, dtype=torch.float32)" in repo.read("benchmarks/ops/bench_norm.py")


def test_keyword_only_and_module_attribute_import(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/gemm.py",
        "def __init__(self, M, N, K, dtype, trans_b=False):",
        "def __init__(self, M, N, K, *, dtype, trans_b=False):",
    )
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "op = ops.GemmOp(M, N, K, dtype=DTYPE)" in repo.read("benchmarks/ops/bench_gemm.py")


def test_silent_shift_after_insertion(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/attention.py",
        "def __init__(self, batch, heads, seq_len, dim, causal, dtype):",
        "def __init__(self, batch, heads, seq_len, dim, window=None, causal=False, dtype=None):",
    )
    repo.git("add", "-A")
    repo.cli("fix")
    assert "op = Attention(batch, heads, seq_len, dim, causal=causal, dtype=DTYPE)" in repo.read(
        "benchmarks/ops/bench_attention.py"
    )


REQUIRED_DIM = (
    "def __init__(self, M, N, dtype, tune=False):\n        self.M = M\n",
    "def __init__(self, N, dtype, dim, tune=False):\n        self.M = None\n        self.dim = dim\n",
)


def test_new_required_parameter_from_updated_tests(repo: Repo) -> None:
    repo.replace("src/minitile/ops/reduction.py", *REQUIRED_DIM)
    t = repo.read("tests/ops/test_reduction.py")
    t = t.replace("SumFwdOp(M, N, torch.float32)", "SumFwdOp(N, torch.float32, dim=-1)")
    t = t.replace("MeanFwdOp(4, 16, torch.float32)", "MeanFwdOp(16, torch.float32, dim=-1)")
    t = t.replace(
        "AmaxFwdOp(4, 16, torch.float32, tune=True)", "AmaxFwdOp(16, torch.float32, dim=-1, tune=True)"
    )
    repo.write("tests/ops/test_reduction.py", t)
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    text = repo.read(BENCH_RED)
    assert "op = SumFwdOp(N, dtype, dim=-1)" in text
    assert "op = MeanFwdOp(N, dtype=torch.float32, dim=-1)" in text
    # the tests' own edit of the same call is the evidence (a template before a constant they all pass)
    assert "dim=-1 added: as tests/ops/test_reduction.py" in r.stdout, r.stdout


@pytest.mark.parametrize("variant", ["disagree", "missing"])
def test_new_required_parameter_without_agreeing_evidence_is_reported(repo: Repo, variant: str) -> None:
    if variant == "disagree":  # two calls of the same Op, which the commit changes differently
        t = repo.read("tests/ops/test_reduction.py")
        repo.write(
            "tests/ops/test_reduction.py",
            t + "\n\ndef test_sum_rows():\n    SumFwdOp(4, 16, torch.float32)\n",
        )
        repo.commit("a second sum test")
    repo.replace("src/minitile/ops/reduction.py", *REQUIRED_DIM)
    t = repo.read("tests/ops/test_reduction.py")
    if variant == "disagree":
        t = t.replace("SumFwdOp(M, N, torch.float32)", "SumFwdOp(N, torch.float32, dim=-1)")
        t = t.replace("SumFwdOp(4, 16, torch.float32)", "SumFwdOp(16, torch.float32, dim=0)")
    repo.write("tests/ops/test_reduction.py", t)
    repo.git("add", "-A")
    before = repo.read(BENCH_RED)
    r = repo.cli("fix")
    assert r.returncode == 1
    assert repo.read(BENCH_RED) == before, "no guess may be written"
    assert "needs a value for 'dim'" in r.stdout
    assert (
        "the tests disagree" if variant == "disagree" else "no test builds SumFwdOp with 'dim'"
    ) in r.stdout


def test_libcst_is_imported_only_where_a_rewrite_is_made(repo: Repo) -> None:
    repo.replace("src/minitile/ops/reduction.py", *REQUIRED_DIM)
    repo.git("add", "-A")
    code = (  # (GitPython, 'git', is imported: there is work)
        "import sys; from benchop_hook.cli import main; from benchop_hook.fixing import forked; "
        "rc = main(['fix']); print('FORK', forked.can_fork()); "
        "print('HEAVY', sorted(m for m in ('libcst', 'torch') if m in sys.modules)); sys.exit(rc)"
    )
    r = run([sys.executable, "-c", code], repo.path)
    assert r.returncode == 1 and "needs a value for 'dim'" in r.stdout, r.stdout + r.stderr
    assert "HEAVY []" in r.stdout
    # A fix that rewrites imports it: in a child forked when the pass starts, which then makes the rewrite
    # (off this process's path), or here where no child can be forked (the line above is not vacuous).
    repo.replace("src/minitile/ops/reduction.py", *reversed(REQUIRED_DIM))
    reduction_change(repo)
    repo.git("add", "-A")
    r = run([sys.executable, "-c", code], repo.path)
    assert "rewrote 3 calls in 1 benchmark file" in r.stdout, r.stdout + r.stderr
    assert ("HEAVY []" if "FORK True" in r.stdout else "HEAVY ['libcst']") in r.stdout, r.stdout


def test_syntax_error_is_named_and_other_files_still_fixed(repo: Repo) -> None:
    repo.write(
        "benchmarks/ops/bench_broken.py",
        "from minitile.ops import SumFwdOp\n\ndef test_x(:\n    SumFwdOp(1, 2, 3)\n",
    )
    repo.commit("a broken bench")
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (
        "skipped benchmarks/ops/bench_broken.py (line 3: invalid syntax); the other files were handled."
        in r.stdout
    )
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)


@pytest.mark.parametrize(
    "kind, why",
    [
        ("binary", "binary content, not Python source"),
        ("non-utf8", "not valid utf-8 text"),
    ],
)
def test_unreadable_benchmark_is_named_and_others_fixed(repo: Repo, kind: str, why: str) -> None:
    data = (
        b"SumFwdOp\0\x00\x01\x02"
        if kind == "binary"
        else b"from minitile.ops import SumFwdOp\n# caf\xe9\nSumFwdOp(1, 2, 3)\n"
    )
    (repo.path / "benchmarks/ops/bench_bad.py").write_bytes(data)
    repo.commit("odd files")
    stage_reduction_change(repo)
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "skipped benchmarks/ops/bench_bad.py" in r.stdout and why in r.stdout
    assert (repo.path / "benchmarks/ops/bench_bad.py").read_bytes() == data
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)


def test_empty_and_huge_files(repo: Repo) -> None:
    repo.write("benchmarks/ops/bench_empty.py", "")
    rows = ",\n".join(
        f"    ({i}, {i * 2}, 'case_{i:07d}_padding_to_make_this_file_large')" for i in range(90000)
    )
    huge = (
        f"import torch\nfrom minitile.ops import SumFwdOp\n\nCASES = [\n{rows},\n]\n\n\n"
        "def test_big():\n    SumFwdOp(4, 8, torch.float32)\n"
    )
    repo.write("benchmarks/ops/bench_huge.py", huge)
    assert (repo.path / "benchmarks/ops/bench_huge.py").stat().st_size > 5_000_000
    repo.commit("generated cases")
    stage_reduction_change(repo)
    t0 = time.monotonic()
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert time.monotonic() - t0 < 60
    assert repo.read("benchmarks/ops/bench_huge.py").endswith("    SumFwdOp(8, torch.float32)\n")
    assert repo.read("benchmarks/ops/bench_empty.py") == ""


def test_read_only_benchmark(repo: Repo) -> None:
    stage_reduction_change(repo)
    p = repo.path / BENCH_RED
    p.chmod(0o444)
    before = state(repo)
    r = repo.cli("fix")
    assert r.returncode == 1
    assert f"{BENCH_RED} is read-only: bench-op did not change it" in r.stderr
    assert state(repo) == before


def test_symlinked_benchmark_is_never_written_through(tmp_path: Path, repo: Repo) -> None:
    outside = tmp_path / "outside_bench.py"
    outside.write_text(
        "import torch\nfrom minitile.ops import SumFwdOp\n\n\ndef test_x():\n    SumFwdOp(4, 8, "
        "torch.float32)\n"
    )
    (repo.path / "benchmarks/ops/bench_link.py").symlink_to(outside)
    repo.commit("a linked benchmark")
    stage_reduction_change(repo)
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "skipped benchmarks/ops/bench_link.py (a symlink; bench-op never writes through one" in r.stdout
    assert "SumFwdOp(4, 8, torch.float32)" in outside.read_text()
    assert (repo.path / "benchmarks/ops/bench_link.py").is_symlink()


def test_fix_twice_changes_nothing_the_second_time(repo: Repo) -> None:
    stage_reduction_change(repo)
    assert repo.cli("fix").returncode == 0
    once = state(repo)
    r = repo.cli("fix")
    assert r.returncode == 0 and "Rewriting" not in r.stdout
    assert state(repo) == once


# -- a range is judged at its last commit


def test_fix_of_a_range_that_is_not_checked_out_writes_nothing_and_says_why(repo: Repo) -> None:
    three_states(repo)
    before = repo.snapshot()
    r = repo.cli("fix", "--from-ref", "HEAD~2", "--to-ref", "HEAD~1")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "can rewrite 3 calls in 1 benchmark file." in r.stdout, "no hint to run what was just run"
    assert (
        "bench-op: nothing written: the fix is for HEAD~1, which is not checked out: check it out and run "
        "again, or see the fix with `bench-op fix --from-ref HEAD~2 --to-ref HEAD~1 --diff`." in r.stdout
    )
    assert repo.snapshot() == before

    diff = repo.cli("fix", "--from-ref", "HEAD~2", "--to-ref", "HEAD~1", "--diff")
    assert diff.returncode == 0, diff.stderr
    assert "-    op = SumFwdOp(M, N, dtype)\n+    op = SumFwdOp(N, dtype)" in diff.stdout
    assert repo.snapshot() == before
    # The diff is the fix of HEAD~1's file: it applies there.
    repo.git("checkout", "-q", "HEAD~1")
    (repo.path / "fix.patch").write_text(diff.stdout)
    repo.git("apply", "fix.patch")
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)


def test_fix_of_the_range_checked_out_writes_it(repo: Repo) -> None:
    three_states(repo)
    repo.git("checkout", "-q", "HEAD~1")
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Rewriting benchmarks/ops/bench_reduction.py" in r.stdout
    assert repo.read(BENCH_RED) == repo.git("show", f"main:{BENCH_RED}")


def test_fix_at_head_leaves_a_benchmark_the_tree_has_changed(repo: Repo) -> None:
    reduction_change(repo)
    repo.commit("reduce: rows come from the input")
    repo.write(BENCH_RED, "# my unstaged note\n" + repo.read(BENCH_RED))
    before = repo.snapshot()
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert (
        f"bench-op: nothing written: {BENCH_RED} in the working tree differs from HEAD: commit or stash "
        "those edits and run this again, or see the fix with `bench-op fix --from-ref HEAD~1 --to-ref HEAD "
        "--diff`." in r.stdout
    )
    assert repo.snapshot() == before
