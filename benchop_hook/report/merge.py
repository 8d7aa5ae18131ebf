"""Shards' run reports combined into one: one list of files, one status, one set of numbers.

Pure: reports in, the merged JSON out (docs/json.md, with `merged`). What the shards share (the range, the
Op changes, the calls) is taken once; what each ran is put together. A shard that gave no report, or
shards that split the files differently (their git notes differed), make the merged report blocked and
say which files nobody ran: a merged "done" means every affected file was run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchop_hook.errors import UsageError
from benchop_hook.report.reports import Report
from benchop_hook.run.shards import Share

# The worse of two reports of the same file wins (a file two shards both ran, after a split disagreed).
_SEVERITY = {"passed": 0, "not-run": 1, "failed": 2, "blocked": 3}


def _same_range(reports: Sequence[Report], names: Sequence[str]) -> None:
    for r, name in zip(reports[1:], names[1:]):
        if (r.target.get("from"), r.target.get("to")) != (
            reports[0].target.get("from"),
            reports[0].target.get("to"),
        ):
            raise UsageError(
                f"{name} compares another range than {names[0]}: merge the reports of one run, "
                "every shard with the same --from-ref and --to-ref."
            )


def _unique(items: Sequence[dict[str, Any]], key: tuple[str, ...]) -> list[dict[str, Any]]:
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for it in items:
        seen.setdefault(tuple(str(it.get(k)) for k in key), it)
    return list(seen.values())


def _shard_gaps(reports: Sequence[Report]) -> tuple[list[str], list[dict[str, Any]]]:
    """What the shards' own accounts show missing: (the reasons, a blocked entry for each file of the split
    that no report ran)."""
    shards = [r.shard for r in reports if r.shard is not None]
    if not shards:
        return [], []
    first: Share = shards[0]
    reasons: list[str] = []
    if any(s.split != first.split for s in shards):
        reasons.append(
            "the shards split the files differently (their git notes differed when they started): "
            "run every shard from the same fetch of refs/notes/bench-op"
        )
    have = {s.index for s in shards}
    missing = [i for i in range(1, first.count + 1) if i not in have]
    if missing:
        named = ", ".join(f"{i}/{first.count}" for i in missing)
        reasons.append(f"no report from shard{'s' if len(missing) > 1 else ''} {named}")
    ran = {b.path for r in reports for b in r.benchmarks}
    every = {p for s in shards for group in s.split for p in group}
    lost = []
    for path in sorted(every - ran):
        owner = next((i for i, group in enumerate(first.split, 1) if path in group), 0)
        why = (
            f"not run: shard {owner}/{first.count} gave no report"
            if owner in missing
            else "not run: no shard took it (the shards split the files differently)"
        )
        lost.append(_blocked(path, why))
    return reasons, lost


def _blocked(path: str, reason: str) -> dict[str, Any]:
    return {"path": path, "status": "blocked", "iterations": 0, "numbers": [], "fixes": [], "reason": reason}


def _status(benches: Sequence[dict[str, Any]], reports: Sequence[Report], gaps: Sequence[str]) -> str:
    statuses = {r.status for r in reports}
    if gaps or "blocked" in statuses or any(b.get("status") == "blocked" for b in benches):
        return "blocked"
    for s in ("done", "fixed-not-run"):
        if s in statuses:
            return s
    return "nothing-to-do"


def _benchmarks(reports: Sequence[Report]) -> list[dict[str, Any]]:
    by_path: dict[str, dict[str, Any]] = {}
    for r in reports:
        for b in r.benchmarks:
            had = by_path.get(b.path)
            if had is None or _SEVERITY.get(b.status, 3) > _SEVERITY.get(str(had.get("status")), 3):
                by_path[b.path] = dict(b.raw)
    return list(by_path.values())


def merge_reports(reports: Sequence[Report], names: Sequence[str]) -> dict[str, Any]:
    """The shards' reports (`names`: where each came from, for the messages) as one run report."""
    if not reports:
        raise UsageError("give the JSON reports to merge: `bench-op merge report-1.json report-2.json`.")
    for r, name in zip(reports, names):
        if r.kind != "run":
            raise UsageError(
                f"{name} is a `bench-op {r.kind}` report: merge takes `bench-op run --json` reports."
            )
    _same_range(reports, names)
    gaps, lost = _shard_gaps(reports)
    benches = _benchmarks(reports) + lost
    status = _status(benches, reports, gaps)
    reasons = [*gaps, *(r.reason for r in reports if r.reason and r.status == status)]
    out: dict[str, Any] = {
        "status": status,
        "target": dict(reports[0].target),
        "range": reports[0].range_text,
        "changes": _unique([dict(c.raw) for r in reports for c in r.changes], ("op", "old", "new")),
        "findings": _unique([dict(c.raw) for r in reports for c in r.calls], ("path", "line", "call", "op")),
        "benchmarks": benches,
    }
    if reasons:
        out["reason"] = "; ".join(dict.fromkeys(reasons))
    seconds = [r.raw.get("benchmark_seconds") for r in reports]
    if any(isinstance(s, (int, float)) for s in seconds):
        out["benchmark_seconds"] = round(sum(s for s in seconds if isinstance(s, (int, float))), 3)
        out["pytest_sessions"] = sum(int(r.raw.get("pytest_sessions") or 0) for r in reports)
    baselines = [r.baseline for r in reports if r.baseline is not None]
    if baselines:
        noise = [b["noise"] for b in baselines if isinstance(b.get("noise"), (int, float))]
        out["regressions"] = [dict(g) for r in reports for g in r.regressions]
        spreads: dict[str, float] = {}
        for b in baselines:
            for unit, v in (b.get("spreads") or {}).items():
                spreads[unit] = max(spreads.get(unit, 0.0), float(v))
        out["baseline"] = {**baselines[0], "noise": max(noise) if noise else None, "spreads": spreads}
    out["diffs"] = {p: d for r in reports for p, d in sorted(r.diffs.items())}
    out["merged"] = {"reports": len(reports), "shards": sorted(r.shard.index for r in reports if r.shard)}
    return out


def merged_lines(r: Report) -> list[str]:
    """The merged report as the terminal shows it: a line per file, then the status."""
    merged = r.raw.get("merged") or {}
    shards = merged.get("shards") or []
    of = f" (shards {', '.join(map(str, shards))})" if shards else ""
    lines = [f"bench-op: merged {merged.get('reports', 'the')} reports{of} of {r.range_text}:"]
    for b in r.benchmarks:
        if b.status == "passed":
            cases = len({n.case for n in b.numbers})
            lines.append(f"  {b.path}: passed with numbers ({cases} case{'s' if cases != 1 else ''})")
        else:
            word = {"not-run": "not run here", "failed": "not done"}.get(b.status, b.status)
            lines.append(f"  {b.path}: {word}: {b.reason}")
    counts: dict[str, int] = {}
    for b in r.benchmarks:
        counts[b.status] = counts.get(b.status, 0) + 1
    words = {"passed": "passed with numbers", "not-run": "not run here", "failed": "without numbers"}
    parts = [
        f"{n} {words.get(s, s)}" for s, n in sorted(counts.items(), key=lambda kv: _SEVERITY.get(kv[0], 3))
    ]
    if r.baseline is not None:
        regs = len(r.regressions)
        parts.append(f"{regs} regression{'s' if regs != 1 else ''} against the parent")
    why = f"; {r.reason}" if r.reason and r.status == "blocked" else ""
    n = len(r.benchmarks)
    lines.append(
        f"bench-op: {r.status}: {n} benchmark file{'s' if n != 1 else ''} ({', '.join(parts)}){why}."
    )
    return lines
