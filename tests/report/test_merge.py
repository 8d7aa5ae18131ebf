"""Shards' run reports merged into one (report/merge.py): one status over mixed statuses, the files of a
shard that gave no report, shards that split differently, and what is taken once or put together."""

from __future__ import annotations

from typing import Any

import pytest

from benchop_hook.errors import UsageError
from benchop_hook.report.merge import merge_reports, merged_lines
from benchop_hook.report.reports import read_report

TARGET = {"mode": "range", "from": "a" * 40, "to": "b" * 40}
SPLIT = [["x.py", "y.py"], ["z.py"], ["w.py"]]
CHANGE = {
    "old_signature": "(M, N, dtype)",
    "new_signature": "(N, dtype)",
    "op": "SumOp",
    "status": "changed",
    "old": "m.SumOp",
    "new": "m.SumOp",
    "edits": [{"text": "'M' removed"}],
}


def _bench(path: str, status: str, **more: Any) -> dict[str, Any]:
    numbers = [{"case": "t", "name": "latency", "value": 1.0, "unit": "ms"}] if status == "passed" else []
    return {
        "path": path,
        "status": status,
        "numbers": numbers,
        "fixes": [],
        "reason": more.pop("reason", None),
        "seconds": 12.5,
        "device": "NVIDIA H200",
        **more,
    }


def _diff(path: str) -> str:
    return (
        f"--- a/{path}\n+++ b/{path}\n@@ -3 +3 @@\n-    op = SumOp(M, N, dtype)\n+    op = SumOp(N, dtype)\n"
    )


def _shard(i: int, status: str, benches: list[dict[str, Any]], split: list[list[str]] = SPLIT, **more: Any):
    data = {
        "status": status,
        "target": TARGET,
        "changes": [CHANGE],
        "findings": [
            {
                "path": "x.py",
                "line": 3,
                "call": "SumOp",
                "op": "SumOp",
                "status": "broken",
                "text": "SumOp(M, N, dtype)",
                "problem": "argument M now reaches 'N' instead of 'M'",
                "fix": "(N, dtype)",
                "call_after": "SumOp",
                "fixed": True,
            }
        ],
        "benchmarks": benches,
        "shard": {
            "index": i,
            "count": len(split),
            "files": split[i - 1],
            "split": split,
            "balanced_by": "count",
        },
        "benchmark_seconds": 10.0,
        "pytest_sessions": 1,
        "diffs": {b["path"]: _diff(b["path"]) for b in benches if b["status"] == "passed"},
        **more,
    }
    return read_report(data)


def _merge(*reports):
    return merge_reports(list(reports), [f"r{i}.json" for i in range(len(reports))])


def test_mixed_statuses_merge_to_the_worst() -> None:
    done = _shard(1, "done", [_bench("x.py", "passed"), _bench("y.py", "passed")])
    not_run = _shard(2, "fixed-not-run", [_bench("z.py", "not-run", reason="no CUDA device is visible")])
    nothing = _shard(3, "nothing-to-do", [_bench("w.py", "passed")])
    merged = _merge(done, not_run, nothing)
    assert merged["status"] == "done"  # something ran with numbers; the rest could not run here
    assert [b["path"] for b in merged["benchmarks"]] == ["x.py", "y.py", "z.py", "w.py"]
    assert len(merged["changes"]) == 1 and len(merged["findings"]) == 1, "taken once, not once per shard"
    assert merged["benchmark_seconds"] == 30.0 and merged["pytest_sessions"] == 3
    assert sorted(merged["diffs"]) == ["w.py", "x.py", "y.py"]
    assert merged["merged"] == {"reports": 3, "shards": [1, 2, 3]}
    blocked = _shard(
        2, "blocked", [_bench("z.py", "blocked", reason="CUDA error")], reason="z.py: CUDA error"
    )
    merged = _merge(done, blocked, nothing)
    assert merged["status"] == "blocked" and merged["reason"] == "z.py: CUDA error"
    only_not_run = _merge(not_run)
    assert only_not_run["status"] == "blocked", "shards 1 and 3 are missing"


def test_a_missing_shard_blocks_and_names_its_files() -> None:
    merged = _merge(
        _shard(1, "done", [_bench("x.py", "passed"), _bench("y.py", "passed")]),
        _shard(3, "done", [_bench("w.py", "passed")]),
    )
    assert merged["status"] == "blocked"
    assert merged["reason"] == "no report from shard 2/3"
    lost = merged["benchmarks"][-1]
    assert lost == {
        "path": "z.py",
        "status": "blocked",
        "iterations": 0,
        "numbers": [],
        "fixes": [],
        "reason": "not run: shard 2/3 gave no report",
    }
    lines = merged_lines(read_report(merged))
    assert lines[-1].startswith(
        "bench-op: blocked: 4 benchmark files (3 passed with numbers, 1 blocked); no report"
    )


def test_shards_that_split_differently_block() -> None:
    other = [["x.py"], ["y.py", "z.py"], ["w.py"]]
    merged = _merge(
        _shard(1, "done", [_bench("x.py", "passed"), _bench("y.py", "passed")]),
        _shard(2, "done", [_bench("z.py", "passed")], split=other),
        _shard(3, "done", [_bench("w.py", "passed")]),
    )
    assert merged["status"] == "blocked"
    assert "the shards split the files differently" in merged["reason"]
    # a file two shards both ran is reported once, the worse of the two
    twice = _merge(
        _shard(1, "done", [_bench("x.py", "passed"), _bench("y.py", "passed")]),
        _shard(2, "blocked", [_bench("y.py", "blocked", reason="r"), _bench("z.py", "passed")], split=other),
        _shard(3, "done", [_bench("w.py", "passed")]),
    )
    assert [b["status"] for b in twice["benchmarks"] if b["path"] == "y.py"] == ["blocked"]


def test_baselines_merge_with_the_largest_noise() -> None:
    reg = {"nodeid": "x.py::t", "name": "latency", "unit": "ms", "baseline": 1.0, "value": 1.3, "change": 0.3}
    base = {"parent": "a" * 40, "source": "run", "device": "H200", "threshold": 0.1, "repeats": 3}
    one = _shard(1, "done", [_bench("x.py", "passed")], regressions=[reg], baseline={**base, "noise": 0.02})
    two = _shard(2, "done", [_bench("z.py", "passed")], regressions=[], baseline={**base, "noise": 0.05})
    three = _shard(
        3,
        "done",
        [_bench("w.py", "passed")],
        regressions=[],
        baseline={**base, "noise": None, "spreads": {"ms": 0.1447}},
    )
    merged = _merge(one, two, three)
    assert merged["regressions"] == [reg]
    assert merged["baseline"]["noise"] == 0.05 and merged["baseline"]["spreads"] == {"ms": 0.1447}
    from benchop_hook.report.markdown import render_markdown

    summary = render_markdown(read_report(merged))
    # the spread a percentage cannot say is an absolute time, never '±14470%'
    assert "noise up to ±5.0%; elsewhere, runs spread over up to 0.145 ms (run, H200)." in summary, summary


def test_what_cannot_be_merged_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"r1\.json compares another range than r0\.json"):
        _merge(
            _shard(1, "done", []),
            read_report({"status": "done", "target": {**TARGET, "to": "c" * 40}, "benchmarks": []}),
        )
    with pytest.raises(UsageError, match=r"r0\.json is a `bench-op check` report"):
        _merge(read_report({"status": "broken", "target": TARGET, "findings": []}))
    with pytest.raises(UsageError, match="not a bench-op JSON report"):
        read_report({"status": "done"})


def test_merged_summary() -> None:
    from benchop_hook.report.markdown import render_markdown
    from tests.helpers.golden import assert_golden

    merged = _merge(
        _shard(1, "done", [_bench("x.py", "passed"), _bench("y.py", "passed")]),
        _shard(
            2,
            "blocked",
            [_bench("z.py", "blocked", reason="RuntimeError: CUDA error (at z.py:9)")],
            reason="z.py: CUDA error",
        ),
    )
    assert_golden("merge_summary.md", render_markdown(read_report(merged)))
