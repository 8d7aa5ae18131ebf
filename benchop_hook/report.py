"""One result, several renderings: terminal text, JSON, and the follow-up commit's body."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping
from typing import Any

from benchop_hook.baseline import decorate_json, vs_parent_column
from benchop_hook.changes import OpChange
from benchop_hook.commit import TRAILER
from benchop_hook.numbers import table
from benchop_hook.outcome import FileOutcome, RunOutcome
from benchop_hook.pipeline import FileResult, Finding, StaticResult
from benchop_hook.target import Target


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 'es' if word.endswith('s') else 's'}"


def _grouped(result: StaticResult) -> list[tuple[OpChange, list[OpChange]]]:
    """Each change, with the subclasses that only inherit it listed under their base."""
    by_new = {c.new: c for c in result.changes if c.new is not None}
    children: dict[object, list[OpChange]] = {}
    top = []
    for c in result.changes:
        base = by_new.get(c.via_base) if c.via_base is not None else None
        if base is not None and base is not c and base.edits == c.edits and not c.methods and c.status == "changed":
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
            out.append(f"      .{m.name}{m.old_sig.render() if m.old_sig else '(?)'} -> .{m.name}{m.new_sig.render() if m.new_sig else '(?)'}: "
                       + "; ".join(e.explain() for e in m.edits))
        if kids:
            out.append("      inherited by " + ", ".join(k.name for k in kids))
    return out


def call_text(f: Finding, limit: int = 72) -> str:
    s = f.site
    args = ", ".join(a.source if a.kind == "pos" else f"{a.keyword}={a.source}" if a.kind == "kw"
                     else ("*" if a.kind == "star" else "**") + a.source for a in s.args)
    func = s.func_source + (f".{f.method}" if f.method and f.method != "__call__" and not s.func_source.endswith(f.method) else "")
    text = f"{func}({args})"
    return text if len(text) <= limit else text[: limit - 4] + "...)"


def finding_line(f: Finding, *, fixed_word: str = "fix") -> list[str]:
    head = f"{f.site.path}:{f.site.lineno}: {call_text(f)}: {f.problem}"
    if f.site.via not in ("direct", "module", "alias"):
        head += f" [reached through {f.site.via}]"
    lines = [head]
    if f.plan is not None and f.plan.ops:
        lines.append(f"    {fixed_word}: {f.site.func_source}{f.plan.preview}" + (f"  ({'; '.join(f.plan.notes)})" if f.plan.notes else ""))
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
        lines.append(f"bench-op: checked {_plural(result.checked_calls, 'call')} of "
                     f"{_plural(len(result.checked_classes), 'Op class')} against the current signatures.")
    elif result.changes:
        groups = _grouped(result)
        lines.append(f"bench-op: {_plural(len(groups), 'Op signature change')} in {result.target.label}:")
        lines.extend(change_lines(result))
    for path, why in result.skipped:
        lines.append(f"bench-op: skipped {path} ({why}); the other files were handled.")
    for fr in result.files:
        for note in fr.import_notes:
            lines.append(f"{fr.path}: {note}")
        for f in fr.findings:
            lines.extend(finding_line(f, fixed_word="fixed" if wrote and f.fixed else "fix"))
    for n in (*result.unresolved, *result.unknown):
        lines.append(f"{n.path}{f':{n.line}' if n.line else ''}: {n.call}: {n.reason}")
    lines.append(summary(result, wrote=wrote))
    return "\n".join(lines)


def _all_files_tail(result: StaticResult) -> str:
    parts = []
    if result.unknown:
        parts.append(f"{_plural(len(result.unknown), 'call')} only a run can judge (unknown: the run decides)")
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
        parts.append(f"{verb} {_plural(len(fixable), 'call')} in {_plural(len(result.rewritten), 'benchmark file')}")
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
        lines.append(f"bench-op: {o.path}: " + (f"fixed; {o.reason}" if o.status != "blocked" else f"blocked: {o.reason}"))
        return lines
    if o.status == "passed":
        lines.append(f"bench-op: {o.path}: passed with numbers ({_plural(o.cases, 'case')}, {runs})")
        lines.extend("    " + row for row in table(o.numbers))
    elif o.status == "skipped":
        lines.append(f"bench-op: {o.path}: skipped: {o.reason} ({runs})")
    else:
        word = "blocked" if o.status == "blocked" else "not done"
        lines.append(f"bench-op: {o.path}: {word}: {o.reason} ({runs})")
        if o.patch:
            lines.append(f"    the proposed rewrite was not left in the tree; it is saved as {o.patch} "
                         "(git apply it to use it)")
    lines.extend(f"    note: {n}" for n in o.notes)
    return lines


def fix_lines(fr: FileResult) -> list[str]:
    """The rewrites the static pass made in a file, one line each (the report's and the commit body's)."""
    out = []
    for f in fr.findings:
        if f.fixed and f.plan is not None and f.plan.ops:
            func = f.site.func_source + (f".{f.method}" if f.method and f.method != "__call__" else "")
            out.append(f"{f.site.path}:{f.site.lineno}: {call_text(f)} -> {func}{f.plan.preview}")
    return out


def hand_edit(fr: FileResult) -> Finding:
    """The first call in a file that needs a hand edit (what blocks it before any run)."""
    return next(f for f in fr.findings if f.needs_action and not f.runtime_candidate)


def summary_line(run: RunOutcome) -> str:
    done = [o for o in run.outcomes if o.status == "passed" and not o.helper]
    skipped = [o for o in run.outcomes if o.status == "skipped" and not o.helper]
    helpers = [o for o in run.outcomes if o.helper and o.status in ("passed", "skipped")]
    bad = len([o for o in run.outcomes if o.bad]) + len(run.blocked_static)
    parts = []
    if done:
        parts.append(f"{_plural(len(done), 'benchmark file')} repaired and producing numbers")
    if skipped:
        why = "not run (--no-run)" if all(o.reason and "--no-run" in o.reason for o in skipped) else "not run: no GPU"
        parts.append(f"{len(skipped)} fixed but {why}")
    if helpers:
        parts.append(f"{_plural(len(helpers), 'helper module')} fixed")
    if run.excluded:
        parts.append(f"{len(run.excluded)} left alone")
    if bad:
        parts.append(f"{bad} blocked")
    return f"bench-op: {run.status}: " + (", ".join(parts) if parts else "nothing to do") + "."


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
        f = hand_edit(fr)
        benches.append({"path": fr.path, "status": "failed", "iterations": 0, "numbers": [], "fixes": [],
                        "reason": f"{f.site.path}:{f.site.lineno}: {f.why_not or f.problem}"})
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


def commit_message(run: RunOutcome, files: Mapping[str, bytes]) -> str:
    """The follow-up commit's message: subject, the Op changes, the rewrites, a short numbers table, trailer."""
    groups = _grouped(run.result) if run.result is not None else []
    names = [os.path.basename(p) for p in sorted(files)]
    subject_files = ", ".join(names) if len(names) <= 2 else f"{len(names)} benchmark files"
    ops = [c.name for c, _ in groups]
    subject_ops = ", ".join(ops[:2]) + (f" and {len(ops) - 2} more" if len(ops) > 2 else "")
    lines = [f"bench-op: align {subject_files} with the new {subject_ops} interface{'s' if len(ops) > 1 else ''}", ""]
    for c, kids in groups:
        lines.append(c.headline())
        if kids:
            lines.append("  inherited by " + ", ".join(k.name for k in kids))
    lines += ["", "Rewrites:"]
    mine = [o for o in run.outcomes if o.path in files]
    for o in mine:
        lines.extend(f"- {fx}" for fx in o.fixes)
    numbered = [o for o in mine if o.numbers]
    if numbered:
        lines.append("")
        for o in numbered:
            lines.append(f"Numbers for {o.path}" + (f" on {o.device}" if o.device else "") + ":")
            rows = table(o.numbers)
            if run.comparison is not None:
                cases = list(dict.fromkeys(n.case for n in o.numbers))
                rows = vs_parent_column(rows, cases, o.path, run.comparison)
            lines.extend("  " + r for r in rows[:12])
            if len(rows) > 12:
                lines.append(f"  ... {len(rows) - 12} more cases")
    lines.extend(f"{o.path}: not run ({o.reason})" for o in mine if o.status == "skipped")
    lines += ["", TRAILER, ""]
    return "\n".join(lines)
