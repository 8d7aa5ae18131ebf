"""BO1xx: what a call's arguments reach, before and after the change."""

from __future__ import annotations

from benchop_hook.rules.facts import BoundBefore
from benchop_hook.rules.registry import rule
from benchop_hook.rules.verdicts import LeaveToRun, Note


@rule(
    "BO101",
    "not-this-changes-break",
    summary="A call that did not bind the old signature either is no break of this change: it is reported, "
    "and "
    "never stops the commit (a condition bench-op can't evaluate around it leaves it to the run).",
    motivated_by="accelerate: a call broken by an earlier commit, reported as a hand edit on five later ones",
    fires="`Tracker(logging_dir=d)` at a commit that changed `Tracker`, where `logging_dir` was gone already",
    quiet="`Tracker(project_dir=d)`: it bound the old signature",
)
def not_this_changes_break(f: BoundBefore) -> Note | LeaveToRun | None:
    if f.bound_before:
        return None
    if f.guard is not None:
        return LeaveToRun("BO101", f"unknown: the run decides ({f.error_now}, but only {f.guard})")
    return Note(
        "BO101", "it did not bind before this change either: not this change's break; fix it when you can"
    )
