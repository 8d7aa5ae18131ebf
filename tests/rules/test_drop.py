"""BO2xx in-process: a value passed for a removed parameter -> the verdict of the decision core, and the rule
that gave it. `FIRES` is each rule's case where it decides; `QUIET`, a near case where it does not."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchop_hook.rules import decide
from benchop_hook.rules.facts import Moved, MovedTo, RemovedValue
from benchop_hook.rules.registry import REGISTRY
from benchop_hook.rules.verdicts import Contest, Drop, Hand, LeaveToRun

PLAIN = RemovedValue(
    index=0,
    param="eps",
    source="1e-5",
    keyword=True,
    old_default=False,
    choice=False,
    varies=None,
    function=False,
    tests_drop_it=False,
    slot_taken_by=None,
    by_position_only=False,
    moved=None,
    namesake=None,
)


def rv(**kw: object) -> RemovedValue:
    return replace(PLAIN, **kw)  # type: ignore[arg-type]  # the table's fields are RemovedValue's


# (rule id, facts, the verdict's class)
FIRES = [
    ("BO201", rv(param="M", source="4", keyword=False, slot_taken_by="shape"), Contest),
    ("BO202", rv(param="fused", source="True", choice=True), Hand),
    ("BO203", rv(param="strategy", source="strategy", varies="its value varies across the cases"), Hand),
    ("BO204", rv(param="arg_func", source="my_inputs", function=True), Hand),
    ("BO205", rv(source="1e-6", old_default=True, moved=MovedTo(Moved.FORGOTTEN)), Drop),
    ("BO206", rv(param="config", source="cfg", moved=MovedTo(Moved.BUILT_FROM, "ctx")), Hand),
    ("BO207", rv(param="edge_dim", source="4", moved=MovedTo(Moved.PART_OF, "lin_edge")), Hand),
    ("BO208", rv(param="seed", source="1", moved=MovedTo(Moved.ELSEWHERE, "build(seed=...)")), Hand),
    ("BO209", rv(moved=MovedTo(Moved.FORGOTTEN)), Hand),
    ("BO210", rv(param="edge_feature", source="e", namesake="edge_attr"), Hand),
    ("BO211", rv(param="M", source="M", keyword=False), Drop),
    ("BO212", rv(replaced_by="1e-6"), Hand),
    ("BO213", rv(param="timeout", source="30", folded_into="cfg.timeout"), Hand),
    (
        "BO214",
        rv(param="log_scale", source="0.5", transformed=("scale", "math.exp(log_scale)", "scale")),
        Hand,
    ),
]

# (rule id, facts where that rule does not answer)
QUIET = [
    ("BO201", rv(param="bias", source="True", choice=True, slot_taken_by="dilation")),
    ("BO202", rv(param="fused", source="True", choice=True, tests_drop_it=True)),
    ("BO203", rv(param="strategy", source="'direct'", varies="varies", tests_drop_it=True)),
    ("BO204", rv(param="arg_func", source="f", function=True, keyword=False, slot_taken_by="shape")),
    ("BO205", rv(source="1e-5")),
    ("BO206", rv(moved=MovedTo(Moved.PART_OF, "lin"))),
    ("BO207", rv(moved=MovedTo(Moved.BUILT_FROM, "ctx"))),
    ("BO208", rv(moved=MovedTo(Moved.FORGOTTEN))),
    ("BO209", rv(moved=MovedTo(Moved.FORGOTTEN), slot_taken_by="scale")),
    ("BO210", rv(param="edge_feature", source="e", keyword=False, namesake="edge_attr")),
    ("BO212", rv(param="M", source="M", keyword=False, replaced_by="None")),
    ("BO213", rv(param="timeout", source="30")),
    ("BO214", rv(param="log_scale", source="0.5")),
]


def test_the_constant_itself_is_dropped() -> None:
    d = decide.removed_value(rv(source="1e-6", replaced_by="1e-6"))
    assert isinstance(d.verdict, Drop) and d.verdict.rule == "BO212"


@pytest.mark.parametrize("rule_id, facts, kind", FIRES, ids=[f[0] for f in FIRES])
def test_the_rule_decides(rule_id: str, facts: RemovedValue, kind: type) -> None:
    d = decide.removed_value(facts)
    fired = next(v for v in d.verdicts if v.rule == rule_id)
    assert isinstance(fired, kind), d
    assert rule_id in d.trace


@pytest.mark.parametrize("rule_id, facts", QUIET, ids=[f[0] for f in QUIET])
def test_the_rule_stays_quiet(rule_id: str, facts: RemovedValue) -> None:
    assert REGISTRY[rule_id].check(facts) is None
    assert rule_id not in decide.removed_value(facts).trace


def test_a_guard_turned_off_leaves_the_call_to_the_run_never_to_a_drop() -> None:
    facts = rv(moved=MovedTo(Moved.FORGOTTEN))
    d = decide.removed_value(facts, frozenset({"BO209"}))
    assert isinstance(d.verdict, LeaveToRun) and d.verdict.rule == "BO209"


def test_a_drop_turned_off_leaves_the_call_to_the_run() -> None:
    d = decide.removed_value(rv(param="M", source="M", keyword=False), frozenset({"BO211"}))
    assert isinstance(d.verdict, LeaveToRun)


def test_a_choice_in_a_contested_slot_by_name_is_refused_not_contested() -> None:
    # `bias=True` whose slot a new `dilation` took is not a dilation: the choice guard answers.
    d = decide.removed_value(rv(param="bias", source="True", choice=True, slot_taken_by="dilation"))
    assert d.trace == ("BO202",)


def test_a_positional_value_in_a_taken_slot_is_contested_and_dropped_from_its_place() -> None:
    d = decide.removed_value(rv(param="M", source="4", keyword=False, choice=True, slot_taken_by="shape"))
    assert [type(v) for v in d.verdicts] == [Contest, Drop]


def test_an_unseen_value_of_a_flag_is_a_choice_for_the_run_s_dict_fixer() -> None:
    from benchop_hook.analysis.signatures import Signature, from_function
    from benchop_hook.fixing import questions

    def sig(src: str) -> Signature:
        import ast

        fn = ast.parse(f"def f(self, {src}): pass").body[0]
        assert isinstance(fn, ast.FunctionDef)
        return from_function(fn)

    old, new = sig("n, fused=False"), sig("n")
    from benchop_hook.analysis.edits import diff

    q = questions.removed_value(
        -1, "fused", None, True, (old, new, tuple(diff(old, new))), questions.DropEvidence()
    )
    assert q.choice
    assert decide.removed_value(q).verdict.rule == "BO202"
