"""BO3xx: a value for a parameter the call must now pass."""

from __future__ import annotations

from benchop_hook.rules.facts import RequiredNow
from benchop_hook.rules.registry import rule
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
