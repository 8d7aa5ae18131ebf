"""GitPython's part of the repository layer: index entries, tree entries and their modes, blobs written.

Imported only once a command knows it has work (GitPython's import alone costs about 60 ms of CPU, more than
the no-op hook's budget). Its object reads go through `repo.BatchReader` (a clean environment, restarted in a
forked child) and its writes stay in-process, so GitPython runs no git command on the repository; everything
that does run git is in `git/repo.py`. Nothing outside `git/` talks to git.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from benchop_hook.errors import GitError
from benchop_hook.git.formats import GitObject, index_extension_names
from benchop_hook.git.repo import BatchReader, ls_files, redirects

if TYPE_CHECKING:
    from git import Repo, Tree
    from git.db import GitCmdObjectDB


@functools.cache
def _object_db() -> type[GitCmdObjectDB]:
    from git.cmd import Git
    from git.db import GitCmdObjectDB
    from gitdb.base import OInfo, OStream
    from gitdb.db.loose import LooseObjectDB

    class ObjectDB(GitCmdObjectDB):
        """GitPython's object database, reading through `BatchReader` (a clean environment, a forked
        child's own process) and writing loose objects in-process."""

        def __init__(self, root_path: str, git: Git) -> None:
            super().__init__(root_path, git)
            self.reader = BatchReader(str(git.working_dir))

        def _object(self, binsha: bytes) -> GitObject:
            obj = self.reader.read([binsha.hex()])[0]
            if obj is None:
                raise GitError(f"git cat-file failed: cannot read object {binsha.hex()}")
            return obj

        def info(self, binsha: bytes) -> OInfo:
            obj = self._object(binsha)
            return OInfo(binsha, obj.type.decode(), len(obj.data))

        def stream(self, binsha: bytes) -> OStream:
            obj = self._object(binsha)
            return OStream(binsha, obj.type.decode(), len(obj.data), io.BytesIO(obj.data))

        def store(self, istream: object) -> object:
            return LooseObjectDB.store(self, istream)

    return ObjectDB


@contextlib.contextmanager
def _hook_env_hidden() -> Iterator[None]:
    """GitPython reads GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR and GIT_OBJECT_DIRECTORY from this process's
    environment while it opens a repository: a hook's values must not redirect it."""
    hidden = {k: os.environ.pop(k) for k in list(os.environ) if redirects(k)}
    try:
        yield
    finally:
        os.environ.update(hidden)


@contextlib.contextmanager
def _repository(root: str) -> Iterator[Repo]:
    """GitPython's view of the work tree at `root`, for the length of one call: nothing outlives it, so
    a forked child never shares it."""
    from git import Repo

    with _hook_env_hidden():
        repo = Repo(root, odbt=_object_db())
    try:
        yield repo
    finally:
        repo.odb.reader.close()
        repo.close()


def _mode(mode: int) -> str:
    return f"{mode:06o}"  # as git prints it: 100644, 100755, 120000, 160000, 040000


def tree_entries(root: str, rev: str) -> list[tuple[str, str, str]]:
    """(mode, object id, path) of every entry of `rev`'s tree but its trees, in git's order (`ls-tree -r`'s:
    depth first, each tree's entries as stored)."""
    from git import Tree

    def walk(tree: Tree) -> Iterator[tuple[str, str, str]]:
        for obj in tree:
            if isinstance(obj, Tree):
                yield from walk(obj)
            else:
                yield _mode(obj.mode), obj.hexsha, str(obj.path)

    with _repository(root) as repo:
        return list(walk(_tree(repo, rev)))


def tree_entry(root: str, rev: str, path: str) -> tuple[str, str] | None:
    """(mode, object id) of `path` in `rev`'s tree, or None."""
    with _repository(root) as repo:
        try:
            obj = _tree(repo, rev) / path
        except KeyError:
            return None
        return _mode(obj.mode), obj.hexsha


def _tree(repo: Repo, rev: str) -> Tree:
    from git import Tree

    # git resolves the revision: what GitPython's own rev-parse would read from refs, git knows for sure.
    obj = repo.odb.reader.read([f"{rev}^{{tree}}"])[0]
    if obj is None:
        raise GitError(f"git ls-tree failed: '{rev}' names no tree")
    return Tree(repo, bytes.fromhex(obj.sha), path="")


def write_blob(root: str, data: bytes) -> str:
    """Store `data` as a blob as it is (it is the content to commit: no filters apply), and return its id."""
    from gitdb.base import IStream

    with _repository(root) as repo:
        stored = repo.odb.store(IStream("blob", len(data), io.BytesIO(data)))
        return bytes(stored.hexsha).decode()


def index_entries(root: str, *, staged: bool) -> dict[str, tuple[str, str]]:
    """(mode, blob id) by path of every stage-0 entry of an index: the one git is about to commit when
    `staged` (a hook's GIT_INDEX_FILE), else the work tree's own index."""
    with _repository(root) as repo:
        path = os.path.join(repo.git_dir, "index")
    hooked = os.environ.get("GIT_INDEX_FILE") if staged else None
    if hooked:
        path = os.path.join(root, hooked)  # a relative one is relative to the top level, where git runs
    entries = _read_index(path)
    if entries is None:
        entries = ls_files(root, staged=staged)
    return entries


def _read_index(path: str) -> dict[str, tuple[str, str]] | None:
    """The index file read in-process by GitPython; None where it can't be read that way (index format
    4, a split or sparse index, a path that is no UTF-8): `git ls-files` reads those."""
    from git.index.fun import read_cache

    try:
        with open(path, "rb") as f:
            _version, entries, extensions, _sha = read_cache(f)
    except FileNotFoundError:
        return {}
    except (AssertionError, ValueError, OSError):
        return None
    if {b"link", b"sdir"} & index_extension_names(extensions):
        return None  # the other entries are in a shared index / folded into sparse directory entries
    return {str(p): (_mode(e.mode), e.hexsha) for (p, stage), e in entries.items() if stage == 0}
