"""Which values of a benchmark function vary across its cases, and whether a value still reaches the
measurement when one call stops passing it.

A parametrize column, a loop over literals, a command-line option or a config field that a call passes as
`strategy=strategy` picks what a case measures: dropping it from the call makes differently labelled cases
measure the same code. A variable the function also uses to build what it measures (`dtype` in
`torch.randn(..., dtype=dtype)`) still reaches the measurement that way, and dropping it from the Op's
constructor changes nothing the cases differ by. Pure: a module's source in, answers out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from benchop_hook.analysis import trees
from benchop_hook.analysis.modules import walk_list


@dataclass
class Cases:
    """The benchmark module, parsed once when a question needs it."""

    data: bytes
    _tree: ast.Module | None = field(default=None, repr=False)
    _functions: list[ast.FunctionDef | ast.AsyncFunctionDef] | None = field(default=None, repr=False)

    def _parsed(self) -> ast.Module | None:
        if self._tree is None:
            try:
                self._tree = trees.parse(self.data)
            except (SyntaxError, ValueError):
                return None
        return self._tree

    def _function_nodes(self, tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """Every function of the module, listed once: asked for each call the file judges."""
        if self._functions is None:
            self._functions = [
                n for n in walk_list(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
        return self._functions

    def why_a_choice(self, src: str, span: tuple[int, int]) -> str | None:
        """Why the value `src` passed by the call on lines `span` picks what is measured, or None."""
        if self.is_choice(src, span):
            return "its value varies across the benchmark's cases, and only this call reads it"
        if self.is_function(src, span):
            return "a function the benchmark defines: it decides what is measured"
        return None

    def is_function(self, src: str, span: tuple[int, int]) -> bool:
        """A lambda, or a name the benchmark binds with `def` around the call or at its top level (FlagGems
        4e6cb3b2's `arg_func=mm_args`, the generator of the inputs): behaviour, never data."""
        try:
            value = ast.parse(src.strip(), mode="eval").body
        except SyntaxError:
            return False
        if isinstance(value, ast.Lambda):
            return True
        tree = self._parsed()
        if tree is None or not isinstance(value, ast.Name):
            return False
        around = [
            f for f in self._function_nodes(tree) if f.lineno <= span[0] <= (f.end_lineno or f.lineno)
        ]  # the functions the call is in: a `def` in their bodies, or at the top level, is in its scope
        bodies = [tree.body, *(f.body for f in around)]
        return any(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == value.id
            for body in bodies
            for n in body
        )

    def edited_around(self, span: tuple[int, int], lines: frozenset[int]) -> bool:
        """Whether one of `lines` lies in the innermost function around the call on lines `span` (the module,
        for a call at its top level), outside the call itself."""
        tree = self._parsed()
        if tree is None or not lines:
            return False
        fn = _enclosing(self._function_nodes(tree), span[0])
        outside = [n for n in lines if not span[0] <= n <= span[1]]
        if fn is None:  # a call at the top level of a script: the script's own top-level lines
            return any(_enclosing(self._function_nodes(tree), n) is None for n in outside)
        return any(fn.lineno <= n <= (fn.end_lineno or fn.lineno) for n in outside)

    def is_choice(self, src: str, span: tuple[int, int]) -> bool:
        """Whether the value `src` passed by the call on lines `span` is a choice: a name or option whose
        value varies across the function's cases, used nowhere else in the function but in labels."""
        tree = self._parsed()
        if tree is None:
            return False
        try:
            value = ast.parse(src.strip(), mode="eval").body
        except SyntaxError:
            return False
        if isinstance(value, ast.Attribute) and _root(value) not in _OPTIONS:
            return False
        if not isinstance(value, (ast.Name, ast.Attribute)):
            return False
        fn = _enclosing(self._function_nodes(tree), span[0])
        if fn is None:
            return False
        if isinstance(value, ast.Name) and not _varies(fn, tree, value.id):
            return False
        return not _used_elsewhere(fn, value, span)


# What an option or config field is read from: `args.strategy` from argparse, `config.backend`.
_OPTIONS = {"args", "opts", "options", "config", "cfg", "conf", "flags", "FLAGS"}


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _enclosing(
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef], line: int
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    best: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    for node in functions:
        if node.lineno <= line <= (node.end_lineno or node.lineno) and (
            best is None or node.lineno >= best.lineno
        ):
            best = node
    return best


def _varies(fn: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module, name: str) -> bool:
    """`name` provably takes two or more different values across the cases: a parametrize or fixture-class
    column whose rows show them (rows written out, or built by a module-level helper from loops over
    literals), or the target of a for-loop over literals in the function."""
    values: set[str] = set()
    for dec in fn.decorator_list:
        rows, names = _parametrize_rows(dec) or _fixture_rows(dec, tree) or (None, [])
        if rows is not None and name in names:
            values |= _column_values(rows, names.index(name), len(names), tree)
    for node in walk_list(fn):
        if isinstance(node, (ast.For, ast.comprehension)) and _binds(node.target, name):
            values |= _literals(node.iter)
    return len(values) >= 2


def _binds(target: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def _columns(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",")]
    return None


def _parametrize_rows(dec: ast.expr) -> tuple[ast.expr, list[str]] | None:
    """`@pytest.mark.parametrize("a, b", rows)`: the rows and the column names."""
    if not (
        isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute) and dec.func.attr == "parametrize"
    ):
        return None
    names = _columns(dec.args[0]) if len(dec.args) >= 2 else None
    return (dec.args[1], names) if names else None


def _fixture_rows(dec: ast.expr, tree: ast.Module) -> tuple[ast.expr, list[str]] | None:
    """`@SomeBenchFixture` whose class (in this module) holds `PARAMS = [("a, b", rows)]`."""
    if not isinstance(dec, ast.Name):
        return None
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == dec.id), None)
    for stmt in cls.body if cls is not None else []:
        if not (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "PARAMS" for t in stmt.targets)
        ):
            continue
        if isinstance(stmt.value, ast.List) and stmt.value.elts and isinstance(stmt.value.elts[0], ast.Tuple):
            first = stmt.value.elts[0].elts
            names = _columns(first[0]) if len(first) >= 2 else None
            if names:
                return first[1], names
    return None


def _column_values(rows: ast.expr, k: int, width: int, tree: ast.Module) -> set[str]:
    """The values (as ast dumps) column `k` takes in `rows`: a list written out, or a module-level helper
    that returns one or appends rows, with loop variables over literals unfolded."""
    if isinstance(rows, ast.Call) and isinstance(rows.func, ast.Name):
        fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == rows.func.id), None)
        return _helper_values(fn, k, width) if fn is not None else set()
    if not isinstance(rows, (ast.List, ast.Tuple)):
        return set()
    out: set[str] = set()
    for row in rows.elts:
        out |= _cell(row, k, width, {})
    return out


def _helper_values(fn: ast.FunctionDef, k: int, width: int) -> set[str]:
    loops: dict[str, set[str]] = {}
    for node in walk_list(fn):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            loops.setdefault(node.target.id, set()).update(_literals(node.iter))
    out: set[str] = set()
    for node in walk_list(fn):
        if isinstance(node, ast.Return) and isinstance(node.value, (ast.List, ast.Tuple)):
            for row in node.value.elts:
                out |= _cell(row, k, width, loops)
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append"
        ):
            for row in node.args[:1]:
                out |= _cell(row, k, width, loops)
    return out


def _cell(row: ast.expr, k: int, width: int, loops: dict[str, set[str]]) -> set[str]:
    if isinstance(row, ast.Call) and isinstance(row.func, ast.Attribute) and row.func.attr == "param":
        items: list[ast.expr] = list(row.args)
    elif width == 1:
        items = [row]
    elif isinstance(row, (ast.Tuple, ast.List)):
        items = list(row.elts)
    else:
        return set()
    if any(isinstance(i, ast.Starred) for i in items[: k + 1]) or k >= len(items):
        return set()
    item = items[k]
    if isinstance(item, ast.Name) and item.id in loops:
        return loops[item.id]
    return {ast.dump(item)} if isinstance(item, ast.Constant) else set()


def _literals(node: ast.expr) -> set[str]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return {ast.dump(e) for e in node.elts if isinstance(e, ast.Constant)}
    return set()


def _used_elsewhere(fn: ast.AST, value: ast.expr, span: tuple[int, int]) -> bool:
    """Whether the value is read anywhere in the function other than the call on lines `span` and labels
    (f-strings)."""
    want = ast.dump(value)
    labels: set[int] = set()
    nodes = walk_list(fn)
    for node in nodes:
        if isinstance(node, ast.JoinedStr):
            labels.update(id(n) for n in ast.walk(node))
    for node in nodes:
        if id(node) in labels or not isinstance(node, ast.expr) or ast.dump(node) != want:
            continue
        if isinstance(getattr(node, "ctx", None), ast.Store):
            continue
        if span[0] <= node.lineno <= span[1]:
            continue
        return True
    return False
