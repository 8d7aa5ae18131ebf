"""One Op change's edits as the reports say them: edits of one kind said once, for all their parameters.

Read from the edits' JSON form (`Edit.as_json()`), so that the terminal report and the reports read back
from JSON (GitHub annotations, the Markdown summary) say the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# Edit kinds said once for all their parameters: a parameter list made keyword-only, or cut down, reads as
# one change, not one line per parameter.
_TOGETHER = {
    "removed": "{names} removed",
    "added_required": "{names} added (required)",
    "kind_changed": "{names} are now {new} (were {old})",
}


def names(items: list[str]) -> str:
    """'a', 'a' and 'b', 'a', 'b' and 'c'."""
    quoted = [f"'{n}'" for n in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _key(e: Mapping[str, object]) -> tuple[object, ...] | None:
    kind = e.get("kind")
    if kind not in _TOGETHER:
        return None
    if kind == "kind_changed":
        return (kind, e.get("old_kind"), e.get("new_kind"))
    return (kind,)


def edit_phrases(edits: Iterable[Mapping[str, object]]) -> list[str]:
    """Each edit's phrase, in order; edits of one kind (and, for a kind change, from and to the same kinds)
    joined into one phrase where the first of them stood."""
    order: list[tuple[object, ...] | str] = []
    together: dict[tuple[object, ...], list[Mapping[str, object]]] = {}
    for e in edits:
        key = _key(e)
        if key is None:
            order.append(str(e.get("text", "")))
        else:
            if key not in together:
                order.append(key)
            together.setdefault(key, []).append(e)
    out: list[str] = []
    for item in order:
        if isinstance(item, str):
            out.append(item)
            continue
        group = together[item]
        if len(group) == 1:
            out.append(str(group[0].get("text", "")))
            continue
        first = group[0]
        out.append(
            _TOGETHER[str(first["kind"])].format(
                names=names([str(e.get("name", "?")) for e in group]),
                new=first.get("new_kind", "?"),
                old=first.get("old_kind", "?"),
            )
        )
    return out


def edits_text(edits: Iterable[Mapping[str, object]]) -> str:
    """One line's worth: the phrases joined."""
    return "; ".join(edit_phrases(edits))
