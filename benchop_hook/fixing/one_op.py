"""`bench-op run --op NAME`: the run restricted to the calls of one Op class, as a coding-agent skill asks for
it by `op_name` (TileOPs' align-op hands bench-op one Op at a time)."""

from __future__ import annotations

from collections.abc import Sequence

from benchop_hook.analysis.changes import OpChange


def of_op(changes: Sequence[OpChange], name: str) -> tuple[OpChange, ...]:
    """The changes of the class called `name` before or after the change (so a renamed Op and its successor
    are one), and of the subclasses that only inherit its change. Pure."""
    mine = [c for c in changes if name in {r.name for r in (c.old, c.new) if r is not None}]
    bases = {c.new for c in mine if c.new is not None}
    return tuple(c for c in changes if c in mine or (c.via_base is not None and c.via_base in bases))
