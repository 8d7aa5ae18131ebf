"""Which Op classes changed between two versions, and how.

Compares constructors (inherited across files, so a family base class change
reaches every sibling) and public methods, and pairs a class that disappeared
with the class that replaced it (moved to another module, or renamed with the
same body).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from benchop_hook.analysis.edits import Edit, EditKind, diff
from benchop_hook.analysis.modules import ClassRef
from benchop_hook.analysis.project import Project
from benchop_hook.analysis.signatures import Signature


@dataclass(frozen=True)
class MethodChange:
    name: str
    old_sig: Signature | None
    new_sig: Signature | None
    edits: tuple[Edit, ...]


# A Literal, not an Enum: the status is printed and written to JSON as these very strings.
ChangeStatus = Literal["changed", "moved", "renamed", "removed"]


@dataclass(frozen=True)
class OpChange:
    status: ChangeStatus
    old: ClassRef | None
    new: ClassRef | None
    old_sig: Signature | None
    new_sig: Signature | None
    edits: tuple[Edit, ...]
    methods: tuple[MethodChange, ...] = ()
    via_base: ClassRef | None = None
    path: str | None = None
    evidence: tuple[str, ...] = ()  # renamed/moved: what showed the pairing
    candidates: tuple[ClassRef, ...] = ()  # removed: successors the evidence could not choose between

    @property
    def name(self) -> str:
        return (self.new or self.old).name  # type: ignore[union-attr]  # a change has an old or a new class, or both

    def headline(self) -> str:
        old = f"{self.old.name}{_shown(self.old_sig)}" if self.old else "?"
        if self.status == "removed":
            same = [c for c in self.candidates if self.old is not None and c.name == self.old.name]
            if len(same) == 1:
                return (
                    f"{old} -> removed, or moved to {same[0].qualname} (a class of that name appeared there; "
                    "nothing else says it is the same)"
                )
            if same:
                return (
                    f"{old} -> removed, or moved to one of {', '.join(c.qualname for c in same)} (classes of "
                    "that name appeared there, none with its body)"
                )
            if self.candidates:
                names = ", ".join(c.name for c in self.candidates)
                return f"{old} -> removed, or renamed to one of {names} (the evidence does not say which)"
            return f"{old} -> removed"
        new = f"{self.new.name}{_shown(self.new_sig)}" if self.new else "?"
        where = ""
        if self.status in ("moved", "renamed") and self.old and self.new:
            where = f"  [{self.old.qualname} -> {self.new.qualname}]"
        base = f"  (through base class {self.via_base.name})" if self.via_base else ""
        more = f", and {len(self.evidence) - 1} more" if len(self.evidence) > 1 else ""
        why = f"  (evidence: {self.evidence[0]}{more})" if self.evidence else ""
        return f"{old} -> {new}{where}{base}{why}"

    def as_json(self) -> dict[str, object]:
        return {
            "op": self.name,
            "status": self.status,
            "old": self.old.qualname if self.old else None,
            "new": self.new.qualname if self.new else None,
            "old_signature": self.old_sig.render() if self.old_sig else None,
            "new_signature": self.new_sig.render() if self.new_sig else None,
            "via_base": self.via_base.qualname if self.via_base else None,
            "edits": [e.as_json() for e in self.edits],
            "evidence": list(self.evidence),
            "candidates": [c.qualname for c in self.candidates],
            "methods": [
                {
                    "name": m.name,
                    "old_signature": m.old_sig.render() if m.old_sig else None,
                    "new_signature": m.new_sig.render() if m.new_sig else None,
                    "edits": [e.as_json() for e in m.edits],
                }
                for m in self.methods
            ],
        }


RenameHints = Callable[[ClassRef, Signature, Signature], dict[str, str]]
# (old names, new names) -> {(old name, new name) -> evidence kinds}, for pairs of those names only
RenameVotes = Callable[[set[str], set[str]], dict[tuple[str, str], set[str]]]


def classes_in(project: Project, path: str) -> list[ClassRef]:
    mi = project.at(path)
    if mi is None:
        return []
    return [ClassRef(mi.module, name) for name in mi.classes]


def _method_changes(
    old_p: Project, old: ClassRef, new_p: Project, new: ClassRef, hints: RenameHints | None
) -> tuple[MethodChange, ...]:
    out = []
    for name in sorted(old_p.method_names(old) | new_p.method_names(new)):
        o, n = old_p.method(old, name), new_p.method(new, name)
        if o is None or n is None or o == n:
            continue
        edits = tuple(diff(o, n, hints(new, o, n) if hints else None))
        if edits:
            out.append(MethodChange(name, o, n, edits))
    return tuple(out)


def _init_owner(project: Project, ref: ClassRef) -> ClassRef | None:
    """The class whose `__init__` `ref(...)` runs, when `ref` does not define its own."""
    ci = project.class_info(ref)
    if ci is None or (ci.init is not None and not ci.init_passthrough):
        return None
    for anc in project.ancestors(ref):
        a = project.class_info(anc)
        if a is not None and a.init is not None and not a.init_passthrough:
            return anc
    return None


def _compare(
    status: ChangeStatus,
    old_p: Project,
    old: ClassRef,
    new_p: Project,
    new: ClassRef,
    hints: RenameHints | None,
    via: ClassRef | None = None,
) -> OpChange | None:
    if via is None:
        via = _init_owner(new_p, new)
    o, n = old_p.constructor(old), new_p.constructor(new)
    edits: tuple[Edit, ...] = ()
    if o is not None and n is not None and o != n:
        edits = tuple(diff(o, n, hints(new, o, n) if hints else None))
    methods = _method_changes(old_p, old, new_p, new, hints)
    if status == "changed" and not edits and not methods:
        return None
    return OpChange(status, old, new, o, n, edits, methods, via, new_p.class_path(new))


def _same_class_elsewhere(old_p: Project, old: ClassRef, new_p: Project, new: ClassRef) -> bool:
    """A class of the same name in another module is the class that left its module (which stays): the same
    body, or the same constructor taking something (Megatron ffbc43f's `MambaInferenceStateConfig`, moved
    to `inference/config.py` with its fields). Two backends' `BwOp()` share a name and an empty
    constructor, and nothing else (xformers 44b0d07)."""
    if _same_body(old_p, old, new_p, new):
        return True
    o = old_p.constructor(old)
    return o is not None and bool(o.params) and o == new_p.constructor(new)


def _renamed_in_place(old_p: Project, vanished: set[ClassRef], new_p: Project, new: ClassRef) -> bool:
    """A class that appeared where another of the same body vanished from the same module: renamed there."""
    return any(v.module == new.module and _same_body(old_p, v, new_p, new) for v in vanished)


def _same_body(old_p: Project, old: ClassRef, new_p: Project, new: ClassRef) -> bool:
    a, b = old_p.class_info(old), new_p.class_info(new)
    return a is not None and b is not None and a.fingerprint == b.fingerprint


def _compatible(old_p: Project, old: ClassRef, new_p: Project, new: ClassRef) -> bool:
    """A successor's constructor asks for nothing the old one did not take (unknown ones pass: only the name
    is followed)."""
    if _is_enum(old_p, old) != _is_enum(new_p, new):
        # An enum's members are read, not built: a class in its place is no successor, whatever the exports
        # say.
        return False
    o, n = old_p.constructor(old), new_p.constructor(new)
    if o is None or n is None:
        return True
    names = {p.name for p in o.params}
    if all(p.name in names for p in n.params if p.required):
        return True
    # Required parameters renamed slot for slot ((d_in, h_in, w_in) -> (d, h, w)) are no new demand.
    names |= {e.new_name for e in diff(o, n) if e.kind is EditKind.RENAMED and e.new_name}
    return all(p.name in names for p in n.params if p.required)


_ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"})


def _is_enum(project: Project, ref: ClassRef) -> bool:
    ci = project.class_info(ref)
    return ci is not None and any(b.rsplit(".", 1)[-1] in _ENUM_BASES for b in ci.bases)


def _pair_renamed(
    old_p: Project,
    new_p: Project,
    gone: list[ClassRef],
    fresh: list[ClassRef],
    votes: RenameVotes | None,
    paired: Collection[ClassRef] = (),
) -> Iterable[tuple[ClassRef, ClassRef | None, tuple[str, ...], tuple[ClassRef, ...]]]:
    """Each class that disappeared with its successor (and the evidence), or None and the candidates.
    `paired`: classes that appeared and an earlier step already paired (moved under their own name)."""
    if not gone:
        return []
    from benchop_hook.analysis.renames import ELIMINATION, pair_names

    def unique(refs: list[ClassRef]) -> dict[str, ClassRef]:
        count: dict[str, int] = {}
        for r in refs:
            count[r.name] = count.get(r.name, 0) + 1
        return {r.name: r for r in refs if count[r.name] == 1}

    olds, news = unique(gone), unique(fresh)
    pairing = pair_names(
        sorted(olds),
        sorted(news),
        votes(set(olds), set(news)) if (votes is not None and news) else {},
        lambda o, n: _compatible(old_p, olds[o], new_p, news[n]),
    )
    out: list[tuple[ClassRef, ClassRef | None, tuple[str, ...], tuple[ClassRef, ...]]] = []
    taken: set[ClassRef] = set()
    for ref in gone:
        hit = pairing.pairs.get(ref.name) if olds.get(ref.name) == ref else None
        if hit is not None:
            succ = news[hit[0]]
            taken.add(succ)
            out.append((ref, succ, hit[1], ()))
    rest: list[tuple[ClassRef, tuple[ClassRef, ...]]] = []
    for ref in gone:
        if any(r is ref for r, *_ in out):
            continue
        # The same class body under another name: unambiguous only when exactly one class that appeared has
        # it.
        same = [r for r in fresh if r not in taken and _same_body(old_p, ref, new_p, r)]
        if len(same) == 1:
            taken.add(same[0])
            out.append((ref, same[0], ("the class body is unchanged",), ()))
            continue
        cands = tuple(news[n] for n in pairing.ambiguous.get(ref.name, ()) if news[n] not in taken)
        rest.append((ref, cands))
    # Elimination comes last: every proven pair is taken first, whatever the order of the classes.
    proven = {r.name: s.name for r, s, *_ in out if s is not None}
    taken |= set(paired)
    eliminated = {ref: _by_elimination(old_p, new_p, ref, taken, proven) for ref, _ in rest}
    for ref, cands in rest:
        succ = eliminated[ref]
        if succ is not None and sum(s == succ for s in eliminated.values()) == 1:
            out.append((ref, succ, (ELIMINATION,), ()))
        else:
            out.append((ref, None, (), cands))
    return out


def _by_elimination(
    old_p: Project, new_p: Project, ref: ClassRef, taken: set[ClassRef], proven: Mapping[str, str]
) -> ClassRef | None:
    """The class that took `ref`'s place, when nothing but elimination names it and it needs all three of:
    the only class that appeared in `ref`'s module once the proven pairs (`taken`, `proven`) are set aside,
    the same constructor (parameters, kinds, defaults), and `ref`'s place in the module's export list. A
    rename to an unrelated word (`BarLoss` -> `BazCriterion`) leaves no other trace in a commit that renames
    its neighbours with evidence."""
    from benchop_hook.analysis.renames import takes_its_place

    old_mi, new_mi = old_p.module(ref.module), new_p.module(ref.module)
    if old_mi is None or new_mi is None:
        return None
    # Every class that appeared counts, Op or not: a helper class added beside it is a second candidate.
    left = [
        ClassRef(ref.module, n)
        for n in new_mi.classes
        if n not in old_mi.classes and ClassRef(ref.module, n) not in taken
    ]
    if len(left) != 1:
        return None
    succ = left[0]
    o, n = old_p.constructor(ref), new_p.constructor(succ)
    # A constructor that takes nothing says nothing of which class it is (two backends' `BwOp()`).
    if o is None or n is None or not o.params or _shape(o) != _shape(n):
        return None
    if not _compatible(old_p, ref, new_p, succ):
        return None
    lists = _export_lists(old_p, new_p, ref.module)
    return succ if any(takes_its_place(ref.name, succ.name, a, b, proven) for a, b in lists) else None


def _shape(sig: Signature) -> tuple[tuple[str, str, str | None], ...]:
    """What a caller binds against: each parameter's name, kind and default (annotations aside)."""
    return tuple((p.name, p.kind.value, p.default) for p in sig.params)


def _export_lists(
    old_p: Project, new_p: Project, module: str
) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The module's `__all__` before and after, and its package's, where both versions have one."""
    out: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    for name in (module, module.rpartition(".")[0]):
        a, b = old_p.module(name) if name else None, new_p.module(name) if name else None
        if a is not None and b is not None and a.all_names is not None and b.all_names is not None:
            out.append((a.all_names, b.all_names))
    return out


def detect(
    old_p: Project,
    new_p: Project,
    old_paths: Iterable[str],
    new_paths: Iterable[str],
    op_paths: Callable[[], Iterable[str]],
    hints: RenameHints | None = None,
    rename_votes: RenameVotes | None = None,
) -> list[OpChange]:
    """Op changes between `old_p` and `new_p`, given the op files that changed on each side."""
    old_refs = {r for p in old_paths for r in classes_in(old_p, p)}
    new_refs = {r for p in new_paths for r in classes_in(new_p, p)}
    found = _Found()
    _compare_kept(old_p, new_p, old_refs & new_refs, hints, found)
    appeared = sorted(new_refs - old_refs, key=lambda r: r.qualname)
    leftover = _follow_vanished(old_p, new_p, old_refs - new_refs, appeared, hints, found)
    fresh = [r for r in appeared if r not in found.paired and new_p.builds(r)]
    _pair_leftover(old_p, new_p, leftover, fresh, hints, rename_votes, found)
    _through_bases(old_p, new_p, op_paths, hints, found)
    return sorted(found.changes.values(), key=lambda c: (c.path or "", c.name))


@dataclass
class _Found:
    """What `detect`'s steps have found so far: the changes, by new class (by old class for a removal),
    and the new classes already paired with an old one, which no later step may pair again."""

    changes: dict[ClassRef, OpChange] = field(default_factory=dict)
    paired: set[ClassRef] = field(default_factory=set)


def _compare_kept(
    old_p: Project, new_p: Project, kept: set[ClassRef], hints: RenameHints | None, found: _Found
) -> None:
    """Classes of a changed op file on both sides, compared under their own name."""
    for ref in sorted(kept, key=lambda r: r.qualname):
        if old_p.builds(ref) or new_p.builds(ref):
            ch = _compare("changed", old_p, ref, new_p, ref, hints)
            if ch:
                found.changes[ref] = ch
        found.paired.add(ref)


def _follow_vanished(
    old_p: Project,
    new_p: Project,
    vanished: set[ClassRef],
    appeared: list[ClassRef],
    hints: RenameHints | None,
    found: _Found,
) -> list[ClassRef]:
    """Op classes gone from their file that are still importable under their old name, or that moved to
    a file where a class of the same name appeared. Returns the others: renamed or removed."""
    leftover: list[ClassRef] = []
    for ref in sorted(vanished, key=lambda r: r.qualname):
        if not old_p.builds(ref):
            continue
        still = new_p.resolve_name(ref.module, ref.name)
        if isinstance(still, ClassRef):
            # Still importable under its old name (a re-export alias, or moved but re-exported).
            status: ChangeStatus = (
                "changed" if still == ref else ("renamed" if still.name != ref.name else "moved")
            )
            ch = _compare(status, old_p, ref, new_p, still, hints)
            if ch:
                found.changes[still] = ch
            found.paired.add(still)
            continue
        mi = new_p.module(ref.module)
        if mi is not None and ref.name in mi.names:
            # The name lives on as something else (a factory function that picks a class): calls through it
            # may bind; which class it builds is the factory's business, so no class is its successor here.
            continue
        same_name = [r for r in appeared if r.name == ref.name and r not in found.paired and new_p.builds(r)]
        if not same_name:
            leftover.append(ref)
            continue
        if len(same_name) > 1:
            # lmdeploy 344e126: the module moved verbatim to legacy/, and a profiling script of the same
            # commit added its own `Engine`. Which one is the class is not the paths' order: the one with
            # the same body, or no one.
            same_name = [r for r in same_name if _same_body(old_p, ref, new_p, r)] or same_name
            if len(same_name) > 1:
                found.changes[ref] = _removed(old_p, ref, tuple(same_name))
                continue
        successor = same_name[0]
        if _renamed_in_place(old_p, vanished - {ref}, new_p, successor) and not _same_body(
            old_p, ref, new_p, successor
        ):
            # Megatron 3a51832: a deleted factory's name given to a base class renamed in its own module. The
            # base's successor is no move of the factory: its import was pointed at the unrelated base.
            found.changes[ref] = _removed(old_p, ref, (successor,))
            continue
        if new_p.has_module(ref.module) and not _same_class_elsewhere(old_p, ref, new_p, successor):
            # xformers 44b0d07: the Triton `BwOp` deleted from a module that stays, and an unrelated CK
            # backend's `BwOp` added elsewhere. A name alone is no move: each call is a hand edit, naming it.
            found.changes[ref] = _removed(old_p, ref, (successor,))
            continue
        found.paired.add(successor)
        ch = _compare("moved", old_p, ref, new_p, successor, hints)
        if ch:
            found.changes[successor] = ch
    return leftover


def _removed(old_p: Project, ref: ClassRef, candidates: tuple[ClassRef, ...]) -> OpChange:
    """`ref` removed, with the classes the evidence could not choose between as its successor."""
    return OpChange(
        "removed",
        ref,
        None,
        old_p.constructor(ref),
        None,
        (),
        (),
        None,
        old_p.class_path(ref),
        candidates=candidates,
    )


def _pair_leftover(
    old_p: Project,
    new_p: Project,
    leftover: list[ClassRef],
    fresh: list[ClassRef],
    hints: RenameHints | None,
    votes: RenameVotes | None,
    found: _Found,
) -> None:
    """Each class left over, paired with the class that replaced it when the evidence says which;
    else removed, with the candidates the evidence could not choose between."""
    for ref, successor, evidence, candidates in _pair_renamed(
        old_p, new_p, leftover, fresh, votes, found.paired
    ):
        if successor is None:
            found.changes[ref] = _removed(old_p, ref, candidates)
            continue
        found.paired.add(successor)
        status: ChangeStatus = "renamed" if successor.name != ref.name else "moved"
        ch = _compare(status, old_p, ref, new_p, successor, hints)
        if ch:
            found.changes[successor] = replace(ch, evidence=evidence)


def _through_bases(
    old_p: Project,
    new_p: Project,
    op_paths: Callable[[], Iterable[str]],
    hints: RenameHints | None,
    found: _Found,
) -> None:
    """A constructor change in a base class reaches every subclass that inherits it, in any op file."""
    frontier = {c.new for c in found.changes.values() if c.new is not None and (c.edits or c.methods)}
    seen = set(found.paired)
    while frontier:
        names = {r.name for r in frontier}
        reached: set[ClassRef] = set()
        for path in op_paths():
            data = new_p.snapshot.read(path)
            if data is None or not any(n.encode() in data for n in names):
                continue
            for ref in classes_in(new_p, path):
                if ref in seen or not new_p.is_op(ref):
                    continue
                # The nearest changed ancestor, in base order: one answer whatever the hash seed.
                through = next((b for b in new_p.ancestors(ref) if b in frontier), None)
                if through is None:
                    continue
                seen.add(ref)
                old_ref = ref if old_p.class_info(ref) is not None else None
                if old_ref is None:
                    continue
                ch = _compare("changed", old_p, old_ref, new_p, ref, hints, via=through)
                if ch:
                    found.changes[ref] = ch
                    reached.add(ref)
        frontier = reached


SHOWN_SIGNATURE = 500  # characters: a config class of 300 fields rendered whole is a 20 KB line


def _shown(sig: Signature | None) -> str:
    """A signature as the headline shows it: whole, or its size when it is too long to read (the edits,
    on the next line, say what changed; the JSON report keeps it whole)."""
    if sig is None:
        return "(?)"
    text = sig.render()
    return text if len(text) <= SHOWN_SIGNATURE else f"({len(sig.params)} parameters)"
