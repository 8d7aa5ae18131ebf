"""BO1xx in-process: what a call's arguments reach, before and after the change."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchop_hook.rules import decide
from benchop_hook.rules.facts import BoundBefore
from benchop_hook.rules.registry import REGISTRY
from benchop_hook.rules.verdicts import LeaveToRun, Note

STALE = BoundBefore(False, "got an unexpected keyword argument 'logging_dir'", None)

FIRES = [("BO101", STALE, Note), ("BO101", replace(STALE, guard="if TRACKING"), LeaveToRun)]
QUIET = [("BO101", replace(STALE, bound_before=True))]


@pytest.mark.parametrize("rule_id, facts, kind", FIRES, ids=["broken-before", "guarded"])
def test_the_rule_decides(rule_id: str, facts: BoundBefore, kind: type) -> None:
    d = decide.bound_before(facts)
    assert d is not None and isinstance(d.verdict, kind) and d.verdict.rule == rule_id


@pytest.mark.parametrize("rule_id, facts", QUIET)
def test_the_rule_stays_quiet(rule_id: str, facts: BoundBefore) -> None:
    assert REGISTRY[rule_id].check(facts) is None
