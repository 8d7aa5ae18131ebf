"""Save bench-op's static outputs over every TileOPs op commit, and compare two such saves byte for byte.

    python realworld/golden.py save CLONE OUT [--mode committed|replayed|both] [--jobs 2] [--limit N]
    python realworld/golden.py diff OLD NEW [--ignore-rules]

For each first-parent commit C that touched an op file (the scan `perf/real.py` keeps), in a scratch clone
with the TileOPs configuration appended:
  committed  C checked out as the engineers committed it (their benchmark fixes included), judged as
             `--from-ref C~1 --to-ref C`;
  replayed   the state the post-commit hook sees (the Op changed, the benchmarks not yet fixed): C with its
             benchmark edits put back to the parent's version, COMMITTED on C~1 (realworld/hookstate.py)
             and checked out, judged as `--from-ref C~1 --to-ref HEAD` (check and fix read a range's
             benchmarks at its last commit, so the uncommitted files on C would not be what they judge).
In each state it saves `bench-op fix --diff` over that range (stdout, stderr, exit code) and
`bench-op check --json` over it (the JSON). A refactoring must leave every file the same
(`PYTHONHASHSEED=0` is set for every run); `diff` lists the commits whose outputs differ.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "perf"))
sys.path.insert(0, HERE)
from hookstate import replay_commit  # noqa: E402  (realworld/hookstate.py: the hook's state as a commit)

with open(os.path.join(HERE, "tileops.toml"), encoding="utf-8") as _f:
    CONFIG = "\n" + _f.read()
BENCH_PREFIXES = ("benchmarks/", "top/benchmarks/")
_SCRIPT = os.path.join(os.path.dirname(sys.executable), "bench-op")
BENCH_OP = [_SCRIPT] if os.path.exists(_SCRIPT) else [sys.executable, "-m", "benchop_hook"]
CODE: str | None = None  # --code DIR: run the benchop_hook package in DIR (an older version) instead


def git(cwd: str, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def op_commits(clone: str) -> list[str]:
    from real import load_scan  # perf/real.py's scan: every first-parent commit that touched an op file

    scan = os.path.join(tempfile.gettempdir(), "bench-op-golden-scan.json")
    return [str(c["commit"]) for c in load_scan(clone, scan, False)]


def prepare(work: str, sha: str, replayed: bool) -> str:
    """The state checked out in `work`, the configuration appended; the --to-ref that names it."""
    git(work, "checkout", "-q", "-f", "--detach", sha)
    git(work, "clean", "-q", "-fdx")
    to_ref = sha
    if replayed:
        replay_commit(work, sha, lambda p: p.startswith(BENCH_PREFIXES))
        to_ref = "HEAD"
    with open(os.path.join(work, "pyproject.toml"), "a", encoding="utf-8") as f:
        f.write(CONFIG)
    return to_ref


def outputs(work: str, sha: str, to_ref: str) -> dict[str, object]:
    env = dict(os.environ, PYTHONHASHSEED="0")
    if CODE:
        env["PYTHONPATH"] = CODE
    rng = ["--from-ref", f"{sha}~1", "--to-ref", to_ref]
    fix = subprocess.run(
        [*BENCH_OP, "fix", "--diff", *rng], cwd=work, capture_output=True, text=True, env=env, check=False
    )
    report = os.path.join(tempfile.mkdtemp(prefix="golden-"), "check.json")
    chk = subprocess.run(
        [*BENCH_OP, "check", *rng, "--json", report],
        cwd=work,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    data = None
    if os.path.exists(report):
        with open(report, encoding="utf-8") as f:
            data = json.load(f)
        shutil.rmtree(os.path.dirname(report), ignore_errors=True)
    return {
        "fix_rc": fix.returncode,
        "fix_stdout": fix.stdout,
        "fix_stderr": fix.stderr,
        "check_rc": chk.returncode,
        "check_json": data,
    }


def save(clone: str, out: str, modes: list[str], jobs: int, limit: int | None) -> None:
    commits = op_commits(clone)[:limit]
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="golden-clones-")
    works = []
    for k in range(jobs):
        w = os.path.join(tmp, f"w{k}")
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", clone, w], check=True)
        works.append(w)

    def one(k: int) -> None:
        work = works[k]
        for i in range(k, len(commits), jobs):
            sha = commits[i]
            for mode in modes:
                path = os.path.join(out, f"{sha[:10]}.{mode}.json")
                if os.path.exists(path):
                    continue
                to_ref = prepare(work, sha, mode == "replayed")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(outputs(work, sha, to_ref), f, indent=1, sort_keys=True)

    with ThreadPoolExecutor(jobs) as ex:
        list(ex.map(one, range(jobs)))
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"saved {len(commits)} commits x {len(modes)} states in {out}")


_RULE_IDS = re.compile(r"  \[BO\d{3}( BO\d{3})*\]")


def without_rules(d: dict) -> dict:
    """An output with the rule ids a finding names taken out (`[BO209]` in the text, `rule` and `trace` in the
    JSON): what must stay the same when decisions move into the rule registry."""
    d = dict(d)
    for k in ("fix_stdout", "fix_stderr"):
        if isinstance(d.get(k), str):
            d[k] = _RULE_IDS.sub("", d[k])
    cj = d.get("check_json")
    if isinstance(cj, dict) and isinstance(cj.get("findings"), list):
        cj = dict(cj)
        cj["findings"] = [{k: v for k, v in f.items() if k not in ("rule", "trace")} for f in cj["findings"]]
        d["check_json"] = cj
    return d


def diff(old: str, new: str, *, ignore_rules: bool = False) -> int:
    names = sorted(set(os.listdir(old)) | set(os.listdir(new)))
    bad = []
    for n in names:
        a, b = os.path.join(old, n), os.path.join(new, n)
        if not (os.path.exists(a) and os.path.exists(b)):
            bad.append(f"{n}: only in {'new' if os.path.exists(b) else 'old'}")
            continue
        with open(a, encoding="utf-8") as fa, open(b, encoding="utf-8") as fb:
            da, db = json.load(fa), json.load(fb)
        if ignore_rules:
            da, db = without_rules(da), without_rules(db)
        keys = [k for k in sorted(set(da) | set(db)) if da.get(k) != db.get(k)]
        if keys:
            bad.append(f"{n}: {', '.join(keys)}")
    for line in bad:
        print(line)
    print(f"{len(names)} files compared, {len(bad)} differ")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("save")
    s.add_argument("clone")
    s.add_argument("out")
    s.add_argument("--mode", choices=["committed", "replayed", "both"], default="both")
    s.add_argument("--jobs", type=int, default=2)
    s.add_argument("--limit", type=int)
    s.add_argument(
        "--code", metavar="DIR", help="run the benchop_hook package found in DIR (e.g. a saved copy)"
    )
    d = sub.add_parser("diff")
    d.add_argument("old")
    d.add_argument("new")
    d.add_argument(
        "--ignore-rules",
        action="store_true",
        help="compare without the rule ids findings name ([BO209], rule, trace)",
    )
    a = ap.parse_args()
    if a.cmd == "save":
        global CODE, BENCH_OP
        if a.code:
            CODE, BENCH_OP = os.path.abspath(a.code), [sys.executable, "-m", "benchop_hook"]
        save(a.clone, a.out, ["committed", "replayed"] if a.mode == "both" else [a.mode], a.jobs, a.limit)
        return 0
    return diff(a.old, a.new, ignore_rules=a.ignore_rules)


if __name__ == "__main__":
    sys.exit(main())
