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


@dataclass
class Cases:
    """The benchmark module, parsed once when a question needs it."""

    data: bytes
    _tree: ast.Module | None = field(default=None, repr=False)

    def _parsed(self) -> ast.Module | None:
        if self._tree is None:
            try:
                self._tree = ast.parse(self.data)
            except (SyntaxError, ValueError):
                return None
        return self._tree

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
        fn = _enclosing(tree, span[0])
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


def _enclosing(tree: ast.Module, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    best: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if node.lineno <= line <= (node.end_lineno or node.lineno) and (
            best is None or node.lineno >= best.lineno
        ):
            best = node
    return best


def _varies(fn: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module, name: str) -> bool:
    """`name` takes two or more different literal values across the cases: a parametrize column of the
    function (or of its class), or the target of a for-loop over literals in it."""
    values: set[str] = set()
    for dec in fn.decorator_list:
        values |= _parametrized(dec, name)
        if _fixture_column(dec, tree, name):
            return True  # a fixture class's column: its rows are built at collection, one case per row
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.comprehension)) and _binds(node.target, name):
            values |= _literals(node.iter)
    return len(values) >= 2


def _fixture_column(dec: ast.expr, tree: ast.Module, name: str) -> bool:
    """`@SomeBenchFixture` on the test, whose class (in this module) lists `name` among the columns of its
    `PARAMS = [("op_name, shape, ...", rows)]`."""
    if not isinstance(dec, ast.Name):
        return False
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == dec.id), None)
    if cls is None:
        return False
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "PARAMS" for t in stmt.targets
        ):
            for node in ast.walk(stmt.value):
                columns = (
                    node.value.split(",")
                    if isinstance(node, ast.Constant) and isinstance(node.value, str)
                    else []
                )
                if name in (c.strip() for c in columns):
                    return True
    return False


def _binds(target: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def _parametrized(dec: ast.expr, name: str) -> set[str]:
    """The values `@pytest.mark.parametrize(...)` gives `name`."""
    if not (
        isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute) and dec.func.attr == "parametrize"
    ):
        return set()
    if (
        len(dec.args) < 2
        or not isinstance(dec.args[0], ast.Constant)
        or not isinstance(dec.args[0].value, str)
    ):
        return set()
    names = [n.strip() for n in dec.args[0].value.split(",")]
    if name not in names:
        return set()
    k = names.index(name)
    rows = dec.args[1]
    if not isinstance(rows, (ast.List, ast.Tuple)):
        return set()
    out: set[str] = set()
    for row in rows.elts:
        if isinstance(row, ast.Call) and isinstance(row.func, ast.Attribute) and row.func.attr == "param":
            items: list[ast.expr] = list(row.args)
        elif len(names) == 1:
            items = [row]
        elif isinstance(row, (ast.Tuple, ast.List)):
            items = list(row.elts)
        else:
            continue
        if k < len(items):
            out.add(ast.dump(items[k]))
    return out


def _literals(node: ast.expr) -> set[str]:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return {ast.dump(e) for e in node.elts if isinstance(e, ast.Constant)}
    return set()


def _used_elsewhere(fn: ast.AST, value: ast.expr, span: tuple[int, int]) -> bool:
    """Whether the value is read anywhere in the function other than the call on lines `span` and labels
    (f-strings)."""
    want = ast.dump(value)
    labels: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.JoinedStr):
            labels.update(id(n) for n in ast.walk(node))
    for node in ast.walk(fn):
        if id(node) in labels or not isinstance(node, ast.expr) or ast.dump(node) != want:
            continue
        if isinstance(getattr(node, "ctx", None), ast.Store):
            continue
        if span[0] <= node.lineno <= span[1]:
            continue
        return True
    return False
