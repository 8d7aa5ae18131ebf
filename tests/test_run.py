"""`bench-op run` on real pytest subprocesses over the fixture
library (CPU): each outcome of the repair loop.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import REDUCTION_N_DIM, Repo, reduction_change

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def run_json(
    repo: Repo, tmp_path: Path, *args: str, timeout: float = 300
) -> tuple[subprocess.CompletedProcess[str], dict]:
    out = tmp_path / "run.json"
    r = repo.bench_op("run", "--json", str(out), *args, timeout=timeout)
    return r, json.loads(out.read_text()) if out.exists() else {}


def test_fixed_statically_then_numbers_on_the_first_run(repo: Repo, tmp_path: Path) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert data["status"] == "done"
    (bench,) = data["benchmarks"]
    assert bench["path"] == BENCH_RED and bench["status"] == "passed"
    assert bench["iterations"] == 1, "a file the static pass fixed runs exactly once"
    cases = {n["case"] for n in bench["numbers"]}
    assert "test_sum_bench[64-256]" in cases and "test_amax_bench" in cases
    assert {n["unit"] for n in bench["numbers"]} >= {"ms", "TFLOPS", "GB/s"}
    assert "latency" in r.stdout and "passed with numbers" in r.stdout
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)
    # The interpreter used is printed.
    assert f"running benchmarks with {sys.executable}" in r.stdout


SPLAT_BENCH = """import pytest
import torch

from benchmarks.benchmark import report, time_ms
from minitile.ops import SumFwdOp
from workloads import randn

WORKLOADS = [dict(M=64, N=256, dtype=torch.float32), dict(M=128, N=512, dtype=torch.float32)]


@pytest.mark.parametrize("params", WORKLOADS)
def test_sum_params_bench(params, record_property):
    x = randn(params["M"], params["N"], dtype=params["dtype"])
    op = SumFwdOp(**params)
    report(record_property, "sum", time_ms(op, x), nbytes=x.numel() * x.element_size())
"""


def test_splatted_params_only_the_run_can_fix(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_splat.py", SPLAT_BENCH)
    repo.commit("a benchmark built from workload dicts")
    reduction_change(repo)
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    splat = next(b for b in data["benchmarks"] if b["path"] == "benchmarks/ops/bench_splat.py")
    assert splat["status"] == "passed" and splat["numbers"]
    assert splat["iterations"] == 3  # one case per function, repaired, then the full set once
    text = repo.read("benchmarks/ops/bench_splat.py")
    # params is used for the inputs too: the Op gets its own copy without 'M'.
    assert (
        "    op_params = dict(params)\n    op_params.pop('M', None)\n    op = SumFwdOp(**op_params)\n" in text
    )
    assert 'x = randn(params["M"], params["N"], dtype=params["dtype"])' in text
    assert "repaired from the traceback" in r.stdout


def test_kernel_error_after_interface_fix_blocks_and_leaves_the_tree(repo: Repo, tmp_path: Path) -> None:
    crashing = REDUCTION_N_DIM.replace(
        "    def forward(self, x):\n",
        "    def forward(self, x):\n        raise RuntimeError('CUDA error: an illegal memory access was "
        "encountered')\n",
        1,
    )
    repo.write("src/minitile/ops/reduction.py", crashing)
    repo.git("add", "-A")
    before = repo.snapshot()
    r, data = run_json(repo, tmp_path)
    assert r.returncode == 1
    assert data["status"] == "blocked"
    (bench,) = data["benchmarks"]
    assert bench["status"] == "failed" or bench["status"] == "blocked"
    assert "RuntimeError: CUDA error: an illegal memory access was encountered" in bench["reason"]
    assert "src/minitile/ops/reduction.py:" in bench["reason"]
    assert repo.snapshot() == before, "a blocked file is never half-fixed in the tree"
    patch = Path(bench["patch"])
    assert patch.exists() and "+    op = SumFwdOp(N, dtype)" in patch.read_text()
    # The patch applies to the tree as it is.
    repo.git("apply", "--check", str(patch))
    assert str(patch) in r.stdout


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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purposes
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


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
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child), "the benchmark's child process survived the timeout"
    assert r.returncode == 1


GPU_BENCH = """import torch

from minitile.ops import GemmOp


def test_gemm_cuda_bench(record_property):
    a = torch.randn(64, 64, device="cuda")
    op = GemmOp(64, 64, 64, torch.float32)
    op(a, a)
"""


def test_no_gpu_is_a_skip_unless_required(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_cuda.py", GPU_BENCH)
    repo.commit("a benchmark that needs a GPU")
    repo.replace(
        "src/minitile/ops/gemm.py",
        "def __init__(self, M, N, K, dtype, trans_b=False):",
        "def __init__(self, M, N, K, *, dtype, trans_b=False):",
    )
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    cuda = next(b for b in data["benchmarks"] if b["path"] == "benchmarks/ops/bench_cuda.py")
    assert cuda["status"] == "not-run" and cuda["reason"] == "no CUDA device is visible", cuda
    assert "GemmOp(64, 64, 64, dtype=torch.float32)" in repo.read("benchmarks/ops/bench_cuda.py"), (
        "the static fix stands"
    )
    assert r.returncode == 0, r.stdout
    repo.replace("pyproject.toml", "timeout = 300", "timeout = 300\nrequire-gpu = true")
    repo.git("checkout", "--", "benchmarks")
    repo.git("add", "pyproject.toml")
    r, data = run_json(repo, tmp_path)
    assert r.returncode == 1 and data["status"] == "blocked"


def test_passing_without_numbers_is_not_done(repo: Repo, tmp_path: Path) -> None:
    repo.write(
        "benchmarks/ops/bench_quiet.py",
        "import torch\nfrom minitile.ops import SumFwdOp\n\n\ndef test_quiet():\n    SumFwdOp(4, 8, "
        "torch.float32)\n",
    )
    repo.commit("a benchmark that measures nothing")
    reduction_change(repo)
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    quiet = next(b for b in data["benchmarks"] if b["path"] == "benchmarks/ops/bench_quiet.py")
    assert quiet["status"] == "failed" and "printed no latency" in quiet["reason"]
    assert r.returncode == 1


def test_no_run_is_static_only(repo: Repo, tmp_path: Path) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.bench_op("run", "--no-run")
    assert r.returncode == 0 and "--no-run" in r.stdout
    assert "running benchmarks" not in r.stdout
    assert "op = SumFwdOp(N, dtype)" in repo.read(BENCH_RED)


PB_BENCH = """import torch

from minitile.ops import SumFwdOp


def test_sum_pytest_benchmark(benchmark):
    x = torch.randn(64, 256)
    op = SumFwdOp(64, 256, torch.float32)
    benchmark(op, x)
"""


def test_numbers_from_pytest_benchmark_json(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_pb.py", PB_BENCH)
    repo.commit("a pytest-benchmark benchmark")
    reduction_change(repo)
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    pb = next(b for b in data["benchmarks"] if b["path"] == "benchmarks/ops/bench_pb.py")
    assert pb["status"] == "passed"
    (n,) = [n for n in pb["numbers"] if n["case"] == "test_sum_pytest_benchmark"]
    assert n["name"] == "latency" and n["unit"] == "ms" and n["value"] > 0


WARM_TEST = """import os
import sys


def test_started_early():
    assert "wave" in sys.modules  # imported before the node ids came, not by this file
    assert os.environ["BENCHOP_MARK"] == "handed"  # the run's environment, not the early start's
"""


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


def test_early_started_pytest_nothing_took_is_ended(tmp_path: Path) -> None:
    from benchop_hook.run.runner import Interpreter, Warm

    unused = Warm(Interpreter(sys.executable, "test"), str(tmp_path), ())
    assert unused.proc is not None
    pid = unused.proc.pid
    unused.close()
    assert not _alive(pid)
    # asked for by another interpreter: ended, and the run starts its own
    other = Warm(Interpreter(sys.executable, "test"), str(tmp_path), ())
    assert other.proc is not None
    pid = other.proc.pid
    taken = other.take(Interpreter("/elsewhere/python", "test"), str(tmp_path), ["test_ok.py"], {})
    assert taken is None and other.proc is None and not _alive(pid)


def test_early_started_pytest_without_pytest_says_install_it(tmp_path: Path) -> None:
    from benchop_hook.run.notrun import CannotRun
    from benchop_hook.run.runner import Interpreter, Warm, run_pytest

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
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
