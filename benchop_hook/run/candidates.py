"""The next candidate, at run time: a call whose fix carried candidates in the order of evidence
(`Plan.alternatives`, fixing/candidates.py) that the run refuses with a shape, type or value error raised at
or below the call, in its function, is rewritten with the next one before the file blocks.

The call is found in the file as it is now (the static rewrite and any repair may have moved it): in its
function, under its name, with the arguments the candidate in place gave it.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, replace

from benchop_hook.analysis.callsites import Arg, char_col
from benchop_hook.analysis.signatures import expr_key
from benchop_hook.fixing.plan import ArgOp, CallEdit, Plan, applied
from benchop_hook.fixing.results import FileResult, Finding
from benchop_hook.run.runner import Failure
from benchop_hook.run.triage import frame_line, refused_value


@dataclass(frozen=True)
class Candidates:
    """One call whose fix carried candidates: the one in the file now, those tried before it (each with the
    error the run gave), and those left."""

    finding: Finding
    current: Plan
    left: tuple[Plan, ...]
    tried: tuple[tuple[Plan, str], ...] = ()

    @property
    def function(self) -> str | None:
        q = self.finding.site.qualfunction
        return q.split("::")[-1].split(".")[-1] if q else None

    def call(self, plan: Plan) -> str:
        return f"{self.finding.func_after}{plan.preview}"


def pending(fr: FileResult) -> tuple[Candidates, ...]:
    """The calls of a file whose static fix carried later candidates."""
    return tuple(
        Candidates(f, f.plan, f.plan.alternatives)
        for f in fr.findings
        if f.fixed and f.plan is not None and f.plan.alternatives and f.method is None
    )


def refused(
    failures: Sequence[Failure], data: bytes, calls: Sequence[Candidates], root: str
) -> dict[int, Failure]:
    """The calls (by their index in `calls`) that a shape, type or value error was raised at or below, in
    their own function, with the first such failure of each."""
    out: dict[int, Failure] = {}
    for f in failures:
        if not refused_value(f):
            continue
        for k, c in enumerate(calls):
            if k in out or c.function is None:
                continue
            line = frame_line(f, root, c.finding.site.path, c.function)
            if line is not None and _at_the_call_or_its_op(data, c, line):
                out[k] = f
    return out


def _at_the_call_or_its_op(data: bytes, c: Candidates, line: int) -> bool:
    """The failure was raised at the call itself, or at a line of its function that reads the name the call's
    result was bound to (`result = bm.profile(op, ...)` after `op = Op(...)`). A failure at another Op's call
    further down the same function (TileOPs cdcee99c: `MaskedFillFwdOp(...)` in the branch after the one
    that builds `WhereFwdOp`) is that call's, not a refusal of this call's value."""
    found = _in_its_function(data, c)
    if found is None or line < found[1].lineno:
        return False
    fn, call = found
    if line <= (call.end_lineno or call.lineno):
        return True
    bound = {
        t.id
        for node in ast.walk(fn)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is call
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(t, ast.Name)
    }
    return any(
        isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in bound and n.lineno == line
        for n in ast.walk(fn)
    )


def locate(data: bytes, c: Candidates) -> ast.Call | None:
    """The call in the file as it is now: in its function, under its name, with the arguments the
    candidate in place gave it."""
    found = _in_its_function(data, c)
    return found[1] if found is not None else None


def _in_its_function(
    data: bytes, c: Candidates
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.Call] | None:
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    want = _keys(applied(c.finding.site.args, c.current.ops))
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name != c.function:
            continue
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Call)
                and ast.unparse(node.func) == c.finding.func_after
                and _keys(_args(node)) == want
            ):
                return fn, node
    return None


def _args(node: ast.Call) -> list[Arg]:
    out = [
        Arg("star", None, ast.unparse(a.value))
        if isinstance(a, ast.Starred)
        else Arg("pos", None, ast.unparse(a))
        for a in node.args
    ]
    out += [
        Arg("kw", k.arg, ast.unparse(k.value)) if k.arg else Arg("dstar", None, ast.unparse(k.value))
        for k in node.keywords
    ]
    return out


def _keys(args: Sequence[Arg]) -> list[tuple[str, str | None, str | None]]:
    return [(a.kind, a.keyword, expr_key(a.source)) for a in args]


def next_edit(data: bytes, c: Candidates) -> CallEdit | str:
    """The edit that turns the call as it is now into the next candidate, or why there is none: only the
    values of its keywords may differ (what the candidates differ by)."""
    node = locate(data, c)
    if node is None:
        return "the call is no longer where the candidate in place put it"
    now = _args(node)
    then = applied(c.finding.site.args, c.left[0].ops)
    if [(a.kind, a.keyword) for a in now] != [(a.kind, a.keyword) for a in then]:
        return "the next candidate is another arrangement of the call's arguments"
    ops = []
    for i, (a, b) in enumerate(zip(now, then)):
        if expr_key(a.source) == expr_key(b.source):
            continue
        if a.kind != "kw":
            return "the next candidate changes a positional argument"
        ops.append(ArgOp("set", i, b.keyword, b.source))
    lines = data.decode("utf-8", "replace").splitlines()
    end = node.end_lineno or node.lineno
    return CallEdit(
        node.lineno,
        char_col(lines, node.lineno, node.col_offset),
        end,
        char_col(lines, end, node.end_col_offset or 0),
        tuple(ops),
    )


def advanced(c: Candidates, error: str) -> Candidates:
    """`c` once the next candidate is in the file, the one before it refused with `error`."""
    return replace(c, current=c.left[0], left=c.left[1:], tried=(*c.tried, (c.current, error)))


def exhausted(c: Candidates, error: str) -> str:
    """The blocked reason once every candidate failed at the call: one sentence, with what to do."""
    tried = "; ".join(f"{c.call(p)} ({e})" for p, e in (*c.tried, (c.current, error)))
    site = c.finding.site
    return (
        f"{site.path}:{site.lineno}: the run refused every candidate for {site.func_source}(...), in the "
        f"order of evidence: {tried}: give the call the values its inputs need by hand"
    )


def unwritable(c: Candidates, why: str) -> str:
    """The blocked reason when the next candidate can't be written at the call as it is now."""
    site = c.finding.site
    return (
        f"{site.path}:{site.lineno}: the run refused {c.call(c.current)}, and its next candidate, "
        f"{c.call(c.left[0])}, can't be written there ({why}): fix the call by hand"
    )
