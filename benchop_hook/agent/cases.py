"""What a benchmark's test functions measure over, as its source says: which test functions there are, their
parametrized cases (counted, and named when every row has an id), and which case values each reads. An edit
must keep every test, every named case, at least as many cases, and keep reading each case value it still
takes. Pure: a module's source in, values out."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

Count = tuple[int, int]  # (fewest cases on any machine, all the rows the source writes out)


@dataclass(frozen=True)
class BenchFunction:
    name: str  # `test_x`, or `TestX::test_y`
    cases: Count | None  # None: computed (a call, a comprehension): only collection can count them
    ids: frozenset[str] | None  # every row's explicit `id=`, when every row has one
    columns: frozenset[str]  # the parametrized names
    reads: frozenset[str]  # the names its body reads


def bench_functions(data: bytes) -> dict[str, BenchFunction] | None:
    """The module's test functions by name; None when it does not parse."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    assigned = _module_assignments(tree)
    out: dict[str, BenchFunction] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            out[node.name] = _function(node.name, node, [], tree, assigned)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for m in node.body:
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name.startswith("test"):
                    name = f"{node.name}::{m.name}"
                    out[name] = _function(name, m, node.decorator_list, tree, assigned)
    return out


def removed_cases(
    before: Mapping[str, BenchFunction], after: Mapping[str, BenchFunction]
) -> tuple[list[str], dict[str, int]]:
    """Why `after` measures less than `before` (empty: it does not, as far as the source says); and the
    functions whose cases only collection can count, with how many they must have at least."""
    problems: list[str] = []
    to_collect: dict[str, int] = {}
    for name, b in before.items():
        a = after.get(name)
        if a is None:
            problems.append(f"it removes the test {name}")
            continue
        if b.ids is not None and a.ids is not None and b.ids - a.ids:
            problems.append(f"it removes the case(s) {', '.join(sorted(b.ids - a.ids))} of {name}")
        elif b.cases is not None and a.cases is not None and a.cases[1] < b.cases[1]:
            problems.append(f"{name} had {b.cases[1]} cases written out, the edit leaves {a.cases[1]}")
        elif b.cases is not None and a.cases is None:
            to_collect[name] = b.cases[0]
        unread = sorted((b.columns & a.columns & b.reads) - a.reads)
        if unread:
            problems.append(f"{name} no longer reads its case value(s) {', '.join(unread)}")
    return problems, to_collect


def _function(
    name: str,
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    class_decorators: list[ast.expr],
    tree: ast.Module,
    assigned: Mapping[str, ast.expr],
) -> BenchFunction:
    cases: Count | None = (1, 1)
    ids: set[str] | None = set()
    columns: set[str] = set()
    for dec in [*class_decorators, *fn.decorator_list]:
        found = _parametrize(dec) or _fixture_params(dec, tree)
        if found is None:
            continue
        names, rows = found
        columns |= set(names)
        n = _count(rows, assigned, 4)
        cases = None if n is None or cases is None else (cases[0] * n[0], cases[1] * n[1])
        row_ids = _ids(rows, assigned)
        ids = None if row_ids is None or ids is None else ids | row_ids
    reads = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return BenchFunction(name, cases, frozenset(ids) if ids else None, frozenset(columns), frozenset(reads))


def _parametrize(dec: ast.expr) -> tuple[list[str], ast.expr] | None:
    """`@pytest.mark.parametrize("a, b", rows)` (or a list of names): the names and the rows."""
    if not (
        isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute) and dec.func.attr == "parametrize"
    ):
        return None
    args = list(dec.args) + [k.value for k in dec.keywords if k.arg in ("argnames", "argvalues")]
    if len(args) < 2:
        return None
    names = _names(args[0])
    return (names, args[1]) if names is not None else None


def _fixture_params(dec: ast.expr, tree: ast.Module) -> tuple[list[str], ast.expr] | None:
    """`@SomeBenchFixture` whose class in this module holds `PARAMS = [("a, b", rows)]` (TileOPs' style)."""
    if not isinstance(dec, ast.Name):
        return None
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == dec.id), None)
    for stmt in cls.body if cls is not None else []:
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "PARAMS" for t in stmt.targets)
            and isinstance(stmt.value, ast.List)
            and stmt.value.elts
            and isinstance(stmt.value.elts[0], ast.Tuple)
            and len(stmt.value.elts[0].elts) >= 2
        ):
            first = stmt.value.elts[0].elts
            names = _names(first[0])
            return (names, first[1]) if names is not None else None
    return None


def _names(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",") if n.strip()]
    if isinstance(node, (ast.List, ast.Tuple)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        return [str(e.value) for e in node.elts if isinstance(e, ast.Constant)]
    return None


def _module_assignments(tree: ast.Module) -> dict[str, ast.expr]:
    out: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            out[node.target.id] = node.value
    return out


def _count(node: ast.expr, assigned: Mapping[str, ast.expr], depth: int) -> Count | None:
    """How many rows an expression holds, when the source says: a list written out, a module-level name for
    one, a sum of them, `list(...)` of one; either branch of `a if cond else b` (what runs depends on the
    machine)."""
    if depth <= 0:
        return None
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        low = total = 0
        for e in node.elts:
            n = _count(e.value, assigned, depth - 1) if isinstance(e, ast.Starred) else (1, 1)
            if n is None:
                return None
            low, total = low + n[0], total + n[1]
        return low, total
    if isinstance(node, ast.Name) and node.id in assigned:
        return _count(assigned[node.id], assigned, depth - 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _count(node.left, assigned, depth - 1), _count(node.right, assigned, depth - 1)
        return (a[0] + b[0], a[1] + b[1]) if a is not None and b is not None else None
    if isinstance(node, ast.IfExp):
        a, b = _count(node.body, assigned, depth - 1), _count(node.orelse, assigned, depth - 1)
        return (min(a[0], b[0]), a[1] + b[1]) if a is not None and b is not None else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple"):
        return _count(node.args[0], assigned, depth - 1) if len(node.args) == 1 else None
    return None


def _ids(node: ast.expr, assigned: Mapping[str, ast.expr], depth: int = 4) -> set[str] | None:
    """The `id=` of every `pytest.param(...)` row, when every row is one and has a literal id."""
    while isinstance(node, ast.Name) and node.id in assigned and depth > 0:
        node, depth = assigned[node.id], depth - 1
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return None
    out: set[str] = set()
    for row in node.elts:
        ident = next(
            (
                k.value.value
                for k in getattr(row, "keywords", [])
                if k.arg == "id" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)
            ),
            None,
        )
        if not (
            isinstance(row, ast.Call) and isinstance(row.func, ast.Attribute) and row.func.attr == "param"
        ):
            return None
        if ident is None:
            return None
        out.add(ident)
    return out
