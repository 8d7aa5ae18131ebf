"""Print what analysis/flow.py says about each class whose `__init__` signature changed in a range of commits.

    python realworld/flow_probe.py --repo CLONE [--range A..B | --last N] [--paths DIR ...] [--places]

For each commit of the range that touches one of the paths (newest first), each Python file it modified
there is parsed at the commit's first parent and at the commit; a class of the same name in both whose
`__init__` parameters differ gets its flow printed, one line per parameter the change removed or added (and
per kept one whose entry is not Kept). The class's ancestors are the classes of the same file it names: a
probe, not the project's name resolution. A summary of how many parameters got each kind ends the output.

The clone is only read (`git log`, `git diff-tree`, `git show`); nothing is checked out. Standard library plus
the installed bench-op. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence

from benchop_hook.analysis.flow import Flow, Kept, ParamFlow, param_flow

DEFAULT_PATHS = ("tileops/ops", "top/ops", "src/tileops/ops")


def git(repo: str, *args: str) -> str:
    done = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else ""


def commits(repo: str, span: str | None, last: int, paths: Sequence[str]) -> list[str]:
    args = ["log", "--format=%H", "--no-merges"]
    args += [span] if span else [f"-{last}"]
    return git(repo, *args, "--", *paths).split()


def modified(repo: str, commit: str, paths: Sequence[str]) -> list[str]:
    out = git(repo, "diff-tree", "--no-commit-id", "-r", "--name-status", f"{commit}^", commit, "--", *paths)
    return [
        line.split("\t")[1] for line in out.splitlines() if line.startswith("M\t") and line.endswith(".py")
    ]


def parse(repo: str, commit: str, path: str) -> ast.Module | None:
    text = git(repo, "show", f"{commit}:{path}")
    try:
        return ast.parse(text) if text else None
    except SyntaxError:
        return None


def lineage(tree: ast.Module, name: str) -> list[ast.ClassDef]:
    """The class `name` and the classes of the same module it derives from, nearest first."""
    named = {c.name: c for c in tree.body if isinstance(c, ast.ClassDef)}
    out: list[ast.ClassDef] = []
    queue = [named[name]] if name in named else []
    while queue:
        cls = queue.pop(0)
        if cls not in out:
            out.append(cls)
            queue += [named[b.id] for b in cls.bases if isinstance(b, ast.Name) and b.id in named]
    return out


def init_params(classes: Sequence[ast.ClassDef]) -> list[str] | None:
    for cls in classes:
        for fn in cls.body:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == "__init__":
                a = fn.args
                extra = [x.arg for x in (a.vararg, a.kwarg) if x is not None]
                return [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)][1:] + extra
    return None


def reported(flow: Flow, old: Sequence[str], new: Sequence[str]) -> list[tuple[str, ParamFlow]]:
    """The parameters worth a line: removed, added, or kept with something to say."""
    out = [("-", p) for p in flow.old if p.name not in new or not isinstance(p.entry, Kept)]
    return out + [("+", p) for p in flow.new if p.name not in old]


def kind_counts(lines: Sequence[tuple[str, ParamFlow]]) -> Counter[str]:
    """One count per parameter: a rename or transform once (on its old side), the rest on their own side."""
    counts: Counter[str] = Counter()
    for side, p in lines:
        kind = type(p.entry).__name__
        if side == "+" and kind in ("Renamed", "Transformed"):
            continue
        counts[kind] += 1
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True)
    ap.add_argument("--range", dest="span", help="A..B (default: the last N commits touching the paths)")
    ap.add_argument("--last", type=int, default=150)
    ap.add_argument("--paths", nargs="+", default=list(DEFAULT_PATHS))
    ap.add_argument("--places", action="store_true", help="print each parameter's places too")
    args = ap.parse_args(argv)
    total: Counter[str] = Counter()
    changed = 0
    for commit in commits(args.repo, args.span, args.last, args.paths):
        for path in modified(args.repo, commit, args.paths):
            before, after = parse(args.repo, f"{commit}^", path), parse(args.repo, commit, path)
            if before is None or after is None:
                continue
            names = [c.name for c in after.body if isinstance(c, ast.ClassDef)]
            for name in names:
                old, new = lineage(before, name), lineage(after, name)
                op, np = init_params(old), init_params(new)
                if not old or op is None or np is None or op == np:
                    continue
                changed += 1
                lines = reported(param_flow(old, new, op, np), op, np)
                total += kind_counts(lines)
                print(f"{commit[:8]} {path} {name}({', '.join(op)}) -> ({', '.join(np)})")
                for side, p in lines:
                    print(f"    {side}{p.name}: {p.entry}" + (f"\n        {p.places}" if args.places else ""))
    print(
        f"\n{changed} changed constructors; parameters by kind: "
        + ", ".join(f"{k} {v}" for k, v in total.most_common())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
