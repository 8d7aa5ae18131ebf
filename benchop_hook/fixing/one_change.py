"""Judge one call against one Op change: the binding, the defaults it relies on, the evidence of the tests,
the class bodies and the commit's own edits, and the plan the rules decide (planner.py)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import replace

from benchop_hook.analysis.callsites import Arg, CallSite, Gone
from benchop_hook.analysis.cases import Cases
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.edits import Edit, EditKind, related_names
from benchop_hook.analysis.examples import Learned, bound_args
from benchop_hook.analysis.modules import ClassRef
from benchop_hook.analysis.renames import ELIMINATION
from benchop_hook.analysis.signatures import Signature
from benchop_hook.fixing.candidates import ranked
from benchop_hook.fixing.context import change_signatures, value_source
from benchop_hook.fixing.explicit import explicit_bound, plan_explicit
from benchop_hook.fixing.flows import body_flow, introduced_defaults, with_body_renames
from benchop_hook.fixing.judging import (
    Judging,
    test_checks,
)
from benchop_hook.fixing.moved_out import moved_out, moved_values_of
from benchop_hook.fixing.pins import DefaultPins, pins_for
from benchop_hook.fixing.plan import (
    NoPlan,
    Plan,
    Status,
    appended_unharmed,
    as_clause,
    classify,
    default_pins,
    fails_whatever_splats_hold,
    judge_now,
    keywords_only_unharmed,
    positional_splat_unharmed,
)
from benchop_hook.fixing.planner import CallEvidence, plan
from benchop_hook.fixing.questions import DropEvidence, moved_to
from benchop_hook.fixing.results import Finding, decided
from benchop_hook.fixing.taught import Taught, as_the_commit_shows, example_of, in_place, taught_for
from benchop_hook.rules import decide
from benchop_hook.rules.facts import BoundBefore, Found, Moved, Settled
from benchop_hook.rules.verdicts import Hand, LeaveToRun, Note


def _unreadable(site: CallSite, op: str, change: OpChange, j: Judging) -> Finding | None:
    """The finding for a call whose class was removed, or whose signatures can't both be read."""
    method = site.method
    old_name = change.old.name if change.old is not None else change.name
    if change.status == "removed":
        gone = Finding(
            site, op, Status.GONE, f"{old_name} was removed and nothing replaced it", method=method
        )
        return decided(gone, Found.CLASS_REMOVED, "", j.off)
    label = op if method is None else f"{op}.{'forward' if method == '__call__' else method}"
    # A moved class still importable under the name the benchmark uses (a re-export) needs nothing.
    name_gone = any(isinstance(a, Gone) for a in site.atoms)
    if change.status in ("renamed", "moved") and not name_gone:
        return None
    if change.status in ("renamed", "moved") and change.new is not None:
        if change.old is not None and _same_class(j, change.old, change.new):
            # A NamedTuple, a ctypes Structure...: moved or renamed as it was, so called as it was; its import
            # follows it.
            return _still_binds(site, op, change, DefaultPins(), j.off)
        unread = f"{old_name} is now {change.new.qualname}, whose constructor bench-op can't read"
        said = Finding(site, op, Status.UNKNOWN, unread, method=method)
        return decided(said, Found.SUCCESSOR_UNREADABLE, "", j.off)
    unread = f"the signature of {label} can't be read statically"
    return decided(Finding(site, op, Status.UNKNOWN, unread, method=method), Found.UNREADABLE, "", j.off)


def judge_one(
    site: CallSite, op: str, change: OpChange, j: Judging, cases: Cases | None = None
) -> Finding | None:
    """The finding for a call reached by classes that all changed as `change` did."""
    method = site.method
    old_sig, new_sig, edits = (
        (None, None, []) if change.status == "removed" else change_signatures(change, method, j.new_p)
    )
    if old_sig is None or new_sig is None:
        return _unreadable(site, op, change, j)
    if method is None:
        edits = list(
            with_body_renames(edits, body_flow(change, old_sig, new_sig, edits, j), (old_sig, new_sig), j.off)
        )
    args = site.args
    if site.splat_dict is not None:
        # A literal **dict: judged as the keywords it holds; the fix edits the dict's keys.
        args = tuple(a for a in site.args if a.kind != "dstar") + tuple(
            Arg("kw", k, v) for k, v in site.splat_dict
        )
    status, problem = classify(args, old_sig, new_sig, edits)
    if status is Status.UNKNOWN and (
        keywords_only_unharmed(args, old_sig, edits)
        or positional_splat_unharmed(args, old_sig, new_sig)
        or appended_unharmed(args, old_sig, new_sig, edits)
    ):
        return _still_binds(
            site, op, change, DefaultPins(), j.off
        )  # its class's import may still follow a rename
    if status is Status.UNKNOWN:
        explicit = (
            explicit_fix(site, op, change, old_sig, new_sig, edits, j, cases) if method is None else None
        )
        why = "left to the run: the repair loop fixes it from the traceback"
        return explicit or decided(
            Finding(site, op, status, problem, method=method), Found.OPAQUE_BINDING, why, j.off
        )
    if status is Status.STALE:
        # A condition bench-op can't evaluate may keep the classes it does not fit away (as in --all-files,
        # only a run can tell); else the call was broken before: a report, not this change's stop.
        q = BoundBefore(False, judge_now(args, None, new_sig, None)[1], site.guard)
        d = decide.bound_before(q, j.off)
        v = d.verdict if d is not None else None
        if isinstance(v, LeaveToRun):
            return _to_the_run(site, op, v, ())
        if isinstance(v, Note):
            return Finding(
                site, op, status, problem, why_not=v.text, method=method, rule=v.rule, trace=(v.rule,)
            )
    sigs = (old_sig, new_sig, tuple(edits))
    return _judge_binding(site, op, change, args, sigs, status, problem, j, cases)


def _judge_binding(
    site: CallSite,
    op: str,
    change: OpChange,
    args: tuple[Arg, ...],
    sigs: tuple[Signature, Signature, tuple[Edit, ...]],
    status: Status,
    problem: str,
    j: Judging,
    cases: Cases | None = None,
) -> Finding | None:
    """A call the old signature bound: nothing to do, a default to pin, or the planned edit."""
    from benchop_hook.fixing.routes import route

    method = site.method
    old_sig, new_sig, edits = sigs
    doubt = (
        _successor_slot(site, op, change, edits, old_sig, (status, problem), j.off) if not method else None
    )
    if doubt is not None:
        return doubt
    old_module = change.old.module if change.old is not None else None
    flow = body_flow(change, old_sig, new_sig, edits, j) if method is None else None
    relied = default_pins(args, old_sig, new_sig, edits)
    relied += [e for e in introduced_defaults(edits, flow) if e.name not in (bound_args(args, old_sig) or {})]
    dp = pins_for(site, change.new, relied, new_sig, j, old_module)
    if status is Status.OK and not dp.pins:
        return _still_binds(site, op, change, dp, j.off)
    if status is Status.OK:
        status, problem = Status.DEFAULT, f"relies on the default of '{dp.pins[0][0]}', which changed"
    if site.splat_dict is not None:
        problem += " (through a literal **dict)"
    moved = _moved_finding(site, op, change, args, sigs, (status, problem), dp, j)
    if moved is not None:
        return moved
    found = _evidence(site, change, args, sigs, dp, j, cases)
    if isinstance(found, (Settled, LeaveToRun)):
        return _unplanned(site, op, (status, problem), found, dp, j.off)
    ev, learned, taught, edits, later = found
    p = _planned(args, (old_sig, new_sig, edits), ev, later, learned)
    said = Finding(site, op, status, problem, info=dp.info, method=method, trace=dp.trace + p.trace)
    if not isinstance(p, NoPlan) and dp.hand:
        # A default only a person can pin stays theirs beside any other edit: rewritten without it, the call
        # would bind and measure the new default.
        rest = f"{site.func_source}{p.preview}"
        why = f"not rewritten: {dp.hand_note}; the rest of its fix, {rest}, waits for that"
        return replace(said, why_not=why, hand=True, rule=dp.hand_rule)
    if not isinstance(p, NoPlan):
        ex = example_of(learned) if taught.values or taught.extras else None
        rule = decide.deciding(said.trace)
        return replace(said, plan=in_place(p, args, learned, old_sig, new_sig), example=ex, rule=rule)
    if p.to_run:
        return replace(said, status=Status.UNKNOWN, problem=p.reason, why_not="left to the run", rule=p.rule)
    # A choice with no home in the successor may have a class of its own in the same commit.
    routed = (
        route(site, op, change, p.choice, old_sig, status, problem, j)
        if _routable(site, change) and p.choice
        else None
    )
    return routed or replace(said, why_not=f"not rewritten: {as_clause(p.reason)}", rule=p.rule)


def _unplanned(
    site: CallSite,
    op: str,
    said: tuple[Status, str],
    why: Settled | LeaveToRun,
    dp: DefaultPins,
    off: frozenset[str],
) -> Finding:
    """A call the evidence gives no plan: what the rule answering its finding says, or the run's, where a
    rule turned off left it there."""
    if isinstance(why, LeaveToRun):
        return _to_the_run(site, op, why, dp.trace)
    found = Finding(site, op, *said, info=dp.info, method=site.method, trace=dp.trace)
    return decided(found, why.found, f"not rewritten: {why.said}", off)


def _to_the_run(site: CallSite, op: str, v: LeaveToRun, trace: tuple[str, ...]) -> Finding:
    """A call a rule left to the run (or a rule turned off did): unknown, named by that rule."""
    return Finding(
        site,
        op,
        Status.UNKNOWN,
        v.reason,
        why_not="left to the run",
        method=site.method,
        rule=v.rule,
        trace=(*trace, v.rule),
    )


def _moved_finding(
    site: CallSite,
    op: str,
    change: OpChange,
    args: tuple[Arg, ...],
    sigs: tuple[Signature, Signature, tuple[Edit, ...]],
    said: tuple[Status, str],
    dp: DefaultPins,
    j: Judging,
) -> Finding | None:
    """The finding for a call passing a value the change moved elsewhere (rules/move.py), or None."""
    method = site.method
    gone = moved_out(method, change, args, sigs, j)
    decided = decide.moved_out(gone, j.off) if gone is not None else None
    if decided is None:
        return None
    v = decided.verdict
    if isinstance(v, LeaveToRun):
        return _to_the_run(site, op, v, dp.trace)
    assert isinstance(v, Hand)
    why = f"not rewritten: {v.reason}"
    trace = dp.trace + decided.trace
    return Finding(site, op, *said, why_not=why, info=dp.info, method=method, rule=v.rule, trace=trace)


# The evidence for the next candidates in the order of evidence, and the rules that ordered them.
Later = tuple[tuple[CallEvidence, ...], tuple[str, ...]]


def _evidence(  # long: every source of evidence for one call, gathered in one place
    site: CallSite,
    change: OpChange,
    args: tuple[Arg, ...],
    sigs: tuple[Signature, Signature, tuple[Edit, ...]],
    dp: DefaultPins,
    j: Judging,
    cases: Cases | None,
) -> tuple[CallEvidence, Learned | None, Taught, tuple[Edit, ...], Later] | Settled | LeaveToRun:
    """What the tests, the commit's edits, the cases and the class bodies say of one call; or what the
    commit's own edits show that keeps their edit from being made here. With it, the evidence of each later
    candidate for the values the commit's template gives (`fixing/candidates.py`)."""
    method, ref = site.method, change.new
    old_sig, new_sig, edits = sigs
    own, drops = _test_checks(method, change, old_sig, new_sig, edits, j)
    learned = (
        j.evidence.learned(change.old, ref, old_sig, new_sig)
        if method is None and change.old and ref
        else None
    )
    taught = taught_for(site, change, args, sigs, learned, j)
    if isinstance(taught, Settled):
        return taught
    edits = as_the_commit_shows(edits, learned)
    order = ranked(taught.values, site, cases.data if cases is not None and method is None else None, j.off)
    if isinstance(order, LeaveToRun):
        return order
    values = value_source(site, j.evidence, ref, new_sig, old_sig, edits, learned, order.ranks[0])
    span = (site.lineno, site.end_lineno)
    varies = (lambda src: cases.why_a_choice(src, span)) if cases is not None and method is None else None
    moved = moved_values_of(j, change, args, old_sig, new_sig, method)
    flow = body_flow(change, old_sig, new_sig, edits, j) if method is None else None
    built = _built(learned)
    drop = DropEvidence(drops, varies, moved, flow, built)
    ev = CallEvidence(values, dp.pins + taught.extras, site.scope_names, own, drop, j.off, flow)
    later = tuple(
        replace(ev, value_for=value_source(site, j.evidence, ref, new_sig, old_sig, edits, learned, rank))
        for rank in order.ranks[1:]
    )
    return ev, learned, taught, edits, (later, order.trace)


def _planned(
    args: tuple[Arg, ...],
    sigs: tuple[Signature, Signature, tuple[Edit, ...]],
    ev: CallEvidence,
    later: Later,
    learned: Learned | None,
) -> Plan | NoPlan:
    """The plan of the first candidate, with the rules that ordered the candidates and the later ones."""
    p = plan(args, sigs, ev)
    if isinstance(p, NoPlan):
        return p
    p = replace(p, trace=p.trace + later[1])
    return replace(p, alternatives=_alternatives(p, args, sigs, later, learned))


def _alternatives(
    first: Plan,
    args: tuple[Arg, ...],
    sigs: tuple[Signature, Signature, tuple[Edit, ...]],
    later: Later,
    learned: Learned | None,
) -> tuple[Plan, ...]:
    """The complete fixes of the call that the later candidates give, in order: each a guess the run tries
    when the one before it fails at the call."""
    out: list[Plan] = []
    for ev in later[0]:
        p = plan(args, sigs, ev)
        if isinstance(p, NoPlan) or p.preview == first.preview or any(p.preview == q.preview for q in out):
            continue
        out.append(replace(in_place(p, args, learned, sigs[0], sigs[1]), induced=True, trace=first.trace))
    return tuple(out)


def _built(learned: Learned | None) -> dict[str, str]:
    """New parameter -> its expression in the commit's own edits, in the old parameters' names."""
    if learned is None or learned.template is None:
        return {}
    out = {}
    for param, expr in learned.template.sets:
        shown = expr.render({p: p for p in expr.params})
        if shown is not None:
            out[param] = shown
    return out


def _test_checks(
    method: str | None,
    change: OpChange,
    old_sig: Signature,
    new_sig: Signature,
    edits: Sequence[Edit],
    j: Judging,
) -> tuple[Callable[[str], bool] | None, Callable[[str, str], bool] | None]:
    """What the commit's tests settle for a constructor call (`test_checks`); nothing for a method's."""
    if method is not None:
        return None, None
    return test_checks(j.evidence, change.old or change.new, change.new, old_sig, new_sig, edits)


def _successor_slot(
    site: CallSite,
    op: str,
    change: OpChange,
    edits: Sequence[Edit],
    old_sig: Signature,
    outcome: tuple[Status, str],
    off: frozenset[str],
) -> Finding | None:
    """The hand edit for a call whose value a renamed class's slot would take under an unrelated name."""
    slot = _slot_of_a_successor(change, edits, site.args, old_sig)
    if slot is None:
        return None
    status, problem = outcome
    if status is Status.OK:
        before = change.old.name if change.old is not None else change.name
        status, problem = Status.SHIFTED, f"{before} is now {change.new.qualname if change.new else ''}"
    said = Finding(site, op, status, problem, method=site.method)
    return decided(said, Found.SUCCESSOR_SLOT, f"not rewritten: {slot}", off)


def _slot_of_a_successor(
    change: OpChange, edits: Sequence[Edit], args: Sequence[Arg], old_sig: Signature
) -> str | None:
    """A class that a rename replaced, where the call's value reaches a parameter of the successor
    that only the slot pairs with the old one, under an unrelated name (flax: `PytreeOptimizer(params, tx)`
    -> `ModelAndOptimizer(model, tx)`; mmengine: `optimizer_cfg` -> `optim_wrapper_cfg`, which wraps it).
    Two classes, two names: the slot says nothing of what the successor wants there."""
    if change.status != "renamed" or change.new is None:
        return None  # a class moved under its own name is the same class: its slots say what they always did
    bv = bound_args(args, old_sig) or {}
    for e in edits:
        if (
            e.kind is EditKind.RENAMED
            and e.by == "position"
            and e.name in bv
            and not related_names(e.name, e.new_name or "")
        ):
            old = change.old.name if change.old is not None else change.name
            return (
                f"{change.new.name} takes '{e.new_name}' where {old} took '{e.name}', and only the slot "
                f"pairs them: pass what '{e.new_name}' wants by hand"
            )
    return None


def _routable(site: CallSite, change: OpChange) -> bool:
    """A plain call of a renamed or moved class by a name that is gone: another class may take a choice."""
    return (
        site.method is None
        and any(isinstance(a, Gone) for a in site.atoms)
        and site.splat_dict is None
        and change.status in ("renamed", "moved")
        and change.new is not None
    )


def _still_binds(
    site: CallSite, op: str, change: OpChange, dp: DefaultPins, off: frozenset[str]
) -> Finding | None:
    """A call that binds the new signature with the same meaning: a changed default it relies on that
    could not be pinned, a note, the class's new name to import, or nothing at all."""
    method = site.method
    if dp.hand:
        return Finding(
            site,
            op,
            Status.DEFAULT,
            dp.what,
            info=dp.info,
            method=method,
            hand=True,
            why_not=dp.hand_note,
            rule=dp.hand_rule,
            trace=dp.trace,
        )
    if dp.info:
        rule = dp.trace[-1] if dp.trace else None
        return Finding(
            site, op, Status.DEFAULT, dp.info[0], info=dp.info, method=method, rule=rule, trace=dp.trace
        )
    name_gone = any(isinstance(a, Gone) for a in site.atoms)
    if change.status in ("renamed", "moved") and name_gone and change.new is not None:
        old_name = change.old.name if change.old is not None else change.name
        follows = Finding(
            site,
            op,
            Status.GONE,
            f"{old_name} is now {change.new.qualname}",
            info=dp.info,
            method=method,
            plan=Plan((), (f"{old_name} -> {change.new.name}",), "(unchanged arguments)"),
        )
        # A successor only elimination names (analysis/changes.py) has a rule of its own.
        found = Found.BY_ELIMINATION if change.evidence == (ELIMINATION,) else Found.CLASS_RENAMED
        return decided(follows, found, "", off)
    return None


def explicit_fix(
    site: CallSite,
    op: str,
    change: OpChange,
    old_sig: Signature,
    new_sig: Signature,
    edits: Sequence[Edit],
    j: Judging,
    cases: Cases | None = None,
) -> Finding | None:
    """A constructor call with an opaque splat whose explicit arguments provably fail the new signature
    (`X(dtype=dtype, **op_params)` once `dtype` is gone): their edit, with the splat left to the run."""
    star = any(a.kind == "star" for a in site.args)
    err = fails_whatever_splats_hold([a for a in site.args if a.kind in ("pos", "kw")], new_sig, star)
    if err is None:
        return None
    _, drops = test_checks(j.evidence, change.old or change.new, change.new, old_sig, new_sig, edits)
    moved = moved_values_of(j, change, site.args, old_sig, new_sig, None, explicit_bound(site.args, old_sig))
    if moved and any(moved_to(why).kind is Moved.BUILT_FROM for why in moved.values()):
        return None  # whether the splat passes the parameter built from it, only a run can tell
    span = (site.lineno, site.end_lineno)
    varies = (lambda src: cases.why_a_choice(src, span)) if cases is not None else None
    ev = DropEvidence(drops, varies, moved, body_flow(change, old_sig, new_sig, edits, j))
    p = plan_explicit(site.args, (old_sig, new_sig, tuple(edits)), ev, site.scope_names, j.off)
    if p is None:
        return None
    splats = " and ".join(
        ("*" if a.kind == "star" else "**") + a.source for a in site.args if a.kind in ("star", "dstar")
    )
    problem = f"TypeError: {err}, whatever {splats} hold{'s' if ' and ' not in splats else ''}"
    if isinstance(p, NoPlan):
        return Finding(
            site,
            op,
            Status.BROKEN,
            problem,
            why_not=f"not rewritten: {as_clause(p.reason)}",
            rule=p.rule,
            trace=p.trace,
        )
    dropped = {o.index for o in p.ops if o.op == "drop"}
    rest = any(a.kind in ("star", "dstar") and i not in dropped for i, a in enumerate(site.args))
    info = (
        (f"its explicit arguments rewritten; the rest is unknown: the run decides ({site.opaque})",)
        if rest
        else ()
    )
    rule = decide.deciding(p.trace)
    return Finding(
        site, op, Status.BROKEN, problem, plan=p, info=info, rest_to_run=rest, rule=rule, trace=p.trace
    )


def _same_class(j: Judging, old: ClassRef, new: ClassRef) -> bool:
    """The class as it was, under its new name or module: the same bases, decorators and body."""
    a, b = j.old_p.class_info(old), j.new_p.class_info(new)
    if a is None or b is None or a.node is None or b.node is None or a.bases != b.bases:
        return False
    decorators = ([ast.dump(d) for d in ci.decorator_list] for ci in (a.node, b.node))
    return next(decorators) == next(decorators) and a.fingerprint == b.fingerprint
