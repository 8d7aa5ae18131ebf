"""BO3xx in-process: a parameter the call must now pass."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchop_hook.rules import decide
from benchop_hook.rules.facts import RequiredNow
from benchop_hook.rules.registry import REGISTRY
from benchop_hook.rules.verdicts import Hand, Pin

DIM = RequiredNow("dim", "-1", False, True, True, False)

MODE = RequiredNow("mode", None, False, False, True, False, introduced='"reduce-overhead"')

NONE = RequiredNow("data_range", "None", False, True, True, False)

FIRES = [("BO301", DIM, Pin), ("BO302", MODE, Pin), ("BO303", NONE, Hand)]
QUIET = [
    ("BO301", replace(DIM, param="ctx", old_default="None")),
    ("BO301", replace(DIM, variable_in_scope=True)),
    ("BO301", replace(DIM, old_default="Mode.FAST", names_in_scope=False)),
    ("BO301", replace(DIM, old_default="make()", constant=False)),
    ("BO301", replace(DIM, passed_before=True)),
    ("BO301", replace(DIM, old_default=None)),
    ("BO302", replace(MODE, introduced=None)),
    ("BO302", replace(MODE, variable_in_scope=True)),
    ("BO303", DIM),
    ("BO303", replace(NONE, passed_before=True)),
]


@pytest.mark.parametrize("rule_id, facts, kind", FIRES, ids=[f[0] for f in FIRES])
def test_the_rule_decides(rule_id: str, facts: RequiredNow, kind: type) -> None:
    d = decide.required_now(facts)
    assert d is not None and isinstance(d.verdict, kind) and d.verdict.rule == rule_id


def test_the_value_the_call_got_before_is_kept() -> None:
    for facts in (DIM, MODE):
        d = decide.required_now(facts)
        assert d is not None and isinstance(d.verdict, Pin)
        assert d.verdict.value == (facts.old_default or facts.introduced)


@pytest.mark.parametrize(
    "rule_id, facts",
    QUIET,
    ids=[
        "none",
        "variable",
        "names",
        "call",
        "passed",
        "none-at-all",
        "no-literal",
        "variable-of-its-name",
        "not-none",
        "passed-before",
    ],
)
def test_no_value_is_kept(rule_id: str, facts: RequiredNow) -> None:
    assert REGISTRY[rule_id].check(facts) is None
