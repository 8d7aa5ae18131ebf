"""Everything bench-op claims about a GPU, in one call on the device machine.

A. The fixture benchmarks through `bench-op run` after five Op changes (every benchmark file broken):
   the static rewrite, the runs on CUDA (device times from CUDA events) and the numbers table, and the
   follow-up commit.
B. The plain-git hook end to end: `bench-op install`, then a real `git commit` of an Op change with
   unstaged edits and an untracked file around; the follow-up commit and the user's work afterwards.
C. perf/run_overhead.py: the hook's time over a plain pytest of the same node ids.
D. `--gpus all` on this machine (one GPU: nothing changes).
Writes logs under $OUT (or ./gpu-out) and prints a short summary last.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = Path(os.environ.get("OUT") or ROOT / "gpu-out")
OUT.mkdir(parents=True, exist_ok=True)
os.environ.update(
    {
        "GIT_AUTHOR_NAME": "Kernel Dev",
        "GIT_AUTHOR_EMAIL": "dev@example.com",
        "GIT_COMMITTER_NAME": "Kernel Dev",
        "GIT_COMMITTER_EMAIL": "dev@example.com",
        "PYTHONUNBUFFERED": "1",
    }
)

from tests.helpers.changes import CHANGES, reduction_change  # noqa: E402 - importable only after the sys.path line above
from tests.helpers.repo import Repo, make_repo  # noqa: E402 - importable only after the sys.path line above

WORK = Path("/tmp/bench-op-gpu")
subprocess.run(["rm", "-rf", str(WORK)])
WORK.mkdir()
summary: list[str] = []


def bench_op(repo: Repo, *args: str, log: str) -> subprocess.CompletedProcess[str]:
    t0 = time.monotonic()
    r = subprocess.run(
        [sys.executable, "-m", "benchop_hook", *args], cwd=repo.path, capture_output=True, text=True
    )
    (OUT / log).write_text(
        f"$ bench-op {' '.join(args)}  (exit {r.returncode}, {time.monotonic() - t0:.1f} "
        f"s)\n{r.stdout}\n{r.stderr}"
    )
    return r


# A
a = make_repo(WORK / "a")
for change in CHANGES:
    change(a)
a.commit("ops: five constructor changes")
r = bench_op(
    a, "run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--json", str(OUT / "a.json"), log="a_run.log"
)
data = json.loads((OUT / "a.json").read_text())
summary.append(
    f"A. bench-op run on five Op changes: exit {r.returncode}, status {data['status']}, commit "
    f"{data.get('commit', '-')[:12]}"
)
for b in data["benchmarks"]:
    summary.append(
        f"   {b['path']}: {b['status']}, {b['iterations']} run(s), {len(b['numbers'])} numbers on "
        f"{b.get('device')}"
    )
summary.append("   " + a.git("log", "--oneline", "-3").replace("\n", "\n   "))

# B
b_repo = make_repo(WORK / "b")
install = subprocess.run(
    [sys.executable, "-m", "benchop_hook", "install"], cwd=b_repo.path, capture_output=True, text=True
).stdout
reduction_change(b_repo)
b_repo.git("add", "src", "tests")
b_repo.write(
    "benchmarks/ops/bench_norm.py", b_repo.read("benchmarks/ops/bench_norm.py") + "# my unstaged note\n"
)
b_repo.write("scratch.txt", "untracked\n")
t0 = time.monotonic()
r = subprocess.run(
    ["git", "commit", "-m", "reduce: rows come from the input"],
    cwd=b_repo.path,
    capture_output=True,
    text=True,
)
(OUT / "b_commit.log").write_text(
    f"$ bench-op install\n{install}\n$ git commit  (exit {r.returncode}, {time.monotonic() - t0:.1f} "
    f"s)\n{r.stdout}\n{r.stderr}\n\n"
    f"$ git log\n{b_repo.git('log', '--format=%h %s')}\n$ git status "
    f"--short\n{b_repo.git('status', '--short')}\n"
    f"$ git show HEAD\n{b_repo.git('show', 'HEAD')}"
)
summary.append(
    f"B. git commit with the installed hook: exit {r.returncode}, {time.monotonic() - t0:.1f} s; log: "
    + " | ".join(b_repo.log()[:2])
    + f"; status: {b_repo.git('status', '--short').split()}"
)

# D
d = make_repo(WORK / "d")
for change in CHANGES[:4]:
    change(d)
d.git("add", "-A")
r = bench_op(d, "run", "--gpus", "all", "--json", str(WORK / "d.json"), log="d_gpus_all.log")
dd = json.loads((WORK / "d.json").read_text())
try:
    n_gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.count("GPU ")
except OSError:
    n_gpus = 0
summary.append(
    f"D. --gpus all on {n_gpus} GPU(s): exit {r.returncode}; "
    + "; ".join(f"{x['path'].split('/')[-1]} {x['status']} gpus={x['gpus']}" for x in dd["benchmarks"])
)

# C
r = subprocess.run(
    [
        sys.executable,
        str(ROOT / "perf" / "run_overhead.py"),
        "--reps",
        "3",
        "--json",
        str(OUT / "overhead.json"),
    ],
    capture_output=True,
    text=True,
    cwd=ROOT,
)
(OUT / "c_overhead.log").write_text(r.stdout + r.stderr)
summary.append("C. " + "\n   ".join(r.stdout.strip().splitlines()[-9:]))

(OUT / "summary.txt").write_text("\n".join(summary) + "\n")
print("\n".join(summary))
