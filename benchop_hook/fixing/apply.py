"""The rewrite step: `apply(verdict, ...)` turns the judge's `FileVerdict` into a `FileResult`.

Each finding comes out as a new value: fixed, or with the reason its planned edit could not be made (a
splatted dict that is not a literal, a rewrite libcst refused). With `rewrite=False` (`check`) the plans
are only verified on the call's shape and libcst is never imported.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import replace

from benchop_hook.analysis.callsites import CallSite, char_col, local_binding
from benchop_hook.fixing.plan import ArgOp, CallEdit, DictEdit, Plan, Status, preview_of
from benchop_hook.fixing.results import (
    FileResult,
    FileVerdict,
    Finding,
    decided,
    import_statement_site,
    written_args,
)
from benchop_hook.fixing.rewriter import Rewriter
from benchop_hook.rules.facts import Found

_NOT_A_LITERAL = "not rewritten: the splatted dict is not a literal bench-op can edit in place"
_SHARED = (
    "not rewritten: its splatted dict is also used elsewhere in the function, or by a call that needs "
    "another edit: edit the dict by hand"
)


def apply(v: FileVerdict, *, rewrite: bool, line_length: int, rewriter: Rewriter | None = None) -> FileResult:
    """The file as rewritten for its findings' plans (or as `check` would have it), with each finding as it
    then stands. `rewriter`: where libcst makes the rewrite (a child that imported it ahead), else here."""
    findings = [_named(f, v.renames) for f in v.findings]
    base = FileResult(v.path, tuple(findings), v.before, None, v.error, v.import_notes, reaches=v.reaches)
    if v.error:
        return base
    if not rewrite:
        # `check` only reports: the plans are verified on the call's shape; libcst is not needed.
        findings = [
            replace(f, fixed=True) if f.plan is not None and (f.plan.ops or v.imports) else f
            for f in findings
        ]
        would = any(f.fixed for f in findings) or bool(v.imports)
        return replace(base, findings=tuple(findings), would_change=would)
    edited: list[Finding] = []
    dicts: list[DictEdit] = []
    for k, f in enumerate(findings):
        plan = f.plan
        if plan is None or not plan.ops:
            continue
        if f.site.splat_dict is not None and _own_arguments_only(f.site, plan):
            # shown as written: the `**dict` stays as it is
            findings[k] = f = replace(f, plan=replace(plan, preview=preview_of(f.site.args, plan.ops)))
        elif f.site.splat_dict is not None:
            d = dict_edit(v.before, f.site, plan)
            if d is None:
                findings[k] = decided(replace(f, plan=None), Found.NOT_WRITTEN, _NOT_A_LITERAL)
                continue
            dicts.append(d)
            # the same words in check, fix and the commit message: the dict is edited, the call is not
            findings[k] = replace(f, plan=replace(plan, preview=dict_preview(f.site, d)))
            continue
        edited.append(f)
    dicts = _unshared(findings, dicts)
    if not edited and not v.imports and not dicts:
        return replace(base, findings=tuple(findings))
    return _rewritten(
        replace(base, findings=tuple(findings)), v, edited, dicts, line_length, rewriter or Rewriter()
    )


def _own_arguments_only(site: CallSite, p: Plan) -> bool:
    """A plan for a call that splats a literal dict last, which only drops or renames arguments the call
    writes itself (pyg 3c2ef09: `AddMask(split, num_mask=M, **kw)`, `num_mask` renamed and `kw` untouched):
    an edit of the call, as for any other; the dict's part of the arguments comes after them, unchanged."""
    if not site.args or site.args[-1].kind != "dstar" or sum(a.kind == "dstar" for a in site.args) != 1:
        return False
    n_own = len(site.args) - 1
    return all(op.op in ("drop", "rename") and op.index is not None and op.index < n_own for op in p.ops)


def _unshared(findings: list[Finding], dicts: list[DictEdit]) -> list[DictEdit]:
    """The dict edits to make: one per dict, and only where every use of the dict is a call that wants that
    same edit (a dict a baseline also splats, or two Ops that need different edits, is left with the
    reason). `findings` is updated in place."""
    wanted: dict[tuple[int, int], set[DictEdit]] = {}
    for d in dicts:
        wanted.setdefault((d.lineno, d.col), set()).add(d)
    lines = {f.site.lineno for f in findings if f.plan is not None and f.site.splat_dict is not None}
    refused = {pos for pos, ds in wanted.items() if len(ds) > 1 or not set(next(iter(ds)).used_by) <= lines}
    for k, f in enumerate(findings):
        if f.plan is not None and f.site.splat_dict is not None and _dict_at(f, dicts) in refused:
            findings[k] = decided(replace(f, plan=None), Found.NOT_WRITTEN, _SHARED)
    return [next(iter(ds)) for pos, ds in wanted.items() if pos not in refused]


def _dict_at(f: Finding, dicts: list[DictEdit]) -> tuple[int, int] | None:
    return next(((d.lineno, d.col) for d in dicts if f.site.lineno in d.used_by), None)


def _named(f: Finding, renames: Mapping[str, str]) -> Finding:
    """The finding with the called name the rewritten file spells, when its imports follow a renamed Op."""
    head, dot, rest = f.site.func_source.partition(".")
    if f.plan is not None and head in renames:
        return replace(f, renamed_func=renames[head] + dot + rest)
    return f


def _rewritten(
    base: FileResult,
    v: FileVerdict,
    edited: list[Finding],
    dicts: list[DictEdit],
    line_length: int,
    rewriter: Rewriter,
) -> FileResult:
    calls = [
        CallEdit(f.site.lineno, f.site.col, f.site.end_lineno, f.site.end_col, f.plan.ops)
        for f in edited
        if f.plan is not None
    ] + [d.call for d in dicts if d.call is not None]
    literals = [d for d in dicts if d.call is None]
    res = rewriter.rewrite(v.before, calls, list(v.imports), literals, dict(v.renames), line_length)
    if res.data is None or res.failed:
        refused = _refused(base, res.failed)
        carrier = (
            _import_finding(v, res.failed) if res.failed and not any(f.plan for f in base.findings) else None
        )
        return replace(refused, findings=(carrier, *refused.findings)) if carrier else refused
    try:
        ast.parse(res.data)
    except SyntaxError as exc:  # pragma: no cover - a bug in a rewrite: never write it
        return _unplanned(base, f"not rewritten: the result would not parse ({exc.msg})", every=True)
    fixed = tuple(replace(f, fixed=True) if f.plan is not None else f for f in base.findings)
    return replace(base, findings=fixed, after=res.data)


def _refused(base: FileResult, failed: Sequence[str]) -> FileResult:
    """A file the rewrite refused (it is written whole or not at all): each planned finding says why, in
    its own words when the failure is on its own lines, else which other call stopped it."""
    if not failed:
        return _unplanned(base, "not rewritten: the rewrite produced no change")
    by_line: dict[int, list[str]] = {}
    for msg in failed:
        head, _, _ = msg.partition(":")
        line = int(head[5:]) if head.startswith("line ") and head[5:].isdigit() else 0
        if msg.endswith(": call not found where expected") and by_line.get(line):
            continue  # the same call, already refused for what the rewrite found there
        by_line.setdefault(line, []).append(msg)
    out = []
    for f in base.findings:
        if f.plan is None:
            out.append(f)
            continue
        own = [m for line, ms in by_line.items() if f.site.lineno <= line <= f.site.end_lineno for m in ms]
        if own:
            why = "not rewritten: " + "; ".join(own)
        else:
            others = "; ".join(m for ms in by_line.values() for m in ms)
            why = (
                "not rewritten: bench-op rewrites a file whole or not at all, and another edit in it was "
                f"refused ({others})"
            )
        out.append(_unwritten(f, why))
    return replace(base, findings=tuple(out))


def _import_finding(v: FileVerdict, failed: Sequence[str]) -> Finding | None:
    """An import edit refused where no call carries the reason (vllm 400d483: `from pkg.v1 import V1Meta,
    v1_shrink`, the module gone, the class moved, the function deleted, and only `V1Meta.make(...)` called):
    a finding for the import statement itself, so that the file needs a hand edit instead of "every call
    still binds" over an import that fails."""
    failing = [e for e in v.imports if (e.old_module, e.old_name) in v.failing]
    if not failing:
        return None  # the old import may still work (a re-export bench-op can't see): the run decides
    names = {e.old_name for e in failing}
    site = import_statement_site(v.path, v.before, {e.old_module for e in failing}, names)
    if site is None:
        return None
    moved = ", ".join(sorted(names))
    pronoun = "them" if len(names) > 1 else "it"
    said = Finding(
        site,
        moved,
        Status.GONE,
        f"imports {moved}, which moved, from a module that no longer gives {pronoun}",
    )
    return decided(said, Found.IMPORT_FROM_MOVED, "not rewritten: " + "; ".join(failed))


def _unwritten(f: Finding, why: str) -> Finding:
    """A finding whose rewrite was not written: a changed default it relies on, left unpinned, is a hand edit
    now (it binds, and would measure the new default)."""
    return decided(replace(f, plan=None, hand=f.hand or f.status is Status.DEFAULT), Found.NOT_WRITTEN, why)


def _unplanned(base: FileResult, why: str, *, every: bool = False) -> FileResult:
    """Every planned finding (or every finding) left unrewritten, with the reason."""
    out = tuple(_unwritten(f, why) if (every or f.plan is not None) else f for f in base.findings)
    return replace(base, findings=out)


def dict_preview(site: CallSite, d: DictEdit) -> str:
    """What a **dict fix does, as a preview: the call as it is, and the edit of the dict it splats."""
    args = written_args(site)
    name = next((a.source for a in site.args if a.kind == "dstar"), "the dict")
    said = {"drop": "{k!r} removed", "rename": "{k!r} renamed to {v!r}", "add_kw": "{k}={v} added"}
    edits = ", ".join(said[op.op].format(k=op.name, v=op.value) for op in d.ops if op.op in said)
    return f"({args}) with {name} edited: {edits}"


def dict_edit(data: bytes, site: CallSite, p: Plan) -> DictEdit | None:
    """Turn a plan over a literal **dict's keys into edits of that dict literal."""
    assert site.splat_dict is not None
    tree = ast.parse(data)
    lines = data.decode("utf-8-sig", "replace").splitlines()
    call = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call)
            and n.lineno == site.lineno
            and n.end_lineno == site.end_lineno
            and char_col(lines, n.lineno, n.col_offset) == site.col
            and char_col(lines, n.end_lineno or n.lineno, n.end_col_offset or 0) == site.end_col
        ),
        None,
    )
    kw = next((k for k in call.keywords if k.arg is None), None) if call is not None else None
    if kw is None:
        return None
    node = kw.value
    used_by: tuple[int, ...] | None = (site.lineno,)
    if isinstance(node, ast.Name):
        around = [
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.lineno <= site.lineno <= (n.end_lineno or 0)
        ]
        fn = max(around, key=lambda n: n.lineno) if around else None  # the innermost
        bound = local_binding(fn, node.id, ()) if fn is not None else None
        used_by = _splatted_by(fn, node.id) if fn is not None else None
        if bound is None:
            # A dict of the module's (the analysis read it there only when no function around binds it):
            # edited only where every call in the module that splats it wants the same edit.
            bound = local_binding(tree, node.id, ())
            used_by = _splatted_by(tree, node.id) if bound is not None else None
        node = bound if bound is not None else node
    if used_by is None:
        return None
    if isinstance(node, ast.Call) and _is_dict_call(node):
        keys = [k.arg or "" for k in node.keywords]
        ops = _dict_ops(keys, site, p)
        if ops is None:
            return None
        start, end = (
            char_col(lines, node.lineno, node.col_offset),
            char_col(lines, node.end_lineno or node.lineno, node.end_col_offset or 0),
        )
        edit = CallEdit(node.lineno, start, node.end_lineno or node.lineno, end, _as_keyword_ops(ops, keys))
        return DictEdit(node.lineno, start, ops, edit, used_by)
    if not isinstance(node, ast.Dict):
        return None
    ops = _dict_ops([k.value for k in node.keys if isinstance(k, ast.Constant)], site, p)
    if ops is None:
        return None
    return DictEdit(node.lineno, char_col(lines, node.lineno, node.col_offset), ops, None, used_by)


def _is_dict_call(node: ast.Call) -> bool:
    """`dict(k=v, ...)`: keywords only, each with its name."""
    return (
        isinstance(node.func, ast.Name)
        and node.func.id == "dict"
        and not node.args
        and all(k.arg is not None for k in node.keywords)
    )


def _splatted_by(fn: ast.AST, name: str) -> tuple[int, ...] | None:
    """The lines of the calls that splat `**name` in `fn`, or None when `name` is read any other way (passed
    to a baseline, printed, indexed): then an edit of the dict could change more than the Op's call."""
    loads = [
        n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    ]
    splats = [
        (c.lineno, k.value)
        for c in ast.walk(fn)
        if isinstance(c, ast.Call)
        for k in c.keywords
        if k.arg is None and isinstance(k.value, ast.Name) and k.value.id == name
    ]
    if len(splats) != len(loads):
        return None
    return tuple(sorted({line for line, _ in splats}))


def _as_keyword_ops(ops: tuple[ArgOp, ...], keys: list[str]) -> tuple[ArgOp, ...]:
    """Edits by key name as edits of a `dict(...)` call's keywords, by their position."""
    out = []
    for op in ops:
        if op.op == "drop":
            out.append(ArgOp("drop", keys.index(op.name or "")))
        elif op.op == "rename":
            out.append(ArgOp("rename", keys.index(op.name or ""), op.value))
        else:
            out.append(op)
    return tuple(out)


def _dict_ops(literal_keys: Sequence[object], site: CallSite, p: Plan) -> tuple[ArgOp, ...] | None:
    """The plan's operations as edits of the dict's keys (`literal_keys`: those written where it is built);
    None when one is not such an edit."""
    assert site.splat_dict is not None
    n_pos = sum(1 for a in site.args if a.kind != "dstar")
    ops = []
    for op in p.ops:
        if op.index is not None and op.index < n_pos:
            return None  # the edit touches the call's own arguments too: leave it to the run
        if op.op in ("drop", "rename"):
            key = site.splat_dict[op.index - n_pos][0] if op.index is not None else None
            if key not in literal_keys:
                return None  # added later with d["k"] = v: not a dict-literal edit
            ops.append(ArgOp(op.op, None, key, op.name))
        elif op.op == "add_kw":
            ops.append(op)
        else:
            return None
    return tuple(ops)
