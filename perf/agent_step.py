"""What the agent step adds beyond the agent's own time, on the demo (examples/agent-demo.sh's change).

For each repetition: a fresh copy of the fixture library with the GemmOp change committed (bench-op blocks
on its benchmark call) and `git config bench-op.agent` set to the scripted agent of the demo. Then, each in a
copy in that state, alternating which goes first:
  - `bench-op run --from-ref HEAD~1 --to-ref HEAD --no-commit --json ...` with the agent: the whole hook;
  - the same with `--no-agent`: bench-op blocks and stops there.
From the first run's JSON: the agent's own time, the step's overhead around it (the sandbox, the task, the
checks of its edit: `overhead_seconds`) and the run of its edit (the file's `seconds`: its pytest session).

With --think S the scripted agent waits S seconds first, as a real agent works for a while: the benchmark
interpreter bench-op starts when it hands the file over has then imported pytest and torch by the time the
edit runs.

Usage: python perf/agent_step.py [--reps 5] [--think S] [--json PATH]   (runs where it is started)
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
CHANGE = os.path.join(ROOT, "examples", "gemm-from-input-shapes")
AGENT = os.path.join(ROOT, "examples", "agent", "shapes-agent")
ENV = dict(
    os.environ, GIT_AUTHOR_NAME="p", GIT_AUTHOR_EMAIL="p@x", GIT_COMMITTER_NAME="p", GIT_COMMITTER_EMAIL="p@x"
)


def make_repo(dest: str, think: float) -> None:
    shutil.copytree(FIXTURE, dest)
    path = os.path.join(dest, "pyproject.toml")
    with open(path) as f:
        text = f.read().replace("[tool.bench-op]\n", f"[tool.bench-op]\npython = {sys.executable!r}\n")
    with open(path, "w") as f:
        f.write(text)
    with open(os.path.join(dest, ".gitignore"), "w") as f:
        f.write("__pycache__/\n.pytest_cache/\n")
    git = ["git", "-C", dest]
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run([*git, *cmd], check=True, env=ENV)
    shutil.copytree(CHANGE, dest, dirs_exist_ok=True)
    agent = f"sleep {think}; {AGENT}" if think else AGENT  # a real agent thinks for a while first
    for cmd in (["add", "-A"], ["commit", "-q", "-m", "gemm: shapes"], ["config", "bench-op.agent", agent]):
        subprocess.run([*git, *cmd], check=True, env=ENV)


def timed(repo: str, *extra: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    cmd = [
        sys.executable,
        "-m",
        "benchop_hook",
        "run",
        "--from-ref",
        "HEAD~1",
        "--to-ref",
        "HEAD",
        "--no-commit",
    ]
    t0 = time.perf_counter()
    p = subprocess.run([*cmd, *extra], cwd=repo, capture_output=True, text=True, env=ENV)
    return time.perf_counter() - t0, p


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    ap.add_argument(
        "--think", type=float, default=0.0, help="seconds the scripted agent waits first, as a real one works"
    )
    ns = ap.parse_args()
    rows: dict[str, list[float]] = {}
    for rep in range(ns.reps):
        tmp = tempfile.mkdtemp(prefix="bench-op-agent-step-")
        out = os.path.join(tmp, "run.json")
        order = [("with", ("--json", out)), ("without", ("--no-agent",))]
        walls = {}
        for name, extra in order if rep % 2 == 0 else order[::-1]:
            repo = os.path.join(
                tmp, name, "minitile"
            )  # each in the same state: the agent's fix stays in its tree
            make_repo(repo, ns.think)
            walls[name], p = timed(repo, *extra)
            if (p.returncode != 0) == (name == "with"):
                raise SystemExit(f"bench-op run {name} the agent: exit {p.returncode}\n{p.stdout[-3000:]}")
        b = next(x for x in json.load(open(out))["benchmarks"] if x.get("by") == "agent")
        agent, overhead, run = b["agent"]["seconds"], b["agent"]["overhead_seconds"], b["seconds"]
        for key, value in (
            ("bench-op run with the agent (whole process)", walls["with"]),
            ("bench-op run --no-agent (blocks and stops)", walls["without"]),
            ("difference: what the agent path costs in all", walls["with"] - walls["without"]),
            ("  the agent's own time", agent),
            ("  the step around it: sandbox, task, checks", overhead),
            ("  the run of its edit (its pytest session)", run),
            (
                "  the rest (reading back, the report)",
                walls["with"] - walls["without"] - agent - overhead - run,
            ),
        ):
            rows.setdefault(key, []).append(value)
        shutil.rmtree(tmp, ignore_errors=True)
    width = max(len(k) for k in rows)
    think = f", the agent thinking {ns.think:.0f} s first" if ns.think else ""
    print(f"{ns.reps} repetitions on the CPU here{think}; medians (min..max), seconds")
    for key, values in rows.items():
        print(f"{key:<{width}}  {statistics.median(values):7.3f}  ({min(values):.3f}..{max(values):.3f})")
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
