"""The only place that runs git: every other module calls one of the small functions here, or, for what
GitPython does in-process, one of `git/objects.py`'s.

Two ways in, chosen by what the caller can afford:
- plain `git` subprocesses on the no-op path (what changed? did a constructor change? which stage fired
  the hook?), and for what GitPython has no API for (notes, worktrees, a commit from a temporary index,
  merge-file, apply). A commit that touches no Op must cost at most 50 ms more than `python -c pass` plus
  one `git diff`, and importing GitPython alone costs about 100 ms: it is imported only once a command
  knows it has work.
- GitPython (`git/objects.py`) for what it does in-process: index entries, tree entries and their modes,
  blobs written through the object database. Its object reads go through `BatchReader` here (a clean
  environment, restarted in a forked child) and its writes stay in-process: GitPython runs no git command
  on the repository.

Hooks inherit `GIT_INDEX_FILE`, `GIT_DIR` and friends from the git command that runs them. Every git call
here gets an environment without them (`clean_env`), and GitPython opens a repository with them hidden,
except reads of the staged tree, which must see the index git is about to commit.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import time
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchop_hook.errors import EXIT_USAGE, GitError
from benchop_hook.git.formats import (
    Change,
    GitObject,
    decode,
    parse_ls_files,
    parse_name_status,
    parse_status_paths,
    read_object,
)

if TYPE_CHECKING:
    pass

# What git exports to hooks that would not redirect our own git calls.
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


def redirects(name: str, *, keep_index: bool = False) -> bool:
    """Would this inherited variable point our git calls somewhere else than the repository they name?"""
    return (
        name.startswith("GIT_")
        and name not in _GIT_ENV_KEEP
        and not name.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))
        and not (keep_index and name == "GIT_INDEX_FILE")
    )


def clean_env(*, keep_index: bool = False, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not redirects(k, keep_index=keep_index)}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("LC_ALL", "C")
    if extra:
        env.update(extra)
    return env


def _git(
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
        raise GitError(f"git {args[0]} failed: {_last_error(proc)}")
    return proc


def _last_error(proc: subprocess.CompletedProcess[bytes]) -> str:
    msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return msg[-1] if msg else "exit " + str(proc.returncode)


# -- the repository and its refs (the no-op path: plain git)


@dataclass(frozen=True)
class RepoPaths:
    """Where the repository lives (every dataclass on the no-op path has a docstring: `@dataclass`
    computes an `inspect.signature` for one without)."""

    root: str  # the work tree's top level
    git_dir: str  # this work tree's git dir (.git, or .git/worktrees/<name>)
    common_dir: str  # shared objects and refs


def find_repo(cwd: str | None = None) -> RepoPaths:
    """The repository around `cwd`, found by git itself: every command starts here, the no-op hook too."""
    cwd = os.path.abspath(cwd or os.getcwd())
    # `git rev-parse` honours GIT_DIR from a hook; run it clean from cwd.
    proc = _git(cwd, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir", check=False)
    if proc.returncode != 0:
        raise GitError("not inside a git work tree: run bench-op from your repository.", EXIT_USAGE)
    top, gdir, common = decode(proc.stdout).splitlines()[:3]
    if not os.path.isabs(common):
        common = os.path.normpath(os.path.join(cwd, common))
    return RepoPaths(top, gdir, common)


def verify(root: str, spec: str) -> str | None:
    """The object id `spec` names (`HEAD`, `HEAD^1`, `ORIG_HEAD^{commit}`, `rev:path`), or None."""
    out = _git(root, "rev-parse", "-q", "--verify", spec, check=False).stdout.decode().split()
    return out[0] if out else None


def head(root: str) -> str:
    """HEAD's commit; GitError when there is none."""
    return _git(root, "rev-parse", "HEAD").stdout.decode().strip()


def has_commits(root: str) -> bool:
    return verify(root, "HEAD^{commit}") is not None


def resolve_commit(root: str, ref: str) -> str:
    sha = verify(root, f"{ref}^{{commit}}")
    if sha is None:
        raise GitError(
            f"'{ref}' is not a commit in this repository: check the ref and try again.", EXIT_USAGE
        )
    return sha


def is_shallow(root: str) -> bool:
    return decode(_git(root, "rev-parse", "--is-shallow-repository", check=False).stdout).strip() == "true"


def remote_names(root: str) -> list[str]:
    return decode(_git(root, "remote", check=False).stdout).split()


def config_values(root: str, key: str) -> list[str]:
    """Every value of a multi-valued key (`remote.origin.fetch`), in git's order."""
    return decode(_git(root, "config", "--get-all", key, check=False).stdout).split()


def recent_commits(root: str, rev: str, limit: int) -> list[str]:
    """At most `limit` commits reachable from `rev`, newest first (fewer in a shallow clone)."""
    proc = _git(root, "rev-list", f"--max-count={limit}", rev, "--", check=False)
    return decode(proc.stdout).split() if proc.returncode == 0 else []


def commit_message(root: str, rev: str = "HEAD") -> str:
    return decode(_git(root, "log", "-1", "--format=%B", rev).stdout)


def last_head_move(git_dir: str) -> str:
    """The message of HEAD's newest reflog entry ("commit: ...", "merge topic: ...", "pull: ..."), or "".

    Read by hand, not with GitPython's RefLog: the hook reads it before it knows whether there is any
    work, where importing GitPython would cost more than the whole no-op budget. Only the file's tail is
    read: a reflog grows with every commit."""
    try:
        with open(os.path.join(git_dir, "logs", "HEAD"), "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            last = f.read().splitlines()[-1].decode("utf-8", "replace")
    except (OSError, IndexError):
        return ""
    return last.split("\t", 1)[1] if "\t" in last else ""


def head_log(root: str) -> list[tuple[str, str, str]]:
    """(commit, committer date, subject) of every commit reachable from HEAD, newest first."""
    text = decode(_git(root, "log", "--format=%H%x00%cs%x00%s", "HEAD", check=False).stdout)
    out = []
    for line in text.splitlines():
        commit, date, subject = [*line.split("\0"), "", ""][:3]
        out.append((commit, date, subject))
    return out


def last_commit_of(root: str, path: str) -> str | None:
    """The newest commit that touched `path`, or None."""
    return _git(root, "log", "-1", "--format=%H", "--", path, check=False).stdout.decode().strip() or None


def hooks_path(root: str) -> str:
    """The folder git runs hooks from. git's own answer, not GitPython's config reader: that one misses
    GIT_CONFIG_GLOBAL, `-c` and GIT_CONFIG_COUNT settings, and worktree-specific paths."""
    out = decode(_git(root, "rev-parse", "--git-path", "hooks").stdout).strip()
    return out if os.path.isabs(out) else os.path.normpath(os.path.join(root, out))


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
    out = _git(root, "ls-files", "-u", "-z").stdout
    return bool(out.strip(b"\0"))


def config_value(root: str, key: str) -> str | None:
    """`git config --get KEY` as this repository sees it (its own config over the user's); None when unset."""
    proc = _git(root, "config", "--get", key, check=False)
    if proc.returncode != 0:
        return None
    return decode(proc.stdout).strip() or None


def wait_for_index_lock(git_dir: str, timeout: float) -> bool:
    """Wait until no other git process holds the index lock. Never deletes it."""
    lock = os.path.join(git_dir, "index.lock")
    deadline = time.monotonic() + timeout
    while os.path.exists(lock):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


# -- what changed


_NAME_STATUS = ("--name-status", "-z", "-M", "--no-ext-diff")


def _staged_diff(root: str, check: bool) -> subprocess.CompletedProcess[bytes]:
    # HEAD vs the index git is about to commit: GIT_INDEX_FILE respected.
    env = clean_env(keep_index=True)
    return _git(root, "diff", "--cached", *_NAME_STATUS, "--ignore-submodules", "HEAD", env=env, check=check)


def staged_changes(root: str) -> list[Change]:
    """HEAD vs the index git is about to commit (GIT_INDEX_FILE respected)."""
    return parse_name_status(_staged_diff(root, check=True).stdout)


def staged_changes_if_head(root: str) -> list[Change] | None:
    """`staged_changes`, or None before the first commit (nothing to compare with), in one git process
    where a repository with commits is concerned: the no-op hook pays for each process it starts."""
    proc = _staged_diff(root, check=False)
    if proc.returncode == 0:
        return parse_name_status(proc.stdout)
    if not has_commits(root):
        return None
    return staged_changes(root)  # the failure, reported as before


def range_changes(root: str, from_rev: str, to_rev: str) -> list[Change]:
    out = _git(root, "diff", *_NAME_STATUS, "--ignore-submodules", from_rev, to_rev).stdout
    return parse_name_status(out)


def worktree_changes(root: str, rev: str) -> list[Change]:
    """`rev` vs the working tree (submodules included)."""
    return parse_name_status(_git(root, "diff", *_NAME_STATUS, rev).stdout)


def tracked_changes(root: str) -> list[str]:
    """Tracked files that differ from HEAD, staged or not (a rename: its new path)."""
    return parse_status_paths(_git(root, "status", "--porcelain=v1", "-z", "--untracked-files=no").stdout)


# -- reading objects: `git cat-file --batch`, one-shot and persistent


def cat_blobs(root: str, specs: Sequence[str], *, keep_index: bool = False) -> list[bytes | None]:
    """The contents of `rev:path` specs (`:path` is the index) in one `git cat-file --batch`; None when
    missing or not a blob. Plain git: the cheap "did any constructor change?" check runs on the no-op
    path."""
    if not specs:
        return []
    out = _git(
        root,
        "cat-file",
        "--batch",
        env=clean_env(keep_index=keep_index),
        input=b"".join(s.encode() + b"\n" for s in specs),
    ).stdout
    stream = io.BytesIO(out)
    return [o.data if (o := read_object(stream)) is not None and o.type == b"blob" else None for _ in specs]


def read_blob(root: str, rev: str, path: str) -> bytes | None:
    """The file `path` at `rev`, or None."""
    return cat_blobs(root, [f"{rev}:{path}"])[0]


# Requests sent in one round trip: 64 of them are 2.6 kB, well within a pipe's buffer, whatever cat-file
# is doing meanwhile.
_BATCH = 64


class BatchReader:
    """One persistent `git cat-file --batch`, started on the first read, for bulk reads: a large commit's
    static pass reads a thousand blobs and GitPython reads one object per round trip; a forked child
    must start its own process (the pipes it inherited are its parent's conversation)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid = os.getpid()  # the process that talks to `_proc`

    @property
    def pid(self) -> int | None:
        """The cat-file process this process talks to, if started."""
        return self._proc.pid if self._proc is not None and self._pid == os.getpid() else None

    def read(self, requests: Sequence[str]) -> list[GitObject | None]:
        """Objects by id or by `rev:path` / `rev^{tree}`; None where a request names none."""
        out: list[GitObject | None] = []
        for k in range(0, len(requests), _BATCH):
            out.extend(self._round_trip(requests[k : k + _BATCH]))
        return out

    def _round_trip(self, requests: Sequence[str]) -> list[GitObject | None]:
        if self._proc is None or self._pid != os.getpid():
            self._pid = os.getpid()
            self._proc = subprocess.Popen(
                ("git", "cat-file", "--batch"),
                cwd=self.root,
                env=clean_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(b"".join(r.encode("utf-8", "surrogateescape") + b"\n" for r in requests))
        proc.stdin.flush()
        return [read_object(proc.stdout) for _ in requests]

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and self._pid == os.getpid():
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.close()
            proc.wait()
            proc.stdout.close()

    def __del__(self) -> None:
        # Nobody has to close a reader: its cat-file process ends (EOF) when the reader goes.
        with contextlib.suppress(Exception):
            self.close()


def ls_files(root: str, *, staged: bool) -> dict[str, tuple[str, str]]:
    """(mode, blob id) by path of the index's stage-0 entries, as `git ls-files -s` lists them: for the
    indexes GitPython can't read (git/objects.py)."""
    return parse_ls_files(_git(root, "ls-files", "-z", "-s", env=clean_env(keep_index=staged)).stdout)


# -- writing: a commit from a temporary index, the real index, merges, patches


@contextlib.contextmanager
def temporary_index(
    root: str, git_dir: str, name: str, tree: str, extra: dict[str, str] | None = None
) -> Iterator[dict[str, str]]:
    """An index of bench-op's own (.git/bench-op/<name>.<pid>) holding `tree`, and the environment that
    points git at it; removed on the way out (git removes its own lock on it)."""
    folder = os.path.join(git_dir, "bench-op")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{name}.{os.getpid()}")
    env = clean_env(extra={"GIT_INDEX_FILE": path, **(extra or {})})
    try:
        _git(root, "read-tree", tree, env=env)
        yield env
    finally:
        if os.path.exists(path):
            os.unlink(path)


def stage_blob(root: str, env: dict[str, str], mode: str, blob: str, path: str) -> None:
    """Put `blob` at `path` in the temporary index `env` points at."""
    _git(root, "update-index", "--cacheinfo", f"{mode},{blob},{path}", env=env)


def set_index_entry(root: str, mode: str, blob: str, path: str) -> bool:
    """Put `blob` at `path` in the work tree's own index; False when git refuses."""
    return _git(root, "update-index", "--cacheinfo", f"{mode},{blob},{path}", check=False).returncode == 0


def commit_index(
    root: str, env: dict[str, str], *, hooks: str, message: str, reset_author: bool
) -> str | None:
    """`git commit` of the temporary index `env` points at, with the hooks in `hooks` (an empty folder:
    none) and `message`; None when committed, else git's reason."""
    proc = _git(
        root,
        "-c",
        f"core.hooksPath={hooks}",
        "commit",
        "--no-verify",
        "-q",
        "--no-edit",
        *(["--reset-author"] if reset_author else []),
        "-F",
        "-",
        env=env,
        input=message.encode("utf-8"),
        check=False,
    )
    return None if proc.returncode == 0 else _last_error(proc)


def applies(root: str, env: dict[str, str], patch: bytes, path: str) -> bool:
    """Would `git apply --cached` of `patch`'s hunks for `path` succeed on the index `env` points at?"""
    proc = _git(
        root, "apply", "--cached", "--check", f"--include={path}", "-", env=env, input=patch, check=False
    )
    return proc.returncode == 0


def patches_apply(root: str, patches: Sequence[str]) -> bool:
    """Would `git apply PATCH...` succeed on the working tree now (not yet applied, not outdated)?"""
    return _git(root, "apply", "--check", *patches, check=False).returncode == 0


def merge_file(root: str, base: bytes, ours: bytes, theirs: bytes) -> bytes | None:
    """`git merge-file`: ours + (base -> theirs); None on conflict."""
    import tempfile  # here, not at the top: the no-op path imports this module

    with tempfile.TemporaryDirectory(prefix="bench-op-merge-") as d:
        paths = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            p = os.path.join(d, name)
            with open(p, "wb") as f:
                f.write(data)
            paths.append(p)
        proc = _git(root, "merge-file", "-p", "-q", *paths, check=False)
    return proc.stdout if proc.returncode == 0 else None


# -- notes


def read_note(root: str, ref: str, commit: str) -> str | None:
    proc = _git(root, "notes", f"--ref={ref}", "show", commit, check=False)
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None


def write_note(root: str, ref: str, commit: str, text: str) -> None:
    """Replace the note on `commit`. Raises GitError when git refuses."""
    _git(root, "notes", f"--ref={ref}", "add", "-f", "-F", "-", commit, input=text.encode("utf-8"))


def noted_commits(root: str, ref: str) -> set[str]:
    proc = _git(root, "notes", f"--ref={ref}", "list", check=False)
    if proc.returncode != 0:
        return set()
    return {line.split()[1] for line in proc.stdout.decode().splitlines() if len(line.split()) == 2}


# -- worktrees


def add_worktree(root: str, path: str, commit: str, *, hooks: str) -> None:
    """A detached checkout of `commit` at `path`, with the hooks in `hooks` (an empty folder: none)."""
    _git(root, "-c", f"core.hooksPath={hooks}", "worktree", "add", "--detach", "-q", "-f", path, commit)


def remove_worktree(root: str, path: str) -> None:
    """Remove the worktree at `path` and git's record of it; the user's other worktrees, stale ones
    included, stay as they are (no `git worktree prune`)."""
    if _git(root, "worktree", "remove", "--force", path, check=False).returncode != 0:
        import shutil

        shutil.rmtree(path, ignore_errors=True)
        _git(root, "worktree", "remove", "--force", path, check=False)  # with the folder gone, its record


# -- the agent's sandbox: a repository of its own that borrows the user's objects (git/sandbox.py)


def init_borrowing(dest: str, objects: str) -> None:
    """An empty repository at `dest` (no template: no hooks) that reads `objects` (the user's object store)
    through alternates and never writes there."""
    _git(dest, "init", "-q", "--template=", ".")
    with open(os.path.join(dest, ".git", "objects", "info", "alternates"), "w", encoding="utf-8") as f:
        f.write(os.path.abspath(objects) + "\n")


def checkout_tree(dest: str, commit: str, tree: str | None, *, hooks: str) -> None:
    """`dest`'s working tree at `commit` (detached), or with `tree` on top of it; no hook runs."""
    _git(dest, "-c", f"core.hooksPath={hooks}", "checkout", "-q", "--detach", commit)
    if tree is not None:
        _git(dest, "-c", f"core.hooksPath={hooks}", "read-tree", "-u", "--reset", tree)


def commit_everything(dest: str, message: str, *, hooks: str, identity: dict[str, str]) -> str:
    """Everything in `dest`'s working tree committed (no hook, no signing); the commit's id."""
    _git(dest, "add", "-A")
    env = clean_env(extra=identity)
    flags = ("-c", f"core.hooksPath={hooks}", "-c", "commit.gpgSign=false")
    _git(dest, *flags, "commit", "-q", "--no-verify", "--allow-empty", "-m", message, env=env)
    return head(dest)


def changes_since(dest: str, base: str) -> list[Change]:
    """Every path `dest`'s working tree changed since `base`: committed there since or not, tracked or new."""
    _git(dest, "add", "-A")
    return parse_name_status(
        _git(dest, "diff", "--cached", "--name-status", "-z", "--no-renames", base).stdout
    )


def index_tree(root: str, index: str) -> str:
    """The tree the index file `index` holds, written from a copy of it: that file is only read."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-op-index-") as tmp:
        copy = os.path.join(tmp, "index")
        shutil.copyfile(index, copy)
        return decode(_git(root, "write-tree", env=clean_env(extra={"GIT_INDEX_FILE": copy})).stdout).strip()
