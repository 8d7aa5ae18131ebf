"""The scopes of one module and what each binds: assignments, loop targets, parameters (with the values
`pytest.mark.parametrize` and fixture classes give them), local functions and imports.

One walk over the tree (`ScopeTree`) records them, and every node's parent; nothing is evaluated here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from benchop_hook.analysis.modules import ModuleInfo, child_nodes, dotted, resolve_relative, walk_list


@dataclass
class Scope:
    node: ast.AST | None  # FunctionDef or None for the module
    parent: Scope | None
    assigns: dict[str, list[ast.expr]] = field(default_factory=dict)
    loops: dict[str, list[tuple[ast.expr, int | None, int]]] = field(
        default_factory=dict
    )  # name -> (iter, tuple index, line; -1 in a comprehension)
    params: list[str] = field(default_factory=list)
    param_values: dict[str, list[ast.expr]] = field(default_factory=dict)  # from parametrize
    defined_funcs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    globals_: set[str] = field(default_factory=set)
    is_class: bool = False  # a class body: its names are not visible inside its methods

    def up(self) -> Scope | None:
        """The next scope a name is looked up in from inside this one (class bodies are skipped)."""
        s = self.parent
        while s is not None and s.is_class:
            s = s.parent
        return s


class ModuleMarker(ast.expr):
    """A module bound by an import inside a function."""

    _fields = ()

    def __init__(self, module: str) -> None:
        super().__init__()
        self.module = module


class UnknownValue(ast.expr):
    """A value bound where bench-op can't see it: a `with ... as x` target, an augmented assignment, a
    row's item after a `*x`."""

    _fields = ()


class Scoped(ast.expr):
    """An expression to evaluate in another scope than the one asking (a helper's locals, a fixture's
    get_params)."""

    _fields = ()

    def __init__(self, node: ast.expr, scope: Scope) -> None:
        super().__init__()
        self.node = node
        self.scope = scope


def local_binding(fn: ast.AST, name: str, params: Iterable[str]) -> ast.expr | None:
    """The value of the one plain `name = ...` (or `name: T = ...`) in `fn`, when `name` is not a parameter
    and nothing else binds it.

    The one reader of "is `**name` a dict built here" that the static pass and the repair loop share.
    """
    if name in params:
        return None
    assigns = [
        n
        for n in walk_list(fn)
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        and any(
            isinstance(t, ast.Name) and t.id == name
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
        )
    ]
    if len(assigns) != 1 or isinstance(assigns[0], ast.AugAssign):
        return None
    return assigns[0].value


def bound_names(n: ast.AST) -> list[ast.expr]:
    """The name targets a binding statement (or comprehension) writes."""
    if isinstance(n, ast.Assign):
        targets = list(n.targets)
    elif isinstance(n, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.comprehension)):
        targets = [n.target]
    elif isinstance(n, ast.With):
        targets = [i.optional_vars for i in n.items if i.optional_vars is not None]
    else:
        return []
    out: list[ast.expr] = []
    for t in targets:
        out.extend(x for x in ast.walk(t) if isinstance(x, ast.Name))
    return out


def _targets(t: ast.expr) -> Iterator[tuple[str, int | None]]:
    if isinstance(t, ast.Name):
        yield t.id, None
    elif isinstance(t, (ast.Tuple, ast.List)):
        for i, e in enumerate(t.elts):
            if isinstance(e, ast.Name):
                yield e.id, i


def _parametrize(dec: ast.expr) -> tuple[list[str], ast.expr] | None:
    """`@pytest.mark.parametrize(names, values)`: the parameter names and the values expression."""
    if not isinstance(dec, ast.Call) or not dec.args:
        return None
    d = dotted(dec.func) or ""
    if not d.endswith("parametrize"):
        return None
    names_node = dec.args[0]
    values_node = (
        dec.args[1]
        if len(dec.args) > 1
        else next((k.value for k in dec.keywords if k.arg == "argvalues"), None)
    )
    if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
        names = [n.strip() for n in names_node.value.split(",") if n.strip()]
    elif isinstance(names_node, (ast.List, ast.Tuple)):
        names = [e.value for e in names_node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    else:
        return None
    if values_node is None:
        return None
    return names, values_node


def _add_param_values(scope: Scope, names: list[str], values: ast.expr) -> None:
    """Each of `names` takes its item of every row of `values` (the row itself, when there is one name)."""
    for i, n in enumerate(names):
        scope.param_values.setdefault(n, []).append(
            ast.Subscript(value=values, slice=ast.Constant(i if len(names) > 1 else None))
        )


# Nodes `_collect` does not descend into: expression contexts (shared singletons) and the two leaf
# expressions whose only child is a context or nothing.
_CONTEXTS = frozenset({ast.Load, ast.Store, ast.Del})
_LEAVES = _CONTEXTS | {ast.Name, ast.Constant}
_SCOPE_EXPRS = frozenset({ast.Lambda, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})


class ScopeTree:
    """Every scope of one module, what each binds, and each node's parent."""

    def __init__(self, mi: ModuleInfo) -> None:
        self.mi = mi
        self.tree = mi.tree
        self.module_scope = Scope(None, None)
        self.scopes: dict[ast.AST, Scope] = {}
        self.parents: dict[ast.AST, ast.AST] = {}
        self._walks: dict[ast.AST, list[ast.AST]] = {}
        if self.tree is not None:
            self._collect(self.tree, self.module_scope)

    def walk(self, fn: ast.AST) -> list[ast.AST]:
        """`ast.walk(fn)` as a list, kept: the same function is searched again for each name asked about."""
        out = self._walks.get(fn)
        if out is None:
            out = self._walks[fn] = walk_list(fn)
        return out

    # -- collection
    def _collect(self, node: ast.AST, scope: Scope) -> None:
        parents = self.parents
        for child in child_nodes(node):
            t = type(child)
            if t in _LEAVES:
                # Load/Store/Del (one shared object each) and Name/Constant hold nothing to collect; nothing
                # asks for a context's parent. Most of a tree's nodes are these.
                if t not in _CONTEXTS:
                    parents[child] = node
                continue
            parents[child] = node
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._function(child, scope)
                continue
            if isinstance(child, ast.ClassDef):
                scope.assigns.setdefault(child.name, [])
                body = Scope(child, scope, is_class=True)
                self.scopes[child] = body
                self._collect(child, body)
                continue
            if t in _SCOPE_EXPRS:
                if isinstance(child, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                    for gen in child.generators:
                        for name, idx in _targets(gen.target):
                            scope.loops.setdefault(name, []).append((gen.iter, idx, -1))
                self._collect(child, scope)
                continue
            if isinstance(child, ast.stmt) and (
                node is self.tree or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            ):
                self._visit_stmt(child, scope)
            self._collect(child, scope)

    def _function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        """A function's own scope: its parameters (with the values its parametrize decorators and fixture
        classes give them) and its body. Its decorators and defaults are read in the enclosing scope."""
        scope.defined_funcs[fn.name] = fn
        scope.assigns.setdefault(fn.name, [])
        inner = Scope(fn, scope)
        a = fn.args
        inner.params = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
        for x in (a.vararg, a.kwarg):
            if x is not None:
                inner.params.append(x.arg)
        for dec in fn.decorator_list:
            for names, values in self._decorator_params(dec):
                _add_param_values(inner, names, values)
            pz = _parametrize(dec)
            if pz is not None:
                _add_param_values(inner, *pz)
        self.scopes[fn] = inner
        for sub in (*fn.decorator_list, *a.defaults, *[d for d in a.kw_defaults if d is not None]):
            self.parents[sub] = fn
            self._collect(sub, scope)
        for stmt in fn.body:
            self.parents[stmt] = fn
            self._visit_stmt(stmt, inner)
            self._collect(stmt, inner)

    def _decorator_params(self, dec: ast.expr) -> list[tuple[list[str], ast.expr]]:
        """`@SomeFixture` where SomeFixture is a class of this module holding `PARAMS = [(names, values),
        ...]`
        (or a `get_params` that returns such a list): its instances parametrize the function like
        `pytest.mark.parametrize(names, values)` for each entry."""
        if not isinstance(dec, ast.Name) or self.tree is None:
            return []
        classes = {n.name: n for n in self.tree.body if isinstance(n, ast.ClassDef)}
        seen: set[str] = set()
        cls = classes.get(dec.id)
        while cls is not None and cls.name not in seen:
            seen.add(cls.name)
            entries = self._fixture_entries(cls)
            if entries is not None:
                return entries
            base = next((b.id for b in cls.bases if isinstance(b, ast.Name) and b.id in classes), None)
            cls = classes.get(base) if base else None
        return []

    def _fixture_entries(self, cls: ast.ClassDef) -> list[tuple[list[str], ast.expr]] | None:
        table: ast.expr | None = None
        for item in cls.body:
            if (
                isinstance(item, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "PARAMS" for t in item.targets)
            ) or (
                isinstance(item, ast.AnnAssign)
                and isinstance(item.target, ast.Name)
                and item.target.id == "PARAMS"
            ):
                table = item.value
            elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "get_params":
                returned = [
                    n.value for n in self.walk(item) if isinstance(n, ast.Return) and n.value is not None
                ]
                fscope = self.scopes.get(item)
                if len(returned) == 1 and returned[0] is not None and fscope is not None:
                    table = Scoped(returned[0], fscope)
        if table is None:
            return None
        inner, tscope = (table.node, table.scope) if isinstance(table, Scoped) else (table, None)
        if not isinstance(inner, (ast.List, ast.Tuple)):
            return []
        out: list[tuple[list[str], ast.expr]] = []
        for entry in inner.elts:
            if not (isinstance(entry, ast.Tuple) and len(entry.elts) == 2):
                continue
            names_node, values = entry.elts
            if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
                names = [n.strip() for n in names_node.value.split(",") if n.strip()]
            elif isinstance(names_node, (ast.List, ast.Tuple)):
                names = [
                    e.value
                    for e in names_node.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                ]
            else:
                continue
            out.append((names, Scoped(values, tscope) if tscope is not None else values))
        return out

    def _visit_stmt(self, stmt: ast.stmt, scope: Scope) -> None:
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                for name, idx in _targets(t):
                    if idx is None:
                        scope.assigns.setdefault(name, []).append(stmt.value)
                    elif isinstance(stmt.value, (ast.Tuple, ast.List)) and idx < len(stmt.value.elts):
                        scope.assigns.setdefault(name, []).append(stmt.value.elts[idx])
                    else:
                        scope.assigns.setdefault(name, []).append(
                            ast.copy_location(ast.Subscript(value=stmt.value, slice=ast.Constant(idx)), stmt)
                        )
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            scope.assigns.setdefault(stmt.target.id, []).append(stmt.value)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            for name, idx in _targets(stmt.target):
                scope.loops.setdefault(name, []).append((stmt.iter, idx, stmt.lineno))
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    for name, _ in _targets(item.optional_vars):
                        scope.assigns.setdefault(name, []).append(ast.copy_location(UnknownValue(), stmt))
        elif isinstance(stmt, ast.Import) and scope.node is not None:
            for a in stmt.names:
                if a.asname:
                    scope.assigns.setdefault(a.asname, []).append(
                        ast.copy_location(ModuleMarker(a.name), stmt)
                    )
                else:
                    top = a.name.split(".")[0]
                    scope.assigns.setdefault(top, []).append(ast.copy_location(ModuleMarker(top), stmt))
        elif isinstance(stmt, ast.ImportFrom) and scope.node is not None:
            base = resolve_relative(self.mi.module, self.mi.is_package, stmt.level, stmt.module)
            for a in stmt.names:
                if a.name == "*":
                    continue
                scope.assigns.setdefault(a.asname or a.name, []).append(
                    ast.copy_location(ast.Attribute(value=ModuleMarker(base), attr=a.name), stmt)
                )
        elif isinstance(stmt, ast.Global):
            scope.globals_.update(stmt.names)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            scope.assigns.setdefault(stmt.target.id, []).append(ast.copy_location(UnknownValue(), stmt))

    # -- questions
    def lookup(self, name: str, scope: Scope) -> Scope | None:
        """The scope whose binding of `name` a use in `scope` sees."""
        s: Scope | None = scope
        while s is not None:
            if name in s.assigns or name in s.params or name in s.loops:
                return s
            s = s.up()
        return None

    def scope_of(self, node: ast.AST) -> Scope:
        cur: ast.AST | None = node
        while cur is not None:
            cur = self.parents.get(cur)
            if cur is not None and cur in self.scopes:
                return self.scopes[cur]
        return self.module_scope

    def enclosing_function(self, node: ast.AST) -> tuple[str | None, str | None]:
        """(top-level function name, Class.method qualname) around `node`."""
        chain: list[ast.AST] = []
        cur: ast.AST | None = self.parents.get(node)
        while cur is not None:
            chain.append(cur)
            cur = self.parents.get(cur)
        names = [
            c.name
            for c in reversed(chain)
            if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        ]
        if not names:
            return None, None
        funcs = [c for c in reversed(chain) if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef))]
        top = funcs[0].name if funcs else None
        qual = (
            "::".join(names[:2])
            if len(names) > 1
            and isinstance(
                next(
                    c
                    for c in reversed(chain)
                    if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                ),
                ast.ClassDef,
            )
            else top
        )
        return top, qual

    def visible_names(self, node: ast.AST, scope: Scope) -> set[str]:
        names: set[str] = set()
        line = getattr(node, "lineno", 10**9)
        s: Scope | None = scope
        while s is not None:
            names.update(s.params)
            for n, vals in s.assigns.items():
                # at module level anything defined is there when a test runs; in a function, only what came
                # before
                if s is self.module_scope or any((getattr(v, "lineno", None) or 10**9) <= line for v in vals):
                    names.add(n)
            for n, entries in s.loops.items():
                if any(
                    0 < at <= line for _, _, at in entries
                ):  # a for-loop before the call; never a comprehension's
                    names.add(n)
            s = s.up()
        names.update(self.mi.imports)
        return names
