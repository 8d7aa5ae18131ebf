"""Every command bench-op tells the user to run works, as printed, in the repository it was printed for.

Through pre-commit, `bench-op` lives only in pre-commit's environment: a hint that named a bare `bench-op`
would fail in the user's shell. Each flow below collects what bench-op printed (the backticked commands that
start with bench-op, `git apply`, `SKIP=` or pre-commit), runs each one with bash in that repository, and
fails on one that fails. The PATH they run with has no bench-op at all, as a pre-commit user's shell has none.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers.background import finished
from tests.helpers.changes import REDUCTION_N_DIM, gemm_shapes_change, reduction_change
from tests.helpers.precommit import with_pre_commit
from tests.helpers.process import run
from tests.helpers.repo import Repo, make_repo

pytestmark = pytest.mark.slow

COMMAND = re.compile(r"`((?:\S*bench-op|git apply|SKIP=|pre-commit)(?: [^`]*)?)`")
# What `SKIP=bench-op git commit` opens: an editor that writes the message and returns.
EDITOR = 'sh -c \'echo "commit as bench-op said" > "$1"\' -'


def printed(*outputs: str) -> list[str]:
    """The commands in bench-op's output, in order, each once."""
    return list(dict.fromkeys(m for out in outputs for m in COMMAND.findall(out)))


def without_bench_op(home: Path) -> dict[str, str]:
    """The user's shell: pre-commit on hand, bench-op nowhere on PATH."""
    path = [
        p for p in os.environ.get("PATH", "").split(os.pathsep) if p and not os.path.exists(f"{p}/bench-op")
    ]
    return {"PRE_COMMIT_HOME": str(home), "PATH": os.pathsep.join(path), "GIT_EDITOR": EDITOR}


def commit(repo: Repo, env: dict[str, str], msg: str, *paths: str) -> subprocess.CompletedProcess[str]:
    repo.git("add", *(paths or ("-A",)))
    return run(["git", "commit", "-m", msg], repo.path, env=env)


def run_each(repo: Repo, env: dict[str, str], commands: list[str]) -> None:
    """Each command with bash, as a user pastes it; bench-op may answer 1 (still blocked), never a usage
    error, a crash or "command not found"; git and pre-commit answer 0."""
    for cmd in commands:
        r = subprocess.run(
            ["bash", "-c", cmd], cwd=repo.path, env={**os.environ, **env}, capture_output=True, text=True
        )
        allowed = (0, 1) if not cmd.startswith(("git ", "SKIP=", "pre-commit")) else (0,)
        assert r.returncode in allowed, f"`{cmd}` failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
        assert "command not found" not in r.stderr and "usage:" not in r.stderr, (cmd, r.stderr)


def test_four_hooks(tmp_path: Path, project_rev: tuple[Path, str], pre_commit_home: Path) -> None:
    """The pre-commit stage stops a commit it fixed; one it cannot fix goes ahead to the follow-up stage."""
    repo = make_repo(tmp_path / "r")
    hooks = ("pre-commit", "post-commit", "post-merge", "post-rewrite")
    with_pre_commit(repo, project_rev, pre_commit_home, hook_types=hooks)
    env = without_bench_op(pre_commit_home)
    reduction_change(repo)
    stopped = commit(repo, env, "reduce: rows come from the input", "src", "tests")
    assert stopped.returncode == 1 and "commit again" in stopped.stderr, stopped.stdout + stopped.stderr
    again = commit(repo, env, "reduce: rows come from the input")
    assert again.returncode == 0, again.stdout + again.stderr

    gemm_shapes_change(repo)
    blocked = commit(repo, env, "gemm: from input shapes")
    out = blocked.stdout + blocked.stderr
    assert blocked.returncode == 0, out  # the pre-commit stage lets it through: the follow-up stage takes it
    assert repo.log()[0] == "gemm: from input shapes", out
    assert "no follow-up commit for the blocked files" in out, out
    commands = printed(stopped.stderr, again.stdout + again.stderr, out)
    assert any("/bench-op run --from-ref" in c for c in commands), commands
    run_each(repo, env, commands)


def test_follow_up_only_blocked(tmp_path: Path, project_rev: tuple[Path, str], pre_commit_home: Path) -> None:
    repo = make_repo(tmp_path / "r")
    with_pre_commit(repo, project_rev, pre_commit_home)
    env = without_bench_op(pre_commit_home)
    gemm_shapes_change(repo)
    r = commit(repo, env, "gemm: from input shapes")
    out = r.stdout + r.stderr
    assert r.returncode == 0 and repo.log()[0] == "gemm: from input shapes", out
    commands = printed(out)
    assert any(c.endswith("--to-ref HEAD") and "/bench-op run" in c for c in commands), commands
    run_each(repo, env, commands)


def test_blocked_at_the_pre_commit_stage_alone(
    tmp_path: Path, project_rev: tuple[Path, str], pre_commit_home: Path
) -> None:
    """No follow-up stage: the stop names the way out, and the way out commits."""
    repo = make_repo(tmp_path / "r")
    with_pre_commit(repo, project_rev, pre_commit_home, hook_types=("pre-commit",))
    env = without_bench_op(pre_commit_home)
    head = repo.head()
    gemm_shapes_change(repo)
    r = commit(repo, env, "gemm: from input shapes")
    out = r.stdout + r.stderr
    assert r.returncode == 1 and repo.head() == head, out
    commands = printed(out)
    assert commands[0] == "SKIP=bench-op git commit", commands
    assert any("/bench-op run --from-ref HEAD~1 --to-ref HEAD" in c for c in commands), commands
    run_each(repo, env, commands)
    assert repo.log()[0] == "commit as bench-op said"


def test_background(tmp_path: Path, project_rev: tuple[Path, str], pre_commit_home: Path) -> None:
    """A background run whose HEAD moved saves its fix as a patch; the next commits say how to apply it
    until it is committed."""
    repo = make_repo(tmp_path / "r")
    repo.replace("pyproject.toml", "[tool.bench-op]\n", "[tool.bench-op]\nbackground = true\n")
    with_pre_commit(repo, project_rev, pre_commit_home)
    env = without_bench_op(pre_commit_home)
    # A constructor that takes a while: the run is still going when the next commit lands.
    head = "    def __init__(self, N, dtype, dim=-1, *, tune=False):\n"
    reduction_change(repo)
    repo.write(
        "src/minitile/ops/reduction.py",
        REDUCTION_N_DIM.replace(head, head + "        __import__('time').sleep(0.5)\n"),
    )
    started = commit(repo, env, "reduce: rows come from the input", "src", "tests")
    assert started.returncode == 0, started.stdout + started.stderr
    said = started.stdout + started.stderr
    assert "when they pass, bench-op commits the fix as a follow-up commit" in said, said
    assert "to apply" not in said, "the background run applies the fix: no hint to do it by hand"
    op_commit = repo.head()
    repo.write("NOTES.txt", "meanwhile\n")
    repo.commit("meanwhile", "NOTES.txt")  # (no hooks: it lands while the run goes on)
    assert finished(repo, op_commit)["status"] == "patch"

    outs = []
    for i in range(2):  # told as it finished, then as a patch that waits
        repo.write(f"notes/{i}.txt", "next\n")
        r = commit(repo, env, f"next {i}", "notes")
        assert r.returncode == 0 and "git apply" in r.stdout + r.stderr, r.stdout + r.stderr
        outs.append(r.stdout + r.stderr)
    commands = printed(said, *outs)
    assert any(c.startswith("git apply ") for c in commands) and any(c.endswith("status") for c in commands)
    run_each(repo, env, commands)
    assert "op = SumFwdOp(N, dtype)" in repo.read("benchmarks/ops/bench_reduction.py"), "the patch applied"
    # Committed, the fix is no news: the hook (which pre-commit runs with unstaged edits stashed) is quiet.
    after = commit(repo, env, "benchmarks: the saved fix", "benchmarks")
    assert after.returncode == 0 and "git apply" not in after.stdout + after.stderr, (
        after.stdout + after.stderr
    )
