"""The follow-up commit, made with git itself (identity, signing and config apply) from a
temporary index: the user's staging area and unstaged edits never enter it.

After the commit, the real index entries of the committed files move to the new
content (only where they still held the old commit's content), and the working
tree keeps the user's unstaged edits on top of the fix.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from benchop_hook.errors import BenchOpError
from benchop_hook.git import objects as gitobjects
from benchop_hook.git import repo as gitrepo
from benchop_hook.program import command

TRAILER = "Bench-Op: follow-up"
ENV_GUARD = "BENCH_OP_FOLLOW_UP"


def is_follow_up(message: str) -> bool:
    return any(line.strip() == TRAILER for line in message.splitlines())


def merge3(root: str, base: bytes, ours: bytes, theirs: bytes) -> bytes | None:
    """ours + (base -> theirs); None on conflict."""
    if ours == base:
        return theirs
    if theirs == base or ours == theirs:
        return ours
    return gitrepo.merge_file(root, base, ours, theirs)


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
    _check_can_commit(root, git_dir, head, files, is_bench, lock_wait)
    blobs = _commit(root, git_dir, head, files, message)
    sha = gitrepo.head(root)
    return CommitResult(sha, sorted(files), _follow_in_index(root, head, blobs))


def _check_can_commit(
    root: str,
    git_dir: str,
    head: str,
    files: dict[str, bytes],
    is_bench: Callable[[str], bool],
    lock_wait: float,
) -> None:
    outside = sorted(p for p in files if not is_bench(p))
    if outside:
        raise BenchOpError(
            f"refused to commit {', '.join(outside)}: bench-op only commits files under benchmark-paths."
        )
    if gitrepo.head(root) != head:
        raise BenchOpError(
            f"HEAD moved while bench-op was running: it did not commit; run "
            f"`{command(f'run --from-ref {head[:12]}~1 --to-ref HEAD')}` when you are ready."
        )
    if not gitrepo.wait_for_index_lock(git_dir, lock_wait):
        raise BenchOpError(
            "another git process holds .git/index.lock: bench-op did not commit (and did not touch the "
            "lock); "
            f"when it is done, run `{command('run --from-ref HEAD~1 --to-ref HEAD')}`."
        )


def _commit(
    root: str, git_dir: str, head: str, files: dict[str, bytes], message: str
) -> dict[str, tuple[str, str]]:
    """The commit of `files` on `head`, made from a temporary index; (mode, blob) of each file."""
    no_hooks = os.path.join(git_dir, "bench-op", "no-hooks")
    os.makedirs(no_hooks, exist_ok=True)
    blobs: dict[str, tuple[str, str]] = {}
    with gitrepo.temporary_index(root, git_dir, "index", head, extra={ENV_GUARD: "1"}) as env:
        for path, data in sorted(files.items()):
            blobs[path] = (_mode_at(root, head, path), gitobjects.write_blob(root, data))
            gitrepo.stage_blob(root, env, *blobs[path], path)
        # Hooks are off for this one commit: the trailer and ENV_GUARD keep bench-op from reacting to it
        # even where a hook does run (an amend, a cherry-pick), and no other hook re-runs on it.
        # After a cherry-pick's own commit, CHERRY_PICK_HEAD is still there: without --reset-author
        # git would give this commit the picked commit's author (git allows the flag only then).
        picking = os.path.exists(os.path.join(git_dir, "CHERRY_PICK_HEAD"))
        refused = gitrepo.commit_index(root, env, hooks=no_hooks, message=message, reset_author=picking)
    if refused is not None:
        raise BenchOpError(f"git commit refused the follow-up commit: {refused}")
    return blobs


def _follow_in_index(root: str, head: str, blobs: dict[str, tuple[str, str]]) -> list[str]:
    """Bring the real index up to the new commit for these files, where it still held the old content;
    anything else there is the user's (staged) work and stays as it is. Warnings where git refused."""
    warnings = []
    for path, (mode, blob) in blobs.items():
        old = gitobjects.tree_entry(root, head, path)
        entry = gitobjects.index_entries(root, staged=False).get(path)
        if entry is None or entry[1] != (old[1] if old else ""):
            continue
        if not gitrepo.set_index_entry(root, mode, blob, path):
            warnings.append(
                f"committed, but the index entry of {path} still holds the old content: run `git reset -q "
                f"-- {path}`"
            )
    return warnings


def _mode_at(root: str, rev: str, path: str) -> str:
    entry = gitobjects.tree_entry(root, rev, path)
    return entry[0] if entry else "100644"


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
    with gitrepo.temporary_index(root, git_dir, "check-index", head) as env:
        gitrepo.stage_blob(root, env, _mode_at(root, head, path), gitobjects.write_blob(root, content), path)
        return gitrepo.applies(root, env, patch, path)


def touches(patch: bytes, path: str) -> bool:
    return f"diff --git a/{path} b/{path}".encode() in patch
