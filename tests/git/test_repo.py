"""git/repo.py in-process, on real repositories in temporary folders: finding the repository, the hook's
environment kept out, index and tree entries, blobs written, `cat-file --batch` read once and in a forked
child, the reflog the hook's stage comes from, worktrees.

git is isolated from the machine by tests/conftest.py (empty template, fixed identity, no global config).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from benchop_hook.errors import GitError
from benchop_hook.git import flows
from benchop_hook.git import repo as gitrepo
from benchop_hook.records.parent_run import temporary_worktree
from tests.helpers.repo import Repo, files_repo, git

A_PY = {"a.py": "A = 1\n"}


def ls_files(root: Path, *env_index: str) -> dict[str, tuple[str, str]]:
    """git's own listing of stage-0 entries, the oracle for index_entries."""
    env = dict(os.environ, GIT_INDEX_FILE=env_index[0]) if env_index else None
    out = subprocess.run(["git", "ls-files", "-s", "-z"], cwd=root, capture_output=True, env=env, check=True)
    entries = {}
    for rec in out.stdout.split(b"\0"):
        if rec:
            meta, path = rec.split(b"\t", 1)
            mode, sha, stage = meta.decode().split()
            if stage == "0":
                entries[path.decode("utf-8", "surrogateescape")] = (mode, sha)
    return entries


# -- finding the repository, the hook's environment


def test_the_repository_is_found_from_a_subdirectory(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", {"pkg/deep/m.py": "X = 1\n"}).path
    found = gitrepo.find_repo(str(root / "pkg" / "deep"))
    assert found.root == str(root)
    assert found.git_dir == str(root / ".git") == found.common_dir


def test_outside_a_repository_the_error_says_so(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(GitError, match="not inside a git work tree"):
        gitrepo.find_repo(str(tmp_path / "plain"))


def test_a_hooks_git_dir_and_index_do_not_redirect_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = files_repo(tmp_path / "mine", {"m.py": "MINE = 1\n"}).path
    other = files_repo(tmp_path / "other", {"o.py": "OTHER = 1\n"}).path
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_COMMON_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(other / ".git" / "objects"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    found = gitrepo.find_repo(str(mine))
    assert found.root == str(mine)
    # GitPython's view (index, trees, blobs) is the same repository, whatever the hook exported
    assert list(gitrepo.index_entries(str(mine), staged=False)) == ["m.py"]
    assert [p for _m, _s, p in gitrepo.tree_entries(str(mine), "HEAD")] == ["m.py"]
    blob = gitrepo.write_blob(str(mine), b"written\n")
    monkeypatch.delenv("GIT_OBJECT_DIRECTORY")
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_COMMON_DIR")
    assert git(mine, "cat-file", "-p", blob) == "written\n"
    assert subprocess.run(["git", "cat-file", "-e", blob], cwd=other, check=False).returncode != 0
    # ... and the hook's variables are back where they were
    assert os.environ["GIT_WORK_TREE"] == str(other)


def test_the_staged_index_is_the_one_the_hook_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = files_repo(tmp_path / "r", A_PY).path
    Repo(root).write("new.py", "N = 1\n")
    # `git commit new.py` hands its hooks a temporary index holding new.py; the real one does not
    temp_index = root / ".git" / "next-index.lock"
    env = dict(os.environ, GIT_INDEX_FILE=str(temp_index))
    subprocess.run(["git", "read-tree", "HEAD"], cwd=root, env=env, check=True)
    subprocess.run(["git", "add", "new.py"], cwd=root, env=env, check=True)
    monkeypatch.setenv("GIT_INDEX_FILE", str(temp_index))
    assert sorted(gitrepo.index_entries(str(root), staged=True)) == ["a.py", "new.py"]
    assert sorted(gitrepo.index_entries(str(root), staged=False)) == ["a.py"]
    monkeypatch.setenv("GIT_INDEX_FILE", os.path.join(".git", "next-index.lock"))  # relative: to the top
    assert sorted(gitrepo.index_entries(str(root), staged=True)) == ["a.py", "new.py"]


def test_clean_env_drops_what_redirects_git_and_keeps_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_DIR", "/elsewhere")
    monkeypatch.setenv("GIT_INDEX_FILE", "/elsewhere/index")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Someone")
    env = gitrepo.clean_env()
    assert "GIT_DIR" not in env and "GIT_INDEX_FILE" not in env and env["GIT_AUTHOR_NAME"] == "Someone"
    assert gitrepo.clean_env(keep_index=True)["GIT_INDEX_FILE"] == "/elsewhere/index"


# -- refs


def test_verify_names_objects_or_none(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", A_PY).path
    head = git(root, "rev-parse", "HEAD").strip()
    assert gitrepo.verify(str(root), "HEAD") == head == gitrepo.head(str(root))
    assert gitrepo.verify(str(root), "HEAD^1") is None
    assert gitrepo.verify(str(root), "HEAD:a.py") == git(root, "rev-parse", "HEAD:a.py").strip()
    assert gitrepo.resolve_commit(str(root), "main") == head
    with pytest.raises(GitError, match="'nope' is not a commit"):
        gitrepo.resolve_commit(str(root), "nope")
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    assert not gitrepo.has_commits(str(empty)) and gitrepo.has_commits(str(root))


# -- index entries


def test_index_entries_match_ls_files_for_every_kind_of_entry(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", {"a.py": "A\n", "b/c.py": "C\n", "run.sh": "#!/bin/sh\n"}).path
    os.chmod(root / "run.sh", 0o755)
    os.symlink("a.py", root / "link.py")
    sub = files_repo(tmp_path / "sub", A_PY).path
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "third/sub")
    Repo(root).write("later.py", "L\n")
    git(root, "add", "-A")
    Repo(root).write("intent.py", "I\n")
    git(root, "add", "-N", "intent.py")
    entries = gitrepo.index_entries(str(root), staged=False)
    assert entries == ls_files(root)
    assert list(entries) == list(ls_files(root)), "in the index's order"
    modes = {p: m for p, (m, _sha) in entries.items()}
    assert modes["run.sh"] == "100755" and modes["link.py"] == "120000" and modes["third/sub"] == "160000"
    assert modes["a.py"] == "100644"


def test_a_conflicted_path_has_no_stage_0_entry(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", A_PY).path
    git(root, "checkout", "-q", "-b", "other")
    Repo(root).write("a.py", "A = 2\n")
    git(root, "commit", "-q", "-am", "other")
    git(root, "checkout", "-q", "main")
    Repo(root).write("a.py", "A = 3\n")
    git(root, "commit", "-q", "-am", "main")
    subprocess.run(["git", "merge", "-q", "other"], cwd=root, capture_output=True, check=False)
    assert gitrepo.has_unmerged(str(root))
    assert "a.py" not in gitrepo.index_entries(str(root), staged=False)


@pytest.mark.parametrize(
    "setup",
    [
        [("update-index", "--index-version", "4")],
        [("update-index", "--split-index")],
        [("sparse-checkout", "init", "--cone", "--sparse-index"), ("sparse-checkout", "set", "d")],
    ],
    ids=["index-format-4", "split-index", "sparse-index"],
)
def test_an_index_gitpython_cannot_read_is_listed_by_git(
    tmp_path: Path, setup: list[tuple[str, ...]]
) -> None:
    root = files_repo(tmp_path / "r", {f"{d}/f{k}.py": f"X = {k}\n" for d in "de" for k in range(3)}).path
    for command in setup:
        git(root, *command)
    Repo(root).write("d/f9.py", "X = 9\n")
    git(root, "add", "d/f9.py")
    entries = gitrepo.index_entries(str(root), staged=False)
    assert entries == ls_files(root) and len(entries) == 7, "every file, the ones outside a sparse cone too"


def test_a_path_that_is_no_utf8_is_listed_as_git_lists_it(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", A_PY).path
    name = b"caf\xe9.py"
    (root / os.fsdecode(name)).write_bytes(b"X = 1\n")
    git(root, "add", "-A")
    entries = gitrepo.index_entries(str(root), staged=False)
    assert os.fsdecode(name) in entries and entries == ls_files(root)


def test_a_missing_index_has_no_entries(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", A_PY).path
    (root / ".git" / "index").unlink()
    assert gitrepo.index_entries(str(root), staged=False) == {}


# -- tree entries and modes


def ls_tree(root: Path, rev: str) -> list[tuple[str, str, str]]:
    out = git(root, "ls-tree", "-r", "-z", "--full-tree", rev)
    rows = []
    for rec in out.split("\0"):
        if rec:
            meta, path = rec.split("\t", 1)
            mode, _type, sha = meta.split()
            rows.append((mode, sha, path))
    return rows


def test_tree_entries_match_ls_tree_in_its_order(tmp_path: Path) -> None:
    # names whose order depends on how a folder sorts ("a/" after "a-b" and "a.b", before "a0")
    root = files_repo(
        tmp_path / "r", {n: f"# {n}\n" for n in ("a-b", "a.b", "a/c", "a/z/d", "a0", "b", "A")}
    ).path
    os.chmod(root / "b", 0o755)
    os.symlink("a0", root / "l")
    sub = files_repo(tmp_path / "sub", A_PY).path
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "s/sub")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "kinds")
    entries = gitrepo.tree_entries(str(root), "HEAD")
    assert entries == ls_tree(root, "HEAD")
    assert [p for _m, _s, p in entries][:8] == [".gitmodules", "A", "a-b", "a.b", "a/c", "a/z/d", "a0", "b"]
    assert gitrepo.tree_entries(str(root), "HEAD~1") == ls_tree(root, "HEAD~1")


def test_tree_entry_gives_the_mode_and_id_of_one_path(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", {"bin/run.sh": "#!/bin/sh\n", "a.py": "A\n"}).path
    os.chmod(root / "bin/run.sh", 0o755)
    git(root, "commit", "-q", "-am", "executable")
    sha = git(root, "rev-parse", "HEAD:bin/run.sh").strip()
    assert gitrepo.tree_entry(str(root), "HEAD", "bin/run.sh") == ("100755", sha)
    assert gitrepo.tree_entry(str(root), "HEAD~1", "bin/run.sh") == ("100644", sha)
    assert gitrepo.tree_entry(str(root), "HEAD", "bin/missing.sh") is None
    assert gitrepo.tree_entry(str(root), "HEAD", "a.py/inside") is None


def test_a_revision_that_names_no_tree_is_an_error(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", A_PY).path
    with pytest.raises(GitError):
        gitrepo.tree_entries(str(root), "no-such-branch")


# -- blobs


def test_a_blob_is_written_as_it_is_whatever_the_paths_filters(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", {".gitattributes": "*.py text eol=crlf\n"}).path
    git(root, "config", "core.autocrlf", "true")
    data = b"x = 1\r\ny = 2\n\xff\n"
    sha = gitrepo.write_blob(str(root), data)
    hashed = subprocess.run(
        ["git", "hash-object", "--no-filters", "--stdin"], cwd=root, input=data, capture_output=True
    )
    assert sha == hashed.stdout.decode().strip()
    shown = subprocess.run(["git", "cat-file", "blob", sha], cwd=root, capture_output=True, check=True).stdout
    assert shown == data
    assert gitrepo.write_blob(str(root), data) == sha, "writing it again is harmless"


def test_cat_blobs_reads_many_and_says_none_for_what_is_no_blob(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", {"a.py": "A\n", "my file.py": "S\n", "d/b.py": "B\n"}).path
    specs = ["HEAD:a.py", "HEAD:d", "HEAD:no such.py", "HEAD:my file.py", "HEAD:missing.py", "HEAD:d/b.py"]
    assert gitrepo.cat_blobs(str(root), specs) == [b"A\n", None, None, b"S\n", None, b"B\n"]
    Repo(root).write("a.py", "A staged\n")
    git(root, "add", "a.py")
    assert gitrepo.cat_blobs(str(root), [":a.py", "HEAD:a.py"]) == [b"A staged\n", b"A\n"]
    assert gitrepo.read_blob(str(root), "HEAD", "d/b.py") == b"B\n"
    assert gitrepo.read_blob(str(root), "HEAD", "d/none.py") is None


def test_the_batch_reader_reads_more_than_one_round_trip_in_order(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", {f"f{k:03}.py": f"X = {k}\n" for k in range(150)}).path
    reader = gitrepo.BatchReader(str(root))
    objs = reader.read([f"HEAD:f{k:03}.py" for k in range(150)] + ["HEAD:nothing.py"])
    assert [o.data if o else None for o in objs] == [f"X = {k}\n".encode() for k in range(150)] + [None]
    assert objs[0] is not None and objs[0].type == b"blob" and len(objs[0].sha) == 40
    reader.close()
    assert reader.pid is None


def test_a_forked_child_reads_through_its_own_cat_file(tmp_path: Path) -> None:
    if not hasattr(os, "fork"):
        pytest.skip("no fork here")
    root = files_repo(tmp_path / "r", {f"m{k}.py": f"X = {k}\n" for k in range(4)}).path
    reader = gitrepo.BatchReader(str(root))
    first = reader.read(["HEAD:m0.py"])[0]
    assert first is not None and first.data == b"X = 0\n"
    parent_cat = reader.pid
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: read, and list a tree through GitPython, then say which cat-file answered
        try:
            obj = reader.read(["HEAD:m1.py"])[0]
            tree = [p for _m, _s, p in gitrepo.tree_entries(str(root), "HEAD")]
            ok = obj is not None and obj.data == b"X = 1\n" and tree == [f"m{k}.py" for k in range(4)]
            os.write(w, f"{int(ok)} {reader.pid or 0}".encode())
        finally:
            os._exit(0)
    os.close(w)
    # meanwhile the parent goes on talking to its own cat-file
    assert [o.data if o else None for o in reader.read(["HEAD:m2.py", "HEAD:m3.py"])] == [
        b"X = 2\n",
        b"X = 3\n",
    ]
    ok, child_cat = os.read(r, 100).decode().split()
    os.close(r)
    os.waitpid(pid, 0)
    assert ok == "1"
    assert parent_cat is not None and int(child_cat) not in (0, parent_cat)
    assert reader.pid == parent_cat


# -- changes


def test_name_status_keeps_renames_and_odd_paths(tmp_path: Path) -> None:
    root = files_repo(
        tmp_path / "r", {"old name.py": "X = 1\n" * 20, "gone.py": "G\n", "kept.py": "K\n"}
    ).path
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "mv", "old name.py", "new name.py")
    git(root, "rm", "-q", "gone.py")
    Repo(root).write("kept.py", "K2\n")
    Repo(root).write("added.py", "A\n")
    git(root, "add", "-A")
    staged = {(c.status, c.old_path, c.new_path) for c in gitrepo.staged_changes(str(root))}
    expected = {
        ("R", "old name.py", "new name.py"),
        ("D", "gone.py", None),
        ("M", "kept.py", "kept.py"),
        ("A", None, "added.py"),
    }
    assert staged == expected
    assert gitrepo.staged_changes_if_head(str(root)) == gitrepo.staged_changes(str(root))
    git(root, "commit", "-q", "-m", "moves")
    assert {
        (c.status, c.old_path, c.new_path) for c in gitrepo.range_changes(str(root), base, "HEAD")
    } == expected
    assert sorted(gitrepo.tracked_changes(str(root))) == []
    Repo(root).write("kept.py", "K3\n")
    assert gitrepo.tracked_changes(str(root)) == ["kept.py"]
    assert [(c.status, c.new_path) for c in gitrepo.worktree_changes(str(root), "HEAD")] == [("M", "kept.py")]


def test_before_the_first_commit_there_are_no_staged_changes_to_compare(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    Repo(root).write("a.py", "A\n")
    git(root, "add", "a.py")
    assert gitrepo.staged_changes_if_head(str(root)) is None


# -- the reflog: which stage a follow-up call stands for


def newest_reflog_message(root: Path) -> str:
    """GitPython's reading of the same reflog: the oracle for the hand-written one."""
    import git as gitpython

    return str(gitpython.Repo(root).head.log()[-1].message)


def test_the_stage_comes_from_heads_last_move(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRE_COMMIT_REWRITE_COMMAND", raising=False)
    monkeypatch.delenv("PRE_COMMIT_IS_SQUASH_MERGE", raising=False)
    root = files_repo(tmp_path / "r", A_PY).path
    git_dir = str(root / ".git")
    assert gitrepo.last_head_move(git_dir) == newest_reflog_message(root) == "commit (initial): initial"
    assert flows.detect_stage(git_dir) == "post-commit"
    git(root, "checkout", "-q", "-b", "topic")
    Repo(root).write("t.py", "T\n")
    git(root, "add", "t.py")
    git(root, "commit", "-q", "-m", "topic")
    git(root, "checkout", "-q", "main")
    Repo(root).write("m.py", "M\n")
    git(root, "add", "m.py")
    git(root, "commit", "-q", "-m", "main moves on")
    assert flows.detect_stage(git_dir) == "post-commit"
    git(root, "merge", "-q", "--no-edit", "topic")
    assert gitrepo.last_head_move(git_dir) == newest_reflog_message(root)
    assert gitrepo.last_head_move(git_dir).startswith("merge topic")
    assert flows.detect_stage(git_dir) == "post-merge"
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    Repo(root).write("later.py", "L\n")
    git(root, "add", "later.py")
    git(root, "commit", "-q", "-m", "later")
    git(clone, "pull", "-q", "--no-rebase", "origin", "main")
    assert gitrepo.last_head_move(str(clone / ".git")) == newest_reflog_message(clone)
    assert flows.detect_stage(str(clone / ".git")) == "post-merge"
    monkeypatch.setenv("PRE_COMMIT_REWRITE_COMMAND", "rebase")
    assert flows.detect_stage(git_dir) == "post-rewrite"


def test_a_repository_without_a_reflog_is_a_commit(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", A_PY).path
    (root / ".git" / "logs" / "HEAD").unlink()
    assert gitrepo.last_head_move(str(root / ".git")) == ""
    assert flows.detect_stage(str(root / ".git")) == "post-commit"


# -- worktrees


def worktrees(root: Path) -> list[str]:
    return [
        ln.split(" ", 1)[1]
        for ln in git(root, "worktree", "list", "--porcelain").splitlines()
        if ln.startswith("worktree ")
    ]


def test_removing_benchops_worktree_leaves_the_users_stale_one(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", A_PY).path
    users = tmp_path / "users-worktree"
    git(root, "worktree", "add", "-q", "--detach", str(users), "HEAD")
    # the user deleted its folder by hand: git calls it prunable, and `git worktree prune` would drop it
    subprocess.run(["rm", "-rf", str(users)], check=True)
    with temporary_worktree(str(root), str(root / ".git"), "HEAD") as path:
        assert (Path(path) / "a.py").read_text() == "A = 1\n"
        assert path in worktrees(root)
    assert not os.path.exists(path)
    assert worktrees(root) == [str(root), str(users)], "only bench-op's own worktree went"


def test_a_worktree_whose_folder_went_first_is_still_removed(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", A_PY).path
    path = str(tmp_path / "ours")
    gitrepo.add_worktree(str(root), path, "HEAD", hooks=str(tmp_path / "no-hooks"))
    subprocess.run(["rm", "-rf", path], check=True)
    gitrepo.remove_worktree(str(root), path)
    assert worktrees(root) == [str(root)]


# -- notes


def test_notes_are_written_read_and_listed(tmp_path: Path) -> None:
    root = files_repo(tmp_path / "r", A_PY).path
    head = git(root, "rev-parse", "HEAD").strip()
    assert gitrepo.read_note(str(root), "bench-op", head) is None
    assert gitrepo.noted_commits(str(root), "bench-op") == set()
    gitrepo.write_note(str(root), "bench-op", head, '{"runs": []}\n')
    gitrepo.write_note(str(root), "bench-op", head, '{"runs": [1]}\n')  # replaced, not appended
    assert gitrepo.read_note(str(root), "bench-op", head) == '{"runs": [1]}\n'
    assert gitrepo.noted_commits(str(root), "bench-op") == {head}
    assert git(root, "notes", "--ref=bench-op", "show", head) == '{"runs": [1]}\n'
