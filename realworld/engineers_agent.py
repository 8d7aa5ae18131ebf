#!/usr/bin/env python3
"""A scripted coding agent for `realworld/gpu_tileops.py --agent-from-engineers`: it answers bench-op's task
with the engineers' own benchmark edit. It writes the blocked file ($BENCH_OP_FILE) as the replayed commit
($BENCH_OP_ENGINEERS) has it, read from the objects the sandbox borrows. With --wrong it then takes one case
out (the first `pytest.param(...)` row, or else the first test function): an edit bench-op must refuse.

Nothing here is imported by bench-op or its tests.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys


def drop_a_case(source: str) -> tuple[str, str]:
    """`source` with one case taken out, and which."""
    lines = source.splitlines(keepends=True)
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("pytest.param(") and s.endswith(("),", ")")) and s.count("(") == s.count(")"):
            return "".join(lines[:i] + lines[i + 1 :]), f"the case {s.rstrip(',')}"
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            end = node.end_lineno or node.lineno
            return "".join(lines[: first - 1] + lines[end:]), f"the test {node.name}"
    return source, "nothing (no case found)"


def main() -> int:
    sys.stdin.read()  # the task: this agent already knows its answer
    path, commit = os.environ["BENCH_OP_FILE"], os.environ["BENCH_OP_ENGINEERS"]
    theirs = subprocess.run(["git", "show", f"{commit}:{path}"], capture_output=True, text=True)
    if theirs.returncode != 0:
        print(f"BLOCKED: {commit} has no {path}")
        return 0
    text, note = theirs.stdout, f"the engineers' own {path} from {commit[:12]}"
    if "--wrong" in sys.argv[1:]:
        text, dropped = drop_a_case(text)
        note += f", with {dropped} taken out"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {note}")
    print("SUCCESS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
