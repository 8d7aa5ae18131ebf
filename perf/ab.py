"""Two or more versions of bench-op, back to back, on the state the post-commit hook sees: for each TileOPs
commit given, the commit with its benchmark edits put back and committed on its parent
(realworld/hookstate.py), then `bench-op fix --diff --from-ref HEAD~1 --to-ref HEAD` with each version in
turn, RUNS times, interleaved so that the machine's drift falls on every version alike. Prints the median
wall and CPU time per version.

    python perf/ab.py CLONE SHA[,SHA...] CODE[,CODE...] [--runs 7]

CLONE is a TileOPs clone (only read: each commit gets a scratch clone in a temporary folder). Each CODE is a
folder holding a `benchop_hook` package (a checkout of this repository at the version to measure).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "realworld"))

from hookstate import replay_commit  # noqa: E402  (realworld/ is put on the path above)

CONFIG = os.path.join(HERE, "..", "realworld", "tileops.toml")


def _state(clone: str, sha: str, scratch: str) -> str:
    root = os.path.join(scratch, sha[:10])
    subprocess.run(["git", "clone", "-q", clone, root], check=True)
    subprocess.run(["git", "checkout", "-q", "--detach", sha], cwd=root, check=True)
    with open(os.path.join(root, "pyproject.toml"), "a", encoding="utf-8") as f, open(CONFIG) as c:
        f.write("\n" + c.read())
    replay_commit(root, sha, lambda p: p.startswith(("benchmarks/", "top/benchmarks/")) and p.endswith(".py"))
    return root


def _once(root: str, code: str) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "benchop_hook", "fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": code, "PYTHONHASHSEED": "0"},
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("clone")
    ap.add_argument("shas")
    ap.add_argument("codes")
    ap.add_argument("--runs", type=int, default=7)
    ns = ap.parse_args()
    codes = [os.path.abspath(c) for c in ns.codes.split(",")]
    with tempfile.TemporaryDirectory() as scratch:
        for sha in ns.shas.split(","):
            root = _state(ns.clone, sha, scratch)
            times: dict[str, list[tuple[float, float]]] = {c: [] for c in codes}
            for _ in range(ns.runs):
                for c in codes:
                    times[c].append(_once(root, c))
            cells = [
                f"{os.path.basename(c)}: wall {statistics.median(w for w, _ in v) * 1000:.0f} ms, "
                f"cpu {statistics.median(u for _, u in v) * 1000:.0f} ms"
                for c, v in times.items()
            ]
            print(f"{sha[:10]}  " + "  |  ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
