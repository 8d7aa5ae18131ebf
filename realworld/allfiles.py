"""`bench-op check --all-files` over a real repository's history: every finding, per state.

    python realworld/allfiles.py /path/to/TileOPs-clone [--states 20] [--verdicts
    realworld/allfiles_verdicts.json]

Checks HEAD and about `--states` first-parent commits sampled evenly over the history (states without an
op directory are skipped) in a private clone of the given one (which is never modified), with the
[tool.bench-op] configuration below appended to each state's pyproject.toml. bench-op runs as a
subprocess with --json. Prints each state's exit code, time, what was checked and every finding, then
a summary. A verdicts file (JSON: {"<sha12> <path>:<line>": "what reading the code showed"}) puts the
result of checking each finding by hand next to it.

Not part of the test suite: it needs the real repository (CI has no network). Standard library only.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

# The TileOPs configuration, appended to each state's pyproject.toml: one copy, in realworld/tileops.toml.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tileops.toml"), encoding="utf-8") as _f:
    CONFIG = "\n" + _f.read()
OP_DIRS = ("src/tileops/ops", "tileops/ops", "top/ops")


def git(cwd: str, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def sample(commits: list[str], n: int) -> list[str]:
    """HEAD first, then about n commits spread evenly from the newest to the oldest."""
    if len(commits) <= n + 1:
        return commits
    step = (len(commits) - 1) / n
    picked = [commits[0]] + [commits[min(len(commits) - 1, round(i * step))] for i in range(1, n + 1)]
    return list(dict.fromkeys(picked))


def has_op_dir(work: str) -> bool:
    return any(os.path.isdir(os.path.join(work, d)) for d in OP_DIRS)


def inject_config(work: str) -> None:
    path = os.path.join(work, "pyproject.toml")
    text = ""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
    if "[tool.bench-op]" in text:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.write(CONFIG)


def check(work: str, python: str) -> tuple[int, float, dict[str, object] | None, str]:
    out = os.path.join(tempfile.mkdtemp(prefix="allfiles-json-"), "r.json")
    shutil.rmtree(os.path.join(work, ".git", "bench-op"), ignore_errors=True)  # time it without the cache
    t = time.monotonic()
    proc = subprocess.run(
        [python, "-m", "benchop_hook", "-C", work, "check", "--all-files", "--json", out],
        capture_output=True,
        text=True,
    )
    seconds = time.monotonic() - t
    data = None
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            data = json.load(f)
    return proc.returncode, seconds, data, proc.stdout + proc.stderr


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("clone")
    ap.add_argument("--states", type=int, default=20)
    ap.add_argument("--verdicts", default=None)
    ap.add_argument("--python", default=sys.executable, help="the interpreter that has bench-op installed")
    args = ap.parse_args(argv)
    verdicts: dict[str, str] = {}
    if args.verdicts and os.path.exists(args.verdicts):
        with open(args.verdicts, encoding="utf-8") as f:
            verdicts = json.load(f)

    src = os.path.abspath(args.clone)
    commits = git(src, "rev-list", "--first-parent", "HEAD").split()
    states = sample(commits, args.states)
    tmp = tempfile.mkdtemp(prefix="allfiles-")
    work = os.path.join(tmp, "repo")
    subprocess.run(["git", "clone", "-q", "--no-checkout", src, work], check=True)

    exit_codes: collections.Counter[int] = collections.Counter()
    kinds: collections.Counter[str] = collections.Counter()
    checked = skipped = unknown_total = unresolved_total = 0
    total_time = 0.0
    unchecked: list[str] = []
    print(
        f"bench-op check --all-files over {src}: {len(commits)} first-parent commits, {len(states)} sampled"
    )
    for sha in states:
        git(work, "checkout", "-q", "-f", sha)
        git(work, "clean", "-qfdx")
        head = git(work, "log", "-1", "--format=%h %ad %s", "--date=short").strip()
        if not has_op_dir(work):
            skipped += 1
            print(f"\n== {head}\n   skipped: no op directory")
            continue
        inject_config(work)
        rc, seconds, data, text = check(work, args.python)
        git(work, "checkout", "-q", "--", ".")
        checked += 1
        total_time += seconds
        exit_codes[rc] += 1
        print(f"\n== {head}\n   exit {rc}, {seconds:.1f} s")
        if data is None:
            print("   no JSON report; output:\n" + "\n".join("   | " + ln for ln in text.splitlines()[-15:]))
            continue
        c = data.get("checked") or {}
        unknown = data.get("unknown") or []
        unresolved = data.get("unresolved") or []
        unknown_total += len(unknown)
        unresolved_total += len(unresolved)
        print(
            f"   checked {c.get('calls', '?')} calls of {c.get('classes', '?')} Op classes; "
            f"{len(unknown)} unknown (the run decides); {len(unresolved)} unresolved imports"
        )
        last = [ln for ln in text.splitlines() if ln.startswith("bench-op: ")]
        if last:
            print(f"   {last[-1]}")
        for u in unresolved:
            print(f"   unresolved: {u['path']}: {u['call']}: {u['reason']}")
            verdict = verdicts.get(f"{sha[:12]} {u['path']}: {u['call']}")
            if verdict:
                print(f"      checked by reading: {verdict}")
        for f in data.get("findings", []):
            kinds[str(f["status"])] += 1
            key = f"{sha[:12]} {f['path']}:{f['line']}"
            print(
                f"   finding [{f['status']}] {f['path']}:{f['line']}: {f.get('text') or f['call']}: "
                f"{f['problem']}"
            )
            if f.get("fix"):
                print(f"      fix: {f['fix']}")
            elif f.get("why_not"):
                print(f"      {f['why_not']}")
            verdict = verdicts.get(key)
            if verdict:
                print(f"      checked by reading: {verdict}")
            else:
                unchecked.append(key)
                print("      checked by reading: (not yet)")
    print("\n== summary")
    print(f"states: {checked} checked, {skipped} skipped (no op directory)")
    print("exit codes: " + ", ".join(f"{k}: {v}" for k, v in sorted(exit_codes.items())))
    print("findings by kind: " + (", ".join(f"{k}: {v}" for k, v in sorted(kinds.items())) or "none"))
    print(
        f"calls only a run can judge (not findings): {unknown_total}; unresolved imports: {unresolved_total}"
    )
    print(f"findings not yet checked by reading: {len(unchecked)}")
    print(f"time: {total_time:.1f} s in bench-op ({total_time / max(checked, 1):.1f} s a state)")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
