"""Small helpers every rendering shares."""

from __future__ import annotations

from benchop_hook.analysis.changes import OpChange
from benchop_hook.fixing.results import StaticResult


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 'es' if word.endswith('s') else 's'}"


def grouped(result: StaticResult) -> list[tuple[OpChange, list[OpChange]]]:
    """Each change, with the subclasses that only inherit it listed under their base."""
    by_new = {c.new: c for c in result.changes if c.new is not None}
    children: dict[object, list[OpChange]] = {}
    top = []
    for c in result.changes:
        base = by_new.get(c.via_base) if c.via_base is not None else None
        if (
            base is not None
            and base is not c
            and base.edits == c.edits
            and not c.methods
            and c.status == "changed"
        ):
            children.setdefault(base.new, []).append(c)
        else:
            top.append(c)
    return [(c, children.get(c.new, [])) for c in top]
