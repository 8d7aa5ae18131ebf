"""Several benchmark files over every GPU of the machine, and over one, side by side (issue: --gpus).

Builds the fixture library with five Op changes (five broken benchmark files), then alternates
`bench-op run --gpus all` and `bench-op run --gpus 1` (each on a fresh copy, --no-commit), timing the
whole process, and prints which GPU ran which file. MINITILE_ITERS makes each case time more
iterations so that the GPU work, not start-up, dominates.

Usage: python perf/multi_gpu.py [--reps 2] [--iters 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
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
    }
)

from tests.helpers.changes import CHANGES  # noqa: E402 - importable only after the sys.path line above
from tests.helpers.repo import make_repo  # noqa: E402 - importable only after the sys.path line above


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--iters", type=int, default=1000)
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp"))
    ns = ap.parse_args()
    work = Path("/tmp/bench-op-multi")
    subprocess.run(["rm", "-rf", str(work)])
    work.mkdir()
    env = dict(os.environ, MINITILE_ITERS=str(ns.iters))
    times: dict[str, list[float]] = {"all": [], "1": []}
    placement: dict[str, dict[str, list[str]]] = {}
    logs = []
    for rep in range(ns.reps):
        for gpus in ("all", "1"):
            repo = make_repo(work / f"r{rep}-{gpus}")
            for change in CHANGES:
                change(repo)
            repo.git("add", "-A")
            out = work / f"r{rep}-{gpus}.json"
            t0 = time.monotonic()
            r = subprocess.run(
                [sys.executable, "-m", "benchop_hook", "run", "--gpus", gpus, "--json", str(out)],
                cwd=repo.path,
                capture_output=True,
                text=True,
                env=env,
            )
            times[gpus].append(time.monotonic() - t0)
            logs.append(
                f"=== rep {rep} --gpus {gpus} (exit {r.returncode}, {times[gpus][-1]:.1f} "
                f"s)\n{r.stdout}\n{r.stderr}"
            )
            data = json.loads(out.read_text())
            placement[gpus] = {b["path"]: b["gpus"] for b in data["benchmarks"]}
            if r.returncode != 0:
                print(r.stdout[-3000:], r.stderr[-2000:])
    Path(ns.out, "multi_gpu.log").write_text("\n".join(logs))
    try:
        visible = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.strip()
    except OSError:
        visible = f"no nvidia-smi; CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')}"
    print(visible)
    print(
        f"\nfive benchmark files, MINITILE_ITERS={ns.iters}, median of {ns.reps} runs each, whole bench-op "
        "process:"
    )
    print(
        f"  --gpus all : {statistics.median(times['all']):6.1f} s   (runs: "
        f"{', '.join(f'{t:.1f}' for t in times['all'])})"
    )
    print(
        f"  --gpus 1   : {statistics.median(times['1']):6.1f} s   (runs: "
        f"{', '.join(f'{t:.1f}' for t in times['1'])})"
    )
    print("\nwhich GPU ran which file (--gpus all):")
    for path, g in sorted(placement["all"].items()):
        print(f"  {path}: GPU {', '.join(g)}")
    print(
        "with --gpus 1: "
        + ", ".join(f"{p.split('/')[-1]} GPU {','.join(g)}" for p, g in sorted(placement["1"].items()))
    )


if __name__ == "__main__":
    main()
