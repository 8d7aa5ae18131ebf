"""What the repair loop costs over a plain run of the benchmarks it fixed, side by side in one go.

For each repetition: a fresh copy of the fixture library (tests/fixtures/minitile) with the
ReduceOp change committed, so that its benchmarks build the Op the old way; plus a benchmark file
where one function builds a changed Op and one does not. Then:
  - `bench-op run --from-ref HEAD~1 --to-ref HEAD --no-commit` (the whole hook: static pass,
    runs, report), timed, with the number of benchmark executions per fixed file from its JSON
    (its pytest sessions are timed from the moment they get their node ids: the first one's
    interpreter was started before the static pass, and its start-up overlaps with it);
  - a plain `python -m pytest <the same node ids>` of the fixed file(s), timed; and the same with the
    options and environment bench-op gives its sessions (its plugin, JUnit XML, no bytecode written);
  - a plain `python -m pytest <whole file>` for the mixed file (what running whole files would cost).
Runs where it is started: the CPU here, CUDA on the device machine.

Odd repetitions time plain pytest before the hook, even ones after: the first pays for what is cold.
Printed: the medians, the ratio within each repetition and its median, and every sample.

Usage: python perf/run_overhead.py [--reps 3] [--json PATH] [--ratio-only]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "minitile")
CHANGE = os.path.join(ROOT, "examples", "reduce-rows-from-input")
ENV = dict(
    os.environ, GIT_AUTHOR_NAME="p", GIT_AUTHOR_EMAIL="p@x", GIT_COMMITTER_NAME="p", GIT_COMMITTER_EMAIL="p@x"
)

MIXED = """import pytest
import torch

from benchmarks.benchmark import report, time_ms
from minitile.ops import GemmOp, SumFwdOp
from workloads import randn

BIG = (8192, 8192, 8192) if torch.cuda.is_available() else (512, 512, 512)
DTYPE = torch.bfloat16 if torch.cuda.is_available() else torch.float32


@pytest.mark.parametrize("M, N", [(4096, 4096), (8192, 8192)] if torch.cuda.is_available() else [(64, 256)])
def test_sum_mixed(M, N, record_property):
    x = randn(M, N)
    op = SumFwdOp(M, N, torch.float32)
    report(record_property, "sum", time_ms(op, x), nbytes=x.numel() * 4)


@pytest.mark.parametrize("rep", range(4))
def test_gemm_unaffected(rep, record_property):
    M, N, K = BIG
    a, b = randn(M, K, dtype=DTYPE), randn(K, N, dtype=DTYPE)
    op = GemmOp(M, N, K, DTYPE)
    report(record_property, "gemm", time_ms(op, a, b, iters=50), flops=2 * M * N * K)
"""


def sh(cmd: list[str], cwd: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=ENV)
    return time.perf_counter() - t0, p


def make_repo(dest: str) -> None:
    shutil.copytree(FIXTURE, dest)
    with open(os.path.join(dest, "benchmarks", "ops", "bench_mixed.py"), "w") as f:
        f.write(MIXED)
    text = (
        open(os.path.join(dest, "pyproject.toml"))
        .read()
        .replace("[tool.bench-op]\n", f"[tool.bench-op]\npython = {sys.executable!r}\n")
    )
    open(os.path.join(dest, "pyproject.toml"), "w").write(text)
    for cmd in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "-A"],
        ["git", "commit", "-q", "-m", "init"],
    ):
        subprocess.run(cmd, cwd=dest, check=True, env=ENV)
    shutil.copytree(CHANGE, dest, dirs_exist_ok=True)
    for cmd in (["git", "add", "-A"], ["git", "commit", "-q", "-m", "reduce: rows from the input"]):
        subprocess.run(cmd, cwd=dest, check=True, env=ENV)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument(
        "--ratio-only",
        action="store_true",
        help="time only the hook and plain pytest of the same node ids (half the device time)",
    )
    ns = ap.parse_args()
    rows: dict[str, list[float]] = {}
    executions: dict[str, list[int]] = {}
    device = None
    tables = []
    ratios: list[float] = []  # the whole hook over plain pytest, within each repetition
    first_targets: list[str] = []
    fixed: dict[str, str] = {}  # the benchmark files as the hook wrote them in the first repetition
    for rep in range(ns.reps):
        tmp = tempfile.mkdtemp(prefix="bench-op-overhead-")
        repo = os.path.join(tmp, "minitile")
        make_repo(repo)
        out = os.path.join(tmp, "run.json")
        hook_cmd = [
            sys.executable,
            "-m",
            "benchop_hook",
            "run",
            "--from-ref",
            "HEAD~1",
            "--to-ref",
            "HEAD",
            "--no-commit",
            "--json",
            out,
        ]
        if rep % 2 == 1:
            # Odd repetitions run plain pytest first: what runs first in a repetition pays for whatever is
            # cold
            # (the page cache, the GPU's clocks), so neither side always gets it. It runs in a second copy
            # holding the files the hook wrote in the first repetition (the same change every time), on the
            # node ids the hook ran then.
            twin = os.path.join(tmp, "twin")
            make_repo(twin)
            for path, text in fixed.items():
                with open(os.path.join(twin, path), "w") as f:
                    f.write(text)
            plain_s, p2 = sh(
                [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", *first_targets], twin
            )
            hook_s, p = sh(hook_cmd, repo)
        else:
            hook_s, p = sh(hook_cmd, repo)
            plain_s = -1.0
        if p.returncode != 0:
            raise SystemExit(p.stdout[-4000:] + p.stderr[-2000:])
        if rep == 0:
            tables.append(p.stdout)
        data = json.load(open(out))
        rows.setdefault("hook total (bench-op run, whole process)", []).append(hook_s)
        rows.setdefault("hook: time in its pytest sessions", []).append(data["benchmark_seconds"])
        targets = [t for b in data["benchmarks"] for t in b["targets"]]
        first_targets = first_targets or targets
        if targets != first_targets:
            raise SystemExit(f"the hook ran other node ids this time: {targets} != {first_targets}")
        for b in data["benchmarks"]:
            if rep == 0:
                with open(os.path.join(repo, b["path"])) as f:
                    fixed[b["path"]] = f.read()
            executions.setdefault(b["path"], []).append(b["iterations"])
            device = device or b.get("device")
        if plain_s < 0:
            plain_s, p2 = sh([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", *targets], repo)
        if p2.returncode != 0:
            raise SystemExit(p2.stdout[-3000:])
        rows.setdefault("plain pytest of the same node ids", []).append(plain_s)
        ratios.append(hook_s / plain_s)
        if ns.ratio_only:
            shutil.rmtree(tmp, ignore_errors=True)
            continue
        # the same node ids with what bench-op adds to a session (its plugin, JUnit XML, no bytecode
        # written): tells the cost of bench-op's own options from the rest of the hook's
        plugin = os.path.join(ROOT, "benchop_hook", "pytest_plugin")
        t0 = time.perf_counter()
        p3 = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                *targets,
                "-v",
                "-p",
                "benchop_collect",
                "-p",
                "no:cacheprovider",
                f"--junitxml={os.path.join(tmp, 'j.xml')}",
                "-o",
                "junit_family=xunit1",
            ],
            cwd=repo,
            capture_output=True,
            text=True,
            env=dict(
                ENV,
                PYTHONPATH=plugin,
                PYTHONDONTWRITEBYTECODE="1",
                BENCHOP_RESULT=os.path.join(tmp, "r.json"),
            ),
        )
        if p3.returncode != 0:
            raise SystemExit(p3.stdout[-3000:])
        rows.setdefault("plain pytest, same ids, bench-op's options", []).append(time.perf_counter() - t0)
        whole_s, _ = sh(
            [
                sys.executable,
                "-m",
                "pytest",
                "-v",
                "-p",
                "no:cacheprovider",
                *sorted({t.split("::")[0] for t in targets}),
            ],
            repo,
        )
        rows.setdefault("plain pytest of the whole files", []).append(whole_s)
        shutil.rmtree(tmp, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in rows.items()}
    plain = med["plain pytest of the same node ids"]
    print(tables[0] if tables else "")
    print(f"\ndevice: {device}; median of {ns.reps} repetitions\n")
    print(f"{'measurement':<46} {'seconds':>8}  {'over plain pytest':>18}")
    for k, v in med.items():
        print(f"{k:<46} {v:>8.2f}  {v / plain:>17.2f}x")
    print(
        "\nthe whole hook over plain pytest within each repetition: "
        f"{', '.join(f'{r:.2f}' for r in ratios)}; "
        f"median {statistics.median(ratios):.2f}x"
    )
    for k, v in rows.items():
        print(f"  {k}: {', '.join(f'{x:.2f}' for x in v)} s")
    print("\nbenchmark executions per fixed file (target: one when the static pass fixed it):")
    for path, n in executions.items():
        print(f"  {path}: {n}")
    if ns.json:
        json.dump(
            {
                "device": device,
                "median_seconds": med,
                "executions": executions,
                "reps": ns.reps,
                "samples": rows,
                "ratios": ratios,
            },
            open(ns.json, "w"),
            indent=2,
        )


if __name__ == "__main__":
    main()
