"""BO7xx in-process: a value the change moved elsewhere."""

from __future__ import annotations

import pytest

from benchop_hook.rules import decide
from benchop_hook.rules.facts import MovedOut
from benchop_hook.rules.registry import REGISTRY
from benchop_hook.rules.verdicts import Hand

CTOR = MovedOut("to-constructor", "'max_new_tokens' moved from this method to Generator's constructor")
REFUSED = MovedOut("refused-now", "the constructor now refuses 'config', which it required before")
ELSEWHERE = MovedOut("required-elsewhere", "'is_built_on_rank' is now a required parameter of Builder's")

FIRES = [("BO701", CTOR, Hand), ("BO702", REFUSED, Hand), ("BO703", ELSEWHERE, Hand)]
QUIET = [("BO701", REFUSED), ("BO702", ELSEWHERE), ("BO703", CTOR)]


@pytest.mark.parametrize("rule_id, facts, kind", FIRES, ids=[f[0] for f in FIRES])
def test_the_rule_decides(rule_id: str, facts: MovedOut, kind: type) -> None:
    d = decide.moved_out(facts)
    assert d is not None and isinstance(d.verdict, kind) and d.verdict.rule == rule_id
    assert d.verdict.reason == facts.reason


@pytest.mark.parametrize("rule_id, facts", QUIET, ids=[f[0] for f in QUIET])
def test_the_rule_stays_quiet(rule_id: str, facts: MovedOut) -> None:
    assert REGISTRY[rule_id].check(facts) is None
