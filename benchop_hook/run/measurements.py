"""Read benchmark numbers (latency, TFLOPS, bandwidth) from a run: recorded properties,
pytest-benchmark JSON, and printed lines. Pure: strings in, `Number`s out."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from benchop_hook.report.digits import rounded_away, significant


@dataclass(frozen=True)
class Number:
    case: str  # pytest node id, without the file part
    name: str  # latency, tflops, bandwidth (or the property's own name)
    value: float
    unit: str
    # The digits the benchmark wrote: a value it rounded to zero ('0.00' TFLOPS) is shown with the bound
    # that precision tells ('<0.01'), not as a bare 0 that reads like a measurement of nothing.
    text: str | None = field(default=None, compare=False)

    def as_json(self) -> dict[str, object]:
        return {"case": self.case, "name": self.name, "value": self.value, "unit": self.unit}

    def render(self) -> str:
        v = self.value
        # A value the benchmark rounded to zero ('0.00') is shown as the bound it tells ('<0.01'), not as
        # a bare 0, nor as its row of zeros.
        text = rounded_away(self.text) if v == 0 and self.text else significant(v)
        return f"{text} {self.unit}".strip()


_UNIT_ALIASES = {
    "ms": "ms",
    "us": "us",
    "µs": "us",
    "μs": "us",
    "s": "s",
    "ns": "ns",
    "tflops": "TFLOPS",
    "tflop/s": "TFLOPS",
    "gflops": "GFLOPS",
    "gflop/s": "GFLOPS",
    "gb/s": "GB/s",
    "tb/s": "TB/s",
    "gbps": "GB/s",
    "tbps": "TB/s",
}
_KIND_OF_UNIT = {
    "ms": "latency",
    "us": "latency",
    "ns": "latency",
    "s": "latency",
    "TFLOPS": "tflops",
    "GFLOPS": "tflops",
    "GB/s": "bandwidth",
    "TB/s": "bandwidth",
}

_VALUE = r"(?P<value>[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
_UNIT_RE = re.compile(
    _VALUE + r"\s*(?P<unit>ms|us|µs|μs|ns|TFLOPS|TFLOP/s|GFLOPS|GFLOP/s|GB/s|TB/s)(?![\w/])", re.IGNORECASE
)
_NAMED_RE = re.compile(
    r"(?P<name>latency|tflops|bandwidth|bw|time)[\w]*\s*[=:]\s*"
    + _VALUE
    + r"(?:\s*(?P<unit>ms|us|µs|TFLOPS|GB/s|TB/s)(?![\w/])(?!\s*[=:]))?",
    re.IGNORECASE,
)


def _kind(name: str) -> tuple[str, str] | None:
    """A property name -> (kind, unit), e.g. 'tileops_latency_ms' -> ('latency', 'ms')."""
    n = name.lower()
    if "ratio" in n or "speedup" in n:
        return None
    if "latency" in n or n.endswith(("_ms", "_us")) or n in ("time", "time_ms"):
        unit = (
            "us"
            if n.endswith(("_us", "usec"))
            else "s"
            if n.endswith("_s") and not n.endswith(("_ms", "_us"))
            else "ms"
        )
        return "latency", unit
    if "tflops" in n or "tflop" in n:
        return "tflops", "TFLOPS"
    if "gflops" in n:
        return "tflops", "GFLOPS"
    if "bandwidth" in n or n.endswith(("_bw", "_gbs", "_tbs")) or "bw_" in n:
        unit = "TB/s" if n.endswith(("tbs", "tb_s", "tbps")) else "GB/s"
        return "bandwidth", unit
    return None


def from_properties(case: str, props: Iterable[tuple[str, str]]) -> list[Number]:
    out = []
    for name, raw in props:
        k = _kind(name)
        if k is None:
            continue
        try:
            value = float(raw)
        except (TypeError, ValueError):
            continue
        out.append(Number(case, name, value, k[1], _digits(str(raw))))
    return out


def _digits(raw: str) -> str | None:
    """The written digits of a plain decimal ('0.00', '1.07'), kept for display; None for anything else."""
    raw = raw.strip()
    return raw if re.fullmatch(r"[-+]?\d+\.\d+", raw) else None


def from_text(case: str, text: str) -> list[Number]:
    """`name=value [unit]` pairs first, then `value unit` anywhere else on the line."""
    out: list[Number] = []
    for line in text.splitlines()[-200:]:
        taken: list[tuple[int, int]] = []
        for m in _NAMED_RE.finditer(line):
            name = m.group("name").lower()
            kind = {"bw": "bandwidth", "time": "latency"}.get(name, name)
            unit = m.group("unit")
            unit = (
                _UNIT_ALIASES.get(unit.lower(), unit)
                if unit
                else {"latency": "ms", "tflops": "TFLOPS", "bandwidth": ""}[kind]
            )
            out.append(Number(case, kind, float(m.group("value")), unit, _digits(m.group("value"))))
            taken.append(m.span())
        for m in _UNIT_RE.finditer(line):
            if any(a <= m.start() < b or a < m.end() <= b for a, b in taken):
                continue
            unit = _UNIT_ALIASES.get(m.group("unit").lower(), m.group("unit"))
            kind = _KIND_OF_UNIT.get(unit, "value")
            out.append(Number(case, kind, float(m.group("value")), unit, _digits(m.group("value"))))
    return out


def from_pytest_benchmark(data: str) -> list[Number]:
    """pytest-benchmark's --benchmark-json: the median time per benchmark, in ms."""
    try:
        doc = json.loads(data)
    except ValueError:
        return []
    out = []
    for b in doc.get("benchmarks", []):
        stats = b.get("stats") or {}
        median = stats.get("median")
        if isinstance(median, (int, float)):
            case = str(b.get("fullname") or b.get("name", "")).split("::", 1)[-1]
            out.append(Number(case, "latency", median * 1e3, "ms"))
    return out


def for_case(case: str, props: Iterable[tuple[str, str]], stdout: str) -> list[Number]:
    """Recorded properties when the case has them, else what it printed."""
    nums = from_properties(case, props)
    return nums if nums else from_text(case, stdout)


def table(numbers: Sequence[Number]) -> list[str]:
    """Rows: case, latency, TFLOPS, bandwidth (first of each kind per case)."""
    cases: dict[str, dict[str, Number]] = {}
    for n in numbers:
        kind = _kind(n.name) if n.name not in ("latency", "tflops", "bandwidth") else (n.name, n.unit)
        key = kind[0] if kind else n.name
        cases.setdefault(n.case, {}).setdefault(key, n)
    if not cases:
        return []
    rows: list[tuple[str, ...]] = [("case", "latency", "TFLOPS", "bandwidth")]
    for case, kinds in cases.items():
        rows.append(
            (case, *(kinds[k].render() if k in kinds else "-" for k in ("latency", "tflops", "bandwidth")))
        )
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return [
        "  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)).rstrip()
        for r in rows
    ]
