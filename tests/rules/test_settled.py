"""The rules that answer one finding of the evidence each (rules/settled.py), in-process: each answers its own
kind of finding with its verdict, and stays quiet for any other; and the planner asks them where it settles a
value, a keyword or a refusal of its own."""

from __future__ import annotations

import ast
from collections.abc import Callable

import pytest

from benchop_hook.analysis.callsites import Arg
from benchop_hook.analysis.edits import diff
from benchop_hook.analysis.signatures import from_function
from benchop_hook.fixing.plan import NoPlan, Plan, Value
from benchop_hook.fixing.planner import CallEvidence, plan
from benchop_hook.rules import decide
from benchop_hook.rules.facts import Found, Settled
from benchop_hook.rules.registry import REGISTRY
from benchop_hook.rules.verdicts import Hand, Keep, LeaveToRun, Pin, Rename

# rule -> (what it answers, the verdict it gives)
ANSWERS: dict[str, tuple[Found, type]] = {
    "BO102": (Found.OPAQUE_BINDING, LeaveToRun),
    "BO103": (Found.UNREADABLE, LeaveToRun),
    "BO104": (Found.AUTHORED_BROKEN, Hand),
    "BO105": (Found.PARTIAL_BROKEN, Hand),
    "BO106": (Found.CLASSES_DISAGREE, Hand),
    "BO107": (Found.NO_EDIT_BINDS, Hand),
    "BO108": (Found.THROUGH_VARARGS, Hand),
    "BO109": (Found.POSITIONAL_ONLY, Hand),
    "BO110": (Found.HISTORY_SILENT, Hand),
    "BO111": (Found.NOT_WRITTEN, Hand),
    "BO112": (Found.BY_KEYWORD, Keep),
    "BO304": (Found.NO_VALUE, Hand),
    "BO305": (Found.CONTESTED, Hand),
    "BO306": (Found.FROM_TESTS, Pin),
    "BO307": (Found.NAMED_BY_TESTS, Pin),
    "BO510": (Found.TEMPLATE_ALSO_CHANGES, Hand),
    "BO511": (Found.TEMPLATE_CODE, Hand),
    "BO512": (Found.CHOICE_NOT_SHOWN, Hand),
    "BO513": (Found.HALF_EDIT, Hand),
    "BO514": (Found.FIELDS_OF_A_PARAMETER, Hand),
    "BO515": (Found.RETYPED, Hand),
    "BO516": (Found.OVERWRITTEN, Hand),
    "BO517": (Found.AS_THE_COMMIT_SHOWS, Pin),
    "BO603": (Found.SIGNATURE_RENAME, Rename),
    "BO704": (Found.CLASS_REMOVED, Hand),
    "BO705": (Found.IMPORT_OF_REMOVED, Hand),
    "BO706": (Found.CLASS_RENAMED, Rename),
    "BO707": (Found.SUCCESSOR_UNREADABLE, LeaveToRun),
    "BO708": (Found.SUCCESSOR_SLOT, Hand),
    "BO709": (Found.MEMBER_GONE, Hand),
    "BO710": (Found.IMPORT_FROM_MOVED, Hand),
    "BO711": (Found.ROUTED, Keep),
    "BO712": (Found.SEVERAL_ROUTES, Hand),
    "BO713": (Found.BY_ELIMINATION, Rename),
}


def _other(found: Found) -> Found:
    kinds = list(Found)
    return kinds[(kinds.index(found) + 1) % len(kinds)]


FIRES = [(rule_id, Settled(found, "said", "p", "v"), kind) for rule_id, (found, kind) in ANSWERS.items()]
QUIET = [(rule_id, Settled(_other(found), "said")) for rule_id, (found, _) in ANSWERS.items()]


def test_every_kind_of_finding_has_its_rule() -> None:
    assert sorted(f for f, _ in ANSWERS.values()) == sorted(Found)
    assert set(ANSWERS) == set(decide.SETTLED)


@pytest.mark.parametrize("rule_id, facts, kind", FIRES, ids=[r for r, _, _ in FIRES])
def test_the_rule_decides(rule_id: str, facts: Settled, kind: type) -> None:
    v = decide.settled(facts).verdict
    assert isinstance(v, kind) and v.rule == rule_id
    assert "turned off" not in str(getattr(v, "reason", "")), v
    # A rule that reports is a guard: turned off, the call goes to the run, never to a rewrite.
    assert REGISTRY[rule_id].guard is (kind is Hand)
    off = decide.settled(facts, frozenset({rule_id})).verdict
    assert isinstance(off, LeaveToRun) and off.rule == rule_id and "turned off" in off.reason


@pytest.mark.parametrize("rule_id, facts", QUIET, ids=[r for r, _ in QUIET])
def test_the_rule_stays_quiet(rule_id: str, facts: Settled) -> None:
    assert REGISTRY[rule_id].check(facts) is None


def _sig(src: str):
    return from_function(ast.parse(f"def f(self, {src}): pass").body[0])


def _args(call_src: str) -> tuple[Arg, ...]:
    call = ast.parse(call_src, mode="eval").body
    assert isinstance(call, ast.Call)
    out = [Arg("pos", None, ast.unparse(a)) for a in call.args]
    return tuple(out + [Arg("kw", k.arg, ast.unparse(k.value)) for k in call.keywords if k.arg])


def _none(name: str) -> Value:
    return Value(None, "no evidence")


def _plan(
    call: str,
    old: str,
    new: str,
    value_for: Callable[[str], Value] = _none,
    off: frozenset[str] = frozenset(),
) -> Plan | NoPlan:
    o, n = _sig(old), _sig(new)
    return plan(_args(call), (o, n, tuple(diff(o, n))), CallEvidence(value_for, off=off))


@pytest.mark.parametrize(
    "call, old, new, value_for, rule",
    [
        pytest.param("Op(m, n, d)", "m, n, d", "m, k, n, d", _none, "BO304", id="no-value"),
        pytest.param(
            "Op(m, n, d)", "m, n, d", "m, k, n, d", lambda p: Value("k", "in scope"), "BO306", id="from-scope"
        ),
        pytest.param(
            "Op(m, n, d)",
            "m, n, d",
            "m, k, n, d",
            lambda p: Value("(m,)", "as the tests changed it", shown=True),
            "BO517",
            id="as-the-commit-shows",
        ),
        pytest.param("Op(m, n, d)", "m, n, d", "m, n, c=1, d=2", _none, "BO112", id="by-keyword"),
        pytest.param("Op(m, hidden=h)", "m, hidden", "m, dim", _none, "BO603", id="signature-rename"),
        pytest.param("Op(m, n)", "m, n", "n, m, /", _none, "BO109", id="positional-only"),
    ],
)
def test_the_planner_asks_the_rule(
    call: str, old: str, new: str, value_for: Callable[[str], Value], rule: str
) -> None:
    p = _plan(call, old, new, value_for)
    assert rule in p.trace
    if isinstance(p, NoPlan):
        assert p.rule == rule
    # Turned off, the same call is the run's, whatever the rule would have said.
    off = _plan(call, old, new, value_for, frozenset({rule}))
    assert isinstance(off, NoPlan) and off.to_run and off.rule == rule


def test_a_rewrite_is_named_by_what_changed_not_by_what_carried() -> None:
    assert decide.deciding(("BO211", "BO112")) == "BO211"
    assert decide.deciding(("BO112",)) == "BO112"
    assert decide.deciding(()) is None


@pytest.mark.parametrize("rule_id", ["BO104", "BO105", "BO704", "BO705", "BO707", "BO709"])
def test_a_rule_that_owns_its_sentence_says_it(rule_id: str) -> None:
    found, _ = ANSWERS[rule_id]
    v = decide.settled(Settled(found)).verdict
    assert isinstance(v, (Hand, LeaveToRun)) and v.rule == rule_id, v
    assert "by hand" in v.reason or "left to the run" in v.reason, v
