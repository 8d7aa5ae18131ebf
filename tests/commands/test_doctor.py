"""`bench-op doctor` end to end on real repositories: the fixture library (a good layout), a wrong glob, no
config at all, the hooks pre-commit or `bench-op install` put in place, and a config error."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.helpers.asserts import one_line_error
from tests.helpers.process import run
from tests.helpers.repo import Repo

PRE_COMMIT_CONFIG = """repos:
  - repo: local
    hooks:
      - id: bench-op
        name: bench-op
        entry: bench-op hook pre-commit
        language: system
      - id: bench-op-follow-up
        name: bench-op follow-up
        entry: bench-op hook follow-up
        language: system
        stages: [post-commit, post-merge, post-rewrite]
"""
NO_ENV = {"VIRTUAL_ENV": "", "CONDA_PREFIX": ""}  # which interpreter is found must not depend on the shell


def section(out: str, head: str) -> list[str]:
    """The lines of one part of the report: its head line and the indented ones under it."""
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(head))
    rest = lines[start + 1 :]
    end = next((i for i, ln in enumerate(rest) if not ln.startswith("  ")), len(rest))
    return [lines[start], *rest[:end]]


def test_a_good_layout_has_no_problem(repo: Repo) -> None:
    r = repo.cli("doctor", env=NO_ENV)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert out.splitlines()[0] == f"bench-op doctor: {repo.path}"
    assert (
        "config: pyproject.toml [tool.bench-op], keys: python, op-paths, benchmark-paths, test-paths, timeout"
        in out
    )
    assert section(out, "globs") == [
        "globs (tracked Python files each matches):",
        "  op-paths         src/minitile/ops/**/*.py  7",
        "  benchmark-paths  benchmarks/**/*.py        8",
        "  test-paths       tests/**/*.py             4",
        "  interface-paths  every Python file outside benchmark-paths (default)",
    ]
    assert "found: 8 Op classes in 7 op files, 8 benchmark files" in out
    interp = section(out, "interpreter:")
    assert interp[0] == f"interpreter: {sys.executable} (from [tool.bench-op] python)"
    import pytest as this_pytest
    import torch

    assert interp[1].startswith(
        f"  Python {sys.version.split()[0]}, pytest {this_pytest.__version__}, torch {torch.__version__}"
    )
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    assert interp[2] == (
        "  GPUs: none"
        if not gpus
        else f"  GPUs: {gpus}: " + ", ".join(torch.cuda.get_device_name(i) for i in range(gpus))
    )
    assert section(out, "hooks") == [
        "hooks (.git/hooks):",
        "  pre-commit: none",
        "  post-commit: none",
        "  post-merge: none",
        "  post-rewrite: none",
        "  no hook runs bench-op: `bench-op install`, or add bench-op to .pre-commit-config.yaml",
    ]
    assert out.splitlines()[-1] == "bench-op: no problem found."
    assert repo.git("status", "--porcelain") == "", "doctor writes nothing"


def test_a_wrong_glob_is_a_problem_with_its_fix(repo: Repo) -> None:
    repo.replace(
        "pyproject.toml", 'benchmark-paths = ["benchmarks/**/*.py"]', 'benchmark-paths = ["bench/**/*.py"]'
    )
    repo.commit("moved?")
    r = repo.cli("doctor", env=NO_ENV)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "  benchmark-paths  bench/**/*.py             0" in r.stdout
    assert "found: 8 Op classes in 7 op files, 0 benchmark files" in r.stdout
    assert r.stdout.splitlines()[-2:] == [
        "bench-op: 1 problem:",
        "  - benchmark-paths = ['bench/**/*.py'] matches no tracked Python file: set benchmark-paths in "
        "[tool.bench-op] to where your benchmark files are",
    ]


def test_no_config_shows_the_defaults_and_what_they_find(repo: Repo) -> None:
    text = repo.read("pyproject.toml")
    repo.write("pyproject.toml", text.split("[tool.bench-op]")[0])
    repo.commit("no bench-op config")
    r = repo.cli("doctor", env=NO_ENV)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "config: no [tool.bench-op] in pyproject.toml: every key has its default" in r.stdout
    assert "  op-paths         src/*/ops/**/*.py   7  (default)" in r.stdout
    assert "found: 8 Op classes in 7 op files, 8 benchmark files" in r.stdout
    assert f"interpreter: {sys.executable} (from the interpreter bench-op runs in)" in r.stdout


def test_a_repository_without_ops_or_benchmarks_gets_a_fix_for_each(tmp_path: Path) -> None:
    from tests.helpers.repo import files_repo

    repo = files_repo(tmp_path / "plain", {"lib/kernels.py": "class Gemm:\n    pass\n"})
    r = repo.cli("doctor", env=NO_ENV)
    assert r.returncode == 1, r.stdout + r.stderr
    problems = [ln for ln in r.stdout.splitlines() if ln.startswith("  - ")]
    assert problems == [
        "  - op-paths (default ['src/*/ops/**/*.py', '*/ops/**/*.py']) matches no tracked Python file: set "
        "op-paths in [tool.bench-op] to where your Op classes are",
        "  - benchmark-paths (default ['benchmarks/**/*.py']) matches no tracked Python file: set "
        "benchmark-paths in [tool.bench-op] to where your benchmark files are",
    ], r.stdout


def test_the_hooks_pre_commit_and_bench_op_install_put_in_place(repo: Repo) -> None:
    repo.write(".pre-commit-config.yaml", PRE_COMMIT_CONFIG)
    repo.commit("pre-commit config")
    r = run([sys.executable, "-m", "pre_commit", "install", "--hook-type", "pre-commit"], repo.path)
    assert r.returncode == 0, r.stderr
    d = repo.cli("doctor", env=NO_ENV)
    assert d.returncode == 1, d.stdout
    assert "  pre-commit: pre-commit (runs bench-op)" in d.stdout
    assert d.stdout.splitlines()[-2:] == [
        "bench-op: 1 problem:",
        "  - .pre-commit-config.yaml lists bench-op-follow-up but pre-commit's post-commit, post-merge, "
        "post-rewrite hooks are not installed: run `pre-commit install --hook-type post-commit --hook-type "
        "post-merge --hook-type post-rewrite`",
    ], d.stdout
    assert repo.cli("install").returncode == 0  # the follow-up stage through plain git hooks instead
    d = repo.cli("doctor", env=NO_ENV)
    assert d.returncode == 0, d.stdout
    assert "  post-commit: bench-op install" in d.stdout and "  post-rewrite: bench-op install" in d.stdout


def test_a_config_error_is_a_usage_error(repo: Repo) -> None:
    repo.replace("pyproject.toml", "timeout = 300", "timeout = 300\nregression-threshold = 10")
    r = repo.cli("doctor")
    assert r.returncode == 2
    assert "regression-threshold must be a fraction above 0 and at most 1" in one_line_error(r)
