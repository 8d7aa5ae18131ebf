"""git/snapshots.py in-process: a commit, the staged index and the working tree, as the static pass reads
them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from benchop_hook.git.snapshots import GitSnapshot, WorkTree, list_tracked
from tests.helpers.repo import files_repo, git


def test_a_commit_lists_and_reads_its_regular_files_only(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", {"a.py": "A\n", "pkg/b.py": "B\n", "run.sh": "#!/bin/sh\n"}).path
    os.chmod(root / "run.sh", 0o755)
    os.symlink("a.py", root / "link.py")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a link, an executable")
    snap = GitSnapshot(str(root), "HEAD")
    assert snap.paths() == ["a.py", "pkg/b.py", "run.sh"]
    assert snap.read("pkg/b.py") == b"B\n" and snap.read("run.sh") == b"#!/bin/sh\n"
    assert snap.read("link.py") is None and snap.read("missing.py") is None
    assert GitSnapshot(str(root), "HEAD~1").paths() == ["a.py", "pkg/b.py", "run.sh"]
    snap.close()


def test_prefetch_reads_many_blobs_and_later_reads_take_them(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", {f"m{k:03}.py": f"X = {k}\n" for k in range(130)}).path
    snap = GitSnapshot(str(root), "HEAD")
    snap.prefetch(snap.paths())
    snap.close()  # nothing is left to ask cat-file: every read is answered from what was fetched
    assert [snap.read(p) for p in snap.paths()] == [f"X = {k}\n".encode() for k in range(130)]
    assert snap._reader.pid is None


def test_the_staged_snapshot_is_the_index_the_commit_will_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = files_repo(tmp_path / "r", {"a.py": "A\n"}).path
    (root / "a.py").write_text("A staged\n")
    git(root, "add", "a.py")
    (root / "a.py").write_text("A on disk\n")
    (root / "b.py").write_text("B\n")
    temp_index = root / ".git" / "next-index.lock"
    env = dict(os.environ, GIT_INDEX_FILE=str(temp_index))
    subprocess.run(["git", "read-tree", "HEAD"], cwd=root, env=env, check=True)
    subprocess.run(["git", "add", "b.py"], cwd=root, env=env, check=True)
    staged = GitSnapshot(str(root), None)
    assert staged.paths() == ["a.py"] and staged.read("a.py") == b"A staged\n"
    monkeypatch.setenv("GIT_INDEX_FILE", str(temp_index))  # as `git commit b.py` runs its hooks
    staged = GitSnapshot(str(root), None)
    assert staged.paths() == ["a.py", "b.py"] and staged.read("a.py") == b"A\n"
    assert list_tracked(str(root)) == ["a.py", "b.py"]


def test_the_working_tree_reads_tracked_regular_files_never_through_a_link(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", {"a.py": "A\n", "b.py": "B\n"}).path
    os.symlink("a.py", root / "link.py")
    git(root, "add", "link.py")
    (root / "untracked.py").write_text("U\n")
    (root / "b.py").unlink()
    os.symlink("a.py", root / "b.py")  # a tracked file that a symlink replaced on disk
    links: list[str] = []
    tracked = list_tracked(str(root), links)
    assert tracked == ["a.py", "b.py"] and links == ["link.py"]
    tree = WorkTree(str(root), tracked, links)
    assert tree.read("a.py") == b"A\n"
    assert tree.read("b.py") is None and tree.read("link.py") is None and tree.read("untracked.py") is None
    assert sorted(tree.links) == ["b.py", "link.py"]
