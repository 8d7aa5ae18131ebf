"""BO3xx: a value for a parameter the call must now pass."""

from __future__ import annotations

from benchop_hook.rules.facts import Found, RequiredNow
from benchop_hook.rules.registry import rule
from benchop_hook.rules.settled import answers
from benchop_hook.rules.verdicts import Hand, Pin


@rule(
    "BO301",
    "old-default-now-required",
    summary="A parameter that became required keeps the value the call got before: its old default, when "
    "that is "
    "a constant other than None, readable in the call's scope, and no variable of the parameter's name is at "
    "hand.",
    motivated_by="TileOPs: `dim=-1` became a required `dim`",
    fires="`Op(n)` after `dim=-1` became `dim`: `Op(n, dim=-1)`",
    quiet="`Op(n)` after `ctx=None` became `ctx`: None is what the class stopped accepting",
)
def old_default_now_required(f: RequiredNow) -> Pin | None:
    d = f.old_default
    if d is None or d == "None" or f.passed_before or not f.constant:
        return None
    if not f.names_in_scope or f.variable_in_scope:
        return None
    return Pin("BO301", f.param, d, f"{f.param}={d} added (it had that default before and is required now)")


@rule(
    "BO302",
    "the-literal-it-replaced",
    summary="A new required parameter read where the old body had a literal takes that literal: it is what "
    "every "
    "call got before, whatever the tests pass (tests want a quick run, benchmarks the measured one).",
    motivated_by="`torch.compile(fn, mode='reduce-overhead')` became `torch.compile(fn, mode=self.mode)`",
    fires="`CompiledOp(n, dtype)` -> `CompiledOp(n, mode='reduce-overhead', dtype=dtype)`",
    quiet="a new `mode` the old body had no literal for: the tests or a person say",
)
def the_literal_it_replaced(f: RequiredNow) -> Pin | None:
    if f.introduced is None or f.passed_before or f.variable_in_scope:
        return None
    return Pin(
        "BO302",
        f.param,
        f.introduced,
        f"{f.param}={f.introduced} added: the old constructor used {f.introduced} where the new one reads "
        f"'{f.param}'",
    )


@rule(
    "BO303",
    "none-was-its-value",
    summary="A call that left a parameter at its old default None, which the new class now requires a "
    "value for, "
    "is asked of a person: None stood for what the old code worked out by itself (from the inputs, most "
    "often), and no constant another call passes stands for that.",
    motivated_by="a metric whose `data_range=None` (max minus min of the data) became a required "
    "`data_range`",
    fires="`PSNR()` after `data_range=None` became `data_range`, while the tests pass `data_range=10.0`",
    quiet="`PSNR(data_range=dr)`: the call passed it before, and passes it still",
    guard=True,
)
def none_was_its_value(f: RequiredNow) -> Hand | None:
    if f.old_default != "None" or f.passed_before:
        return None
    return Hand(
        "BO303",
        f"it left '{f.param}' at None, which the new class requires a value for: None stood for what the old "
        f"code worked out by itself, and no constant stands for that: pass {f.param} by hand",
    )


# A value the evidence found, or why none (rules/settled.py).
no_value = answers(
    "BO304",
    "no-value-found",
    Found.NO_VALUE,
    "hand",
    summary="A parameter the call must now pass, for which no variable of its name is at the call and no "
    "test the commit updated gives one value, is a person's to fill: bench-op never makes a value up.",
    motivated_by="TileOPs: `Fp8QuantTest(...)` after `batch` and `kv_group` became required",
    fires="`Op(n)` after `batch` became required, the tests passing `batch=batch` in their own scope",
    quiet="`Op(n)` with `batch` in scope at the call",
)
contested = answers(
    "BO305",
    "value-contested",
    Found.CONTESTED,
    "hand",
    summary="A new parameter whose slot an old argument fills, while a variable of the new parameter's name "
    "is also at hand, takes neither until a test the commit updated says which.",
    motivated_by="TileOPs: `SoftmaxTest(m, n, ...)` after its first slot became `shape`",
    fires="`Op(m, n)` after `M` -> `shape`, a variable `shape` in scope, the tests silent",
    quiet="the same, the updated tests passing `shape=shape`",
)
from_tests = answers(
    "BO306",
    "value-from-the-evidence",
    Found.FROM_TESTS,
    "pin",
    summary="A parameter the call must now pass takes the variable of its name in the call's scope, or the "
    "one value every test the commit updated passes for it; a value learned from the tests is a guess, "
    "and lands only once a run gives numbers with it.",
    motivated_by="the design: the call's own scope, then the commit's updated tests, say what a new "
    "parameter takes",
    fires="`Op(n)` after `dtype` became required, `dtype` in scope: `Op(n, dtype=dtype)`",
    quiet="`Op(n, dtype=dtype)`: the call passes it already",
)
named_by_tests = answers(
    "BO307",
    "the-tests-name-it",
    Found.NAMED_BY_TESTS,
    "pin",
    summary="A contested slot goes to the variable of the new parameter's name when the tests the commit "
    "updated pass a variable of that name there.",
    motivated_by="the design: the updated tests name the value the slot can't",
    fires="`Op(m, n)` after `M` -> `shape`, `shape` in scope, the tests passing `shape=shape`",
    quiet="the same without `shape` in scope at the call",
)
