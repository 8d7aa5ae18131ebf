"""`bench-op check` on real git repositories of the fixture library: what it reports for each kind of change,
where the range comes from, its JSON, and that it writes nothing."""

from __future__ import annotations

import json
import sys

from tests.helpers.changes import reduction_change, three_states
from tests.helpers.process import run
from tests.helpers.repo import FIXTURE, Repo, make_repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def test_family_base_change_reaches_every_sibling(repo: Repo) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("check")
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
    r = repo.cli("fix")
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
    r = repo.cli("check")
    assert r.returncode == 0, r.stdout
    assert "still binds" in r.stdout


def test_renamed_keyword(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/norm.py",
        "def __init__(self, M, hidden, dtype, eps=1e-6):",
        "def __init__(self, M, dim, dtype, eps=1e-6):",
    )
    repo.replace("src/minitile/ops/norm.py", "self.hidden = hidden", "self.hidden = dim")
    repo.git("add", "-A")
    r = repo.cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "'hidden' renamed to 'dim'" in r.stdout
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "op = RMSNormOp(M, dim=hidden, dtype=torch.float32)" in repo.read("benchmarks/ops/bench_norm.py")


def test_reordered_parameters(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/gemm.py",
        "def __init__(self, M, N, K, dtype, trans_b=False):",
        "def __init__(self, M, K, N, dtype, trans_b=False):",
    )
    repo.git("add", "-A")
    r = repo.cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "'N' moved from position 1 to 2" in r.stdout
    assert "argument N now reaches 'K' instead of 'N'" in r.stdout
    repo.cli("fix")
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
    r = repo.cli("check")
    assert r.returncode == 1
    assert "argument causal now reaches 'dtype' instead of 'causal'" in r.stdout
    # The new class always runs non-causal where it used `causal`: dropping the benchmark's causal cases'
    # value would measure the non-causal kernel under their name.
    before = repo.read("benchmarks/ops/bench_attention.py")
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "where the new class always uses False" in r.stdout and "[BO212]" in r.stdout, r.stdout
    assert repo.read("benchmarks/ops/bench_attention.py") == before


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
    r = repo.cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert (
        "benchmarks/ops/bench_splat.py:8: SumFwdOp(**params): passes *args/**kwargs, so only a run can tell"
        in r.stdout
    )
    repo.cli("fix")
    assert "SumFwdOp(**params)" in repo.read("benchmarks/ops/bench_splat.py")


def test_diff_without_op_change_reports_nothing_and_imports_nothing_heavy(repo: Repo) -> None:
    repo.replace(BENCH_RED, "import pytest", "import pytest  # touched")
    repo.replace("tests/ops/test_norm.py", "import torch", "import torch  # touched")
    repo.git("add", "-A")
    code = (
        "import sys; from benchop_hook.cli import main; rc = main(['check']); "
        "print('HEAVY', sorted(m for m in ('libcst', 'git', 'torch') if m in sys.modules)); sys.exit(rc)"
    )
    r = run([sys.executable, "-c", code], repo.path)
    assert r.returncode == 0, r.stderr
    assert "nothing to check: no Op file changed in staged changes" in r.stdout
    assert "HEAVY []" in r.stdout


def test_range_from_refs_and_pre_commit_env(repo: Repo) -> None:
    base = repo.head()
    reduction_change(repo)
    repo.commit("reduce: N and dim")
    r = repo.cli("check", "--from-ref", base, "--to-ref", "HEAD")
    assert r.returncode == 1 and "fix: SumFwdOp(N, dtype)" in r.stdout
    r = repo.cli("check", env={"PRE_COMMIT_FROM_REF": base, "PRE_COMMIT_TO_REF": "HEAD"})
    assert r.returncode == 1 and "fix: SumFwdOp(N, dtype)" in r.stdout
    r = repo.cli("check", "--from-ref", "HEAD~1")
    assert r.returncode == 2 and "give both --from-ref and --to-ref" in r.stderr


def test_json_report(repo: Repo, tmp_path) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    out = tmp_path / "report.json"
    r = repo.cli("check", "--json", str(out))
    assert r.returncode == 1, r.stdout + r.stderr
    data = json.loads(out.read_text())
    assert data["status"] == "broken"
    assert data["changes"][0]["old_signature"] == "(M, N, dtype, tune=False)"
    assert {f["line"] for f in data["findings"] if f["path"] == BENCH_RED} == {15, 23, 31}
    assert all(f["fix"] for f in data["findings"])


def test_no_commits_and_bad_ref_are_clear_errors(tmp_path) -> None:
    import shutil

    d = tmp_path / "fresh"
    shutil.copytree(FIXTURE, d)
    fresh = Repo(d)
    fresh.git("init", "-q")
    r = fresh.cli("check")
    assert r.returncode == 2 and "no commits yet" in r.stderr and "Traceback" not in r.stderr
    repo = make_repo(tmp_path / "r")
    r = repo.cli("check", "--from-ref", "nope", "--to-ref", "HEAD")
    assert r.returncode == 2 and "'nope' is not a commit" in r.stderr


def test_op_file_with_syntax_error_is_named(repo: Repo) -> None:
    repo.write(
        "src/minitile/ops/reduction.py", repo.read("src/minitile/ops/reduction.py") + "\ndef broken(:\n"
    )
    repo.git("add", "-A")
    r = repo.cli("check")
    assert "skipped src/minitile/ops/reduction.py (line " in r.stdout and "invalid syntax" in r.stdout
    assert r.returncode == 0 and "Traceback" not in r.stderr


def test_benchmark_deleted_in_the_diff(repo: Repo) -> None:
    reduction_change(repo)
    repo.git("rm", "-q", BENCH_RED)
    repo.git("add", "-A")
    r = repo.cli("check")
    assert r.returncode == 0, r.stdout
    assert "still binds" in r.stdout or "no benchmark" in r.stdout or "every benchmark call" in r.stdout


def test_check_judges_the_benchmarks_at_the_range_s_last_commit(repo: Repo) -> None:
    """Not the working tree's: with the fixed benchmarks checked out, the Op change's own commit still
    breaks three calls, and the hint keeps the range."""
    three_states(repo)
    r = repo.cli("check", "--from-ref", "HEAD~2", "--to-ref", "HEAD~1")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.splitlines()[-1] == (
        "bench-op: can rewrite 3 calls in 1 benchmark file; "
        "run `bench-op fix --from-ref HEAD~2 --to-ref HEAD~1` to apply."
    )
    assert "benchmarks/ops/bench_reduction.py:15: SumFwdOp(M, N, dtype)" in r.stdout
    fixed = repo.cli("check", "--from-ref", "HEAD~2", "--to-ref", "HEAD")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "every benchmark call still binds" in fixed.stdout
