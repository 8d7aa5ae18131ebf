"""Every Op change ends with its benchmarks run, whoever fixed them: the pre-commit stage, the engineer in the
same commit, or bench-op after the commit; in the foreground or detached (`background = true`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.background import finished
from tests.helpers.changes import REDUCTION_N_DIM, reduction_change
from tests.helpers.precommit import with_pre_commit
from tests.helpers.process import run
from tests.helpers.repo import Repo, make_repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"
FUNCTIONS = ("test_sum_bench", "test_mean_bench", "test_amax_bench")
HAND_FIX = (
    ("SumFwdOp(M, N, dtype)", "SumFwdOp(N, dtype)"),
    ("MeanFwdOp(M, N, dtype=torch.float32)", "MeanFwdOp(N, dtype=torch.float32)"),
    ("AmaxFwdOp(M, N, torch.float32, True)", "AmaxFwdOp(N, torch.float32, tune=True)"),
)
pytestmark = pytest.mark.slow


def notes(repo: Repo, commit: str = "HEAD") -> str:
    return repo.git("notes", "--ref", "refs/notes/bench-op", "show", commit, check=False)


def install(repo: Repo) -> None:
    r = repo.cli("install")
    assert r.returncode == 0, r.stderr


def test_four_hooks_stop_the_commit_with_the_fix_then_run_it_once_committed(
    tmp_path: Path, project_rev: tuple[Path, str], pre_commit_home: Path
) -> None:
    repo = make_repo(tmp_path / "r")
    hooks = ("pre-commit", "post-commit", "post-merge", "post-rewrite")
    with_pre_commit(repo, project_rev, pre_commit_home, hook_types=hooks)
    env = {"PRE_COMMIT_HOME": str(pre_commit_home)}
    head = repo.head()
    reduction_change(repo)
    repo.git("add", "src", "tests")
    first = run(["git", "commit", "-m", "reduce: rows come from the input"], repo.path, env=env)
    assert first.returncode != 0 and repo.head() == head, first.stdout + first.stderr
    assert "commit again" in first.stdout + first.stderr
    fixed = repo.read(BENCH_RED)
    assert "op = SumFwdOp(N, dtype)" in fixed

    repo.git("add", BENCH_RED)
    second = run(["git", "commit", "-m", "reduce: rows come from the input"], repo.path, env=env)
    out = second.stdout + second.stderr
    assert second.returncode == 0, out
    assert repo.log()[0] == "reduce: rows come from the input", "no follow-up commit: nothing was left to fix"
    assert repo.read(BENCH_RED) == fixed == repo.git("show", f"HEAD:{BENCH_RED}"), "never rewritten twice"
    recorded = notes(repo)
    for fn in FUNCTIONS:
        assert fn in recorded, (fn, recorded, out)
    assert "ran with numbers, nothing to fix" in out, out


def test_an_op_change_committed_with_its_hand_fix_runs_every_affected_function(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    install(repo)
    reduction_change(repo)
    for old, new in HAND_FIX:
        repo.replace(BENCH_RED, old, new)
    repo.git("add", "-A")
    r = run(["git", "commit", "-m", "reduce: rows come from the input, benchmarks too"], repo.path)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert repo.log()[0] == "reduce: rows come from the input, benchmarks too", out
    recorded = notes(repo)
    for fn in FUNCTIONS:
        assert fn in recorded, (fn, recorded, out)


def test_run_after_commit_fixed_runs_nothing_when_nothing_was_fixed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    repo.replace("pyproject.toml", "[tool.bench-op]\n", '[tool.bench-op]\nrun-after-commit = "fixed"\n')
    repo.commit("only what bench-op fixes runs")
    install(repo)
    reduction_change(repo)
    for old, new in HAND_FIX:
        repo.replace(BENCH_RED, old, new)
    repo.git("add", "-A")
    r = run(["git", "commit", "-m", "reduce, fixed by hand"], repo.path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert notes(repo) == "", "run-after-commit = fixed: a hand-fixed change is not run"


def _background(repo: Repo) -> None:
    repo.replace("pyproject.toml", "[tool.bench-op]\n", "[tool.bench-op]\nbackground = true\n")
    repo.commit("runs go on after git commit returns")
    install(repo)


def test_background_run_makes_the_follow_up_after_git_commit_returned(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    _background(repo)
    reduction_change(repo)
    repo.git("add", "src", "tests")
    r = run(["git", "commit", "-m", "reduce: rows come from the input"], repo.path)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    commit = repo.git("rev-parse", "HEAD").strip()
    assert repo.log()[0] == "reduce: rows come from the input", "git commit returned before the run"
    assert "bench-op status" in out, out
    state = finished(repo, commit)
    assert state["status"] == "done", state
    log = Path(str(state["log"])).read_text()
    assert "(from [tool.bench-op] python)" in log and "(from --python)" not in log, log
    assert repo.log()[0] == "bench-op: align bench_reduction.py with the new ReduceOp interface"
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)
    s = repo.cli("status")
    assert commit[:8] in s.stdout and "follow-up" in s.stdout, s.stdout


def test_background_run_saves_a_patch_when_head_moved_meanwhile(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    _background(repo)
    # A constructor that takes a while: the run is still going when the next commit lands.
    head = "    def __init__(self, N, dtype, dim=-1, *, tune=False):\n"
    slow = REDUCTION_N_DIM.replace(head, head + "        __import__('time').sleep(0.5)\n", 1)
    assert slow != REDUCTION_N_DIM
    reduction_change(repo)
    repo.write("src/minitile/ops/reduction.py", slow)
    repo.git("add", "src", "tests")
    r = run(["git", "commit", "-m", "reduce: rows come from the input"], repo.path)
    assert r.returncode == 0, r.stdout + r.stderr
    op_commit = repo.git("rev-parse", "HEAD").strip()
    repo.write("NOTES.txt", "meanwhile\n")
    repo.git("add", "NOTES.txt")
    repo.git("commit", "-q", "--no-verify", "-m", "meanwhile")
    moved = repo.head()
    state = finished(repo, op_commit)
    assert state["status"] == "patch", state
    assert repo.head() == moved, "never a commit on top of the wrong HEAD"
    patch = Path(str(state["patch"]))
    assert patch.exists() and "SumFwdOp(N, dtype)" in patch.read_text()
    assert "op = SumFwdOp(M, N, dtype)" in repo.read(BENCH_RED), "the tree is the user's"
    line = repo.cli("status")
    assert str(patch) in line.stdout or patch.name in line.stdout, line.stdout
