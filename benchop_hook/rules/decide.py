"""The one place that orders the rules: each question's rules are asked in the order below, and the first
verdict decides. A turned-off rule that would have decided leaves the call to the run instead, so that turning
off a guard never lets a call be rewritten in its place."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from benchop_hook.errors import ConfigError
from benchop_hook.rules import binding, drop, fill, move, pin, rename, template  # noqa: F401  (importing them registers their rules)
from benchop_hook.rules.facts import (
    BodyRename,
    BoundBefore,
    ChangedDefault,
    MovedOut,
    RemovedValue,
    RenamedValue,
    RequiredNow,
    Settled,
    TemplateValue,
)
from benchop_hook.rules.registry import REGISTRY
from benchop_hook.rules.verdicts import Contest, Drop, Hand, Keep, LeaveToRun, Note, Pin, Prefer, Verdict

# The guards come before the drops: a value is dropped only once no rule says what it chose or fed.
# A value the parameter took anyway goes; then what the body says of the value (a constant, a config, a
# transform) comes before what the value's form and the signatures suggest.
REMOVED_VALUE = (
    "BO205",
    "BO212",
    "BO213",
    "BO214",
    "BO202",
    "BO203",
    "BO204",
    "BO206",
    "BO207",
    "BO208",
    "BO209",
    "BO210",
    "BO211",
)
# What the slot gives is asked first, beside the rest: a contested value is still dropped from its old place.
SLOT = "BO201"
# A default that means the same is no change at all; the reasons not to pin come before the pin.
CHANGED_DEFAULT = ("BO401", "BO402", "BO403", "BO404", "BO405", "BO406", "BO407", "BO408")
# The old value first (the same parameter, once optional; a None it relied on is a person's to replace), then
# the literal a new parameter replaced.
REQUIRED_NOW = ("BO301", "BO303", "BO302")
# What the call's own function holds comes before the template's value (both guesses a run confirms).
TEMPLATE_VALUE = ("BO501",)
BODY_RENAME = ("BO601",)
RENAMED_VALUE = ("BO602",)

BINDING = ("BO101",)
MOVED_OUT = ("BO701", "BO702", "BO703")
# Each of these answers one kind of finding (`facts.Found`) and nothing else: their order can't change an
# answer. They are listed by family.
SETTLED = (
    *(f"BO{i}" for i in range(102, 113)),
    "BO304",
    "BO305",
    "BO306",
    "BO307",
    *(f"BO{i}" for i in range(510, 518)),
    "BO603",
    *(f"BO{i}" for i in range(704, 714)),
)
# Rules that carry a value as it is (by keyword, under a renamed keyword): a rewrite is named by the rule
# that decided what changed, and by these only when nothing else did.
CARRIERS = frozenset({"BO112", "BO603"})
ORDERED = (
    *BINDING,
    *MOVED_OUT,
    *SETTLED,
    SLOT,
    *REMOVED_VALUE,
    *REQUIRED_NOW,
    *CHANGED_DEFAULT,
    *TEMPLATE_VALUE,
    *BODY_RENAME,
    *RENAMED_VALUE,
)


@dataclass(frozen=True)
class Decision:
    """What the rules said of one question: the verdicts that fired, in order; the last one decides."""

    verdicts: tuple[Verdict, ...]

    @property
    def verdict(self) -> Verdict:
        return self.verdicts[-1]

    @property
    def trace(self) -> tuple[str, ...]:
        return tuple(v.rule for v in self.verdicts)


# Rules the mutation script (`.ci/disable_each_rule.py`) turns off, one per test run, to show that some test
# fails without each rule: read once, since every run is a process of its own.
_DISABLED = frozenset(i.strip() for i in os.environ.get("BENCHOP_DISABLE_RULE", "").split(",") if i.strip())


def turned_off(ignore: Iterable[str] = ()) -> frozenset[str]:
    """The rules `[tool.bench-op] ignore` turns off, each checked against the registry."""
    off = frozenset(ignore)
    unknown = sorted(off - REGISTRY.keys())
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], list(REGISTRY), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ConfigError(
            f"[tool.bench-op] ignore names no rule {unknown[0]}{hint}: docs/rules.md lists the rules; fix "
            "it in "
            "pyproject.toml."
        )
    return off


def _ask(rule_id: str, facts: object, off: frozenset[str]) -> Verdict | None:
    rule = REGISTRY[rule_id]
    v: Verdict | None = rule.check(facts)
    if v is None or (rule_id not in off and rule_id not in _DISABLED):
        return v
    return LeaveToRun(
        rule_id,
        f"unknown: the run decides (rule {rule_id}, {rule.name}, is turned off in [tool.bench-op] ignore)",
    )


def _first(order: Iterable[str], facts: object, off: frozenset[str]) -> Verdict | None:
    for rule_id in order:
        v = _ask(rule_id, facts, off)
        if v is not None:
            return v
    return None


def removed_value(f: RemovedValue, off: frozenset[str] = frozenset()) -> Decision:
    """Drop the value, or why not; with the slot's question beside it when a new parameter took the slot."""
    slot = _ask(SLOT, f, off)
    if isinstance(slot, LeaveToRun):
        return Decision((slot,))
    v = _first(REMOVED_VALUE, f, off)
    assert v is not None  # BO211 always answers
    return Decision(((slot,) if slot is not None else ()) + (v,))


def changed_default(f: ChangedDefault, off: frozenset[str] = frozenset()) -> Decision:
    v = _first(CHANGED_DEFAULT, f, off)
    assert v is not None  # BO408 always answers
    return Decision((v,))


def bound_before(f: BoundBefore, off: frozenset[str] = frozenset()) -> Decision | None:
    v = _first(BINDING, f, off)
    return Decision((v,)) if v is not None else None


def deciding(trace: tuple[str, ...]) -> str | None:
    """The rule a rewrite is named by: the last in its trace that changed something, else the last."""
    return next((r for r in reversed(trace) if r not in CARRIERS), trace[-1] if trace else None)


def settled(f: Settled, off: frozenset[str] = frozenset()) -> Decision:
    """What becomes of a call, or of one value, once the evidence found `f.found`: one rule answers it."""
    v = _first(SETTLED, f, off)
    assert v is not None, f.found  # every kind of finding has its rule
    return Decision((v,))


def moved_out(f: MovedOut, off: frozenset[str] = frozenset()) -> Decision | None:
    v = _first(MOVED_OUT, f, off)
    return Decision((v,)) if v is not None else None


def body_rename(f: BodyRename, off: frozenset[str] = frozenset()) -> Decision | None:
    v = _first(BODY_RENAME, f, off)
    return Decision((v,)) if v is not None else None


def renamed_value(f: RenamedValue, off: frozenset[str] = frozenset()) -> Decision | None:
    v = _first(RENAMED_VALUE, f, off)
    return Decision((v,)) if v is not None else None


def template_value(f: TemplateValue, off: frozenset[str] = frozenset()) -> Decision | None:
    """Candidates ranked before the template's value, or None: the template's value stands alone."""
    v = _first(TEMPLATE_VALUE, f, off)
    return Decision((v,)) if v is not None else None


def required_now(f: RequiredNow, off: frozenset[str] = frozenset()) -> Decision | None:
    """The old default, or None: the evidence (the tests, the scope) is asked next."""
    v = _first(REQUIRED_NOW, f, off)
    return Decision((v,)) if v is not None else None


__all__ = [
    "Contest",
    "Decision",
    "Drop",
    "Hand",
    "Keep",
    "LeaveToRun",
    "Note",
    "Pin",
    "Prefer",
    "body_rename",
    "bound_before",
    "changed_default",
    "deciding",
    "moved_out",
    "removed_value",
    "renamed_value",
    "required_now",
    "settled",
    "template_value",
    "turned_off",
]
