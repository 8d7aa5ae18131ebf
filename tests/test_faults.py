"""Faults and bad input, each created for real: the outcome is one clear line, the right exit code,
and the tree, the index and the history exactly as before unless bench-op was asked to change them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXTURE, Repo, make_repo, reduction_change

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def state(repo: Repo) -> tuple[dict[str, bytes], str, str, str]:
    """Working tree bytes, the index, every ref: what must not move."""
    return (
        repo.snapshot(),
        repo.git("ls-files", "-s", "--debug"),
        repo.git("for-each-ref"),
        repo.git("rev-parse", "HEAD"),
    )


def one_line_error(r: subprocess.CompletedProcess[str]) -> str:
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("bench-op:")]
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    return lines[0]


# -- input files


def _staged_change(repo: Repo) -> None:
    reduction_change(repo)
    repo.git("add", "-A")


def test_op_file_with_syntax_error_is_named(repo: Repo) -> None:
    repo.write(
        "src/minitile/ops/reduction.py", repo.read("src/minitile/ops/reduction.py") + "\ndef broken(:\n"
    )
    repo.git("add", "-A")
    r = repo.bench_op("check")
    assert "skipped src/minitile/ops/reduction.py (line " in r.stdout and "invalid syntax" in r.stdout
    assert r.returncode == 0 and "Traceback" not in r.stderr


@pytest.mark.parametrize("kind", ["bom", "crlf", "tabs", "latin1"])
def test_encodings_and_line_endings_survive_a_rewrite(repo: Repo, kind: str) -> None:
    src = (
        "import torch\nfrom minitile.ops import SumFwdOp\n\n\ndef test_x():\n"
        "    op = SumFwdOp(4, 8, torch.float32)  # note\n"
    )
    if kind == "tabs":
        src = src.replace("    op", "\top")
    data = src.encode()
    if kind == "bom":
        data = b"\xef\xbb\xbf" + data
    elif kind == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif kind == "latin1":
        data = ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + src).encode("latin-1")
    (repo.path / "benchmarks/ops/bench_enc.py").write_bytes(data)
    repo.git("config", "core.autocrlf", "false")
    repo.commit("encoded bench")
    _staged_change(repo)
    r = repo.bench_op("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    expected = data.replace(b"SumFwdOp(4, 8, torch.float32)", b"SumFwdOp(8, torch.float32)")
    assert (repo.path / "benchmarks/ops/bench_enc.py").read_bytes() == expected


@pytest.mark.parametrize(
    "kind, why",
    [
        ("binary", "binary content, not Python source"),
        ("non-utf8", "not valid utf-8 text"),
    ],
)
def test_unreadable_benchmark_is_named_and_others_fixed(repo: Repo, kind: str, why: str) -> None:
    data = (
        b"SumFwdOp\0\x00\x01\x02"
        if kind == "binary"
        else b"from minitile.ops import SumFwdOp\n# caf\xe9\nSumFwdOp(1, 2, 3)\n"
    )
    (repo.path / "benchmarks/ops/bench_bad.py").write_bytes(data)
    repo.commit("odd files")
    _staged_change(repo)
    r = repo.bench_op("fix")
    assert "skipped benchmarks/ops/bench_bad.py" in r.stdout and why in r.stdout
    assert (repo.path / "benchmarks/ops/bench_bad.py").read_bytes() == data
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)


def test_empty_and_huge_files(repo: Repo) -> None:
    repo.write("benchmarks/ops/bench_empty.py", "")
    rows = ",\n".join(
        f"    ({i}, {i * 2}, 'case_{i:07d}_padding_to_make_this_file_large')" for i in range(90000)
    )
    huge = (
        f"import torch\nfrom minitile.ops import SumFwdOp\n\nCASES = [\n{rows},\n]\n\n\n"
        "def test_big():\n    SumFwdOp(4, 8, torch.float32)\n"
    )
    repo.write("benchmarks/ops/bench_huge.py", huge)
    assert (repo.path / "benchmarks/ops/bench_huge.py").stat().st_size > 5_000_000
    repo.commit("generated cases")
    _staged_change(repo)
    t0 = time.monotonic()
    r = repo.bench_op("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert time.monotonic() - t0 < 60
    assert repo.read("benchmarks/ops/bench_huge.py").endswith("    SumFwdOp(8, torch.float32)\n")
    assert repo.read("benchmarks/ops/bench_empty.py") == ""


def test_op_file_deleted_in_the_diff(repo: Repo) -> None:
    repo.git("rm", "-q", "src/minitile/ops/gemm.py")
    repo.replace("src/minitile/ops/__init__.py", "from .gemm import GemmOp\n", "")
    repo.replace("src/minitile/ops/__init__.py", '"GemmOp", ', "")
    repo.git("add", "-A")
    before = state(repo)
    r = repo.bench_op("check")
    assert r.returncode == 1
    assert "GemmOp(M, N, K, dtype, trans_b=False) -> removed" in r.stdout
    assert "benchmarks/ops/bench_gemm.py:15" in r.stdout and "nothing replaced it" in r.stdout
    assert state(repo) == before


def test_benchmark_deleted_in_the_diff(repo: Repo) -> None:
    reduction_change(repo)
    repo.git("rm", "-q", BENCH_RED)
    repo.git("add", "-A")
    r = repo.bench_op("check")
    assert r.returncode == 0, r.stdout
    assert "still binds" in r.stdout or "no benchmark" in r.stdout or "every benchmark call" in r.stdout


# -- repository states


def test_first_commit_and_no_commits(tmp_path: Path) -> None:
    import shutil

    d = tmp_path / "fresh"
    shutil.copytree(FIXTURE, d)
    repo = Repo(d)
    repo.git("init", "-q", "-b", "main")
    assert repo.bench_op("install").returncode == 0
    repo.git("add", "-A")
    r = repo.bench_op("hook", "pre-commit")
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""
    r = subprocess.run(["git", "commit", "-q", "-m", "first"], cwd=d, capture_output=True, text=True)
    assert r.returncode == 0 and "bench-op" not in r.stdout + r.stderr
    assert repo.log() == ["first"]


def test_shallow_clone(tmp_path: Path, repo: Repo) -> None:
    reduction_change(repo)
    repo.commit("reduce")  # the benchmarks are broken in the tip
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.path}", str(clone)], check=True)
    c = Repo(clone)
    r = c.bench_op("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 2 and "'HEAD~1' is not a commit" in one_line_error(r)
    r = c.bench_op("check", "--all-files")
    # The only commit is the tip, which already had the new signature: nothing says what the old calls meant.
    assert r.returncode == 1 and "its Op did not change since the benchmark's last commit" in r.stdout
    # A new commit on top of the shallow tip works as anywhere else.
    c.write("src/minitile/ops/norm.py", c.read("src/minitile/ops/norm.py").replace("eps=1e-6)", "eps=1e-5)"))
    c.git("add", "-A")
    r = c.bench_op("check")
    assert "relies on the default of 'eps'" in r.stdout


def test_submodule_is_left_alone(tmp_path: Path, repo: Repo) -> None:
    sub = make_repo(tmp_path / "sub")
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub.path), "third_party/sub")
    repo.commit("add a submodule")
    sub_files = Repo(repo.path / "third_party/sub").snapshot()
    _staged_change(repo)
    r = repo.bench_op("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert Repo(repo.path / "third_party/sub").snapshot() == sub_files
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)


def test_linked_worktree(tmp_path: Path, repo: Repo) -> None:
    assert repo.bench_op("install").returncode == 0
    wt = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "feature", str(wt))
    w = Repo(wt)
    main_before = repo.snapshot()
    reduction_change(w)
    w.git("add", "src", "tests")
    r = subprocess.run(
        ["git", "commit", "-q", "-m", "reduce in a worktree"], cwd=wt, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert w.log()[0].startswith("bench-op: align"), r.stdout + r.stderr
    assert "op = SumFwdOp(N, dtype)" in w.read(BENCH_RED)
    assert repo.snapshot() == main_before and repo.log()[0] == "minitile: initial"


def test_merge_with_conflicts_is_refused(repo: Repo) -> None:
    repo.git("checkout", "-q", "-b", "other")
    repo.replace("src/minitile/ops/gemm.py", "trans_b=False", "trans_b=True")
    repo.commit("other")
    repo.git("checkout", "-q", "main")
    repo.replace("src/minitile/ops/gemm.py", "trans_b=False", "trans_b=None")
    repo.commit("main")
    repo.git("merge", "other", check=False)
    before = state(repo)
    r = repo.bench_op("check")
    assert r.returncode == 1 and "unmerged paths" in one_line_error(r)
    assert state(repo) == before


@pytest.mark.parametrize("op", ["cherry-pick", "bisect"])
def test_no_commit_in_the_middle_of_an_operation(repo: Repo, op: str) -> None:
    base = repo.head()
    reduction_change(repo)
    repo.commit("reduce")
    if op == "cherry-pick":
        (repo.path / ".git" / "CHERRY_PICK_HEAD").write_text(base + "\n")
    else:
        repo.git("bisect", "start")
    before = state(repo)
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run")
    assert r.returncode == 1 and "is in progress" in one_line_error(r)
    assert state(repo)[0] == before[0] and repo.log()[0] == "reduce"


def test_read_only_benchmark(repo: Repo) -> None:
    _staged_change(repo)
    p = repo.path / BENCH_RED
    p.chmod(0o444)
    before = state(repo)
    r = repo.bench_op("fix")
    assert r.returncode == 1
    assert f"{BENCH_RED} is read-only: bench-op did not change it" in r.stderr
    assert state(repo) == before


def test_symlinked_benchmark_is_never_written_through(tmp_path: Path, repo: Repo) -> None:
    outside = tmp_path / "outside_bench.py"
    outside.write_text(
        "import torch\nfrom minitile.ops import SumFwdOp\n\n\ndef test_x():\n    SumFwdOp(4, 8, "
        "torch.float32)\n"
    )
    (repo.path / "benchmarks/ops/bench_link.py").symlink_to(outside)
    repo.commit("a linked benchmark")
    _staged_change(repo)
    r = repo.bench_op("fix")
    assert "skipped benchmarks/ops/bench_link.py (a symlink; bench-op never writes through one" in r.stdout
    assert "SumFwdOp(4, 8, torch.float32)" in outside.read_text()
    assert (repo.path / "benchmarks/ops/bench_link.py").is_symlink()


@pytest.mark.parametrize("key", ["benchmark-paths", "op-paths", "test-paths"])
def test_globs_escaping_the_repository_are_refused(repo: Repo, key: str) -> None:
    repo.replace(
        "pyproject.toml", "[tool.bench-op]\n", f"[tool.bench-op]\n{key} = ['../elsewhere/**/*.py']\n"
    )
    text = repo.read("pyproject.toml")
    # the fixture already sets these keys: keep only the escaping one
    lines = [ln for ln in text.splitlines() if not (ln.startswith(f"{key} = [") and "elsewhere" not in ln)]
    repo.write("pyproject.toml", "\n".join(lines) + "\n")
    r = repo.bench_op("check", "--all-files")
    assert r.returncode == 2 and "points outside the repository" in one_line_error(r)


# -- runs


def _run_with_bench(
    repo: Repo, name: str, body: str, *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    repo.write(f"benchmarks/ops/{name}", body)
    repo.commit(f"add {name}")
    _staged_change(repo)
    return repo.bench_op("run", *args, env=env, timeout=timeout)


def test_segfault_blocks_with_the_signal(repo: Repo) -> None:
    body = (
        "import os, signal, torch\nfrom minitile.ops import SumFwdOp\n\n\ndef test_crash():\n"
        "    SumFwdOp(4, 8, torch.float32)\n    os.kill(os.getpid(), signal.SIGSEGV)\n"
    )
    r = _run_with_bench(repo, "bench_segv.py", body)
    assert r.returncode == 1
    assert "benchmarks/ops/bench_segv.py: blocked: the benchmark process was killed by SIGSEGV" in r.stdout
    assert "SumFwdOp(4, 8, torch.float32)" in repo.read("benchmarks/ops/bench_segv.py"), "restored"


def test_megabytes_of_output(repo: Repo) -> None:
    body = (
        "import sys, torch\nfrom minitile.ops import SumFwdOp\n\n\ndef test_loud(record_property):\n"
        "    SumFwdOp(4, 8, torch.float32)\n    for i in range(200000):\n        print('x' * 40, i)\n"
        "        sys.stderr.write('y' * 40 + '\\n')\n    record_property('latency_ms', 1.5)\n"
    )
    r = _run_with_bench(repo, "bench_loud.py", body)
    assert r.returncode == 0, r.stdout[-3000:]
    assert len(r.stdout) < 200_000
    assert "bench_loud.py: passed with numbers" in r.stdout


def test_exit_zero_without_running_a_test(repo: Repo) -> None:
    body = (
        "import os, torch\nfrom minitile.ops import SumFwdOp\nos._exit(0)\n\n\n"
        "def test_never():\n    SumFwdOp(4, 8, torch.float32)\n"
    )
    r = _run_with_bench(repo, "bench_exit.py", body)
    assert r.returncode == 1
    assert "bench_exit.py: blocked: pytest ran no test (exit 0)" in r.stdout


def test_interpreter_that_does_not_exist(repo: Repo) -> None:
    _staged_change(repo)
    before = state(repo)
    r = repo.bench_op("run", "--python", "/nowhere/python3")
    assert r.returncode == 2
    assert "the interpreter /nowhere/python3 (from --python) does not exist" in one_line_error(r)
    assert state(repo) == before


HANG = (
    "import os, subprocess, time, torch\nfrom minitile.ops import SumFwdOp\n\n\ndef test_hang():\n"
    "    SumFwdOp(4, 8, torch.float32)\n    child = subprocess.Popen(['sleep', '300'])\n"
    "    open(os.environ['HANG_PIDFILE'], 'w').write(str(child.pid))\n    time.sleep(300)\n"
)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def test_ctrl_c_kills_children_restores_the_tree_exits_130(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_hang.py", HANG)
    repo.commit("a benchmark that hangs")
    _staged_change(repo)
    before = state(repo)
    pidfile = tmp_path / "pid"
    env = dict(os.environ, HANG_PIDFILE=str(pidfile))
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchop_hook", "run"],
        cwd=repo.path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not pidfile.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert pidfile.exists(), "the benchmark never started"
    time.sleep(0.5)
    assert repo.read(BENCH_RED) != before[0][BENCH_RED].decode(), "bench-op had written its fix"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert "interrupted" in err
    child = int(pidfile.read_text())
    t0 = time.monotonic()
    while _alive(child) and time.monotonic() - t0 < 10:
        time.sleep(0.1)
    assert not _alive(child)
    assert state(repo) == before


def test_two_runs_at_once(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_hang.py", HANG)
    repo.commit("a benchmark that hangs")
    _staged_change(repo)
    pidfile = tmp_path / "pid"
    env = dict(os.environ, HANG_PIDFILE=str(pidfile))
    first = subprocess.Popen(
        [sys.executable, "-m", "benchop_hook", "run", "--timeout", "60"],
        cwd=repo.path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not pidfile.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        during = repo.snapshot()
        r = repo.bench_op("run", env={"BENCH_OP_LOCK_WAIT": "1"})
        assert r.returncode == 1
        assert f"another bench-op run (pid {first.pid}) is working in this repository" in one_line_error(r)
        assert repo.snapshot() == during, "the second run wrote nothing"
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)


# -- idempotence and bugs


def test_fix_twice_changes_nothing_the_second_time(repo: Repo) -> None:
    _staged_change(repo)
    assert repo.bench_op("fix").returncode == 0
    once = state(repo)
    r = repo.bench_op("fix")
    assert r.returncode == 0 and "Rewriting" not in r.stdout
    assert state(repo) == once


def test_run_twice_commits_once(repo: Repo) -> None:
    reduction_change(repo)
    repo.commit("reduce")
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.log()[0].startswith("bench-op: align")
    after = state(repo)
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0 and "nothing to do" in r.stdout
    assert state(repo) == after


def test_a_bug_is_a_short_message_and_a_log(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchop_hook import cli
    from benchop_hook.commands import check

    def boom(opts: object) -> int:  # stands in for a bug anywhere below the handler
        raise ZeroDivisionError("division by zero")

    monkeypatch.chdir(repo.path)
    monkeypatch.setattr(check, "main", boom)
    assert cli.main(["check"]) == 3
    err = capsys.readouterr().err
    log = repo.path / ".git" / "bench-op" / "crash.log"
    assert err.strip() == (
        f"bench-op: internal error (ZeroDivisionError: division by zero). This is a bug in bench-op; "
        f"the details are in {log}."
    )
    assert "Traceback" in log.read_text() and "ZeroDivisionError" in log.read_text()
