"""The runtime `**dict` fixer: the traceback points at a call that splats a dict bench-op could not see into;
fix the dict right before the call (`params.pop("M", None)`, `params.setdefault("dim", -1)`), from the same
evidence rules as the static pass, on a copy when the dict is shared.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from benchop_hook.analysis.callsites import CallSite, Instance, ModuleAnalyzer, local_binding
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.edits import Edit, EditKind
from benchop_hook.analysis.locate import analyze
from benchop_hook.analysis.modules import ClassRef
from benchop_hook.analysis.signatures import Signature, free_names, is_constant_source
from benchop_hook.fixing import questions
from benchop_hook.fixing.context import StaticContext, change_signatures, value_source
from benchop_hook.fixing.questions import DropEvidence
from benchop_hook.rules import decide
from benchop_hook.rules.facts import RequiredNow
from benchop_hook.rules.verdicts import Hand, LeaveToRun, Pin
from benchop_hook.run.runner import Failure
from benchop_hook.run.triage import BIND, bench_frame


@dataclass(frozen=True)
class RuntimeFix:
    content: bytes | None  # the fixed file; None: no fix, `description` says why
    description: str
    path: str | None = None


class _NoFix(Exception):
    """Why there is no fix (the part after "<error> at <path>:<line>: ")."""


DictOp = tuple[str, str, str | None]  # (pop | rename | setdefault, key, argument)


def runtime_fix(
    f: Failure,
    content_of: Callable[[str], bytes | None],
    ctx: StaticContext,
    root: str,
    is_bench: Callable[[str], bool],
) -> RuntimeFix:
    """Fix what the traceback points at, from the same evidence rules as the static pass."""
    if f.type != "TypeError":
        return RuntimeFix(
            None, f"{f.headline()}: bench-op's static rewrite did not resolve this import; update it by hand"
        )
    loc = bench_frame(f, root, is_bench)
    if loc is None:
        return RuntimeFix(None, f"{f.headline()}: no benchmark frame in the traceback")
    path, line = loc
    try:
        return _fix_at(f, content_of, ctx, path, line)
    except _NoFix as exc:
        return RuntimeFix(None, f"{f.headline()} at {path}:{line}: {exc}")


def _fix_at(
    f: Failure, content_of: Callable[[str], bytes | None], ctx: StaticContext, path: str, line: int
) -> RuntimeFix:
    data = content_of(path)
    if data is None:
        raise _NoFix("cannot read the file")
    az = analyze(path, data, ctx.new_p, ctx.old_p)
    sites = [s for s in az.calls() if s.lineno <= line <= s.end_lineno]
    if not sites:
        raise _NoFix("bench-op found no Op call on that line")
    site = min(sites, key=lambda s: (s.end_lineno - s.lineno, s.end_col - s.col))
    change = _change_for(site, f, ctx.changes)
    if change is None:
        raise _NoFix(_no_change_why(site, ctx))
    dstar = [a for a in site.args if a.kind == "dstar"]
    if len(dstar) != 1 or any(a.kind == "star" for a in site.args) or site.splat_name is None:
        raise _NoFix(
            "bench-op rewrites calls that splat one plain dict name (**params) only; fix this call by hand"
        )
    old_sig, new_sig, edits = change_signatures(change, site.method, ctx.new_p)
    if old_sig is None or new_sig is None:
        raise _NoFix("the signature can't be read statically")
    name = site.splat_name
    ops, notes = _dict_ops(site, ctx, change, old_sig, new_sig, edits)
    if not ops:
        raise _NoFix(f"the change gives nothing to fix in **{name}")
    target = name
    statements: list[str] = []
    if not _only_used_here(az, site, name):
        target = _fresh_name(az, "op_" + name if not name.startswith("op_") else name + "_new")
        statements.append(f"{target} = dict({name})")
    for op, key, arg in ops:
        if op == "pop":
            statements.append(f"{target}.pop({key!r}, None)")
        elif op == "rename":
            statements.append(f"if {key!r} in {target}: {target}[{arg!r}] = {target}.pop({key!r})")
        else:
            statements.append(f"{target}.setdefault({key!r}, {arg})")
    from benchop_hook.rewrite.edit import insert_before_call  # libcst: only when a dict is to be fixed

    res = insert_before_call(
        data,
        (site.lineno, site.col, site.end_lineno, site.end_col),
        statements,
        new_splat=target if target != name else None,
    )
    if res.data is None:
        raise _NoFix("; ".join(res.failed))
    try:
        ast.parse(res.data)
    except SyntaxError:
        raise _NoFix("the fix would not parse") from None
    desc = (
        f"{path}:{site.lineno}: {site.func_source}(**{name}): "
        + "; ".join(statements)
        + f"  ({', '.join(notes)})"
    )
    return RuntimeFix(res.data, desc, path)


def _dict_ops(  # long: each edit of the signature, then each parameter the dict must now hold
    site: CallSite,
    ctx: StaticContext,
    change: OpChange,
    old_sig: Signature,
    new_sig: Signature,
    edits: tuple[Edit, ...],
) -> tuple[list[DictOp], list[str]]:
    """What to do to the splatted dict's keys, with a note for each: decided by the same rules as a call
    written out (rules/decide.py), for a value nobody can see before it runs."""
    value_for = value_source(site, ctx.evidence, change.new, new_sig, old_sig, edits)
    ops: list[DictOp] = []
    notes: list[str] = []
    sigs = (old_sig, new_sig, edits)
    moved = _moved_values(ctx, change, old_sig, new_sig, site.method)
    for e in edits:
        splat = e.old_kind is not None and e.old_kind.value in ("*args", "**kwargs")
        if e.kind is EditKind.REMOVED and splat:
            continue
        if e.kind is EditKind.REMOVED:
            q = questions.removed_value(-1, e.name, None, True, sigs, DropEvidence(moved=moved))
            v = decide.removed_value(q, ctx.off).verdict
            if isinstance(v, Hand):
                raise _NoFix(f"{v.reason} [{v.rule}]")
            if isinstance(v, LeaveToRun):
                raise _NoFix(f"{v.reason}; fix it by hand")
            ops.append(("pop", e.name, None))
            notes.append(f"'{e.name}' removed")
        elif e.kind is EditKind.RENAMED and e.new_name:
            ops.append(("rename", e.name, e.new_name))
            notes.append(f"'{e.name}' renamed to '{e.new_name}'")
    renamed_to = {e.new_name for e in edits if e.kind is EditKind.RENAMED}
    explicit = {a.keyword for a in site.args if a.kind == "kw"}
    n_pos = sum(1 for a in site.args if a.kind == "pos")
    for p in new_sig.params:
        if not p.required or p.name in explicit or p.name in [q.name for q in new_sig.positional[:n_pos]]:
            continue
        old_param = old_sig.get(p.name)
        if p.name in renamed_to:
            continue
        if old_param is not None and old_param.default is None:
            continue  # it was required before too: the dict has it
        if old_param is not None:
            # What the dict lacks it got from the old default: the rule that pins it in a written call.
            d = decide.required_now(_required_now(p.name, old_param.default), ctx.off)
            if d is not None and isinstance(d.verdict, Pin):
                ops.append(("setdefault", p.name, d.verdict.value))
                notes.append(f"'{p.name}' is required now: its old default {d.verdict.value} kept")
                continue
        v = value_for(p.name)
        if v.source is None:
            raise _NoFix(f"needs a value for '{p.name}' ({v.reason}); add it by hand")
        ops.append(("setdefault", p.name, v.source))
        notes.append(f"'{p.name}'={v.source}: {v.reason}")
    return ops, notes


def _required_now(param: str, default: str | None) -> RequiredNow:
    """The dict's entries are unseen: the old default counts only as a constant (no name of the scope)."""
    constant = default is not None and is_constant_source(default)
    return RequiredNow(param, default, False, constant, not free_names(default or ""), False)


def _moved_values(
    ctx: StaticContext, change: OpChange, old_sig: Signature, new_sig: Signature, method: str | None
) -> dict[str, str]:
    """What the class bodies and the tests say became of each removed parameter's value, as the judge reads
    it for a call that passes it."""
    from benchop_hook.fixing.judging import Judging, defaults_lost, moved_values

    ref = change.new
    if ref is None:
        return {}
    j = Judging.of(
        ctx.new_p,
        ctx.old_p or ctx.new_p,
        ctx.evidence,
        ctx.changes,
        pin_defaults=True,
        commit_old_p=ctx.old_p,
        successors=frozenset(),
        off=ctx.off,
    )
    passed = {p.name: p.name for p in old_sig.params if new_sig.get(p.name) is None}
    lost = defaults_lost(j, change.old or ref, ref, old_sig, new_sig, (), passed) if method is None else {}
    return {**lost, **moved_values(j, change.old or ref, ref, old_sig, new_sig, method)}


def _no_change_why(site: CallSite, ctx: StaticContext) -> str:
    """Why the failing call has no change to fix it by: `--op` left its class out, or none of its classes
    changed."""
    named = {a.name for a in site.atoms if isinstance(a, ClassRef)}
    named |= {a.cls.name for a in site.atoms if isinstance(a, Instance)}
    if named & ctx.outside_op:
        return f"the call builds {sorted(named & ctx.outside_op)[0]}, outside --op: run without --op"
    return "the call does not build an Op whose signature changed"


def _change_for(site: CallSite, f: Failure, changes: tuple[OpChange, ...]) -> OpChange | None:
    by_new = {c.new: c for c in changes if c.new is not None}
    for a in sorted(site.atoms, key=repr):  # a set: the same change each run, whatever the hash seed
        if isinstance(a, ClassRef) and a in by_new and site.method is None:
            return by_new[a]
        if isinstance(a, Instance) and a.cls in by_new and site.method is not None:
            return by_new[a.cls]
    m = BIND.search(f.message)
    qual = (m.group("qual") or "") if m else ""
    owner = qual.split(".")[0] if qual else ""
    matching = [
        c
        for c in changes
        if c.new is not None and owner in (c.new.name, c.via_base.name if c.via_base else "")
    ]
    if matching and len({(c.old_sig, c.new_sig, c.edits) for c in matching}) == 1:
        return matching[0]
    return None


def _only_used_here(az: ModuleAnalyzer, site: CallSite, name: str) -> bool:
    """`name` is a dict made in this function and used only by this splat: safe to change in place."""
    if az.tree is None:
        return False
    fn = next(
        (
            n
            for n in ast.walk(az.tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.lineno <= site.lineno <= (n.end_lineno or 0)
            and n.name == (site.function or "")
        ),
        None,
    )
    if fn is None:
        return False
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    if local_binding(fn, name, params) is None:
        return False
    loads = [
        n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    ]
    return len(loads) == 1


def _fresh_name(az: ModuleAnalyzer, base: str) -> str:
    used = {n.id for n in ast.walk(az.tree) if isinstance(n, ast.Name)} if az.tree is not None else set()
    name, i = base, 2
    while name in used:
        name, i = f"{base}_{i}", i + 1
    return name
