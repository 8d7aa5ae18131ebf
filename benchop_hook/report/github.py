"""`--format github`: a report's findings as GitHub Actions workflow commands, which the pull request shows
on the lines they name.

- `::error` for a call that provably breaks (it no longer binds, an argument now reaches another parameter,
  its Op is gone), with the fix when there is one; for a file a run blocked, or repaired from a traceback;
- `::warning` for a call reported without proof of a break (Ops that disagree, a default that changed
  under it, a call that did not bind before either), a file that ran without numbers, a regression;
- `::notice` for a file that could not run here;
- nothing for a call only a run can judge.

Only the output changes: the exit codes are the text format's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from benchop_hook.fixing.results import StaticResult
from benchop_hook.report.reports import Bench, Call, Kind, Report, read_report
from benchop_hook.report.text import change_lines, summary
from benchop_hook.report.words import grouped, plural

Level = Literal["error", "warning", "notice"]


@dataclass(frozen=True)
class Annotation:
    level: Level
    path: str
    line: int | None
    message: str

    def render(self) -> str:
        where = f"file={_property(self.path)}" + (f",line={self.line}" if self.line else "")
        return f"::{self.level} {where},title=bench-op::{_data(self.message)}"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def call_annotation(c: Call, *, applied: bool) -> Annotation | None:
    """A call as the pull request shows it; None for what only a run can judge, or needs nothing."""
    verdict = c.verdict
    if verdict in ("ok", "unknown"):
        return None
    lines = [f"{c.text}: {c.problem}"]
    if c.rewrite:
        notes = f"  ({'; '.join(c.notes)})" if c.notes else ""
        lines.append(f"{'fixed' if c.fixed and applied else 'fix'}: {c.rewrite}{notes}")
    elif c.why_not:
        lines.append(c.why_not)
    return Annotation("error" if verdict == "break" else "warning", c.path, c.line, "\n".join(lines))


_LOCATED = re.compile(r"^(?P<path>[^\s:][^:]*):(?P<line>\d+): (?P<rest>.*)$", re.S)


def _line_in(reason: str, path: str) -> int | None:
    """The first `path:line` a reason names in that file (a traceback's frame, a call)."""
    m = re.search(re.escape(path) + r":(\d+)", reason)
    return int(m.group(1)) if m else None


def bench_annotations(b: Bench, static_fixes: set[str]) -> list[Annotation]:
    """A file's run: the repairs its tracebacks led to, what blocked it, no numbers, not run here."""
    out: list[Annotation] = []
    for fix in b.fixes:
        m = _LOCATED.match(fix)
        if fix in static_fixes or m is None:
            continue
        out.append(
            Annotation(
                "error",
                m["path"],
                int(m["line"]),
                f"a run showed this call does not bind\nfixed: {m['rest']}",
            )
        )
    if b.status == "blocked":
        saved = f"\nthe proposed rewrite is saved as {b.patch}" if b.patch else ""
        out.append(
            Annotation("error", b.path, _line_in(b.reason or "", b.path), f"blocked: {b.reason}{saved}")
        )
    elif b.status == "failed":
        out.append(Annotation("warning", b.path, None, f"no numbers: {b.reason}"))
    elif b.status == "not-run":
        out.append(Annotation("notice", b.path, None, f"not run here: {b.reason}; the static fix stands"))
    return out


def of_report(report: Report) -> list[Annotation]:
    """Every annotation of a report: files that could not be read, the calls, then each file's run and
    the regressions against the parent."""
    out = [Annotation("warning", path, None, f"not checked: {why}") for path, why in report.skipped]
    out.extend(a for a in (call_annotation(c, applied=report.applied) for c in report.calls) if a is not None)
    static_fixes = {c.fix_line() for c in report.calls if c.fixed and c.rewrite}
    for b in report.benchmarks:
        out.extend(bench_annotations(b, static_fixes))
    parent = str((report.baseline or {}).get("parent") or "")[:12]
    for r in report.regressions:
        path, _, case = str(r.get("nodeid", "")).partition("::")
        change = r.get("change")
        by = f"{change * 100:+.1f}%" if isinstance(change, (int, float)) else "changed"
        against = f"the parent {parent}" if parent else "the parent"
        out.append(
            Annotation("warning", path, None, f"regression: {case} {r.get('name')} {by} against {against}")
        )
    return out


def render(report: Report) -> str:
    return "\n".join(a.render() for a in of_report(report))


def render_static(result: StaticResult, data: Mapping[str, Any], *, kind: Kind, wrote: bool = False) -> str:
    """`check` / `fix` as the log shows them with `--format github`: the Op changes and the summary line as
    text, each finding as a workflow command in place of its text lines."""
    lines: list[str] = []
    if result.target.mode != "all" and result.changes:
        n = len(grouped(result))
        lines.append(f"bench-op: {plural(n, 'Op signature change')} in {result.target.label}:")
        lines.extend(change_lines(result))
    annotations = render(read_report(data, kind=kind))
    return "\n".join([*lines, *([annotations] if annotations else []), summary(result, wrote=wrote)])
