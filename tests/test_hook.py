"""The hook end to end with the real tools: git commit / git merge with pre-commit installed,
`pre-commit run bench-op --all-files`, and the same without pre-commit through `bench-op install`.

Around every change there are unstaged edits and untracked files; they must come out byte for
byte the same and in no commit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROJECT, REDUCTION_N_DIM, Repo, git, make_repo, reduction_change

BENCH_RED = "benchmarks/ops/bench_reduction.py"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def project_rev(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This checkout as it is now (committed or not), as a git repo pre-commit can clone."""
    dest = tmp_path_factory.mktemp("bench-op-src")
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=PROJECT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        src = PROJECT / f
        if src.is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "snapshot")
    return dest, git(dest, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def pre_commit(repo: Repo, *args: str, home: Path, check: bool = False) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PRE_COMMIT_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=repo.path, capture_output=True, text=True,
                          env=env, check=check, timeout=900)


def with_pre_commit(repo: Repo, project_rev: tuple[Path, str], home: Path,
                    hook_types: tuple[str, ...] = ("post-commit", "post-merge")) -> None:
    src, rev = project_rev
    repo.write(".pre-commit-config.yaml", f"""repos:
  - repo: {src}
    rev: {rev}
    hooks:
      - id: bench-op
      - id: bench-op-follow-up
""")
    repo.commit("use bench-op through pre-commit")
    r = pre_commit(repo, "install", *(a for t in hook_types for a in ("--hook-type", t)), home=home)
    assert r.returncode == 0, r.stdout + r.stderr
    r = pre_commit(repo, "install-hooks", home=home)
    assert r.returncode == 0, r.stdout + r.stderr


def user_work(repo: Repo) -> dict[str, bytes]:
    """Unstaged edits (one in the very benchmark file bench-op fixes) and untracked files."""
    repo.write("benchmarks/ops/bench_norm.py", repo.read("benchmarks/ops/bench_norm.py") + "# unstaged note\n")
    repo.write(BENCH_RED, "# my unstaged idea, far from the calls\n" + repo.read(BENCH_RED))
    repo.write("notes/untracked.txt", "scratch\n")
    repo.write("benchmarks/ops/bench_new_untracked.py", "# not added yet\n")
    return {p: (repo.path / p).read_bytes() for p in ("benchmarks/ops/bench_norm.py", "notes/untracked.txt",
                                                      "benchmarks/ops/bench_new_untracked.py")}


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
    repo.git("commit", "-q", "-m", msg, env=dict(os.environ, BENCH_OP_FOLLOW_UP="1", SKIP="bench-op-follow-up"))


def commit_op_change(repo: Repo, *, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    reduction_change(repo)
    repo.git("add", "src", "tests")
    env = dict(os.environ, **(extra_env or {}))
    return subprocess.run(["git", "commit", "-m", "reduce: rows come from the input"], cwd=repo.path,
                          capture_output=True, text=True, env=env, timeout=900)


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
    commit_without_bench_op(repo, "reduce: rows come from the input")  # a colleague's branch, without bench-op
    repo.git("checkout", "-q", "main")
    repo.write("README.txt", "main moved on\n")
    repo.commit("main moves on")
    work = user_work(repo)
    env = dict(os.environ, PRE_COMMIT_HOME=str(pre_commit_home))
    r = subprocess.run(["git", "merge", "--no-edit", "ops"], cwd=repo.path, capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    subjects = repo.log()
    assert subjects[0] == "bench-op: align bench_reduction.py with the new ReduceOp interface", r.stdout + r.stderr
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
    assert "rewrote 1 benchmark file for the new Op interface" in r.stdout
    assert "git add them, and commit again" in r.stdout
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)
    assert repo.git("diff", "--cached") == "", "pre-commit's convention: the staging area is never touched"


def test_pre_commit_stage_fixes_the_tree_and_stops_the_commit(tmp_path, project_rev, pre_commit_home) -> None:
    repo = make_repo(tmp_path / "r")
    with_pre_commit(repo, project_rev, pre_commit_home, hook_types=("pre-commit",))
    head = repo.head()
    reduction_change(repo)
    repo.git("add", "src", "tests")
    staged = repo.git("diff", "--cached")
    env = dict(os.environ, PRE_COMMIT_HOME=str(pre_commit_home))
    r = subprocess.run(["git", "commit", "-m", "reduce"], cwd=repo.path, capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode != 0 and repo.head() == head
    assert "commit again" in r.stdout + r.stderr
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)
    assert repo.git("diff", "--cached") == staged


def test_blocked_follow_up_commits_nothing_and_keeps_the_tree(tmp_path, project_rev, pre_commit_home) -> None:
    repo = make_repo(tmp_path / "r")
    with_pre_commit(repo, project_rev, pre_commit_home)
    work = user_work(repo)
    tree = repo.snapshot()
    crashing = REDUCTION_N_DIM.replace("    def forward(self, x):\n",
                                       "    def forward(self, x):\n        raise RuntimeError('CUDA error: unspecified launch failure')\n", 1)
    repo.write("src/minitile/ops/reduction.py", crashing)
    repo.git("add", "src")
    env = dict(os.environ, PRE_COMMIT_HOME=str(pre_commit_home))
    r = subprocess.run(["git", "commit", "-m", "reduce: broken kernel"], cwd=repo.path, capture_output=True, text=True, env=env, timeout=900)
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
    r = repo.bench_op("install")
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
    r = repo.bench_op("run", "--from-ref", "HEAD~2", "--to-ref", "HEAD~1", "--no-commit")
    assert len(repo.log()) == 3


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
    r = subprocess.run(["git", "merge", "--no-edit", "ops"], cwd=repo.path, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    assert repo.log()[0] == "bench-op: align bench_reduction.py with the new ReduceOp interface", r.stdout + r.stderr
    assert_user_work_kept(repo, work)


def test_install_chains_and_uninstall_restores(tmp_path) -> None:
    repo = make_repo(tmp_path / "r")
    hooks = repo.path / "custom-hooks"
    hooks.mkdir()
    repo.git("config", "core.hooksPath", "custom-hooks")
    mine = hooks / "post-commit"
    mine.write_text("#!/bin/sh\necho my-own-hook-ran >> \"$(git rev-parse --show-toplevel)/hook.log\"\n")
    mine.chmod(0o755)
    install(repo)
    assert (hooks / "post-commit.before-bench-op").exists()
    assert "bench-op hook:" in (hooks / "post-commit").read_text()
    r = commit_op_change(repo)
    assert r.returncode == 0
    assert repo.log()[0].startswith("bench-op: align")
    assert (repo.path / "hook.log").read_text().count("my-own-hook-ran") == 1  # not again for the follow-up
    r = repo.bench_op("uninstall")
    assert r.returncode == 0 and "previous hook is back" in r.stdout
    assert mine.read_text().startswith("#!/bin/sh\necho my-own-hook-ran")
    assert not (hooks / "post-commit.before-bench-op").exists() and not (hooks / "post-merge").exists()


def test_hooks_folder_scripts_are_what_install_writes() -> None:
    from benchop_hook.commands.install import script

    for name in ("post-commit", "post-merge"):
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
    # An interactive rebase that stops after replaying the Op commit: post-commit runs but must not act.
    env = dict(os.environ, GIT_SEQUENCE_EDITOR="sed -i -e '1s/^pick/edit/'")
    r = subprocess.run(["git", "rebase", "-i", base], cwd=repo.path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    # amend while stopped: post-commit fires with a rebase in progress
    r = subprocess.run(["git", "commit", "--amend", "--no-edit"], cwd=repo.path, capture_output=True, text=True)
    assert r.returncode == 0
    assert "rebase is in progress: skipped" in r.stdout + r.stderr
    assert not repo.log()[0].startswith("bench-op")
    subprocess.run(["git", "rebase", "--abort"], cwd=repo.path, check=True)


def test_detached_head_works(tmp_path) -> None:
    repo = make_repo(tmp_path / "r")
    install(repo)
    repo.git("checkout", "-q", "--detach")
    r = commit_op_change(repo)
    assert r.returncode == 0
    assert repo.log()[0].startswith("bench-op: align")
    assert repo.git("branch", "--show-current").strip() == ""


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


def test_fix_next_to_stashed_edits_leaves_that_file_alone(tmp_path, project_rev, pre_commit_home) -> None:
    """pre-commit restores its stash with `git apply` after the hooks: a fix touching the same lines would
    make that fail, so bench-op leaves that file as the user has it and saves the fix as a patch."""
    repo = make_repo(tmp_path / "r")
    with_pre_commit(repo, project_rev, pre_commit_home)
    repo.replace(BENCH_RED, "    op = SumFwdOp(M, N, dtype)\n", "    op = SumFwdOp(M, N, dtype)  # my unstaged comment\n")
    mine = (repo.path / BENCH_RED).read_bytes()
    r = commit_op_change(repo, extra_env={"PRE_COMMIT_HOME": str(pre_commit_home)})
    out = r.stdout + r.stderr
    assert repo.log()[0] == "reduce: rows come from the input", out
    assert (repo.path / BENCH_RED).read_bytes() == mine
    assert "overlaps your unstaged edits" in out and ".patch" in out
