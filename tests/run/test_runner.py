"""The benchmark process (run/runner.py), created for real: started early and handed its tests, killed with
its children when it hangs or on Ctrl-C, a crash by signal, megabytes of output, an exit without a test, an
interpreter that does not exist."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.asserts import one_line_error, state
from tests.helpers.changes import reduction_change, stage_reduction_change
from tests.helpers.process import alive, popen, run
from tests.helpers.repo import Repo
from tests.helpers.sources import HANG

BENCH_RED = "benchmarks/ops/bench_reduction.py"

HANG_BENCH = """import os
import subprocess
import time


def test_hangs(record_property):
    child = subprocess.Popen(["sleep", "300"])
    with open(os.environ["HANG_PIDFILE"], "w") as f:
        f.write(str(child.pid))
    from minitile.ops import SumFwdOp
    import torch
    SumFwdOp(4, 8, torch.float32)
    time.sleep(300)
"""


def test_hung_benchmark_is_killed_with_its_children(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_hang.py", HANG_BENCH)
    repo.commit("a benchmark that hangs")
    reduction_change(repo)
    repo.git("add", "-A")
    pidfile = tmp_path / "child.pid"
    out = tmp_path / "run.json"
    t0 = time.monotonic()
    r = repo.bench_op("run", "--timeout", "8", "--json", str(out), env={"HANG_PIDFILE": str(pidfile)})
    assert time.monotonic() - t0 < 120
    data = json.loads(out.read_text())
    hang = next(b for b in data["benchmarks"] if b["path"] == "benchmarks/ops/bench_hang.py")
    assert hang["status"] == "blocked" and "timed out after" in hang["reason"]
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(child), "the benchmark's child process survived the timeout"
    assert r.returncode == 1


WARM_TEST = """import os
import sys


def test_started_early():
    assert "wave" in sys.modules  # imported before the node ids came, not by this file
    assert os.environ["BENCHOP_MARK"] == "handed"  # the run's environment, not the early start's
"""


@pytest.mark.usefixtures("without_session_env")
def test_early_started_pytest_imports_first_then_runs_what_it_is_handed(tmp_path: Path) -> None:
    from benchop_hook.run.runner import Interpreter, Warm, run_pytest

    interp = Interpreter(sys.executable, "test")
    warm = Warm(interp, str(tmp_path), ("wave",))
    (tmp_path / "test_warm.py").write_text(WARM_TEST)  # written after the start, as the rewrites are
    res = run_pytest(
        interp,
        str(tmp_path),
        ["test_warm.py"],
        timeout=120,
        echo=lambda s: None,
        warm=warm,
        extra_env={"BENCHOP_MARK": "handed"},
    )
    assert [(t.nodeid, t.outcome) for t in res.tests] == [("test_warm.py::test_started_early", "passed")], (
        res.tail
    )
    assert warm.proc is None  # taken once: a second session starts cold
    cold = run_pytest(
        interp,
        str(tmp_path),
        ["test_warm.py"],
        timeout=120,
        echo=lambda s: None,
        warm=warm,
        extra_env={"BENCHOP_MARK": "handed"},
    )
    assert [t.outcome for t in cold.tests] == ["failed"]


@pytest.mark.usefixtures("without_session_env")
def test_early_started_pytest_nothing_took_is_ended(tmp_path: Path) -> None:
    from benchop_hook.run.runner import Interpreter, Warm

    unused = Warm(Interpreter(sys.executable, "test"), str(tmp_path), ())
    assert unused.proc is not None
    pid = unused.proc.pid
    unused.close()
    assert not alive(pid)
    # asked for by another interpreter: ended, and the run starts its own
    other = Warm(Interpreter(sys.executable, "test"), str(tmp_path), ())
    assert other.proc is not None
    pid = other.proc.pid
    taken = other.take(Interpreter("/elsewhere/python", "test"), str(tmp_path), ["test_ok.py"], {})
    assert taken is None and other.proc is None and not alive(pid)


@pytest.mark.usefixtures("without_session_env")
def test_early_started_pytest_without_pytest_says_install_it(tmp_path: Path) -> None:
    from benchop_hook.run.notrun import CannotRun
    from benchop_hook.run.runner import Interpreter, Warm, run_pytest

    run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], tmp_path, check=True)
    interp = Interpreter(str(tmp_path / "bare" / "bin" / "python"), "test")
    warm = Warm(interp, str(tmp_path), ())
    time.sleep(0.5)  # it may have ended already or not yet: either way the same answer
    (tmp_path / "test_ok.py").write_text("def test_ok():\n    pass\n")
    try:
        run_pytest(interp, str(tmp_path), ["test_ok.py"], timeout=120, echo=lambda s: None, warm=warm)
    except CannotRun as exc:
        assert "install pytest there" in exc.message
    else:
        raise AssertionError("a run without pytest must say so")


def test_early_start_leaves_torch_to_a_conftest_that_sets_the_environment(tmp_path: Path) -> None:
    from benchop_hook.config import load
    from benchop_hook.run.runner import warm_modules

    (tmp_path / "pyproject.toml").write_text('[tool.bench-op]\nbenchmark-paths = ["benchmarks/**/*.py"]\n')
    (tmp_path / "benchmarks").mkdir()
    cfg = load(str(tmp_path))
    assert warm_modules(str(tmp_path), cfg) == ("torch",)
    (tmp_path / "benchmarks" / "conftest.py").write_text("import pytest\nimport torch\n")
    assert warm_modules(str(tmp_path), cfg) == ("torch",)
    (tmp_path / "benchmarks" / "conftest.py").write_text(
        "import os\nos.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'\nimport torch\n"
    )
    assert warm_modules(str(tmp_path), cfg) == ()


def _run_with_bench(
    repo: Repo, name: str, body: str, *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    repo.write(f"benchmarks/ops/{name}", body)
    repo.commit(f"add {name}")
    stage_reduction_change(repo)
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
    stage_reduction_change(repo)
    before = state(repo)
    r = repo.bench_op("run", "--python", "/nowhere/python3")
    assert r.returncode == 2
    assert "the interpreter /nowhere/python3 (from --python) does not exist" in one_line_error(r)
    assert state(repo) == before


def test_ctrl_c_kills_children_restores_the_tree_exits_130(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_hang.py", HANG)
    repo.commit("a benchmark that hangs")
    stage_reduction_change(repo)
    before = state(repo)
    pidfile = tmp_path / "pid"
    proc = popen([sys.executable, "-m", "benchop_hook", "run"], repo.path, env={"HANG_PIDFILE": str(pidfile)})
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
    while alive(child) and time.monotonic() - t0 < 10:
        time.sleep(0.1)
    assert not alive(child)
    assert state(repo) == before
