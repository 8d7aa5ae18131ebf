"""docs/rules.md, generated from the registry: `python -m benchop_hook.rules.catalogue > docs/rules.md`."""

from __future__ import annotations

from benchop_hook.rules.decide import ORDERED
from benchop_hook.rules.registry import REGISTRY, Family


def render() -> str:
    lines = [
        "# Rules",
        "",
        "bench-op decides what becomes of a call by rules. Each rule listed here has an id, and a finding it",
        "decides names it: `[BO209]` at the end of a line in the terminal, `rule` and `trace` in the JSON. "
        "The",
        "rules are asked in the order shown, within each question; the first that answers decides.",
        "",
        "Turn a rule off as ruff does, in `pyproject.toml`:",
        "",
        "```toml",
        "[tool.bench-op]",
        'ignore = ["BO211"]',
        "```",
        "",
        "A rule turned off never lets a call be rewritten in its place: a call it would have decided is "
        "left to",
        'the run ("unknown: the run decides"). A *guard* keeps a rewrite from measuring something else.',
        "",
        "This page is generated from `benchop_hook/rules/` (`python -m benchop_hook.rules.catalogue`); the",
        "test suite fails when it is out of date.",
        "",
    ]
    for family in Family:
        rules = [REGISTRY[i] for i in ORDERED if REGISTRY[i].family is family]
        if not rules:
            continue
        lines += [f"## {family.value}xx {family.heading()}", ""]
        for r in rules:
            guard = " (guard)" if r.guard else ""
            lines += [
                f"### {r.id} {r.name}{guard}",
                "",
                r.summary,
                "",
                f"- Fires: {r.fires}",
                f"- Does not fire: {r.quiet}",
                f"- Motivated by: {r.motivated_by}",
                "",
            ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(render(), end="")
