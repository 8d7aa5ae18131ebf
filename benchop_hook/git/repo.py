"""The only place that talks to git.

Plain `git` subprocesses for the fast path (what changed? is this our own
commit? what state is the repo in?), and one long-lived `git cat-file --batch`
for reading many blobs of old and new trees once there is real work to do.

Hooks inherit `GIT_INDEX_FILE`, `GIT_DIR` and friends from the git command
that runs them. Every git call here gets an environment without them, except
reads of the staged tree, which must see the index git is about to commit.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from benchop_hook.errors import EXIT_USAGE, GitError

# What git exports to hooks that would redirect our own git calls.
_GIT_ENV_KEEP = {
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_SSL_CAINFO",
    "GIT_SSL_NO_VERIFY",
    "GIT_CONFIG_COUNT",
    "GIT_HTTP_PROXY_AUTHMETHOD",
    "GIT_ALLOW_PROTOCOL",
    "GIT_ASKPASS",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_TEMPLATE_DIR",
    "GIT_TRACE",
    "GIT_TRACE2",
    "GIT_TRACE2_EVENT",
}


def clean_env(*, keep_index: bool = False, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("GIT_")
        or k in _GIT_ENV_KEEP
        or k.startswith("GIT_CONFIG_KEY_")
        or k.startswith("GIT_CONFIG_VALUE_")
        or (keep_index and k == "GIT_INDEX_FILE")
    }
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("LC_ALL", "C")
    if extra:
        env.update(extra)
    return env


def git(
    root: str, *args: str, env: dict[str, str] | None = None, check: bool = True, input: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(
        ("git", *args),
        cwd=root,
        env=env if env is not None else clean_env(),
        input=input,
        capture_output=True,
    )
    if check and proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {msg[-1] if msg else 'exit ' + str(proc.returncode)}")
    return proc


def git_text(root: str, *args: str, **kw: Any) -> str:
    return git(root, *args, **kw).stdout.decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class RepoPaths:
    """Where the repository lives (every dataclass on the no-op path has a docstring: `@dataclass`
    computes an `inspect.signature` for one without)."""

    root: str  # the work tree's top level
    git_dir: str  # this work tree's git dir (.git, or .git/worktrees/<name>)
    common_dir: str  # shared objects and refs


def find_repo(cwd: str | None = None) -> RepoPaths:
    cwd = os.path.abspath(cwd or os.getcwd())
    # `git rev-parse` honours GIT_DIR from a hook; run it clean from cwd.
    proc = git(cwd, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir", check=False)
    if proc.returncode != 0:
        raise GitError("not inside a git work tree: run bench-op from your repository.", EXIT_USAGE)
    top, gdir, common = proc.stdout.decode("utf-8", "surrogateescape").splitlines()[:3]
    if not os.path.isabs(common):
        common = os.path.normpath(os.path.join(cwd, common))
    return RepoPaths(top, gdir, common)


def has_commits(root: str) -> bool:
    return git(root, "rev-parse", "--verify", "-q", "HEAD^{commit}", check=False).returncode == 0


def resolve_commit(root: str, ref: str) -> str:
    proc = git(root, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False)
    if proc.returncode != 0:
        raise GitError(
            f"'{ref}' is not a commit in this repository: check the ref and try again.", EXIT_USAGE
        )
    return proc.stdout.decode().strip()


def empty_tree(root: str) -> str:
    return git(root, "hash-object", "-t", "tree", "--stdin", input=b"").stdout.decode().strip()


@dataclass(frozen=True)
class Change:
    """One path of a `git diff --name-status`."""

    status: str  # A, M, D, R (renamed), C (copied), T (type change)
    old_path: str | None
    new_path: str | None


def parse_name_status(out: bytes) -> list[Change]:
    parts = out.split(b"\0")
    changes: list[Change] = []
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i].decode()[0]
        if status in "RC":
            old, new = parts[i + 1], parts[i + 2]
            changes.append(
                Change(status, old.decode("utf-8", "surrogateescape"), new.decode("utf-8", "surrogateescape"))
            )
            i += 3
        else:
            p = parts[i + 1].decode("utf-8", "surrogateescape")
            changes.append(Change(status, None if status == "A" else p, None if status == "D" else p))
            i += 2
    return changes


def cat_blobs(root: str, specs: Sequence[str], *, keep_index: bool = False) -> list[bytes | None]:
    """The contents of `rev:path` specs (`:path` is the index) in one `git cat-file --batch`; None when
    missing.

    Plain git, no GitPython: the cheap "did any constructor change?" check runs on the no-op path."""
    if not specs:
        return []
    out = git(
        root,
        "cat-file",
        "--batch",
        env=clean_env(keep_index=keep_index),
        input=b"".join(s.encode() + b"\n" for s in specs),
    ).stdout
    blobs: list[bytes | None] = []
    pos = 0
    for _ in specs:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) != 3 or header[1] != b"blob":
            blobs.append(None)
            if len(header) == 3:
                pos += int(header[2]) + 1
            continue
        size = int(header[2])
        blobs.append(out[pos : pos + size])
        pos += size + 1
    return blobs


def staged_changes(root: str) -> list[Change]:
    """HEAD vs the index git is about to commit (GIT_INDEX_FILE respected)."""
    out = git(
        root,
        "diff",
        "--cached",
        "--name-status",
        "-z",
        "-M",
        "--no-ext-diff",
        "--ignore-submodules",
        "HEAD",
        env=clean_env(keep_index=True),
    ).stdout
    return parse_name_status(out)


def staged_changes_if_head(root: str) -> list[Change] | None:
    """`staged_changes`, or None before the first commit (nothing to compare with), in one git process
    where a repository with commits is concerned: the no-op hook pays for each process it starts."""
    proc = git(
        root,
        "diff",
        "--cached",
        "--name-status",
        "-z",
        "-M",
        "--no-ext-diff",
        "--ignore-submodules",
        "HEAD",
        env=clean_env(keep_index=True),
        check=False,
    )
    if proc.returncode == 0:
        return parse_name_status(proc.stdout)
    if not has_commits(root):
        return None
    return staged_changes(root)  # the failure, reported as before


def range_changes(root: str, from_rev: str, to_rev: str) -> list[Change]:
    out = git(
        root, "diff", "--name-status", "-z", "-M", "--no-ext-diff", "--ignore-submodules", from_rev, to_rev
    ).stdout
    return parse_name_status(out)


def entries(root: str, rev: str | None = None) -> list[tuple[bytes, str, str]]:
    """(mode, blob id, path) of every stage-0 entry of the index (rev None) or of a commit's tree."""
    if rev is None:
        out = git(root, "ls-files", "-z", "-s", env=clean_env(keep_index=True)).stdout
    else:
        out = git(root, "ls-tree", "-r", "-z", "--full-tree", rev).stdout
    result = []
    for rec in out.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        fields = meta.split(b" ")
        if rev is None:
            mode, sha, stage = fields
            if stage != b"0":
                continue
        else:
            mode, _type, sha = fields
        result.append((mode, sha.decode(), path.decode("utf-8", "surrogateescape")))
    return result


_REGULAR = (b"100644", b"100755")


def list_tracked(root: str, rev: str | None = None, links: list[str] | None = None) -> list[str]:
    """Tracked regular files: in the index (rev None) or in a commit. Symlinks go to `links`."""
    paths = []
    for mode, _sha, path in entries(root, rev):
        if mode in _REGULAR:
            paths.append(path)
        elif mode == b"120000" and links is not None:
            links.append(path)
    return paths


# ---------------------------------------------------------------------------
# Snapshots: read-only views of one version of the repository's files.


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
                for mode, sha, path in entries(self._root, self._rev)
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
                env=clean_env(),
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


# ---------------------------------------------------------------------------
# Repository state and writing (hook stages only).


def in_progress_operation(
    git_dir: str, *, merge_done: bool = False, done: Collection[str] = ()
) -> str | None:
    """The git operation the repository is in the middle of, if any.

    git runs post-merge before it removes MERGE_HEAD: with `merge_done` that file means nothing.
    `done`: state files of an operation that has finished although git has not removed them yet
    (post-rewrite runs before a rebase's state goes; post-commit before CHERRY_PICK_HEAD does).
    """
    checks = (
        ("rebase-merge", "a rebase"),
        ("rebase-apply", "a rebase or am"),
        ("CHERRY_PICK_HEAD", "a cherry-pick"),
        ("REVERT_HEAD", "a revert"),
        ("BISECT_LOG", "a bisect"),
        ("MERGE_HEAD", "a merge"),
    )
    for name, what in checks:
        if (merge_done and name == "MERGE_HEAD") or name in done:
            continue
        if os.path.exists(os.path.join(git_dir, name)):
            return what
    return None


def has_unmerged(root: str) -> bool:
    out = git(root, "ls-files", "-u", "-z").stdout
    return bool(out.strip(b"\0"))


def config_value(root: str, key: str) -> str | None:
    """`git config --get KEY` as this repository sees it (its own config over the user's); None when unset."""
    proc = git(root, "config", "--get", key, check=False)
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", "surrogateescape").strip() or None


def commit_message(root: str, rev: str = "HEAD") -> str:
    return git_text(root, "log", "-1", "--format=%B", rev)


def wait_for_index_lock(git_dir: str, timeout: float) -> bool:
    """Wait until no other git process holds the index lock. Never deletes it."""
    lock = os.path.join(git_dir, "index.lock")
    deadline = time.monotonic() + timeout
    while os.path.exists(lock):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


def hash_blob(root: str, path: str, data: bytes) -> str:
    return git(root, "hash-object", "-w", "--stdin", "--no-filters", input=data).stdout.decode().strip()


def file_mode(root: str, rev: str, path: str) -> str:
    out = git(root, "ls-tree", "-z", rev, "--", path).stdout
    return out.split(b" ", 1)[0].decode() if out else "100644"


def index_entry(root: str, path: str) -> tuple[str, str] | None:
    """(mode, blob id) of `path` at stage 0 in the real index."""
    out = git(root, "ls-files", "-s", "-z", "--", path).stdout
    for rec in out.split(b"\0"):
        if rec:
            meta, p = rec.split(b"\t", 1)
            mode, sha, stage = meta.decode().split(" ")
            if stage == "0" and p.decode("utf-8", "surrogateescape") == path:
                return mode, sha
    return None


def iter_nul(out: bytes) -> Iterator[str]:
    for part in out.split(b"\0"):
        if part:
            yield part.decode("utf-8", "surrogateescape")


def status_porcelain(root: str, paths: Sequence[str] = ()) -> bytes:
    return git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths).stdout
