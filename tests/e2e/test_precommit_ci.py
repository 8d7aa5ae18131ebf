"""bench-op's pre-commit stage as pre-commit.ci runs it: `pre-commit run --all-files` on a pull request's
checkout, no hook installed, no GPU, no torch and no pytest anywhere. It makes the static fixes only, fails
so that they are seen, and what pre-commit.ci's autofix would commit passes the next run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.changes import reduction_change
from tests.helpers.precommit import config
from tests.helpers.process import run
from tests.helpers.repo import Repo, git, make_repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"
pytestmark = pytest.mark.slow


def test_pre_commit_ci_makes_the_static_fixes_only(
    tmp_path: Path, project_rev: tuple[Path, str], pre_commit_home: Path
) -> None:
    origin = make_repo(tmp_path / "origin", python=None)  # no interpreter named: bench-op looks for one
    origin.write(".pre-commit-config.yaml", config(project_rev))
    origin.commit("use bench-op through pre-commit")
    reduction_change(origin)
    origin.commit("reduce: rows come from the input")  # pushed without hooks: the benchmark is broken
    git(tmp_path, "clone", "-q", str(origin.path), "ci")
    ci = Repo(tmp_path / "ci")
    # The only interpreters on PATH have no torch and no pytest (pre-commit.ci's image has neither).
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    env = {"PRE_COMMIT_HOME": str(pre_commit_home), "PATH": f"{tmp_path / 'bare' / 'bin'}:/usr/bin:/bin"}
    precommit = [
        sys.executable,
        "-m",
        "pre_commit",
        "run",
        "--all-files",
        "--show-diff-on-failure",
        "--color=never",
    ]

    r = run(precommit, ci.path, env=env)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert re.search(r"bench-op \(benchmarks vs\. changed Op signatures\)\.+Failed", out), out
    assert "rewrote 1 benchmark file to bind the current Op signatures" in out, out
    assert "not running the benchmarks:" in out or "not run here" in out, out
    assert "passed with numbers" not in out
    assert ci.git("status", "--porcelain") == f" M {BENCH_RED}\n", "the fix only, in the working tree"
    assert "op = SumFwdOp(N, dtype)" in ci.read(BENCH_RED)
    assert ci.log()[0] == "reduce: rows come from the input", "bench-op commits nothing here"

    # pre-commit.ci's autofix commits what the hooks changed and pushes it; the next run passes.
    ci.commit("[pre-commit.ci] auto fixes from pre-commit.com hooks")
    again = run(precommit, ci.path, env=env)
    assert again.returncode == 0, again.stdout + again.stderr
