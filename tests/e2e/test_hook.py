"""The hook end to end with the real tools: git commit / git merge with pre-commit installed,
`pre-commit run bench-op --all-files`, and the same without pre-commit through `bench-op install`.

Around every change there are unstaged edits and untracked files; they must come out byte for
byte the same and in no commit.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers.changes import REDUCTION_N_DIM, reduction_change
from tests.helpers.precommit import pre_commit, with_pre_commit
from tests.helpers.process import run
from tests.helpers.repo import PROJECT, Repo, git, make_repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"
pytestmark = pytest.mark.slow


def user_work(repo: Repo) -> dict[str, bytes]:
    """Unstaged edits (one in the very benchmark file bench-op fixes) and untracked files."""
    repo.write(
        "benchmarks/ops/bench_norm.py", repo.read("benchmarks/ops/bench_norm.py") + "# unstaged note\n"
    )
    repo.write(BENCH_RED, "# my unstaged idea, far from the calls\n" + repo.read(BENCH_RED))
    repo.write("notes/untracked.txt", "scratch\n")
    repo.write("benchmarks/ops/bench_new_untracked.py", "# not added yet\n")
    return {
        p: (repo.path / p).read_bytes()
        for p in (
            "benchmarks/ops/bench_norm.py",
            "notes/untracked.txt",
            "benchmarks/ops/bench_new_untracked.py",
        )
    }


def assert_user_work_kept(repo: Repo, work: dict[str, bytes]) -> None:
    for p, data in work.items():
        assert (repo.path / p).read_bytes() == data, f"{p} changed"
    status = repo.git("status", "--porcelain", "--untracked-files=all")
    assert "?? notes/untracked.txt" in status and "?? benchmarks/ops/bench_new_untracked.py" in status
    assert " M benchmarks/ops/bench_norm.py" in status
    # In no commit:
    every = repo.git("log", "--all", "--format=", "--name-only")
    assert "notes/untracked.txt" not in every and "bench_new_untracked.py" not in every
    assert "unstaged" not in repo.git("log", "--all", "-p", "--format=")


def commit_without_bench_op(repo: Repo, msg: str) -> None:
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", msg, env={"BENCH_OP_FOLLOW_UP": "1", "SKIP": "bench-op-follow-up"})


def commit_op_change(
    repo: Repo, *, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    reduction_change(repo)
    repo.git("add", "src", "tests")
    return run(["git", "commit", "-m", "reduce: rows come from the input"], repo.path, env=extra_env)


def assert_follow_up(repo: Repo, output: str) -> None:
    subjects = repo.log()
    assert subjects[0] == "bench-op: align bench_reduction.py with the new ReduceOp interface", output
    assert subjects[1] == "reduce: rows come from the input"
    files = repo.git("show", "--format=", "--name-only", "HEAD").split()
    assert files == [BENCH_RED]
    body = repo.git("log", "-1", "--format=%B")
    assert "Bench-Op: follow-up" in body and "SumFwdOp(M, N, dtype) -> SumFwdOp(N, dtype)" in body
    assert "latency" in body
    committed = repo.git("show", f"HEAD:{BENCH_RED}")
    assert "op = SumFwdOp(N, dtype)" in committed and "my unstaged idea" not in committed
    # The user's unstaged edit sits on top of the fix in the working tree.
    text = repo.read(BENCH_RED)
    assert "op = SumFwdOp(N, dtype)" in text and "my unstaged idea" in text
    assert repo.git("diff", "--cached") == "", "the staging area holds nothing new"


def test_pre_commit_post_commit_makes_the_follow_up(tmp_path, project_rev, pre_commit_home) -> None:
    repo = make_repo(tmp_path / "r")
    with_pre_commit(repo, project_rev, pre_commit_home)
    work = user_work(repo)
    r = commit_op_change(repo, extra_env={"PRE_COMMIT_HOME": str(pre_commit_home)})
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout + r.stderr
    assert_follow_up(repo, out)
    assert_user_work_kept(repo, {**work})
    assert "bench-op follow-up commit" in out and "passed with numbers" in out


def test_pre_commit_post_merge_makes_the_follow_up(tmp_path, project_rev, pre_commit_home) -> None:
    repo = make_repo(tmp_path / "r")
    with_pre_commit(repo, project_rev, pre_commit_home)
    repo.git("checkout", "-q", "-b", "ops")
    reduction_change(repo)
    commit_without_bench_op(
        repo, "reduce: rows come from the input"
    )  # a colleague's branch, without bench-op
    repo.git("checkout", "-q", "main")
    repo.write("README.txt", "main moved on\n")
    repo.commit("main moves on")
    work = user_work(repo)
    r = run(["git", "merge", "--no-edit", "ops"], repo.path, env={"PRE_COMMIT_HOME": str(pre_commit_home)})
    assert r.returncode == 0, r.stdout + r.stderr
    subjects = repo.log()
    assert subjects[0] == "bench-op: align bench_reduction.py with the new ReduceOp interface", (
        r.stdout + r.stderr
    )
    assert subjects[1].startswith("Merge branch 'ops'")
    assert repo.git("show", "--format=", "--name-only", "HEAD").split() == [BENCH_RED]
    assert_user_work_kept(repo, work)


def test_pre_commit_run_all_files_fixes_and_fails(tmp_path, project_rev, pre_commit_home) -> None:
    repo = make_repo(tmp_path / "r")
    with_pre_commit(repo, project_rev, pre_commit_home)
    reduction_change(repo)
    commit_without_bench_op(repo, "reduce: rows come from the input")  # the benchmark is broken now
    r = pre_commit(repo, "run", "bench-op", "--all-files", home=pre_commit_home)
    assert r.returncode == 1
    assert "rewrote 1 benchmark file to bind the current Op signatures" in r.stdout
    assert "then git add and commit them" in r.stdout and "commit again" not in r.stdout
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)
    assert repo.git("diff", "--cached") == "", "pre-commit's convention: the staging area is never touched"


def test_pre_commit_stage_fixes_the_tree_and_stops_the_commit(tmp_path, project_rev, pre_commit_home) -> None:
    repo = make_repo(tmp_path / "r")
    with_pre_commit(repo, project_rev, pre_commit_home, hook_types=("pre-commit",))
    head = repo.head()
    reduction_change(repo)
    repo.git("add", "src", "tests")
    staged = repo.git("diff", "--cached")
    r = run(["git", "commit", "-m", "reduce"], repo.path, env={"PRE_COMMIT_HOME": str(pre_commit_home)})
    assert r.returncode != 0 and repo.head() == head
    assert "commit again" in r.stdout + r.stderr
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)
    assert repo.git("diff", "--cached") == staged


def test_blocked_follow_up_commits_nothing_and_keeps_the_tree(tmp_path, project_rev, pre_commit_home) -> None:
    repo = make_repo(tmp_path / "r")
    with_pre_commit(repo, project_rev, pre_commit_home)
    work = user_work(repo)
    tree = repo.snapshot()
    crashing = REDUCTION_N_DIM.replace(
        "    def forward(self, x):\n",
        "    def forward(self, x):\n        raise RuntimeError('CUDA error: unspecified launch failure')\n",
        1,
    )
    repo.write("src/minitile/ops/reduction.py", crashing)
    repo.git("add", "src")
    r = run(
        ["git", "commit", "-m", "reduce: broken kernel"],
        repo.path,
        env={"PRE_COMMIT_HOME": str(pre_commit_home)},
    )
    out = r.stdout + r.stderr
    assert repo.log()[0] == "reduce: broken kernel", "the user's commit stays, and nothing follows it"
    assert "RuntimeError: CUDA error: unspecified launch failure" in out
    assert "no follow-up commit" in out
    after = repo.snapshot()
    tree["src/minitile/ops/reduction.py"] = crashing.encode()
    assert after == tree
    assert_user_work_kept(repo, work)


# -- without pre-commit


def install(repo: Repo) -> None:
    r = repo.cli("install")
    assert r.returncode == 0, r.stderr


def test_installed_hooks_commit(tmp_path) -> None:
    repo = make_repo(tmp_path / "r")
    install(repo)
    work = user_work(repo)
    r = commit_op_change(repo)
    assert r.returncode == 0, r.stderr
    assert_follow_up(repo, r.stdout + r.stderr)
    assert_user_work_kept(repo, work)
    # The follow-up triggers no other follow-up, and running again changes nothing.
    assert len(repo.log()) == 3
    tree = repo.snapshot()
    r = repo.bench_op("run", "--from-ref", "HEAD~2", "--to-ref", "HEAD~1", "--no-commit")
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.snapshot() == tree and len(repo.log()) == 3


def test_installed_hooks_merge(tmp_path) -> None:
    repo = make_repo(tmp_path / "r")
    install(repo)
    repo.git("checkout", "-q", "-b", "ops")
    reduction_change(repo)
    commit_without_bench_op(repo, "reduce: rows come from the input")
    repo.git("checkout", "-q", "main")
    repo.write("README.txt", "main moved on\n")
    repo.commit("main moves on")
    work = user_work(repo)
    r = run(["git", "merge", "--no-edit", "ops"], repo.path)
    assert r.returncode == 0, r.stderr
    assert repo.log()[0] == "bench-op: align bench_reduction.py with the new ReduceOp interface", (
        r.stdout + r.stderr
    )
    assert_user_work_kept(repo, work)


def test_install_chains_and_uninstall_restores(tmp_path) -> None:
    repo = make_repo(tmp_path / "r")
    hooks = repo.path / "custom-hooks"
    hooks.mkdir()
    repo.git("config", "core.hooksPath", "custom-hooks")
    mine = hooks / "post-commit"
    mine.write_text('#!/bin/sh\necho my-own-hook-ran >> "$(git rev-parse --show-toplevel)/hook.log"\n')
    mine.chmod(0o755)
    install(repo)
    assert (hooks / "post-commit.before-bench-op").exists()
    assert "bench-op hook:" in (hooks / "post-commit").read_text()
    r = commit_op_change(repo)
    assert r.returncode == 0
    assert repo.log()[0].startswith("bench-op: align")
    assert (repo.path / "hook.log").read_text().count("my-own-hook-ran") == 1  # not again for the follow-up
    r = repo.cli("uninstall")
    assert r.returncode == 0 and "previous hook is back" in r.stdout
    assert mine.read_text().startswith("#!/bin/sh\necho my-own-hook-ran")
    assert not (hooks / "post-commit.before-bench-op").exists() and not (hooks / "post-merge").exists()


def test_hooks_folder_scripts_are_what_install_writes() -> None:
    from benchop_hook.commands.install import script

    for name in ("post-commit", "post-merge", "post-rewrite"):
        assert (PROJECT / "hooks" / name).read_text() == script(name)
        assert os.access(PROJECT / "hooks" / name, os.X_OK)


def test_rebase_in_progress_is_left_alone(tmp_path) -> None:
    repo = make_repo(tmp_path / "r")
    install(repo)
    base = repo.head()
    reduction_change(repo)
    repo.commit("reduce")
    repo.write("README.txt", "x\n")
    repo.commit("readme")
    before = repo.log()
    # An interactive rebase that stops after replaying the Op commit: post-commit runs but must not act.
    r = run(
        ["git", "rebase", "-i", base], repo.path, env={"GIT_SEQUENCE_EDITOR": "sed -i -e '1s/^pick/edit/'"}
    )
    assert r.returncode == 0, r.stderr
    # amend while stopped: post-commit fires with a rebase in progress
    r = run(["git", "commit", "--amend", "--no-edit"], repo.path)
    assert r.returncode == 0
    assert "bench-op" not in r.stdout + r.stderr, "quiet: the rebase is handled once, at its end"
    assert not repo.log()[0].startswith("bench-op")
    # At its end, post-rewrite compares the trees before and after the rebase: the same, so nothing runs.
    r = run(["git", "rebase", "--continue"], repo.path)
    assert r.returncode == 0, r.stderr
    assert "bench-op: " not in r.stdout + r.stderr and repo.log() == before


def test_detached_head_works(tmp_path) -> None:
    repo = make_repo(tmp_path / "r")
    install(repo)
    repo.git("checkout", "-q", "--detach")
    r = commit_op_change(repo)
    assert r.returncode == 0
    assert repo.log()[0].startswith("bench-op: align")
    assert repo.git("branch", "--show-current").strip() == ""


def test_fix_next_to_stashed_edits_leaves_that_file_alone(tmp_path, project_rev, pre_commit_home) -> None:
    """pre-commit restores its stash with `git apply` after the hooks: a fix touching the same lines would
    make that fail, so bench-op leaves that file as the user has it and saves the fix as a patch."""
    repo = make_repo(tmp_path / "r")
    with_pre_commit(repo, project_rev, pre_commit_home)
    repo.replace(
        BENCH_RED,
        "    op = SumFwdOp(M, N, dtype)\n",
        "    op = SumFwdOp(M, N, dtype)  # my unstaged comment\n",
    )
    mine = (repo.path / BENCH_RED).read_bytes()
    r = commit_op_change(repo, extra_env={"PRE_COMMIT_HOME": str(pre_commit_home)})
    out = r.stdout + r.stderr
    assert repo.log()[0] == "reduce: rows come from the input", out
    assert (repo.path / BENCH_RED).read_bytes() == mine
    assert "overlaps your unstaged edits" in out and ".patch" in out


# -- every way an Op change arrives: pull --rebase, rebase, cherry-pick, revert

FOLLOW_UP_SUBJECT = "bench-op: align bench_reduction.py with the new ReduceOp interface"


HOOK_TYPES = ("post-commit", "post-merge", "post-rewrite")


def hooked(repo: Repo, mode: str, project_rev: tuple[Path, str], home: Path) -> dict[str, str]:
    """bench-op's follow-up in place through `bench-op install` or pre-commit; the variables git runs
    with."""
    if mode == "install":
        install(repo)
    else:
        with_pre_commit(repo, project_rev, home, hook_types=HOOK_TYPES)
    return {"PRE_COMMIT_HOME": str(home), "GIT_EDITOR": "true"}


def run_git(repo: Repo, env: dict[str, str], *args: str, ok: bool = True) -> str:
    r = run(["git", *args], repo.path, env=env)
    out = r.stdout + r.stderr
    if ok:
        assert r.returncode == 0, out
    return out


def assert_one_follow_up(repo: Repo, out: str, below: str) -> None:
    """One follow-up commit, on top, right after `below`, with only
    the benchmark file, which binds and ran.
    """
    subjects = repo.log()
    assert subjects[0] == FOLLOW_UP_SUBJECT, out
    assert subjects[1] == below, out
    assert repo.git("show", "--format=", "--name-only", "HEAD").split() == [BENCH_RED]
    bodies = repo.git("log", "--format=%B%x00").split("\0")
    assert sum("Bench-Op: follow-up" in b for b in bodies) == 1, "nothing runs twice"
    assert out.count("bench-op: committed") == 1, out
    body = bodies[0]
    assert "SumFwdOp(M, N, dtype) -> SumFwdOp(N, dtype)" in body and "latency" in body, body
    assert "op = SumFwdOp(N, dtype)" in repo.git("show", f"HEAD:{BENCH_RED}")
    # The benchmarks bind the Ops at HEAD now: nothing is left to report.
    r = repo.cli("check", "--all-files")
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.git("diff", "--cached") == ""


def assert_work_back(repo: Repo, work: dict[str, bytes]) -> None:
    assert_user_work_kept(repo, work)
    text = repo.read(BENCH_RED)
    assert "op = SumFwdOp(N, dtype)" in text and "my unstaged idea" in text


MODES = pytest.mark.parametrize("mode", ["install", "pre-commit"])


@MODES
def test_pull_rebase_brings_an_op_change_under_local_commits(
    tmp_path, project_rev, pre_commit_home, mode
) -> None:
    seed = make_repo(tmp_path / "seed")
    git(tmp_path, "clone", "-q", "--bare", str(seed.path), "up.git")
    git(tmp_path, "clone", "-q", "up.git", "mine")
    git(tmp_path, "clone", "-q", "up.git", "theirs")
    mine, theirs = Repo(tmp_path / "mine"), Repo(tmp_path / "theirs")
    env = hooked(mine, mode, project_rev, pre_commit_home)
    mine.write("README.txt", "my local work\n")
    mine.commit("my local commit")
    reduction_change(theirs)
    theirs.commit("reduce: rows come from the input")  # a teammate, without bench-op
    theirs.git("push", "-q", "origin", "main")
    work = user_work(mine)
    out = run_git(mine, env, "pull", "--rebase", "--autostash")
    assert_one_follow_up(mine, out, "my local commit")
    assert "reduce: rows come from the input" in mine.log()[2:]
    assert "conflict" not in out.lower(), out
    assert_work_back(mine, work)


@MODES
def test_feature_branch_rebased_onto_main_after_a_conflict(
    tmp_path, project_rev, pre_commit_home, mode
) -> None:
    repo = make_repo(tmp_path / "r")
    env = hooked(repo, mode, project_rev, pre_commit_home)
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("README.txt", "feature\n")
    commit_without_bench_op(repo, "feature: readme")
    repo.write("notes.txt", "more\n")
    commit_without_bench_op(repo, "feature: notes")
    repo.git("checkout", "-q", "main")
    reduction_change(repo)
    repo.write("README.txt", "main\n")
    commit_without_bench_op(repo, "reduce: rows come from the input")
    repo.git("checkout", "-q", "feature")
    work = user_work(repo)
    out = run_git(repo, env, "rebase", "--autostash", "main", ok=False)
    assert "CONFLICT" in out and "bench-op: committed" not in out
    assert not repo.log()[0].startswith("bench-op"), "nothing happens in the middle of the rebase"
    repo.write("README.txt", "main and feature\n")
    repo.git("add", "README.txt")
    out = run_git(repo, env, "rebase", "--continue")
    assert_one_follow_up(repo, out, "feature: notes")
    assert repo.log()[1:4] == ["feature: notes", "feature: readme", "reduce: rows come from the input"]
    assert_work_back(repo, work)


def op_branch(repo: Repo, before: tuple[str, ...] = (), after: tuple[str, ...] = ()) -> list[str]:
    """A teammate's branch `ops`: commits touching `before` files, the Op change, then `after` files."""
    repo.git("checkout", "-q", "-b", "ops")
    shas = []
    teammate = {
        "GIT_AUTHOR_NAME": "Teammate",
        "GIT_AUTHOR_EMAIL": "mate@example.com",
        "BENCH_OP_FOLLOW_UP": "1",
        "SKIP": "bench-op-follow-up",
    }
    for i, path in enumerate(before):
        repo.write(path, f"ops before {i}\n")
        repo.git("add", "-A")
        repo.git("commit", "-q", "-m", f"ops: {path}", env=teammate)
        shas.append(repo.head())
    reduction_change(repo)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "reduce: rows come from the input", env=teammate)
    shas.append(repo.head())
    for i, path in enumerate(after):
        repo.write(path, f"ops after {i}\n")
        repo.git("add", "-A")
        repo.git("commit", "-q", "-m", f"ops: {path}", env=teammate)
        shas.append(repo.head())
    repo.git("checkout", "-q", "main")
    return shas


@MODES
def test_single_cherry_pick(tmp_path, project_rev, pre_commit_home, mode) -> None:
    repo = make_repo(tmp_path / "r")
    env = hooked(repo, mode, project_rev, pre_commit_home)
    (op,) = op_branch(repo)
    work = user_work(repo)
    out = run_git(repo, env, "cherry-pick", op)
    assert_one_follow_up(repo, out, "reduce: rows come from the input")
    assert "in progress" not in out
    # The follow-up is the user's, not the picked commit's author's.
    assert repo.log("%an")[:2] == ["Kernel Dev", "Teammate"]
    assert_work_back(repo, work)


@MODES
def test_multi_commit_cherry_pick_is_handled_once_after_its_last_commit(
    tmp_path, project_rev, pre_commit_home, mode
) -> None:
    repo = make_repo(tmp_path / "r")
    env = hooked(repo, mode, project_rev, pre_commit_home)
    shas = op_branch(repo, before=("notes/a.txt",), after=("notes/b.txt", "notes/c.txt"))
    work = user_work(repo)
    out = run_git(repo, env, "cherry-pick", *shas)
    assert_one_follow_up(repo, out, "ops: notes/c.txt")
    assert repo.log()[1:5] == [
        "ops: notes/c.txt",
        "ops: notes/b.txt",
        "reduce: rows come from the input",
        "ops: notes/a.txt",
    ]
    assert not (Path(repo.path) / ".git" / "bench-op" / "sequence").exists()
    assert_work_back(repo, work)


@MODES
def test_cherry_pick_stopped_by_a_conflict_runs_on_continue(
    tmp_path, project_rev, pre_commit_home, mode
) -> None:
    repo = make_repo(tmp_path / "r")
    env = hooked(repo, mode, project_rev, pre_commit_home)
    shas = op_branch(repo, before=("README.txt",), after=("notes/b.txt",))
    repo.write("README.txt", "main's own readme\n")
    repo.commit("main: readme")
    work = user_work(repo)
    out = run_git(repo, env, "cherry-pick", *shas, ok=False)
    assert "CONFLICT" in out and "bench-op: committed" not in out
    assert repo.log()[0] == "main: readme"
    repo.write("README.txt", "both\n")
    repo.git("add", "README.txt")
    out = run_git(repo, env, "cherry-pick", "--continue")
    assert_one_follow_up(repo, out, "ops: notes/b.txt")
    assert repo.log()[1:4] == ["ops: notes/b.txt", "reduce: rows come from the input", "ops: README.txt"]
    assert_work_back(repo, work)


@MODES
def test_cherry_pick_whose_last_commit_conflicts(tmp_path, project_rev, pre_commit_home, mode) -> None:
    """`--continue` checks right after its last commit that HEAD still matches the index it read before:
    bench-op says so and leaves the follow-up to `bench-op run` or the next commit, which handles the pick."""
    repo = make_repo(tmp_path / "r")
    env = hooked(repo, mode, project_rev, pre_commit_home)
    shas = op_branch(repo, after=("README.txt",))
    repo.write("README.txt", "main's own readme\n")
    repo.commit("main: readme")
    out = run_git(repo, env, "cherry-pick", *shas, ok=False)
    assert "CONFLICT" in out and "bench-op: committed" not in out
    repo.write("README.txt", "both\n")
    repo.git("add", "README.txt")
    out = run_git(repo, env, "cherry-pick", "--continue")
    # (through pre-commit, bench-op is named by its path in pre-commit's environment)
    assert re.search(r"bench-op cannot commit now: run `\S*bench-op run --from-ref", out), out
    assert repo.log()[0] == "ops: README.txt" and "Bench-Op" not in repo.git("log", "--format=%B")
    work = user_work(repo)
    repo.write("notes/next.txt", "next\n")
    repo.git("add", "notes/next.txt")
    out = run_git(repo, env, "commit", "-m", "next")
    assert_one_follow_up(repo, out, "next")
    assert_work_back(repo, work)


@MODES
def test_revert_that_brings_back_an_op_change(tmp_path, project_rev, pre_commit_home, mode) -> None:
    repo = make_repo(tmp_path / "r")
    env = hooked(repo, mode, project_rev, pre_commit_home)
    reduction_change(repo)
    commit_without_bench_op(repo, "reduce: rows come from the input")
    repo.git(
        "revert", "--no-edit", "HEAD", env={**env, "BENCH_OP_FOLLOW_UP": "1", "SKIP": "bench-op-follow-up"}
    )
    undo = repo.head()
    work = user_work(repo)
    out = run_git(repo, env, "revert", "--no-edit", undo)
    below = repo.log()[1]
    assert below.startswith('Revert "Revert'), below
    assert_one_follow_up(repo, out, below)
    assert_work_back(repo, work)


def test_installed_post_rewrite_passes_its_argument_and_input_on(tmp_path) -> None:
    """A post-rewrite hook the user had runs after bench-op's with git's argument and stdin; an amend does
    nothing."""
    repo = make_repo(tmp_path / "r")
    hooks = repo.path / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    mine = hooks / "post-rewrite"
    mine.write_text('#!/bin/sh\n{ echo "arg=$1"; cat; } > "$(git rev-parse --show-toplevel)/rewrite.log"\n')
    mine.chmod(0o755)
    install(repo)
    assert "bench-op hook: post-rewrite" in mine.read_text()
    old = repo.head()
    r = run(["git", "commit", "--amend", "-m", "renamed"], repo.path)
    assert r.returncode == 0, r.stderr
    assert "bench-op" not in r.stdout + r.stderr
    assert (repo.path / "rewrite.log").read_text() == f"arg=amend\n{old} {repo.head()}\n"
    assert repo.log() == ["renamed"]
