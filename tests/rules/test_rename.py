"""BO6xx in-process: a parameter under a new name."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchop_hook.rules import decide
from benchop_hook.rules.facts import BodyRename, RenamedValue
from benchop_hook.rules.registry import REGISTRY
from benchop_hook.rules.verdicts import Hand, Rename

SYNC = BodyRename("use_sync", "sync", exact=True, same_default=True, same_annotation=True)
SCALE = RenamedValue("log_scale", "scale", "0.5", ("math.exp(log_scale)", "scale"))

FIRES = [("BO601", SYNC, Rename), ("BO602", SCALE, Hand)]
QUIET = [
    ("BO601", replace(SYNC, exact=False)),
    ("BO601", replace(SYNC, same_default=False)),
    ("BO601", replace(SYNC, same_annotation=False)),
    ("BO601", replace(SYNC, new="_sync")),
    ("BO602", replace(SCALE, transformed=None)),
]


def test_a_rename_the_body_shows_is_a_rename() -> None:
    d = decide.body_rename(SYNC)
    assert d is not None and isinstance(d.verdict, Rename) and d.verdict.rule == "BO601"


def test_a_rename_through_another_transform_is_asked_of_a_person() -> None:
    d = decide.renamed_value(SCALE)
    assert d is not None and isinstance(d.verdict, Hand) and d.verdict.rule == "BO602"


@pytest.mark.parametrize("rule_id, facts", QUIET, ids=["partial", "default", "type", "private", "plain"])
def test_the_rule_stays_quiet(rule_id: str, facts: object) -> None:
    assert REGISTRY[rule_id].check(facts) is None
