"""The Markdown summary (report/markdown.py): what `--summary PATH` and the step summary hold for check,
fix and run, against golden files; where it goes; and that a long report stays short."""

from __future__ import annotations

import json
from pathlib import Path

from benchop_hook.report.markdown import DETAILS_ROWS, DIFF_LINES, TABLE_ROWS, render_markdown
from benchop_hook.report.reports import read_report
from tests.helpers.changes import every_kind_of_call
from tests.helpers.golden import GOLDEN, assert_golden
from tests.helpers.repo import Repo


def test_check_summary(repo: Repo, tmp_path: Path) -> None:
    every_kind_of_call(repo)
    out = tmp_path / "summary.md"
    r = repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--summary", str(out))
    assert r.returncode == 1
    assert_golden("check_summary.md", out.read_text())
    assert (
        r.stdout == repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD").stdout
    )  # output unchanged


def test_fix_summary_shows_what_was_written(repo: Repo, tmp_path: Path) -> None:
    every_kind_of_call(repo)
    out = tmp_path / "summary.md"
    repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--summary", str(out))
    text = out.read_text()
    assert text.startswith(
        "## bench-op: 1 benchmark call broken by the Op changes, 0 with a fix; 1 more to look at"
    )
    assert "| `benchmarks/ops/bench_reduction.py` | ✅ fixed | 3 calls rewritten (below) |" in text
    assert "+    op = SumFwdOp(N, dtype)" in text
    assert "- `benchmarks/ops/bench_gemm.py:15` `ops.GemmOp(M, N, K, DTYPE)`: TypeError" in text


def test_run_summary_puts_regressions_first() -> None:
    data = json.loads((GOLDEN / "run_report.json").read_text())
    text = render_markdown(read_report(data, label="origin/main..HEAD"))
    assert_golden("run_summary.md", text)
    rows = [ln for ln in text.splitlines() if ln.startswith("| `benchmarks/ops/")]
    first_number_row = next(ln for ln in rows if "ms |" in ln)
    assert "test_sum_bench[128-512]" in first_number_row and "regression" in first_number_row


def test_step_summary_is_appended_with_format_github(repo: Repo, tmp_path: Path) -> None:
    every_kind_of_call(repo)
    step = tmp_path / "step_summary"
    step.write_text("## an earlier step\n")
    env = {"GITHUB_STEP_SUMMARY": str(step)}
    repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", env=env)
    assert step.read_text() == "## an earlier step\n", (
        "without --format github the step summary is left alone"
    )
    repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--format", "github", env=env)
    text = step.read_text()
    assert text.startswith("## an earlier step\n## bench-op: 5 benchmark calls broken")
    # --summary names the file itself: written there, the step summary untouched
    out = tmp_path / "mine.md"
    repo.cli(
        "check",
        "--from-ref",
        "HEAD~1",
        "--to-ref",
        "HEAD",
        "--format",
        "github",
        "--summary",
        str(out),
        env=env,
    )
    assert step.read_text() == text and out.read_text().startswith("## bench-op:")


def test_summary_on_standard_output(repo: Repo) -> None:
    every_kind_of_call(repo)
    r = repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--quiet", "--summary", "-")
    assert "### 4 Op signature changes" in r.stdout


def test_nothing_to_check_summary(repo: Repo, tmp_path: Path) -> None:
    repo.write("README.md", "docs\n")
    repo.commit("docs")
    out = tmp_path / "s.md"
    assert (
        repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--summary", str(out)).returncode == 0
    )
    assert (
        out.read_text() == "## bench-op: nothing to check: no Op signature changed\n\nRange `HEAD~1..HEAD`.\n"
    )


def test_a_long_report_folds_and_stays_under_a_comments_size() -> None:
    numbers = [
        {"case": f"test_x[{i}]", "name": "latency", "value": 1.0 + i, "unit": "ms"} for i in range(1000)
    ]
    diff = "--- a/b.py\n+++ b/b.py\n@@ -1,200 +1,200 @@\n" + "".join(f"-x{i}\n+y{i}\n" for i in range(200))
    data = {
        "status": "done",
        "target": {"mode": "range", "from": "a" * 40, "to": "b" * 40},
        "benchmarks": [{"path": "b.py", "status": "passed", "numbers": numbers, "fixes": []}],
        "diffs": {"b.py": diff},
    }
    text = render_markdown(read_report(data))
    rows = [ln for ln in text.splitlines() if ln.startswith("| `b.py` | `test_x[")]
    assert len(rows) == TABLE_ROWS + DETAILS_ROWS
    assert "<details><summary>300 more cases</summary>" in text
    assert f"… and {1000 - TABLE_ROWS - DETAILS_ROWS} more cases in the JSON report." in text
    assert sum(ln.startswith(("-x", "+y")) for ln in text.splitlines()) == DIFF_LINES - 1
    assert "… 341 more lines" in text
    assert len(text) < 65536
