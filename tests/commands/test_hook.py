"""What the hook stages say: why nothing ran, what the user does next, and which commit HEAD is."""

from __future__ import annotations

import subprocess

from tests.helpers.changes import reduction_change
from tests.helpers.process import child_env
from tests.helpers.repo import Repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def _install(repo: Repo) -> None:
    r = repo.cli("install")
    assert r.returncode == 0, r.stderr


def test_pre_commit_stage_names_the_follow_up_stage_not_a_flag(repo: Repo) -> None:
    _install(repo)
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("hook", "pre-commit")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "--no-run" not in r.stdout, r.stdout
    assert "static rewrite only (the follow-up stage runs them after the commit)" in r.stdout, r.stdout
    assert "fixed but not run (the follow-up stage runs them after the commit)" in r.stdout, r.stdout
    assert "git add them, and commit again; the follow-up stage runs them after the commit." in r.stdout


def test_pre_commit_stage_without_a_follow_up_stage_names_the_setting(repo: Repo) -> None:
    repo.replace("pyproject.toml", "[tool.bench-op]\n", '[tool.bench-op]\npre-commit-run = "false"\n')
    repo.commit("no run at the pre-commit stage")
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("hook", "pre-commit")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "--no-run" not in r.stdout, r.stdout
    assert 'fixed but not run (pre-commit-run = "false" in [tool.bench-op])' in r.stdout, r.stdout
    assert "follow-up stage" not in r.stdout, r.stdout


def test_pre_commit_stage_says_the_flag_when_it_was_passed(repo: Repo) -> None:
    _install(repo)
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("hook", "pre-commit", "--no-run")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "fixed but not run (--no-run)" in r.stdout, r.stdout


def test_all_files_asks_for_no_second_commit(repo: Repo) -> None:
    # `pre-commit run bench-op --all-files`: the Op change is committed already, no commit is in progress
    _install(repo)
    reduction_change(repo)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "reduce", env={"BENCH_OP_FOLLOW_UP": "1"})
    r = repo.cli("hook", "pre-commit", BENCH_RED)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "commit again" not in r.stdout and "--no-run" not in r.stdout, r.stdout
    assert "after the commit" not in r.stdout, r.stdout
    last = r.stdout.splitlines()[-1]
    assert last == (
        f"bench-op: rewrote 1 benchmark file to bind the current Op signatures ({BENCH_RED}): review them "
        "(git diff), then git add and commit them; `bench-op run --all-files` runs them."
    ), r.stdout


def test_the_last_line_of_the_follow_up_stage_names_both_commits(repo: Repo) -> None:
    _install(repo)
    reduction_change(repo)
    repo.git("add", "-A")
    # One stream, as a terminal shows it: git sends a hook's output to its stderr, its summary to stdout.
    r = subprocess.run(
        ["git", "commit", "-m", "reduce: rows come from the input"],
        cwd=repo.path,
        env=child_env(None),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
        check=False,
    )
    assert r.returncode == 0, r.stdout
    follow_up, yours = repo.git("rev-parse", "HEAD", "HEAD~1").split()
    assert repo.log()[1] == "reduce: rows come from the input"
    lines = r.stdout.splitlines()
    ours = [ln for ln in lines if ln.startswith("bench-op: ")]
    assert ours[-1] == (
        f"bench-op: HEAD is now the follow-up commit {follow_up[:12]}, on top of your commit {yours[:12]}."
    ), r.stdout
    # git prints its own summary of the user's commit only after the hook has returned
    summary = next(i for i, ln in enumerate(lines) if ln.startswith(f"[main {yours[:7]}"))
    assert lines.index(ours[-1]) < summary, r.stdout


def test_follow_up_stage_that_runs_nothing_names_the_setting(repo: Repo) -> None:
    repo.replace("pyproject.toml", "[tool.bench-op]\n", '[tool.bench-op]\nrun-after-commit = "never"\n')
    repo.commit("commit the static fixes without a run")
    _install(repo)
    reduction_change(repo)
    repo.git("add", "-A")
    r = subprocess.run(
        ["git", "commit", "-m", "reduce"],
        cwd=repo.path,
        env=child_env(None),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "--no-run" not in r.stderr, r.stderr
    assert 'fixed but not run (run-after-commit = "never" in [tool.bench-op])' in r.stderr, r.stderr
    assert r.stderr.splitlines()[-1].startswith("bench-op: HEAD is now the follow-up commit "), r.stderr
