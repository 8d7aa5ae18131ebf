"""What a run produced, as closed values: one `FileOutcome` per benchmark file, the `Component`s of files
that stand or fall together, and the `RunOutcome` the report and the follow-up commit read.

Statuses are `Literal`s; every value is frozen: a later step (settling, the follow-up commit) makes a new
one with `dataclasses.replace` rather than editing what the run produced.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from benchop_hook.fixing.results import FileResult, StaticResult
from benchop_hook.records.baseline import Comparison
from benchop_hook.run.measurements import Number
from benchop_hook.run.shards import Share


@dataclass(frozen=True)
class ByAgent:
    """The person's coding agent's part in a file: its command's name, its edit as a unified diff against
    the file bench-op handed it (empty when nothing of it was kept), and where its log is."""

    name: str
    diff: str = ""
    log: str | None = None
    seconds: float = 0.0  # the agent's own time
    step_seconds: float = 0.0  # the whole step: sandbox, the agent, the checks (the run not included)

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "log": self.log,
            "seconds": round(self.seconds, 3),
            "overhead_seconds": round(max(0.0, self.step_seconds - self.seconds), 3),
        }


# "not-run": the file could not run on this machine (no GPU, a module or pytest missing in the benchmark
# interpreter, --no-run); its static fix stands.
OutcomeStatus = Literal["passed", "failed", "not-run", "blocked"]


@dataclass(frozen=True)
class FileOutcome:
    """One file's way through the run."""

    path: str
    status: OutcomeStatus = "failed"
    runs: int = 0
    numbers: tuple[Number, ...] = ()
    fixes: tuple[str, ...] = ()
    reason: str | None = None
    patch: str | None = None
    seconds: float = 0.0
    device: str | None = None
    runtime: tuple[str, str] | None = None  # (torch version or "", Python version) of the numbers
    gpus: frozenset[str] = frozenset()
    targets: tuple[str, ...] = ()
    content: bytes | None = None  # the file as bench-op leaves it (None: unchanged)
    notes: tuple[str, ...] = ()
    cases: int = 0
    written: frozenset[str] = frozenset()  # other files the repairs wrote (a helper the traceback named)
    uses: frozenset[str] = frozenset()  # helpers bench-op changed that this file imports
    helper: bool = False  # a module without tests, checked through the benchmark files that import it
    late: bool = False  # blocked after the run, when the follow-up commit was assembled
    busy: float = (
        0.0  # seconds its cases took in its last run (recorded with its numbers: shards balance by it)
    )
    # Blocked on an interface error the repair loop could not fix: its traceback, and the file as bench-op
    # had it then (what a coding agent starts from).
    interface: str | None = None
    proposed: bytes | None = None
    agent: ByAgent | None = None  # the person's coding agent worked on this file

    @property
    def bad(self) -> bool:
        return self.status in ("blocked", "failed")

    def as_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "status": self.status,
            "iterations": self.runs,
            "numbers": [n.as_json() for n in self.numbers],
            "fixes": list(self.fixes),
            "reason": self.reason,
            "patch": self.patch,
            "seconds": round(self.seconds, 3),
            "device": self.device,
            "gpus": sorted(self.gpus),
            "targets": list(self.targets),
            "notes": list(self.notes),
            **(self.agent_json() if self.agent is not None else {}),
        }

    def agent_json(self) -> dict[str, object]:
        """`"by": "agent"` and its hunks when the agent's edit was kept; what the agent did either way."""
        assert self.agent is not None
        hunks = [h for h in self.agent.diff.split("\n@@") if h.strip()][1:] if self.agent.diff else []
        name = self.agent.name
        kept = {"by": "agent", "hunks": [{"by": "agent", "agent": name, "diff": "@@" + h} for h in hunks]}
        return {**(kept if hunks else {}), "agent": self.agent.as_json()}


@dataclass(frozen=True)
class Component:
    """Files that stand or fall together: a benchmark, the helpers it imports, the files its repairs wrote."""

    paths: frozenset[str]
    members: tuple[FileOutcome, ...]

    @property
    def bad(self) -> bool:
        return any(o.bad for o in self.members)


def components(outcomes: list[FileOutcome]) -> tuple[Component, ...]:
    """Group outcomes by the files they share (union-find over written files and used helpers)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for o in outcomes:
        find(o.path)
        for p in (*o.written, *o.uses):
            parent[find(o.path)] = find(p)
    paths: dict[str, set[str]] = {}
    members: dict[str, list[FileOutcome]] = {}
    for path in list(parent):
        paths.setdefault(find(path), set()).add(path)
    for o in outcomes:
        members.setdefault(find(o.path), []).append(o)
    return tuple(Component(frozenset(ps), tuple(members.get(root, ()))) for root, ps in paths.items())


# "fixed-not-run": the static fixes stand (and are committed) but no benchmark could run here: no numbers.
RunStatus = Literal["nothing-to-do", "done", "fixed-not-run", "blocked"]


@dataclass(frozen=True)
class RunOutcome:
    """What a run did, for the report and for the follow-up commit."""

    status: RunStatus
    exit_code: int
    result: StaticResult | None = None
    outcomes: tuple[FileOutcome, ...] = ()
    blocked_static: tuple[FileResult, ...] = ()  # files with calls that need a hand edit
    written: Mapping[str, bytes] = field(default_factory=dict)  # path -> content bench-op left in the tree
    excluded: tuple[tuple[FileResult, str], ...] = ()  # files left alone, and why
    components: tuple[Component, ...] = ()
    reason: str | None = None
    run_seconds: float | None = None  # wall time of the pytest sessions (None: nothing ran)
    sessions: int = 0
    commit: str | None = None  # the follow-up commit made
    comparison: Comparison | None = None  # against the parent, with --baseline (versus_parent.py)
    share: Share | None = None  # with --shard: the share of the affected files this run took
