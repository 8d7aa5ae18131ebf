"""Judge each benchmark call against the Op changes that reach it: `judge_file(path, data, judging)`.

Pure over its inputs: the two versions of the repository (`Project`s, which parse lazily), the changes,
the updated tests' evidence and the configuration come in as one frozen `Judging`; a frozen
`FileVerdict` comes out. The rewrite is a later stage (`apply.py`).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import replace

from benchop_hook.analysis.callsites import UNKNOWN, CallSite, Gone, Instance
from benchop_hook.analysis.cases import Cases
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.locate import analyze
from benchop_hook.analysis.modules import ClassRef, ModuleInfo
from benchop_hook.analysis.project import Project
from benchop_hook.fixing.context import change_signatures
from benchop_hook.fixing.imports import import_fixes, imports_in_functions
from benchop_hook.fixing.judging import (
    Judging,
)
from benchop_hook.fixing.one_change import (
    _still_binds,
    judge_one,
)
from benchop_hook.fixing.pins import DefaultPins
from benchop_hook.fixing.plan import (
    ArgOp,
    Status,
    judge_now,
)
from benchop_hook.fixing.results import (
    FileVerdict,
    Finding,
    ImportNote,
    decided,
    import_of,
    written_site,
)
from benchop_hook.rules.facts import Found


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
        around = authored and not mine and cases.edited_around((site.lineno, site.end_lineno), authored)
        jj = replace(j, edited_around=True) if around else j
        f = judge_authored(site, j) if mine else judge_call(site, jj, cases)
        f = through_an_attribute(site, f, j, az.mi)
        if f is not None:
            findings.append(f)
    routed, route_map = routes(az, findings, j.by_old)
    imports, renames, notes = import_fixes(az.mi, j, route_map, imports_in_functions(data))
    removed = _removed_imports(path, data, notes, j)
    routed += removed + _gone_members(path, data, az.mi, j)
    # A note the finding on its import statement says again is left out: one line per thing to do.
    notes = [
        n for n in notes if not any(f.op == n.name and n.module and n.module in f.problem for f in removed)
    ]
    if not routed and not imports and not reaches:
        return None
    reached = tuple(dict.fromkeys(reaches))
    failing = frozenset(
        (e.old_module, e.old_name) for e in imports if import_fails(j, e.old_module, e.old_name)
    )
    return FileVerdict(
        path, data, tuple(routed), tuple(imports), renames, tuple(notes), reaches=reached, failing=failing
    )


def _removed_imports(path: str, data: bytes, notes: Sequence[ImportNote], j: Judging) -> list[Finding]:
    """A class removed with no successor that the file imports, where that import provably fails: a hand
    edit on the import statement (torchao 8d4a921: `NVFP4MMConfig` left in an import whose other names were
    rewritten, and "can rewrite 1 call", exit 0, over a file that failed at import)."""
    out = []
    for n in notes:
        if n.module is None or n.successor is not None or not import_fails(j, n.module, n.name):
            continue
        site = import_of(path, data, n.module, n.name)
        if site is not None:
            problem = f"imports {n.name} from {n.module}, which was removed with no successor"
            gone = Finding(site, n.name, Status.GONE, problem)
            out.append(decided(gone, Found.IMPORT_OF_REMOVED, "", j.off))
    return out


def _gone_members(path: str, data: bytes, mi: ModuleInfo, j: Judging) -> list[Finding]:
    """`Old.member` in the file, where the commit renamed or moved the class and its successor has no such
    member (pyg 1acbf5dd: `DiffNorm` became `DiffGroupNorm` and its static `groupDistanceRatio` became
    `group_distance_ratio`): the import edit alone leaves an AttributeError. A hand edit on that line."""
    local: dict[str, OpChange] = {}
    for here, target in mi.imports.items():
        old = j.old_p.resolve_name(target.module, target.name) if target.kind == "attr" else None
        change = j.by_old.get(old) if isinstance(old, ClassRef) else None
        if (
            change is not None
            and change.old is not None
            and change.new is not None
            and change.new != change.old
        ):
            local[here] = change
    out: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for node in mi.nodes() if local else ():
        if not (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in local
            and not node.attr.startswith("__")
            and (node.value.id, node.attr) not in seen
        ):
            continue
        change = local[node.value.id]
        assert change.old is not None and change.new is not None
        before, after = _members(j.old_p, change.old), _members(j.new_p, change.new)
        if before is not None and after is not None and node.attr in before and node.attr not in after:
            seen.add((node.value.id, node.attr))
            problem = f"{change.new.name} has no '{node.attr}' (the commit removed or renamed it)"
            gone = Finding(written_site(path, data, node), change.old.name, Status.BROKEN, problem)
            out.append(decided(gone, Found.MEMBER_GONE, "", j.off))
    return out


# Bases that give a class no members a benchmark would read through it (`nn.Module` gives `forward`, `to`).
_BARE_BASES = frozenset({"object", "ABC", "Generic", "Protocol"})


def _members(project: Project, ref: ClassRef) -> set[str] | None:
    """The names a class and its ancestors define in their bodies: methods, and class-level assignments;
    None when a base outside the repository (`nn.Module`) may define more."""
    out = set(project.method_names(ref))
    for r in (ref, *project.ancestors(ref)):
        if any(not isinstance(b, ClassRef) and b.split(".")[-1] not in _BARE_BASES for b in project.bases(r)):
            return None
        ci = project.class_info(r)
        for item in ci.node.body if ci is not None and ci.node is not None else ():
            targets = (
                item.targets
                if isinstance(item, ast.Assign)
                else [item.target]
                if isinstance(item, ast.AnnAssign)
                else []
            )
            out.update(t.id for t in targets if isinstance(t, ast.Name))
    return out


def import_fails(j: Judging, module: str, name: str) -> bool:
    """`from module import name` raises ImportError in the new version, provably: the module is gone, or it
    binds no such name (top-level statement or submodule) and has neither a star import nor a module
    `__getattr__` that could give it. Never for a benchmark module (torchao bdd0fcc: the commit's version of
    `benchmarks/.../utils.py` dropped a name the working tree's version, which the hook sees, still gives)."""
    path = j.new_p.path_of(module) or j.old_p.path_of(module)
    if j.bench_path is None or (path is not None and j.bench_path(path)):
        return False  # a benchmark module is as the working tree has it, which the commit does not say
    if not j.new_p.has_module(module):
        return True
    mi = j.new_p.module(module)
    if mi is None or mi.error or mi.star_imports or "__getattr__" in mi.names:
        return False
    return name not in mi.names and name not in mi.imports and not j.new_p.has_module(f"{module}.{name}")


def changes_reaching(site: CallSite, j: Judging) -> tuple[list[OpChange], int]:
    """The changes of the classes that can reach the call and that matter to it; and how many classes
    can."""
    method = site.method
    relevant: list[OpChange | None] = []
    for a in sorted(site.atoms, key=repr):  # a set: in one order, so the change named is the same each run
        if isinstance(a, ClassRef) and method is None:
            relevant.append(j.by_new.get(a))
        elif isinstance(a, Instance) and method is not None:
            gone = a.cls not in j.by_new and j.new_p.class_info(a.cls) is None
            relevant.append(j.by_old.get(a.cls) if gone else j.by_new.get(a.cls))
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
    if site.via == "partial":
        return _partial(site, op, changed, j)
    others = len(changed) != n_relevant  # classes whose signatures did not change reach it too
    unknown = UNKNOWN in site.atoms or others

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
    # `configs[name]()` is a direct call too: what it reaches is every class of the dict, and an edit made for
    # the one that changed (a pinned default, a renamed keyword) would change or break the others' cases.
    if unknown and (site.via != "direct" or others):
        found = [judge_one(site, op, cs[0], j, cases) for cs in distinct.values()]
        if all(f is None for f in found):
            return None  # it binds unchanged for every changed class, and the others did not change
        if all(f is None or (f.plan is not None and not f.plan.ops and not f.hand) for f in found):
            # Only the import follows a renamed or moved class: the call itself stays as it is for all.
            return next(f for f in found if f is not None)
        other = "other values" if UNKNOWN in site.atoms else "Ops whose signatures did not change"
        if all(f is None or (f.status is Status.UNKNOWN and f.plan is None) for f in found):
            # Only a run can tell for the changed classes, and the others bind as they did: so for the call.
            first = next(f for f in found if f is not None)
            return replace(first, info=(*first.info, f"reached through {site.via} by {op} and {other}"))
        parts = [
            f"{', '.join(sorted(c.name for c in cs))}: {_fix_of(site, f)}"
            for cs, f in zip(distinct.values(), found)
        ]
        if others:
            parts.append("the others: no change needed")
        why = "the classes that can reach this call don't agree on one fix: update it by hand ("
        said = Finding(
            site, op, Status.AMBIGUOUS, f"reached through {site.via} by {op} and {other}", method=method
        )
        return decided(said, Found.CLASSES_DISAGREE, why + "; ".join(parts) + ")", j.off)
    if len(keys) > 1:
        return _several_changes(site, op, list(distinct.values()), j, cases)
    return judge_one(site, op, changed[0], j, cases)


def _several_changes(
    site: CallSite, op: str, groups: list[list[OpChange]], j: Judging, cases: Cases | None
) -> Finding | None:
    """One call that classes changed in different ways reach: the outcome they agree on, else each one's."""
    # A class the call did not bind before the change never got here in a run that worked
    # (`GemmCls = GemmSm100 if sm100 else GemmSm90`, one call per branch): its outcome is left out, as long
    # as one class did bind it.
    bound = [cs for cs in groups if not _never_bound(site, cs[0], j)]
    left_out = sorted(c.name for cs in groups if cs not in bound for c in cs)
    if bound and left_out:
        groups = bound
    # Different changes may still need the same edit of this call: compare the outcomes.
    outcomes = [
        (", ".join(sorted(c.name for c in cs)), judge_one(site, op, cs[0], j, cases)) for cs in groups
    ]
    found = agreed(site, op, site.method, sorted(outcomes, key=lambda o: o[0]), j.off)
    if found is not None and bound and left_out:
        note = f"{', '.join(left_out)} did not bind this call before the change either: left out"
        found = replace(found, info=(*found.info, note))
    return found


def _never_bound(site: CallSite, change: OpChange, j: Judging) -> bool:
    """The call raised TypeError against the class's signature before the change, whatever its splats held."""
    if change.status == "removed":
        return False
    old_sig = change_signatures(change, site.method, j.new_p)[0]
    return old_sig is not None and judge_now(site.args, site.expanded_args, old_sig, site.opaque)[0] is (
        Status.BROKEN
    )


def _partial(site: CallSite, op: str, changed: list[OpChange], j: Judging) -> Finding | None:
    """`functools.partial(Op, ...)`: broken when what it binds here fails the new signature whatever comes
    where it is called; else the run decides. Never rewritten: the rest of its arguments are elsewhere."""
    unknown: str | None = None
    for c in sorted(changed, key=lambda c: c.name):
        if c.status == "removed" or c.new is None:
            return judge_one(site, op, c, j)  # nothing replaced it: a hand edit, as for any call
        if not c.edits:
            continue  # its constructor is as it was (a renamed class's import follows it on its own)
        new_sig = change_signatures(c, None, j.new_p)[1]
        if new_sig is None:
            unknown = f"the signature of {op} can't be read statically"
            continue
        status, why = judge_now(site.args, site.expanded_args, new_sig, site.opaque)
        if status is Status.BROKEN:
            return decided(Finding(site, op, status, why), Found.PARTIAL_BROKEN, "", j.off)
        unknown = unknown or why
    if unknown is None:
        return None
    return decided(Finding(site, op, Status.UNKNOWN, unknown), Found.OPAQUE_BINDING, "left to the run", j.off)


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
            said = Finding(site, op, status, why, method=method)
            return decided(said, Found.AUTHORED_BROKEN, "", j.off)
        if status is Status.UNKNOWN:
            unknown = why
    if unknown is not None:
        said = Finding(site, op, Status.UNKNOWN, unknown, method=method)
        return decided(said, Found.OPAQUE_BINDING, "left to the run", j.off)
    # It binds as written. Only a class it names under a name that is gone needs its import to follow.
    renamed = [c for c in changed if c.status in ("renamed", "moved") and c.new is not None]
    if len(changed) == 1 and renamed and any(isinstance(a, Gone) for a in site.atoms):
        return _still_binds(site, op, renamed[0], DefaultPins(), j.off)
    return None


def through_an_attribute(site: CallSite, f: Finding | None, j: Judging, mi: ModuleInfo) -> Finding | None:
    """`f`, for a call that names a renamed or moved class through an attribute (`mk.ModularKernel(...)`
    after `import pkg.kernel as mk`): import edits follow the names a file imports, so the call keeps the
    old name unless its own edit renames the attribute. That edit is made when the class was renamed in the
    module the attribute is read from (`mk.Kernel` gives the successor, `mk.ModularKernel` gave the old
    class); anything else is a hand edit, with the name to write (the call would raise AttributeError)."""
    if f is None or f.status is Status.UNKNOWN or f.fixed or f.plan is None:
        return f
    spelled = site.func_source.rsplit(".", 1)[0] if site.method is not None else site.func_source
    if "." not in spelled:
        return f
    moves = {
        c
        for a in site.atoms
        if isinstance(a, Gone) and (c := j.by_old.get(a.old)) is not None and c.new is not None
        if c.status in ("renamed", "moved") and c.old is not None
    }
    if not moves:
        return f
    c = sorted(moves, key=lambda m: m.name)[0]
    assert c.new is not None and c.old is not None
    head = spelled.rsplit(".", 1)[0]
    module = _module_named(head, mi)
    if (
        len(moves) == 1
        and module is not None
        and site.method is None
        and site.splat_dict is None
        and j.old_p.resolve_name(module, c.old.name) == c.old
        and j.new_p.resolve_name(module, c.new.name) == c.new
    ):
        after = f"{head}.{c.new.name}"
        ops, notes = (
            (*f.plan.ops, ArgOp("func_attr", None, c.new.name)),
            (*f.plan.notes, f"{spelled} -> {after}"),
        )
        return replace(f, plan=replace(f.plan, ops=ops, notes=notes), renamed_func=after)
    write = f"{head}.{c.new.name}" if c.new.module == c.old.module else f"{c.new.qualname} (imported)"
    return replace(
        f,
        plan=None,
        hand=False,
        why_not=(
            f"not rewritten: it names {c.old.name} as {spelled}, through an attribute, and bench-op's edits "
            f"follow the names a file imports: write {write} by hand"
        ),
    )


def _module_named(dotted: str, mi: ModuleInfo) -> str | None:
    """The module a dotted name of the file reads (`mk` after `import pkg.kernel as mk`, `pkg.kernel` after
    `import pkg.kernel`); None when its first name is not an import."""
    first, _, rest = dotted.partition(".")
    t = mi.imports.get(first)
    if t is None:
        return None
    base = t.module if t.kind == "module" else f"{t.module}.{t.name}"
    return f"{base}.{rest}" if rest else base


def agreed(
    site: CallSite,
    op: str,
    method: str | None,
    outcomes: list[tuple[str, Finding | None]],
    off: frozenset[str] = frozenset(),
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
    parts = [f"{name}: {_fix_of(site, f)}" for name, f in outcomes]
    said = Finding(
        site, op, Status.AMBIGUOUS, f"reached by {op}, whose signatures changed differently", method=method
    )
    why = "the classes need different fixes, update it by hand: " + "; ".join(parts)
    return decided(said, Found.CLASSES_DISAGREE, why, off)


def _fix_of(site: CallSite, f: Finding | None) -> str:
    """What one class's outcome asks of the call, in a list of several."""
    if f is None:
        return "no change needed"
    if f.plan is not None and f.plan.ops:
        return f"{site.func_source}{f.plan.preview}"
    return f.why_not or f.problem
