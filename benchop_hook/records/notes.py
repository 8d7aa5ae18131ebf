"""Benchmark numbers recorded in git notes (`refs/notes/bench-op`) on the commit they measured.

A note holds a list of runs, newest last; each run is one device's numbers (per node id: name,
value, unit) with the torch version and the interpreter that produced them. Recording a run for
a commit that already has a note merges: the node ids of the new run replace the same node ids
from the same device, everything else stays. Notes live outside every commit's tree.

Pure functions build, merge and read records; `read_note` / `write_note` are the git edges.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from benchop_hook.git import repo as gitrepo
from benchop_hook.records.baseline import direction

REF = "refs/notes/bench-op"
FORMAT = 1


@dataclass(frozen=True)
class Measure:
    """One number of one case: `nodeid` is `path::case`."""

    nodeid: str
    name: str
    value: float
    unit: str


@dataclass(frozen=True)
class Run:
    """One device's numbers for one commit."""

    device: str
    torch: str | None
    python: str
    measures: tuple[Measure, ...]
    when: str = ""  # ISO time the numbers were taken

    def as_json(self) -> dict[str, object]:
        by_node: dict[str, list[dict[str, object]]] = {}
        for m in self.measures:
            by_node.setdefault(m.nodeid, []).append({"name": m.name, "value": m.value, "unit": m.unit})
        return {
            "device": self.device,
            "torch": self.torch,
            "python": self.python,
            "when": self.when,
            "numbers": by_node,
        }


def run_from_json(d: Mapping[str, object]) -> Run | None:
    """A run as stored; None when it is not one (a note written by something else)."""
    numbers = d.get("numbers")
    device = d.get("device")
    if not isinstance(numbers, dict) or not isinstance(device, str):
        return None
    measures = []
    for nodeid, items in numbers.items():
        if not isinstance(items, list):
            continue
        for it in items:
            value = it.get("value") if isinstance(it, dict) else None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                measures.append(
                    Measure(str(nodeid), str(it.get("name", "")), float(value), str(it.get("unit", "")))
                )
    torch = d.get("torch")
    return Run(
        device,
        torch if isinstance(torch, str) else None,
        str(d.get("python", "")),
        tuple(measures),
        str(d.get("when", "")),
    )


def parse_note(text: str) -> list[Run]:
    """The runs in a note; a note that is not bench-op's JSON reads as none."""
    try:
        doc = json.loads(text)
    except ValueError:
        return []
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        return []
    return [r for r in (run_from_json(x) for x in doc["runs"] if isinstance(x, dict)) if r is not None]


def render_note(runs: Iterable[Run]) -> str:
    data = {"bench-op": FORMAT, "runs": [r.as_json() for r in runs]}
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def merge(existing: list[Run], new: Run) -> list[Run]:
    """`new` appended; the same device's older numbers for the same node ids dropped, the rest kept."""
    replaced = {m.nodeid for m in new.measures}
    out = []
    for r in existing:
        if r.device == new.device:
            kept = tuple(m for m in r.measures if m.nodeid not in replaced)
            if not kept:
                continue
            r = Run(r.device, r.torch, r.python, kept, r.when)
        out.append(r)
    out.append(new)
    return out


def latest(runs: list[Run], device: str) -> dict[str, list[Measure]]:
    """Per node id, the newest numbers from `device`."""
    out: dict[str, list[Measure]] = {}
    for r in runs:  # oldest first: a newer run overwrites
        if r.device != device:
            continue
        by_node: dict[str, list[Measure]] = {}
        for m in r.measures:
            by_node.setdefault(m.nodeid, []).append(m)
        out.update(by_node)
    return out


# -- the git edges


def read_note(root: str, commit: str) -> list[Run]:
    text = gitrepo.read_note(root, REF, commit)
    if text is None:
        return []  # no note on that commit
    return parse_note(text)


def write_note(root: str, commit: str, run: Run) -> None:
    """Merge `run` into the commit's note. Raises GitError when git refuses."""
    gitrepo.write_note(root, REF, commit, render_note(merge(read_note(root, commit), run)))


def noted_commits(root: str) -> set[str]:
    """Every commit that has a bench-op note."""
    return gitrepo.noted_commits(root, REF)


@dataclass(frozen=True)
class Point:
    """One case's recorded numbers at one commit on one device (`bench-op history`, its plot)."""

    commit: str
    date: str
    subject: str
    device: str
    values: tuple[tuple[str, float, str], ...]  # (name, value, unit) of one case


def primary(p: Point) -> tuple[str, float, str] | None:
    """The number a case is followed by: its time, else one with a better direction, else its first."""
    timed = [v for v in p.values if v[2] in ("ns", "us", "ms", "s")]
    known = [v for v in p.values if direction(v[2]) is not None]
    values = timed or known or list(p.values)
    return values[0] if values else None
