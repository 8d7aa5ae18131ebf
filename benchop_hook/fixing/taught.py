"""What the commit's own edits teach one call: the template its pairs agree on, applied to the call's own
arguments, or why not (a half edit, a choice the pairs never made, options folded into a config object)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from benchop_hook.analysis.callsites import Arg, CallSite
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.edits import Edit, EditKind
from benchop_hook.analysis.examples import Learned, bound, bound_args, pair_free_names, template_of
from benchop_hook.analysis.modules import ClassRef
from benchop_hook.analysis.signatures import Signature, a_size, same_default
from benchop_hook.fixing.choices import is_choice
from benchop_hook.fixing.judging import Judging
from benchop_hook.fixing.plan import ArgOp, Plan, Value, applied, preview_of, targets_of
from benchop_hook.fixing.refusals import classes_named, is_required, overwritten, retyped
from benchop_hook.fixing.results import Example, shown_call
from benchop_hook.rules.facts import Found, Settled


def as_the_commit_shows(edits: tuple[Edit, ...], learned: Learned | None) -> tuple[Edit, ...]:
    """The edits, with a rename read off the slot (`M` -> `normalized_shape`: the same position) undone where
    the commit's own edits build that parameter from something else (`normalized_shape = (OLD[hidden],)`,
    `M` dropped): the pairs are evidence, the slot only a guess."""
    if learned is None or learned.template is None:
        return edits
    built = dict(learned.template.sets)
    out = []
    for e in edits:
        expr = built.get(e.new_name or "") if e.kind is EditKind.RENAMED and e.by == "position" else None
        if expr is not None and expr.pieces != ((e.name, True),):
            out.append(
                Edit(
                    EditKind.REMOVED,
                    e.name,
                    old_index=e.old_index,
                    old_kind=e.old_kind,
                    old_default=e.old_default,
                )
            )
        else:
            out.append(e)
    return tuple(out)


def taught_for(
    site: CallSite,
    change: OpChange,
    args: tuple[Arg, ...],
    sigs: tuple[Signature, Signature, tuple[Edit, ...]],
    learned: Learned | None,
    j: Judging,
) -> Taught | Settled:
    """What the commit's own edits teach for this call, or what they show that keeps their edit from being
    made here (half an edit, a rename into another type, keywords folded into a config object): the rules
    (rules/template.py) say what becomes of the call then."""
    old_sig, new_sig, edits = sigs
    taught = from_the_commit(learned, site, args, old_sig, new_sig)
    if isinstance(taught, Settled):
        return taught
    why = retyped(edits, args, old_sig, new_sig, learned)
    if why is not None:
        return Settled(Found.RETYPED, why)
    why = overwritten(edits, args, old_sig, learned)
    if why is not None:
        return Settled(Found.OVERWRITTEN, why)
    return folded(change, args, old_sig, new_sig, j, taught)


@dataclass(frozen=True)
class Taught:
    """What the commit's own edits teach for one call: values of new parameters, and the rest of the edit."""

    values: Mapping[str, Value] = field(default_factory=dict)
    extras: tuple[tuple[str, str, str], ...] = ()  # (param, value, note): the edit sets them too


def from_the_commit(
    learned: Learned | None, site: CallSite, args: Sequence[Arg], old_sig: Signature, new_sig: Signature
) -> Taught | Settled:
    """The template the commit's pairs agree on, applied to this call's own arguments (the reason to
    report it instead when the tests' edit does more than bench-op could repeat here)."""
    if learned is None:
        return Taught()
    bv = bound_args(args, old_sig)
    if bv is None:
        return Taught()
    if learned.template is None:
        half = _half(learned, bv, old_sig, new_sig)
        return Settled(Found.HALF_EDIT, half) if half is not None else Taught()
    unshown = _choice_not_shown(bv, learned, old_sig)
    if unshown is not None:
        return Settled(Found.CHOICE_NOT_SHOWN, unshown)
    n = len(learned.pairs)
    why = f"as {learned.cited} changed it ({n} pair{'s' if n != 1 else ''} of the commit's own edits agree)"
    values: dict[str, Value] = {}
    extras: list[tuple[str, str, str]] = []
    for param, expr in learned.template.sets:
        src = expr.render(bv)
        unnamed = expr.free - site.scope_names
        if src is None or unnamed:
            continue  # this call passes no value the template needs, or can't name what it uses
        if old_sig.get(param) is not None and param in bv and bv[param].strip() != src.strip():
            said = f"the commit's own edit also changes {param} ({learned.cited}): update it by hand"
            return Settled(Found.TEMPLATE_ALSO_CHANGES, said)
        if _code(src):
            # Megatron 9475bab: the tests pass `is_built_on_rank=lambda: True`, a stub of their own; the
            # benchmark had its rank-aware function for it.
            said = (
                f"the commit's own edit passes {param}={src} ({learned.cited}), code of its own, not a "
                f"value: give {param} the benchmark's own by hand"
            )
            return Settled(Found.TEMPLATE_CODE, said)
        target = new_sig.get(param)
        if target is not None and target.required and old_sig.get(param) is None:
            if not expr.params and _one_sample(learned) and a_size(src):
                # pyg c4c787ba: `GraphUNet(16, depth=3)` -> `GraphUNet(16, 32, 8, depth=3)` in the one test
                # updated: 32 and 8 are its own sizes, and the benchmark's 32 channels got out_channels=8.
                # The parameter is left for the plan to fill from the call's own values, or to report.
                continue
            values[param] = Value(src, why, shown=True)
        elif param not in bv:
            extras.append((param, src, f"{param}={src} added: {why}"))
    return Taught(values, tuple(extras))


def _one_sample(learned: Learned) -> bool:
    """The pairs show their constants for one call only: fewer than two old calls with different arguments.
    A constant every differing call gets is the commit's choice; one call's constant may be its own size."""
    return len({tuple((a.kind, a.keyword, a.source) for a in p.old.args) for p in learned.pairs}) < 2


def _choice_not_shown(bv: Mapping[str, str], learned: Learned, old_sig: Signature) -> str | None:
    """Why the template does not reach this call: it arranges several old values into one (`shape_b = (K,
    N)`), and the call passes a choice that none of the pairs passed. An arrangement is shown for the pairs'
    own choices only: learned from calls without `trans_b=True`, (K, N) is the wrong shape with it. A
    template that only drops or renames, or builds from one value (`normalized_shape = (N,)`), has no order
    a choice could change."""
    assert learned.template is not None
    if not any(len(expr.params) > 1 for _, expr in learned.template.sets):
        return None
    olds = [bound(p.old, old_sig) for p in learned.pairs]
    for name, src in bv.items():
        param = old_sig.get(name)
        if param is None or not is_choice(src, param):
            continue
        if not any(b is not None and same_default(b.get(name, param.default), src) for b in olds):
            return (
                f"it passes {name}={src}, and the commit's own edits ({learned.cited}) show the new call "
                f"only for cases without it: fix it by hand"
            )
    return None


def example_of(learned: Learned | None) -> Example | None:
    if learned is None or not learned.pairs:
        return None
    first = learned.pairs[0]
    return Example(
        first.new.path,
        first.new.lineno,
        shown_call(first.old, None, 200),
        shown_call(first.new, None, 200),
        len(learned.pairs),
    )


def _half(learned: Learned, bv: Mapping[str, str], old_sig: Signature, new_sig: Signature) -> str | None:
    """Whether dropping this call's arguments of removed parameters would be half of what the commit's own
    edits did: a pair that dropped one also set another parameter this call does not pass. With no template
    the pairs agree on, that edit can't be repeated: it is reported instead."""
    templates = [
        t
        for pair in learned.pairs
        if not isinstance(t := template_of(pair, old_sig, new_sig, frozenset(pair_free_names(pair))), str)
    ]
    for pair, t in zip(learned.pairs, templates):
        dropped = [q for q in t.dropped if q in bv]
        added = [p for p, _ in t.sets if p not in bv and not is_required(new_sig, p)]
        # A pair that drops the same arguments and sets nothing else shows that dropping alone is an edit
        # the commit made too.
        alone = any(
            set(dropped) <= u.dropped and not [p for p, _ in u.sets if not is_required(new_sig, p)]
            for u in templates
        )
        if dropped and added and not alone:
            return (
                f"the commit's own edit at {pair.where} drops {', '.join(dropped)} and sets "
                f"{', '.join(added)} too, and its pairs don't agree on one edit ({learned.why_not}): "
                "update it by hand"
            )
    return None


def in_place(
    p: Plan, args: Sequence[Arg], learned: Learned | None, old_sig: Signature, new_sig: Signature
) -> Plan:
    """A value the commit's template builds from an argument goes where that argument was, as the engineers
    wrote it (`M=m, N=n` -> `normalized_shape=(n,)` in N's place), when that binds the same."""
    if learned is None or learned.template is None:
        return p
    slots = {q: i for i, q in enumerate(targets_of(args, old_sig) or [])}
    ops = list(p.ops)
    for param, expr in learned.template.sets:
        add = next((o for o in ops if o.op == "add_kw" and o.name == param), None)
        first = next((t for t, is_param in expr.pieces if is_param), None)
        i = slots.get(first) if first is not None else None
        drop = next((o for o in ops if o.op == "drop" and o.index == i), None)
        taken = next((o for o in ops if o.op == "set" and o.index == i), None)
        if add is None or i is None or (drop is None and taken is None):
            continue
        # The first value built from the argument takes its place; the next ones follow it.
        new_op = (
            ArgOp("set", i, param, add.value) if drop is not None else ArgOp("after", i, param, add.value)
        )
        moved = [new_op if o is drop else o for o in ops if o is not add]
        if drop is None:
            moved.append(new_op)
        after = applied(args, moved)
        keyword_seen = False
        ok = True
        for a in after:
            keyword_seen = keyword_seen or a.kind == "kw"
            ok = ok and not (keyword_seen and a.kind == "pos")
        if ok and bound_args(after, new_sig) == bound_args(applied(args, ops), new_sig):
            ops = moved
    if ops == list(p.ops):
        return p
    return replace(p, ops=tuple(ops), preview=preview_of(args, ops), induced=True)


def folded(
    change: OpChange, args: Sequence[Arg], old_sig: Signature, new_sig: Signature, j: Judging, taught: Taught
) -> Settled | Taught:
    """Parameters folded into a config object: the keywords this call passes for removed parameters are
    fields of the class a new parameter takes (`Collector(backend=..., timeout=t)` ->
    `Collector(server=ServerConfig(backend=..., timeout=t))`). Dropping them one by one cannot be right: it
    is reported, unless the commit's own edits show how to build that parameter (then `taught` stands)."""
    bv = bound_args(args, old_sig) or {}
    gone = [p for p in bv if new_sig.get(p) is None]
    if not gone or change.new is None:
        return taught
    for q in new_sig.params:
        if (
            old_sig.get(q.name) is not None
            or q.name in taught.values
            or any(x[0] == q.name for x in taught.extras)
        ):
            continue
        for cls in classes_named(q.annotation, q.default):
            ref = j.new_p.resolve_name(change.new.module, cls)
            sig = j.new_p.constructor(ref) if isinstance(ref, ClassRef) else None
            fields = [p for p in gone if sig is not None and sig.get(p) is not None]
            if fields:
                said = (
                    f"{', '.join(fields)} moved into {cls}, which the new parameter '{q.name}' takes: build "
                    f"{q.name}={cls}(...) by hand"
                )
                return Settled(Found.FIELDS_OF_A_PARAMETER, said)
    return taught


def _code(src: str) -> bool:
    """A value that is code of the edit's own (a lambda), which a call elsewhere has no reason to share."""
    import ast

    try:
        tree = ast.parse(src.strip(), mode="eval")
    except SyntaxError:
        return False
    return any(isinstance(n, ast.Lambda) for n in ast.walk(tree))
