"""The agent step end to end, with scripted agents (tests/helpers/agents.py) on the fixture library's GemmOp
change, which bench-op blocks on (a call only a person can fix): `bench-op run` and the hooks as programs,
real git, real pytest sessions."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import agents
from tests.helpers.asserts import state
from tests.helpers.changes import gemm_shapes_change, reduction_change
from tests.helpers.process import alive, popen, run
from tests.helpers.repo import Repo, run_json
from tests.helpers.sources import GEMM_NT_CASE

BENCH_GEMM = "benchmarks/ops/bench_gemm.py"
RANGE = ("--from-ref", "HEAD~1", "--to-ref", "HEAD")


def _gemm_change(repo: Repo, *, nt_case: bool = True) -> None:
    """bench_gemm.py with a trans_b=True case too, committed; then the GemmOp change, committed."""
    if nt_case:
        repo.write(BENCH_GEMM, repo.read(BENCH_GEMM) + GEMM_NT_CASE)
        repo.commit("bench: the transposed case")
    gemm_shapes_change(repo)
    repo.commit("gemm: built from the shapes of its inputs")


def _use(repo: Repo, exe: str) -> None:
    repo.git("config", "bench-op.agent", exe)


def _bench(data: dict, path: str = BENCH_GEMM) -> dict:
    return next(b for b in data["benchmarks"] if b["path"] == path)


def test_an_agent_that_fixes_the_calls_gets_them_checked_run_and_committed(
    repo: Repo, tmp_path: Path
) -> None:
    _gemm_change(repo)
    _use(repo, agents.agent(tmp_path, "fixer", agents.FIXES))
    r, data = run_json(repo, tmp_path, *RANGE)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "handing it to the agent (fixer)" in r.stdout
    assert "the agent's edit passed bench-op's checks" in r.stdout
    b = _bench(data)
    assert b["status"] == "passed" and b["numbers"] and b["by"] == "agent"
    assert b["agent"]["name"] == "fixer" and b["agent"]["overhead_seconds"] >= 0
    assert any(agents.FIXED_NT in h["diff"] and h["by"] == "agent" for h in b["hunks"])
    body = repo.git("log", "-1", "--format=%B")
    assert repo.log()[0] == "bench-op: align bench_gemm.py with the new GemmOp interface"
    assert f"Edited by the agent fixer, checked and run by bench-op: {BENCH_GEMM}" in body
    assert body.rstrip().splitlines()[-2:] == ["Bench-Op: follow-up", "Bench-Op-Agent: fixer"]
    committed = repo.git("show", f"HEAD:{BENCH_GEMM}")
    assert agents.FIXED_NN in committed and agents.FIXED_NT in committed
    log = Path(b["agent"]["log"])
    assert log.parent == repo.path / ".git" / "bench-op" / "agent" and "SUCCESS" in log.read_text()
    task = next(log.parent.glob("*.task.md")).read_text()
    for part in (
        "GemmOp(M, N, K, dtype, trans_b=False) -> GemmOp(shape_a, shape_b",
        "pytest",
        "BLOCKED: <reason>",
    ):
        assert part in task
    assert len(task.splitlines()) < 60


def test_the_agent_reaches_nothing_of_the_users_repository(repo: Repo, tmp_path: Path) -> None:
    """It commits, branches and stashes in its sandbox; the user's stash, branches, index and unstaged
    edits stay as they were, and the sandbox is gone."""
    _gemm_change(repo)
    repo.write("README.md", "stashed work\n")
    repo.git("add", "README.md")
    repo.git("stash")
    repo.write("src/minitile/ops/norm.py", repo.read("src/minitile/ops/norm.py") + "# mine, unstaged\n")
    repo.write("workloads/notes.txt", "untracked\n")
    stash, branches = repo.git("stash", "list"), repo.git("branch", "--list")
    mark = tmp_path / "mark"
    _use(repo, agents.agent(tmp_path, "gitty", agents.FIXES_AND_PLAYS_WITH_GIT))
    r = repo.bench_op("run", *RANGE, env={"AGENT_MARK": str(mark)})
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.git("stash", "list") == stash and repo.git("branch", "--list") == branches
    assert repo.read("src/minitile/ops/norm.py").endswith("# mine, unstaged\n")
    assert repo.read("workloads/notes.txt") == "untracked\n"
    assert repo.git("status", "--porcelain") == " M src/minitile/ops/norm.py\n?? workloads/notes.txt\n"
    sandbox = Path(mark.read_text().split()[0])
    assert sandbox != repo.path and not sandbox.exists()
    assert repo.git("worktree", "list").count("\n") == 1


def test_an_agent_that_edits_another_file_is_refused_and_nothing_changes(repo: Repo, tmp_path: Path) -> None:
    _gemm_change(repo)
    before = state(repo)
    _use(repo, agents.agent(tmp_path, "meddler", agents.EDITS_THE_OP))
    r, data = run_json(repo, tmp_path, *RANGE)
    assert r.returncode == 1, r.stdout + r.stderr
    b = _bench(data)
    assert b["status"] == "blocked" and "by" not in b
    assert "changed src/minitile/ops/gemm.py, outside benchmarks/ops/bench_gemm.py" in b["reason"]
    assert "refused whole" in b["reason"]
    assert state(repo) == before


def test_an_agent_that_hangs_is_killed_with_its_process_group_at_the_timeout(
    repo: Repo, tmp_path: Path
) -> None:
    repo.replace("pyproject.toml", "timeout = 300", "timeout = 300\nagent-timeout = 2")
    repo.commit("a short agent timeout")
    _gemm_change(repo)
    before = state(repo)
    pids = tmp_path / "pids"
    _use(repo, agents.agent(tmp_path, "sleeper", agents.HANGS))
    started = time.monotonic()
    r, data = run_json(repo, tmp_path, *RANGE, env={"HANG_PIDFILE": str(pids)})
    assert r.returncode == 1, r.stdout + r.stderr
    assert time.monotonic() - started < 120
    assert "did not finish within 2 s: its whole process group was killed" in _bench(data)["reason"]
    assert not any(alive(int(p)) for p in pids.read_text().split())
    assert state(repo) == before


def test_an_agent_that_drops_a_choice_is_refused_by_the_judge(repo: Repo, tmp_path: Path) -> None:
    _gemm_change(repo)
    before = state(repo)
    _use(repo, agents.agent(tmp_path, "dropper", agents.DROPS_THE_CHOICE))
    r, data = run_json(repo, tmp_path, *RANGE)
    assert r.returncode == 1, r.stdout + r.stderr
    reason = _bench(data)["reason"]
    assert (
        "ops.GemmOp(M, N, K, DTYPE, trans_b=True) passes trans_b=True, a choice, and the edit drops it"
        in reason
    )
    assert "running benchmarks/ops/bench_gemm.py" not in r.stdout  # refused before any run
    patch = Path(reason.rsplit("its edit is saved as ", 1)[1].split(";")[0])
    assert (
        patch.parent == repo.path / ".git" / "bench-op" / "patches" and agents.FIXED_NN in patch.read_text()
    )
    assert state(repo) == before


def test_an_agent_that_answers_blocked_leaves_the_file_blocked_with_its_reason(
    repo: Repo, tmp_path: Path
) -> None:
    _gemm_change(repo)
    before = state(repo)
    _use(repo, agents.agent(tmp_path, "cautious", agents.ANSWERS_BLOCKED))
    r, data = run_json(repo, tmp_path, *RANGE)
    assert r.returncode == 1, r.stdout + r.stderr
    reason = _bench(data)["reason"]
    assert (
        "the agent (cautious) answered BLOCKED: the shapes depend on a kernel limit only its author knows"
        in reason
    )
    assert reason.startswith("benchmarks/ops/bench_gemm.py:15 not rewritten")  # bench-op's own reason first
    assert state(repo) == before


def test_an_agent_whose_edit_binds_but_fails_to_run_is_blocked_with_its_patch(
    repo: Repo, tmp_path: Path
) -> None:
    _gemm_change(repo, nt_case=False)
    before = state(repo)
    _use(repo, agents.agent(tmp_path, "hasty", agents.BINDS_BUT_FAILS))
    r, data = run_json(repo, tmp_path, *RANGE)
    assert r.returncode == 1, r.stdout + r.stderr
    b = _bench(data)
    assert b["status"] == "blocked" and b["iterations"] == 1
    assert b["reason"].startswith(
        "the agent's edit (hasty) passed the checks, but its run failed: ValueError"
    )
    assert "torch.float16" in Path(b["patch"]).read_text()
    assert state(repo) == before


def test_an_agent_that_exits_non_zero_leaves_the_file_blocked(repo: Repo, tmp_path: Path) -> None:
    _gemm_change(repo)
    before = state(repo)
    _use(repo, agents.agent(tmp_path, "broken", agents.EXITS_NON_ZERO))
    r, data = run_json(repo, tmp_path, *RANGE)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "the agent (broken) exited with 3 (giving up)" in _bench(data)["reason"]
    log = Path(_bench(data)["agent"]["log"]).read_text()
    assert "no credentials for the model" in log and "exit 3" in log
    assert state(repo) == before


def test_an_agent_set_in_pyproject_is_ignored_and_said_once(repo: Repo, tmp_path: Path) -> None:
    mark = tmp_path / "mark"
    exe = agents.agent(tmp_path, "repo-agent", agents.FIXES)
    repo.replace("pyproject.toml", "timeout = 300", f"timeout = 300\nagent = {exe!r}")
    repo.commit("the repository asks for an agent")
    _gemm_change(repo)
    r = repo.bench_op("run", *RANGE, env={"AGENT_MARK": str(mark)})
    assert r.returncode == 1, r.stdout + r.stderr
    warning = "bench-op: warning: [tool.bench-op] agent is ignored"
    assert r.stderr.count(warning) == 1 and 'git config bench-op.agent "<command>"' in r.stderr
    assert not mark.exists()


def test_a_run_that_ends_in_an_interface_error_goes_to_the_agent(repo: Repo, tmp_path: Path) -> None:
    """Keywords from a helper's dict: only the run shows the binding error, and the repair loop has no
    evidence for the new shapes: the agent gets the file with the traceback."""
    repo.replace(
        BENCH_GEMM,
        "    op = ops.GemmOp(M, N, K, DTYPE)",
        "    op = ops.GemmOp(**sizes(M, N, K), dtype=DTYPE)",
    )
    repo.write(
        BENCH_GEMM, repo.read(BENCH_GEMM) + "\n\ndef sizes(M, N, K):\n    return dict(M=M, N=N, K=K)\n"
    )
    repo.commit("bench: sizes from a helper")
    _gemm_change(repo, nt_case=False)
    old, new = "ops.GemmOp(**sizes(M, N, K), dtype=DTYPE)", "ops.GemmOp((M, K), (K, N), DTYPE)"
    fix = f"write(source.replace({old!r}, {new!r}))"
    _use(repo, agents.agent(tmp_path, "fixer", f"{fix}\nprint('SUCCESS')\n"))
    r, data = run_json(repo, tmp_path, *RANGE)
    assert r.returncode == 0, r.stdout + r.stderr
    b = _bench(data)
    assert b["status"] == "passed" and b["by"] == "agent"
    task = next((repo.path / ".git" / "bench-op" / "agent").glob("*.task.md")).read_text()
    assert "## The run ended in" in task and "TypeError" in task
    assert repo.log(fmt="%(trailers:key=Bench-Op-Agent,valueonly)")[0] == "fixer"


def test_a_failure_that_is_not_about_the_interface_never_goes_to_the_agent(
    repo: Repo, tmp_path: Path
) -> None:
    """A kernel crash stays blocked with its reason; a file that is done is not the agent's either."""
    repo.write(
        "benchmarks/ops/bench_crash.py",
        "import torch\nfrom minitile.ops import SumFwdOp\n\n\ndef test_crash():\n"
        "    SumFwdOp(4, 8, torch.float32)\n    raise RuntimeError('CUDA error: an illegal memory access')\n",
    )
    repo.commit("a benchmark whose kernel crashes")
    reduction_change(repo)
    repo.commit("reduce: rows come from the input")
    mark = tmp_path / "mark"
    _use(repo, agents.agent(tmp_path, "eager", agents.FIXES))
    r, data = run_json(repo, tmp_path, *RANGE, env={"AGENT_MARK": str(mark)})
    assert r.returncode == 1, r.stdout + r.stderr
    assert "CUDA error" in _bench(data, "benchmarks/ops/bench_crash.py")["reason"]
    assert _bench(data, "benchmarks/ops/bench_reduction.py")["status"] == "passed"
    assert not mark.exists() and "handing it to the agent" not in r.stdout


def test_the_pre_commit_stage_never_asks_the_agent(repo: Repo, tmp_path: Path) -> None:
    gemm_shapes_change(repo)
    repo.git("add", "-A")
    mark = tmp_path / "mark"
    _use(repo, agents.agent(tmp_path, "eager", agents.FIXES))
    r = repo.bench_op("hook", "pre-commit", env={"AGENT_MARK": str(mark)})
    assert r.returncode == 1 and "blocked" in r.stdout, r.stdout + r.stderr
    assert not mark.exists()


def test_no_agent_turns_it_off_and_agent_picks_another_for_one_run(repo: Repo, tmp_path: Path) -> None:
    _gemm_change(repo, nt_case=False)
    mark = tmp_path / "mark"
    _use(repo, agents.agent(tmp_path, "configured", agents.FIXES))
    r = repo.bench_op("run", *RANGE, "--no-agent", env={"AGENT_MARK": str(mark)})
    assert r.returncode == 1 and not mark.exists(), r.stdout + r.stderr
    other = agents.agent(tmp_path / "other", "chosen", agents.FIXES)
    r = repo.bench_op("run", *RANGE, "--agent", f"{sys.executable} {other}", env={"AGENT_MARK": str(mark)})
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.log(fmt="%(trailers:key=Bench-Op-Agent,valueonly)")[0] == "chosen"
    assert len(mark.read_text().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--agent", "x", "--no-agent"), "--agent and --no-agent contradict each other"),
        (("--agent", " "), "--agent needs a command"),
    ],
)
def test_agent_options_that_contradict_are_usage_errors(
    repo: Repo, args: tuple[str, ...], message: str
) -> None:
    r = repo.cli("run", *args)
    assert r.returncode == 2 and message in r.stderr


def test_a_staged_change_is_fixed_in_the_working_tree(repo: Repo, tmp_path: Path) -> None:
    """`bench-op run` on staged changes: the sandbox holds the staged Op change, the agent's fix stays in the
    working tree, nothing is committed."""
    gemm_shapes_change(repo)
    repo.git("add", "-A")
    head = repo.head()
    _use(repo, agents.agent(tmp_path, "fixer", agents.FIXES))
    r = repo.bench_op("run")
    assert r.returncode == 0, r.stdout + r.stderr
    assert agents.FIXED_NN in repo.read(BENCH_GEMM) and repo.head() == head


def test_another_benchmark_file_needs_a_stated_reason(repo: Repo, tmp_path: Path) -> None:
    _gemm_change(repo, nt_case=False)
    helper = "benchmarks/benchmark.py"
    also = agents.FIXES.replace(
        'print("SUCCESS")',
        f'open("{helper}", "a").write("\\n# shapes come from the inputs now\\n")\nprint("SUCCESS")',
    )
    _use(repo, agents.agent(tmp_path, "silent", also))
    r = repo.bench_op("run", *RANGE)
    assert r.returncode == 1 and f"changed {helper}, outside {BENCH_GEMM}" in r.stdout, r.stdout + r.stderr
    stated = also.replace(
        'print("SUCCESS")', f'print("ALSO {helper}: the shapes note belongs there")\nprint("SUCCESS")'
    )
    _use(repo, agents.agent(tmp_path, "stated", stated))
    r = repo.bench_op("run", *RANGE)
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(repo.git("show", "--name-only", "--format=", "HEAD").split()) == [helper, BENCH_GEMM]


def test_a_second_attempt_reads_why_the_first_was_refused(repo: Repo, tmp_path: Path) -> None:
    repo.replace("pyproject.toml", "timeout = 300", "timeout = 300\nagent-attempts = 2")
    repo.commit("two attempts")
    _gemm_change(repo)
    learns = (
        'if "Your last attempt was not kept" in task and "trans_b=True" in task:\n'
        f"    exec({agents.FIXES!r})\nelse:\n    exec({agents.DROPS_THE_CHOICE!r})\n"
    )
    _use(repo, agents.agent(tmp_path, "learner", learns))
    r = repo.bench_op("run", *RANGE)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "asking the agent (learner) again about benchmarks/ops/bench_gemm.py (2 of 2)" in r.stdout


def test_ctrl_c_while_the_agent_works_removes_its_sandbox_and_kills_it(repo: Repo, tmp_path: Path) -> None:
    _gemm_change(repo)
    before = state(repo)
    pids, mark = tmp_path / "pids", tmp_path / "mark"
    _use(repo, agents.agent(tmp_path, "sleeper", agents.HANGS))
    p = popen(
        [sys.executable, "-m", "benchop_hook", "run", *RANGE],
        repo.path,
        env={"HANG_PIDFILE": str(pids), "AGENT_MARK": str(mark)},
    )
    try:
        deadline = time.monotonic() + 120
        while not pids.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert pids.exists(), "the agent never started"
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
    assert p.returncode == 130
    assert not any(alive(int(x)) for x in pids.read_text().split())
    assert not Path(mark.read_text().split()[0]).exists()
    assert state(repo) == before


def test_the_json_report_says_what_the_agent_did(repo: Repo, tmp_path: Path) -> None:
    _gemm_change(repo, nt_case=False)
    _use(repo, agents.agent(tmp_path, "fixer", agents.FIXES))
    out = tmp_path / "r.json"
    r = repo.bench_op("run", *RANGE, "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    b = _bench(json.loads(out.read_text()))
    assert set(b["agent"]) == {"name", "log", "seconds", "overhead_seconds"}
    assert [h["agent"] for h in b["hunks"]] == ["fixer"]


def test_the_follow_up_hook_asks_the_agent_after_a_commit(repo: Repo, tmp_path: Path) -> None:
    assert repo.cli("install").returncode == 0
    _use(repo, agents.agent(tmp_path, "fixer", agents.FIXES))
    gemm_shapes_change(repo)
    r = run(["git", "commit", "-q", "-am", "gemm: built from the shapes of its inputs"], repo.path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.log()[:2] == [
        "bench-op: align bench_gemm.py with the new GemmOp interface",
        "gemm: built from the shapes of its inputs",
    ]
    assert repo.log(fmt="%(trailers:key=Bench-Op-Agent,valueonly)")[0] == "fixer"


def test_an_agent_edit_that_cannot_run_here_is_not_kept(repo: Repo, tmp_path: Path) -> None:
    """bench-op's own fix stands without a GPU; an agent's edit needs numbers to be kept."""
    _gemm_change(repo, nt_case=False)
    before = state(repo)
    needs = agents.FIXES.replace("write(source", "write('import not_installed_here\\n' + source")
    _use(repo, agents.agent(tmp_path, "fixer", needs))
    r, data = run_json(repo, tmp_path, *RANGE)
    assert r.returncode == 1, r.stdout + r.stderr
    reason = _bench(data)["reason"]
    assert "could not run here (No module named 'not_installed_here'" in reason
    assert "only numbers keep an agent's edit" in reason
    assert state(repo) == before
