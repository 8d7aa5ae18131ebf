"""bench-op's speed on a TileOPs-size repository, side by side with what it is compared to.

Generates the repository (perf/genrepo.py), then measures, as whole processes, the
median of several runs:
  1. a commit that touches no op file: `bench-op hook pre-commit FILE` and
     `bench-op hook follow-up` against `python -c pass` + `git diff --cached --name-only`;
  2. a family base-class change reaching 10 benchmark files: the static pass
     (`bench-op fix --diff`: detect, locate, rewrite);
  3. `bench-op check --all-files` over the whole repository, against `griffe check`
     of the same package (griffe is installed into a throwaway venv, not a dependency).
Prints a table with the ratios; `--json PATH` writes the numbers.

Usage: python perf/speed.py [--runs 7] [--json PATH] [--no-griffe]
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
sys.path.insert(0, HERE)
import genrepo  # noqa: E402 - importable only after the sys.path line above

BENCH_OP = [sys.executable, "-m", "benchop_hook"]
BENCH_OP_SCRIPT = os.path.join(os.path.dirname(sys.executable), "bench-op")


def timed(cmd: list[str], cwd: str, runs: int, env: dict[str, str] | None = None, ok=(0, 1)) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, env=env)
        times.append(time.perf_counter() - t0)
        if p.returncode not in ok:
            raise SystemExit(f"{cmd} failed ({p.returncode}):\n{p.stdout.decode()}\n{p.stderr.decode()}")
    return statistics.median(times)


def timed_pair(cmds: list[list[str]], cwd: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for c in cmds:
            subprocess.run(c, cwd=cwd, capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def git(cwd: str, *args: str) -> None:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="p",
        GIT_AUTHOR_EMAIL="p@x",
        GIT_COMMITTER_NAME="p",
        GIT_COMMITTER_EMAIL="p@x",
    )
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def griffe_env(folder: str) -> str | None:
    venv = os.path.join(folder, "griffe-venv")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    p = subprocess.run(
        [os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q", "griffe"], capture_output=True
    )
    if p.returncode != 0:
        print("griffe could not be installed:", p.stderr.decode()[-500:])
        return None
    return os.path.join(venv, "bin", "griffe")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json")
    ap.add_argument("--no-griffe", action="store_true")
    ns = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-op-speed-")
    repo = os.path.join(tmp, "bigtile")
    sizes = genrepo.generate(repo)
    rows: list[tuple[str, float, str, float | None, str]] = []
    script = BENCH_OP_SCRIPT if os.path.exists(BENCH_OP_SCRIPT) else None
    entry = [script] if script else BENCH_OP

    # 1. A commit that touches no op file.
    with open(os.path.join(repo, "README.md"), "w") as f:
        f.write("notes\n")
    with open(os.path.join(repo, "benchmarks", "ops", "bench_3.py"), "a") as f:
        f.write("# touched\n")
    git(repo, "add", "README.md", "benchmarks/ops/bench_3.py")
    base = timed_pair(
        [[sys.executable, "-c", "pass"], ["git", "diff", "--cached", "--name-only"]], repo, ns.runs
    )
    gitonly = timed(["git", "diff", "--cached", "--name-only"], repo, ns.runs)
    check = timed([*entry, "check"], repo, ns.runs)
    rows.append(
        (
            "no-op commit: bench-op check",
            check,
            "git diff --cached --name-only",
            gitonly,
            f"{check / gitonly:.0f}x git's own diff; libcst/GitPython not imported",
        )
    )
    pre = timed([*entry, "hook", "pre-commit", "README.md", "benchmarks/ops/bench_3.py"], repo, ns.runs)
    rows.append(
        (
            "no-op commit, pre-commit stage (bench-op hook pre-commit)",
            pre,
            "python -c pass + git diff --cached --name-only",
            base,
            f"+{(pre - base) * 1e3:.0f} ms (target: within 100 ms)",
        )
    )
    git(repo, "commit", "-q", "-m", "readme")
    follow = timed([*entry, "hook", "follow-up"], repo, ns.runs)
    rows.append(
        (
            "no-op commit, post-commit stage (bench-op hook follow-up)",
            follow,
            "python -c pass + git diff --cached --name-only",
            base,
            f"+{(follow - base) * 1e3:.0f} ms (target: within 100 ms)",
        )
    )
    importtime = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "benchop_hook", "hook", "follow-up"],
        cwd=repo,
        capture_output=True,
        text=True,
    ).stderr
    heavy = sorted(
        {
            m
            for m in ("libcst", "git", "torch")
            if f"| {m}\n" in importtime
            or f"|   {m}\n" in importtime
            or any(line.rstrip().endswith(f"| {m}") for line in importtime.splitlines())
        }
    )

    # 2. A family base-class change reaching 10 benchmark files: the static pass.
    genrepo.change_family_base(repo)
    git(repo, "add", "-A")
    static = timed([*entry, "fix", "--diff"], repo, ns.runs)
    out = subprocess.run([*entry, "check"], cwd=repo, capture_output=True, text=True).stdout
    reached = len({line.split(":")[0] for line in out.splitlines() if line.startswith("benchmarks/")})
    rows.append(
        (
            f"family base change -> {reached} benchmark files: static pass (fix --diff)",
            static,
            "",
            None,
            "target: under 1 s",
        )
    )

    # 3. --all-files over the whole repository, and griffe check of the same package.
    git(repo, "commit", "-q", "-m", "family0: batch comes from the input")
    cache = os.path.join(repo, ".git", "bench-op", "all-files-cache.json")
    griffe = None
    if not ns.no_griffe:
        exe = griffe_env(tmp)
        if exe:
            griffe = timed(
                [exe, "check", "bigtile", "--search", "src", "--against", "HEAD~1"], repo, ns.runs, ok=(0, 1)
            )

    def cold(cmd: list[str]) -> float:
        times = []
        for _ in range(ns.runs):
            if os.path.exists(cache):
                os.unlink(cache)
            times.append(timed(cmd, repo, 1))
        return statistics.median(times)

    def vs_griffe(t: float) -> str:
        return f", {griffe / t:.1f}x griffe's speed" if griffe else ""

    broken = cold([*entry, "check", "--all-files"])
    rows.append(
        (
            "check --all-files, 10 files broken (no cache)",
            broken,
            "griffe check bigtile --against HEAD~1",
            griffe,
            "target: under 1.5 s" + vs_griffe(broken),
        )
    )
    subprocess.run([*entry, "fix", "--all-files"], cwd=repo, capture_output=True)
    git(repo, "commit", "-q", "-am", "benchmarks follow")
    steady_cold = cold([*entry, "check", "--all-files"])
    rows.append(
        (
            "check --all-files, all calls bind (no cache)",
            steady_cold,
            "griffe check bigtile --against HEAD~1",
            griffe,
            "target: under 1.5 s" + vs_griffe(steady_cold),
        )
    )
    subprocess.run([*entry, "check", "--all-files"], cwd=repo, capture_output=True)
    steady_warm = timed([*entry, "check", "--all-files"], repo, ns.runs)
    rows.append(
        (
            "check --all-files, all calls bind (cache from the last run)",
            steady_warm,
            "griffe check bigtile --against HEAD~1",
            griffe,
            "target: under 1.5 s" + vs_griffe(steady_warm),
        )
    )

    print(
        f"\nrepository: {sizes['op_files']} op files, {sizes['classes']} Op classes, {sizes['bench_files']} "
        "benchmark files, "
        f"{sizes['test_files']} test files; median of {ns.runs} runs, whole processes\n"
    )
    print(f"{'measurement':<66} {'bench-op':>9}   {'compared to':<48} {'time':>8}   note")
    for name, t, other, ot, note in rows:
        print(
            f"{name:<66} {t * 1e3:>7.0f} ms   {other:<48} {(f'{ot * 1e3:.0f} ms' if ot else ''):>8}   {note}"
        )
    print(f"\nmodules imported on the no-op path among libcst, GitPython, torch: {heavy or 'none'}")
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump(
                {
                    "sizes": sizes,
                    "runs": ns.runs,
                    "rows": [
                        dict(zip(("name", "seconds", "baseline", "baseline_seconds", "note"), r))
                        for r in rows
                    ],
                    "heavy_imports_on_noop_path": heavy,
                },
                f,
                indent=2,
            )
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
