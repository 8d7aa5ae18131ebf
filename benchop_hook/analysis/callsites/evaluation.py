"""What an expression can hold: the classes, modules and Op instances a name, attribute, subscript, loop
variable or parameter may be bound to, followed through literal containers and one level of helpers.

Anything the evaluator cannot follow is `UNKNOWN`; it never guesses.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Literal

from benchop_hook.analysis.callsites.model import CONSTANT, UNKNOWN, Atom, Gone, Instance
from benchop_hook.analysis.callsites.scopes import (
    ModuleMarker,
    Scope,
    Scoped,
    ScopeTree,
    UnknownValue,
    bound_names,
)
from benchop_hook.analysis.modules import ClassRef, ModuleInfo, ModuleRef, dotted
from benchop_hook.analysis.signatures import is_class_level

# Bases that assign no attribute of their own to `self` that a benchmark calls (`_self_attribute`).
_PLAIN_BASES = frozenset({"object", "Module"})


def _first_param(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The name an instance method calls its instance; None for a static or class method."""
    if is_class_level(fn):
        return None
    args = [*fn.args.posonlyargs, *fn.args.args]
    return args[0].arg if args else None


# A literal container an expression can be: its kind and its (key, value) items (key None in a sequence).
ContainerKind = Literal["dict", "list", "tuple"]
Container = tuple[ContainerKind, list[tuple[ast.expr | None, ast.expr]]]


class Evaluator:
    """The abstract interpreter over one module's scopes."""

    def __init__(
        self,
        scopes: ScopeTree,
        resolve: Callable[[ModuleInfo, str], Atom | None],
        resolve_attr: Callable[[str, str], Atom | None],
        helper_args: Callable[[str, str, int, str | None], list[Atom]] | None = None,
    ) -> None:
        self.scopes = scopes
        self.mi = scopes.mi
        self.module_scope = scopes.module_scope
        self._resolve = resolve
        self._resolve_attr = resolve_attr
        self._helper_args = helper_args
        self._calls_by_name: dict[str, list[ast.Call]] | None = None
        self._names: dict[tuple[str, int, int], set[Atom]] = {}
        self._bindings: dict[ast.ClassDef, dict[str, list[tuple[ast.expr, Scope]] | None]] = {}

    def eval(self, expr: ast.expr, scope: Scope, depth: int = 0) -> set[Atom]:
        if depth > 10:
            return {UNKNOWN}
        if isinstance(expr, ModuleMarker):
            return {ModuleRef(expr.module)}
        if isinstance(expr, Scoped):
            return self.eval(expr.node, expr.scope, depth + 1)
        if isinstance(expr, ast.Name):
            return self._eval_name(expr.id, scope, depth)
        if isinstance(expr, ast.Attribute):
            held = self._self_attribute(expr, scope, depth)
            if held is not None:
                return held
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
                    # An object of a class whose name is gone (renamed or moved): its methods are the old
                    # class's, which the change says how to call now.
                    out.add(Instance(c.old))
                else:
                    out.add(UNKNOWN)
            # dict(...)/getattr(module, "X") and friends are not followed.
            return out or {UNKNOWN}
        if isinstance(expr, ast.IfExp):
            return self.eval(expr.body, scope, depth + 1) | self.eval(expr.orelse, scope, depth + 1)
        if isinstance(expr, ast.Constant):
            return {CONSTANT}
        return {UNKNOWN}  # an UnknownValue, or an expression not followed

    def _self_attribute(self, expr: ast.Attribute, scope: Scope, depth: int) -> set[Atom] | None:
        """`self.op` in a method: what the class's methods assign to `self.op`, when every binding of it is
        one this module shows (`self.op = SumOp(...)` in `__init__`, as a benchmark's wrapper module keeps
        its kernel); None when it is not such an attribute, or another binding may exist (a base class of
        this module or beyond, the class body, `setattr`, an augmented or unpacked assignment): then the
        attribute stays unknown, as before."""
        method = scope.node
        cls_scope = scope.parent
        if (
            not isinstance(expr.value, ast.Name)
            or not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
            or cls_scope is None
            or not cls_scope.is_class
            or not isinstance(cls_scope.node, ast.ClassDef)
            or _first_param(method) != expr.value.id
        ):
            return None
        cls = cls_scope.node
        if any((dotted(b) or "").split(".")[-1] not in _PLAIN_BASES for b in cls.bases) or expr.attr in (
            cls_scope.assigns
        ):
            return None
        values = self._self_bindings(cls).get(expr.attr, [])
        if values is None or not values:
            return None
        out: set[Atom] = set()
        for value, where in values:
            out |= self.eval(value, where, depth + 1)
        return None if UNKNOWN in out else out

    def _self_bindings(self, cls: ast.ClassDef) -> dict[str, list[tuple[ast.expr, Scope]] | None]:
        """Each attribute the class's methods bind on their instance: the values of its plain assignments,
        or None when some binding of it can't be followed. Read once per class (a test class asks for
        `self.assertEqual` in every method)."""
        found = self._bindings.get(cls)
        if found is not None:
            return found
        out: dict[str, list[tuple[ast.expr, Scope]] | None] = {}
        opaque = False  # setattr/delattr: any attribute may be bound
        for item in cls.body:
            if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            me = _first_param(item)
            for node in self.scopes.walk(item):
                if isinstance(node, ast.Call) and dotted(node.func) in ("setattr", "delattr"):
                    opaque = True
                targets: list[ast.expr]
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.NamedExpr)):
                    targets = [node.target]
                elif isinstance(node, ast.With):
                    targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
                else:
                    continue
                for t in targets:
                    for sub in ast.walk(t):
                        if not (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)):
                            continue
                        if me is None or sub.value.id != me:
                            continue
                        if isinstance(node, ast.Assign) and t is sub:
                            kept = out.setdefault(sub.attr, [])
                            if kept is not None:
                                kept.append((node.value, self.scopes.scope_of(node)))
                        else:
                            out[sub.attr] = None  # unpacked, augmented, annotated, a loop or `with` target
        if opaque:
            out = {k: None for k in out}  # and an attribute never assigned is unknown anyway
        self._bindings[cls] = out
        return out

    def _eval_subscript(self, expr: ast.Subscript, scope: Scope, depth: int) -> set[Atom]:
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
                out |= self.eval(v, scope, depth + 1)
        return out or {UNKNOWN}

    def elements_source(self, expr: ast.expr, scope: Scope, depth: int) -> list[Container | None]:
        """Literal containers `expr` can be: ("dict"|"list"|"tuple", [(key, value)])."""
        if depth > 10:
            return [None]
        if isinstance(expr, Scoped):
            return self.elements_source(expr.node, expr.scope, depth + 1)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
            returned = self._returned_list(expr, scope, depth)
            if returned is not None:
                return returned
        if isinstance(expr, ast.Dict):
            return [("dict", [(k, v) for k, v in zip(expr.keys, expr.values) if k is not None])]
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            kind: ContainerKind = "tuple" if isinstance(expr, ast.Tuple) else "list"
            return [(kind, [(None, e) for e in expr.elts])]
        if isinstance(expr, ast.Name):
            return self._elements_of_name(expr.id, scope, depth)
        if isinstance(expr, ast.Subscript):
            return self._elements_of_rows(expr, scope, depth)
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and expr.func.attr in ("values", "items", "keys")
            and not expr.args
        ):
            return self._elements_of_view(expr.func.value, expr.func.attr, scope, depth)
        return [None]

    def _elements_of_name(self, name: str, scope: Scope, depth: int) -> list[Container | None]:
        out: list[Container | None] = []
        for value in self._name_values(name, scope):
            if value is None:
                out.append(None)
            else:
                v, vscope = value
                out.extend(self.elements_source(v, vscope, depth + 1))
        return out or [None]

    def _elements_of_rows(self, expr: ast.Subscript, scope: Scope, depth: int) -> list[Container | None]:
        """`rows[i]` for the rows of a parametrize list: the container at index i of each row (each row
        itself when the index is None)."""
        out: list[Container | None] = []
        idx = expr.slice.value if isinstance(expr.slice, ast.Constant) else UNKNOWN
        for cont in self.elements_source(expr.value, scope, depth + 1):
            if cont is None:
                out.append(None)
                continue
            _, items = cont
            for _, row in items:
                row = unwrap_param(row)
                if idx is None:
                    out.extend(self.elements_source(row, scope, depth + 1))
                elif isinstance(idx, int) and isinstance(row, (ast.Tuple, ast.List)) and idx < len(row.elts):
                    out.extend(self.elements_source(row.elts[idx], scope, depth + 1))
                else:
                    out.append(None)
        return out or [None]

    def _elements_of_view(self, d: ast.expr, view: str, scope: Scope, depth: int) -> list[Container | None]:
        """`d.values()`, `d.items()` or `d.keys()` of a literal dict, as a list."""
        out: list[Container | None] = []
        for cont in self.elements_source(d, scope, depth + 1):
            if cont is None or cont[0] != "dict":
                out.append(None)
            elif view == "values":
                out.append(("list", [(None, v) for _, v in cont[1]]))
            elif view == "items":
                out.append(("list", [(None, ast.Tuple(elts=[k, v])) for k, v in cont[1] if k is not None]))
            else:
                out.append(("list", [(None, k) for k, _ in cont[1] if k is not None]))
        return out

    def _returned_list(self, call: ast.Call, scope: Scope, depth: int) -> list[Container | None] | None:
        """A module-level helper called for its list (one level): `return [...]`, or a list built with
        `rows = []` and `rows.append(x)` / `rows.extend([...])` / `rows += [...]` then `return rows`.
        Items are evaluated in the helper's scope. None: not such a helper."""
        if not isinstance(call.func, ast.Name):
            return None
        fn = self.module_scope.defined_funcs.get(call.func.id)
        if fn is None or depth > 4 or self.scopes.lookup(call.func.id, scope) is not self.module_scope:
            return None
        fscope = self.scopes.scopes.get(fn)
        returns = [n for n in self.scopes.walk(fn) if isinstance(n, ast.Return)]
        if fscope is None or len(returns) != 1 or returns[0].value is None:
            return [None]
        value = returns[0].value
        if isinstance(value, (ast.List, ast.Tuple)):
            return [("list", [(None, Scoped(e, fscope)) for e in value.elts])]
        if not isinstance(value, ast.Name):
            return [None]
        name = value.id
        binds = [
            n
            for n in self.scopes.walk(fn)
            if any(isinstance(t, ast.Name) and t.id == name for t in bound_names(n))
        ]
        start = [b for b in binds if isinstance(b, ast.Assign)]
        if len(start) != 1 or not isinstance(start[0].value, ast.List):
            return [None]
        items: list[ast.expr] = list(start[0].value.elts)
        for n in self.scopes.walk(fn):
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
        return [("list", [(None, Scoped(e, fscope)) for e in items])]

    def _name_values(self, name: str, scope: Scope) -> list[tuple[ast.expr, Scope] | None]:
        """Expressions a name may be bound to, with the scope to evaluate them in."""
        s: Scope | None = scope
        while s is not None:
            if name in s.globals_:
                s = self.module_scope
            if name in s.assigns or name in s.loops or name in s.params:
                out: list[tuple[ast.expr, Scope] | None] = [(v, s) for v in s.assigns.get(name, [])]
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

    def _eval_name(self, name: str, scope: Scope, depth: int) -> set[Atom]:
        """What a name read in `scope` can hold. The answer depends on the name, the scope and the depth
        alone (the scopes are complete before anything is evaluated, and nothing evaluated changes them),
        and a module reads the same few names (`torch`, `pytest`, a helper) in every call: each is followed
        once. A copy is returned, as the same set built again: callers add to what they get."""
        key = (name, id(scope), depth)
        found = self._names.get(key)
        if found is None:
            found = self._names[key] = self._follow_name(name, scope, depth)
        return found.copy()

    def _follow_name(self, name: str, scope: Scope, depth: int) -> set[Atom]:
        s: Scope | None = scope
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
        if self.scopes.tree is None or depth > 6:
            return {UNKNOWN} if depth > 6 else out
        if self._calls_by_name is None:
            self._calls_by_name = {}
            for n in self.mi.nodes():
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                    self._calls_by_name.setdefault(n.func.id, []).append(n)
        for node in self._calls_by_name.get(fname, []):
            scope = self.scopes.scope_of(node)
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

    def _eval_param_value(self, values: ast.expr, scope: Scope, depth: int) -> set[Atom]:
        # `values` is Subscript(<argvalues>, i): element i of each row (None: the row itself).
        assert isinstance(values, ast.Subscript)
        idx = (
            values.slice.value
            if isinstance(values.slice, ast.Constant) and isinstance(values.slice.value, int)
            else None
        )
        return self._eval_elements(values.value, idx, scope, depth)

    def _eval_elements(self, iterable: ast.expr, idx: int | None, scope: Scope, depth: int) -> set[Atom]:
        """What each element (or its item `idx`, for tuple rows) of a literal iterable can be."""
        out: set[Atom] = set()
        for cont in self.elements_source(iterable, scope, depth + 1):
            if cont is None:
                out.add(UNKNOWN)
                continue
            for _, row in cont[1]:
                row = unwrap_param(row)
                if idx is None:
                    out |= self.eval(row, scope, depth + 1)
                elif isinstance(row, (ast.Tuple, ast.List)) and idx < len(row.elts):
                    out |= self.eval(unwrap_param(row.elts[idx]), scope, depth + 1)
                else:
                    out.add(UNKNOWN)
        return out


def unwrap_param(node: ast.expr) -> ast.expr:
    """`pytest.param(a, b, id=...)` -> the tuple of its values.
    After a `*x` in a row, positions are unknown.
    """
    if isinstance(node, Scoped):
        inner = unwrap_param(node.node)
        if isinstance(inner, (ast.Tuple, ast.List)):
            return ast.Tuple(
                elts=[e if isinstance(e, UnknownValue) else Scoped(e, node.scope) for e in inner.elts]
            )
        return Scoped(inner, node.scope)
    if isinstance(node, ast.Call) and (dotted(node.func) or "").endswith("param"):
        node = ast.Tuple(elts=list(node.args)) if len(node.args) != 1 else node.args[0]
    if isinstance(node, (ast.Tuple, ast.List)) and any(isinstance(e, ast.Starred) for e in node.elts):
        k = next(i for i, e in enumerate(node.elts) if isinstance(e, ast.Starred))
        return ast.Tuple(elts=[*node.elts[:k], *[UnknownValue() for _ in range(64)]])
    return node
