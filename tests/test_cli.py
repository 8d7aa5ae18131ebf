"""The command line as the README describes it (issue 12): --staged, FILE arguments restrict check and fix,
argument errors under the subcommand's usage, no commits to compare is a usage situation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import Repo, reduction_change

BENCH_RED = "benchmarks/ops/bench_reduction.py"
BENCH_GEMM = "benchmarks/ops/bench_gemm.py"


def gemm_keyword_only(repo: Repo) -> None:
    repo.replace("src/minitile/ops/gemm.py", "def __init__(self, M, N, K, dtype, trans_b=False):",
                 "def __init__(self, M, N, K, *, dtype, trans_b=False):")


def test_staged_is_an_explicit_flag(repo: Repo, tmp_path: Path) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.bench_op("check", "--staged", "--json", str(tmp_path / "c.json"),
                      env={"PRE_COMMIT_FROM_REF": "HEAD", "PRE_COMMIT_TO_REF": "HEAD"})
    assert r.returncode == 1, r.stdout + r.stderr
    data = json.loads((tmp_path / "c.json").read_text())
    assert data["status"] == "broken" and data["target"]["mode"] == "staged"
    bad = repo.bench_op("check", "--staged", "--all-files")
    assert bad.returncode == 2 and "--staged" in bad.stderr


def test_files_restrict_check_and_fix(repo: Repo) -> None:
    reduction_change(repo)
    gemm_keyword_only(repo)
    repo.git("add", "-A")
    r = repo.bench_op("check", BENCH_GEMM)
    assert BENCH_GEMM in r.stdout and BENCH_RED not in r.stdout, r.stdout
    r = repo.bench_op("fix", BENCH_GEMM)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "dtype=DTYPE" in repo.read(BENCH_GEMM)
    assert repo.git("diff", "--name-only").split() == [BENCH_GEMM], "fix A rewrites A only"


def test_argument_errors_print_the_subcommands_usage(repo: Repo) -> None:
    r = repo.bench_op("check", "--no-such-flag")
    assert r.returncode == 2
    assert "usage: bench-op check" in r.stderr and "unrecognized arguments: --no-such-flag" in r.stderr


def test_check_without_commits_is_a_usage_situation(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path / "empty")], check=True)
    for cmd in ("check", "fix", "run"):
        r = subprocess.run([sys.executable, "-m", "benchop_hook", cmd], cwd=tmp_path / "empty",
                           capture_output=True, text=True)
        assert r.returncode == 2, (cmd, r.stderr)
        assert "the repository has no commits yet" in r.stderr and r.stderr.count("\n") == 1


def test_no_doubled_words(repo: Repo, tmp_path: Path) -> None:
    r = repo.bench_op("run", "--json", str(tmp_path / "r.json"))
    assert "bench-op: nothing to do" in r.stdout and "nothing-to-do: nothing to do" not in r.stdout
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.bench_op("run", "--no-run")
    assert "not run (not run" not in r.stdout and "fixed but not run (--no-run)" in r.stdout, r.stdout


def test_hook_takes_files_after_its_options(repo: Repo) -> None:
    # pre-commit passes `entry args... files...`: options between the stage and the file names
    r = repo.bench_op("hook", "pre-commit", "--no-run", BENCH_RED)
    assert r.returncode == 0, r.stderr
    assert "unrecognized arguments" not in r.stderr
