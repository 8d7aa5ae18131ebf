"""The rewrite step: `apply(verdict, ...)` turns the judge's `FileVerdict` into a `FileResult`.

Each finding comes out as a new value: fixed, or with the reason its planned edit could not be made (a
splatted dict that is not a literal, a rewrite libcst refused). With `rewrite=False` (`check`) the plans
are only verified on the call's shape and libcst is never imported.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import replace

from benchop_hook.analysis.callsites import CallSite, char_col, local_binding
from benchop_hook.fixing.plan import ArgOp, DictEdit, Plan
from benchop_hook.fixing.results import FileResult, FileVerdict, Finding

_NOT_A_LITERAL = "not rewritten: the splatted dict is not a literal bench-op can edit in place"


def apply(v: FileVerdict, *, rewrite: bool, line_length: int) -> FileResult:
    """The file as rewritten for its findings' plans (or as `check` would have it), with each finding as it
    then stands."""
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
        if f.plan is None or not f.plan.ops:
            continue
        if f.site.splat_dict is not None:
            d = dict_edit(v.before, f.site, f.plan)
            if d is None:
                findings[k] = replace(f, plan=None, why_not=_NOT_A_LITERAL)
                continue
            dicts.append(d)
            # the same words in check, fix and the commit message: the dict is edited, the call is not
            findings[k] = replace(f, plan=Plan(f.plan.ops, f.plan.notes, dict_preview(f.site, d)))
            continue
        edited.append(f)
    if not edited and not v.imports and not dicts:
        return replace(base, findings=tuple(findings))
    return _rewritten(replace(base, findings=tuple(findings)), v, edited, dicts, line_length)


def _named(f: Finding, renames: Mapping[str, str]) -> Finding:
    """The finding with the called name the rewritten file spells, when its imports follow a renamed Op."""
    head, dot, rest = f.site.func_source.partition(".")
    if f.plan is not None and head in renames:
        return replace(f, renamed_func=renames[head] + dot + rest)
    return f


def _rewritten(
    base: FileResult, v: FileVerdict, edited: list[Finding], dicts: list[DictEdit], line_length: int
) -> FileResult:
    from benchop_hook.rewrite.edit import (  # libcst: only for files that will be rewritten
        CallEdit,
        rewrite,
    )

    calls = [
        CallEdit(f.site.lineno, f.site.col, f.site.end_lineno, f.site.end_col, f.plan.ops)
        for f in edited
        if f.plan is not None
    ]
    res = rewrite(v.before, calls, list(v.imports), dicts, dict(v.renames), line_length=line_length)
    if res.data is None or res.failed:
        why = "not rewritten: " + ("; ".join(res.failed) or "the rewrite produced no change")
        return _unplanned(base, why)
    try:
        ast.parse(res.data)
    except SyntaxError as exc:  # pragma: no cover - a bug in a rewrite: never write it
        return _unplanned(base, f"not rewritten: the result would not parse ({exc.msg})", every=True)
    fixed = tuple(replace(f, fixed=True) if f.plan is not None else f for f in base.findings)
    return replace(base, findings=fixed, after=res.data)


def _unplanned(base: FileResult, why: str, *, every: bool = False) -> FileResult:
    """Every planned finding (or every finding) left unrewritten, with the reason."""
    out = tuple(
        replace(f, plan=None, why_not=why) if (every or f.plan is not None) else f for f in base.findings
    )
    return replace(base, findings=out)


def dict_preview(site: CallSite, d: DictEdit) -> str:
    """What a **dict fix does, as a preview: the call as it is, and the edit of the dict it splats."""
    args = ", ".join(
        a.source
        if a.kind == "pos"
        else f"{a.keyword}={a.source}"
        if a.kind == "kw"
        else ("*" if a.kind == "star" else "**") + a.source
        for a in site.args
    )
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
    if isinstance(node, ast.Name):
        around = [
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.lineno <= site.lineno <= (n.end_lineno or 0)
        ]
        fn = max(around, key=lambda n: n.lineno) if around else None  # the innermost
        bound = local_binding(fn, node.id, ()) if fn is not None else None
        node = bound if bound is not None else node
    if not isinstance(node, ast.Dict):
        return None
    ops = _dict_ops(node, site, p)
    return (
        DictEdit(node.lineno, char_col(lines, node.lineno, node.col_offset), ops) if ops is not None else None
    )


def _dict_ops(node: ast.Dict, site: CallSite, p: Plan) -> tuple[ArgOp, ...] | None:
    """The plan's operations as edits of the dict literal's keys; None when one is not such an edit."""
    assert site.splat_dict is not None
    literal_keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
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
