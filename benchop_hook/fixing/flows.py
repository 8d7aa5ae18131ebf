"""What a changed constructor's own body says of its parameters (analysis/flow.py), read once per change and
put where the rules read it: renames the body shows become rename edits (BO601), and each removed or added
parameter's flow goes into the questions about it."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from benchop_hook.analysis.alignment import reached
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.edits import Edit, EditKind
from benchop_hook.analysis.flow import Flow, param_flow
from benchop_hook.analysis.flow import Renamed as FlowRenamed
from benchop_hook.analysis.signatures import Signature, same_default
from benchop_hook.fixing.judging import Judging, class_nodes
from benchop_hook.fixing.questions import introduced
from benchop_hook.rules import decide
from benchop_hook.rules.facts import BodyRename
from benchop_hook.rules.verdicts import Rename

_ADDED = (EditKind.ADDED_REQUIRED, EditKind.ADDED_OPTIONAL)


def body_flow(
    change: OpChange, old_sig: Signature, new_sig: Signature, edits: Sequence[Edit], j: Judging
) -> Flow | None:
    """The constructor's flow for a change of its class, once per change (None where no parameter came or
    went: the rules that read it have nothing to ask; or where the class's code is not found)."""
    ref = change.new
    if ref is None or not any(e.kind in (EditKind.REMOVED, *_ADDED) for e in edits):
        return None
    old_ref = change.old or ref
    key = ("flow", old_ref, ref, old_sig, new_sig)
    if key not in j.memo:
        old_p = j.commit_old_p or j.old_p
        old_c, new_c = class_nodes(old_p, old_ref), class_nodes(j.new_p, ref)
        names = tuple(p.name for p in old_sig.params), tuple(p.name for p in new_sig.params)
        # Classes that share their constructor's code (a family that inherits it from one base) share its
        # flow: the functions read, not the classes, decide it.
        same = ("flow-of", reached(old_c, "__init__"), reached(new_c, "__init__"), names)
        if same not in j.memo:
            j.memo[same] = param_flow(old_c, new_c, *names) if old_c and new_c else None
        j.memo[key] = j.memo[same]
    found: Flow | None = j.memo[key]
    return found


def with_body_renames(
    edits: Sequence[Edit], flow: Flow | None, sigs: tuple[Signature, Signature], off: frozenset[str]
) -> tuple[Edit, ...]:
    """`edits`, with each removed and added pair that the body shows to be one parameter renamed (BO601) made
    a rename edit (`by="body"`), and no slot left contested by the new name."""
    if flow is None:
        return tuple(edits)
    old_sig, new_sig = sigs
    out = list(edits)
    for pf in flow.old:
        e = pf.entry
        if not isinstance(e, FlowRenamed) or e.old == e.new:
            continue
        gone = next((x for x in out if x.kind is EditKind.REMOVED and x.name == e.old), None)
        came = next((x for x in out if x.kind in _ADDED and x.name == e.new), None)
        op, np_ = old_sig.get(e.old), new_sig.get(e.new)
        if gone is None or came is None or op is None or np_ is None:
            continue
        q = BodyRename(
            e.old,
            e.new,
            e.exact,
            same_default=(op.default is None) == (np_.default is None)
            and (op.default is None or np_.default is None or same_default(op.default, np_.default)),
            same_annotation=not op.annotation
            or not np_.annotation
            or _norm(op.annotation) == _norm(np_.annotation),
        )
        d = decide.body_rename(q, off)
        if d is None or not isinstance(d.verdict, Rename):
            continue
        renamed = Edit(
            EditKind.RENAMED,
            e.old,
            new_name=e.new,
            old_index=gone.old_index,
            new_index=came.new_index,
            old_kind=gone.old_kind,
            new_kind=came.new_kind,
            old_default=gone.old_default,
            new_default=came.new_default,
            by="body",
        )
        out = [renamed if x is gone else x for x in out if x is not came]
        out = [dataclasses.replace(x, contested=None) if x.contested == e.new else x for x in out]
    return tuple(out)


def _norm(annotation: str) -> str:
    return "".join(annotation.split())


def introduced_defaults(edits: Sequence[Edit], flow: Flow | None) -> list[Edit]:
    """A new optional parameter read where the old body had a literal other than its default: for a call that
    leaves it out, its default changed from that literal (the pin rules decide)."""
    out = []
    for e in edits:
        lit = introduced(flow, e.name) if e.kind is EditKind.ADDED_OPTIONAL else None
        if lit is not None and e.new_default is not None and not same_default(lit, e.new_default):
            out.append(Edit(EditKind.DEFAULT_CHANGED, e.name, old_default=lit, new_default=e.new_default))
    return out
