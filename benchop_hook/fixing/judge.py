"""Judge each benchmark call against the Op changes that reach it: `judge_file(path, data, judging)`.

Pure over its inputs: the two versions of the repository (`Project`s, which parse lazily), the changes,
the updated tests' evidence and the configuration come in as one frozen `Judging`; a frozen
`FileVerdict` comes out. The rewrite is a later stage (`apply.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from benchop_hook.analysis.callsites import UNKNOWN, Arg, CallSite, Gone, Instance
from benchop_hook.analysis.cases import Cases
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.edits import Edit, EditKind
from benchop_hook.analysis.examples import Learned, bound, bound_args, pair_free_names, template_of
from benchop_hook.analysis.locate import analyze
from benchop_hook.analysis.modules import ClassRef
from benchop_hook.analysis.signatures import Signature, same_default
from benchop_hook.fixing.context import change_signatures, value_source
from benchop_hook.fixing.imports import import_fixes, imports_in_functions
from benchop_hook.fixing.judging import DefaultPins, Judging, pins_for, test_checks
from benchop_hook.fixing.plan import (
    ArgOp,
    NoPlan,
    Plan,
    Status,
    Value,
    applied,
    classify,
    default_pins,
    fails_whatever_splats_hold,
    is_choice,
    judge_now,
    plan,
    plan_explicit,
    preview_of,
    targets_of,
)
from benchop_hook.fixing.results import Example, FileVerdict, Finding, shown_call


def judge_file(
    path: str, data: bytes | None, j: Judging, authored: frozenset[int] = frozenset()
) -> FileVerdict | None:
    """One benchmark file's findings, and the import edits and renames its rewrite needs; None when nothing
    in it concerns the changes. `authored`: the lines the range itself wrote or changed in this file."""
    from benchop_hook.fixing.routes import routes

    if data is None:
        return None
    az = analyze(path, data, j.new_p, j.old_p)
    if az.mi.error:
        return FileVerdict(path, data, error=az.mi.error)
    findings: list[Finding] = []
    reaches: list[str | None] = []
    cases = Cases(data)  # parsed once, if a question about the benchmark's cases comes up
    for site in az.calls():
        if changes_reaching(site, j)[0]:
            reaches.append(site.qualfunction)
        mine = any(n in authored for n in range(site.lineno, site.end_lineno + 1))
        f = judge_authored(site, j) if mine else judge_call(site, j, cases)
        if f is not None:
            findings.append(f)
    routed, route_map = routes(az, findings, j.by_old)
    imports, renames, notes = import_fixes(az.mi, j, route_map, imports_in_functions(data))
    if not routed and not imports and not reaches:
        return None
    reached = tuple(dict.fromkeys(reaches))
    return FileVerdict(path, data, tuple(routed), tuple(imports), renames, tuple(notes), reaches=reached)


def changes_reaching(site: CallSite, j: Judging) -> tuple[list[OpChange], int]:
    """The changes of the classes that can reach the call and that matter to it; and how many classes
    can."""
    method = site.method
    relevant: list[OpChange | None] = []
    for a in sorted(site.atoms, key=repr):  # a set: in one order, so the change named is the same each run
        if isinstance(a, ClassRef) and method is None:
            relevant.append(j.by_new.get(a))
        elif isinstance(a, Instance) and method is not None:
            relevant.append(j.by_new.get(a.cls))
        elif isinstance(a, Gone):
            relevant.append(j.by_old.get(a.old))
    changed = [c for c in relevant if c is not None]
    if method is not None:
        changed = [c for c in changed if change_signatures(c, method, j.new_p)[2]]
    elif changed:
        changed = [c for c in changed if c.edits or c.status in ("removed", "renamed", "moved")]
    return changed, len(relevant)


def judge_call(site: CallSite, j: Judging, cases: Cases | None = None) -> Finding | None:
    """The finding for one call; None when no change it can reach matters to it."""
    method = site.method
    changed, n_relevant = changes_reaching(site, j)
    if not changed:
        return None
    op = "/".join(sorted({c.name for c in changed}))
    unknown = UNKNOWN in site.atoms or len(changed) != n_relevant

    # Every class that can reach the call must agree on the change.
    def key(c: OpChange) -> object:
        if method is None and not c.edits and c.status in ("renamed", "moved"):
            # a class renamed or moved with its constructor unchanged needs no edit of the call itself
            return None
        return change_signatures(c, method, j.new_p)

    keys = {key(c) for c in changed}
    distinct: dict[object, list[OpChange]] = {}
    for c in changed:
        distinct.setdefault(key(c), []).append(c)
    if unknown and site.via != "direct":
        if all(judge_one(site, op, cs[0], j, cases) is None for cs in distinct.values()):
            return None  # it binds unchanged for every changed class, and the others did not change
        other = "other values" if UNKNOWN in site.atoms else "Ops whose signatures did not change"
        return Finding(
            site,
            op,
            Status.AMBIGUOUS,
            f"reached through {site.via} by {op} and {other}",
            why_not="the classes that can reach this call don't agree on one fix: update it by hand",
            method=method,
        )
    if len(keys) > 1:
        # Different changes may still need the same edit of this call: compare the outcomes.
        outcomes = [
            (", ".join(sorted(c.name for c in cs)), judge_one(site, op, cs[0], j, cases))
            for cs in distinct.values()
        ]
        return agreed(site, op, method, sorted(outcomes, key=lambda o: o[0]))
    return judge_one(site, op, changed[0], j, cases)


def judge_authored(site: CallSite, j: Judging) -> Finding | None:
    """A call on a line the range itself wrote or changed was written for the new signature: it binds it or
    it does not. The old signature, and which parameter an argument reached there, never apply to it."""
    method = site.method
    changed, _ = changes_reaching(site, j)
    if not changed:
        return None
    op = "/".join(sorted({c.name for c in changed}))
    unknown: str | None = None
    for c in sorted(changed, key=lambda c: c.name):
        if c.status == "removed":
            return judge_one(site, op, c, j)
        new_sig = change_signatures(c, method, j.new_p)[1]
        if new_sig is None:
            continue
        status, why = judge_now(site.args, site.expanded_args, new_sig, site.opaque)
        if status is Status.BROKEN:
            return Finding(site, op, status, why, why_not=AUTHORED_BROKEN, method=method)
        if status is Status.UNKNOWN:
            unknown = why
    if unknown is not None:
        return Finding(site, op, Status.UNKNOWN, unknown, why_not="left to the run", method=method)
    # It binds as written. Only a class it names under a name that is gone needs its import to follow.
    renamed = [c for c in changed if c.status in ("renamed", "moved") and c.new is not None]
    if len(changed) == 1 and renamed and any(isinstance(a, Gone) for a in site.atoms):
        return _still_binds(site, op, renamed[0], DefaultPins())
    return None


AUTHORED_BROKEN = (
    "not rewritten: this call was written in this change for the new signature, and it does not bind it: "
    "fix it by hand"
)


def _unreadable(site: CallSite, op: str, change: OpChange) -> Finding | None:
    """The finding for a call whose class was removed, or whose signatures can't both be read."""
    method = site.method
    old_name = change.old.name if change.old is not None else change.name
    if change.status == "removed":
        return Finding(
            site,
            op,
            Status.GONE,
            f"{old_name} was removed and nothing replaced it",
            why_not="no successor to rewrite to: remove or replace this benchmark case by hand",
            method=method,
        )
    label = op if method is None else f"{op}.{'forward' if method == '__call__' else method}"
    # A moved class still importable under the name the benchmark uses (a re-export) needs nothing.
    name_gone = any(isinstance(a, Gone) for a in site.atoms)
    if change.status in ("renamed", "moved") and not name_gone:
        return None
    if change.status in ("renamed", "moved") and change.new is not None:
        return Finding(site, op, Status.GONE, f"{old_name} is now {change.new.name}", method=method)
    return Finding(
        site, op, Status.UNKNOWN, f"the signature of {label} can't be read statically", method=method
    )


def judge_one(
    site: CallSite, op: str, change: OpChange, j: Judging, cases: Cases | None = None
) -> Finding | None:
    """The finding for a call reached by classes that all changed as `change` did."""
    method = site.method
    old_sig, new_sig, edits = (
        (None, None, []) if change.status == "removed" else change_signatures(change, method, j.new_p)
    )
    if old_sig is None or new_sig is None:
        return _unreadable(site, op, change)
    args = site.args
    if site.splat_dict is not None:
        # A literal **dict: judged as the keywords it holds; the fix edits the dict's keys.
        args = tuple(a for a in site.args if a.kind != "dstar") + tuple(
            Arg("kw", k, v) for k, v in site.splat_dict
        )
    status, problem = classify(args, old_sig, new_sig, edits)
    if status is Status.UNKNOWN:
        return (explicit_fix(site, op, change, old_sig, new_sig, edits, j) if method is None else None) or (
            Finding(
                site,
                op,
                status,
                problem,
                why_not="left to the run: the repair loop fixes it from the traceback",
                method=method,
            )
        )
    if status is Status.STALE and site.guard is not None:
        # A condition bench-op can't evaluate may keep the classes it does not fit away: as in --all-files,
        # only a run can tell.
        now = judge_now(args, None, new_sig, None)[1]
        problem = f"unknown: the run decides ({now}, but only {site.guard})"
        return Finding(site, op, Status.UNKNOWN, problem, why_not="left to the run", method=method)
    if status is Status.STALE:
        return Finding(
            site,
            op,
            status,
            problem,
            why_not="it did not bind before this change either: fix it by hand",
            method=method,
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
    ref = change.new
    dp = pins_for(site, ref, default_pins(args, old_sig, new_sig, edits), new_sig, j)
    if status is Status.OK and not dp.pins:
        return _still_binds(site, op, change, dp)
    if status is Status.OK:
        status, problem = Status.DEFAULT, f"relies on the default of '{dp.pins[0][0]}', which changed"
    if site.splat_dict is not None:
        problem += " (through a literal **dict)"
    own, drops = (
        test_checks(j.evidence, change.old or ref, ref, old_sig, new_sig, edits)
        if method is None
        else (None, None)
    )
    learned = (
        j.evidence.learned(change.old, ref, old_sig, new_sig)
        if method is None and change.old and ref
        else None
    )
    taught = _taught(site, change, args, sigs, learned, j)
    if isinstance(taught, str):
        return Finding(
            site, op, status, problem, why_not=f"not rewritten: {taught}", info=dp.info, method=method
        )
    edits = _as_the_commit_shows(edits, learned)
    values = value_source(site, j.evidence, ref, new_sig, old_sig, edits, learned, taught.values)
    span = (site.lineno, site.end_lineno)
    varies = (lambda src: cases.is_choice(src, span)) if cases is not None and method is None else None
    p = plan(
        args, old_sig, new_sig, edits, values, dp.pins + taught.extras, site.scope_names, own, drops, varies
    )
    if not isinstance(p, NoPlan):
        p = in_place(p, args, learned, old_sig, new_sig)
        ex = _example(learned) if taught.values or taught.extras else None
        return Finding(site, op, status, problem, plan=p, info=dp.info, method=method, example=ex)
    # A choice with no home in the successor may have a class of its own in the same commit.
    routed = (
        route(site, op, change, p.choice, old_sig, status, problem, j)
        if _routable(site, change) and p.choice
        else None
    )
    return routed or Finding(
        site, op, status, problem, why_not=f"not rewritten: it {p.reason}", info=dp.info, method=method
    )


def _routable(site: CallSite, change: OpChange) -> bool:
    """A plain call of a renamed or moved class by a name that is gone: another class may take a choice."""
    return (
        site.method is None
        and any(isinstance(a, Gone) for a in site.atoms)
        and site.splat_dict is None
        and change.status in ("renamed", "moved")
        and change.new is not None
    )


def _as_the_commit_shows(edits: tuple[Edit, ...], learned: Learned | None) -> tuple[Edit, ...]:
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


def _taught(
    site: CallSite,
    change: OpChange,
    args: tuple[Arg, ...],
    sigs: tuple[Signature, Signature, tuple[Edit, ...]],
    learned: Learned | None,
    j: Judging,
) -> Taught | str:
    """What the commit's own edits teach for this call, or why its edit is not to be made here (half an
    edit, a rename into another type, keywords folded into a config object)."""
    old_sig, new_sig, edits = sigs
    taught = from_the_commit(learned, site, args, old_sig, new_sig)
    if isinstance(taught, str):
        return taught
    return retyped(edits, args, old_sig, new_sig, learned) or folded(
        change, args, old_sig, new_sig, j, taught
    )


def _still_binds(site: CallSite, op: str, change: OpChange, dp: DefaultPins) -> Finding | None:
    """A call that binds the new signature with the same meaning: a changed default it relies on that
    could not be pinned, a note, the class's new name to import, or nothing at all."""
    method = site.method
    if dp.hand:
        return Finding(
            site, op, Status.DEFAULT, dp.what, info=dp.info, method=method, hand=True, why_not=dp.hand_note
        )
    if dp.info:
        return Finding(site, op, Status.DEFAULT, dp.info[0], info=dp.info, method=method)
    name_gone = any(isinstance(a, Gone) for a in site.atoms)
    if change.status in ("renamed", "moved") and name_gone and change.new is not None:
        old_name = change.old.name if change.old is not None else change.name
        return Finding(
            site,
            op,
            Status.GONE,
            f"{old_name} is now {change.new.qualname}",
            info=dp.info,
            method=method,
            plan=Plan((), (f"{old_name} -> {change.new.name}",), "(unchanged arguments)"),
        )
    return None


@dataclass(frozen=True)
class Taught:
    """What the commit's own edits teach for one call: values of new parameters, and the rest of the edit."""

    values: Mapping[str, Value] = field(default_factory=dict)
    extras: tuple[tuple[str, str, str], ...] = ()  # (param, value, note): the edit sets them too


def from_the_commit(
    learned: Learned | None, site: CallSite, args: Sequence[Arg], old_sig: Signature, new_sig: Signature
) -> Taught | str:
    """The template the commit's pairs agree on, applied to this call's own arguments (the reason to
    report it instead when the tests' edit does more than bench-op could repeat here)."""
    if learned is None:
        return Taught()
    bv = bound_args(args, old_sig)
    if bv is None:
        return Taught()
    if learned.template is None:
        return _half(learned, bv, old_sig, new_sig) or Taught()
    unshown = _choice_not_shown(bv, learned, old_sig)
    if unshown is not None:
        return unshown
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
            return f"the commit's own edit also changes {param} ({learned.cited}): update it by hand"
        target = new_sig.get(param)
        if target is not None and target.required and old_sig.get(param) is None:
            values[param] = Value(src, why, shown=True)
        elif param not in bv:
            extras.append((param, src, f"{param}={src} added: {why}"))
    return Taught(values, tuple(extras))


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


def _example(learned: Learned | None) -> Example | None:
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
        added = [p for p, _ in t.sets if p not in bv and not _required(new_sig, p)]
        # A pair that drops the same arguments and sets nothing else shows that dropping alone is an edit
        # the commit made too.
        alone = any(
            set(dropped) <= u.dropped and not [p for p, _ in u.sets if not _required(new_sig, p)]
            for u in templates
        )
        if dropped and added and not alone:
            return (
                f"the commit's own edit at {pair.where} drops {', '.join(dropped)} and sets "
                f"{', '.join(added)} too, and its pairs don't agree on one edit ({learned.why_not}): "
                "update it by hand"
            )
    return None


def folded(
    change: OpChange, args: Sequence[Arg], old_sig: Signature, new_sig: Signature, j: Judging, taught: Taught
) -> str | Taught:
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
        for cls in _classes_named(q.annotation, q.default):
            ref = j.new_p.resolve_name(change.new.module, cls)
            sig = j.new_p.constructor(ref) if isinstance(ref, ClassRef) else None
            fields = [p for p in gone if sig is not None and sig.get(p) is not None]
            if fields:
                return (
                    f"{', '.join(fields)} moved into {cls}, which the new parameter '{q.name}' takes: build "
                    f"{q.name}={cls}(...) by hand"
                )
    return taught


def _classes_named(annotation: str | None, default: str | None) -> list[str]:
    """Class names a parameter's annotation or default names (`ServerConfig`, `Optional[ServerConfig]`,
    `ServerConfig | None`, a default `ServerConfig()`)."""
    import re

    text = " ".join(t for t in (annotation, default) if t)
    return [
        n
        for n in dict.fromkeys(re.findall(r"\b([A-Z][A-Za-z0-9_]*)\b", text))
        if n not in ("Optional", "None", "Union")
    ]


def retyped(
    edits: Sequence[Edit],
    args: Sequence[Arg],
    old_sig: Signature,
    new_sig: Signature,
    learned: Learned | None,
) -> str | None:
    """A rename carries a slot, not its values: a keyword renamed to a parameter of another type (its
    annotation, or its default's class, changed; or the value is an attribute of a class the new annotation
    does not name) is reported with both types, unless the commit's own edits show how values map."""
    bv = bound_args(args, old_sig) or {}
    taught = {p for p, _ in learned.template.sets} if learned is not None and learned.template else set()
    for e in edits:
        if e.kind is not EditKind.RENAMED or e.name not in bv or e.new_name in taught:
            continue
        old_p, new_p = old_sig.get(e.name), new_sig.get(e.new_name or "")
        if old_p is None or new_p is None:
            continue
        value = bv[e.name].strip()
        why = _other_type(old_p.annotation, new_p.annotation, old_p.default, new_p.default, value)
        if why:
            return f"'{e.name}' was renamed to '{e.new_name}', and {why}: map {e.name}={value} to it by hand"
    return None


def _other_type(
    old_ann: str | None, new_ann: str | None, old_def: str | None, new_def: str | None, value: str
) -> str | None:
    def norm(t: str | None) -> str | None:
        return "".join(t.split()) if t else None

    if norm(old_ann) and norm(new_ann) and norm(old_ann) != norm(new_ann):
        return f"its type changed ({old_ann} -> {new_ann})"
    old_cls, new_cls = _owner(old_def), _owner(new_def)
    if old_cls and new_cls and old_cls != new_cls:
        return f"its default's type changed ({old_def} -> {new_def})"
    owner = _owner(value)
    if owner and new_ann and owner not in new_ann and (not new_cls or owner != new_cls):
        return f"{value} belongs to {owner}, which its annotation ({new_ann}) does not name"
    return None


def _owner(src: str | None) -> str | None:
    """`KernelChoice` for `KernelChoice.FAST` (or `mod.KernelChoice.FAST`): the class an enum-like value is
    an attribute of."""
    if not src or "." not in src or "(" in src:
        return None
    parts = src.strip().split(".")
    return parts[-2] if len(parts) >= 2 and parts[-2][:1].isupper() else None


def _required(sig: Signature, name: str) -> bool:
    p = sig.get(name)
    return p is not None and p.required


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
    return p if ops == list(p.ops) else Plan(tuple(ops), p.notes, preview_of(args, ops))


def explicit_fix(
    site: CallSite,
    op: str,
    change: OpChange,
    old_sig: Signature,
    new_sig: Signature,
    edits: Sequence[Edit],
    j: Judging,
) -> Finding | None:
    """A constructor call with an opaque splat whose explicit arguments provably fail the new signature
    (`X(dtype=dtype, **op_params)` once `dtype` is gone): their edit, with the splat left to the run."""
    star = any(a.kind == "star" for a in site.args)
    err = fails_whatever_splats_hold([a for a in site.args if a.kind in ("pos", "kw")], new_sig, star)
    if err is None:
        return None
    _, drops = test_checks(j.evidence, change.old or change.new, change.new, old_sig, new_sig, edits)
    p = plan_explicit(site.args, old_sig, new_sig, edits, drops, site.scope_names)
    if p is None:
        return None
    splats = " and ".join(
        ("*" if a.kind == "star" else "**") + a.source for a in site.args if a.kind in ("star", "dstar")
    )
    problem = f"TypeError: {err}, whatever {splats} hold{'s' if ' and ' not in splats else ''}"
    if isinstance(p, NoPlan):
        return Finding(site, op, Status.BROKEN, problem, why_not=f"not rewritten: it {p.reason}")
    dropped = {o.index for o in p.ops if o.op == "drop"}
    rest = any(a.kind in ("star", "dstar") and i not in dropped for i, a in enumerate(site.args))
    info = (
        (f"its explicit arguments rewritten; the rest is unknown: the run decides ({site.opaque})",)
        if rest
        else ()
    )
    return Finding(site, op, Status.BROKEN, problem, plan=p, info=info, rest_to_run=rest)


def agreed(
    site: CallSite, op: str, method: str | None, outcomes: list[tuple[str, Finding | None]]
) -> Finding | None:
    """One finding for a call several differently changed classes reach: theirs when every class's
    outcome (status and rewrite) is the same; else one that names each class's fix."""

    def outcome(f: Finding | None) -> object:
        if f is None:
            return None
        if f.plan is not None and f.plan.ops and not f.hand:
            return (
                "rewrite",
                f.plan.ops,
            )  # the rewritten call is what has to agree, whatever each class's status
        return (f.status, f.why_not, f.hand)

    first = outcomes[0][1]
    if all(outcome(f) == outcome(first) for _, f in outcomes):
        if first is None:
            return None
        more = (f"the same rewrite for each of {op}",) if len(outcomes) > 1 else ()
        return replace(first, op=op, info=first.info + more)
    parts = []
    for name, f in outcomes:
        if f is None:
            parts.append(f"{name}: no change needed")
        elif f.plan is not None and f.plan.ops:
            parts.append(f"{name}: {site.func_source}{f.plan.preview}")
        else:
            parts.append(f"{name}: {f.why_not or f.problem}")
    return Finding(
        site,
        op,
        Status.AMBIGUOUS,
        f"reached by {op}, whose signatures changed differently",
        why_not="the classes need different fixes, update it by hand: " + "; ".join(parts),
        method=method,
    )
