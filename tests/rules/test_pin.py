"""BO4xx in-process: a changed default the call relies on -> pinned, noted, or asked of a person."""

from __future__ import annotations

import pytest

from benchop_hook.rules import decide
from benchop_hook.rules.facts import ChangedDefault
from benchop_hook.rules.registry import REGISTRY
from benchop_hook.rules.verdicts import Hand, Keep, LeaveToRun, Note, Pin


class Answers:
    """What the class bodies, the benchmark and the tests say, as plain values; and which were asked."""

    def __init__(self, **given: object) -> None:
        self.given = given
        self.asked: tuple[str, ...] = ()

    def _get(self, what: str, default: object = None) -> object:
        self.asked += (what,)
        return self.given.get(what, default)

    def meant_by_none(self) -> str | None:
        return self._get("meant")  # type: ignore[return-value]  # the table's value

    def same_meaning(self) -> bool:
        return bool(self._get("same", False))

    def not_pinnable(self) -> str | None:
        return self._get("not_pinnable")  # type: ignore[return-value]  # the table's value

    def rejected_now(self) -> str | None:
        return self._get("rejected")  # type: ignore[return-value]  # the table's value

    def swapped(self) -> str | None:
        return self._get("swap")  # type: ignore[return-value]  # the table's value

    def adopted(self) -> str | None:
        return self._get("adopt")  # type: ignore[return-value]  # the table's value

    def by_hand(self) -> str | None:
        return self._get("hand")  # type: ignore[return-value]  # the table's value


def changed(**kw: object) -> ChangedDefault:
    return ChangedDefault("mode", "Mode.FAST", "Mode.SLOW", Answers(**kw))


FIRES = [
    ("BO401", changed(same=True), Keep),
    ("BO402", changed(not_pinnable="not pinned: the old default is not a constant"), Note),
    ("BO403", changed(rejected="not pinned: the new class refuses it"), Note),
    ("BO404", changed(swap="not pinned: the tests swap the values"), Note),
    ("BO405", changed(adopt="tests/test_op.py:3: Mode.FAST -> Mode.SLOW"), Note),
    ("BO406", changed(meant="torch.device('cuda')"), Hand),
    (
        "BO407",
        changed(hand="not pinned: Mode is not imported in the benchmark; pin mode=Mode.FAST by hand"),
        Hand,
    ),
    ("BO408", changed(), Pin),
]

QUIET = [
    ("BO401", changed()),
    ("BO402", changed(rejected="refused")),
    ("BO403", changed()),
    ("BO404", changed()),
    ("BO405", changed()),
    ("BO406", changed(hand="pin by hand")),
    ("BO407", changed()),
]


@pytest.mark.parametrize("rule_id, facts, kind", FIRES, ids=[f[0] for f in FIRES])
def test_the_rule_decides(rule_id: str, facts: ChangedDefault, kind: type) -> None:
    v = decide.changed_default(facts).verdict
    assert isinstance(v, kind) and v.rule == rule_id, v


@pytest.mark.parametrize("rule_id, facts", QUIET, ids=[f[0] for f in QUIET])
def test_the_rule_stays_quiet(rule_id: str, facts: ChangedDefault) -> None:
    assert REGISTRY[rule_id].check(facts) is None
    assert decide.changed_default(facts).verdict.rule != rule_id


def test_the_old_default_is_pinned_with_its_value() -> None:
    v = decide.changed_default(changed()).verdict
    assert isinstance(v, Pin) and (v.param, v.value) == ("mode", "Mode.FAST")


def test_evidence_is_asked_lazily_and_once() -> None:
    # The first answer settles most calls: nothing after it is worked out.
    ans = Answers(same=True)
    decide.changed_default(ChangedDefault("mode", "a", "b", ans))
    assert ans.asked == ("same",)


def test_a_hand_pin_turned_off_is_left_to_the_run_never_pinned() -> None:
    v = decide.changed_default(changed(hand="pin it by hand"), frozenset({"BO407"})).verdict
    assert isinstance(v, LeaveToRun)
