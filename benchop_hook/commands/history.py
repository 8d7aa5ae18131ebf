"""`bench-op history [FILE | NODEID] [--plot PATH]`: the numbers recorded in git notes, across commits.

Newest first, one table per case: the commit, its date, the device, every number the case recorded,
and the change of its time (else its first number) against the next older commit on the same device.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from benchop_hook.commands.options import Options
from benchop_hook.errors import EXIT_OK, EXIT_USAGE, BenchOpError
from benchop_hook.git import repo as gitrepo
from benchop_hook.program import command
from benchop_hook.records import notes
from benchop_hook.records.notes import Point, primary


def selects(nodeid: str, what: str | None) -> bool:
    """A file selects its cases; a node id itself and its parametrized cases (`f` selects `f[1-2]`)."""
    if not what:
        return True
    return nodeid == what or nodeid.startswith((what + "::", what + "["))


def series(
    log: Sequence[tuple[str, str, str, list[notes.Run]]], what: str | None, device: str | None
) -> dict[str, list[Point]]:
    """Per node id, its points newest first (log is newest first)."""
    out: dict[str, list[Point]] = {}
    for commit, date, subject, runs in log:
        for dev in dict.fromkeys(r.device for r in runs):
            if device and device.lower() not in dev.lower():
                continue
            for nodeid, ms in notes.latest(runs, dev).items():
                if selects(nodeid, what):
                    out.setdefault(nodeid, []).append(
                        Point(commit, date, subject, dev, tuple((m.name, m.value, m.unit) for m in ms))
                    )
    return out


def render(by_node: dict[str, list[Point]]) -> list[str]:
    from benchop_hook.records.baseline import align_rows, fmt_value

    lines: list[str] = []
    for nodeid, points in by_node.items():
        names = list(dict.fromkeys(v[0] for p in points for v in p.values))
        lines.append(f"{nodeid}:")
        rows: list[tuple[str, ...]] = [("  commit", "date", "device", *names, "change")]
        for i, p in enumerate(points):
            vals = {v[0]: v for v in p.values}
            cur = primary(p)
            older = next((q for q in points[i + 1 :] if q.device == p.device), None)
            prev = primary(older) if older else None
            change = "-"
            if cur and prev and prev[0] == cur[0] and prev[1]:
                change = f"{(cur[1] / prev[1] - 1) * 100:+.1f}%"
            rows.append(
                (
                    f"  {p.commit[:12]}",
                    p.date,
                    p.device,
                    *(fmt_value(vals[n][1], vals[n][2]) if n in vals else "-" for n in names),
                    change,
                )
            )
        lines.extend(align_rows(rows, left=3))
    return lines


def read_log(root: str, max_count: int) -> list[tuple[str, str, str, list[notes.Run]]]:
    """Commits reachable from HEAD that have a note, newest first, at most `max_count`."""
    noted = notes.noted_commits(root)
    if not noted:
        return []
    out = []
    for commit, date, subject in gitrepo.head_log(root):
        if commit in noted:
            runs = notes.read_note(root, commit)
            if runs:
                out.append((commit, date, subject, runs))
                if len(out) >= max_count:
                    break
    return out


def _normalise(root: str, what: str | None) -> str | None:
    """A file named relative to the current directory becomes repository-relative."""
    if not what:
        return None
    path, sep, rest = what.partition("::")
    full = os.path.abspath(path)
    if os.path.exists(full):
        rel = os.path.relpath(full, root)
        if not rel.startswith(".."):
            path = rel
    return path + sep + rest


def main(opts: Options) -> int:
    repo = gitrepo.find_repo(opts.directory)
    if opts.max_count < 1:
        raise BenchOpError("--max-count must be at least 1.", EXIT_USAGE)
    what = _normalise(repo.root, opts.what)
    by_node = series(read_log(repo.root, opts.max_count), what, opts.device)
    if not by_node:
        scope = f" for {what}" if what else ""
        print(
            f"bench-op: no numbers recorded{scope} in git notes ({notes.REF}) on the commits of HEAD; "
            f"`{command('run')}` records them (fetch them with "
            "`git fetch origin refs/notes/bench-op:refs/notes/bench-op`)."
        )
        return EXIT_OK
    to = sys.stderr if opts.plot == "-" else sys.stdout  # `--plot -`: the PNG alone on standard output
    for line in render(by_node):
        print(line, file=to)
    if opts.plot:
        from benchop_hook.records.plot import draw

        draw(by_node, opts.plot, title=what or "bench-op history")
        if opts.plot != "-":
            print(f"bench-op: wrote the plot to {opts.plot}")
    return EXIT_OK
