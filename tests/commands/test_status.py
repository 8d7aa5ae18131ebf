"""`bench-op status`: each background run in lines that fit a terminal."""

from __future__ import annotations

import os

from benchop_hook.commands.status import WIDTH, fit, run_lines
from benchop_hook.followup.background import State, folder, write_state
from benchop_hook.git.repo import find_repo
from tests.helpers.repo import Repo

BLOCKED = "; ".join(
    f"benchmarks/ops/bench_{name}.py: TypeError: __init__() got an unexpected keyword argument 'M' "
    "(the repair loop could not fix it in 3 tries)"
    for name in ("reduction", "norm", "gemm", "attention", "softmax")
)


def _state(repo: Repo, commit: str, **more: str) -> State:
    paths = find_repo(str(repo.path))
    log = os.path.join(folder(paths), f"{commit}.log")
    state = State(commit, "b" * 40, 1, f"2025-01-01T12:0{commit[0]}:00", log, **more)
    write_state(paths, state)
    return state


def test_status_lines_fit_a_terminal(repo: Repo) -> None:
    assert len(BLOCKED) > 600
    paths = find_repo(str(repo.path))
    patches = "\n".join(  # a state file keeps its patches one a line
        os.path.join(paths.git_dir, "bench-op", "patches", f"benchmarks_ops_bench_{n}.py.patch")
        for n in ("reduction", "norm", "gemm", "attention")
    )
    _state(repo, "1" * 40, status="done", follow_up="f" * 40, finished="2025-01-01T12:05:00")
    _state(repo, "2" * 40, status="blocked", reason=BLOCKED, finished="2025-01-01T12:05:00")
    _state(repo, "3" * 40, status="patch", patch=patches, reason="HEAD moved", finished="2025-01-01T12:05:00")
    r = repo.cli("status")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(len(ln) <= WIDTH for ln in lines), [len(ln) for ln in lines]
    assert f"  {'1' * 12}  done -> follow-up {'f' * 12}  started " in r.stdout, r.stdout
    why = next(ln for ln in lines if ln.startswith("    why: benchmarks/ops/bench_reduction.py"))
    assert why.endswith("... (the log has all of it)"), why
    patch = [ln for ln in lines if ln.startswith("    patch: ")]
    assert patch[0] == "    patch: .git/bench-op/patches/benchmarks_ops_bench_reduction.py.patch", patch
    assert len(patch) == 4, patch
    assert f"    log: .git/bench-op/background/{'2' * 40}.log" in lines, r.stdout


def test_a_short_run_is_not_cut(repo: Repo) -> None:
    s = _state(repo, "4" * 40, status="blocked", reason="no GPU here", finished="2025-01-01T12:05:00")
    lines = run_lines(s, str(repo.path), running=False)
    assert lines[1] == "    why: no GPU here"
    assert fit("x" * 10, 10) == "x" * 10 and fit("x" * 11, 10) == "x" * 7 + "..."
