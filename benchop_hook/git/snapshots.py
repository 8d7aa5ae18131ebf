"""Snapshots: read-only views of one version of the repository's files (a commit, the index, the working
tree), each a file list and the bytes of each file."""

from __future__ import annotations

import os
from collections.abc import Iterable

from benchop_hook.errors import GitError
from benchop_hook.git import repo as gitrepo

_REGULAR = ("100644", "100755")
_LINK = "120000"


def list_tracked(root: str, links: list[str] | None = None) -> list[str]:
    """Tracked regular files of the index git is about to commit. Symlinks go to `links`."""
    paths = []
    for path, (mode, _sha) in gitrepo.index_entries(root, staged=True).items():
        if mode in _REGULAR:
            paths.append(path)
        elif mode == _LINK and links is not None:
            links.append(path)
    return paths


class Snapshot:
    """One version of the repository: a file list and the bytes of each file."""

    def paths(self) -> list[str]:
        raise NotImplementedError

    def read(self, path: str) -> bytes | None:
        raise NotImplementedError

    def prefetch(self, paths: Iterable[str]) -> None:
        """A hint: these files will be read soon."""


class WorkTree(Snapshot):
    """The files on disk, restricted to tracked regular files (never through a symlink)."""

    def __init__(self, root: str, tracked: list[str], links: list[str] | None = None) -> None:
        self.root = root
        self._tracked = tracked
        self._set = set(tracked)
        # Tracked symlinks, and tracked files a symlink replaced on disk: never read as the repo's own, never
        # written.
        self.links = list(links or []) + [p for p in tracked if os.path.islink(os.path.join(root, p))]

    def paths(self) -> list[str]:
        return self._tracked

    def read(self, path: str) -> bytes | None:
        if path not in self._set:
            return None
        full = os.path.join(self.root, path)
        if os.path.islink(full) or not os.path.isfile(full):
            return None
        try:
            with open(full, "rb") as f:
                return f.read()
        except OSError:
            return None


class GitSnapshot(Snapshot):
    """A commit, or the index git is about to commit (rev None): its entries listed by GitPython, its
    blobs read through one `BatchReader`, started when the first blob is read."""

    def __init__(self, root: str, rev: str | None) -> None:
        self._root = root
        self._rev = rev
        self._entries: dict[str, str] | None = None
        self._reader = gitrepo.BatchReader(root)
        # Blobs already read, by id: the evidence from tests reads the same test files once per changed Op.
        self._blobs: dict[str, bytes] = {}

    def _load(self) -> dict[str, str]:
        if self._entries is None:
            if self._rev is None:
                listed = [
                    (m, sha, p) for p, (m, sha) in gitrepo.index_entries(self._root, staged=True).items()
                ]
            else:
                listed = gitrepo.tree_entries(self._root, self._rev)
            self._entries = {path: sha for mode, sha, path in listed if mode in _REGULAR}
        return self._entries

    def paths(self) -> list[str]:
        return list(self._load())

    def read(self, path: str) -> bytes | None:
        sha = self._load().get(path)
        if sha is None:
            return None
        data = self._blobs.get(sha)
        if data is None:
            self._fetch([sha])
            data = self._blobs[sha]
        return data

    def prefetch(self, paths: Iterable[str]) -> None:
        """Read these files' blobs now, many requests per round trip to cat-file: a large commit reads
        a thousand blobs, and one round trip each cost more than the copying."""
        entries = self._load()
        self._fetch(
            list(
                dict.fromkeys(s for p in paths if (s := entries.get(p)) is not None and s not in self._blobs)
            )
        )

    def _fetch(self, shas: list[str]) -> None:
        for sha, obj in zip(shas, self._reader.read(shas)):
            if obj is None:
                raise GitError(f"git cat-file failed: cannot read object {sha}")
            self._blobs[sha] = obj.data

    def close(self) -> None:
        self._reader.close()
