"""bench-op on TileOPs op commits as the engineers committed them (their benchmark fixes included).

    python realworld/as_committed.py CLONE GOLDEN_DIR [--out FILE]

GOLDEN_DIR holds `realworld/golden.py save --mode committed` outputs: for each op commit C, what
`bench-op fix --diff --from-ref C~1 --to-ref C` printed with the working tree at C. Every line bench-op's
diff rewrites is sorted by who wrote it: a line the commit itself added or changed (bench-op must never
rewrite it: the engineer wrote it for the new signature) or a line the commit left as it was (a rewrite
there must be a real break the engineers left; each is listed to be read).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def show(clone: str, rev: str, path: str) -> bytes | None:
    p = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=clone, capture_output=True, check=False)
    return p.stdout if p.returncode == 0 else None


def authored(before: bytes | None, after: bytes | None) -> set[int]:
    """Lines of `after` (1-based) the commit inserted or replaced."""
    if after is None:
        return set()
    new = after.splitlines()
    if before is None:
        return set(range(1, len(new) + 1))
    out: set[int] = set()
    sm = difflib.SequenceMatcher(None, before.splitlines(), new, autojunk=False)
    for tag, _, _, j1, j2 in sm.get_opcodes():
        if tag in ("replace", "insert"):
            out.update(range(j1 + 1, j2 + 1))
    return out


def rewritten_lines(diff: str) -> dict[str, list[tuple[int, str]]]:
    """path -> (line in the file as it was, its text) for each line bench-op's diff removes."""
    out: dict[str, list[tuple[int, str]]] = {}
    path = None
    line = 0
    for row in diff.splitlines():
        if row.startswith("--- a/"):
            path = row[6:]
            continue
        if row.startswith("+++ "):
            continue
        m = HUNK.match(row)
        if m:
            line = int(m.group(1))
            continue
        if path is None:
            continue
        if row.startswith("-"):
            out.setdefault(path, []).append((line, row[1:]))
            line += 1
        elif row.startswith(" "):
            line += 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("clone")
    ap.add_argument("golden")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    own = other = commits = 0
    lines: list[str] = []
    for name in sorted(os.listdir(a.golden)):
        if not name.endswith(".committed.json"):
            continue
        sha = name.split(".")[0]
        with open(os.path.join(a.golden, name), encoding="utf-8") as f:
            data = json.load(f)
        found = rewritten_lines(data.get("fix_stdout") or "")
        if not found:
            continue
        commits += 1
        for path, rows in found.items():
            mine = authored(show(a.clone, f"{sha}~1", path), show(a.clone, sha, path))
            for ln, text in rows:
                if ln in mine:
                    own += 1
                    lines.append(f"{sha} {path}:{ln}: REWRITE OF THE COMMIT'S OWN LINE: {text.strip()}")
                else:
                    other += 1
                    lines.append(
                        f"{sha} {path}:{ln}: rewrite of a line the commit left as it was: {text.strip()}"
                    )
    lines.append("")
    lines.append(
        f"{commits} op commits as committed with a rewrite; rewritten lines the commit itself wrote or "
        "changed: "
        f"{own}; rewritten lines it left as they were (each to be read: a real break?): {other}"
    )
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
    sys.stdout.write(text)
    return 1 if own else 0


if __name__ == "__main__":
    sys.exit(main())
