"""What a run compares: staged changes, a range of commits, or
every benchmark against the current signatures.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from benchop_hook.errors import UsageError
from benchop_hook.git import repo as gitrepo


@dataclass(frozen=True)
class Target:
    """What is compared: the staged changes, a range of commits, or every file as it is."""

    mode: str  # "staged", "range" or "all"
    from_ref: str | None = None
    to_ref: str | None = None
    from_rev: str | None = None
    to_rev: str | None = None
    to_is_head: bool = False

    @property
    def label(self) -> str:
        if self.mode == "staged":
            return "staged changes"
        if self.mode == "all":
            return "all files"
        return f"{self.from_ref}..{self.to_ref}"

    def as_json(self) -> dict[str, object]:
        return {"mode": self.mode, "from": self.from_rev, "to": self.to_rev}


def resolve(
    root: str,
    *,
    all_files: bool,
    from_ref: str | None,
    to_ref: str | None,
    use_env: bool = True,
    staged: bool = False,
) -> Target:
    if staged and (all_files or from_ref or to_ref):
        raise UsageError("--staged compares HEAD with the index; drop --all-files / --from-ref / --to-ref.")
    if use_env and not staged and not all_files and from_ref is None and to_ref is None:
        from_ref = os.environ.get("PRE_COMMIT_FROM_REF") or None
        to_ref = os.environ.get("PRE_COMMIT_TO_REF") or None
    if all_files:
        if from_ref or to_ref:
            raise UsageError(
                "--all-files checks every benchmark against the current signatures; drop --from-ref/--to-ref."
            )
        return Target("all", to_is_head=True)
    if bool(from_ref) != bool(to_ref):
        raise UsageError("give both --from-ref and --to-ref, or neither.")
    if from_ref and to_ref:
        frm = gitrepo.resolve_commit(root, from_ref)
        to = gitrepo.resolve_commit(root, to_ref)
        head = gitrepo.verify(root, "HEAD") or ""
        return Target("range", from_ref, to_ref, frm, to, to_is_head=(to == head))
    if not gitrepo.has_commits(root):
        raise UsageError(
            "the repository has no commits yet, so there is no earlier version to compare with: "
            "commit first, or use --all-files."
        )
    return Target("staged", to_is_head=False)


def changed_files(root: str, target: Target) -> list[gitrepo.Change]:
    if target.mode == "staged":
        return gitrepo.staged_changes(root)
    if target.mode == "range":
        assert target.from_rev and target.to_rev
        return gitrepo.range_changes(root, target.from_rev, target.to_rev)
    return []
