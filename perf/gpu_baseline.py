"""`bench-op run --baseline` on a kernel that really got slower, and what --baseline costs.

The fixture library (tests/fixtures/minitile) with the ReduceOp constructor change committed, and in
the same commit SumFwdOp's kernel made K times slower for real (it reads the whole input K times:
K reductions on the device instead of one). Three runs, each on a fresh copy:
  A. `bench-op run --from-ref HEAD~1 --to-ref HEAD --no-commit`: the plain run, timed;
  B. the same with --baseline: the parent runs in a temporary worktree, both sides `--repeats` times;
     the follow-up commit is made (its numbers table has the "vs parent" column);
  C. B's repository again, the follow-up commit dropped, --baseline once more: now the parent's numbers
     come from the git note B recorded, without a run at the parent.
Then `bench-op history` of the reduction benchmark. Writes the logs and JSON under $OUT (or ./gpu-out)
and prints the old / new table and the cost of --baseline (extra seconds over A) last.
Runs where it is started: CUDA on the device machine, the CPU here (small shapes).

Usage: python perf/gpu_baseline.py [--slowdown 4] [--repeats 3] [--iters 200]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.update(
    {
        "GIT_AUTHOR_NAME": "Kernel Dev",
        "GIT_AUTHOR_EMAIL": "dev@example.com",
        "GIT_COMMITTER_NAME": "Kernel Dev",
        "GIT_COMMITTER_EMAIL": "dev@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PYTHONUNBUFFERED": "1",
    }
)

from tests.helpers.changes import reduction_change  # noqa: E402
from tests.helpers.repo import Repo, make_repo  # noqa: E402

SUM_KERNEL = "        return x.sum(dim=self.dim)\n"


def slow_sum(k: int) -> str:
    """The new SumFwdOp: the same result, the input read k times (k reductions on the device)."""
    return (
        "        out = x.sum(dim=self.dim)\n"
        f"        for _ in range({k - 1}):  # the new kernel is slower: {k} passes over the input\n"
        "            out = x.sum(dim=self.dim)\n"
        "        return out\n"
    )


def build(dest: Path, k: int) -> Repo:
    repo = make_repo(dest)
    reduction_change(repo)
    repo.replace("src/minitile/ops/reduction.py", SUM_KERNEL, slow_sum(k))
    repo.commit(f"reduce: rows come from the input; sum reads the input {k} times")
    return repo


def bench_op(
    repo: Repo, out: Path, log: str, *args: str
) -> tuple[float, subprocess.CompletedProcess[str], dict]:
    js = out / f"{log}.json"
    t0 = time.monotonic()
    r = subprocess.run(
        [sys.executable, "-m", "benchop_hook", *args, "--json", str(js)],
        cwd=repo.path,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.monotonic() - t0
    (out / f"{log}.log").write_text(
        f"$ bench-op {' '.join(args)}  (exit {r.returncode}, {seconds:.1f} s)\n{r.stdout}\n{r.stderr}"
    )
    return seconds, r, (json.loads(js.read_text()) if js.exists() else {})


def table(data: dict) -> list[str]:
    rows = [("case", "number", "old", "new", "change", "verdict")]
    for b in data.get("benchmarks", []):
        for n in b["numbers"]:
            if "baseline" not in n:
                continue
            old = "-" if n["baseline"] is None else f"{n['baseline']:.4g} {n['unit']}"
            change = "-" if n.get("change") is None else f"{n['change'] * 100:+.1f}%"
            rows.append(
                (n["case"], n["name"], old, f"{n['value']:.4g} {n['unit']}", change, n.get("verdict", ""))
            )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in rows]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--slowdown", type=int, default=4, help="how many times the new sum kernel reads its input"
    )
    ap.add_argument("--repeats", type=int, default=3, help="runs per side for the run at the parent")
    ap.add_argument("--iters", type=int, default=200, help="timed iterations per case (MINITILE_ITERS)")
    args = ap.parse_args()
    out = Path(os.environ.get("OUT") or ROOT / "gpu-out")
    out.mkdir(parents=True, exist_ok=True)
    os.environ["MINITILE_ITERS"] = str(args.iters)
    work = Path(tempfile.mkdtemp(prefix="bench-op-baseline-"))
    summary: list[str] = []
    try:
        a = build(work / "a", args.slowdown)
        t_plain, r, _ = bench_op(
            a, out, "a_plain", "run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-commit"
        )
        summary.append(f"A. plain run: exit {r.returncode}, {t_plain:.1f} s")

        b = build(work / "b", args.slowdown)
        t_live, r, data = bench_op(
            b,
            out,
            "b_baseline",
            "run",
            "--baseline",
            "--repeats",
            str(args.repeats),
            "--from-ref",
            "HEAD~1",
            "--to-ref",
            "HEAD",
        )
        base = data.get("baseline", {})
        summary.append(
            f"B. --baseline, the parent run in a temporary worktree ({args.repeats} runs each side): exit "
            f"{r.returncode}, {t_live:.1f} s = plain + {t_live - t_plain:.1f} s ({t_live / t_plain:.2f}x); "
            f"{data.get('pytest_sessions')} pytest session(s) in the repair loop; device "
            f"{base.get('device')}; "
            f"noise ±{(base.get('noise') or 0) * 100:.1f}%"
        )
        summary.append(
            "   regressions: "
            + (
                ", ".join(
                    f"{x['nodeid'].split('::')[-1]} {x['name']} {x['change'] * 100:+.0f}%"
                    for x in data.get("regressions", [])
                )
                or "none"
            )
        )
        summary.extend("   " + line for line in table(data))
        (out / "b_commit.txt").write_text(
            b.git("show", "-s", "HEAD")
            + "\n$ git notes --ref=bench-op list\n"
            + b.git("notes", "--ref=bench-op", "list")
        )
        summary.append("   the follow-up commit's table:")
        body = b.git("log", "-1", "--format=%B").splitlines()
        start = next((i for i, ln in enumerate(body) if ln.startswith("Numbers for")), len(body))
        summary.extend("   " + ln for ln in body[start : start + 8])

        b.git("reset", "-q", "--hard", "HEAD~1")  # the scratch repository: run the same change again
        t_notes, r, data = bench_op(
            b, out, "c_notes", "run", "--baseline", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-commit"
        )
        summary.append(
            f"C. --baseline from the git note B recorded: exit {r.returncode}, {t_notes:.1f} s = plain + "
            f"{t_notes - t_plain:.1f} s; baseline source {data.get('baseline', {}).get('source')}; "
            f"regressions {len(data.get('regressions', []))}"
        )

        h = subprocess.run(
            [sys.executable, "-m", "benchop_hook", "history", "benchmarks/ops/bench_reduction.py"],
            cwd=b.path,
            capture_output=True,
            text=True,
            check=False,
        )
        (out / "d_history.log").write_text(h.stdout + h.stderr)
        summary.append("D. bench-op history benchmarks/ops/bench_reduction.py (first case):")
        summary.extend("   " + ln for ln in h.stdout.splitlines()[:5])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    (out / "summary.txt").write_text("\n".join(summary) + "\n")
    print("\n".join(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
