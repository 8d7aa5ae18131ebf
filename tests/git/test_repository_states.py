"""Repository states, each created for real: no commit yet, a shallow clone, a submodule, a linked worktree, a
merge with conflicts, a cherry-pick or bisect under way, an index lock another git holds. The outcome is
one clear line, the right exit code, and the tree, the index and the history as before unless bench-op was
asked to change them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.asserts import one_line_error, state
from tests.helpers.changes import reduction_change, stage_reduction_change
from tests.helpers.process import run
from tests.helpers.repo import FIXTURE, Repo, git, make_repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def test_first_commit_and_no_commits(tmp_path: Path) -> None:

    d = tmp_path / "fresh"
    shutil.copytree(FIXTURE, d)
    repo = Repo(d)
    repo.git("init", "-q", "-b", "main")
    assert repo.cli("install").returncode == 0
    repo.git("add", "-A")
    r = repo.cli("hook", "pre-commit")
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""
    r = run(["git", "commit", "-q", "-m", "first"], d)
    assert r.returncode == 0 and "bench-op" not in r.stdout + r.stderr
    assert repo.log() == ["first"]


def test_shallow_clone(tmp_path: Path, repo: Repo) -> None:
    reduction_change(repo)
    repo.commit("reduce")  # the benchmarks are broken in the tip
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo.path}", str(clone))
    c = Repo(clone)
    r = c.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert (
        r.returncode == 2 and "'HEAD~1' is not in this shallow clone: fetch more history" in one_line_error(r)
    )
    r = c.cli("check", "--all-files")
    assert "bench-op: this clone is shallow" in r.stderr
    # The only commit is the tip, which already had the new signature: nothing says what the old calls meant.
    assert r.returncode == 1 and "its Op did not change since the benchmark's last commit" in r.stdout
    # A new commit on top of the shallow tip works as anywhere else.
    c.write("src/minitile/ops/norm.py", c.read("src/minitile/ops/norm.py").replace("eps=1e-6)", "eps=1e-5)"))
    c.git("add", "-A")
    r = c.cli("check")
    assert "relies on the default of 'eps'" in r.stdout


def test_submodule_is_left_alone(tmp_path: Path, repo: Repo) -> None:
    sub = make_repo(tmp_path / "sub")
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub.path), "third_party/sub")
    repo.commit("add a submodule")
    sub_files = Repo(repo.path / "third_party/sub").snapshot()
    stage_reduction_change(repo)
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert Repo(repo.path / "third_party/sub").snapshot() == sub_files
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)


def test_linked_worktree(tmp_path: Path, repo: Repo) -> None:
    assert repo.cli("install").returncode == 0
    wt = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "feature", str(wt))
    w = Repo(wt)
    main_before = repo.snapshot()
    reduction_change(w)
    w.git("add", "src", "tests")
    r = run(["git", "commit", "-q", "-m", "reduce in a worktree"], wt)
    assert r.returncode == 0, r.stderr
    assert w.log()[0].startswith("bench-op: align"), r.stdout + r.stderr
    assert "op = SumFwdOp(N, dtype)" in w.read(BENCH_RED)
    assert repo.snapshot() == main_before and repo.log()[0] == "minitile: initial"


def test_merge_with_conflicts_is_refused(repo: Repo) -> None:
    repo.git("checkout", "-q", "-b", "other")
    repo.replace("src/minitile/ops/gemm.py", "trans_b=False", "trans_b=True")
    repo.commit("other")
    repo.git("checkout", "-q", "main")
    repo.replace("src/minitile/ops/gemm.py", "trans_b=False", "trans_b=None")
    repo.commit("main")
    repo.git("merge", "other", check=False)
    before = state(repo)
    r = repo.cli("check")
    assert r.returncode == 1 and "unmerged paths" in one_line_error(r)
    assert state(repo) == before


@pytest.mark.parametrize("op", ["cherry-pick", "bisect"])
def test_no_commit_in_the_middle_of_an_operation(repo: Repo, op: str) -> None:
    base = repo.head()
    reduction_change(repo)
    repo.commit("reduce")
    if op == "cherry-pick":
        (repo.path / ".git" / "CHERRY_PICK_HEAD").write_text(base + "\n")
    else:
        repo.git("bisect", "start")
    before = state(repo)
    r = repo.cli("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run")
    assert r.returncode == 1 and "is in progress" in one_line_error(r)
    assert state(repo)[0] == before[0] and repo.log()[0] == "reduce"


def test_held_index_lock_is_reported_never_deleted(tmp_path) -> None:
    repo = make_repo(tmp_path / "r")
    reduction_change(repo)
    repo.commit("reduce")
    lock = repo.path / ".git" / "index.lock"
    lock.write_text("held by another git")
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1
    assert "holds .git/index.lock" in r.stderr
    assert lock.read_text() == "held by another git"
    assert repo.log()[0] == "reduce"
    lock.unlink()
    assert repo.git("status", "--porcelain") == "", "the tree was restored"
