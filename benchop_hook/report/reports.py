"""A JSON report (docs/json.md) read back as frozen values: what the annotations, the Markdown summary and
`bench-op merge` work from.

The JSON is what travels between CI's runners (each shard writes one, the job that merges reads them all),
so the renderings for CI read it rather than the in-process results: the summary of one run and of merged
shards are then the same function of the same data. Each value keeps its JSON (`raw`) so that a merged
report passes through every field it does not itself combine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from benchop_hook.errors import UsageError
from benchop_hook.report.phrases import edit_phrases
from benchop_hook.run.shards import Share

Json = Mapping[str, Any]
Kind = Literal["check", "fix", "run"]

# A call that provably fails or means something else under the new signature.
BREAKS = ("broken", "shifted", "gone")


def _short(qualname: str | None) -> str:
    return (qualname or "?").rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Change:
    """One Op's signature change."""

    op: str
    status: str  # changed, moved, renamed, removed
    old: str | None
    new: str | None
    old_signature: str | None
    new_signature: str | None
    via_base: str | None
    edits: tuple[str, ...]  # the edits in words, those of one kind said once
    methods: tuple[str, ...]  # each changed method, in words
    raw: Json = field(compare=False)

    def headline(self) -> str:
        old = f"{_short(self.old)}{self.old_signature or '(?)'}"
        if self.status == "removed" or self.new is None:
            return f"{old} -> removed"
        base = f" (through base class {_short(self.via_base)})" if self.via_base else ""
        return f"{old} -> {_short(self.new)}{self.new_signature or '(?)'}{base}"


@dataclass(frozen=True)
class Call:
    """One benchmark call a change concerns, as judged."""

    path: str
    line: int
    text: str  # the call with its arguments, as the text report shows it
    status: str  # ok, broken, shifted, default, unknown, gone, ambiguous, stale
    problem: str
    fix: str | None  # the argument list after the edit
    call_after: str  # the called name in the rewritten file
    notes: tuple[str, ...]
    why_not: str | None
    fixed: bool
    rest_to_run: bool
    raw: Json = field(compare=False)

    @property
    def verdict(self) -> Literal["break", "reported", "unknown", "ok"]:
        """A provable break, a call reported without that proof, one only a run can judge, or nothing."""
        if self.status == "ok" or ((self.status == "unknown" or self.rest_to_run) and not self.fixed):
            return "ok" if self.status == "ok" else "unknown"
        return "break" if self.status in BREAKS else "reported"

    @property
    def rewrite(self) -> str | None:
        """The call as rewritten, when there is a rewrite."""
        return f"{self.call_after}{self.fix}" if self.fix else None

    def fix_line(self) -> str:
        """As `FileResult.fix_lines` and the run's `fixes` say it."""
        return f"{self.path}:{self.line}: {self.text} -> {self.rewrite}"


@dataclass(frozen=True)
class Measured:
    """One number of one case, with the parent's when compared."""

    case: str
    name: str
    value: float
    unit: str
    baseline: float | None = None
    change: float | None = None
    verdict: str | None = None


@dataclass(frozen=True)
class Bench:
    """One benchmark file's way through the run."""

    path: str
    status: str  # passed, failed, not-run, blocked
    reason: str | None
    numbers: tuple[Measured, ...]
    fixes: tuple[str, ...]
    patch: str | None
    seconds: float
    device: str | None
    raw: Json = field(compare=False)


@dataclass(frozen=True)
class Report:
    kind: Kind
    status: str  # check: nothing-to-do, ok, broken; fix: fixed or broken; run: as RunStatus
    target: Json
    changes: tuple[Change, ...] = ()
    calls: tuple[Call, ...] = ()
    benchmarks: tuple[Bench, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    regressions: tuple[Json, ...] = ()
    baseline: Json | None = None
    reason: str | None = None
    shard: Share | None = None  # the share of the files a `run --shard` took
    label: str | None = None  # the range as the user named it ("origin/main..HEAD")
    diffs: Mapping[str, str] = field(default_factory=dict)  # path -> the diff of what bench-op left changed
    raw: Json = field(default_factory=dict, compare=False)

    @property
    def applied(self) -> bool:
        """Its rewrites are in this working tree or a commit (`fix`, `run`); a check's are proposals, and so
        are a shard's and a merged report's, which are made elsewhere and applied by whoever merges."""
        return self.kind != "check" and self.shard is None and "merged" not in self.raw

    def fixed(self, c: Call) -> bool:
        return c.fixed and self.applied

    @property
    def range_text(self) -> str:
        if self.label:
            return self.label
        if self.target.get("mode") == "all":
            return "all files"
        if self.target.get("mode") == "staged":
            return "staged changes"
        return f"{str(self.target.get('from') or '?')[:12]}..{str(self.target.get('to') or '?')[:12]}"


def _text(d: Json, key: str) -> str | None:
    v = d.get(key)
    return v if isinstance(v, str) else None


def _change(d: Json) -> Change:
    methods = tuple(
        f".{m.get('name')}{m.get('old_signature') or '(?)'} -> "
        f".{m.get('name')}{m.get('new_signature') or '(?)'}"
        for m in d.get("methods") or ()
        if isinstance(m, Mapping)
    )
    return Change(
        str(d.get("op", "?")),
        str(d.get("status", "changed")),
        _text(d, "old"),
        _text(d, "new"),
        _text(d, "old_signature"),
        _text(d, "new_signature"),
        _text(d, "via_base"),
        tuple(edit_phrases(e for e in d.get("edits") or () if isinstance(e, Mapping))),
        methods,
        d,
    )


def _call(d: Json) -> Call:
    return Call(
        str(d.get("path", "")),
        int(d.get("line") or 0),
        str(d.get("text") or d.get("call") or "?"),
        str(d.get("status", "unknown")),
        str(d.get("problem") or ""),
        _text(d, "fix"),
        str(d.get("call_after") or d.get("call") or ""),
        tuple(str(n) for n in d.get("notes") or ()),
        _text(d, "why_not"),
        bool(d.get("fixed")),
        bool(d.get("rest_to_run")),
        d,
    )


def _number(d: Json) -> Measured:
    def num(key: str) -> float | None:
        v = d.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    return Measured(
        str(d.get("case", "")),
        str(d.get("name", "")),
        num("value") or 0.0,
        str(d.get("unit", "")),
        num("baseline"),
        num("change"),
        _text(d, "verdict"),
    )


def _bench(d: Json) -> Bench:
    return Bench(
        str(d.get("path", "")),
        str(d.get("status", "blocked")),
        _text(d, "reason"),
        tuple(_number(n) for n in d.get("numbers") or () if isinstance(n, Mapping)),
        tuple(str(f) for f in d.get("fixes") or ()),
        _text(d, "patch"),
        float(d.get("seconds") or 0.0),
        _text(d, "device"),
        d,
    )


def _shard(d: object) -> Share | None:
    if not isinstance(d, Mapping):
        return None
    split = tuple(tuple(str(p) for p in s) for s in d.get("split") or ())
    index, count = int(d.get("index") or 0), int(d.get("count") or 0)
    if not (1 <= index <= count == len(split)):
        return None
    return Share(index, count, split, str(d.get("balanced_by") or "count"))


def kind_of(data: Json) -> Kind:
    """Which command wrote a report: a run's has `benchmarks`, a check's a status of its own."""
    if "benchmarks" in data:
        return "run"
    return "check" if "status" in data else "fix"


def read_report(
    data: Json, *, kind: Kind | None = None, label: str | None = None, diffs: Mapping[str, str] | None = None
) -> Report:
    """A report as written by `check`, `fix` or `run --json`; `diffs` when the caller has them at hand (a
    run's are in its benchmarks)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("target"), Mapping):
        raise UsageError("that is not a bench-op JSON report (no 'target'): give the files `--json` wrote.")
    kind = kind or kind_of(data)
    benches = tuple(_bench(b) for b in data.get("benchmarks") or () if isinstance(b, Mapping))
    calls = tuple(_call(f) for f in data.get("findings") or () if isinstance(f, Mapping))
    status = _text(data, "status") or (
        "broken" if any(c.verdict == "break" and not c.fixed for c in calls) else "fixed"
    )
    written = data.get("diffs")
    own = {str(p): str(d) for p, d in written.items()} if isinstance(written, Mapping) else {}
    return Report(
        kind,
        status,
        data["target"],
        tuple(_change(c) for c in data.get("changes") or () if isinstance(c, Mapping)),
        calls,
        benches,
        tuple(
            (str(s.get("path")), str(s.get("reason")))
            for s in data.get("skipped") or ()
            if isinstance(s, Mapping)
        ),
        tuple(r for r in data.get("regressions") or () if isinstance(r, Mapping)),
        data.get("baseline") if isinstance(data.get("baseline"), Mapping) else None,
        _text(data, "reason"),
        _shard(data.get("shard")),
        label or _text(data, "range"),
        {**own, **(diffs or {})},
        data,
    )


def grouped(changes: Sequence[Change]) -> list[tuple[Change, list[Change]]]:
    """Each change, with the subclasses that only inherit it listed under their base (as the text report
    groups them)."""
    by_new = {c.new: c for c in changes if c.new is not None}
    children: dict[str, list[Change]] = {}
    top: list[Change] = []
    for c in changes:
        base = by_new.get(c.via_base) if c.via_base else None
        if (
            base is not None
            and base is not c
            and base.edits == c.edits
            and not c.methods
            and c.status == "changed"
        ):
            children.setdefault(str(base.new), []).append(c)
        else:
            top.append(c)
    return [(c, children.get(str(c.new), [])) for c in top]
