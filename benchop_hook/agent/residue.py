"""Which files the agent gets: only those still blocked on an interface reason once bench-op's own rewrites
and runs are done. A call bench-op could not rewrite from evidence, or a run that ended in an interface error
the repair loop could not fix. Never a file that is done, never one blocked for another reason (a kernel
crash, a CUDA error, wrong numbers: those stay blocked with their reason)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchop_hook.fixing.results import FileResult, Finding
from benchop_hook.run.outcome import FileOutcome, RunOutcome


@dataclass(frozen=True)
class Blocked:
    """One file for the agent: why bench-op stopped, and the file it starts from."""

    path: str
    result: FileResult  # the static pass's word on the file
    why: str  # bench-op's reason, as its report said it
    start: bytes  # the file with bench-op's own fixes applied
    head: bytes  # the file as bench-op found it
    calls: tuple[Finding, ...]  # the calls bench-op could not fix (for a run: every call it judged)
    traceback: str | None = None  # the interface error the run ended in
    outcome: FileOutcome | None = None  # the run's outcome this replaces; None: blocked before any run


def residue(run: RunOutcome, user_edited: Callable[[str], bool]) -> tuple[Blocked, ...]:
    """The files still blocked on an interface reason, in report order. `user_edited(path)`: the file has
    the user's unstaged edits, which a run's repairs were made on top of: the agent then starts from the
    static fix alone, on the committed content. Pure but for that question."""
    out: list[Blocked] = []
    for fr in run.blocked_static:
        hand = tuple(f for f in fr.findings if f.needs_action and not f.runtime_candidate)
        first = fr.hand_edit()
        why = f"{first.site.path}:{first.site.lineno} {first.why_not or first.problem}"
        out.append(Blocked(fr.path, fr, why, _fixed(fr), fr.before or b"", hand))
    by_path = {fr.path: fr for fr in (run.result.files if run.result is not None else ())}
    for o in run.outcomes:
        if o.status != "blocked" or o.interface is None or o.helper or o.late or o.path not in by_path:
            continue
        fr = by_path[o.path]
        start = o.proposed if o.proposed is not None and not user_edited(o.path) else _fixed(fr)
        why = o.reason or "an interface error the repair loop could not fix"
        out.append(Blocked(o.path, fr, why, start, fr.before or b"", fr.findings, o.interface, o))
    return tuple(out)


def _fixed(fr: FileResult) -> bytes:
    return (fr.after if fr.changed else fr.before) or b""
