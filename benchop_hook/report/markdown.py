"""The Markdown summary (`--summary PATH`, `$GITHUB_STEP_SUMMARY`): a short report for a CI run's page that
reads as well as a pull-request comment.

The Op changes, each file's status, each fix as a diff block, the calls left for a hand edit, and the
numbers table (against the parent with `--baseline`, regressions first). Long parts fold into
`<details>`; the whole report stays in the JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchop_hook.records.baseline import fmt_value, noise_words
from benchop_hook.report.reports import Bench, Call, Measured, Report, grouped
from benchop_hook.report.words import plural

DIFF_LINES = 60  # per file, before the rest folds away
TABLE_ROWS = 15  # numbers rows shown open; the others fold into <details>
DETAILS_ROWS = 300  # rows inside <details>: a comment must stay under GitHub's 65536 characters

_MARK = {"passed": "✅", "blocked": "❌", "failed": "⚠️", "not-run": "⏭️"}
_TIME = ("ns", "us", "ms", "s")


def _code(text: str) -> str:
    """Inline code that survives backticks and pipes inside it (a table cell)."""
    text = text.replace("|", "\\|")
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _word(r: Report) -> str:
    """What the report comes to, in a few words."""
    if r.kind == "run":
        return {
            "done": "done",
            "blocked": "blocked",
            "fixed-not-run": "fixed, not run here",
            "nothing-to-do": "nothing to do",
        }.get(r.status, r.status)
    if r.status == "nothing-to-do" or (not r.changes and not r.calls):
        return "nothing to check: no Op signature changed"
    breaks = [c for c in r.calls if c.verdict == "break"]
    unfixed = [c for c in breaks if not r.fixed(c)]
    others = sum(1 for c in r.calls if c.verdict == "reported")
    more = f"; {others} more to look at" if others else ""
    if breaks and not unfixed:
        return f"rewrote {plural(len(breaks), 'benchmark call')} the Op changes broke{more}"
    if breaks:
        fixable = sum(1 for c in unfixed if c.rewrite)
        return (
            f"{plural(len(unfixed), 'benchmark call')} broken by the Op changes, {fixable} with a fix{more}"
        )
    if others:
        return f"no call provably broken; {plural(others, 'call')} to look at"
    return "every benchmark call still binds with the same meaning"


def headline(r: Report) -> str:
    merged = r.raw.get("merged")
    shards = (
        f" (merged from {plural(int(merged.get('reports', 0)), 'report')})"
        if isinstance(merged, dict)
        else ""
    )
    shard = f" (shard {r.shard.index} of {r.shard.count})" if r.shard else ""
    return f"## bench-op: {_word(r)}{shard}{shards}"


def change_lines(r: Report) -> list[str]:
    if not r.changes:
        return []
    groups = grouped(r.changes)
    out = [f"### {plural(len(groups), 'Op signature change')}", ""]
    for c, kids in groups:
        out.append(f"- {_code(c.headline())}")
        said = [*c.edits, *c.methods]
        if said:
            out.append(f"  {'; '.join(said)}")
        if kids:
            out.append(f"  inherited by {', '.join(k.op for k in kids)}")
    return [*out, ""]


def _bench_detail(b: Bench) -> str:
    if b.status == "passed":
        cases = len({n.case for n in b.numbers})
        where = f" on {b.device}" if b.device else ""
        return f"{plural(cases, 'case')}, {plural(len(b.numbers), 'number')}, {b.seconds:.1f} s{where}"
    return _cell(b.reason or "")


def _call_detail(r: Report, calls: Sequence[Call]) -> tuple[str, str]:
    breaks = [c for c in calls if c.verdict == "break"]
    open_ = [c for c in breaks if not c.rewrite]
    others = len(calls) - len(breaks)
    more = f"; {others} more to look at" if others and breaks else ""
    if open_:
        need = "needs" if len(open_) == 1 else "need"
        return "❌ broken", f"{plural(len(open_), 'call')} {need} a hand edit{more}"
    if breaks and all(r.fixed(c) for c in breaks):
        return "✅ fixed", f"{plural(len(breaks), 'call')} rewritten (below){more}"
    if breaks:
        return "❌ broken", f"{plural(len(breaks), 'call')} with a fix (below){more}"
    fixes = " (a fix below)" if any(c.rewrite for c in calls) else ""
    return "⚠️ reported", f"{plural(len(calls), 'call')} to look at{fixes}"


def file_lines(r: Report) -> list[str]:
    rows: list[tuple[str, str, str]] = []
    if r.kind == "run":
        rows = [
            (b.path, f"{_MARK.get(b.status, '')} {b.status}".strip(), _bench_detail(b)) for b in r.benchmarks
        ]
    else:
        by_path: dict[str, list[Call]] = {}
        for c in r.calls:
            if c.verdict in ("break", "reported"):
                by_path.setdefault(c.path, []).append(c)
        rows = [(p, *_call_detail(r, cs)) for p, cs in by_path.items()]
    rows += [(p, "⚠️ not checked", _cell(why)) for p, why in r.skipped]
    if not rows:
        return []
    out = ["### Benchmark files", "", "| file | status | |", "| --- | --- | --- |"]
    out += [f"| {_code(p)} | {s} | {d} |" for p, s, d in rows]
    return [*out, ""]


def _diff_block(path: str, diff: str) -> list[str]:
    lines = [ln for ln in diff.splitlines() if not ln.startswith(("--- ", "+++ "))]
    fence = "````" if any(ln.lstrip(" +-").startswith("```") for ln in lines) else "```"
    shown, rest = lines[:DIFF_LINES], len(lines) - DIFF_LINES
    out = [f"**{_code(path)}**", "", f"{fence}diff", *shown, fence]
    if rest > 0:
        out.append(f"… {plural(rest, 'more line')} (`bench-op fix --diff`, or the report's `diff`)")
    return [*out, ""]


def fix_lines(r: Report) -> list[str]:
    out: list[str] = []
    for path, diff in sorted(r.diffs.items()):
        if any(not ln.startswith(("--- ", "+++ ")) for ln in diff.splitlines()):
            out += _diff_block(path, diff)
    by_hand = [c for c in r.calls if c.verdict in ("break", "reported") and not c.rewrite]
    if by_hand:
        out += ["**Calls bench-op leaves to you**", ""]
        for c in by_hand:
            why = f": {c.why_not}" if c.why_not else ""
            out.append(f"- {_code(f'{c.path}:{c.line}')} {_code(c.text)}: {c.problem}{why}")
        out.append("")
    return ["### Fixes", "", *out] if out else []


def _family(unit: str) -> str:
    return (
        "latency" if unit in _TIME else "TFLOPS" if "FLOP" in unit else "bandwidth" if "/s" in unit else unit
    )


def _primary(numbers: Sequence[Measured]) -> Measured:
    """The number a case is read by: its time, else its first."""
    return next((n for n in numbers if n.unit in _TIME), numbers[0])


def _compared_rows(r: Report) -> tuple[list[str], list[str]]:
    head = ["| file | case | number | parent | new | change |", "| --- | --- | --- | ---: | ---: | ---: |"]
    rows: list[tuple[int, float, str]] = []
    for b in r.benchmarks:
        cases: dict[str, list[Measured]] = {}
        for n in b.numbers:
            cases.setdefault(n.case, []).append(n)
        for case, ns in cases.items():
            worst = next((n for n in ns if n.verdict == "regression"), None)
            n = worst or _primary(ns)
            change = f"{n.change * 100:+.1f}%" if n.change is not None else "-"
            mark = {"regression": " ❌ regression", "improvement": " ✅", "noise": " (noise)"}.get(
                n.verdict or "", ""
            )
            rank = 0 if worst else 1
            rows.append(
                (
                    rank,
                    -abs(n.change or 0.0),
                    f"| {_code(b.path)} | {_code(case)} | {n.name} | {fmt_value(n.baseline, n.unit)} | "
                    f"{fmt_value(n.value, n.unit)} | {change}{mark} |",
                )
            )
    rows.sort(key=lambda t: (t[0], t[1]))
    return head, [t[2] for t in rows]


def _plain_rows(r: Report) -> tuple[list[str], list[str]]:
    head = ["| file | case | latency | TFLOPS | bandwidth |", "| --- | --- | ---: | ---: | ---: |"]
    rows = []
    for b in r.benchmarks:
        cases: dict[str, dict[str, Measured]] = {}
        for n in b.numbers:
            cases.setdefault(n.case, {}).setdefault(_family(n.unit), n)
        for case, kinds in cases.items():
            cells = [
                fmt_value(kinds[k].value, kinds[k].unit) if k in kinds else "-"
                for k in ("latency", "TFLOPS", "bandwidth")
            ]
            rows.append(f"| {_code(b.path)} | {_code(case)} | {' | '.join(cells)} |")
    return head, rows


def _noise(base: Mapping[str, Any]) -> str:
    noise = base.get("noise")
    spreads = base.get("spreads")
    return noise_words(
        float(noise) if isinstance(noise, (int, float)) else None,
        {str(u): float(v) for u, v in spreads.items()} if isinstance(spreads, dict) else {},
    )


def numbers_lines(r: Report) -> list[str]:
    if not any(b.numbers for b in r.benchmarks):
        return []
    compared = r.baseline is not None
    head, rows = _compared_rows(r) if compared else _plain_rows(r)
    if compared:
        base = r.baseline or {}
        regs = len(r.regressions)
        title = f"### Numbers against the parent {_code(str(base.get('parent', ''))[:12])}"
        note = (
            f"{plural(regs, 'regression')} over {float(base.get('threshold') or 0.1) * 100:.0f}%"
            f"{', listed first' if regs else ''}; {base.get('repeats', 1)} run(s) each side"
            + (f", noise {_noise(base)}" if base.get("noise") is not None or base.get("spreads") else "")
            + f" ({base.get('source', 'run')}, {base.get('device', '?')})."
        )
        out = [title, "", note, ""]
    else:
        out = ["### Numbers", ""]
    out += [*head, *rows[:TABLE_ROWS], ""]
    rest = rows[TABLE_ROWS : TABLE_ROWS + DETAILS_ROWS]
    if rest:
        out += [
            f"<details><summary>{plural(len(rest), 'more case')}</summary>",
            "",
            *head,
            *rest,
            "",
            "</details>",
            "",
        ]
    cut = len(rows) - TABLE_ROWS - DETAILS_ROWS
    if cut > 0:
        out += [f"… and {plural(cut, 'more case')} in the JSON report.", ""]
    return out


def render_markdown(r: Report) -> str:
    """The whole summary."""
    lines = [headline(r), "", f"Range {_code(r.range_text)}.", ""]
    if r.reason and r.status in ("blocked", "fixed-not-run"):
        lines += [f"**{'Blocked' if r.status == 'blocked' else 'Not run here'}:** {_cell(r.reason)}", ""]
    lines += change_lines(r) + file_lines(r) + fix_lines(r) + numbers_lines(r)
    return "\n".join(lines).rstrip() + "\n"
