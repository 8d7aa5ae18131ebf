"""First contact: run bench-op over the recent constructor changes of a library it has never seen.

    python realworld/first_contact.py --clone DIR --config 'op-paths=["pkg/**/*.py"]' \\
        --config 'benchmark-paths=["benchmarks/**/*.py"]' --config 'test-paths=["tests/**/*.py"]' \\
        --max-commits N --out FILE.jsonl [--bench-op CMD] [--timeout S] [--scan N]

The clone is only read. Walking its first-parent history from HEAD (newest first), a commit C is taken when a
class in a file matching op-paths has an `__init__` whose parameters (names, kinds, defaults) differ between
C~1 and C, and that class is called (`Name(` or `mod.Name(`) in a file under benchmark-paths at C~1 or at C.
Up to N such commits are measured, in a scratch clone (`git clone --shared`, sparse: text files only), with
`[tool.bench-op]` appended to pyproject.toml (created when missing): the --config keys, and
`op-bases = ["object"]` unless given, so that every class counts. Two states per commit:

  replayed   C checked out, the commit's own edits of benchmark-path files put back to C~1's version and
             committed on top of C (fixed identity and dates, --no-verify), then
             `bench-op fix --diff --from-ref C~1 --to-ref HEAD --json R`. When the commit edits no
             benchmark-path file, this state is the committed one and is not run twice.
  committed  C as it is: `bench-op fix --diff --from-ref C~1 --to-ref C --json R`.

One JSON line per commit: the commit, the changed constructors (old and new parameters), the engineers' own
diff of the benchmark-path files (the reference), and per state the exit code, stdout, stderr's tail, the
seconds taken and the JSON report's findings. bench-op runs with PYTHONHASHSEED=0, one process at a time,
under a timeout. `--diff` writes nothing; the scratch clone is removed at the end. Standard library only.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

DEFAULT_BENCH_OP = f"{sys.executable} -m benchop_hook"
SPARSE = ["*.py", "*.pyi", "*.toml", "*.cfg", "*.ini", "*.md"]
# A replay commit must not depend on who runs the script or when: same tree, same hash.
IDENTITY = {
    "GIT_AUTHOR_NAME": "first-contact",
    "GIT_AUTHOR_EMAIL": "first-contact@example.invalid",
    "GIT_COMMITTER_NAME": "first-contact",
    "GIT_COMMITTER_EMAIL": "first-contact@example.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+0000",
}
MAX_TEXT = 40_000


@dataclass(frozen=True)
class Change:
    path: str
    cls: str
    old: str
    new: str


@dataclass(frozen=True)
class Outcome:
    rc: int
    seconds: float
    stdout: str
    stderr: str
    findings: list[dict[str, object]]


def git(repo: str, *args: str, check: bool = True, env: dict[str, str] | None = None) -> str:
    p = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=False, env=env, errors="replace"
    )
    if check and p.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A bench-op style glob (`**` any folders, `*` within one) as a regex on a repository path."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + r"\Z")


def matches(path: str, globs: list[str]) -> bool:
    return any(glob_regex(g).match(path) for g in globs)


def pathspecs(globs: list[str]) -> list[str]:
    return [f":(glob){g}" for g in globs]


def init_params(tree: ast.Module) -> dict[str, str]:
    """Top-level class name -> its own `__init__`'s parameters as one comparable line (annotations left out:
    only a change of what a call binds selects a commit)."""
    out: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == "__init__":
                a = ast.arguments(
                    posonlyargs=[ast.arg(x.arg) for x in item.args.posonlyargs],
                    args=[ast.arg(x.arg) for x in item.args.args],
                    vararg=ast.arg(item.args.vararg.arg) if item.args.vararg else None,
                    kwonlyargs=[ast.arg(x.arg) for x in item.args.kwonlyargs],
                    kw_defaults=item.args.kw_defaults,
                    kwarg=ast.arg(item.args.kwarg.arg) if item.args.kwarg else None,
                    defaults=item.args.defaults,
                )
                out[node.name] = ast.unparse(a)
    return out


def parse(repo: str, ref: str, path: str) -> ast.Module | None:
    text = git(repo, "show", f"{ref}:{path}", check=False)
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def constructor_changes(repo: str, sha: str, op_paths: list[str]) -> list[Change]:
    changed = git(repo, "diff", "--name-only", "--no-renames", f"{sha}~1", sha).splitlines()
    out: list[Change] = []
    for path in changed:
        if not path.endswith(".py") or not matches(path, op_paths):
            continue
        old, new = parse(repo, f"{sha}~1", path), parse(repo, sha, path)
        if old is None or new is None:
            continue
        before, after = init_params(old), init_params(new)
        out += [
            Change(path, c, before[c], after[c])
            for c in sorted(before)
            if before[c] != after.get(c, before[c])
        ]
    return out


def called_in(repo: str, refs: list[str], cls: str, bench: list[str]) -> bool:
    pattern = rf"(^|[^A-Za-z0-9_]){cls}[[:space:]]*\("
    for ref in refs:
        p = subprocess.run(
            ["git", "grep", "-q", "-E", pattern, ref, "--", *pathspecs(bench)],
            cwd=repo,
            capture_output=True,
            check=False,
        )
        if p.returncode == 0:
            return True
    return False


def toml_table(config: dict[str, list[str]]) -> str:
    lines = ["", "", "[tool.bench-op]"]
    lines += [f"{k} = [{', '.join(json.dumps(x) for x in v)}]" for k, v in config.items()]
    return "\n".join(lines) + "\n"


def checkout(clone: str, sha: str) -> None:
    git(clone, "checkout", "-q", "-f", "--detach", sha)
    git(clone, "clean", "-q", "-fdx")


def append_config(clone: str, config: dict[str, list[str]]) -> None:
    with open(os.path.join(clone, "pyproject.toml"), "a", encoding="utf-8") as f:
        f.write(toml_table(config))


def engineers_bench_edits(clone: str, sha: str, bench: list[str]) -> list[tuple[str, str]]:
    """(status, path) of the commit's edits of benchmark-path files, renames as delete plus add."""
    rows = git(clone, "diff", "--name-status", "--no-renames", f"{sha}~1", sha, "--", *pathspecs(bench))
    return [(r.split("\t")[0], r.split("\t")[-1]) for r in rows.splitlines() if r.strip()]


def commit_replay(clone: str, sha: str, edits: list[tuple[str, str]]) -> None:
    for status, path in edits:
        full = os.path.join(clone, path)
        if status.startswith("A"):
            git(clone, "rm", "-q", "--cached", "--", path)
            if os.path.exists(full):
                os.remove(full)
            continue
        os.makedirs(os.path.dirname(full) or clone, exist_ok=True)
        with open(full, "wb") as f:
            f.write(subprocess.run(["git", "show", f"{sha}~1:{path}"], cwd=clone, capture_output=True).stdout)
        git(clone, "add", "--sparse", "--", path)
    env = dict(os.environ, **IDENTITY)
    # Plumbing, not `git commit`: a snapshot may lack its largest blobs, and only write-tree can skip them.
    tree = git(clone, "write-tree", "--missing-ok").strip()
    message = "replay: the benchmark edits put back"
    sha_new = git(clone, "commit-tree", tree, "-p", "HEAD", "-m", message, env=env).strip()
    git(clone, "update-ref", "--no-deref", "HEAD", sha_new)


def run_bench_op(clone: str, bench_op: list[str], parent: str, to_ref: str, timeout: float) -> Outcome:
    report = os.path.join(tempfile.mkdtemp(prefix="first-contact-"), "fix.json")
    env = dict(os.environ, PYTHONHASHSEED="0")
    argv = [*bench_op, "fix", "--diff", "--from-ref", parent, "--to-ref", to_ref, "--json", report]
    start = time.monotonic()
    try:
        p = subprocess.run(
            argv, cwd=clone, capture_output=True, text=True, timeout=timeout, check=False, env=env,
            errors="replace",
        )  # fmt: skip
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = -1, "", f"timed out after {timeout:.0f} s"
    took = round(time.monotonic() - start, 1)
    findings: list[dict[str, object]] = []
    if os.path.exists(report):
        with open(report, encoding="utf-8") as f:
            try:
                findings = list(json.load(f).get("findings") or [])
            except json.JSONDecodeError:
                err += "\n(the JSON report could not be read)"
    shutil.rmtree(os.path.dirname(report), ignore_errors=True)
    return Outcome(rc, took, out[:MAX_TEXT], err[-4000:], findings)


def state(o: Outcome | None) -> dict[str, object] | None:
    if o is None:
        return None
    return {"rc": o.rc, "seconds": o.seconds, "stdout": o.stdout, "stderr": o.stderr, "findings": o.findings}


def parse_config(items: list[str]) -> dict[str, list[str]]:
    config: dict[str, list[str]] = {}
    for item in items:
        key, _, value = item.partition("=")
        parsed = json.loads(value)
        if not isinstance(parsed, list) or not all(isinstance(x, str) for x in parsed):
            raise SystemExit(f"--config {key}: give a JSON list of strings, got {value!r}")
        config[key.strip()] = parsed
    config.setdefault("op-bases", ["object"])
    for key in ("op-paths", "benchmark-paths"):
        if key not in config:
            raise SystemExit(f"--config {key}=[...] is required")
    return config


def measure(clone: str, sha: str, config: dict[str, list[str]], bench_op: list[str], timeout: float) -> dict:
    bench = config["benchmark-paths"]
    parent = git(clone, "rev-parse", f"{sha}~1").strip()
    edits = engineers_bench_edits(clone, sha, bench)
    reference = git(clone, "diff", "--no-renames", parent, sha, "--", *pathspecs(bench))
    replayed: Outcome | None = None
    if edits:
        checkout(clone, sha)
        commit_replay(clone, sha, edits)
        append_config(clone, config)
        replayed = run_bench_op(clone, bench_op, parent, "HEAD", timeout)
    checkout(clone, sha)
    append_config(clone, config)
    committed = run_bench_op(clone, bench_op, parent, sha, timeout)
    return {
        "parent": parent,
        "engineers_edits": [{"status": s, "path": p} for s, p in edits],
        "reference": reference[:MAX_TEXT],
        "replayed": state(replayed),
        "replayed_is_committed": not edits,
        "committed": state(committed),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clone", required=True, help="the library's git clone (only read)")
    ap.add_argument("--config", action="append", default=[], help="KEY=JSON list, a [tool.bench-op] key")
    ap.add_argument("--max-commits", type=int, default=20, help="how many selected commits to measure")
    ap.add_argument("--scan", type=int, default=3000, help="how many first-parent commits to look through")
    ap.add_argument("--out", required=True, help="JSON lines, one per measured commit")
    ap.add_argument("--bench-op", default=DEFAULT_BENCH_OP, help="the command that runs bench-op")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per bench-op run")
    args = ap.parse_args()
    config = parse_config(args.config)
    bench_op = shlex.split(args.bench_op)
    src = os.path.abspath(args.clone)
    shas = git(src, "rev-list", "--first-parent", f"--max-count={args.scan}", "HEAD").split()
    scratch = tempfile.mkdtemp(prefix="first-contact-")
    clone = os.path.join(scratch, "clone")
    done = 0
    try:
        subprocess.run(["git", "clone", "-q", "--no-checkout", "--shared", src, clone], check=True)
        # Only the text bench-op reads: a snapshot may lack its largest data files.
        git(clone, "sparse-checkout", "set", "--no-cone", *SPARSE)
        with open(args.out, "w", encoding="utf-8") as out:
            for sha in shas:
                if done >= args.max_commits:
                    break
                if not git(src, "rev-parse", "-q", "--verify", f"{sha}~1^{{commit}}", check=False).strip():
                    continue
                changes = constructor_changes(src, sha, config["op-paths"])
                refs = [f"{sha}~1", sha]
                called = [c for c in changes if called_in(src, refs, c.cls, config["benchmark-paths"])]
                if not called:
                    continue
                start = time.monotonic()
                row = {
                    "library": os.path.basename(src.rstrip("/")),
                    "commit": sha,
                    "subject": git(src, "log", "-1", "--format=%s", sha).strip(),
                    "date": git(src, "log", "-1", "--format=%cs", sha).strip(),
                    "changes": [c.__dict__ for c in changes],
                    "called_in_benchmarks": sorted({c.cls for c in called}),
                    "config": config,
                    **measure(clone, sha, config, bench_op, args.timeout),
                }
                out.write(json.dumps(row) + "\n")
                out.flush()
                done += 1
                took = time.monotonic() - start
                print(f"{done:3} {sha[:10]} {row['called_in_benchmarks']} {took:.1f} s", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
