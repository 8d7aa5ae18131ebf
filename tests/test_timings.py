"""BENCHOP_TIMINGS=1: per-stage wall and CPU times on stderr, and which unit libcst parsed for a rewrite."""

from __future__ import annotations

import re

from tests.helpers.repo import Repo


def _stages(stderr: str) -> dict[str, tuple[float, float, int]]:
    """label -> (seconds, cpu seconds, calls), from the timings' report."""
    out = {}
    for m in re.finditer(r"^\s+(.+?)\s+(\d+\.\d+)\s+cpu\s+(\d+\.\d+)\s+\((\d+) calls\)", stderr, re.M):
        out[m.group(1)] = (float(m.group(2)), float(m.group(3)), int(m.group(4)))
    return out


def _rename_norm(repo: Repo) -> None:
    for rel in ("src/minitile/ops/norm.py", "src/minitile/ops/__init__.py"):
        repo.write(rel, repo.read(rel).replace("RMSNormOp", "RMSNormFwdOp"))
    repo.git("add", "-A")


def test_an_import_edit_parses_the_import_statement_alone(repo: Repo) -> None:
    _rename_norm(repo)
    r = repo.bench_op("fix", "--diff", env={"BENCHOP_TIMINGS": "1"})
    assert "+from minitile.ops import RMSNormFwdOp" in r.stdout, r.stdout + r.stderr
    assert "+    op = RMSNormFwdOp(M, hidden=hidden, dtype=torch.float32)" in r.stdout
    stages = _stages(r.stderr)
    assert stages["an import statement parsed alone"][2] == 1
    assert "the whole module parsed (what a unit can't hold)" not in stages
    assert stages["static pass, all of it"][1] > 0  # CPU time is reported beside the wall time


def test_a_name_only_the_whole_module_can_place_is_said(repo: Repo) -> None:
    repo.replace(
        "benchmarks/ops/bench_norm.py",
        "def test_rmsnorm_bench(",
        "def _global():\n    global RMSNormOp\n\n\ndef test_rmsnorm_bench(",
    )
    repo.commit("a global")
    _rename_norm(repo)
    r = repo.bench_op("fix", "--diff", env={"BENCHOP_TIMINGS": "1"})
    assert "+from minitile.ops import RMSNormFwdOp" in r.stdout, r.stdout + r.stderr
    stages = _stages(r.stderr)
    assert stages["the whole module parsed (what a unit can't hold)"][2] == 1
    assert stages["of which: a file with an import edit"][2] == 1
    assert "an import statement parsed alone" not in stages
