"""The static core on real git repositories of the fixture op library: check and fix."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Repo, make_repo, reduction_change

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def test_family_base_change_reaches_every_sibling(repo: Repo) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.bench_op("check")
    assert r.returncode == 1, r.stderr
    out = r.stdout
    assert "ReduceOp(M, N, dtype, tune=False) -> ReduceOp(N, dtype, dim=-1, *, tune=False)" in out
    assert "inherited by AmaxFwdOp, MeanFwdOp, SumFwdOp" in out
    assert f"{BENCH_RED}:15: SumFwdOp(M, N, dtype): argument M now reaches 'N' instead of 'M'" in out
    assert "fix: SumFwdOp(N, dtype)" in out
    assert "fix: MeanFwdOp(N, dtype=torch.float32)" in out
    assert "fix: AmaxFwdOp(N, torch.float32, tune=True)" in out
    # check writes nothing
    assert repo.git("status", "--porcelain", "--", "benchmarks") == ""

    before = repo.snapshot()
    r = repo.bench_op("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"Rewriting {BENCH_RED}" in r.stdout
    after = repo.snapshot()
    changed = {p for p in after if after[p] != before.get(p)}
    assert changed == {BENCH_RED}, "only the benchmark file may change"
    text = repo.read(BENCH_RED)
    assert "op = SumFwdOp(N, dtype)" in text
    assert "op = MeanFwdOp(N, dtype=torch.float32)" in text
    assert "op = AmaxFwdOp(N, torch.float32, tune=True)" in text
    # Once fixed, every call binds with the same meaning.
    r = repo.bench_op("check")
    assert r.returncode == 0, r.stdout
    assert "still binds" in r.stdout


def test_fix_diff_prints_and_writes_nothing(repo: Repo) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    before = repo.snapshot()
    r = repo.bench_op("fix", "--diff")
    assert "-    op = SumFwdOp(M, N, dtype)\n+    op = SumFwdOp(N, dtype)" in r.stdout
    assert repo.snapshot() == before


def test_removed_parameter_keyword_callers(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/norm.py",
        "def __init__(self, M, hidden, dtype, eps=1e-6):\n        self.M = M\n",
        "def __init__(self, hidden, dtype, eps=1e-6):\n        self.M = None\n",
    )
    repo.git("add", "-A")
    r = repo.bench_op("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "op = RMSNormOp(hidden=hidden, dtype=torch.float32)" in repo.read("benchmarks/ops/bench_norm.py")


def test_renamed_keyword(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/norm.py",
        "def __init__(self, M, hidden, dtype, eps=1e-6):",
        "def __init__(self, M, dim, dtype, eps=1e-6):",
    )
    repo.replace("src/minitile/ops/norm.py", "self.hidden = hidden", "self.hidden = dim")
    repo.git("add", "-A")
    r = repo.bench_op("check")
    assert "'hidden' renamed to 'dim'" in r.stdout
    r = repo.bench_op("fix")
    assert "op = RMSNormOp(M, dim=hidden, dtype=torch.float32)" in repo.read("benchmarks/ops/bench_norm.py")


def test_keyword_only_and_module_attribute_import(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/gemm.py",
        "def __init__(self, M, N, K, dtype, trans_b=False):",
        "def __init__(self, M, N, K, *, dtype, trans_b=False):",
    )
    repo.git("add", "-A")
    r = repo.bench_op("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "op = ops.GemmOp(M, N, K, dtype=DTYPE)" in repo.read("benchmarks/ops/bench_gemm.py")


def test_reordered_parameters(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/gemm.py",
        "def __init__(self, M, N, K, dtype, trans_b=False):",
        "def __init__(self, M, K, N, dtype, trans_b=False):",
    )
    repo.git("add", "-A")
    r = repo.bench_op("check")
    assert "'N' moved from position 1 to 2" in r.stdout
    assert "argument N now reaches 'K' instead of 'N'" in r.stdout
    repo.bench_op("fix")
    assert "op = ops.GemmOp(M, N=N, K=K, dtype=DTYPE)" in repo.read("benchmarks/ops/bench_gemm.py")


def test_silent_shift_after_removal_through_aliased_import(repo: Repo) -> None:
    # causal leaves the signature and kernel_map takes a place at the end: the old call still binds, wrongly.
    repo.replace(
        "src/minitile/ops/attention.py",
        "def __init__(self, batch, heads, seq_len, dim, causal, dtype):",
        "def __init__(self, batch, heads, seq_len, dim, dtype, kernel_map=None):",
    )
    repo.replace("src/minitile/ops/attention.py", "self.causal = causal", "self.causal = False")
    repo.git("add", "-A")
    r = repo.bench_op("check")
    assert r.returncode == 1
    assert "argument causal now reaches 'dtype' instead of 'causal'" in r.stdout
    repo.bench_op("fix")
    assert "op = Attention(batch, heads, seq_len, dim, DTYPE)" in repo.read(
        "benchmarks/ops/bench_attention.py"
    )


def test_silent_shift_after_insertion(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/attention.py",
        "def __init__(self, batch, heads, seq_len, dim, causal, dtype):",
        "def __init__(self, batch, heads, seq_len, dim, window=None, causal=False, dtype=None):",
    )
    repo.git("add", "-A")
    repo.bench_op("fix")
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
    r = repo.bench_op("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    text = repo.read(BENCH_RED)
    assert "op = SumFwdOp(N, dtype, dim=-1)" in text
    assert "op = MeanFwdOp(N, dtype=torch.float32, dim=-1)" in text
    assert "every test call passes dim=-1" in r.stdout


@pytest.mark.parametrize("variant", ["disagree", "missing"])
def test_new_required_parameter_without_agreeing_evidence_is_reported(repo: Repo, variant: str) -> None:
    repo.replace("src/minitile/ops/reduction.py", *REQUIRED_DIM)
    t = repo.read("tests/ops/test_reduction.py")
    if variant == "disagree":
        t = t.replace("SumFwdOp(M, N, torch.float32)", "SumFwdOp(N, torch.float32, dim=-1)")
        t += "\n\ndef test_sum_rows():\n    SumFwdOp(4, torch.float32, dim=0)\n"
    repo.write("tests/ops/test_reduction.py", t)
    repo.git("add", "-A")
    before = repo.read(BENCH_RED)
    r = repo.bench_op("fix")
    assert r.returncode == 1
    assert repo.read(BENCH_RED) == before, "no guess may be written"
    assert "needs a value for 'dim'" in r.stdout
    assert (
        "the tests disagree" if variant == "disagree" else "no test builds SumFwdOp with 'dim'"
    ) in r.stdout


def test_a_fix_with_nothing_to_rewrite_does_not_import_libcst(repo: Repo) -> None:
    repo.replace("src/minitile/ops/reduction.py", *REQUIRED_DIM)
    repo.git("add", "-A")
    code = (
        "import sys; from benchop_hook.cli import main; rc = main(['fix']); "
        "print('HEAVY', sorted(m for m in ('libcst', 'git', 'torch') if m in sys.modules)); sys.exit(rc)"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=repo.path, capture_output=True, text=True)
    assert r.returncode == 1 and "needs a value for 'dim'" in r.stdout, r.stdout + r.stderr
    assert "HEAVY []" in r.stdout
    # A fix that rewrites does import it (the line above is not vacuous).
    repo.replace("src/minitile/ops/reduction.py", *reversed(REQUIRED_DIM))
    reduction_change(repo)
    repo.git("add", "-A")
    r = subprocess.run([sys.executable, "-c", code], cwd=repo.path, capture_output=True, text=True)
    assert "HEAVY ['libcst']" in r.stdout, r.stdout + r.stderr


def test_splatted_call_is_unknown_and_untouched(repo: Repo) -> None:
    repo.write(
        "benchmarks/ops/bench_splat.py",
        (
            "import pytest\nimport torch\nfrom minitile.ops import SumFwdOp\n\n\n"
            "@pytest.mark.parametrize('params', [{'M': 4, 'N': 8, 'dtype': torch.float32}])\n"
            "def test_splat(params):\n    SumFwdOp(**params)\n"
        ),
    )
    repo.commit("add splat bench")
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.bench_op("check")
    assert (
        "benchmarks/ops/bench_splat.py:8: SumFwdOp(**params): passes *args/**kwargs, so only a run can tell"
        in r.stdout
    )
    repo.bench_op("fix")
    assert "SumFwdOp(**params)" in repo.read("benchmarks/ops/bench_splat.py")


def test_syntax_error_is_named_and_other_files_still_fixed(repo: Repo) -> None:
    repo.write(
        "benchmarks/ops/bench_broken.py",
        "from minitile.ops import SumFwdOp\n\ndef test_x(:\n    SumFwdOp(1, 2, 3)\n",
    )
    repo.commit("a broken bench")
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.bench_op("fix")
    assert (
        "skipped benchmarks/ops/bench_broken.py (line 3: invalid syntax); the other files were handled."
        in r.stdout
    )
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)


def test_diff_without_op_change_reports_nothing_and_imports_nothing_heavy(repo: Repo) -> None:
    repo.replace(BENCH_RED, "import pytest", "import pytest  # touched")
    repo.replace("tests/ops/test_norm.py", "import torch", "import torch  # touched")
    repo.git("add", "-A")
    code = (
        "import sys; from benchop_hook.cli import main; rc = main(['check']); "
        "print('HEAVY', sorted(m for m in ('libcst', 'git', 'torch') if m in sys.modules)); sys.exit(rc)"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=repo.path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "nothing to check: no Op file changed in staged changes" in r.stdout
    assert "HEAVY []" in r.stdout


def test_range_from_refs_and_pre_commit_env(repo: Repo) -> None:
    base = repo.head()
    reduction_change(repo)
    repo.commit("reduce: N and dim")
    r = repo.bench_op("check", "--from-ref", base, "--to-ref", "HEAD")
    assert r.returncode == 1 and "fix: SumFwdOp(N, dtype)" in r.stdout
    r = repo.bench_op("check", env={"PRE_COMMIT_FROM_REF": base, "PRE_COMMIT_TO_REF": "HEAD"})
    assert r.returncode == 1 and "fix: SumFwdOp(N, dtype)" in r.stdout
    r = repo.bench_op("check", "--from-ref", "HEAD~1")
    assert r.returncode == 2 and "give both --from-ref and --to-ref" in r.stderr


def test_renamed_op_file_is_followed(repo: Repo) -> None:
    repo.git("mv", "src/minitile/ops/reduction.py", "src/minitile/ops/reductions.py")
    repo.replace("src/minitile/ops/__init__.py", "from .reduction import", "from .reductions import")
    from conftest import REDUCTION_N_DIM

    repo.write("src/minitile/ops/reductions.py", REDUCTION_N_DIM)
    repo.git("add", "-A")
    r = repo.bench_op("check")
    assert "ReduceOp(M, N, dtype, tune=False) -> ReduceOp(N, dtype, dim=-1, *, tune=False)" in r.stdout
    assert "fix: SumFwdOp(N, dtype)" in r.stdout


def test_all_files_fixes_from_the_benchmarks_last_commit(repo: Repo) -> None:
    reduction_change(repo)
    repo.commit("reduce: N and dim")  # committed without fixing the benchmarks
    r = repo.bench_op("check", "--all-files")
    assert r.returncode == 1
    assert "fix: SumFwdOp(N, dtype)" in r.stdout
    repo.bench_op("fix", "--all-files")
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)
    r = repo.bench_op("check", "--all-files")
    assert r.returncode == 0, r.stdout


def test_json_report(repo: Repo, tmp_path) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    out = tmp_path / "report.json"
    repo.bench_op("check", "--json", str(out))
    data = json.loads(out.read_text())
    assert data["status"] == "broken"
    assert data["changes"][0]["old_signature"] == "(M, N, dtype, tune=False)"
    assert {f["line"] for f in data["findings"] if f["path"] == BENCH_RED} == {15, 23, 31}
    assert all(f["fix"] for f in data["findings"])


def test_no_commits_and_bad_ref_are_clear_errors(tmp_path) -> None:
    import shutil

    from conftest import FIXTURE
    from conftest import Repo as R

    d = tmp_path / "fresh"
    shutil.copytree(FIXTURE, d)
    fresh = R(d)
    fresh.git("init", "-q")
    r = fresh.bench_op("check")
    assert r.returncode == 2 and "no commits yet" in r.stderr and "Traceback" not in r.stderr
    repo = make_repo(tmp_path / "r")
    r = repo.bench_op("check", "--from-ref", "nope", "--to-ref", "HEAD")
    assert r.returncode == 2 and "'nope' is not a commit" in r.stderr


def test_all_files_cache_never_hides_a_change(repo: Repo) -> None:
    r = repo.bench_op("check", "--all-files")
    assert r.returncode == 0
    assert (repo.path / ".git" / "bench-op" / "all-files-cache.json").exists()
    assert repo.bench_op("check", "--all-files").returncode == 0  # from the cache
    reduction_change(repo)
    repo.commit("reduce: N and dim")  # the benchmarks did not change; a module they resolve through did
    r = repo.bench_op("check", "--all-files")
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
    assert repo.bench_op("check", "--all-files").returncode == 0  # both files cached as clean
    repo.replace("src/lib/ops/base.py", "def __init__(self, m, n):", "def __init__(self, m):")
    r = repo.bench_op("check", "--all-files")
    assert r.returncode == 1
    assert "benchmarks/bench_a.py:5" in r.stdout and "benchmarks/bench_b.py:5" in r.stdout
