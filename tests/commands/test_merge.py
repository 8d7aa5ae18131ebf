"""`bench-op merge REPORT...` as the job that gathers the shards runs it: the exit code from the merged
status, the merged JSON, the patch that applies the shards' fixes, the summary, and clear usage errors."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.asserts import one_line_error
from tests.helpers.repo import Repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def _reports(repo: Repo, tmp_path: Path, second: str = "passed") -> list[str]:
    """Two shards' reports over the fixture library: the first fixed bench_reduction.py (its diff made from
    the real file), the second ran bench_norm.py."""
    before = repo.read(BENCH_RED)
    after = before.replace("op = SumFwdOp(M, N, dtype)", "op = SumFwdOp(N, dtype)")
    import difflib

    diff = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            f"a/{BENCH_RED}",
            f"b/{BENCH_RED}",
        )
    )
    target = {"mode": "range", "from": repo.git("rev-parse", "HEAD~0").strip(), "to": repo.head()}
    split = [[BENCH_RED], ["benchmarks/ops/bench_norm.py"]]
    number = {"case": "test_sum_bench[64-256]", "name": "latency", "value": 0.1, "unit": "ms"}
    paths = []
    for i, (path, status) in enumerate([(BENCH_RED, "passed"), ("benchmarks/ops/bench_norm.py", second)], 1):
        data = {
            "status": "done" if status == "passed" else "blocked",
            "target": target,
            "changes": [],
            "findings": [],
            "benchmarks": [
                {
                    "path": path,
                    "status": status,
                    "numbers": [number] if status == "passed" else [],
                    "fixes": [],
                    "reason": None if status == "passed" else "RuntimeError: CUDA error (at x.py:3)",
                }
            ],
            "shard": {"index": i, "count": 2, "files": split[i - 1], "split": split, "balanced_by": "count"},
            "diffs": {BENCH_RED: diff} if i == 1 else {},
        }
        p = tmp_path / f"report-{i}.json"
        p.write_text(json.dumps(data))
        paths.append(str(p))
    return paths


def test_merge_writes_one_report_one_patch_one_summary(repo: Repo, tmp_path: Path) -> None:
    reports = _reports(repo, tmp_path)
    out, patch, summary = tmp_path / "merged.json", tmp_path / "fixes.patch", tmp_path / "summary.md"
    r = repo.cli("merge", *reports, "--json", str(out), "--patch", str(patch), "--summary", str(summary))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[-1] == "bench-op: done: 2 benchmark files (2 passed with numbers)."
    merged = json.loads(out.read_text())
    assert merged["status"] == "done" and merged["merged"] == {"reports": 2, "shards": [1, 2]}
    assert summary.read_text().startswith("## bench-op: done (merged from 2 reports)")
    # the merging job applies the shards' fixes and commits them, if it wants to
    repo.git("apply", str(patch))
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)


def test_a_blocked_shard_blocks_the_merge(repo: Repo, tmp_path: Path) -> None:
    reports = _reports(repo, tmp_path, second="blocked")
    r = repo.cli("merge", *reports, "--format", "github")
    assert r.returncode == 1
    assert "::error file=benchmarks/ops/bench_norm.py,title=bench-op::blocked: RuntimeError" in r.stdout
    r = repo.cli("merge", reports[0])
    assert r.returncode == 1, "shard 2 gave no report"
    assert (
        "bench-op: blocked: 2 benchmark files (1 passed with numbers, 1 blocked); no report from shard 2/2."
        in r.stdout
    )


def test_fail_on_regression_of_the_repository_merged_in(repo: Repo, tmp_path: Path) -> None:
    reports = _reports(repo, tmp_path)
    data = json.loads(Path(reports[0]).read_text())
    data["regressions"] = [{"nodeid": f"{BENCH_RED}::t", "name": "latency", "change": 0.5}]
    data["baseline"] = {"parent": "a" * 40, "source": "run", "device": "cpu", "threshold": 0.1, "repeats": 1}
    Path(reports[0]).write_text(json.dumps(data))
    assert repo.cli("merge", *reports).returncode == 0, "regressions are reported, not blocking"
    repo.replace("pyproject.toml", "[tool.bench-op]\n", "[tool.bench-op]\nfail-on-regression = true\n")
    r = repo.cli("merge", *reports)
    assert r.returncode == 1
    assert "fail-on-regression = true" in r.stdout


def test_unreadable_reports_are_usage_errors(repo: Repo, tmp_path: Path) -> None:
    r = repo.cli("merge", str(tmp_path / "nope.json"))
    assert r.returncode == 2
    assert "nope.json does not exist" in one_line_error(r)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert "bad.json is not a JSON report" in one_line_error(repo.cli("merge", str(bad)))
    check = tmp_path / "check.json"
    check.write_text(json.dumps({"status": "broken", "target": {"mode": "range"}, "findings": []}))
    r = repo.cli("merge", str(check))
    assert r.returncode == 2
    assert "is a `bench-op check` report: merge takes `bench-op run --json` reports" in one_line_error(r)
    assert repo.cli("merge").returncode == 2  # no report at all: argparse's usage error
