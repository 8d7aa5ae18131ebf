"""`--format github` (report/github.py): each finding as a workflow command GitHub shows on its line, the
output that changes and the exit codes that do not, against golden files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchop_hook.report.github import Annotation, of_report
from benchop_hook.report.reports import read_report
from tests.helpers.changes import every_kind_of_call
from tests.helpers.golden import GOLDEN, assert_golden
from tests.helpers.repo import Repo


def test_workflow_commands_escape_what_github_reads_as_syntax() -> None:
    a = Annotation("error", "bench/a,b:c.py", 3, "50% of\nthe calls: broken, fix: X(a, b)")
    assert a.render() == (
        "::error file=bench/a%2Cb%3Ac.py,line=3,title=bench-op::50%25 of%0Athe calls: broken, fix: X(a, b)"
    )
    assert Annotation("notice", "x.py", None, "m").render() == "::notice file=x.py,title=bench-op::m"


def test_check_annotates_each_call_by_what_is_known_of_it(repo: Repo) -> None:
    every_kind_of_call(repo)
    text = repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    r = repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--format", "github")
    assert r.returncode == text.returncode == 1
    assert_golden("check_github.txt", r.stdout)
    lines = r.stdout.splitlines()
    # broken with no fix: an error that says why
    assert any(ln.startswith("::error file=benchmarks/ops/bench_gemm.py,line=15,") for ln in lines)
    assert not any("bench_splat.py" in ln for ln in lines), "an unknown call gets no annotation"
    # the Op changes and the summary line are the text format's; each finding's text became its command
    assert all(ln in text.stdout.splitlines() for ln in lines if not ln.startswith("::"))
    assert lines[-1] == text.stdout.splitlines()[-1]
    assert sum(ln.startswith("::") for ln in lines) == 6


def test_fix_says_fixed_and_keeps_its_exit_code(repo: Repo) -> None:
    every_kind_of_call(repo)
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--format", "github")
    assert r.returncode == 1  # the gemm call still needs a hand edit, as in the text format
    assert "%0Afixed: SumFwdOp(N, dtype)" in r.stdout
    assert "::error file=benchmarks/ops/bench_gemm.py,line=15" in r.stdout
    repo.commit("benchmarks: the fix")  # a range is judged at its last commit: the fix's, now
    again = repo.cli("check", "--from-ref", "HEAD~2", "--to-ref", "HEAD", "--format", "github")
    assert "bench_reduction.py" not in again.stdout  # fixed: nothing more to say about it


def test_nothing_to_check_prints_no_command(repo: Repo) -> None:
    repo.write("README.md", "docs\n")
    repo.commit("docs")
    r = repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--format", "github")
    assert r.returncode == 0
    assert "::" not in r.stdout


def test_run_report_annotations(tmp_path: Path) -> None:
    # blocked with a traceback line and a patch, repaired from a traceback, no numbers, a regression
    data = json.loads((GOLDEN / "run_report.json").read_text())
    rendered = "\n".join(a.render() for a in of_report(read_report(data))) + "\n"
    assert_golden("run_github.txt", rendered)
    assert (
        "::error file=benchmarks/ops/bench_attention.py,line=21,title=bench-op::blocked: RuntimeError"
        in rendered
    )
    assert "::error file=benchmarks/ops/bench_attention.py,line=19,title=bench-op::a run showed" in rendered
    assert (
        "::warning file=benchmarks/ops/bench_reduction.py,title=bench-op::regression: test_sum_bench[128-512]"
        in rendered
    )


@pytest.mark.parametrize(
    "status, level",
    [
        ("broken", "error"),
        ("shifted", "error"),
        ("gone", "error"),
        ("default", "warning"),
        ("ambiguous", "warning"),
        ("stale", "warning"),
        ("unknown", None),
        ("ok", None),
    ],
)
def test_level_by_status(status: str, level: str | None) -> None:
    finding = {"path": "b.py", "line": 4, "text": "X(1)", "status": status, "problem": "p", "fix": None}
    got = of_report(read_report({"target": {"mode": "range"}, "status": "broken", "findings": [finding]}))
    assert [a.level for a in got] == ([level] if level else [])
