"""The range CI names (`--from-ref origin/main --to-ref HEAD`) in the clones CI makes: shallow, one branch,
the base missing. The message says what to fetch; once fetched, the range works."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.asserts import one_line_error
from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo, git

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def _pull_request(repo: Repo) -> None:
    """main, and a branch `feature` on it that changes the reduction family."""
    repo.git("checkout", "-q", "-b", "feature")
    reduction_change(repo)
    repo.commit("reduction: N and dim")
    repo.git("checkout", "-q", "main")


def _checkout_like_actions(repo: Repo, dest: Path) -> Repo:
    """What actions/checkout does for a branch: a remote with the default refspec, one commit fetched."""
    dest.mkdir()
    git(dest, "init", "-q")
    git(dest, "remote", "add", "origin", f"file://{repo.path}")
    git(dest, "fetch", "-q", "--depth=1", "origin", "+refs/heads/feature:refs/remotes/origin/feature")
    git(dest, "checkout", "-q", "-b", "feature", "origin/feature")
    return Repo(dest)


def test_base_missing_from_a_shallow_checkout_says_what_to_fetch(repo: Repo, tmp_path: Path) -> None:
    _pull_request(repo)
    clone = _checkout_like_actions(repo, tmp_path / "ci")
    assert clone.git("rev-parse", "--is-shallow-repository").strip() == "true"
    r = clone.cli("check", "--from-ref", "origin/main", "--to-ref", "HEAD")
    assert r.returncode == 2
    line = one_line_error(r)
    assert "'origin/main' is not in this checkout (a shallow clone that did not fetch main)" in line
    assert "`fetch-depth: 0` in actions/checkout, or `git fetch origin main`" in line
    # What the message says is enough: one more commit, and the range works in the shallow clone.
    clone.git("fetch", "-q", "--depth=1", "origin", "main")
    r = clone.cli("check", "--from-ref", "origin/main", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{BENCH_RED}:15: SumFwdOp(M, N, dtype)" in r.stdout


def test_single_branch_clone_is_told_the_refspec(repo: Repo, tmp_path: Path) -> None:
    # `git clone --single-branch` maps only its branch: a bare `git fetch origin main` would set FETCH_HEAD
    # and not origin/main, so the message names the destination.
    _pull_request(repo)
    git(
        tmp_path,
        "clone",
        "-q",
        "--depth=1",
        "--branch",
        "feature",
        "--single-branch",
        f"file://{repo.path}",
        "c",
    )
    clone = Repo(tmp_path / "c")
    r = clone.cli("check", "--from-ref", "origin/main", "--to-ref", "HEAD")
    assert r.returncode == 2
    assert "`git fetch origin main:refs/remotes/origin/main`" in one_line_error(r)
    clone.git("fetch", "-q", "--depth=1", "origin", "main:refs/remotes/origin/main")
    assert clone.cli("check", "--from-ref", "origin/main", "--to-ref", "HEAD").returncode == 1


def test_commit_beyond_a_shallow_boundary(repo: Repo, tmp_path: Path) -> None:
    _pull_request(repo)
    git(tmp_path, "clone", "-q", "--depth=1", "--branch", "feature", f"file://{repo.path}", "c")
    r = Repo(tmp_path / "c").cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 2
    assert "'HEAD~1' is not in this shallow clone: fetch more history" in one_line_error(r)


def test_a_full_clone_with_a_wrong_ref_is_still_told_to_check_it(repo: Repo) -> None:
    r = repo.cli("check", "--from-ref", "nosuchref", "--to-ref", "HEAD")
    assert r.returncode == 2
    assert "'nosuchref' is not a commit in this repository: check the ref" in one_line_error(r)


def test_all_files_in_a_shallow_clone_says_what_it_cannot_see(repo: Repo, tmp_path: Path) -> None:
    reduction_change(repo, update_tests=False)
    repo.commit("reduction: N and dim")
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{repo.path}", "c")
    r = Repo(tmp_path / "c").cli("check", "--all-files")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "bench-op: this clone is shallow" in r.stderr and "`git fetch --unshallow`" in r.stderr
    # the silent shift is beyond the boundary; the calls that no longer bind are still found
    assert f"{BENCH_RED}:23: MeanFwdOp(M, N, dtype=torch.float32)" in r.stdout
    assert f"{BENCH_RED}:15:" not in r.stdout
    full = repo.cli("check", "--all-files")
    assert full.returncode == 1, full.stdout + full.stderr
    assert "shallow" not in full.stderr
    assert f"{BENCH_RED}:15: SumFwdOp(M, N, dtype)" in full.stdout
