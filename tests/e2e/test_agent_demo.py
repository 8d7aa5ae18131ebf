"""examples/agent-demo.sh, as a person runs it: bench-op blocks on a call only a person could fix, the
scripted agent fixes it, bench-op checks it, runs it and commits it with the trailer."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.helpers.process import run
from tests.helpers.repo import PROJECT, git

VENV_PYTHON = PROJECT / ".venv" / "bin" / "python"


@pytest.mark.skipif(
    not VENV_PYTHON.exists() or Path(sys.prefix).resolve() != (PROJECT / ".venv").resolve(),
    reason="the demo sets up the project's .venv when it is not the one running the tests",
)
def test_the_agent_demo_shows_the_whole_path(tmp_path: Path) -> None:
    r = run(["bash", str(PROJECT / "examples" / "agent-demo.sh"), str(tmp_path)], tmp_path, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    for step in (
        "not rewritten: it leaves 'shape_a' open: it could be M",  # bench-op blocks: a person decides
        "handing it to the agent (shapes-agent)",
        "the agent's edit passed bench-op's checks",
        "+    op = ops.GemmOp((M, K), (K, N), DTYPE)",
        "passed with numbers",
        "bench-op: committed",
        "Bench-Op-Agent: shapes-agent",
        "== agent step for benchmarks/ops/bench_gemm.py: the agent shapes-agent took",
    ):
        assert step in out, step
    repo = tmp_path / "minitile"
    assert (
        git(repo, "log", "-1", "--format=%(trailers:key=Bench-Op-Agent,valueonly)").strip() == "shapes-agent"
    )
