"""The state the post-commit hook sees after a real commit C, rebuilt as a commit: the one place the
scripts of realworld/ and perf/ build it.

    from hookstate import replay_commit  # realworld/ on sys.path

With C checked out (detached), `replay_commit(root, sha, is_bench)` puts every benchmark file C edited back
to its version at C's first parent P and commits that tree as a new commit R whose parent is P, moving HEAD
to it. R is C without its benchmark edits, as the engineers would have committed it had they left the
benchmarks to bench-op. HEAD~1..HEAD (= P..R) is then the range the post-commit hook judges.

Why a commit and not the same files left uncommitted on C: `bench-op check|fix --from-ref A --to-ref B` read
the benchmarks as they are at B, not in the working tree; with B = C they would judge the engineers' fixed
benchmarks. Why P as R's parent and not C: the range HEAD~1..HEAD is then one commit, the hook's own range,
and whatever compares HEAD with HEAD~1 (griffe check in perf/real.py) sees the Op change.

R is deterministic (fixed author, committer, dates and message; made by `git commit-tree`, which runs no
hook, with the user's and the system's git configuration ignored), so that two runs name the same sha.
Grading stays against C itself: C's diff is the engineers' edit. Files C added or deleted are left as C has
them (there is no parent version to put back).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

# Fixed identity and dates: the commit's sha depends only on C.
_ENV = {
    "GIT_AUTHOR_NAME": "bench-op replay",
    "GIT_AUTHOR_EMAIL": "replay@bench-op.invalid",
    "GIT_COMMITTER_NAME": "bench-op replay",
    "GIT_COMMITTER_EMAIL": "replay@bench-op.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+0000",
    # Nobody's settings (signing, an identity, a hooks path) reach the commit.
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
# The repository's own configuration (a scratch clone's) can't sign the commit or convert line endings either.
_CONFIG = ("-c", "commit.gpgsign=false", "-c", "core.autocrlf=false")


@dataclass(frozen=True)
class Replayed:
    """The rebuilt state: `head` is R (checked out), `parent` is P, `pairs` the benchmark files put back as
    (path at P, path at C)."""

    sha: str
    parent: str
    head: str
    pairs: tuple[tuple[str, str], ...]


def _git(root: str, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(
        ["git", *_CONFIG, *args], cwd=root, capture_output=True, text=True, check=True, env=env
    ).stdout


def edited_benchmarks(
    root: str, sha: str, parent: str, is_bench: Callable[[str], bool]
) -> list[tuple[str, str]]:
    """(path at `parent`, path at `sha`) of the Python benchmark files `sha` modified or renamed."""
    out = []
    for line in _git(root, "diff", "--name-status", "-M", parent, sha).splitlines():
        parts = line.split("\t")
        status, old_path, new_path = parts[0], parts[1], parts[-1]
        if status[0] in "AD" or not new_path.endswith(".py") or not is_bench(new_path):
            continue
        out.append((old_path, new_path))
    return out


def replay_commit(root: str, sha: str, is_bench: Callable[[str], bool]) -> Replayed:
    """`sha` (checked out, its benchmark files as committed) with its benchmark edits put back to its first
    parent's version, committed as a child of that parent (see the module's docstring); HEAD moves to the new
    commit, whose tree the index and the benchmark files then hold. Other edits in the working tree (the
    configuration a script appends to pyproject.toml) stay as they are, uncommitted."""
    sha = _git(root, "rev-parse", f"{sha}^{{commit}}").strip()
    if _git(root, "rev-parse", "HEAD").strip() != sha:
        raise RuntimeError(f"replay_commit: {sha} is not checked out in {root}")
    parent = _git(root, "rev-parse", f"{sha}^1").strip()
    pairs = edited_benchmarks(root, sha, parent, is_bench)
    for old_path, new_path in pairs:
        data = subprocess.run(
            ["git", "show", f"{parent}:{old_path}"], cwd=root, capture_output=True, check=True
        ).stdout
        with open(os.path.join(root, new_path), "wb") as f:
            f.write(data)
    if pairs:
        _git(root, "add", "--", *(new for _, new in pairs))
    # --missing-ok: a snapshot of a large repository can lack the objects of its biggest files (data the
    # benchmarks never read); the tree still names them, as C's own tree does.
    tree = _git(root, "write-tree", "--missing-ok").strip()
    subject = _git(root, "log", "-1", "--format=%s", sha).strip()
    message = f"{subject}\n\nReplay of {sha}: its benchmark edits put back to {parent}'s version.\n"
    env = dict(os.environ, **_ENV)
    head = _git(root, "commit-tree", tree, "-p", parent, "-m", message, env=env).strip()
    # The index and the working tree already hold R's tree: only HEAD moves.
    _git(root, "update-ref", "--no-deref", "HEAD", head)
    return Replayed(sha, parent, head, tuple(pairs))
