"""BO7xx: a value the change moved elsewhere. Dropped from this call, it would be missing where it went."""

from __future__ import annotations

from benchop_hook.rules.facts import MovedOut
from benchop_hook.rules.registry import rule
from benchop_hook.rules.verdicts import Hand


@rule(
    "BO701",
    "moved-to-the-constructor",
    summary="A method's parameter the call passes that the class's constructor takes now, with a default "
    "other "
    "than the value passed, is passed where the object is built, by a person: dropped, the method would "
    "run with "
    "the constructor's default.",
    motivated_by="`generate(p, max_new_tokens=1000)` once `max_new_tokens=256` is the constructor's",
    fires="`gen.generate(p, max_new_tokens=1000)` after `max_new_tokens` moved to `Generator(...)`",
    quiet="`gen.generate(p, max_new_tokens=256)`: the constructor's default is what it passed",
    guard=True,
)
def moved_to_the_constructor(f: MovedOut) -> Hand | None:
    return Hand("BO701", f.reason) if f.kind == "to-constructor" else None


@rule(
    "BO702",
    "refused-now",
    summary="A value for a parameter the constructor required before and refuses now is not dropped: what "
    "replaces it is not in the signature.",
    motivated_by="Megatron ffbc43f: `inference_wrapper_config`, required, then refused",
    fires="`Wrapper(model, config)` after `config` became a parameter the constructor raises on",
    quiet="`Wrapper(model, config)` after `config` left for good, read from nothing",
    guard=True,
)
def refused_now(f: MovedOut) -> Hand | None:
    return Hand("BO702", f.reason) if f.kind == "refused-now" else None


@rule(
    "BO703",
    "required-elsewhere",
    summary="A value for a parameter that the same change made required in another class or method goes "
    "there, "
    "by hand: dropped, the other call would lack it.",
    motivated_by="Megatron 9475bab: `is_built_on_rank` left the dataset config for the builder",
    fires="`Config(n, is_built_on_rank=f)` after `Builder(cfg, is_built_on_rank)` gained it as required",
    quiet="`Config(n)`: nothing passed for it",
    guard=True,
)
def required_elsewhere(f: MovedOut) -> Hand | None:
    return Hand("BO703", f.reason) if f.kind == "required-elsewhere" else None
