"""BO5xx in-process: what the commit's own edits teach, weighed against the call's own function."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchop_hook.rules import decide
from benchop_hook.rules.facts import TemplateValue
from benchop_hook.rules.registry import REGISTRY
from benchop_hook.rules.verdicts import LeaveToRun, Prefer

# `n = math.prod(shape)`, the inputs `Case(shape, dtype)`, and the tests' `shape=(n,)`.
COUNTED = TemplateValue("shape", "(n,)", "n", "shape", "Case(shape, dtype)")

FIRES = [("BO501", COUNTED, Prefer)]
QUIET = [
    ("BO501", replace(COUNTED, counts=None, built_from=None)),  # `n` is the function's parameter
    ("BO501", replace(COUNTED, built_from=None)),  # nothing is built from the shape: the count is the input
    ("BO501", replace(COUNTED, value="(n, 4)", single=None)),  # not a one-element tuple of a name
]


@pytest.mark.parametrize("rule_id, facts, kind", FIRES, ids=[f[0] for f in FIRES])
def test_the_rule_decides(rule_id: str, facts: TemplateValue, kind: type) -> None:
    d = decide.template_value(facts)
    assert d is not None and isinstance(d.verdict, kind) and d.verdict.rule == rule_id


def test_the_shape_the_inputs_keep_comes_before_the_template() -> None:
    d = decide.template_value(COUNTED)
    assert d is not None and isinstance(d.verdict, Prefer)
    assert d.verdict.values == ("tuple(shape)", "(n,)")
    assert "Case(shape, dtype)" in d.verdict.note


@pytest.mark.parametrize("rule_id, facts", QUIET, ids=["a-parameter", "nothing-built", "not-one-element"])
def test_the_rule_stays_quiet(rule_id: str, facts: TemplateValue) -> None:
    assert REGISTRY[rule_id].check(facts) is None
    assert decide.template_value(facts) is None


def test_turned_off_it_leaves_the_call_to_the_run() -> None:
    d = decide.template_value(COUNTED, frozenset({"BO501"}))
    assert d is not None and isinstance(d.verdict, LeaveToRun) and d.verdict.rule == "BO501"
