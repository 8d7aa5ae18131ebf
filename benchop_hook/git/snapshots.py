"""Snapshots: read-only views of one version of the repository's files (a commit, the index, the working
tree), each a file list and the bytes of each file."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterable

from benchop_hook.errors import GitError
from benchop_hook.git import repo as gitrepo

_REGULAR = (b"100644", b"100755")


def list_tracked(root: str, rev: str | None = None, links: list[str] | None = None) -> list[str]:
    """Tracked regular files: in the index (rev None) or in a commit. Symlinks go to `links`."""
    paths = []
    for mode, _sha, path in gitrepo.entries(root, rev):
        if mode in _REGULAR:
            paths.append(path)
        elif mode == b"120000" and links is not None:
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


# Blobs asked for in one round trip: 64 requests are 2.6 kB, well within a pipe's buffer.
_PREFETCH = 64


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
    """A commit or the index, read through one persistent `git cat-file --batch` process, started when the
    first blob is read. (GitPython did this before; importing it cost more than a static pass's parsing
    of a large commit's op files.)"""

    def __init__(self, root: str, rev: str | None) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid = os.getpid()  # the process that talks to `_proc`
        self._rev = rev
        self._entries: dict[str, bytes] | None = None
        self._root = root
        # Blobs already read, by id: the evidence from tests reads the same test files once per changed Op.
        self._blobs: dict[bytes, bytes] = {}

    def _load(self) -> dict[str, bytes]:
        if self._entries is None:
            self._entries = {
                path: bytes.fromhex(sha)
                for mode, sha, path in gitrepo.entries(self._root, self._rev)
                if mode in _REGULAR
            }
        return self._entries

    def paths(self) -> list[str]:
        return list(self._load())

    def blob_id(self, path: str) -> str | None:
        sha = self._load().get(path)
        return sha.hex() if sha else None

    def read(self, path: str) -> bytes | None:
        sha = self._load().get(path)
        if sha is None:
            return None
        data = self._blobs.get(sha)
        if data is None:
            data = self._blobs[sha] = self._cat(sha.hex())
        return data

    def prefetch(self, paths: Iterable[str]) -> None:
        """Read these files' blobs now, many requests per round trip to cat-file: a large commit reads
        a thousand blobs, and one round trip each cost more than the copying."""
        entries = self._load()
        shas = list(
            dict.fromkeys(
                sha for p in paths if (sha := entries.get(p)) is not None and sha not in self._blobs
            )
        )
        for k in range(0, len(shas), _PREFETCH):
            chunk = shas[k : k + _PREFETCH]  # (its requests fit in the pipe whatever cat-file is doing)
            for sha, data in zip(chunk, self._cat_many([s.hex() for s in chunk])):
                self._blobs[sha] = data

    def _cat(self, sha: str) -> bytes:
        return self._cat_many([sha])[0]

    def _cat_many(self, shas: list[str]) -> list[bytes]:
        if self._proc is None or self._pid != os.getpid():
            # (A forked child starts its own: the pipes it inherited are its parent's conversation.)
            self._pid = os.getpid()
            self._proc = subprocess.Popen(
                ("git", "cat-file", "--batch"),
                cwd=self._root,
                env=gitrepo.clean_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(b"".join(sha.encode() + b"\n" for sha in shas))
        proc.stdin.flush()
        out = []
        for sha in shas:
            header = proc.stdout.readline().split()
            if len(header) != 3:
                raise GitError(f"git cat-file failed: cannot read object {sha}")
            size = int(header[2])
            out.append(proc.stdout.read(size))
            proc.stdout.read(1)  # the newline after each object
        return out

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and self._pid == os.getpid():
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.close()
            proc.wait()
            proc.stdout.close()

    def __del__(self) -> None:
        # Nobody closes a snapshot explicitly: its cat-file process ends (EOF) when the snapshot goes.
        with contextlib.suppress(Exception):
            self.close()
