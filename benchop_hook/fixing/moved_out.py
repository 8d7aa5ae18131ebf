"""Where a value the call passes went when the change took its parameter away: to the constructor (a method's
parameter), to another class or method that now requires it, or nowhere the call could follow (refused now).
The answers are facts for the move and drop rules (rules/move.py, rules/drop.py)."""

from __future__ import annotations

from collections.abc import Mapping

from benchop_hook.analysis.callsites import Arg
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.edits import Edit, EditKind
from benchop_hook.analysis.examples import bound_args
from benchop_hook.analysis.signatures import Signature
from benchop_hook.fixing.judging import Judging, defaults_lost, forgotten_by_method, moved_values
from benchop_hook.fixing.refusals import moved_to_constructor
from benchop_hook.rules.facts import MovedOut


def moved_values_of(
    j: Judging,
    change: OpChange,
    args: tuple[Arg, ...],
    old_sig: Signature,
    new_sig: Signature,
    method: str | None,
    bv: Mapping[str, str] | None = None,
) -> dict[str, str] | None:
    """Removed parameter -> why its value can't just be dropped (`plan`'s `moved`). `bv`: what the call
    surely passes, where a splat beside it keeps its binding from being whole."""
    ref = change.new
    if ref is None:
        return None
    moved = moved_values(j, change.old or ref, ref, old_sig, new_sig, method)
    if method is not None:
        # flax: `mha(q, k, attention_bias=bias)` after `attention_bias` left `__call__`, and nothing in the
        # class reads one any more: the bias is gone from what is measured.
        return {**forgotten_by_method(j, ref, old_sig, new_sig, args), **moved}
    return {**defaults_lost(j, change.old or ref, ref, old_sig, new_sig, args, bv), **moved}


def moved_out(
    method: str | None,
    change: OpChange,
    args: tuple[Arg, ...],
    sigs: tuple[Signature, Signature, tuple[Edit, ...]],
    j: Judging,
) -> MovedOut | None:
    """Why a parameter the call passes can't just be dropped: for a method call, it moved to the
    constructor; for a constructor call, the same commit made it a required parameter of another class or
    of one of this class's methods (Megatron 9475bab: `is_built_on_rank` left the dataset config for the
    builder, and dropping the benchmark's rank-aware function would build on every rank)."""
    if method is None:
        return moved_to_another(change, args, sigs, j)
    if change.new is None:
        return None
    old_ctor = j.old_p.constructor(change.old) if change.old is not None else None
    new_ctor = j.new_p.constructor(change.new)
    why = moved_to_constructor(args, sigs[0], sigs[1], old_ctor, new_ctor, change.new.name)
    return MovedOut("to-constructor", why) if why is not None else None


def moved_to_another(
    change: OpChange, args: tuple[Arg, ...], sigs: tuple[Signature, Signature, tuple[Edit, ...]], j: Judging
) -> MovedOut | None:
    old_sig, new_sig, _ = sigs
    gone = [(p, v) for p, v in (bound_args(args, old_sig) or {}).items() if new_sig.get(p) is None]
    if not gone:
        return None
    required = {EditKind.ADDED_REQUIRED}
    for p, value in gone:
        old_p = old_sig.get(p)
        if p in new_sig.refused and old_p is not None and old_p.required:
            # Megatron ffbc43f: `inference_wrapper_config` was required, the old constructor built the
            # inference context from it, and the new one raises when it is passed: dropped, the wrapper would
            # run with no context. What replaces it is not in the signature.
            return MovedOut(
                "refused-now",
                f"the constructor now refuses '{p}', which it required before, and the call passes "
                f"{p}={value.strip()}: what replaces it is not said, edit the call by hand",
            )
        where = [
            f"{c.new.name}'s constructor"
            for c in j.changes
            if c is not change
            and c.new is not None
            and any(e.kind in required and e.name == p for e in c.edits)
        ] + [
            f".{m.name}()" for m in change.methods if any(e.kind in required and e.name == p for e in m.edits)
        ]
        if where:
            return MovedOut(
                "required-elsewhere",
                f"'{p}' is now a required parameter of {where[0]}, and the call passes {p}={value.strip()}: "
                "pass it there, by hand",
            )
    return None
