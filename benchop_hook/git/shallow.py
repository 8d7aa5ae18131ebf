"""What a CI checkout lacks: the base of the range, when the clone is shallow or brought one branch only.

actions/checkout fetches a single commit by default, so `--from-ref origin/main` names a ref that is not
there. The message says how to bring it, in the words of the checkout the user has.
"""

from __future__ import annotations

from benchop_hook.git import repo as gitrepo


def is_shallow(root: str) -> bool:
    return gitrepo.is_shallow(root)


def remotes(root: str) -> list[str]:
    return gitrepo.remote_names(root)


def _fetches_every_branch(root: str, remote: str) -> bool:
    """The remote's refspec maps every branch to a remote-tracking one (a plain clone's, and
    actions/checkout's), so that `git fetch <remote> <branch>` also sets `<remote>/<branch>`."""
    specs = gitrepo.config_values(root, f"remote.{remote}.fetch")
    return any(s.lstrip("+") == f"refs/heads/*:refs/remotes/{remote}/*" for s in specs)


def missing_commit_message(root: str, ref: str) -> str:
    """One sentence for a ref that names no commit here: what to fetch when it looks like the base of a CI
    range, else the plain 'check the ref'."""
    shallow = is_shallow(root)
    name = ref.removeprefix("refs/remotes/")
    remote, _, branch = name.partition("/")
    if branch and remote in remotes(root):
        fetch = (
            f"git fetch {remote} {branch}"
            if _fetches_every_branch(root, remote)
            else f"git fetch {remote} {branch}:refs/remotes/{remote}/{branch}"
        )
        how = "a shallow clone" if shallow else "a clone"
        return (
            f"'{ref}' is not in this checkout ({how} that did not fetch {branch}): fetch it with "
            f"`fetch-depth: 0` in actions/checkout, or `{fetch}`, then run bench-op again."
        )
    if shallow:
        return (
            f"'{ref}' is not in this shallow clone: fetch more history (`fetch-depth: 0` in "
            "actions/checkout, or `git fetch --deepen=50`), then run bench-op again."
        )
    return f"'{ref}' is not a commit in this repository: check the ref and try again."
