"""git/commit.py in-process: the follow-up commit from a temporary index, the real index after it, the
three-way merge and the stash check around the user's edits."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from benchop_hook.errors import BenchOpError
from benchop_hook.git.commit import TRAILER, follow_up_commit, merge3, patch_applies
from tests.helpers.repo import files_repo, git


def new_repo(path: Path) -> Path:
    """bench/a.py, bench/b.py (executable) and src/op.py, in one commit."""
    repo = files_repo(path, {"bench/a.py": "A = 1\n", "bench/b.py": "B = 1\n", "src/op.py": "OP = 1\n"})
    os.chmod(path / "bench" / "b.py", 0o755)
    repo.git("commit", "-q", "--amend", "-a", "--no-edit")
    return path


def is_bench(path: str) -> bool:
    return path.startswith("bench/")


def index_of(root: Path) -> str:
    return git(root, "ls-files", "-s")


def test_the_follow_up_commit_holds_the_files_and_keeps_the_users_work(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r")
    head = git(root, "rev-parse", "HEAD").strip()
    (root / "src" / "op.py").write_text("OP = 2\n")
    git(root, "add", "src/op.py")  # the user's staged work
    (root / "bench" / "b.py").write_text("B = 'staged by the user'\n")
    git(root, "add", "bench/b.py")
    hooks = root / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "post-commit").write_text("#!/bin/sh\ntouch hook-ran\n")
    os.chmod(hooks / "post-commit", 0o755)
    message = f"bench-op: align\n\n{TRAILER}\n"
    files = {"bench/a.py": b"A = 2\n", "bench/b.py": b"B = 2\n"}
    res = follow_up_commit(str(root), str(root / ".git"), head, files, message, is_bench)
    assert res.sha == git(root, "rev-parse", "HEAD").strip() and res.files == ["bench/a.py", "bench/b.py"]
    assert res.warnings == []
    assert git(root, "rev-parse", "HEAD~1").strip() == head
    assert git(root, "show", "--format=", "--name-only", "HEAD").split() == ["bench/a.py", "bench/b.py"]
    assert (
        git(root, "show", "HEAD:bench/a.py") == "A = 2\n"
        and git(root, "log", "-1", "--format=%B") == message + "\n"
    )
    assert git(root, "ls-tree", "HEAD", "bench/b.py").split()[0] == "100755", "the file's mode is kept"
    assert not (root / "hook-ran").exists(), "no hook runs for bench-op's own commit"
    # The index follows the commit where it held the old content, and keeps what the user staged.
    index = index_of(root)
    assert git(root, "rev-parse", "HEAD:bench/a.py").strip() in index
    assert git(root, "rev-parse", "HEAD~1:bench/a.py").strip() not in index
    staged = subprocess.run(
        ["git", "hash-object", "--stdin"], cwd=root, input=b"B = 'staged by the user'\n", capture_output=True
    )
    assert staged.stdout.decode().strip() in index
    assert git(root, "diff", "--cached", "--name-only", "HEAD").split() == ["bench/b.py", "src/op.py"]
    assert os.listdir(root / ".git" / "bench-op") == ["no-hooks"], "the temporary index is gone"


def test_no_commit_when_head_moved_or_a_file_is_no_benchmark(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r")
    head = git(root, "rev-parse", "HEAD").strip()
    with pytest.raises(BenchOpError, match=r"refused to commit src/op\.py"):
        follow_up_commit(str(root), str(root / ".git"), head, {"src/op.py": b"X\n"}, "m", is_bench)
    git(root, "commit", "-q", "--allow-empty", "-m", "moved")
    with pytest.raises(BenchOpError, match="HEAD moved while bench-op was running"):
        follow_up_commit(str(root), str(root / ".git"), head, {"bench/a.py": b"X\n"}, "m", is_bench)
    assert git(root, "log", "--format=%s") == "moved\ninitial\n"


def test_the_index_lock_of_another_git_is_waited_for_and_never_deleted(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r")
    head = git(root, "rev-parse", "HEAD").strip()
    lock = root / ".git" / "index.lock"
    lock.write_text("")
    with pytest.raises(BenchOpError, match=r"holds \.git/index\.lock"):
        follow_up_commit(str(root), str(root / ".git"), head, {"bench/a.py": b"X\n"}, "m", is_bench, 0.2)
    assert lock.exists()
    assert git(root, "rev-parse", "HEAD").strip() == head


def test_after_a_cherry_pick_the_commit_is_the_users_own(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r")
    git(root, "checkout", "-q", "-b", "theirs")
    (root / "src" / "op.py").write_text("OP = 3\n")
    git(root, "-c", "user.name=Teammate", "-c", "user.email=t@example.com", "commit", "-q", "-am", "op")
    env = dict(os.environ, GIT_AUTHOR_NAME="Teammate", GIT_AUTHOR_EMAIL="t@example.com")
    subprocess.run(
        ["git", "commit", "-q", "--amend", "--no-edit", "--reset-author"], cwd=root, env=env, check=True
    )
    picked = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "main")
    git(root, "cherry-pick", picked)
    (root / ".git" / "CHERRY_PICK_HEAD").write_text(picked + "\n")  # as git leaves it for post-commit
    head = git(root, "rev-parse", "HEAD").strip()
    follow_up_commit(str(root), str(root / ".git"), head, {"bench/a.py": b"A = 4\n"}, "m", is_bench)
    assert git(root, "log", "-2", "--format=%an") == "Kernel Dev\nTeammate\n"


def test_merge3_puts_the_users_edits_on_top_or_says_they_overlap(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r")
    base = b"a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"
    fixed = base.replace(b"a = 1", b"a = 10")
    user = base.replace(b"e = 5", b"e = 50")
    assert merge3(str(root), base, user, fixed) == b"a = 10\nb = 2\nc = 3\nd = 4\ne = 50\n"
    assert merge3(str(root), base, base.replace(b"a = 1", b"a = 99"), fixed) is None
    assert merge3(str(root), base, base, fixed) == fixed and merge3(str(root), base, user, base) == user


def test_a_stashed_patch_is_checked_against_the_fix(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r")
    head = git(root, "rev-parse", "HEAD").strip()
    (root / "bench" / "a.py").write_text("A = 1\n# the user's line\n")
    patch = git(root, "diff").encode()
    git(root, "checkout", "--", "bench/a.py")
    assert patch_applies(str(root), str(root / ".git"), head, "bench/a.py", b"A = 1\n", patch)
    assert not patch_applies(str(root), str(root / ".git"), head, "bench/a.py", b"A = 2\n", patch)
    assert git(root, "status", "--porcelain") == "", "neither the index nor the tree was touched"
    assert not os.path.exists(root / ".git" / "bench-op" / f"check-index.{os.getpid()}")
