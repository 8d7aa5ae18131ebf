"""A run as the terminal shows it: each file's outcome and numbers, and one summary line."""

from __future__ import annotations

from benchop_hook.report.words import plural
from benchop_hook.run.measurements import table
from benchop_hook.run.outcome import FileOutcome, RunOutcome


def outcome_lines(o: FileOutcome) -> list[str]:
    where = f" on {o.device}" if o.device else ""
    gpus = f" (GPU {', '.join(sorted(o.gpus))})" if o.gpus and any(o.gpus) else ""
    runs = f"{plural(o.runs, 'run')}, {o.seconds:.1f} s{where}{gpus}"
    lines: list[str] = []
    if o.helper:
        lines.append(
            f"bench-op: {o.path}: "
            + (f"fixed; {o.reason}" if o.status != "blocked" else f"blocked: {o.reason}")
        )
        return lines
    if o.status == "passed":
        lines.append(f"bench-op: {o.path}: passed with numbers ({plural(o.cases, 'case')}, {runs})")
        lines.extend("    " + row for row in table(o.numbers))
    elif o.status == "not-run":
        ran = f" ({runs})" if o.runs else ""
        lines.append(f"bench-op: {o.path}: not run here: {o.reason}; the static fix stands{ran}")
    else:
        word = "blocked" if o.status == "blocked" else "not done"
        lines.append(f"bench-op: {o.path}: {word}: {o.reason} ({runs})")
        if o.patch:
            lines.append(
                f"    the proposed rewrite was not left in the tree; it is saved as {o.patch} "
                "(git apply it to use it)"
            )
    if o.agent is not None and o.agent.diff and o.status == "passed":
        lines.append(f"    the agent {o.agent.name} wrote part of it; bench-op checked and ran it")
    lines.extend(f"    note: {n}" for n in o.notes)
    return lines


def not_run_why(outcomes: list[FileOutcome]) -> str:
    """The reason files were not run, once: the shared one, or a pointer to the lines above."""
    reasons = {o.reason or "" for o in outcomes}
    return reasons.pop() if len(reasons) == 1 else "the reasons are above"


def summary_line(run: RunOutcome) -> str:
    done = [o for o in run.outcomes if o.status == "passed" and not o.helper]
    not_run = [o for o in run.outcomes if o.status == "not-run" and not o.helper]
    helpers = [o for o in run.outcomes if o.helper and o.status in ("passed", "not-run")]
    bad = len([o for o in run.outcomes if o.bad]) + len(run.blocked_static)
    parts = []
    repaired = [o for o in done if o.fixes or o.content is not None or o.agent is not None]
    if repaired:
        by_agent = sum(1 for o in repaired if o.agent is not None)
        helped = f" ({by_agent} with the agent's edit)" if by_agent else ""
        parts.append(f"{plural(len(repaired), 'benchmark file')} repaired and producing numbers{helped}")
    if len(done) > len(repaired):
        n = len(done) - len(repaired)
        parts.append(f"{plural(n, 'benchmark file')} ran with numbers, nothing to fix")
    fixed_not_run = [o for o in not_run if o.fixes or o.content is not None]
    if fixed_not_run:
        n, why = len(fixed_not_run), not_run_why(fixed_not_run)
        parts.append(f"{plural(n, 'benchmark file')} fixed but not run ({why})")
    if len(not_run) > len(fixed_not_run):
        others = [o for o in not_run if o not in fixed_not_run]
        parts.append(f"{plural(len(others), 'benchmark file')} not run here ({not_run_why(others)})")
    if helpers:
        parts.append(f"{plural(len(helpers), 'helper module')} fixed")
    if run.excluded:
        parts.append(f"{plural(len(run.excluded), 'benchmark file')} left alone")
    if bad:
        parts.append(f"{plural(bad, 'benchmark file')} blocked")
    if not parts:
        return "bench-op: nothing to do."
    # the status word leads unless the sentence already says it ("blocked: 2 files blocked")
    text = ", ".join(parts)
    word = {"fixed-not-run": "fixed without numbers" if fixed_not_run else "no numbers"}.get(
        run.status, run.status
    )
    lead = "" if (run.status == "blocked" and len(parts) == 1 and bad) else f"{word}: "
    return f"bench-op: {lead}{text}."


def follow_up_line(follow_up: str, yours: str) -> str:
    """The follow-up stage's last line: both commits by name, since git's `[branch sha]` line for the user's
    commit comes after the hook's output and names the user's commit, not HEAD."""
    return f"bench-op: HEAD is now the follow-up commit {follow_up[:12]}, on top of your commit {yours[:12]}."
