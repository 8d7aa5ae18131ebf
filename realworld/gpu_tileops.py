"""Replay real TileOPs op commits through `bench-op run` on a GPU machine, and report what each file did.

For each commit C: a clone at C~1 (with the [tool.bench-op] configuration committed first), then C's changes
except its benchmark edits, committed as the user would have committed them. `bench-op run --from-ref HEAD~1
--to-ref HEAD` then rewrites, runs and repairs the benchmark files, and makes the follow-up commit. The
benchmark files it committed are compared with the engineers' own edits in C.

    python realworld/gpu_tileops.py --bundle tileops.bundle --commits 60aa2ab6,eac87492 [--baseline C]
    --out DIR

With --agent-from-engineers, a scripted coding agent (realworld/engineers_agent.py) gets what bench-op blocks
on and answers with the engineers' own benchmark edit of C; bench-op checks it like its own, runs it, and
commits it with the trailer Bench-Op-Agent. --agent-wrong C2,... replays those commits once more with an agent
whose edit drops a case, which bench-op must refuse.

The interpreter that runs the benchmarks is this one (`sys.executable`); TileOPs' kernels need tilelang and
its companions importable (see ../shared/TILEOPS.md). Nothing here is imported by bench-op or its tests.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The TileOPs configuration, appended to each state's pyproject.toml: one copy, in realworld/tileops.toml.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tileops.toml"), encoding="utf-8") as _f:
    CONFIG = "\n" + _f.read()
ENV = {
    "GIT_AUTHOR_NAME": "Kernel Dev",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "Kernel Dev",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
    "PYTHONUNBUFFERED": "1",
}


def git(cwd: Path, *args: str, stdin: str | None = None) -> str:
    r = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, input=stdin, check=True)
    return r.stdout


def replay(bundle: Path, commit: str, work: Path) -> Path:
    """A clone whose HEAD is `commit` without its benchmark edits, HEAD~1 its parent (plus the config)."""
    tree = work / commit
    subprocess.run(["rm", "-rf", str(tree)], check=True)
    git(work, "clone", "-q", str(bundle), str(tree))
    git(tree, "checkout", "-q", "-b", "replay", f"{commit}~1")
    with (tree / "pyproject.toml").open("a") as f:
        f.write(CONFIG)
    git(tree, "commit", "-q", "-am", "bench-op configuration")
    patch = git(
        tree,
        "diff",
        "--binary",
        f"{commit}~1",
        commit,
        "--",
        ".",
        ":(exclude)benchmarks",
        ":(exclude)top/benchmarks",
        ":(exclude)pyproject.toml",
    )
    git(tree, "apply", "--index", stdin=patch)
    msg = git(tree, "log", "-1", "--format=%s", commit).strip()
    git(tree, "commit", "-q", "-m", f"{msg} (replayed without its benchmark edits)")
    return tree


def through_the_hook(bundle: Path, commit: str, work: Path, out: Path) -> list[str]:
    """`commit` as the engineers committed it (their benchmark edits included), made with `git commit` in a
    clone at its parent where `bench-op install` put the post-commit hook: the affected benchmarks run
    after the commit, their numbers are recorded on it, and no follow-up commit is made when nothing
    needed a fix."""
    tree = work / f"{commit}-hook"
    subprocess.run(["rm", "-rf", str(tree)], check=True)
    git(work, "clone", "-q", str(bundle), str(tree))
    git(tree, "checkout", "-q", "-b", "hooked", f"{commit}~1")
    with (tree / "pyproject.toml").open("a") as f:
        f.write(CONFIG)
    git(tree, "commit", "-q", "-am", "bench-op configuration")
    env = dict(os.environ, **ENV)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    subprocess.run([sys.executable, "-m", "benchop_hook", "install"], cwd=tree, env=env, check=True)
    patch = git(tree, "diff", "--binary", f"{commit}~1", commit, "--", ".", ":(exclude)pyproject.toml")
    git(tree, "apply", "--index", stdin=patch)
    msg = git(tree, "log", "-1", "--format=%s", commit).strip()
    t0 = time.monotonic()
    r = subprocess.run(["git", "commit", "-q", "-m", msg], cwd=tree, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - t0
    (out / f"{commit}-hook.log").write_text(
        f"$ git commit (exit {r.returncode}, {seconds:.1f} s)\n{r.stdout}\n{r.stderr}"
    )
    head = git(tree, "log", "-1", "--format=%H %s").strip()
    note = subprocess.run(
        ["git", "notes", "--ref", "bench-op", "show", "HEAD"], cwd=tree, capture_output=True, text=True
    ).stdout
    numbers = note.count('"value"')
    return [
        f"{commit} through the post-commit hook, as committed: git commit exit {r.returncode}, "
        f"{seconds:.0f} s",
        f"  HEAD is {head[:60]}",
        f"  numbers recorded on HEAD in git notes: {numbers}",
    ]


AGENT = [sys.executable, str(ROOT / "realworld" / "engineers_agent.py")]
CAREFUL = [sys.executable, str(ROOT / "realworld" / "careful_agent.py")]


def bench_op(
    tree: Path, out: Path, name: str, *args: str, timeout: int, env_extra: dict[str, str] | None = None
) -> tuple[int, float, dict[str, object]]:
    env = dict(os.environ, **ENV, **(env_extra or {}))
    # bench-op itself must be importable (its pytest plugin loads in the benchmark interpreter); the tree is
    # not put on the path: `python -m pytest` starts in it, and a run at the parent starts in its worktree.
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    report = out / f"{name}.json"
    t0 = time.monotonic()
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchop_hook",
            "run",
            *args,
            "--python",
            sys.executable,
            "--timeout",
            str(timeout),
            "--json",
            str(report),
        ],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.monotonic() - t0
    (out / f"{name}.log").write_text(
        f"$ bench-op run {' '.join(args)}  (exit {r.returncode}, {seconds:.1f} s)\n{r.stdout}\n{r.stderr}"
    )
    data = json.loads(report.read_text()) if report.exists() else {}
    return r.returncode, seconds, data


def _agent_args(commit: str, *, wrong: bool, careful: bool = False) -> tuple[list[str], dict[str, str]]:
    """bench-op's --agent for the scripted agent, and the environment that tells it the commit."""
    command = " ".join(CAREFUL if careful else [*AGENT, *(["--wrong"] if wrong else [])])
    return ["--agent", command], {"BENCH_OP_ENGINEERS": commit}


def benchmark_lines(data: dict[str, object]) -> list[str]:
    """One line per benchmark file of a JSON report, with what a coding agent did in it."""
    out = []
    for b in data.get("benchmarks", []):  # type: ignore[attr-defined]
        why = f": {b.get('reason')}" if b.get("reason") else ""
        agent = b.get("agent")
        by = (
            f", agent {agent['name']} {'kept' if b.get('by') == 'agent' else 'not kept'} "
            f"(its own {agent['seconds']:.1f} s, the step's overhead {agent['overhead_seconds']:.2f} s)"
            if agent
            else ""
        )
        out.append(
            f"  {b['path']}: {b['status']}, {len(b.get('numbers', []))} numbers, "
            f"{b.get('iterations')} run(s){by}{why}"
        )
    return out


def agent_trailer(tree: Path) -> str:
    return git(tree, "log", "-1", "--format=%(trailers:key=Bench-Op-Agent,valueonly)").strip()


def wrong_agent(args: argparse.Namespace, commit: str) -> list[str]:
    """The commit replayed once more, with an agent whose edit drops a case: it must be refused."""
    tree = replay(args.bundle.resolve(), commit, args.work)
    flags, env = _agent_args(commit, wrong=True)
    rc, seconds, data = bench_op(
        tree,
        args.out,
        f"{commit}-agent-wrong",
        "--from-ref",
        "HEAD~1",
        "--to-ref",
        "HEAD",
        *flags,
        timeout=args.timeout,
        env_extra=env,
    )
    # Refused: the agent's edit was not kept, and bench-op's checks say why (a case, a test, a row).
    refused = any(
        b.get("agent") and b.get("by") != "agent" and "checks refuse" in str(b.get("reason"))
        for b in data.get("benchmarks", [])  # type: ignore[attr-defined]
    )
    return [
        f"{commit} with an agent whose edit drops a case",
        f"  bench-op run: exit {rc}, {seconds:.0f} s, status {data.get('status')}, "
        f"commit {str(data.get('commit') or '-')[:12]}, the edit {'refused' if refused else 'NOT refused'}",
        *benchmark_lines(data),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bundle", type=Path, required=True)
    ap.add_argument("--commits", required=True, help="comma-separated first-parent op commits")
    ap.add_argument("--baseline", default="", help="commits to run again with --baseline")
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "gpu-out")))
    ap.add_argument("--timeout", type=int, default=300, help="per benchmark file")
    ap.add_argument("--work", type=Path, default=Path("/tmp/tileops-replay"))
    ap.add_argument("--deadline", type=float, default=540, help="start no commit after this many seconds")
    ap.add_argument("--repeats", type=int, default=2, help="runs per side with --baseline")
    ap.add_argument(
        "--agent-from-engineers",
        action="store_true",
        help="a scripted agent answers what bench-op blocks on with the engineers' own edit of the commit",
    )
    ap.add_argument(
        "--agent-careful",
        action="store_true",
        help="a scripted agent answers with an interface-only edit written by hand (careful_agent.py)",
    )
    ap.add_argument(
        "--agent-wrong", default="", help="commits to replay again with an agent whose edit drops a case"
    )
    ap.add_argument(
        "--as-committed",
        action="store_true",
        help="commit each commit whole (its benchmark edits too) through the installed post-commit hook",
    )
    ap.add_argument("--op", default="", help="only the benchmark calls of this Op class (bench-op run --op)")
    ap.add_argument(
        "--pytest-args",
        default="",
        help="space-separated pytest arguments for every run (e.g. '-m smoke'): [tool.bench-op] pytest-args",
    )
    ap.add_argument(
        "--files",
        default="",
        help="comma-separated benchmark files: run only these (a shard of the "
        "commit's files) and compare only these with the engineers' edits",
    )
    args = ap.parse_args(argv)
    if args.pytest_args:
        global CONFIG
        CONFIG += "pytest-args = [" + ", ".join(f'"{x}"' for x in args.pytest_args.split()) + "]\n"
    args.out.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    t_start = time.monotonic()
    for commit in args.commits.split(","):
        if time.monotonic() - t_start > args.deadline:
            lines.append(f"{commit}: not started (past --deadline {args.deadline:.0f} s)")
            continue
        if args.as_committed:
            lines += through_the_hook(args.bundle.resolve(), commit, args.work, args.out)
            continue
        tree = replay(args.bundle.resolve(), commit, args.work)
        shard = [f for f in args.files.split(",") if f]
        scripted = args.agent_from_engineers or args.agent_careful
        agent = _agent_args(commit, wrong=False, careful=args.agent_careful) if scripted else ([], {})
        rc, seconds, data = bench_op(
            tree,
            args.out,
            commit,
            "--from-ref",
            "HEAD~1",
            "--to-ref",
            "HEAD",
            *agent[0],
            *(["--op", args.op] if args.op else []),
            *shard,
            timeout=args.timeout,
            env_extra=agent[1],
        )
        subject = git(tree, "log", "-1", "--format=%s", commit).strip()[:80]
        lines.append(f"{commit} {subject}")
        lines.append(
            f"  bench-op run: exit {rc}, {seconds:.0f} s, status {data.get('status')}, "
            f"commit {str(data.get('commit') or '-')[:12]}"
        )
        lines += benchmark_lines(data)
        if scripted:
            lines.append(f"  follow-up trailer Bench-Op-Agent: {agent_trailer(tree) or '-'}")
        # The engineers' own benchmark edits against what bench-op committed.
        diff = git(tree, "diff", commit, "HEAD", "--", *(shard or ["benchmarks", "top/benchmarks"]))
        (args.out / f"{commit}.vs-engineers.diff").write_text(diff)
        lines.append(
            "  vs the engineers' benchmark edits: "
            f"{'identical' if not diff else f'{diff.count(chr(10))} diff lines'}"
        )
        if commit in args.baseline.split(","):
            tree = replay(args.bundle.resolve(), commit, args.work)
            rc, seconds2, data = bench_op(
                tree,
                args.out,
                f"{commit}-baseline",
                "--from-ref",
                "HEAD~1",
                "--to-ref",
                "HEAD",
                "--baseline",
                "--repeats",
                str(args.repeats),
                timeout=args.timeout,
            )
            lines.append(
                f"  with --baseline: exit {rc}, {seconds2:.0f} s (plain run {seconds:.0f} s), "
                f"regressions {len(data.get('regressions', []))}"
            )  # type: ignore[arg-type]
    for commit in [c for c in args.agent_wrong.split(",") if c]:
        lines += wrong_agent(args, commit)
    (args.out / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
