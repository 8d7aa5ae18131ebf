"""The static pass as the terminal shows it: the Op changes, each finding and its fix, one summary line."""

from __future__ import annotations

import difflib
import re

from benchop_hook.fixing.results import Finding, StaticResult, shown_call
from benchop_hook.git.target import Target
from benchop_hook.program import command, word
from benchop_hook.report.phrases import edits_text
from benchop_hook.report.words import grouped, plural


def change_lines(result: StaticResult) -> list[str]:
    out: list[str] = []
    for c, kids in grouped(result):
        where = f"  ({c.path})" if c.path else ""
        out.append(f"  {c.headline()}{where}")
        if c.edits:
            out.append("      " + edits_text(e.as_json() for e in c.edits))
        for m in c.methods:
            out.append(
                f"      .{m.name}{m.old_sig.render() if m.old_sig else '(?)'} -> "
                f".{m.name}{m.new_sig.render() if m.new_sig else '(?)'}: "
                + edits_text(e.as_json() for e in m.edits)
            )
        if kids:
            out.append("      inherited by " + ", ".join(k.name for k in kids))
    return out


def call_text(f: Finding, limit: int = 72) -> str:
    return shown_call(f.site, f.method, limit)


def finding_line(f: Finding, *, fixed_word: str = "fix") -> list[str]:
    head = f"{f.site.path}:{f.site.lineno}: {call_text(f)}: {f.problem}"
    if f.site.via not in ("direct", "module", "alias", "import"):
        head += f" [reached through {f.site.via}]"
    lines = [head]
    if f.plan is not None and f.plan.ops:
        lines.append(
            f"    {fixed_word}: {f.func_after}{f.plan.preview}"
            + (f"  ({'; '.join(one_reason_each(f.plan.notes))})" if f.plan.notes else "")
            + ("  (a guess from the commit's tests: it lands once a run gives numbers)" if f.guessed else "")
            + _rules(tuple(dict.fromkeys(f.trace)))
        )
        for alt in f.plan.alternatives:
            lines.append(f"    then, if the run refuses it: {f.func_after}{alt.preview}")
    elif f.why_not:
        lines.append(f"    {f.why_not}" + _rules((f.rule,) if f.rule else ()))
    for note in f.info:
        if note != f.problem:
            lines.append(f"    note: {note}")
    return lines


_ADDED = re.compile(r"^(\w+=.+?) added: (.+)$")


def one_reason_each(notes: tuple[str, ...]) -> list[str]:
    """The notes, with values added for one reason said once (`a=(n,), b=(n,) added: as the tests ...`):
    a template that sets three parameters gives one reason, not three copies of it."""
    reasons: dict[str, list[str]] = {}
    for note in notes:
        m = _ADDED.match(note)
        if m is not None:
            reasons.setdefault(m.group(2), []).append(m.group(1))
    out: list[str] = []
    for note in notes:
        m = _ADDED.match(note)
        if m is None:
            out.append(note)
        elif reasons.get(m.group(2)):
            out.append(f"{', '.join(reasons.pop(m.group(2)))} added: {m.group(2)}")
    return out


def _rules(ids: tuple[str, ...]) -> str:
    """The rules that decided a line, as docs/rules.md lists them."""
    return f"  [{' '.join(ids)}]" if ids else ""


def render_check(
    result: StaticResult, *, wrote: bool = False, hint: bool = True, quiet: bool = False
) -> str:
    """The static pass's report. `hint`: end on the command that applies the fix (not where bench-op applies
    it itself, as the background run does). `quiet`: only what the exit status is about (the calls that are
    broken or have a fix, and the summary that says what to do), nothing when that is nothing."""
    if quiet:
        return _quiet(result, wrote=wrote, hint=hint)
    lines: list[str] = []
    if result.target.mode == "all":
        # Against the current signatures: the changes history was read for are internal, not news.
        lines.append(
            f"bench-op: checked {plural(result.checked_calls, 'call')} of "
            f"{plural(len(result.checked_classes), 'Op class')} against the current signatures."
        )
    elif result.changes:
        groups = grouped(result)
        lines.append(f"bench-op: {plural(len(groups), 'Op signature change')} in {result.target.label}:")
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
    lines.append(summary(result, wrote=wrote, hint=hint))
    return "\n".join(lines)


def fix_command(target: Target) -> str:
    """The `bench-op fix` that applies what this target's report proposes: the same range, or every file."""
    if target.mode == "range":
        return command(f"fix --from-ref {word(target.from_ref or '')} --to-ref {word(target.to_ref or '')}")
    return command("fix --all-files" if target.mode == "all" else "fix")


def _quiet(result: StaticResult, *, wrote: bool, hint: bool = True) -> str:
    lines: list[str] = []
    rewritten = {fr.path for fr in result.rewritten}
    for fr in result.files:
        if fr.path in rewritten:
            lines.extend(f"{fr.path}: {note.text}" for note in fr.import_notes)
        for f in fr.findings:
            if f.needs_action or (f.plan is not None and f.plan.ops and f.fixed):
                lines.extend(finding_line(f, fixed_word="fixed" if wrote and f.fixed else "fix"))
    if lines:
        lines.append(summary(result, wrote=wrote, hint=hint))
    return "\n".join(lines)


def _all_files_tail(result: StaticResult) -> str:
    parts = []
    if result.unknown:
        parts.append(f"{plural(len(result.unknown), 'call')} only a run can judge (unknown: the run decides)")
    if result.unresolved:
        parts.append(f"{plural(len(result.unresolved), 'import')} bench-op could not resolve")
    return ("; " + ", ".join(parts)) if parts else ""


def summary(result: StaticResult, *, wrote: bool, hint: bool = True) -> str:
    if not result.changes and not result.findings:
        if result.target.mode == "all":
            if result.unknown or result.unresolved:
                return "bench-op: no call is provably broken" + _all_files_tail(result) + "."
            if not result.checked_calls:
                return "bench-op: found no benchmark call of an Op class: nothing was checked."
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
            f"{verb} {plural(len(fixable), 'call')} in {plural(len(result.rewritten), 'benchmark file')}"
            + (
                f" ({rest} of them also pass *args/**kwargs: what those bind is unknown: the run decides)"
                if rest
                else ""
            )
        )
    hard = [f for f in open_ if not f.runtime_candidate]
    if hard:
        parts.append(f"{plural(len(hard), 'call')} need{'s' if len(hard) == 1 else ''} a hand edit")
    if unknown:
        parts.append(f"{plural(len(unknown), 'call')} can only be judged by running (`{command('run')}`)")
    extra = _all_files_tail(result) if result.target.mode == "all" else ""
    # A default that changed under a call and was not pinned (with the reason above): the call binds, and
    # measures the new default now, which is not "the same meaning" (MONAI a4e4894dc).
    unpinned = [
        f for f in result.findings if any("relies on the default" in i and "not pinned" in i for i in f.info)
    ]
    if unpinned and not parts and result.target.mode != "all":
        return (
            f"bench-op: every benchmark call still binds; {plural(len(unpinned), 'call')} now "
            f"run{'s' if len(unpinned) == 1 else ''} with a changed default bench-op did not pin (the "
            "reasons are above)."
        )
    if not parts:
        if result.target.mode == "all":
            return "bench-op: no call is provably broken" + extra + "."
        if result.rewritten:
            # Only imports follow a renamed or moved class: the diff shows them, the calls stay as they are.
            verb = "rewrote" if wrote else "can rewrite"
            tail = "" if wrote or not hint else f"; run `{fix_command(result.target)}` to apply"
            return (
                f"bench-op: {verb} the imports of {plural(len(result.rewritten), 'benchmark file')}; "
                f"every call binds with the same meaning{tail}."
            )
        return "bench-op: every benchmark call still binds with the same meaning."
    tail = ""
    if fixable and not wrote and hint:
        tail = f"; run `{fix_command(result.target)}` to apply"
    return "bench-op: " + ", ".join(parts) + tail + extra + "."


def unified_diff(path: str, before: bytes | None, after: bytes | None, errors: str = "replace") -> str:
    """A patch `git apply` and `patch` take: a last line without a newline is marked as such, as git marks
    it (hqq 804a46e: without the mark, its `-` and `+` lines ran together into one)."""
    a = (before or b"").decode("utf-8", errors).splitlines(keepends=True)
    b = (after or b"").decode("utf-8", errors).splitlines(keepends=True)
    out: list[str] = []
    for line in difflib.unified_diff(a, b, f"a/{path}", f"b/{path}"):
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)
