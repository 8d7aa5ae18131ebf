"""The follow-up commit's message."""

from __future__ import annotations

import os
from collections.abc import Mapping

from benchop_hook.analysis.changes import OpChange
from benchop_hook.git.commit import TRAILER
from benchop_hook.records.baseline import vs_parent_column
from benchop_hook.report.run import not_run_why
from benchop_hook.report.words import grouped
from benchop_hook.run.measurements import table
from benchop_hook.run.outcome import RunOutcome

MESSAGE_LINES = 40  # a follow-up commit's message stays readable in `git log`
AGENT_TRAILER = "Bench-Op-Agent"  # the person's coding agent wrote part of the commit


def commit_message(run: RunOutcome, files: Mapping[str, bytes], *, full_report: str | None = None) -> str:
    """The follow-up commit's message: the subject names the Ops behind the committed files; the body lists
    only those Ops, then each rewrite, then a short numbers table; at most about MESSAGE_LINES lines, with
    how many more and where the whole report is (`full_report`)."""
    # A call several classes reach (through a dict) names them all: 'CumprodFwdOp/CumsumFwdOp'.
    reached = {
        name
        for fr in (run.result.files if run.result is not None else ())
        if fr.path in files
        for f in fr.findings
        for name in f.op.split("/")
    }
    groups = [
        (c, kids)
        for c, kids in (grouped(run.result) if run.result is not None else [])
        if not reached or c.name in reached or any(k.name in reached for k in kids)
    ]
    names = [os.path.basename(p) for p in sorted(files)]
    subject_files = ", ".join(names) if len(names) <= 2 else f"{len(names)} benchmark files"
    ops = [_named(c, kids, reached) for c, kids in groups]
    subject_ops = ", ".join(ops[:2]) + (f" and {len(ops) - 2} more" if len(ops) > 2 else "")
    many = len(ops) > 1 or "/" in subject_ops
    subject = f"bench-op: align {subject_files} with the new {subject_ops} interface{'s' if many else ''}"
    body: list[str] = []
    for c, kids in groups:
        body.append(c.headline())
        if kids:
            body.append(
                "  inherited by " + ", ".join(k.name for k in kids if not reached or k.name in reached)
            )
    mine = [o for o in run.outcomes if o.path in files]
    agents = sorted({o.agent.name for o in mine if o.agent is not None and o.agent.diff})
    for name in agents:  # first: who wrote what is never cut from the message
        edited = sorted(o.path for o in mine if o.agent is not None and o.agent.diff and o.agent.name == name)
        body += ["", f"Edited by the agent {name}, checked and run by bench-op: {', '.join(edited)}"]
    rewrites = [f"- {fx}" for o in mine for fx in o.fixes]
    if rewrites:
        body += ["", "Rewrites:", *rewrites]
    body += _learned_lines(run, files)
    numbered = [o for o in mine if o.numbers]
    for o in numbered:
        body += ["", f"Numbers for {o.path}" + (f" on {o.device}" if o.device else "") + ":"]
        rows = table(o.numbers)
        if run.comparison is not None:
            cases = list(dict.fromkeys(n.case for n in o.numbers))
            rows = vs_parent_column(rows, cases, o.path, run.comparison)
        body.extend("  " + r for r in rows[:6])
        if len(rows) > 6:
            body.append(f"  ... {len(rows) - 6} more cases")
    not_run = [o for o in mine if o.status == "not-run"]
    if not_run:
        body += ["", f"Not run here ({not_run_why(not_run)}): " + ", ".join(o.path for o in not_run)]
    if len(body) > MESSAGE_LINES:
        more = len(body) - MESSAGE_LINES
        where = f" in {full_report}" if full_report else " in the JSON report (`bench-op run --json PATH`)"
        body = [*body[:MESSAGE_LINES], f"... {more} more lines; the whole report is{where}"]
    trailers = [TRAILER, *(f"{AGENT_TRAILER}: {name}" for name in agents)]
    return "\n".join([subject, "", *body, "", *trailers, ""])


def _named(change: OpChange, kids: list[OpChange], reached: set[str]) -> str:
    """How the subject names a family of changes: the classes the committed files reach when they are one
    or two, else the family (the base class whose change they inherit)."""
    mine = sorted(k.name for k in kids if k.name in reached)
    if change.name in reached or not mine or len(mine) > 2:
        return change.name
    return "/".join(mine)


def _learned_lines(run: RunOutcome, files: Mapping[str, bytes]) -> list[str]:
    """One line per Op whose fix repeats the commit's own edit of its calls."""
    learned = {
        (f.op, f.example.path, f.example.line, f.example.agreeing)
        for fr in (run.result.files if run.result is not None else ())
        if fr.path in files
        for f in fr.findings
        if f.fixed and f.example is not None
    }
    return [
        f"Learned from the commit's own edits: {op} as {path}:{line} changed it ({n} agreeing)."
        for op, path, line, n in sorted(learned)
    ]
