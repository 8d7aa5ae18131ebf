"""The follow-up commit, made with git itself (identity, signing and config apply) from a
temporary index: the user's staging area and unstaged edits never enter it.

After the commit, the real index entries of the committed files move to the new
content (only where they still held the old commit's content), and the working
tree keeps the user's unstaged edits on top of the fix.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from benchop_hook.errors import BenchOpError
from benchop_hook.git import repo as gitrepo

TRAILER = "Bench-Op: follow-up"
ENV_GUARD = "BENCH_OP_FOLLOW_UP"


def is_follow_up(message: str) -> bool:
    return any(line.strip() == TRAILER for line in message.splitlines())


def merge3(root: str, base: bytes, ours: bytes, theirs: bytes) -> bytes | None:
    """`git merge-file`: ours + (base -> theirs); None on conflict."""
    if ours == base:
        return theirs
    if theirs == base or ours == theirs:
        return ours
    import tempfile  # here, not at the top: the hook's no-op path imports this module for ENV_GUARD

    with tempfile.TemporaryDirectory(prefix="bench-op-merge-") as d:
        paths = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            p = os.path.join(d, name)
            with open(p, "wb") as f:
                f.write(data)
            paths.append(p)
        proc = subprocess.run(
            ["git", "merge-file", "-p", "-q", *paths], capture_output=True, env=gitrepo.clean_env()
        )
    return proc.stdout if proc.returncode == 0 else None


@dataclass
class CommitResult:
    """What the follow-up commit did."""

    sha: str
    files: list[str]
    warnings: list[str]


def follow_up_commit(
    root: str,
    git_dir: str,
    head: str,
    files: dict[str, bytes],
    message: str,
    is_bench: Callable[[str], bool],
    lock_wait: float = 5.0,
) -> CommitResult:
    """Commit `files` (path -> new content) on top of `head`. Raises
    BenchOpError, leaving nothing half-done.
    """
    outside = sorted(p for p in files if not is_bench(p))
    if outside:
        raise BenchOpError(
            f"refused to commit {', '.join(outside)}: bench-op only commits files under benchmark-paths."
        )
    current = gitrepo.git(root, "rev-parse", "HEAD").stdout.decode().strip()
    if current != head:
        raise BenchOpError(
            "HEAD moved while bench-op was running: it did not commit; run `bench-op run --from-ref "
            f"{head[:12]}~1 --to-ref HEAD` when you are ready."
        )
    if not gitrepo.wait_for_index_lock(git_dir, lock_wait):
        raise BenchOpError(
            "another git process holds .git/index.lock: bench-op did not commit (and did not touch the "
            "lock); "
            "when it is done, run `bench-op run --from-ref HEAD~1 --to-ref HEAD`."
        )
    folder = os.path.join(git_dir, "bench-op")
    os.makedirs(folder, exist_ok=True)
    tmp_index = os.path.join(folder, f"index.{os.getpid()}")
    no_hooks = os.path.join(folder, "no-hooks")
    os.makedirs(no_hooks, exist_ok=True)
    env = gitrepo.clean_env(extra={"GIT_INDEX_FILE": tmp_index, ENV_GUARD: "1"})
    blobs: dict[str, tuple[str, str]] = {}
    try:
        gitrepo.git(root, "read-tree", head, env=env)
        for path, data in sorted(files.items()):
            blob = gitrepo.hash_blob(root, path, data)
            mode = gitrepo.file_mode(root, head, path)
            blobs[path] = (mode, blob)
            gitrepo.git(root, "update-index", "--cacheinfo", f"{mode},{blob},{path}", env=env)
        _commit_index(root, git_dir, env, no_hooks, message)
    finally:
        if os.path.exists(tmp_index):
            os.unlink(tmp_index)  # our own temporary index (git removes its own lock on it)
    sha = gitrepo.git(root, "rev-parse", "HEAD").stdout.decode().strip()
    # Bring the real index up to the new commit for these files, where it still held the old content;
    # anything else there is the user's (staged) work and stays as it is.
    warnings = []
    for path, (mode, blob) in blobs.items():
        old = (
            gitrepo.git(root, "rev-parse", "-q", "--verify", f"{head}:{path}", check=False)
            .stdout.decode()
            .strip()
        )
        entry = gitrepo.index_entry(root, path)
        if entry is None or entry[1] != old:
            continue
        proc = gitrepo.git(root, "update-index", "--cacheinfo", f"{mode},{blob},{path}", check=False)
        if proc.returncode != 0:
            warnings.append(
                f"committed, but the index entry of {path} still holds the old content: run `git reset -q "
                f"-- {path}`"
            )
    return CommitResult(sha, sorted(files), warnings)


def _commit_index(root: str, git_dir: str, env: dict[str, str], no_hooks: str, message: str) -> None:
    """`git commit` of the temporary index in `env`, with `message`; BenchOpError when git refuses."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write(message)
        msg_path = f.name
    try:
        # Hooks are off for this one commit: the trailer and ENV_GUARD keep bench-op from reacting to it
        # even where a hook does run (an amend, a cherry-pick), and no other hook re-runs on it.
        # After a cherry-pick's own commit, CHERRY_PICK_HEAD is still there: without --reset-author
        # git would give this commit the picked commit's author (git allows the flag only then).
        picking = ["--reset-author"] if os.path.exists(os.path.join(git_dir, "CHERRY_PICK_HEAD")) else []
        proc = gitrepo.git(
            root,
            "-c",
            f"core.hooksPath={no_hooks}",
            "commit",
            "--no-verify",
            "-q",
            "--no-edit",
            *picking,
            "-F",
            msg_path,
            env=env,
            check=False,
        )
    finally:
        os.unlink(msg_path)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BenchOpError(
            f"git commit refused the follow-up commit: {err[-1] if err else 'exit ' + str(proc.returncode)}"
        )


def pre_commit_stash(ppid: int | None = None) -> bytes | None:
    """The user's unstaged changes that pre-commit stashed before running this hook, if any.

    pre-commit saves them as `patch<time>-<pid>` in its store and restores them after the hooks;
    a fix that overlaps them would make that restore fail, so bench-op leaves such a file alone.
    """
    if os.environ.get("PRE_COMMIT") != "1":
        return None
    store = os.environ.get("PRE_COMMIT_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "pre-commit"
    )
    pid = ppid if ppid is not None else os.getppid()
    try:
        names = [n for n in os.listdir(store) if n.startswith("patch") and n.endswith(f"-{pid}")]
    except OSError:
        return None
    if not names:
        return None
    newest = max(names, key=lambda n: os.path.getmtime(os.path.join(store, n)))
    try:
        with open(os.path.join(store, newest), "rb") as f:
            return f.read()
    except OSError:
        return None


def patch_applies(root: str, git_dir: str, head: str, path: str, content: bytes, patch: bytes) -> bool:
    """Would `git apply` of the user's stashed patch (its hunks for `path`) succeed on top of `content`?"""
    folder = os.path.join(git_dir, "bench-op")
    os.makedirs(folder, exist_ok=True)
    tmp_index = os.path.join(folder, f"check-index.{os.getpid()}")
    env = gitrepo.clean_env(extra={"GIT_INDEX_FILE": tmp_index})
    try:
        gitrepo.git(root, "read-tree", head, env=env)
        blob = gitrepo.hash_blob(root, path, content)
        mode = gitrepo.file_mode(root, head, path)
        gitrepo.git(root, "update-index", "--cacheinfo", f"{mode},{blob},{path}", env=env)
        proc = gitrepo.git(
            root, "apply", "--cached", "--check", f"--include={path}", "-", env=env, input=patch, check=False
        )
        return proc.returncode == 0
    finally:
        if os.path.exists(tmp_index):
            os.unlink(tmp_index)


def touches(patch: bytes, path: str) -> bool:
    return f"diff --git a/{path} b/{path}".encode() in patch
