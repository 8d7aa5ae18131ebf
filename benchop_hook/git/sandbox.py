"""The agent's sandbox, as git sees it: a repository of its own in a temporary folder that borrows the user's
objects (alternates), checked out at the commit (or the staged tree) bench-op works on.

Not a linked worktree on purpose: a worktree shares the user's refs and stash, and an agent that runs
`git stash`, `git checkout -b` or `git commit` there would reach them. Here it reaches nothing of the user's;
what it writes goes into the sandbox's own object store and is deleted with it.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from benchop_hook.git import repo as gitrepo

# bench-op's own commit in the sandbox: what the agent starts from, and what its edit is diffed against.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "bench-op",
    "GIT_AUTHOR_EMAIL": "bench-op@localhost",
    "GIT_COMMITTER_NAME": "bench-op",
    "GIT_COMMITTER_EMAIL": "bench-op@localhost",
}


def _git(dest: str, *args: str, env: dict[str, str] | None = None) -> str:
    """git in the sandbox, with no hook of the user's configuration and no signing."""
    no_hooks = os.path.join(dest, ".git", "no-hooks")
    out = gitrepo.git(dest, "-c", f"core.hooksPath={no_hooks}", "-c", "commit.gpgSign=false", *args, env=env)
    return out.stdout.decode("utf-8", "surrogateescape")


def create(repo: gitrepo.RepoPaths, dest: str, commit: str, tree: str | None = None) -> None:
    """A repository at `dest` (an empty folder) checked out at `commit`, or with `tree` (the staged tree)
    on top of it; the user's objects are read through alternates, never written."""
    gitrepo.git(dest, "init", "-q", "--template=", ".")
    os.makedirs(os.path.join(dest, ".git", "no-hooks"), exist_ok=True)
    objects = os.path.join(repo.common_dir, "objects")
    with open(os.path.join(dest, ".git", "objects", "info", "alternates"), "w", encoding="utf-8") as f:
        f.write(os.path.abspath(objects) + "\n")
    _git(dest, "checkout", "-q", "--detach", commit)
    if tree is not None:
        _git(dest, "read-tree", "-u", "--reset", tree)


def ignore(dest: str, patterns: list[str]) -> None:
    """What tools leave behind in a working tree (caches, an agent's history files): never the agent's
    edit."""
    os.makedirs(os.path.join(dest, ".git", "info"), exist_ok=True)  # (an empty template makes none)
    with open(os.path.join(dest, ".git", "info", "exclude"), "a", encoding="utf-8") as f:
        f.write("".join(p + "\n" for p in patterns))


def commit_all(dest: str, message: str) -> str:
    """Everything in the sandbox's working tree, committed; its commit id."""
    _git(dest, "add", "-A")
    _git(
        dest,
        "commit",
        "-q",
        "--no-verify",
        "--allow-empty",
        "-m",
        message,
        env=gitrepo.clean_env(extra=_IDENTITY),
    )
    return _git(dest, "rev-parse", "HEAD").strip()


def changed_since(dest: str, base: str) -> list[gitrepo.Change]:
    """Every path the working tree (committed by the agent or not, tracked or new) changed since `base`."""
    _git(dest, "add", "-A")
    out = gitrepo.git(dest, "diff", "--cached", "--name-status", "-z", "--no-renames", base).stdout
    return gitrepo.parse_name_status(out)


def staged_tree(repo: gitrepo.RepoPaths) -> str:
    """The tree the index holds, written from a copy of it: the user's index file is only read."""
    index = os.path.join(repo.git_dir, "index")
    with tempfile.TemporaryDirectory(prefix="bench-op-index-") as tmp:
        copy = os.path.join(tmp, "index")
        shutil.copyfile(index, copy)
        env = gitrepo.clean_env(extra={"GIT_INDEX_FILE": copy})
        return gitrepo.git(repo.root, "write-tree", env=env).stdout.decode().strip()
