"""The catalogue of bench-op's decision rules: each has an id, a family, a one-line principle and the real
commit that motivated it, as ruff's rules have codes. Rules register here; `decide.py` alone orders them.

A rule is a pure function from a frozen question (`facts.py`) to a verdict (`verdicts.py`) or None when it
does not apply. A rule marked `guard` keeps a wrong rewrite from happening: turning it off (`ignore`, or
`BENCHOP_DISABLE_RULE` for the mutation script) never lets the call be rewritten in its place; the call is
left to the run instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar


class Family(str, Enum):
    """Each family's ids share a hundred: BO2xx are the drop rules, and so on."""

    BINDING = "BO1"
    DROP = "BO2"
    FILL = "BO3"
    PIN = "BO4"
    TEMPLATE = "BO5"
    RENAME = "BO6"
    MOVE = "BO7"

    def heading(self) -> str:
        return {
            "BO1": "binding: what a call's arguments reach",
            "BO2": "drop: a value passed for a parameter the change removed",
            "BO3": "fill: a value for a parameter the call must now pass",
            "BO4": "pin: a changed default the call relies on",
            "BO5": "template: what the commit's own edits teach",
            "BO6": "rename: a parameter or class under a new name",
            "BO7": "move: a value the change moved elsewhere",
        }[self.value]


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    family: Family
    summary: str  # the principle, one line
    motivated_by: str  # the real commit (library and sha) that showed the need
    fires: str  # an example where it fires, as the docs show it
    quiet: str  # a near example where it does not
    guard: bool
    check: Callable[[Any], Any]


REGISTRY: dict[str, Rule] = {}

F = TypeVar("F", bound=Callable[..., Any])


def rule(
    id: str,
    name: str,
    *,
    summary: str,
    motivated_by: str,
    fires: str,
    quiet: str,
    guard: bool = False,
) -> Callable[[F], F]:
    """Register the decorated function as rule `id` (its family is the id's hundred)."""
    family = Family(id[:3])

    def register(fn: F) -> F:
        if id in REGISTRY:
            raise ValueError(f"rule {id} registered twice")
        REGISTRY[id] = Rule(id, name, family, summary, motivated_by, fires, quiet, guard, fn)
        return fn

    return register
