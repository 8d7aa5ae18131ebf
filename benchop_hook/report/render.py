"""One result, several renderings: terminal text, JSON, and the follow-up commit's body."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping
from typing import Any

from benchop_hook.analysis.changes import OpChange
from benchop_hook.fixing.results import Finding, StaticResult, shown_call
from benchop_hook.git.commit import TRAILER
from benchop_hook.git.target import Target
from benchop_hook.records.baseline import decorate_json, vs_parent_column
from benchop_hook.run.measurements import table
from benchop_hook.run.outcome import FileOutcome, RunOutcome


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 'es' if word.endswith('s') else 's'}"


def _grouped(result: StaticResult) -> list[tuple[OpChange, list[OpChange]]]:
    """Each change, with the subclasses that only inherit it listed under their base."""
    by_new = {c.new: c for c in result.changes if c.new is not None}
    children: dict[object, list[OpChange]] = {}
    top = []
    for c in result.changes:
        base = by_new.get(c.via_base) if c.via_base is not None else None
        if (
            base is not None
            and base is not c
            and base.edits == c.edits
            and not c.methods
            and c.status == "changed"
        ):
            children.setdefault(base.new, []).append(c)
        else:
            top.append(c)
    return [(c, children.get(c.new, [])) for c in top]


def change_lines(result: StaticResult) -> list[str]:
    out: list[str] = []
    for c, kids in _grouped(result):
        where = f"  ({c.path})" if c.path else ""
        out.append(f"  {c.headline()}{where}")
        if c.edits:
            out.append("      " + "; ".join(e.explain() for e in c.edits))
        for m in c.methods:
            out.append(
                f"      .{m.name}{m.old_sig.render() if m.old_sig else '(?)'} -> "
                f".{m.name}{m.new_sig.render() if m.new_sig else '(?)'}: "
                + "; ".join(e.explain() for e in m.edits)
            )
        if kids:
            out.append("      inherited by " + ", ".join(k.name for k in kids))
    return out


def call_text(f: Finding, limit: int = 72) -> str:
    return shown_call(f.site, f.method, limit)


def finding_line(f: Finding, *, fixed_word: str = "fix") -> list[str]:
    head = f"{f.site.path}:{f.site.lineno}: {call_text(f)}: {f.problem}"
    if f.site.via not in ("direct", "module", "alias"):
        head += f" [reached through {f.site.via}]"
    lines = [head]
    if f.plan is not None and f.plan.ops:
        lines.append(
            f"    {fixed_word}: {f.func_after}{f.plan.preview}"
            + (f"  ({'; '.join(f.plan.notes)})" if f.plan.notes else "")
        )
    elif f.why_not:
        lines.append(f"    {f.why_not}")
    for note in f.info:
        if note != f.problem:
            lines.append(f"    note: {note}")
    return lines


def render_check(result: StaticResult, *, wrote: bool = False) -> str:
    lines: list[str] = []
    if result.target.mode == "all":
        # Against the current signatures: the changes history was read for are internal, not news.
        lines.append(
            f"bench-op: checked {_plural(result.checked_calls, 'call')} of "
            f"{_plural(len(result.checked_classes), 'Op class')} against the current signatures."
        )
    elif result.changes:
        groups = _grouped(result)
        lines.append(f"bench-op: {_plural(len(groups), 'Op signature change')} in {result.target.label}:")
        lines.extend(change_lines(result))
    for path, why in result.skipped:
        lines.append(f"bench-op: skipped {path} ({why}); the other files were handled.")
    for fr in result.files:
        for note in fr.import_notes:
            lines.append(f"{fr.path}: {note.text}")
        for f in fr.findings:
            lines.extend(finding_line(f, fixed_word="fixed" if wrote and f.fixed else "fix"))
    for n in (*result.unresolved, *result.unknown):
        lines.append(f"{n.path}{f':{n.line}' if n.line else ''}: {n.call}: {n.reason}")
    lines.append(summary(result, wrote=wrote))
    return "\n".join(lines)


def _all_files_tail(result: StaticResult) -> str:
    parts = []
    if result.unknown:
        parts.append(
            f"{_plural(len(result.unknown), 'call')} only a run can judge (unknown: the run decides)"
        )
    if result.unresolved:
        parts.append(f"{_plural(len(result.unresolved), 'import')} bench-op could not resolve")
    return ("; " + ", ".join(parts)) if parts else ""


def summary(result: StaticResult, *, wrote: bool) -> str:
    if not result.changes and not result.findings:
        if result.target.mode == "all":
            if result.unknown or result.unresolved:
                return "bench-op: no call is provably broken" + _all_files_tail(result) + "."
            return "bench-op: every benchmark call binds the current Op signatures."
        if not result.op_files_changed:
            return f"bench-op: nothing to check: no Op file changed in {result.target.label}."
        return f"bench-op: no Op constructor or method signature changed in {result.target.label}."
    fixable = [f for f in result.findings if f.plan is not None and f.plan.ops and f.fixed]
    open_ = result.broken
    unknown = [f for f in open_ if f.runtime_candidate]
    parts = []
    if fixable:
        verb = "rewrote" if wrote else "can rewrite"
        rest = sum(1 for f in fixable if f.rest_to_run)
        parts.append(
            f"{verb} {_plural(len(fixable), 'call')} in {_plural(len(result.rewritten), 'benchmark file')}"
            + (
                f" ({rest} of them also pass *args/**kwargs: what those bind is unknown: the run decides)"
                if rest
                else ""
            )
        )
    hard = [f for f in open_ if not f.runtime_candidate]
    if hard:
        parts.append(f"{_plural(len(hard), 'call')} need{'s' if len(hard) == 1 else ''} a hand edit")
    if unknown:
        parts.append(f"{_plural(len(unknown), 'call')} can only be judged by running (`bench-op run`)")
    extra = _all_files_tail(result) if result.target.mode == "all" else ""
    if not parts:
        if result.target.mode == "all":
            return "bench-op: no call is provably broken" + extra + "."
        return "bench-op: every benchmark call still binds with the same meaning."
    tail = ""
    if fixable and not wrote:
        tail = "; run `bench-op fix` to apply"
    return "bench-op: " + ", ".join(parts) + tail + extra + "."


def unified_diff(path: str, before: bytes | None, after: bytes | None) -> str:
    a = (before or b"").decode("utf-8", "replace").splitlines(keepends=True)
    b = (after or b"").decode("utf-8", "replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, f"a/{path}", f"b/{path}"))


def static_json(result: StaticResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "target": result.target.as_json(),
        "changes": [c.as_json() for c in result.changes] if result.target.mode != "all" else [],
        "findings": [dict(f.as_json(), text=call_text(f)) for f in result.findings],
        "rewritten": [fr.path for fr in result.rewritten],
        "skipped": [{"path": p, "reason": r} for p, r in result.skipped],
    }
    if result.target.mode == "all":
        out["checked"] = {"calls": result.checked_calls, "classes": len(result.checked_classes)}
        out["unknown"] = [n.as_json() for n in result.unknown]
        out["unresolved"] = [n.as_json() for n in result.unresolved]
    return out


def write_json(path: str, data: dict[str, Any]) -> None:
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)


def outcome_lines(o: FileOutcome) -> list[str]:
    where = f" on {o.device}" if o.device else ""
    gpus = f" (GPU {', '.join(sorted(o.gpus))})" if o.gpus and any(o.gpus) else ""
    runs = f"{_plural(o.runs, 'run')}, {o.seconds:.1f} s{where}{gpus}"
    lines: list[str] = []
    if o.helper:
        lines.append(
            f"bench-op: {o.path}: "
            + (f"fixed; {o.reason}" if o.status != "blocked" else f"blocked: {o.reason}")
        )
        return lines
    if o.status == "passed":
        lines.append(f"bench-op: {o.path}: passed with numbers ({_plural(o.cases, 'case')}, {runs})")
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
    if done:
        parts.append(f"{_plural(len(done), 'benchmark file')} repaired and producing numbers")
    if not_run:
        parts.append(f"{_plural(len(not_run), 'benchmark file')} fixed but not run ({not_run_why(not_run)})")
    if helpers:
        parts.append(f"{_plural(len(helpers), 'helper module')} fixed")
    if run.excluded:
        parts.append(f"{_plural(len(run.excluded), 'benchmark file')} left alone")
    if bad:
        parts.append(f"{_plural(bad, 'benchmark file')} blocked")
    if not parts:
        return "bench-op: nothing to do."
    # the status word leads unless the sentence already says it ("blocked: 2 files blocked")
    text = ", ".join(parts)
    word = {"fixed-not-run": "fixed without numbers"}.get(run.status, run.status)
    lead = "" if (run.status == "blocked" and len(parts) == 1 and bad) else f"{word}: "
    return f"bench-op: {lead}{text}."


def run_json(run: RunOutcome, target: Target) -> dict[str, Any]:
    data: dict[str, Any] = {"status": run.status, "target": target.as_json()}
    if run.result is not None:
        s = static_json(run.result)
        data["changes"] = s["changes"]
        data["findings"] = s["findings"]
    else:
        data["changes"], data["findings"] = [], []
    benches = [o.as_json() for o in run.outcomes]
    for fr in run.blocked_static:
        f = fr.hand_edit()
        benches.append(
            {
                "path": fr.path,
                "status": "blocked",
                "iterations": 0,
                "numbers": [],
                "fixes": [],
                "reason": f"{f.site.path}:{f.site.lineno}: {f.why_not or f.problem}",
            }
        )
    data["benchmarks"] = benches
    if run.reason:
        data["reason"] = run.reason
    if run.commit is not None:
        data["commit"] = run.commit
    if run.run_seconds is not None:
        data["benchmark_seconds"] = round(run.run_seconds, 3)
        data["pytest_sessions"] = run.sessions
    if run.comparison is not None:  # baseline and change per number, regressions on top
        data = decorate_json(data, run.comparison)
    return data


MESSAGE_LINES = 40  # a follow-up commit's message stays readable in `git log`


def commit_message(run: RunOutcome, files: Mapping[str, bytes], *, full_report: str | None = None) -> str:
    """The follow-up commit's message: the subject names the Ops behind the committed files; the body lists
    only those Ops, then each rewrite, then a short numbers table; at most about MESSAGE_LINES lines, with
    how many more and where the whole report is (`full_report`)."""
    reached = {
        f.op
        for fr in (run.result.files if run.result is not None else ())
        if fr.path in files
        for f in fr.findings
    }
    groups = [
        (c, kids)
        for c, kids in (_grouped(run.result) if run.result is not None else [])
        if not reached or c.name in reached or any(k.name in reached for k in kids)
    ]
    names = [os.path.basename(p) for p in sorted(files)]
    subject_files = ", ".join(names) if len(names) <= 2 else f"{len(names)} benchmark files"
    ops = [c.name for c, _ in groups]
    subject_ops = ", ".join(ops[:2]) + (f" and {len(ops) - 2} more" if len(ops) > 2 else "")
    subject = (
        f"bench-op: align {subject_files} with the new {subject_ops} interface{'s' if len(ops) > 1 else ''}"
    )
    body: list[str] = []
    for c, kids in groups:
        body.append(c.headline())
        if kids:
            body.append(
                "  inherited by " + ", ".join(k.name for k in kids if not reached or k.name in reached)
            )
    mine = [o for o in run.outcomes if o.path in files]
    rewrites = [f"- {fx}" for o in mine for fx in o.fixes]
    if rewrites:
        body += ["", "Rewrites:", *rewrites]
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
    return "\n".join([subject, "", *body, "", TRAILER, ""])
