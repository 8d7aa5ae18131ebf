"""The catalogue itself: every rule documented, ordered in one place, with a case where it fires and one where
it does not; docs/rules.md as the registry renders it; every rule a finding names is registered."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchop_hook.rules import decide
from benchop_hook.rules.catalogue import render
from benchop_hook.rules.registry import REGISTRY, Family
from tests.rules import (
    test_binding,
    test_drop,
    test_fill,
    test_move,
    test_pin,
    test_rename,
    test_settled,
    test_template,
)

TABLES = (test_binding, test_drop, test_fill, test_move, test_pin, test_rename, test_settled, test_template)
ROOT = Path(__file__).resolve().parents[2]


def test_every_rule_says_what_it_is_for() -> None:
    for r in REGISTRY.values():
        assert r.summary and r.motivated_by and r.fires and r.quiet, r.id
        assert re.fullmatch(r"BO[1-7]\d\d", r.id) and r.family is Family(r.id[:3]), r.id
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", r.name), r.id


def test_one_place_orders_every_rule_once() -> None:
    assert sorted(decide.ORDERED) == sorted(REGISTRY)
    assert len(set(decide.ORDERED)) == len(decide.ORDERED)


@pytest.mark.parametrize("table", ["FIRES", "QUIET"])
def test_every_rule_has_a_case_where_it_fires_and_one_where_it_does_not(table: str) -> None:
    covered = {row[0] for module in TABLES for row in getattr(module, table)}
    # The last rule of a question answers whatever reaches it: it has no quiet case of its own.
    always = {"BO211", "BO408"} if table == "QUIET" else set()
    assert set(REGISTRY) - always <= covered, sorted(set(REGISTRY) - always - covered)
    assert covered <= set(REGISTRY), sorted(covered - set(REGISTRY))


def test_the_docs_list_every_rule_as_the_registry_says() -> None:
    assert (ROOT / "docs" / "rules.md").read_text() == render(), (
        "docs/rules.md is out of date: python -m benchop_hook.rules.catalogue > docs/rules.md"
    )


def test_an_unknown_rule_in_ignore_is_a_config_error() -> None:
    from benchop_hook.errors import ConfigError

    with pytest.raises(ConfigError, match=r"names no rule BO299 \(did you mean BO209\?\)"):
        decide.turned_off(["BO299"])
