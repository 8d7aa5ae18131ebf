#!/usr/bin/env python3
"""A stand-in for the bench-op program: it saves what `bench-op fix --diff` says before each `fix` it is
asked to run, so that two versions of bench-op can be compared byte for byte on another script's corpus.

    PATH=.venv/bin:$PATH BENCHOP_RECORD=OUT [BENCHOP_RECORD_CODE=DIR] python realworld/others.py \\
        --clones /tmp/others --bench-op realworld/record_diff.py --out OUT.txt
    python realworld/golden.py diff OUT_BEFORE OUT_AFTER

Each `fix ... --from-ref A --to-ref B` it is given first runs `fix --diff --from-ref A --to-ref B` in the same
folder and saves its exit code, stdout and stderr as OUT/<folder name>.<B[:10]>.<n>.json (n counts the calls
for that folder and B), in golden.py's format. others.py names its replayed state by the commit
realworld/hookstate.py makes (deterministic: the same sha in every run), its as-committed state by the commit
itself, so each state of an entry has its own file;
(it runs as a program with the first `python3` on PATH: put the environment bench-op is installed in first)
then it runs the command it was given, and exits with its exit code. BENCHOP_RECORD_CODE runs the
benchop_hook package found in DIR (an older version) instead of the installed one. PYTHONHASHSEED=0 for
every run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def bench_op() -> tuple[list[str], dict[str, str]]:
    env = dict(os.environ, PYTHONHASHSEED="0")
    code = os.environ.get("BENCHOP_RECORD_CODE")
    if code:
        env["PYTHONPATH"] = os.path.abspath(code)
    return [sys.executable, "-m", "benchop_hook"], env


def record(args: list[str], out: str) -> None:
    rng = [a for i, a in enumerate(args) if i and args[i - 1] in ("--from-ref", "--to-ref")]
    if len(rng) != 2:
        return
    cmd, env = bench_op()
    p = subprocess.run(
        [*cmd, "fix", "--diff", "--from-ref", rng[0], "--to-ref", rng[1]],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    os.makedirs(out, exist_ok=True)
    stem = f"{os.path.basename(os.getcwd())}.{rng[1][:10]}"
    n = 0
    while os.path.exists(os.path.join(out, f"{stem}.{n}.json")):
        n += 1
    with open(os.path.join(out, f"{stem}.{n}.json"), "w", encoding="utf-8") as f:
        json.dump({"fix_rc": p.returncode, "fix_stdout": p.stdout, "fix_stderr": p.stderr}, f, indent=1)


def main() -> int:
    args = sys.argv[1:]
    out = os.environ.get("BENCHOP_RECORD")
    if out and args[:1] == ["fix"]:
        record(args, out)
    cmd, env = bench_op()
    return subprocess.run([*cmd, *args], env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
