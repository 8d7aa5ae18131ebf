"""BO2xx: a value the call passes for a parameter the change removed. Dropping it is right only when what it
chose, built or fed is gone with it for every value: otherwise the rewritten call binds and measures something
else."""

from __future__ import annotations

from benchop_hook.analysis.signatures import same_default
from benchop_hook.rules.facts import Moved, RemovedValue
from benchop_hook.rules.registry import rule
from benchop_hook.rules.verdicts import Contest, Drop, Hand


def _shown(f: RemovedValue) -> str:
    return f.source if f.source is not None else "a value"


def _choice_words(f: RemovedValue, what: str) -> str:
    return (
        f"passes {f.param}={_shown(f)}, {what} the new signature has no '{f.param}' for, and no test the "
        "commit "
        "updated drops it the same way: carry that choice over by hand"
    )


def _slot_gives_it(f: RemovedValue) -> bool:
    """A positional value in a slot another parameter took: what it is, is what the slot gives (BO201)."""
    return f.slot_taken_by is not None and not f.keyword


def _a_choice(f: RemovedValue) -> bool:
    return (f.choice or f.varies is not None or f.function) and not f.tests_drop_it


@rule(
    "BO201",
    "slot-taken",
    summary="A value whose slot a new parameter took is that parameter's candidate, unless it was passed by "
    "name as a choice: which value the new parameter gets is the fill's question.",
    motivated_by="TileOPs: `Op(M, N, dtype)` -> `Op(shape, dtype)`, where `M`'s slot now takes the shape",
    fires="`Op(4, 64)` after `Op(M, N)` -> `Op(shape, N)`: 4 is a candidate for `shape`",
    quiet="`Op(4, 64, bias=True)` after `bias` left and `dilation` took its slot: `True` is a choice, no "
    "dilation",
)
def slot_taken(f: RemovedValue) -> Contest | None:
    if f.slot_taken_by is None:
        return None
    if f.keyword and (f.by_position_only or _a_choice(f)):
        return None
    return Contest("BO201", f.slot_taken_by, f.param if f.keyword else None)


@rule(
    "BO202",
    "choice-without-home",
    summary="A value that picks something by its form (a flag, an enum member, a string, a strategy "
    "object) is "
    "not dropped when the new signature has no place for it, unless the commit's tests drop it the same way.",
    motivated_by="GPTQModel 96ff08b3: `FailSafe(k=1.75)` picks a strategy",
    fires="`Norm(64, fused=True)` after `fused` was removed",
    quiet="`Norm(64, fused=True)` when the updated tests drop `fused=True` too",
    guard=True,
)
def choice_without_home(f: RemovedValue) -> Hand | None:
    if _slot_gives_it(f) or not f.choice or f.tests_drop_it:
        return None
    return Hand("BO202", _choice_words(f, "a choice"), (f.index, f.param, _shown(f)))


@rule(
    "BO203",
    "choice-varies-across-cases",
    summary="A value that differs between the benchmark's cases is what the cases compare: dropping it "
    "makes them "
    "measure the same thing.",
    motivated_by="TileOPs: a `strategy` parametrized over the benchmark's cases",
    fires="`Op(n, strategy=strategy)` under `@parametrize('strategy', ['direct', 'split'])`",
    quiet="`Op(n, strategy='direct')` in one case only, when the tests drop it",
    guard=True,
)
def choice_varies(f: RemovedValue) -> Hand | None:
    if _slot_gives_it(f) or f.varies is None or f.tests_drop_it:
        return None
    return Hand("BO203", _choice_words(f, f"a choice ({f.varies})"), (f.index, f.param, _shown(f)))


@rule(
    "BO204",
    "function-is-measured",
    summary="A function passed for a removed parameter (other than its default) is what the benchmark "
    "measures: "
    "dropping it measures another function.",
    motivated_by="FlagGems 4e6cb3b2: `arg_func=unary_arg`, the input generator",
    fires="`Bench(op, arg_func=my_inputs)` after `arg_func` was removed",
    quiet="`Bench(op, arg_func=None)`: the old default, nothing lost",
    guard=True,
)
def function_is_measured(f: RemovedValue) -> Hand | None:
    if _slot_gives_it(f) or not f.function or f.tests_drop_it:
        return None
    return Hand(
        "BO204",
        _choice_words(f, "a choice (a function: what it does is what is measured)"),
        (f.index, f.param, _shown(f)),
    )


@rule(
    "BO205",
    "old-value-is-no-loss",
    summary="A value the removed parameter took anyway (None, or its old default) is dropped: the call meant "
    "nothing by it.",
    motivated_by="TileOPs: `tune=False` passed as the old default of a removed `tune`",
    fires="`Op(n, eps=1e-6)` after `eps=1e-6` was removed",
    quiet="`Op(n, eps=1e-5)` after `eps=1e-6` was removed",
)
def old_value_is_no_loss(f: RemovedValue) -> Drop | None:
    if not f.old_default:
        return None
    return Drop("BO205", f"dropped {_shown(f)} ('{f.param}' was removed)")


@rule(
    "BO206",
    "built-another-default",
    summary="A value the old constructor built another parameter's default from is not dropped while the "
    "call "
    "leaves that parameter out: it would get the bare default.",
    motivated_by="Megatron 43db8c1: `Wrapper(model, config)` built `inference_context` from `config`",
    fires="`Wrapper(model, config)` -> `Wrapper(model)`, `ctx` left at None",
    quiet="`Wrapper(model, config, ctx=ctx)`: the call passes `ctx` itself",
    guard=True,
)
def built_another_default(f: RemovedValue) -> Hand | None:
    if f.moved is None or f.moved.kind is not Moved.BUILT_FROM:
        return None
    other = f.moved.where
    return Hand(
        "BO206",
        f"passes {f.param}={_shown(f)}, from which the old constructor built the default of '{other}', "
        "left at "
        f"its bare default now: pass {other} by hand",
    )


@rule(
    "BO207",
    "built-a-part",
    summary="A value the old constructor built a part from (`self.lin = Linear(in, out)`) that the new "
    "class no "
    "longer has is not dropped: the part is gone from what is measured.",
    motivated_by="pyg df2113b4: `self.lin` built from a removed size",
    fires="`Conv(8, 16, edge_dim=4)` after `edge_dim` and `self.lin_edge` left",
    quiet="the same call when the new class still builds `self.lin_edge`",
    guard=True,
)
def built_a_part(f: RemovedValue) -> Hand | None:
    if f.moved is None or f.moved.kind is not Moved.PART_OF:
        return None
    return Hand(
        "BO207",
        f"passes {f.param}={_shown(f)}, from which the old constructor built self.{f.moved.where}, a part "
        "the "
        "new class no longer has: dropping it changes what is measured; rewrite the call by hand",
    )


@rule(
    "BO208",
    "moved-elsewhere",
    summary="A value the commit moved to another call or parameter (the new constructor reads it from "
    "another "
    "argument, or the updated tests pass it elsewhere) goes there by hand, never into the bin.",
    motivated_by="Megatron 9475bab: `is_built_on_rank` left the config for the builder",
    fires="`Cfg(n, seed=1)` after the tests pass `seed=1` to `build(...)` instead",
    quiet="`Cfg(n, seed=None)`: the old default, nothing moved",
    guard=True,
)
def moved_elsewhere(f: RemovedValue) -> Hand | None:
    if f.moved is None or f.moved.kind is not Moved.ELSEWHERE:
        return None
    return Hand(
        "BO208",
        f"passes {f.param}={_shown(f)}, a value the commit moved elsewhere ({f.moved.where}): move it "
        "there by hand",
    )


@rule(
    "BO209",
    "nothing-reads-it",
    summary="An optional parameter's value that nothing in the new class names any more is not dropped: "
    "what it "
    "chose is gone, unless the commit's tests drop it too.",
    motivated_by="torchrec b4185410: `stride_per_key_per_rank=spk` dropped built another tensor",
    fires="`Norm(64, eps=eps)` after `eps` left and the class reads a literal instead",
    quiet="the same call when another new parameter took `eps`'s slot (BO201 and the fill decide)",
    guard=True,
)
def nothing_reads_it(f: RemovedValue) -> Hand | None:
    if f.moved is None or f.moved.kind is not Moved.FORGOTTEN:
        return None
    if f.slot_taken_by is not None or f.namesake is not None:
        return None  # a slot or a namesake says more than "nothing reads it": their rules name both
    return Hand(
        "BO209",
        f"passes {f.param}={_shown(f)}, which nothing in the new class reads any more: dropping it changes "
        "what "
        "is measured; rewrite the call by hand",
    )


@rule(
    "BO210",
    "removed-beside-a-namesake",
    summary="A keyword whose parameter was removed while a parameter sharing a word with it was added may "
    "be the "
    "same parameter renamed: a person says which.",
    motivated_by="pyg aa2c5985: `edge_feature=None` -> `edge_attr=None`, moved in the signature",
    fires="`conv(x, ei, edge_feature=e)` after `edge_feature` left and `edge_attr` came",
    quiet="`conv(x, ei, edge_feature=None)`: the old default, nothing lost",
    guard=True,
)
def removed_beside_a_namesake(f: RemovedValue) -> Hand | None:
    if not f.keyword or f.namesake is None:
        return None
    twin, value = f.namesake, _shown(f)
    return Hand(
        "BO210",
        f"passes {f.param}={value}; '{f.param}' was removed and '{twin}' added: if it is the same parameter "
        f"renamed, pass {twin}={value}, else drop it, by hand",
    )


@rule(
    "BO211",
    "removed-value-dropped",
    summary="A value for a removed parameter that no rule above claims (no choice, nothing built from it, "
    "not "
    "moved, not forgotten) is dropped: the new class derives it (a size read from the inputs).",
    motivated_by="TileOPs: `M` removed, the Op reads it from the tensor's shape",
    fires="`SumOp(M, N, dtype)` -> `SumOp(N, dtype)` after `M` was removed",
    quiet="`SumOp(M, N, dtype, fused=True)`: `fused=True` is a choice (BO202)",
)
def removed_value_dropped(f: RemovedValue) -> Drop:
    return Drop("BO211", f"dropped {_shown(f)} ('{f.param}' was removed)")


@rule(
    "BO212",
    "a-constant-in-its-place",
    summary="Where the new body uses a constant at every place the removed parameter was used, a value "
    "equal to "
    "that constant is dropped, and any other value is a choice the new class no longer offers.",
    motivated_by="a norm whose `eps` left the constructor for a fixed `self.eps = 1e-6`",
    fires="`Norm(64, eps=1e-5)` after `eps` left and the body sets `self.eps = 1e-6`",
    quiet="`Norm(64, eps=1e-5)` after `eps` left and nothing took its places (BO209 says so)",
)
def a_constant_in_its_place(f: RemovedValue) -> Drop | Hand | None:
    if f.replaced_by is None or f.replaced_by == "None":
        return None  # a None placeholder stands for a value the class now works out itself, not a constant
    if f.source is not None and same_default(f.source, f.replaced_by):
        return Drop("BO212", f"dropped {f.source} (the new class uses {f.replaced_by} in its place)")
    return Hand(
        "BO212",
        f"passes {f.param}={_shown(f)}, where the new class always uses {f.replaced_by}: dropping it "
        "changes what "
        "is measured; rewrite the call by hand",
    )


@rule(
    "BO213",
    "folded-into-a-config",
    summary="A value the new body reads from a config object instead of its own parameter is moved into that "
    "config by a person, never dropped.",
    motivated_by="a client whose `timeout` became `self.cfg.timeout`",
    fires="`Client(url, timeout=30)` after the body reads `cfg.timeout`",
    quiet="`Client(url, timeout=None)`: the old default, nothing lost (BO205)",
    guard=True,
)
def folded_into_a_config(f: RemovedValue) -> Hand | None:
    if f.folded_into is None:
        return None
    return Hand(
        "BO213",
        f"passes {f.param}={_shown(f)}, which the new class reads from {f.folded_into}: build that config "
        "with "
        "it, by hand",
    )


@rule(
    "BO214",
    "renamed-through-another-transform",
    summary="A removed parameter whose places a new parameter takes through another transform "
    "(`exp(log_scale)` "
    "-> `scale`) is no plain rename: carried over, the value would mean something else.",
    motivated_by="a prior whose `log_scale` became `scale`, the `exp()` gone from the body",
    fires="`Prior(log_scale=0.5)` after `self.scale = exp(log_scale)` became `self.scale = scale`",
    quiet="`Prior(log_scale=0.5)` after `log_scale` left with nothing in its places",
    guard=True,
)
def renamed_through_another_transform(f: RemovedValue) -> Hand | None:
    if f.transformed is None:
        return None
    new, old_expr, new_expr = f.transformed
    return Hand(
        "BO214",
        f"passes {f.param}={_shown(f)}; the new class takes '{new}' where it used {old_expr}, as {new_expr}: "
        f"pass the {new} that means the same, by hand",
    )
