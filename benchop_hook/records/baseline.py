"""Old numbers against new ones, per node id: the relative change, which way is better, the noise.

Pure: samples in, `Comparison` out, and its renderings (terminal rows, JSON fields, the commit
table's "vs parent" column). Which direction is better comes from the unit: a time is better
lower, a throughput or a bandwidth higher; a number in any other unit gets a change but no verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchop_hook.report.digits import significant

Key = tuple[str, str]  # (node id "path::case", number name)

# A time below a microsecond is under what a GPU's event timer or a host clock resolves: its runs' spread as
# a percentage of it measures the timer, not the kernel.
TINY_MS = 1e-3

# unit -> (family, factor to the family's base unit, better direction: -1 lower, +1 higher)
_UNITS: dict[str, tuple[str, float, int]] = {
    "ns": ("time", 1e-6, -1),
    "us": ("time", 1e-3, -1),
    "ms": ("time", 1.0, -1),
    "s": ("time", 1e3, -1),
    "GFLOPS": ("flops", 1e-3, 1),
    "TFLOPS": ("flops", 1.0, 1),
    "GB/s": ("bandwidth", 1.0, 1),
    "TB/s": ("bandwidth", 1e3, 1),
}


def _median(values: Iterable[float]) -> float:
    """statistics.median, imported when used: `statistics` (fractions, decimal: ~6 ms) would otherwise load
    with every static pass, which imports this module for the report's types."""
    import statistics

    return statistics.median(values)


def direction(unit: str) -> int | None:
    """-1: lower is better (a time); +1: higher is better (throughput, bandwidth); None: unknown."""
    u = _UNITS.get(unit)
    return u[2] if u else None


def convert(value: float, unit: str, to: str) -> float | None:
    """`value` in `unit` expressed in `to`; None when they measure different things."""
    if unit == to:
        return value
    a, b = _UNITS.get(unit), _UNITS.get(to)
    if a is None or b is None or a[0] != b[0]:
        return None
    return value * a[1] / b[1]


def spread(values: Sequence[float]) -> float | None:
    """Relative spread of repeated runs: (max - min) / median; None for fewer than two."""
    if len(values) < 2:
        return None
    med = _median(values)
    return (max(values) - min(values)) / med if med else None


@dataclass(frozen=True)
class Delta:
    nodeid: str
    name: str
    unit: str
    old: float | None  # the baseline (median of its runs), in `unit`; None: no counterpart at the parent
    new: float | None  # None: the parent has it, the new version does not
    change: float | None  # relative and signed: +0.12 is 12% higher
    noise: float | None  # relative run-to-run spread, when both sides ran several times
    # regression, improvement, same, noise, changed (unit without a direction), new-case, gone, incomparable
    verdict: str
    old_runs: tuple[float, ...] = ()
    new_runs: tuple[float, ...] = ()

    @property
    def spread(self) -> float | None:
        """The absolute run-to-run spread, in `unit`: the wider side's max - min (None: not repeated)."""
        if self.noise is None:
            return None
        return max(max(r) - min(r) for r in (self.old_runs, self.new_runs) if r)

    @property
    def relative_noise(self) -> bool:
        """Whether a percentage says this case's noise: not past 100%, and not of a time under the timer's
        resolution (a few runs of a 0.1 us kernel read as ±144700%)."""
        if self.noise is None or self.noise > 1.0:
            return False
        ms = convert(self.old if self.old is not None else 0.0, self.unit, "ms")
        return ms is None or ms >= TINY_MS

    def noise_text(self) -> str:
        """This case's noise as a reader can weigh it: a percentage, or an absolute spread."""
        if self.relative_noise:
            return f"±{(self.noise or 0) * 100:.0f}%"
        return f"runs spread over {significant(self.spread or 0.0)} {self.unit}".rstrip()

    @property
    def worse_by(self) -> float:
        """How much worse, as a positive fraction (negative when better)."""
        d = direction(self.unit)
        if self.change is None or d is None:
            return 0.0
        return -d * self.change

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "nodeid": self.nodeid,
            "name": self.name,
            "unit": self.unit,
            "baseline": self.old,
            "value": self.new,
            "change": _round(self.change),
            "verdict": self.verdict,
        }
        if self.noise is not None:
            out["noise"] = _round(self.noise)
            out["spread"] = self.spread
        return out


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


@dataclass(frozen=True)
class Comparison:
    parent: str  # the commit compared with
    source: str  # "notes" (recorded numbers) or "run" (run at the parent in a temporary worktree)
    device: str
    threshold: float
    repeats: int  # runs per side when both ran in this session (1 when the baseline came from notes)
    deltas: tuple[Delta, ...]

    def for_node(self, nodeid: str) -> list[Delta]:
        return [d for d in self.deltas if d.nodeid == nodeid]

    def get(self, nodeid: str, name: str) -> Delta | None:
        return next((d for d in self.deltas if d.nodeid == nodeid and d.name == name), None)

    @property
    def regressions(self) -> list[Delta]:
        """Per case, its worst number among those that regressed."""
        worst: dict[str, Delta] = {}
        for d in self.deltas:
            if d.verdict == "regression" and (d.nodeid not in worst or d.worse_by > worst[d.nodeid].worse_by):
                worst[d.nodeid] = d
        return list(worst.values())

    @property
    def noise(self) -> float | None:
        """The widest relative spread among the cases a percentage describes."""
        values = [d.noise for d in self.deltas if d.noise is not None and d.relative_noise]
        return max(values) if values else None

    @property
    def spreads(self) -> dict[str, float]:
        """Per unit, the widest absolute spread among the cases a percentage does not describe."""
        out: dict[str, float] = {}
        for d in self.deltas:
            if d.noise is not None and not d.relative_noise and d.spread is not None:
                out[d.unit] = max(out.get(d.unit, 0.0), d.spread)
        return out

    def as_json(self) -> dict[str, object]:
        missing = [
            {"nodeid": d.nodeid, "where": "parent" if d.verdict == "new-case" else "new"}
            for d in self.deltas
            if d.verdict in ("new-case", "gone") and d.name == self.primary(d.nodeid)
        ]
        return {
            "parent": self.parent,
            "source": self.source,
            "device": self.device,
            "threshold": self.threshold,
            "repeats": self.repeats,
            "noise": _round(self.noise),
            "spreads": self.spreads,
            "no_counterpart": missing,
        }

    def primary(self, nodeid: str) -> str | None:
        """The number a case is shown by: its time when it has one, else its first."""
        ds = self.for_node(nodeid)
        if not ds:
            return None
        timed = [d for d in ds if _UNITS.get(d.unit, ("",))[0] == "time"]
        return (timed or ds)[0].name


Samples = Mapping[Key, Sequence[tuple[float, str]]]  # (value, unit) per run


def compare(new: Samples, old: Samples, *, threshold: float, repeated: bool) -> tuple[Delta, ...]:
    """Match by node id and name; every key of either side gets a Delta (no counterpart says so)."""
    out: list[Delta] = []
    keys = list(new) + [k for k in old if k not in new]
    for key in keys:
        nodeid, name = key
        ns, os_ = list(new.get(key, ())), list(old.get(key, ()))
        if not ns:
            unit = os_[0][1]
            out.append(
                Delta(
                    nodeid,
                    name,
                    unit,
                    _median(v for v, _ in os_),
                    None,
                    None,
                    None,
                    "gone",
                    tuple(v for v, _ in os_),
                )
            )
            continue
        unit = ns[0][1]
        new_runs = tuple(v for v, u in ns if u == unit)
        new_value = _median(new_runs)
        if not os_:
            out.append(Delta(nodeid, name, unit, None, new_value, None, None, "new-case", (), new_runs))
            continue
        converted = [convert(v, u, unit) for v, u in os_]
        if any(c is None for c in converted):
            out.append(Delta(nodeid, name, unit, None, new_value, None, None, "incomparable", (), new_runs))
            continue
        old_runs = tuple(c for c in converted if c is not None)
        old_value = _median(old_runs)
        if old_value == 0:
            # zero on both sides (a number rounded away) is no change; from zero, no ratio exists
            same = new_value == 0
            out.append(
                Delta(
                    nodeid,
                    name,
                    unit,
                    old_value,
                    new_value,
                    0.0 if same else None,
                    None,
                    "same" if same else "incomparable",
                    old_runs,
                    new_runs,
                )
            )
            continue
        change = new_value / old_value - 1.0
        s_old, s_new = spread(old_runs), spread(new_runs)
        noise = max(s_old, s_new) if repeated and s_old is not None and s_new is not None else None
        # Runs that overlap the parent's: some run of the new side was as good as one of the old.
        overlap = min(new_runs) <= max(old_runs) and min(old_runs) <= max(new_runs)
        out.append(
            Delta(
                nodeid,
                name,
                unit,
                old_value,
                new_value,
                change,
                noise,
                judge(change, unit, threshold, noise, overlap=overlap),
                old_runs,
                new_runs,
            )
        )
    return tuple(out)


def judge(change: float, unit: str, threshold: float, noise: float | None, *, overlap: bool = False) -> str:
    """`overlap`: the two sides' runs overlap (a run of one side lies within the other's range)."""
    d = direction(unit)
    if d is None:
        return "changed"
    worse = -d * change
    if abs(worse) <= threshold:
        return "same"
    if noise is not None and abs(change) <= noise:
        return "noise"  # past the threshold, but no further than the runs of one side differ among themselves
    if overlap:
        return "noise"  # the medians moved, but the runs of the two sides are not apart
    return "regression" if worse > 0 else "improvement"


# -- renderings


def change_text(d: Delta | None) -> str:
    if d is None:
        return "-"
    if d.verdict == "new-case":
        return "new case: no counterpart at the parent"
    if d.verdict == "gone":
        return "no counterpart in the new version"
    if d.verdict == "incomparable" or d.change is None:
        return "units differ" if d.old is None else "-"
    text = f"{d.change * 100:+.1f}%"
    if d.verdict == "regression":
        text += " regression"
    elif d.verdict == "improvement":
        text += " better"
    elif d.verdict == "noise":
        text += f" within noise ({d.noise_text()})" if d.noise is not None else " within noise (runs overlap)"
    return text


def fmt_value(v: float | None, unit: str) -> str:
    if v is None:
        return "-"
    return f"{significant(v)} {unit}".strip()


def align_rows(rows: list[tuple[str, ...]], left: int = 1) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            c.ljust(widths[i]) if i < left or i == len(r) - 1 else c.rjust(widths[i]) for i, c in enumerate(r)
        ).rstrip()
        for r in rows
    ]


def terminal_lines(c: Comparison) -> list[str]:
    """Per benchmark file: one row per case (its time, else its first number): old, new, change."""
    runs = f"{c.repeats} run{'s' if c.repeats != 1 else ''} each side"
    where = (
        "recorded in git notes"
        if c.source == "notes"
        else (
            f"run there in a temporary worktree, {runs}"
            if c.repeats
            else "none of these benchmark functions exist there"
        )
    )
    lines = [f"bench-op: compared with the parent {c.parent[:12]} ({where}; {c.device}):"]
    by_file: dict[str, list[str]] = {}
    for d in c.deltas:
        path = d.nodeid.split("::", 1)[0]
        if d.nodeid not in by_file.setdefault(path, []):
            by_file[path].append(d.nodeid)
    for path, nodes in by_file.items():
        rows: list[tuple[str, ...]] = [(f"  {path}", "old", "new", "change")]
        for node in nodes:
            shown = c.get(node, c.primary(node) or "")
            if shown is not None:
                rows.append(
                    (
                        "    " + node.split("::", 1)[-1],
                        fmt_value(shown.old, shown.unit),
                        fmt_value(shown.new, shown.unit),
                        change_text(shown),
                    )
                )
        lines.extend("  " + r for r in align_rows(rows))
    if c.repeats > 1:
        lines.append(
            f"bench-op: run-to-run noise: {noise_words(c.noise, c.spreads)} ({c.repeats} runs each side; a "
            "change no larger than that, or runs that overlap the parent's, are marked 'within noise')"
        )
    elif c.source == "notes":
        lines.append("bench-op: run-to-run noise: not measured (the baseline is a recorded single run)")
    regs = c.regressions
    if regs:
        worst = ", ".join(
            f"{d.nodeid.split('::', 1)[-1]} {d.name} {d.change * 100:+.0f}%"
            for d in regs[:5]
            if d.change is not None
        )
        more = f" and {len(regs) - 5} more" if len(regs) > 5 else ""
        lines.append(
            f"bench-op: {len(regs)} regression{'s' if len(regs) != 1 else ''} over "
            f"{c.threshold * 100:.0f}% against the parent: {worst}{more}"
        )
    else:
        lines.append(f"bench-op: no regression over {c.threshold * 100:.0f}% against the parent.")
    return lines


def noise_words(noise: float | None, spreads: Mapping[str, float]) -> str:
    """The noise of a comparison: a percentage over the cases it describes, and absolute spreads where a
    percentage would mislead (past 100%, or of times under the timer's resolution)."""
    parts = [f"up to ±{noise * 100:.1f}%"] if noise is not None else []
    if spreads:
        where = "elsewhere, " if parts else ""
        shown = ", ".join(f"{significant(v)} {u}".rstrip() for u, v in sorted(spreads.items()))
        parts.append(f"{where}runs spread over up to {shown}")
    return "; ".join(parts) or "not measured"


def decorate_json(data: dict[str, Any], c: Comparison) -> dict[str, Any]:
    """The run's JSON with `baseline` and `change` on every number, `regressions` and `baseline` on top."""
    for b in data.get("benchmarks", []) or []:
        for n in b.get("numbers", []):
            d = c.get(f"{b['path']}::{n['case']}", n["name"])
            if d is None:
                continue
            if d.new is not None and len(d.new_runs) > 1:
                n["value"] = d.new  # the median of the new side's runs, the value the change is taken from
                n["runs"] = list(d.new_runs)
            n["baseline"] = d.old
            n["change"] = _round(d.change)
            n["verdict"] = d.verdict
            if d.noise is not None:
                n["noise"] = _round(d.noise)
    data["regressions"] = [d.as_json() for d in c.regressions]
    data["baseline"] = c.as_json()
    return data


def vs_parent_column(rows: list[str], cases: Sequence[str], path: str, c: Comparison) -> list[str]:
    """A numbers table (header + one row per case, as numbers.table renders it) with a "vs parent" column."""
    if not rows:
        return rows
    width = max(len(r) for r in rows)
    out = [rows[0].ljust(width) + "  vs parent"]
    for row, case in zip(rows[1:], cases):
        node = f"{path}::{case}"
        d = c.get(node, c.primary(node) or "")
        if d is None:
            text = "-"
        elif d.change is not None:
            mark = {"regression": " regression", "noise": " (noise)"}.get(d.verdict, "")
            text = f"{d.change * 100:+.1f}%{mark}"
        else:
            text = "new case" if d.verdict == "new-case" else "-"
        out.append(row.ljust(width) + "  " + text)
    return out
