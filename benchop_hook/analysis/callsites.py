"""Which calls in a benchmark (or test) module build or call which Op, read with `ast`.

A small abstract interpreter follows an Op class from its import through
local names, dict/list/tuple literals and subscripts of them, for-loops,
`pytest.mark.parametrize` values and one level of local helper functions whose
parameter is called. The result for each call is the set of classes (or Op
instances, for method calls) that can reach it; anything it cannot follow is
`UNKNOWN`, and the caller reports such calls instead of guessing.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

from benchop_hook.analysis.modules import ClassRef, ModuleInfo, ModuleRef, child_nodes, dotted, walk_list
from benchop_hook.analysis.signatures import Segments

UNKNOWN = "?"


@dataclass(frozen=True)
class Instance:
    """An object built from an Op class: calls on it reach its methods."""

    cls: ClassRef


@dataclass(frozen=True)
class Gone:
    """A name that resolved to this class in the old version and resolves to nothing now."""

    old: ClassRef


Atom = ClassRef | ModuleRef | Instance | Gone | str


@dataclass(frozen=True)
class Arg:
    kind: str  # "pos", "kw", "star", "dstar"
    keyword: str | None
    source: str


@dataclass(frozen=True)
class CallSite:
    path: str
    lineno: int
    col: int  # character column where the call expression starts
    end_lineno: int
    end_col: int
    func_source: str
    args: tuple[Arg, ...]
    atoms: frozenset[Atom]  # what the callee can be
    method: str | None  # None: a constructor call; else the method called on an instance
    function: str | None  # enclosing top-level function (pytest test) name
    qualfunction: str | None  # Class.method or function, for node ids
    scope_names: frozenset[str]  # names visible at the call: evidence for new parameters
    via: str  # direct, alias, module, dict, list, loop, parametrize, helper, instance
    splat_dict: tuple[tuple[str, str], ...] | None = None  # literal `**d` expanded: (key, value source)
    splat_name: str | None = None  # the name splatted with `**name`, when it is a plain name
    splat_star: tuple[str, ...] | None = None  # literal `*t` expanded: the sources of its items
    opaque: str | None = None  # why a splat's contents can't be seen, e.g. "*inputs (the result of a call)"
    guard: str | None = (
        None  # a condition bench-op can't evaluate that may keep some classes away from the call
    )
    conditional: bool = False  # the call runs under some `if`

    @property
    def expanded_args(self) -> tuple[Arg, ...] | None:
        """The arguments with literal splats replaced by what they hold; None when a splat is opaque."""
        out: list[Arg] = []
        for a in self.args:
            if a.kind == "star":
                if self.splat_star is None:
                    return None
                out.extend(Arg("pos", None, src) for src in self.splat_star)
            elif a.kind == "dstar":
                if self.splat_dict is None:
                    return None
            else:
                out.append(a)
        if self.splat_dict is not None:
            out.extend(Arg("kw", k, v) for k, v in self.splat_dict)
        # Python binds every positional before any keyword, whatever the written order.
        return tuple([a for a in out if a.kind == "pos"] + [a for a in out if a.kind != "pos"])

    @property
    def classes(self) -> frozenset[ClassRef]:
        return frozenset(a for a in self.atoms if isinstance(a, ClassRef))

    @property
    def where(self) -> str:
        return f"{self.path}:{self.lineno}"


@dataclass
class _Scope:
    node: ast.AST | None  # FunctionDef or None for the module
    parent: _Scope | None
    assigns: dict[str, list[ast.expr]] = field(default_factory=dict)
    loops: dict[str, list[tuple[ast.expr, int | None, int]]] = field(
        default_factory=dict
    )  # name -> (iter, tuple index, line; -1 in a comprehension)
    params: list[str] = field(default_factory=list)
    param_values: dict[str, list[ast.expr]] = field(default_factory=dict)  # from parametrize
    defined_funcs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    globals_: set[str] = field(default_factory=set)
    is_class: bool = False  # a class body: its names are not visible inside its methods

    def up(self) -> _Scope | None:
        """The next scope a name is looked up in from inside this one (class bodies are skipped)."""
        s = self.parent
        while s is not None and s.is_class:
            s = s.parent
        return s


def char_col(lines: list[str], lineno: int, byte_col: int) -> int:
    """ast's byte column as a character column (what CallSite and libcst positions use)."""
    if lineno - 1 >= len(lines):
        return byte_col
    line = lines[lineno - 1]
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def local_binding(fn: ast.AST, name: str, params: Iterable[str]) -> ast.expr | None:
    """The value of the one plain `name = ...` in `fn`, when `name` is not a parameter and nothing else binds
    it.

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
    if len(assigns) != 1 or not isinstance(assigns[0], ast.Assign):
        return None
    return assigns[0].value


def _targets(t: ast.expr) -> Iterator[tuple[str, int | None]]:
    if isinstance(t, ast.Name):
        yield t.id, None
    elif isinstance(t, (ast.Tuple, ast.List)):
        for i, e in enumerate(t.elts):
            if isinstance(e, ast.Name):
                yield e.id, i


def _parametrize(dec: ast.expr) -> tuple[list[str], list[ast.expr]] | None:
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
    return names, [values_node]


# Nodes `_collect` does not descend into: expression contexts (shared singletons) and the two leaf
# expressions whose only child is a context or nothing.
_CONTEXTS = frozenset({ast.Load, ast.Store, ast.Del})
_LEAVES = _CONTEXTS | {ast.Name, ast.Constant}
_SCOPE_EXPRS = frozenset({ast.Lambda, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})


class ModuleAnalyzer:
    """Finds every call in one module and what it may call."""

    def __init__(
        self,
        mi: ModuleInfo,
        source: bytes,
        resolve: Callable[[ModuleInfo, str], Atom | None],
        resolve_attr: Callable[[str, str], Atom | None],
        helper_args: Callable[[str, str, int, str | None], list[Atom]] | None = None,
    ) -> None:
        self.mi = mi
        self.tree = mi.tree
        self.text = source.decode("utf-8-sig", "replace")
        self.lines = self.text.splitlines()
        self._segments = Segments(source[3:] if source.startswith(b"\xef\xbb\xbf") else source)
        self._calls_by_name: dict[str, list[ast.Call]] | None = None
        self._resolve = resolve
        self._resolve_attr = resolve_attr
        self._helper_args = helper_args
        self.module_scope = _Scope(None, None)
        self.scopes: dict[ast.AST, _Scope] = {}
        self.parents: dict[ast.AST, ast.AST] = {}
        self.helper_calls: list[tuple[str, ast.Call, _Scope]] = []
        self._walks: dict[ast.AST, list[ast.AST]] = {}
        if self.tree is not None:
            self._collect(self.tree, self.module_scope)

    def _walk(self, fn: ast.AST) -> list[ast.AST]:
        """`ast.walk(fn)` as a list, kept: the same function is searched again for each name asked about."""
        out = self._walks.get(fn)
        if out is None:
            out = self._walks[fn] = walk_list(fn)
        return out

    # -- scope collection
    def _collect(self, node: ast.AST, scope: _Scope) -> None:
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
                scope.defined_funcs[child.name] = child
                scope.assigns.setdefault(child.name, [])
                inner = _Scope(child, scope)
                a = child.args
                inner.params = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
                for x in (a.vararg, a.kwarg):
                    if x is not None:
                        inner.params.append(x.arg)
                for dec in child.decorator_list:
                    for names, values in self._decorator_params(dec):
                        for i, n in enumerate(names):
                            inner.param_values.setdefault(n, []).append(
                                ast.Subscript(value=values, slice=ast.Constant(i if len(names) > 1 else None))
                            )
                    pz = _parametrize(dec)
                    if pz is None:
                        continue
                    names, (values,) = pz
                    for i, n in enumerate(names):
                        inner.param_values.setdefault(n, []).append(
                            ast.Subscript(value=values, slice=ast.Constant(i if len(names) > 1 else None))
                        )
                self.scopes[child] = inner
                # Decorators and defaults belong to the enclosing scope.
                for sub in (*child.decorator_list, *a.defaults, *[d for d in a.kw_defaults if d is not None]):
                    self.parents[sub] = child
                    self._collect(sub, scope)
                for stmt in child.body:
                    self.parents[stmt] = child
                    self._visit_stmt(stmt, inner)
                    self._collect(stmt, inner)
                continue
            if isinstance(child, ast.ClassDef):
                scope.assigns.setdefault(child.name, [])
                body = _Scope(child, scope, is_class=True)
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
                    n.value for n in self._walk(item) if isinstance(n, ast.Return) and n.value is not None
                ]
                fscope = self.scopes.get(item)
                if len(returned) == 1 and returned[0] is not None and fscope is not None:
                    table = _Scoped(returned[0], fscope)
        if table is None:
            return None
        inner, tscope = (table.node, table.scope) if isinstance(table, _Scoped) else (table, None)
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
            out.append((names, _Scoped(values, tscope) if tscope is not None else values))
        return out

    def _returned_list(
        self, call: ast.Call, scope: _Scope, depth: int
    ) -> list[tuple[str, list[tuple[ast.expr | None, ast.expr]]] | None] | None:
        """A module-level helper called for its list (one level): `return [...]`, or a list built with
        `rows = []` and `rows.append(x)` / `rows.extend([...])` / `rows += [...]` then `return rows`.
        Items are evaluated in the helper's scope. None: not such a helper."""
        if not isinstance(call.func, ast.Name):
            return None
        fn = self.module_scope.defined_funcs.get(call.func.id)
        if fn is None or depth > 4 or self._lookup_scope(call.func.id, scope) is not self.module_scope:
            return None
        fscope = self.scopes.get(fn)
        returns = [n for n in self._walk(fn) if isinstance(n, ast.Return)]
        if fscope is None or len(returns) != 1 or returns[0].value is None:
            return [None]
        value = returns[0].value
        if isinstance(value, (ast.List, ast.Tuple)):
            return [("list", [(None, _Scoped(e, fscope)) for e in value.elts])]
        if not isinstance(value, ast.Name):
            return [None]
        name = value.id
        binds = [
            n
            for n in self._walk(fn)
            if any(isinstance(t, ast.Name) and t.id == name for t in _bound_names(n))
        ]
        start = [b for b in binds if isinstance(b, ast.Assign)]
        if len(start) != 1 or not isinstance(start[0].value, ast.List):
            return [None]
        items: list[ast.expr] = list(start[0].value.elts)
        for n in self._walk(fn):
            if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name:
                if not isinstance(n.value, (ast.List, ast.Tuple)):
                    return [None]
                items.extend(n.value.elts)
            elif (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Name)
                and n.func.value.id == name
            ):
                if n.func.attr == "append" and len(n.args) == 1:
                    items.append(n.args[0])
                elif (
                    n.func.attr == "extend"
                    and len(n.args) == 1
                    and isinstance(n.args[0], (ast.List, ast.Tuple))
                ):
                    items.extend(n.args[0].elts)
                else:
                    return [None]
        if len(binds) != 1 + sum(1 for b in binds if isinstance(b, ast.AugAssign)):
            return [None]
        return [("list", [(None, _Scoped(e, fscope)) for e in items])]

    def _lookup_scope(self, name: str, scope: _Scope) -> _Scope | None:
        s: _Scope | None = scope
        while s is not None:
            if name in s.assigns or name in s.params or name in s.loops:
                return s
            s = s.up()
        return None

    def _visit_stmt(self, stmt: ast.stmt, scope: _Scope) -> None:
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
                        scope.assigns.setdefault(name, []).append(
                            ast.copy_location(ast.Name(id=UNKNOWN), stmt)
                        )
        elif isinstance(stmt, ast.Import) and scope.node is not None:
            for a in stmt.names:
                if a.asname:
                    scope.assigns.setdefault(a.asname, []).append(
                        ast.copy_location(_ModuleMarker(a.name), stmt)
                    )
                else:
                    top = a.name.split(".")[0]
                    scope.assigns.setdefault(top, []).append(ast.copy_location(_ModuleMarker(top), stmt))
        elif isinstance(stmt, ast.ImportFrom) and scope.node is not None:
            from benchop_hook.analysis.modules import resolve_relative

            base = resolve_relative(self.mi.module, self.mi.is_package, stmt.level, stmt.module)
            for a in stmt.names:
                if a.name == "*":
                    continue
                scope.assigns.setdefault(a.asname or a.name, []).append(
                    ast.copy_location(ast.Attribute(value=_ModuleMarker(base), attr=a.name), stmt)
                )
        elif isinstance(stmt, ast.Global):
            scope.globals_.update(stmt.names)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            scope.assigns.setdefault(stmt.target.id, []).append(ast.copy_location(ast.Name(id=UNKNOWN), stmt))

    def scope_of(self, node: ast.AST) -> _Scope:
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

    # -- evaluation
    def eval(self, expr: ast.expr, scope: _Scope, depth: int = 0) -> set[Atom]:
        if depth > 10:
            return {UNKNOWN}
        if isinstance(expr, _ModuleMarker):
            return {ModuleRef(expr.module)}
        if isinstance(expr, _Scoped):
            return self.eval(expr.node, expr.scope, depth + 1)
        if isinstance(expr, ast.Name):
            return self._eval_name(expr.id, scope, depth)
        if isinstance(expr, ast.Attribute):
            base = self.eval(expr.value, scope, depth + 1)
            out: set[Atom] = set()
            for b in base:
                if isinstance(b, ModuleRef):
                    r = self._resolve_attr(b.module, expr.attr)
                    out.add(r if r is not None else UNKNOWN)
                elif isinstance(b, Instance):
                    out.add(UNKNOWN)  # a bound method: handled by the caller
                else:
                    out.add(UNKNOWN)
            return out or {UNKNOWN}
        if isinstance(expr, ast.Subscript):
            return self._eval_subscript(expr, scope, depth)
        if isinstance(expr, ast.Call):
            callee = self.eval(expr.func, scope, depth + 1)
            out = set()
            for c in callee:
                if isinstance(c, ClassRef):
                    out.add(Instance(c))
                elif isinstance(c, Gone):
                    out.add(UNKNOWN)
                else:
                    out.add(UNKNOWN)
            # dict(...)/getattr(module, "X") and friends are not followed.
            return out or {UNKNOWN}
        if isinstance(expr, ast.IfExp):
            return self.eval(expr.body, scope, depth + 1) | self.eval(expr.orelse, scope, depth + 1)
        if isinstance(expr, ast.Constant):
            return {"const"}
        return {UNKNOWN}

    def _eval_subscript(self, expr: ast.Subscript, scope: _Scope, depth: int) -> set[Atom]:
        key = expr.slice
        out: set[Atom] = set()
        for container in self.elements_source(expr.value, scope, depth + 1):
            if container is None:
                out.add(UNKNOWN)
                continue
            kind, items = container
            if kind == "dict" and isinstance(key, ast.Constant) and key.value is not None:
                chosen = [v for k, v in items if isinstance(k, ast.Constant) and k.value == key.value]
                if chosen:
                    for v in chosen:
                        out |= self.eval(v, scope, depth + 1)
                    continue
            if kind in ("list", "tuple") and isinstance(key, ast.Constant) and isinstance(key.value, int):
                vals = [v for _, v in items]
                if -len(vals) <= key.value < len(vals):
                    out |= self.eval(vals[key.value], scope, depth + 1)
                    continue
            for _, v in items:
                if kind == "parametrize-row":
                    out |= self.eval(v, scope, depth + 1)
                else:
                    out |= self.eval(v, scope, depth + 1)
        return out or {UNKNOWN}

    def elements_source(
        self, expr: ast.expr, scope: _Scope, depth: int
    ) -> list[tuple[str, list[tuple[ast.expr | None, ast.expr]]] | None]:
        """Literal containers `expr` can be: ("dict"|"list"|"tuple", [(key, value)])."""
        if depth > 10:
            return [None]
        if isinstance(expr, _Scoped):
            return self.elements_source(expr.node, expr.scope, depth + 1)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
            returned = self._returned_list(expr, scope, depth)
            if returned is not None:
                return returned
        if isinstance(expr, ast.Dict):
            return [("dict", [(k, v) for k, v in zip(expr.keys, expr.values) if k is not None])]
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            kind = "tuple" if isinstance(expr, ast.Tuple) else "list"
            return [(kind, [(None, e) for e in expr.elts])]
        if isinstance(expr, ast.Name):
            out: list[tuple[str, list[tuple[ast.expr | None, ast.expr]]] | None] = []
            for value in self._name_values(expr.id, scope):
                if value is None:
                    out.append(None)
                else:
                    v, vscope = value
                    out.extend(self.elements_source(v, vscope, depth + 1))
            return out or [None]
        if isinstance(expr, ast.Subscript):
            # rows of a parametrize list: the tuple at one index of each row
            out = []
            idx = expr.slice.value if isinstance(expr.slice, ast.Constant) else UNKNOWN
            for cont in self.elements_source(expr.value, scope, depth + 1):
                if cont is None:
                    out.append(None)
                    continue
                _, items = cont
                for _, row in items:
                    row = _unwrap_param(row)
                    if idx is None:
                        out.extend(self.elements_source(row, scope, depth + 1))
                    elif (
                        isinstance(idx, int)
                        and isinstance(row, (ast.Tuple, ast.List))
                        and idx < len(row.elts)
                    ):
                        out.extend(self.elements_source(row.elts[idx], scope, depth + 1))
                    else:
                        out.append(None)
            return out or [None]
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and expr.func.attr in ("values", "items", "keys")
            and not expr.args
        ):
            out = []
            for cont in self.elements_source(expr.func.value, scope, depth + 1):
                if cont is None or cont[0] != "dict":
                    out.append(None)
                elif expr.func.attr == "values":
                    out.append(("list", [(None, v) for _, v in cont[1]]))
                elif expr.func.attr == "items":
                    out.append(
                        ("list", [(None, ast.Tuple(elts=[k, v])) for k, v in cont[1] if k is not None])
                    )
                else:
                    out.append(("list", [(None, k) for k, _ in cont[1] if k is not None]))
            return out
        return [None]

    def _name_values(self, name: str, scope: _Scope) -> list[tuple[ast.expr, _Scope] | None]:
        """Expressions a name may be bound to, with the scope to evaluate them in."""
        s: _Scope | None = scope
        while s is not None:
            if name in s.globals_:
                s = self.module_scope
            if name in s.assigns or name in s.loops or name in s.params:
                out: list[tuple[ast.expr, _Scope] | None] = [(v, s) for v in s.assigns.get(name, [])]
                for it, idx, _ in s.loops.get(name, []):
                    out.append((ast.Subscript(value=it, slice=ast.Constant(idx)), s))
                if name in s.params:
                    vals = s.param_values.get(name)
                    if vals:
                        out.extend((v, s.parent or self.module_scope) for v in vals)
                    else:
                        out.append(None)
                return out
            s = s.up()
        return []

    def _eval_name(self, name: str, scope: _Scope, depth: int) -> set[Atom]:
        if name == UNKNOWN:
            return {UNKNOWN}
        s: _Scope | None = scope
        while s is not None:
            if name in s.globals_ and s is not self.module_scope:
                s = self.module_scope
                continue
            if name in s.params:
                out: set[Atom] = set()
                vals = s.param_values.get(name)
                if vals:
                    for v in vals:
                        out |= self._eval_param_value(v, s.parent or self.module_scope, depth)
                elif (
                    isinstance(s.node, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and s.parent is self.module_scope
                ):
                    positional = [a.arg for a in (*s.node.args.posonlyargs, *s.node.args.args)]
                    index = positional.index(name) if name in positional else -1
                    atoms = self._local_callers(s.node.name, index, name, depth)
                    if self._helper_args is not None:
                        atoms |= set(self._helper_args(self.mi.module, s.node.name, index, name))
                    out |= atoms if atoms else {UNKNOWN}
                else:
                    out.add(UNKNOWN)
                for v in s.assigns.get(name, []):
                    out |= self.eval(v, s, depth + 1)
                return out
            if name in s.assigns or name in s.loops:
                out = set()
                for v in s.assigns.get(name, []):
                    out |= self.eval(v, s, depth + 1)
                for it, idx, _ in s.loops.get(name, []):
                    out |= self._eval_elements(it, idx, s, depth)
                if s is self.module_scope and name in s.defined_funcs:
                    out.add(UNKNOWN)
                if s is self.module_scope:
                    # A module-level name may also be an import (later rebinding is rare).
                    r = (
                        self._resolve(self.mi, name)
                        if not s.assigns.get(name) and not s.loops.get(name)
                        else None
                    )
                    if r is not None:
                        out.add(r)
                return out or {UNKNOWN}
            if s is self.module_scope:
                r = self._resolve(self.mi, name)
                return {r} if r is not None else {UNKNOWN}
            s = s.up()
        return {UNKNOWN}

    def _local_callers(self, fname: str, index: int, pname: str, depth: int) -> set[Atom]:
        """What callers in this module pass for parameter `pname` (position `index`) of helper `fname`."""
        out: set[Atom] = set()
        if self.tree is None or depth > 6:
            return {UNKNOWN} if depth > 6 else out
        if self._calls_by_name is None:
            self._calls_by_name = {}
            for n in self.mi.nodes():
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                    self._calls_by_name.setdefault(n.func.id, []).append(n)
        for node in self._calls_by_name.get(fname, []):
            scope = self.scope_of(node)
            if any(isinstance(a, ast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords
            ):
                out.add(UNKNOWN)
                continue
            if 0 <= index < len(node.args):
                out |= self.eval(node.args[index], scope, depth + 2)
                continue
            kw = next((k for k in node.keywords if k.arg == pname), None)
            out |= self.eval(kw.value, scope, depth + 2) if kw is not None else {UNKNOWN}
        return out

    def _eval_param_value(self, values: ast.expr, scope: _Scope, depth: int) -> set[Atom]:
        # `values` is Subscript(<argvalues>, i): element i of each row (None: the row itself).
        assert isinstance(values, ast.Subscript)
        idx = (
            values.slice.value
            if isinstance(values.slice, ast.Constant) and isinstance(values.slice.value, int)
            else None
        )
        return self._eval_elements(values.value, idx, scope, depth)

    def _eval_elements(self, iterable: ast.expr, idx: int | None, scope: _Scope, depth: int) -> set[Atom]:
        """What each element (or its item `idx`, for tuple rows) of a literal iterable can be."""
        out: set[Atom] = set()
        for cont in self.elements_source(iterable, scope, depth + 1):
            if cont is None:
                out.add(UNKNOWN)
                continue
            for _, row in cont[1]:
                row = _unwrap_param(row)
                if idx is None:
                    out |= self.eval(row, scope, depth + 1)
                elif isinstance(row, (ast.Tuple, ast.List)) and idx < len(row.elts):
                    out |= self.eval(_unwrap_param(row.elts[idx]), scope, depth + 1)
                else:
                    out.add(UNKNOWN)
        return out

    # -- calls
    def calls(self) -> Iterator[CallSite]:
        if self.tree is None:
            return
        for node in self.mi.nodes():
            if not isinstance(node, ast.Call):
                continue
            scope = self.scope_of(node)
            method: str | None = None
            via = "direct"
            func = node.func
            atoms: set[Atom]
            if isinstance(func, ast.Attribute):
                base = self.eval(func.value, scope)
                if base and all(isinstance(b, Instance) for b in base):
                    atoms = set(base)
                    method = func.attr
                    via = "instance"
                else:
                    atoms = self.eval(func, scope)
                    via = "module"
            else:
                atoms = self.eval(func, scope)
                if isinstance(func, ast.Name):
                    atoms = self._narrowed(node, func.id, scope, atoms)
                if atoms and all(isinstance(a, Instance) for a in atoms):
                    method = "__call__"
                    via = "instance"
                elif isinstance(func, ast.Name) and not self._is_import_name(func.id, scope):
                    via = "indirect"
                elif (
                    isinstance(func, ast.Name)
                    and func.id in self.mi.imports
                    and self.mi.imports[func.id][-1] != func.id
                ):
                    via = "alias"
            if not any(isinstance(a, (ClassRef, Instance, Gone)) for a in atoms):
                continue
            site = self._site(node, atoms, method, via, scope)
            guard, conditional = self._guard_of(node, func, scope)
            if guard is not None or conditional:
                site = replace(site, guard=guard, conditional=conditional)
            yield site

    # -- guards: the conditions a call runs under
    def _conditions(self, node: ast.AST) -> list[tuple[ast.expr, bool]]:
        """(test, whether it holds) for each `if` the call is under, up to its function, including
        earlier `if ...: return` statements it comes after."""
        out: list[tuple[ast.expr, bool]] = []
        child: ast.AST = node
        cur = self.parents.get(node)
        while cur is not None and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if isinstance(cur, (ast.If, ast.IfExp, ast.While)):
                body = cur.body if isinstance(cur.body, list) else [cur.body]
                orelse = cur.orelse if isinstance(cur.orelse, list) else [cur.orelse]
                if child in body:
                    out.append((cur.test, True))
                elif child in orelse:
                    out.append((cur.test, False))
            for fld in ("body", "orelse", "finalbody"):
                block = getattr(cur, fld, None)
                if isinstance(block, list) and child in block:
                    for prev in block[: block.index(child)]:
                        if (
                            isinstance(prev, ast.If)
                            and not prev.orelse
                            and prev.body
                            and isinstance(prev.body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))
                        ):
                            out.append((prev.test, False))
            child, cur = cur, self.parents.get(cur)
        return out

    def _in_try_catching_type_error(self, node: ast.AST) -> bool:
        child: ast.AST = node
        cur = self.parents.get(node)
        while cur is not None and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if isinstance(cur, ast.Try) and child in cur.body:
                for h in cur.handlers:
                    names = (
                        []
                        if h.type is None
                        else [dotted(e) for e in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])]
                    )
                    if h.type is None or any(n in ("TypeError", "Exception", "BaseException") for n in names):
                        return True
            child, cur = cur, self.parents.get(cur)
        return False

    def _guard_of(self, node: ast.Call, func: ast.expr, scope: _Scope) -> tuple[str | None, bool]:
        """A condition that may keep some of the classes that reach the call away from it, which bench-op
        can't evaluate (it names the callee: `if "M" in inspect.signature(cls).parameters`), or a
        `try` that catches the TypeError; and whether the call runs under any condition at all."""
        if self._in_try_catching_type_error(node):
            return "inside a try that catches TypeError", True
        conds = self._conditions(node)
        root = func
        while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
            root = root.value if not isinstance(root, ast.Call) else root.func
        names = {root.id} if isinstance(root, ast.Name) else set()
        keys: set[str] = set()
        if isinstance(func, ast.Name):
            for v in scope.assigns.get(func.id, []):
                if isinstance(v, ast.Subscript):
                    names |= {n.id for n in ast.walk(v) if isinstance(n, ast.Name)}
                    if isinstance(v.slice, ast.Name):
                        keys.add(v.slice.id)
        for test, _ in conds:
            if any(_membership(test, k) is not None for k in keys):
                continue  # a guard on the table's key: `_narrowed` already applied it
            if {n.id for n in ast.walk(test) if isinstance(n, ast.Name)} & names:
                return f"under `if {self.segment(test)}`", True
        return None, bool(conds)

    def _narrowed(self, node: ast.Call, name: str, scope: _Scope, atoms: set[Atom]) -> set[Atom]:
        """`cls = table[kind]` then `if kind in ("std", "var"): cls(...)`: only the table's entries the
        visible guards let through reach the call."""
        vals = scope.assigns.get(name, [])
        if scope.node is None or len(vals) != 1 or name in scope.params or name in scope.loops:
            return atoms
        v = vals[0]
        if not (isinstance(v, ast.Subscript) and isinstance(v.slice, ast.Name)):
            return atoms
        key = v.slice.id
        tables = self.elements_source(v.value, scope, 1)
        if not tables or any(t is None or t[0] != "dict" for t in tables):
            return atoms
        entries = [(k, val) for t in tables if t is not None for k, val in t[1]]
        if any(not isinstance(k, ast.Constant) for k, _ in entries):
            return atoms
        every: set[object] = {k.value for k, _ in entries if isinstance(k, ast.Constant)}
        allowed: set[object] | None = None
        for test, holds in self._conditions(node):
            parsed = _membership(test, key)
            if parsed is None:
                continue
            consts, positive = parsed
            chosen = consts if positive == holds else every - consts
            allowed = chosen if allowed is None else allowed & chosen
        if allowed is None:
            return atoms
        out: set[Atom] = set()
        for k, val in entries:
            if isinstance(k, ast.Constant) and k.value in allowed:
                out |= self.eval(val, scope, 1)
        return out or atoms

    def _is_import_name(self, name: str, scope: _Scope) -> bool:
        s: _Scope | None = scope
        while s is not None and s is not self.module_scope:
            if name in s.assigns or name in s.params or name in s.loops:
                return False
            s = s.up()
        return name not in self.module_scope.assigns and name not in self.module_scope.loops

    def _site(
        self, node: ast.Call, atoms: set[Atom], method: str | None, via: str, scope: _Scope
    ) -> CallSite:
        args: list[Arg] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.append(Arg("star", None, self.segment(a.value)))
            else:
                args.append(Arg("pos", None, self.segment(a)))
        splat_dict: list[tuple[str, str]] | None = None
        splat_name: str | None = None
        for k in node.keywords:
            if k.arg is None:
                args.append(Arg("dstar", None, self.segment(k.value)))
                if isinstance(k.value, ast.Name):
                    splat_name = k.value.id
            else:
                args.append(Arg("kw", k.arg, self.segment(k.value)))
        # Preserve source order of keywords and **splats as written.
        order = sorted(
            range(len(node.keywords)), key=lambda i: (node.keywords[i].lineno, node.keywords[i].col_offset)
        )
        kw_args = [args[len(node.args) + i] for i in order]
        args = args[: len(node.args)] + kw_args
        if sum(1 for a in args if a.kind == "dstar") == 1 and not any(a.kind == "star" for a in args):
            splat_dict = self._literal_dict(node, scope)
        splat_star: list[str] | None = None
        stars = [a for a in node.args if isinstance(a, ast.Starred)]
        if len(stars) == 1:
            splat_star = self._literal_tuple(stars[0].value, scope)
        opaque = None
        if any(a.kind == "dstar" for a in args) and splat_dict is None:
            kw = next(k for k in node.keywords if k.arg is None)
            opaque = self._opaque_reason("**", kw.value, scope)
        elif stars and splat_star is None:
            opaque = self._opaque_reason("*", stars[0].value, scope)
        top, qual = self.enclosing_function(node)
        via_kind = via
        if isinstance(node.func, ast.Name) and via == "indirect":
            via_kind = self._how(node.func.id, scope)
        return CallSite(
            path=self.mi.path,
            lineno=node.lineno,
            col=char_col(self.lines, node.lineno, node.col_offset),
            end_lineno=node.end_lineno or node.lineno,
            end_col=char_col(self.lines, node.end_lineno or node.lineno, node.end_col_offset or 0),
            func_source=self.segment(node.func),
            args=tuple(args),
            atoms=frozenset(atoms),
            method=method,
            function=top,
            qualfunction=qual,
            scope_names=frozenset(self.visible_names(node, scope)),
            via=via_kind,
            splat_dict=tuple(splat_dict) if splat_dict is not None else None,
            splat_name=splat_name,
            splat_star=tuple(splat_star) if splat_star is not None else None,
            opaque=opaque,
        )

    def _opaque_reason(self, star: str, value: ast.expr, scope: _Scope) -> str:
        """A few words on why the contents of `*value` / `**value` are not known statically."""
        what = f"{star}{self.segment(value)}"
        if isinstance(value, ast.Call):
            return f"{what}: the result of a call"
        if not isinstance(value, ast.Name):
            return f"{what}: built where bench-op can't see"
        cur = self.parents.get(value)
        while cur is not None and not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if isinstance(cur, ast.Lambda) and value.id in {
                a.arg
                for a in (
                    *cur.args.args,
                    *cur.args.kwonlyargs,
                    *filter(None, (cur.args.vararg, cur.args.kwarg)),
                )
            }:
                return f"{what}: a parameter of a lambda"
            cur = self.parents.get(cur)
        s: _Scope | None = scope
        while s is not None:
            if value.id in s.params:
                return f"{what}: a parameter" + (
                    " (from pytest parametrize)" if value.id in s.param_values else ""
                )
            if value.id in s.assigns or value.id in s.loops:
                vals = s.assigns.get(value.id, [])
                first = vals[0] if vals else None
                if isinstance(first, ast.Call) and all(isinstance(v, ast.Call) for v in vals):
                    return f"{what}: the result of {self.segment(first.func)}()"
                return f"{what}: its contents are not fully visible"
            s = s.up()
        return f"{what}: defined elsewhere"

    def _literal_tuple(self, value: ast.expr, scope: _Scope) -> list[str] | None:
        """`*t` where t is a tuple/list literal (written inline, or bound once in the same function and never
        changed)."""
        if isinstance(value, (ast.Tuple, ast.List)):
            node: ast.expr = value
        elif isinstance(value, ast.Name) and scope.node is not None and value.id not in scope.params:
            fn = scope.node
            name = value.id
            binds = [
                n
                for n in self._walk(fn)
                if isinstance(
                    n,
                    (
                        ast.Assign,
                        ast.AnnAssign,
                        ast.AugAssign,
                        ast.For,
                        ast.With,
                        ast.NamedExpr,
                        ast.comprehension,
                    ),
                )
                and any(isinstance(t, ast.Name) and t.id == name for t in _bound_names(n))
            ]
            if len(binds) != 1 or not isinstance(binds[0], ast.Assign) or len(binds[0].targets) != 1:
                return None
            if not isinstance(binds[0].targets[0], ast.Name):
                return None
            node = binds[0].value
            if not isinstance(node, (ast.Tuple, ast.List)):
                return None
            if isinstance(node, ast.List):
                # A list may be changed in place anywhere it is named; a tuple cannot.
                for n in self._walk(fn):
                    if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
                        parent = self.parents.get(n)
                        if not isinstance(parent, ast.Starred):
                            return None
        else:
            return None
        assert isinstance(node, (ast.Tuple, ast.List))
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return None
        return [self.segment(e) for e in node.elts]

    def _how(self, name: str, scope: _Scope) -> str:
        s: _Scope | None = scope
        while s is not None:
            if name in s.params:
                return "parametrize" if name in s.param_values else "helper"
            if name in s.loops:
                return "loop"
            if name in s.assigns:
                vals = s.assigns[name]
                if any(isinstance(v, ast.Subscript) for v in vals):
                    return "dict"
                return "alias"
            s = s.up()
        return "alias"

    def _literal_dict(self, node: ast.Call, scope: _Scope) -> list[tuple[str, str]] | None:
        """`**d` where d is a dict literal, or built in the same function only from literal keys."""
        kw = next(k for k in node.keywords if k.arg is None)
        value = kw.value
        if isinstance(value, ast.Dict):
            return self._dict_items(value)
        if isinstance(value, ast.Call) and dotted(value.func) == "dict" and not value.args:
            if all(k.arg is not None for k in value.keywords):
                return [(k.arg, self.segment(k.value)) for k in value.keywords if k.arg is not None]
            return None
        if not isinstance(value, ast.Name) or scope.node is None:
            return None
        name = value.id
        fn = scope.node
        src = local_binding(fn, name, scope.params)
        if src is None:
            return None
        if isinstance(src, ast.Dict):
            items = self._dict_items(src)
        elif (
            isinstance(src, ast.Call)
            and dotted(src.func) == "dict"
            and not src.args
            and all(k.arg for k in src.keywords)
        ):
            items = [(k.arg, self.segment(k.value)) for k in src.keywords if k.arg is not None]
        else:
            return None
        if items is None:
            return None
        # Later `d["k"] = v` writes with literal keys extend it; anything else (update, del, pop) gives up.
        for n in self._walk(fn):
            if isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
                for t in n.targets
            ):
                t = next(t for t in n.targets if isinstance(t, ast.Subscript))
                if isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str):
                    items.append((t.slice.value, self.segment(n.value)))
                else:
                    return None
            elif (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and isinstance(n.func.value, ast.Name)
                and n.func.value.id == name
            ) or isinstance(n, ast.Delete):
                return None
            elif isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
                parent = self.parents.get(n)
                if not (isinstance(parent, ast.keyword) and parent.arg is None) and not (
                    isinstance(parent, ast.Subscript)
                ):
                    return None  # passed elsewhere: it may be changed there
        return items

    def _dict_items(self, d: ast.Dict) -> list[tuple[str, str]] | None:
        out = []
        for k, v in zip(d.keys, d.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                return None
            out.append((k.value, self.segment(v)))
        return out

    def visible_names(self, node: ast.AST, scope: _Scope) -> set[str]:
        names: set[str] = set()
        line = getattr(node, "lineno", 10**9)
        s: _Scope | None = scope
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

    def segment(self, node: ast.AST) -> str:
        """The node's source as written (multi-line ones normalised by ast.unparse)."""
        seg = self._segments.of(node)
        return seg if seg is not None else ast.unparse(node)


class _ModuleMarker(ast.expr):
    """A module bound by an import inside a function."""

    _fields = ()

    def __init__(self, module: str) -> None:
        super().__init__()
        self.module = module


def _membership(test: ast.expr, key: str) -> tuple[set[object], bool] | None:
    """`key in ("a", "b")` -> ({"a", "b"}, True); `key != "a"` -> ({"a"}, False); else None."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.left, ast.Name)
        and test.left.id == key
    ):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        if not all(isinstance(e, ast.Constant) for e in right.elts):
            return None
        return {e.value for e in right.elts if isinstance(e, ast.Constant)}, isinstance(op, ast.In)
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant):
        return {right.value}, isinstance(op, ast.Eq)
    return None


def _bound_names(n: ast.AST) -> list[ast.expr]:
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


class _Scoped(ast.expr):
    """An expression to evaluate in another scope than the one asking (a helper's locals, a fixture's
    get_params)."""

    _fields = ()

    def __init__(self, node: ast.expr, scope: _Scope) -> None:
        super().__init__()
        self.node = node
        self.scope = scope


def _unwrap_param(node: ast.expr) -> ast.expr:
    """`pytest.param(a, b, id=...)` -> the tuple of its values.
    After a `*x` in a row, positions are unknown.
    """
    if isinstance(node, _Scoped):
        inner = _unwrap_param(node.node)
        if isinstance(inner, (ast.Tuple, ast.List)):
            return ast.Tuple(
                elts=[
                    e if isinstance(e, ast.Name) and e.id == UNKNOWN else _Scoped(e, node.scope)
                    for e in inner.elts
                ]
            )
        return _Scoped(inner, node.scope)
    if isinstance(node, ast.Call) and (dotted(node.func) or "").endswith("param"):
        node = ast.Tuple(elts=list(node.args)) if len(node.args) != 1 else node.args[0]
    if isinstance(node, (ast.Tuple, ast.List)) and any(isinstance(e, ast.Starred) for e in node.elts):
        k = next(i for i, e in enumerate(node.elts) if isinstance(e, ast.Starred))
        return ast.Tuple(elts=[*node.elts[:k], *[ast.Name(id=UNKNOWN) for _ in range(64)]])
    return node
