"""Could not run here is not blocked, and every file gets its own true reason.

Real git repositories, real interpreters: a venv without pytest, a benchmark importing a package that is
not installed, the repository's own package not importable, two files in one session where one fails at
import.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.changes import reduction_change
from tests.helpers.interpreters import bare_python
from tests.helpers.repo import Repo, run_json

BENCH_RED = "benchmarks/ops/bench_reduction.py"


BENCH_KERNEL = "benchmarks/ops/bench_kernel.py"


# A benchmark whose kernel package is not installed here: line 5 imports it. Two test functions, only one
# builds the changed Op, so the batch runs it by node id (pytest then stops the whole session on it).
KERNEL = """import torch

from minitile.ops import SumFwdOp

import nosuchkernelpkg  # noqa: F401


def test_sum_kernel_bench(record_property):
    SumFwdOp(8, 16, torch.float32)


def test_other():
    pass
"""


def test_interpreter_without_pytest_commits_the_static_fix(repo: Repo, tmp_path: Path) -> None:
    reduction_change(repo)
    base = repo.commit("reduce: rows come from the input")
    py = bare_python(tmp_path)
    r, data = run_json(repo, tmp_path, "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--python", py)
    assert r.returncode == 0, r.stdout + r.stderr
    assert data["status"] == "fixed-not-run", data
    (bench,) = data["benchmarks"]
    assert bench["status"] == "not-run" and bench["reason"] == f"no pytest in {py}", bench
    assert "Traceback" not in r.stdout + r.stderr
    # the fix is said once; each file and the commit message get the short reason
    assert (r.stdout + r.stderr).count("cannot import pytest") == 1, r.stdout + r.stderr
    assert "fixed without numbers: 1 benchmark file fixed but not run" in r.stdout
    # the static fix is committed as the follow-up, nothing dropped
    assert repo.git("rev-parse", "HEAD~1").strip() == base
    assert "op = SumFwdOp(N, dtype)" in repo.git("show", f"HEAD:{BENCH_RED}")
    said = [ln for ln in repo.git("log", "-1", "--format=%B").splitlines() if "pytest" in ln]
    assert said == [f"Not run here (no pytest in {py}): {BENCH_RED}"], said


def test_missing_package_is_not_run_and_the_other_file_runs(repo: Repo, tmp_path: Path) -> None:
    repo.write(BENCH_KERNEL, KERNEL)
    repo.commit("a benchmark with a kernel package")
    reduction_change(repo)
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    by = {b["path"]: b for b in data["benchmarks"]}
    kernel, red = by[BENCH_KERNEL], by[BENCH_RED]
    assert kernel["status"] == "not-run", kernel
    assert kernel["reason"].startswith(f"No module named 'nosuchkernelpkg' (at {BENCH_KERNEL}:5)"), kernel
    assert "_pytest" not in kernel["reason"] and "found no collectors" not in out.split("bench-op: done")[-1]
    # the other file of the same session still got its own result
    assert red["status"] == "passed" and red["numbers"], red
    assert data["status"] == "done"
    # both static fixes stand in the tree
    assert "SumFwdOp(16, torch.float32)" in repo.read(BENCH_KERNEL)
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)


def test_require_run_turns_not_run_into_blocked(repo: Repo, tmp_path: Path) -> None:
    repo.write(BENCH_KERNEL, KERNEL)
    repo.replace("pyproject.toml", "timeout = 300", "timeout = 300\nrequire-run = true")
    repo.commit("a benchmark with a kernel package; numbers wanted")
    reduction_change(repo)
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    assert r.returncode == 1 and data["status"] == "blocked", r.stdout
    assert "require-run = true" in data["reason"]


def test_own_package_not_installed_names_the_command(repo: Repo, tmp_path: Path) -> None:
    # a src layout that this interpreter can't import: nothing puts src/ on its path
    repo.replace("pyproject.toml", 'pythonpath = ["src", "."]', 'pythonpath = ["."]')
    repo.commit("src layout, not installed")
    reduction_change(repo)
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    (bench,) = data["benchmarks"]
    assert bench["status"] == "not-run", bench
    assert "No module named 'minitile'" in bench["reason"] and "-m pip install -e ." in bench["reason"], bench
    assert data["status"] == "fixed-not-run"


def test_pre_commit_stage_writes_the_fix_without_pytest(repo: Repo, tmp_path: Path) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.bench_op("hook", "pre-commit", "--python", bare_python(tmp_path))
    out = r.stdout + r.stderr
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED), out
    assert "review them" in out and "blocked" not in out, out
    assert repo.git("diff", "--cached", "--name-only").split() == [
        "src/minitile/ops/reduction.py",
        "tests/ops/test_reduction.py",
    ]
