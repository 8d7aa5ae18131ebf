"""The order of evidence for the values the commit's template gives one call: what the call's own function
holds before the template (rules/template.py), each rank a complete set of values for the call. The first
rank is what the static pass writes; the others travel with the fix (`Plan.alternatives`) for the run to try
when the first one fails at the call (run/candidates.py)."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

from benchop_hook.analysis.callsites import CallSite
from benchop_hook.analysis.counts import element_count
from benchop_hook.analysis.meaning import Value
from benchop_hook.rules import decide
from benchop_hook.rules.facts import TemplateValue
from benchop_hook.rules.verdicts import LeaveToRun, Prefer


@dataclass(frozen=True)
class Ranks:
    """The template's values for one call, in the order to try them: `ranks[0]` is written first."""

    ranks: tuple[Mapping[str, Value], ...]
    trace: tuple[str, ...] = ()  # the rules that ordered them


def ranked(
    values: Mapping[str, Value], site: CallSite, data: bytes | None, off: frozenset[str]
) -> Ranks | LeaveToRun:
    """The template's `values` for the call at `site`, ranked by the rules against the call's function
    (`data`: the benchmark's source; None: only the template is known)."""
    if data is None:
        return Ranks((values,))
    by_param: dict[str, tuple[Value, ...]] = {}
    trace: list[str] = []
    for param, v in values.items():
        by_param[param] = (v,)
        if not v.shown or v.source is None:
            continue
        decision = decide.template_value(_question(param, v.source, site, data), off)
        if decision is None:
            continue
        verdict = decision.verdict
        if isinstance(verdict, LeaveToRun):
            return verdict
        assert isinstance(verdict, Prefer)
        trace.extend(decision.trace)
        by_param[param] = tuple(
            Value(src, verdict.note if k == 0 else v.reason, shown=True)
            for k, src in enumerate(verdict.values)
        )
    depth = max((len(vs) for vs in by_param.values()), default=1)
    ranks = tuple({p: vs[min(k, len(vs) - 1)] for p, vs in by_param.items()} for k in range(depth))
    return Ranks(ranks, tuple(dict.fromkeys(trace)))


def _question(param: str, value: str, site: CallSite, data: bytes) -> TemplateValue:
    single = _one_element(value)
    count = element_count(data, site.lineno, single) if single and single in site.scope_names else None
    counted = count is not None and count.of in site.scope_names
    return TemplateValue(
        param,
        value,
        single,
        count.shape if count is not None and counted else None,
        count.built if count is not None and counted else None,
    )


def _one_element(src: str) -> str | None:
    """`v` when `src` is the one-element tuple `(v,)` of a plain name."""
    try:
        node = ast.parse(src.strip(), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Tuple) and len(node.elts) == 1 and isinstance(node.elts[0], ast.Name):
        return node.elts[0].id
    return None
