"""Old and new numbers side by side (records/): real git repositories on the fixture library, real pytest
runs, a real temporary worktree at the parent, real git notes."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchop_hook.commands.history import selects
from benchop_hook.records import notes
from benchop_hook.records.baseline import Comparison, change_text, compare, judge, noise_words, terminal_lines
from tests.helpers import process
from tests.helpers.changes import REDUCTION_N_DIM
from tests.helpers.repo import PROJECT, Repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"


SUM = f"{BENCH_RED}::test_sum_bench"


FAST_ENV = {"MINITILE_ITERS": "9", "OMP_NUM_THREADS": "1"}  # one thread: steady on a shared machine


# Every reduction sleeps 1 ms per call, so its time is the sleep's, steady on a busy machine; the "kernel"
# that gets slower sleeps 5 ms: a regression of about +400% in time, -80% in throughput.
SLEEP = "    def forward(self, x):\n        time.sleep(0.001)\n"


def steady(repo: Repo) -> None:
    """The parent: the fixture's reductions made steady; regressions judged at 25%."""
    text = repo.read("src/minitile/ops/reduction.py").replace(
        "import torch\n", "import time\n\nimport torch\n", 1
    )
    repo.write("src/minitile/ops/reduction.py", text.replace("    def forward(self, x):\n", SLEEP, 1))
    repo.replace("pyproject.toml", "timeout = 300", "timeout = 300\nregression-threshold = 0.25")
    repo.commit("reduce: steady timings")


def new_reduction(*, slow_sum: bool) -> str:
    text = REDUCTION_N_DIM.replace("import torch\n", "import time\n\nimport torch\n", 1).replace(
        "    def forward(self, x):\n", SLEEP, 1
    )
    if slow_sum:
        text = text.replace(
            "        return x.sum(dim=self.dim)\n",
            "        time.sleep(0.004)  # the new kernel is slower\n        return x.sum(dim=self.dim)\n",
        )
    return text


def op_change(repo: Repo, *, slow_sum: bool) -> None:
    """ReduceOp(M, N, dtype, tune=False) -> ReduceOp(N, dtype, dim=-1, *, tune=False), committed."""
    repo.write("src/minitile/ops/reduction.py", new_reduction(slow_sum=slow_sum))
    repo.write(
        "tests/ops/test_reduction.py",
        (PROJECT / "examples/reduce-rows-from-input/tests/ops/test_reduction.py").read_text(),
    )
    repo.commit("reduce: rows come from the input")


def run(repo: Repo, tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    out = tmp_path / "run.json"
    if out.exists():
        out.unlink()
    r = repo.bench_op(
        "run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--json", str(out), *args, env=FAST_ENV
    )
    return r, json.loads(out.read_text()) if out.exists() else {}


def numbers(data: dict) -> dict[tuple[str, str], dict]:
    return {(f"{b['path']}::{n['case']}", n["name"]): n for b in data["benchmarks"] for n in b["numbers"]}


def test_slower_kernel_is_a_regression_against_a_run_at_the_parent(repo: Repo, tmp_path: Path) -> None:
    steady(repo)
    op_change(repo, slow_sum=True)
    # The user's work around the run: a stash, an unstaged edit, an untracked file.
    repo.write("benchmarks/ops/bench_norm.py", repo.read("benchmarks/ops/bench_norm.py") + "# stashed\n")
    repo.git("stash", "-q")
    repo.write(
        "benchmarks/ops/bench_norm.py", repo.read("benchmarks/ops/bench_norm.py") + "# my unstaged note\n"
    )
    repo.write("scratch.txt", "untracked\n")
    stash = repo.git("stash", "list", "--format=%H")
    user_bytes = (repo.path / "benchmarks/ops/bench_norm.py").read_bytes()
    parent = repo.git("rev-parse", "HEAD~1").strip()

    r, data = run(repo, tmp_path, "--baseline", "--repeats", "2")
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr  # reported, not blocking
    assert data["status"] == "done" and data["commit"]
    nums = numbers(data)
    sums = [k for k in nums if k[0].startswith(SUM) and k[1] == "latency_ms"]
    assert len(sums) == 2
    for key in sums:
        n = nums[key]
        assert 1.0 <= n["baseline"] < 2.5, n  # the parent's time: the 1 ms sleep and a little
        assert 2.0 < n["change"] < 6.0, n  # about +400%
        assert n["verdict"] == "regression" and len(n["runs"]) == 2
        bandwidth = nums[(key[0], "bandwidth_gbs")]
        assert -0.95 < bandwidth["change"] < -0.5 and bandwidth["verdict"] == "regression"  # higher is better
    # The cases whose speed did not change are not reported.
    regressed = {x["nodeid"] for x in data["regressions"]}
    assert regressed == {k[0] for k in sums}
    for (nodeid, _name), n in nums.items():
        if not nodeid.startswith(SUM):
            # A figure too small for its printed digits (a CPU's TFLOPS, 5e-05) can round to 0 on one side:
            # no ratio exists, and it says so rather than "same".
            rounded_away = n["verdict"] == "incomparable" and n.get("baseline") == 0
            assert n["verdict"] in ("same", "noise") or rounded_away, n
    assert data["baseline"]["source"] == "run" and data["baseline"]["parent"] == parent
    assert data["baseline"]["repeats"] == 2 and data["baseline"]["noise"] is not None
    # The terminal: old, new and change columns, and the regressions line.
    assert "old" in r.stdout and "change" in r.stdout and "in a temporary worktree" in r.stdout
    assert "2 regressions over 25% against the parent" in r.stdout
    # The follow-up commit's numbers table has the "vs parent" column.
    body = repo.git("log", "-1", "--format=%B")
    assert "vs parent" in body and "regression" in body
    # The temporary worktree is gone; the user's stash, unstaged edit and untracked file are as they were.
    assert repo.git("worktree", "list", "--porcelain").count("worktree ") == 1
    assert not (repo.path / ".git" / "worktrees").exists() or not os.listdir(repo.path / ".git" / "worktrees")
    assert repo.git("stash", "list", "--format=%H") == stash
    assert (repo.path / "benchmarks/ops/bench_norm.py").read_bytes() == user_bytes
    assert (repo.path / "scratch.txt").read_text() == "untracked\n"
    assert repo.git("diff", "--cached", "--name-only") == ""
    # Both sides' numbers are in git notes: the follow-up commit's and the parent's; none entered a tree.
    head_runs = notes.read_note(str(repo.path), repo.head())
    assert head_runs and any(m.nodeid.startswith(SUM) for m in head_runs[0].measures)
    assert head_runs[0].torch and "Python" in head_runs[0].python and head_runs[0].device.startswith("CPU")
    import platform

    import torch  # the versions come from the benchmark session itself (this interpreter runs it)

    assert head_runs[0].torch == torch.__version__
    assert head_runs[0].python == f"{sys.executable} (Python {platform.python_version()})"
    assert notes.read_note(str(repo.path), parent)
    assert "refs/notes" not in repo.git("ls-tree", "-r", "--name-only", "HEAD")


def test_notes_are_the_baseline_without_a_rerun_and_history(repo: Repo, tmp_path: Path) -> None:
    steady(repo)
    # First change: same speed. Compared with a run at the parent (once), nothing is reported; the numbers are
    # recorded.
    op_change(repo, slow_sum=False)
    r, data = run(repo, tmp_path, "--baseline", "--repeats", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert data["regressions"] == [], data["regressions"]
    assert "no regression over 25% against the parent" in r.stdout
    first = repo.head()
    assert "recorded" in r.stdout and notes.read_note(str(repo.path), first)

    # Second change: dtype becomes keyword-only and the sum kernel gets slower; fail-on-regression is on.
    repo.replace(
        "pyproject.toml",
        "regression-threshold = 0.25",
        "regression-threshold = 0.25\nfail-on-regression = true",
    )
    text = new_reduction(slow_sum=True).replace(
        "def __init__(self, N, dtype, dim=-1, *, tune=False):",
        "def __init__(self, N, *, dtype, dim=-1, tune=False):",
    )
    repo.write("src/minitile/ops/reduction.py", text)
    repo.commit("reduce: dtype is keyword-only")
    r, data = run(repo, tmp_path, "--baseline")
    assert r.returncode == 1, r.stdout + r.stderr  # fail-on-regression
    assert data["commit"], "the fix is committed all the same"
    assert "Bench-Op: follow-up" in repo.git("log", "-1", "--format=%B")
    assert data["baseline"]["source"] == "notes" and data["baseline"]["parent"] == first
    assert data["pytest_sessions"] == 1 and "temporary worktree" not in r.stdout  # no run at the parent
    assert {x["nodeid"] for x in data["regressions"]} == {k for k, _ in numbers(data) if k.startswith(SUM)}
    assert "not measured" in r.stdout

    # history: every recorded commit, newest first; --plot draws it.
    h = repo.cli("history", BENCH_RED)
    assert h.returncode == 0, h.stderr
    lines = h.stdout.splitlines()
    block = lines[lines.index(f"{SUM}[64-256]:") :]
    rows = [ln for ln in block[2:] if ln.startswith("  ") and not ln.startswith("   ")][:3]
    assert rows[0].split()[0] == repo.head()[:12] and rows[1].split()[0] == first[:12]
    assert "+" in rows[0].split()[-1]  # slower than the commit before it
    h = repo.cli("history", f"{SUM}[128-512]")
    assert h.returncode == 0 and f"{SUM}[128-512]:" in h.stdout and "test_mean" not in h.stdout
    if importlib.util.find_spec("matplotlib") is None:
        pytest.skip("matplotlib is not installed")
    png = tmp_path / "trend.png"
    h = repo.cli("history", BENCH_RED, "--plot", str(png))
    assert h.returncode == 0, h.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_is_one_sentence(repo: Repo) -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from benchop_hook.cli import main\nraise SystemExit(main(sys.argv[1:]))"
    )
    repo.git(
        "notes",
        "--ref=bench-op",
        "add",
        "-m",
        json.dumps(
            {
                "bench-op": 1,
                "runs": [
                    {
                        "device": "cpu",
                        "torch": "2",
                        "python": "py",
                        "numbers": {f"{SUM}[1-2]": [{"name": "latency_ms", "value": 1.0, "unit": "ms"}]},
                    }
                ],
            }
        ),
    )
    r = process.run([sys.executable, "-c", code, "history", "--plot", "x.png"], repo.path)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "matplotlib" in r.stderr and "Traceback" not in r.stderr


def test_compare_and_merge_are_pure() -> None:
    new = {
        ("f::a", "latency"): [(2.0, "ms")],
        ("f::b", "latency"): [(1.0, "ms")],
        ("f::c", "tflops"): [(0.5, "TFLOPS")],
    }
    old = {
        ("f::a", "latency"): [(1000.0, "us")],
        ("f::c", "tflops"): [(1.0, "TFLOPS")],
        ("f::d", "latency"): [(1.0, "ms")],
    }
    ds = {(d.nodeid, d.name): d for d in compare(new, old, threshold=0.1, repeated=False)}
    assert (
        ds[("f::a", "latency")].change == pytest.approx(1.0)
        and ds[("f::a", "latency")].verdict == "regression"
    )
    assert ds[("f::b", "latency")].verdict == "new-case" and ds[("f::d", "latency")].verdict == "gone"
    assert (
        ds[("f::c", "tflops")].change == pytest.approx(-0.5)
        and ds[("f::c", "tflops")].verdict == "regression"
    )
    assert judge(-0.3, "ms", 0.1, None) == "improvement" and judge(0.05, "ms", 0.1, None) == "same"
    assert judge(0.3, "ms", 0.1, 0.4) == "noise" and judge(0.3, "widgets", 0.1, None) == "changed"
    a = notes.Run(
        "cpu", "2", "py", (notes.Measure("f::a", "t", 1.0, "ms"), notes.Measure("f::b", "t", 2.0, "ms"))
    )
    b = notes.Run("cpu", "2", "py", (notes.Measure("f::a", "t", 3.0, "ms"),))
    gpu = notes.Run("H200", "2", "py", (notes.Measure("f::a", "t", 0.1, "ms"),))
    merged = notes.merge(notes.merge([a], gpu), b)
    assert notes.parse_note(notes.render_note(merged)) == merged
    latest = notes.latest(merged, "cpu")
    assert latest["f::a"][0].value == 3.0 and latest["f::b"][0].value == 2.0  # other node ids kept
    assert notes.latest(merged, "H200")["f::a"][0].value == 0.1
    assert (
        selects("p.py::t[1]", "p.py")
        and selects("p.py::t[1]", "p.py::t")
        and not selects("p.py::tt", "p.py::t")
    )


def _runs(*values: float) -> list[tuple[float, str]]:
    return [(v, "ms") for v in values]


def test_runs_that_overlap_the_parents_are_no_regression() -> None:
    # the median moved 50%, more than either side's spread (30%), but a new run is as fast as an old one
    apart = {("f::a", "latency"): _runs(1.0, 1.0, 1.3)}
    ds = compare({("f::a", "latency"): _runs(1.3, 1.5, 1.5)}, apart, threshold=0.1, repeated=True)
    assert ds[0].verdict == "noise" and change_text(ds[0]).endswith("within noise (±30%)"), ds
    ds = compare({("f::a", "latency"): _runs(1.4, 1.5, 1.5)}, apart, threshold=0.1, repeated=True)
    assert ds[0].verdict == "regression", ds
    assert judge(0.5, "ms", 0.1, 0.3, overlap=True) == "noise" and judge(0.5, "ms", 0.1, 0.3) == "regression"


def test_noise_a_percentage_cannot_say_is_an_absolute_spread() -> None:
    """A noisy machine: a tiny kernel's runs at 0.0001 ms and one at 0.1448 ms read as ±144700%; a
    0.0024 ms difference between runs that overlap is no regression."""
    new = {
        ("f::tiny", "latency"): _runs(0.0001, 0.0001, 0.1448),
        ("f::small", "latency"): _runs(0.0029, 0.0052, 0.0060),
        ("f::big", "latency"): _runs(10.0, 10.2, 10.4),
    }
    old = {
        ("f::tiny", "latency"): _runs(0.0001, 0.0001, 0.0001),
        ("f::small", "latency"): _runs(0.0024, 0.0028, 0.0030),
        ("f::big", "latency"): _runs(10.0, 10.1, 10.2),
    }
    c = Comparison("p" * 40, "run", "cpu", 0.1, 3, compare(new, old, threshold=0.1, repeated=True))
    assert c.regressions == [], c.deltas
    small = c.get("f::small", "latency")
    assert small is not None and small.verdict == "noise"
    # +86% is past either side's spread (60%): only the overlap (0.0029 ms new, 0.0030 ms old) says noise
    assert change_text(small) == "+85.7% within noise (±60%)"
    assert c.noise == pytest.approx(0.596, abs=0.001) and c.spreads == {"ms": pytest.approx(0.1447)}
    line = next(ln for ln in terminal_lines(c) if "run-to-run noise" in ln)
    assert "up to ±59.6%; elsewhere, runs spread over up to 0.145 ms (3 runs each side" in line, line
    assert "1447" not in line and "144700" not in line
    tiny = c.get("f::tiny", "latency")
    assert tiny is not None and not tiny.relative_noise and tiny.noise_text() == "runs spread over 0.145 ms"
    assert noise_words(None, {"ms": 0.0024}) == "runs spread over up to 0.0024 ms"


def test_editable_install_still_measures_the_parent(repo: Repo, tmp_path: Path) -> None:
    """The package on sys.path through a .pth file (what `pip install -e` does): the run at the parent
    must import the parent's code from the worktree, not the new code from the user's tree."""
    import sysconfig
    import venv

    env_dir = tmp_path / "editable"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    site = next(env_dir.glob("lib/python*/site-packages"))
    (site / "_editable_minitile.pth").write_text(f"{sysconfig.get_paths()['purelib']}\n{repo.path / 'src'}\n")
    repo.replace("pyproject.toml", 'pythonpath = ["src", "."]', 'pythonpath = ["."]')
    repo.replace(
        "pyproject.toml", f"python = {sys.executable!r}", f"python = {str(env_dir / 'bin' / 'python')!r}"
    )
    steady(repo)
    op_change(repo, slow_sum=True)
    r, data = run(repo, tmp_path, "--baseline", "--repeats", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert data["baseline"]["source"] == "run"
    assert {x["nodeid"] for x in data["regressions"]} == {f"{SUM}[64-256]", f"{SUM}[128-512]"}, r.stdout


def test_interrupted_at_the_parent_removes_the_worktree(repo: Repo, tmp_path: Path) -> None:
    import signal
    import time

    text = repo.read("src/minitile/ops/reduction.py").replace(
        "import torch\n", "import time\n\nimport torch\n", 1
    )
    repo.write(
        "src/minitile/ops/reduction.py",
        text.replace(
            "    def forward(self, x):\n", "    def forward(self, x):\n        time.sleep(0.2)\n", 1
        ),
    )
    repo.commit("reduce: a slow parent")
    op_change(repo, slow_sum=False)
    head, before = repo.head(), repo.snapshot()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = process.popen(
        [
            sys.executable,
            "-m",
            "benchop_hook",
            "run",
            "--baseline",
            "--from-ref",
            "HEAD~1",
            "--to-ref",
            "HEAD",
        ],
        repo.path,
        env={**FAST_ENV, "TMPDIR": str(tmp)},
        stderr=None,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if "at the parent" in line and "temporary worktree" in line:
            break
    time.sleep(1.5)  # the parent's session is under way
    assert repo.git("worktree", "list", "--porcelain").count("worktree ") == 2
    proc.send_signal(signal.SIGINT)
    proc.stdout.read()
    assert proc.wait(timeout=60) == 130
    assert repo.git("worktree", "list", "--porcelain").count("worktree ") == 1
    assert not [p for p in tmp.iterdir() if p.name.startswith("bench-op-parent-")]
    assert repo.head() == head and repo.snapshot() == before  # no follow-up commit, the tree put back
