"""The commits before a revision, newest first: where the last recorded numbers of a file are looked for."""

from __future__ import annotations

from benchop_hook.git import repo as gitrepo


def recent_commits(root: str, rev: str, limit: int) -> list[str]:
    """At most `limit` commits reachable from `rev`, newest first (fewer in a shallow clone)."""
    proc = gitrepo.git(root, "rev-list", f"--max-count={limit}", rev, "--", check=False)
    return proc.stdout.decode().split() if proc.returncode == 0 else []
