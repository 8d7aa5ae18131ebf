#!/usr/bin/env python3
"""A scripted coding agent for `realworld/gpu_tileops.py --agent-careful`: it answers bench-op's task the
way a careful agent would, with an interface-only edit of the blocked file as bench-op left it. The edits
are written by hand per replayed commit ($BENCH_OP_ENGINEERS) below, from reading the commit's new
signatures: they keep every case and every choice, where the engineers' own edit of the same commit also
redesigned the cases (b8e75f59 moved its benchmark to manifest workloads with tune=True everywhere, which
bench-op refuses).

Nothing here is imported by bench-op or its tests.
"""

from __future__ import annotations

import os
import re
import sys

# Per commit: (pattern, replacement) pairs applied to the blocked file, in order.
EDITS: dict[str, list[tuple[str, str]]] = {
    # The workloads now take a shape (`SoftmaxTest(shape, dtype)`) and keep it as `.shape`; the cases stay
    # (m, n) rows, so the workload gets (m, n) and the FLOP and byte counts read the rows from the shape.
    "b8e75f59": [
        (r"\b(SoftmaxTest|LogSoftmaxTest|LogSumExpTest)\(m, n, dtype\)", r"\1((m, n), dtype)"),
        # M and N are read from the input at forward time now; dim keeps its default, the last axis.
        (r"(SoftmaxOp|LogSoftmaxOp|LogSumExpOp)\(M=m, N=n, ", r"\1("),
        (r"\bt\.m\b", "t.shape[0]"),
        (r"\bt\.n\b", "t.shape[1]"),
    ],
}


def main() -> int:
    sys.stdin.read()  # the task: this agent's answers are written above
    path, commit = os.environ["BENCH_OP_FILE"], os.environ["BENCH_OP_ENGINEERS"]
    edits = next((e for c, e in EDITS.items() if commit.startswith(c)), None)
    if edits is None:
        print(f"BLOCKED: no careful edit is written for {commit[:12]}")
        return 0
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for pattern, replacement in edits:
        text = re.sub(pattern, replacement, text)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"edited {path}: {len(edits)} interface edits for {commit[:12]}")
    print("SUCCESS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
