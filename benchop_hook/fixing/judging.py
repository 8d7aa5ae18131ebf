"""The rules judging shares with routing a choice: what a pass fixes for every call (`Judging`), which
changed defaults a call relies on (`pins_for`), and what the updated tests settle (`test_checks`)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchop_hook.analysis.bodies import (
    defaults_built_from,
    parts_built_from,
    unnamed,
)
from benchop_hook.analysis.callsites import Arg
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.edits import (
    Edit,
    gained_elsewhere,
    public_callables,
    read_from_another,
    related_names,
)
from benchop_hook.analysis.evidence import TestEvidence
from benchop_hook.analysis.examples import bound_args
from benchop_hook.analysis.modules import ClassRef
from benchop_hook.analysis.project import Project
from benchop_hook.analysis.signatures import Kind, Signature
from benchop_hook.fixing.questions import BUILT_FROM, FORGOTTEN, PART_OF


@dataclass(frozen=True)
class Judging:
    """What judging a benchmark file needs, fixed for the whole pass."""

    new_p: Project
    old_p: Project  # the version the benchmark calls were written against
    evidence: TestEvidence
    changes: tuple[OpChange, ...]
    pin_defaults: bool = True
    # The range's old version: a choice is routed to a sibling class only when the commit built it (None in
    # --all-files mode, where no commit is at hand).
    commit_old_p: Project | None = None
    # Successors of every change known to the pass (a sibling class for a choice is no other's successor).
    successors: frozenset[ClassRef] = frozenset()
    by_new: Mapping[ClassRef, OpChange] = field(default_factory=dict, compare=False)
    by_old: Mapping[ClassRef, OpChange] = field(default_factory=dict, compare=False)
    # Which paths are benchmark files: their version where the hook runs is the working tree's, not the
    # commit's, so what the commit's version of one gives says nothing certain (None: unknown).
    bench_path: Callable[[str], bool] | None = field(default=None, compare=False)
    # The change edited the function around the call being judged (not the call itself): the engineer read it
    # against the new interface and left the call on the new defaults.
    edited_around: bool = False
    # What judging works out once per change for every call (keyed by the change's classes and signatures).
    memo: dict[object, Any] = field(default_factory=dict, compare=False)
    off: frozenset[str] = frozenset()  # the rules turned off ([tool.bench-op] ignore)

    @classmethod
    def of(
        cls,
        new_p: Project,
        old_p: Project,
        evidence: TestEvidence,
        changes: Sequence[OpChange],
        *,
        pin_defaults: bool,
        commit_old_p: Project | None,
        successors: frozenset[ClassRef],
        bench_path: Callable[[str], bool] | None = None,
        off: frozenset[str] = frozenset(),
    ) -> Judging:
        by_new = {c.new: c for c in changes if c.new is not None}
        by_old = {c.old: c for c in changes if c.old is not None}
        return cls(
            new_p,
            old_p,
            evidence,
            tuple(changes),
            pin_defaults,
            commit_old_p,
            successors,
            by_new,
            by_old,
            bench_path,
            off=off,
        )


def test_checks(
    ev: TestEvidence,
    old_ref: ClassRef | None,
    new_ref: ClassRef | None,
    old_sig: Signature,
    new_sig: Signature,
    edits: Sequence[Edit],
) -> tuple[Callable[[str], bool] | None, Callable[[str, str], bool] | None]:
    """What the updated tests settle for `plan`: a contested slot (`own`) and a dropped choice (`drops`)."""
    if old_ref is None or new_ref is None:
        return None, None
    o, n = old_ref, new_ref

    def own(param: str) -> bool:
        return ev.passes_own_name(n, param, new_sig, old_sig, edits)

    def drops(param: str, value: str) -> bool:
        return ev.drops_same_way(o, n, param, value, old_sig, new_sig)

    return own, drops


_SPLATS = (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)


def moved_values(
    j: Judging,
    old_ref: ClassRef,
    new_ref: ClassRef,
    old_sig: Signature,
    new_sig: Signature,
    method: str | None = None,
) -> dict[str, str]:
    """Removed parameter -> where the commit moved its value: the new constructor reads it from another of
    its arguments; or, for one that had a default, another function or method of the class's module gained
    a parameter named like it, the same method of another class takes it, or the updated tests now pass it
    to one of them. Only the first for a required one: a required parameter removed is most often one the
    Op now reads from its inputs (`M` from the tensor's shape), and a kernel function that takes it now is
    no move of the caller's value."""
    added = [q.name for q in new_sig.params if old_sig.get(q.name) is None]
    gone = [p for p in old_sig.params if new_sig.get(p.name) is None and p.kind not in _SPLATS]
    # FBGEMM: `load_factor` renamed `pruning_hash_load_factor` in the constructor and in a method alike. A
    # parameter the constructor itself gained under a related name is no evidence the value went elsewhere.
    removed = [
        p.name for p in gone if p.default is not None and not any(related_names(p.name, q) for q in added)
    ]
    new_mi = j.new_p.module(new_ref.module) if gone else None
    if new_mi is None or new_mi.tree is None:
        return {}
    old_p = j.commit_old_p
    old_mi = old_p.module(new_ref.module) if old_p is not None and old_p.has_module(new_ref.module) else None
    old_tree = old_mi.tree if old_mi is not None else None
    if method is not None:
        if old_tree is None or not removed:
            return {}
        return gained_elsewhere(old_tree, new_mi.tree, new_ref.name, removed, method)
    read = read_from_another(new_mi.tree, new_ref.name, [p.name for p in gone])
    if not removed:
        return read
    callees = public_callables(new_mi.tree, new_ref.name)
    out = j.evidence.moved_values(old_ref, new_ref, removed, old_sig, new_sig, callees)
    if old_tree is None:
        return {**out, **read}
    # The commit's own interface first: it names where the value went.
    return {**out, **gained_elsewhere(old_tree, new_mi.tree, new_ref.name, removed), **read}


def defaults_lost(
    j: Judging,
    old_ref: ClassRef,
    new_ref: ClassRef,
    old_sig: Signature,
    new_sig: Signature,
    args: Sequence[Arg],
    bv: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Removed parameter the call passes -> why dropping it loses a value: the old constructor built the
    default of another parameter from it, which the call leaves out (`defaults_built_from`), or a part the
    new class no longer has (`parts_built_from`); or, for an optional one, nothing in the new class names it
    any more (`unnamed`: what the value chose is gone with it, where an Op that reads it from its inputs
    still names it), unless the commit's tests drop it too. Only for a call with no splat: one whose
    `**kwargs` may pass that parameter is the run's to decide, unless `bv` says what it surely passes."""
    bv = bv if bv is not None else bound_args(args, old_sig)
    old_p = j.commit_old_p
    if not bv or old_p is None:
        return {}
    key = (old_ref, new_ref, old_sig, new_sig)
    if key not in j.memo:
        # Every pair the change has, once: each call then keeps those it passes the one and leaves the other.
        removed = [p.name for p in old_sig.params if new_sig.get(p.name) is None]
        kept = [p.name for p in new_sig.params if old_sig.get(p.name) is not None]
        old_c, new_c = class_nodes(old_p, old_ref), class_nodes(j.new_p, new_ref)
        optional = _optional_removed(old_sig, new_sig)
        j.memo[key] = (
            defaults_built_from(old_c, new_c, removed, kept),
            parts_built_from(old_c, new_c, removed),
            unnamed(new_c, optional) if new_c else set(),
        )
    built, parts, forgotten = j.memo[key]
    out: dict[str, str] = {}
    for r, p in built:
        if r in bv and p not in bv:
            out.setdefault(r, BUILT_FROM + p)
    for r, part in parts:
        if r in bv:
            out.setdefault(r, PART_OF + part)
    for r in sorted(forgotten):
        # The commit's own tests dropping it is evidence enough that nothing was lost.
        if r in bv and r not in out and not j.evidence.drops_param(old_ref, new_ref, r, old_sig, new_sig):
            out[r] = FORGOTTEN
    return out


def forgotten_by_method(
    j: Judging, ref: ClassRef, old_sig: Signature, new_sig: Signature, args: Sequence[Arg]
) -> dict[str, str]:
    """A method's removed optional parameter the call passes, that nothing in the new class names any more
    (`unnamed`): as for a constructor's, dropping its value drops what it chose."""
    bv = bound_args(args, old_sig)
    if not bv:
        return {}
    optional = [p for p in _optional_removed(old_sig, new_sig) if p in bv]
    new_c = class_nodes(j.new_p, ref) if optional else []
    return {r: FORGOTTEN for r in sorted(unnamed(new_c, optional))} if new_c else {}


def _optional_removed(old_sig: Signature, new_sig: Signature) -> list[str]:
    """The parameters with a default that the change removed, but for those a new parameter of a related
    name may have taken over (`load_factor` -> `pruning_hash_load_factor`)."""
    added = [p.name for p in new_sig.params if old_sig.get(p.name) is None]
    return [
        p.name
        for p in old_sig.params
        if new_sig.get(p.name) is None
        and p.default is not None
        and p.kind not in _SPLATS
        and not any(related_names(p.name, q) for q in added)
    ]


def class_nodes(project: Project, ref: ClassRef) -> list[ast.ClassDef]:
    """The class's definition and its ancestors' found in the repository."""
    infos = (project.class_info(r) for r in (ref, *project.ancestors(ref)))
    return [ci.node for ci in infos if ci is not None and ci.node is not None]
