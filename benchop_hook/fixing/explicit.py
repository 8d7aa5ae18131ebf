"""The edit of a call's explicit arguments when a splat beside them is opaque: what plan() does for a
whole call, for the part bench-op can see."""

from __future__ import annotations

from collections.abc import Sequence

from benchop_hook.analysis.binding import bind
from benchop_hook.analysis.callsites import Arg
from benchop_hook.analysis.edits import Edit, EditKind, param_map
from benchop_hook.analysis.signatures import (
    Signature,
)
from benchop_hook.fixing import questions
from benchop_hook.fixing.choices import is_choice
from benchop_hook.fixing.plan import ArgOp, NoPlan, Plan, _preview, fails_whatever_splats_hold, shape
from benchop_hook.fixing.questions import DropEvidence
from benchop_hook.rules import decide
from benchop_hook.rules.facts import RenamedValue
from benchop_hook.rules.verdicts import Drop, Hand


def _old_targets(args: Sequence[Arg], old: Signature) -> tuple[list[str | None], int] | None:
    """The old parameter each argument reached ("*name" for the old `*args`; None for a splat whose
    landing depends on what it holds), and how many explicit positionals came before any `*` splat.
    None when an explicit argument's parameter can't be told."""
    old_pos = [p.name for p in old.positional]
    var = old.var_positional
    targets: list[str | None] = []
    k = 0
    seen_star = False
    for a in args:
        if a.kind == "pos":
            if seen_star:
                return None  # its slot depends on what the splat holds
            if k < len(old_pos):
                targets.append(old_pos[k])
            elif var is not None:
                targets.append("*" + var.name)
            else:
                return None
            k += 1
        elif a.kind == "kw":
            p = old.get(a.keyword or "")
            if p is None or not p.keyword:
                return None  # it went into the old **kwargs: what that meant is not visible
            targets.append(p.name)
        elif a.kind == "star":
            seen_star = True
            # Every item fills the old *args when the explicit positionals took every positional slot.
            targets.append("*" + var.name if var is not None and k >= len(old_pos) else None)
        else:
            targets.append(None)
    return targets, k


def explicit_bound(args: Sequence[Arg], old: Signature) -> dict[str, str]:
    """Old parameter -> the source of the explicit argument that surely reached it (a splat's reach is
    unknown, so what it holds is not in here)."""
    found = _old_targets(args, old)
    if found is None:
        return {}
    return {
        t: a.source
        for a, t in zip(args, found[0])
        if t is not None and not t.startswith("*") and a.kind != "star"
    }


def _explicit_ops(  # long: the drops and renames of the explicit arguments, each outcome a branch
    args: Sequence[Arg],
    targets: Sequence[str | None],
    sigs: tuple[Signature, Signature, tuple[Edit, ...]],
    drop: DropEvidence,
    in_scope: frozenset[str] | None,
    off: frozenset[str],
) -> tuple[list[ArgOp], list[str], list[tuple[Arg, str | None]], tuple[str, ...]] | NoPlan | None:
    """The drops and keyword renames of the explicit arguments, decided by the same rules as plan()'s; and
    each argument kept with the new parameter it reaches (None for a splat)."""
    old, new, edits = sigs
    pmap = param_map(list(edits), old)
    by_position = {e.name for e in edits if e.kind is EditKind.RENAMED and e.by == "position"}
    contested = {e.name for e in edits if e.kind is EditKind.REMOVED and e.contested}
    ops: list[ArgOp] = []
    notes: list[str] = []
    kept: list[tuple[Arg, str | None]] = []
    trace: list[str] = []
    for i, (a, t) in enumerate(zip(args, targets)):
        if t is None:
            kept.append((a, None))
            continue
        star = t.startswith("*")
        name = t[1:] if star else t
        p_new = pmap.get(name, name)
        if star and (p_new is not None or new.var_positional is not None or new.get(name) is not None):
            return (
                None  # an old *args that lives on, maybe as a tuple: bench-op does not move what reaches it
            )
        if name in contested or (
            name in by_position
            and p_new is not None
            and in_scope is not None
            and p_new in in_scope
            and a.source != p_new
        ):
            return None  # the slot and the scope disagree: plan() weighs that evidence; here the run decides
        if p_new is None and star:
            # Items of an old `*args` that is gone: dropped with it, unless one is a choice by its form.
            dropped_by_tests = drop.drops_choice is not None and drop.drops_choice(name, a.source)
            if a.kind != "star" and is_choice(a.source, None) and not dropped_by_tests:
                return NoPlan(
                    f"passes {name}={a.source}, a choice the new signature has no '{name}' for, "
                    "and no test the commit updated drops it the same way: carry that choice over by hand"
                )
            ops.append(ArgOp("drop", i))
            notes.append(f"dropped {'*' if a.kind == 'star' else ''}{a.source} ('{t}' was removed)")
            continue
        if p_new is None:
            decision = decide.removed_value(
                questions.removed_value(i, name, a.source, a.kind == "kw", sigs, drop), off
            )
            trace.extend(decision.trace)
            v = decision.verdict
            if isinstance(v, Hand):
                return NoPlan(v.reason, choice=v.choice, rule=v.rule, trace=tuple(trace))
            if not isinstance(v, Drop):
                return None  # left to the run: nothing here is provable
            ops.append(ArgOp("drop", i))
            notes.append(v.note)
            continue
        param = new.get(p_new)
        if param is None or (a.kind == "kw" and not param.keyword):
            return None
        if p_new != name:
            q = RenamedValue(name, p_new, a.source, questions.transformed(drop.flow, name, p_new))
            renamed = decide.renamed_value(q, off)
            if renamed is not None:
                v = renamed.verdict
                return NoPlan(v.reason, rule=v.rule, trace=(*trace, v.rule)) if isinstance(v, Hand) else None
        if a.kind == "kw" and a.keyword != p_new:
            ops.append(ArgOp("rename", i, p_new))
            notes.append(f"keyword {a.keyword}= renamed to {p_new}=")
        kept.append((a if a.kind != "kw" else Arg("kw", p_new, a.source), p_new))
    return ops, notes, kept, tuple(trace)


def plan_explicit(  # long: the provability checks before and after the edit, each a return of its own
    args: Sequence[Arg],
    sigs: tuple[Signature, Signature, tuple[Edit, ...]],
    drop: DropEvidence,
    in_scope: frozenset[str] | None = None,
    off: frozenset[str] = frozenset(),
) -> Plan | NoPlan | None:
    """The edit of a call's explicit arguments when it also splats a `*`/`**` bench-op can't see.

    Only when that edit is provably needed: the explicit arguments fail the new signature whatever the
    splats hold (a keyword whose parameter was removed, with no `**kwargs` to take it), and may have
    bound the old one. The explicit arguments are then edited exactly as if the splats were absent,
    under the same evidence rules (a choice is not dropped silently); what the splats bind is left to
    the run. A `*` splat is dropped only when it provably filled an old `*args` that is gone. None:
    nothing is provable (the call may bind as it stands, or the edit would move what a splat reaches).
    """
    old, new, edits = sigs
    star = any(a.kind == "star" for a in args)
    explicit = [a for a in args if a.kind in ("pos", "kw")]
    if (
        fails_whatever_splats_hold(explicit, new, star) is None
        or fails_whatever_splats_hold(explicit, old, star) is not None
        or sum(1 for a in args if a.kind == "star") > 1
    ):
        return None
    found = _old_targets(args, old)
    if found is None:
        return None
    targets, k = found
    edit = _explicit_ops(args, targets, sigs, drop, in_scope, off)
    if edit is None or isinstance(edit, NoPlan):
        return edit
    ops, notes, kept, trace = edit
    if not ops:
        return None
    new_pos = [p.name for p in new.positional]
    j = _same_slots(kept, new_pos)
    if j is None:
        return None  # an argument would reach another slot: bench-op does not move them here
    final = [a for a, _ in kept]
    rest_star = any(a.kind == "star" for a in final)
    if rest_star and not _star_fills_the_same(args, targets, kept, old, new, edits, (k, j)):
        return None
    if any(p is None for _, p in kept):  # a splat is left: only the explicit arguments can be judged
        return (
            None
            if fails_whatever_splats_hold([a for a in final if a.kind in ("pos", "kw")], new, rest_star)
            else Plan(tuple(ops), tuple(notes), _preview(final), trace)
        )
    passed = {t for t in targets if t is not None}
    if not bind(new, shape(final)).ok or any(
        e.kind is EditKind.DEFAULT_CHANGED and e.name not in passed for e in edits
    ):
        return None  # a default it relies on changed: the full planner's business, not this one's
    return Plan(tuple(ops), tuple(notes), _preview(final), trace)


def _star_fills_the_same(
    args: Sequence[Arg],
    targets: Sequence[str | None],
    kept: Sequence[tuple[Arg, str | None]],
    old: Signature,
    new: Signature,
    edits: Sequence[Edit],
    starts: tuple[int, int],
) -> bool:
    """What the `*` splat fills is the same parameters, renamed at most, before and after the edit (it
    starts at old positional `starts[0]` and new positional `starts[1]`)."""
    k, j = starts
    pmap = param_map(list(edits), old)
    by_kw_old = {t for a, t in zip(args, targets) if a.kind == "kw"}
    by_kw_new = {p for a, p in kept if a.kind == "kw"}
    old_rest = [pmap.get(n, n) for n in (p.name for p in old.positional[k:]) if n not in by_kw_old]
    new_rest = [n for n in (p.name for p in new.positional[j:]) if n not in by_kw_new]
    return old_rest == new_rest and (old.var_positional is None) == (new.var_positional is None)


def _same_slots(kept: Sequence[tuple[Arg, str | None]], new_pos: Sequence[str]) -> int | None:
    """How many explicit positionals precede any `*` splat, when each reaches its parameter's slot in
    `new_pos`; None when one would reach another."""
    j = 0
    for a, p in kept:
        if a.kind == "star":
            break
        if a.kind == "pos":
            if j >= len(new_pos) or new_pos[j] != p:
                return None
            j += 1
    return j
