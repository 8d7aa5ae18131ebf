"""The JSON reports (`--json PATH`): the static pass's, and the run's."""

from __future__ import annotations

from typing import Any

from benchop_hook.fixing.results import StaticResult
from benchop_hook.git.target import Target
from benchop_hook.records.baseline import decorate_json
from benchop_hook.report.text import call_text
from benchop_hook.run.outcome import RunOutcome


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
    if run.share is not None:
        data["shard"] = run.share.as_json()
    if run.comparison is not None:  # baseline and change per number, regressions on top
        data = decorate_json(data, run.comparison)
    return data
