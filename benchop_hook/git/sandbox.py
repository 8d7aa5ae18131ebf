"""The agent's sandbox, as git sees it: a repository of its own in a temporary folder that borrows the user's
objects (alternates), checked out at the commit (or the staged tree) bench-op works on. Its git calls are
named functions of `repo.py`.

Not a linked worktree on purpose: a worktree shares the user's refs and stash, and an agent that runs
`git stash`, `git checkout -b` or `git commit` there would reach them. Here it reaches nothing of the user's;
what it writes goes into the sandbox's own object store and is deleted with it.
"""

from __future__ import annotations

import os

from benchop_hook.git import repo as gitrepo
from benchop_hook.git.formats import Change

# bench-op's own commit in the sandbox: what the agent starts from, and what its edit is diffed against.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "bench-op",
    "GIT_AUTHOR_EMAIL": "bench-op@localhost",
    "GIT_COMMITTER_NAME": "bench-op",
    "GIT_COMMITTER_EMAIL": "bench-op@localhost",
}


def _no_hooks(dest: str) -> str:
    return os.path.join(dest, ".git", "no-hooks")


def create(repo: gitrepo.RepoPaths, dest: str, commit: str, tree: str | None = None) -> None:
    """A repository at `dest` (an empty folder) checked out at `commit`, or with `tree` (the staged tree)
    on top of it; the user's objects are read through alternates, never written."""
    gitrepo.init_borrowing(dest, os.path.join(repo.common_dir, "objects"))
    os.makedirs(_no_hooks(dest), exist_ok=True)
    gitrepo.checkout_tree(dest, commit, tree, hooks=_no_hooks(dest))


def ignore(dest: str, patterns: list[str]) -> None:
    """What tools leave behind in a working tree (caches, an agent's history files): never the agent's
    edit."""
    os.makedirs(os.path.join(dest, ".git", "info"), exist_ok=True)  # (an empty template makes none)
    with open(os.path.join(dest, ".git", "info", "exclude"), "a", encoding="utf-8") as f:
        f.write("".join(p + "\n" for p in patterns))


def commit_all(dest: str, message: str) -> str:
    """Everything in the sandbox's working tree, committed; its commit id."""
    return gitrepo.commit_everything(dest, message, hooks=_no_hooks(dest), identity=_IDENTITY)


def changed_since(dest: str, base: str) -> list[Change]:
    """Every path the working tree (committed by the agent or not, tracked or new) changed since `base`."""
    return gitrepo.changes_since(dest, base)


def staged_tree(repo: gitrepo.RepoPaths) -> str:
    """The tree the user's index holds (only read)."""
    return gitrepo.index_tree(repo.root, os.path.join(repo.git_dir, "index"))
