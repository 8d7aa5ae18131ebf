"""An Op split on a choice: `Conv2dOp(..., bias=True)` becomes `Conv2dBiasFwdOp(...)` when the commit
built that class for the choice and the successor has no home for it.

`route` judges one call against the sibling class; `routes` decides, for a whole file, whether the
imported name can follow the sibling (every use of it is such a call) or the routed calls are reported.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import replace

from benchop_hook.analysis.callsites import CallSite, Gone, ModuleAnalyzer
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.modules import ClassRef
from benchop_hook.analysis.signatures import Signature, same_default
from benchop_hook.fixing.choices import choice_words
from benchop_hook.fixing.context import value_source
from benchop_hook.fixing.judging import Judging, moved_values, test_checks
from benchop_hook.fixing.pins import pins_for
from benchop_hook.fixing.plan import ArgOp, NoPlan, Status, as_clause, default_pins
from benchop_hook.fixing.planner import CallEvidence, plan
from benchop_hook.fixing.questions import DropEvidence
from benchop_hook.fixing.results import Finding, decided
from benchop_hook.rules.facts import Found


def choice_siblings(succ: ClassRef, param: str, value: str, j: Judging) -> list[ClassRef]:
    """Classes that appeared next to `succ` in this commit and whose name is `succ`'s with the choice
    `param=value` added as words (`Conv2dFwdOp` + `bias=True` -> `Conv2dBiasFwdOp`): the split is on
    it."""
    from benchop_hook.analysis.renames import name_words

    path = j.new_p.class_path(succ)
    mi = j.new_p.at(path) if path else None
    if mi is None or j.commit_old_p is None:
        return []
    token = choice_words(param, value)
    if not token:
        return []
    base = name_words(succ.name)
    out = []
    for name in sorted(mi.classes):
        ref = ClassRef(succ.module, name)
        # New in this commit, and not another class's successor: a class of its own for the choice.
        if (
            name == succ.name
            or ref in j.successors
            or j.commit_old_p.resolve_name(succ.module, name) is not None
            or not j.new_p.builds(ref)
        ):
            continue
        words = name_words(name)
        extra = len(words) - len(base)
        if extra <= 0:
            continue
        for k in range(len(base) + 1):
            if (
                words[:k] == base[:k]
                and words[k + extra :] == base[k:]
                and "".join(words[k : k + extra]) in token
            ):
                out.append(ref)
                break
    return out


def route(
    site: CallSite,
    op: str,
    change: OpChange,
    choice: tuple[int, str, str],
    old_sig: Signature,
    status: Status,
    problem: str,
    j: Judging,
) -> Finding | None:
    """A call whose choice has no home in its Op's successor, rewritten to the sibling class the commit
    built for that choice, when there is exactly one and the call binds it with the same meaning."""
    from benchop_hook.analysis.edits import diff

    i, param, value = choice
    succ = change.new
    assert succ is not None
    sibs = choice_siblings(succ, param, value, j)
    if not sibs:
        return None
    old_name = change.old.name if change.old is not None else change.name
    if len(sibs) > 1:
        names = ", ".join(s.name for s in sibs)
        why = (
            f"not rewritten: {succ.name} has no '{param}' for {param}={value}, and the commit built several "
            f"classes for it ({names}): pick one by hand"
        )
        return decided(Finding(site, op, status, problem), Found.SEVERAL_ROUTES, why, j.off)
    sib = sibs[0]
    sib_sig = j.new_p.constructor(sib)
    if sib_sig is None:
        return None
    edits = diff(old_sig, sib_sig, j.evidence.rename_hints(sib, old_sig, sib_sig))
    sp = sib_sig.get(param)
    # The class carries the choice: it has no such parameter, or takes it with that value as its default.
    carried = sp is None or (sp.default is not None and same_default(value, sp.default))
    args = site.args[:i] + site.args[i + 1 :] if carried else site.args
    changed = [e for e in default_pins(args, old_sig, sib_sig, edits) if e.name != param]
    dp = pins_for(site, sib, changed, sib_sig, j)
    why = f"with {param}={value} it is {sib.name} now (the class the commit built for it)"
    if dp.hand:
        return Finding(site, op, status, problem, why_not=f"not rewritten: {why}, but {dp.hand_note}")
    own, drops = test_checks(j.evidence, change.old or succ, sib, old_sig, sib_sig, edits)
    values = value_source(site, j.evidence, sib, sib_sig, old_sig, tuple(edits))
    moved = moved_values(j, change.old or succ, sib, old_sig, sib_sig)
    ev = CallEvidence(values, dp.pins, site.scope_names, own, DropEvidence(drops, None, moved), j.off)
    p = plan(args, (old_sig, sib_sig, tuple(edits)), ev)
    if isinstance(p, NoPlan):
        return Finding(site, op, status, problem, why_not=f"not rewritten: {why}, but {as_clause(p.reason)}")
    ops = p.ops
    notes = [f"{old_name} -> {sib.name}: the class built for {param}={value} ({succ.name} has no '{param}')"]
    if carried:
        ops = (*(_shifted(o, i) for o in ops), ArgOp("drop", i))
        notes.append(
            f"{param}={value} dropped: "
            + (f"{sib.name} has it as its default" if sp is not None else f"{sib.name} stands for it")
        )
    plan_ = replace(p, ops=ops, notes=tuple(notes) + p.notes)
    routed = Finding(site, op, status, problem, plan=plan_, info=dp.info, route=sib, trace=p.trace)
    return decided(routed, Found.ROUTED, notes[0], j.off)


def _shifted(o: ArgOp, i: int) -> ArgOp:
    """An operation planned on the call without its argument `i`, on the call with it."""
    return ArgOp(o.op, o.index + 1 if o.index is not None and o.index >= i else o.index, o.name, o.value)


def routes(
    az: ModuleAnalyzer, findings: Sequence[Finding], by_old: Mapping[ClassRef, OpChange]
) -> tuple[list[Finding], dict[ClassRef, ClassRef]]:
    """The file's findings, and old class -> the sibling its name becomes in this file: every use of the
    imported name is a call routed to that one sibling (the import and the name are renamed, as for a
    renamed Op); any other use of the name needs the successor too, and the routed calls are reported
    instead."""
    routed = [f for f in findings if f.route is not None and f.plan is not None]
    if not routed:
        return list(findings), {}
    mi = az.mi
    out: dict[ClassRef, ClassRef] = {}
    by_name: dict[str, list[Finding]] = {}
    for f in routed:
        by_name.setdefault(f.site.func_source, []).append(f)
    reported: dict[int, Finding] = {}
    for local, fs in by_name.items():
        target = mi.imports.get(local)
        gone = {a.old for f in fs for a in f.site.atoms if isinstance(a, Gone)}
        sibs = {f.route for f in fs}
        uses = sum(1 for n in mi.nodes() if isinstance(n, ast.Name) and n.id == local)
        ok = (
            target is not None
            and target[0] == "attr"
            and target[2] == local
            and len(gone) == 1
            and len(sibs) == 1
            and all(f.site.via == "direct" for f in fs)
            and uses == len(fs)
        )
        if ok:
            old_ref, sib = gone.pop(), sibs.pop()
            if sib is not None and old_ref in by_old:
                out[old_ref] = sib
                continue
        for f in fs:
            succ = f.route.name if f.route else "?"
            why = (
                f"not rewritten: with its choice it is {succ} now, but {local} is used elsewhere in this "
                "file too, where it needs another class: split it by hand"
            )
            reported[id(f)] = replace(f, plan=None, route=None, why_not=why)
    return [reported.get(id(f), f) for f in findings], out
