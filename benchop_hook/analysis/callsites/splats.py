"""What a call's `*args` and `**kwargs` hold: the items of a literal tuple or dict (written inline, or bound
once in the same function and never changed), or a few words on why they can't be seen."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import NamedTuple

from benchop_hook.analysis.callsites.scopes import Scope, ScopeTree, bound_names, local_binding
from benchop_hook.analysis.modules import bound_at_top, dotted


class CallSplats(NamedTuple):
    """What a call's splats hold, when that can be seen."""

    dict_items: tuple[tuple[str, str], ...] | None  # the one `**d`'s (key, value source), when literal
    star_items: tuple[str, ...] | None  # the one `*t`'s item sources, when literal
    opaque: str | None  # why a splat's contents can't be seen


# Statements that bind a name other than by assignment (their targets are counted as stores).
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


class SplatReader:
    def __init__(self, scopes: ScopeTree, segment: Callable[[ast.AST], str]) -> None:
        self.scopes = scopes
        self.parents = scopes.parents
        self.segment = segment

    def of_call(self, node: ast.Call, scope: Scope) -> CallSplats:
        """The items of the call's `**d` (when it is its only splat) and of its `*t` (when it has one),
        or why a splat's contents can't be seen (the `**` one first)."""
        dstars = [k for k in node.keywords if k.arg is None]
        stars = [a for a in node.args if isinstance(a, ast.Starred)]
        dict_items = self.literal_dict(node, scope) if len(dstars) == 1 and not stars else None
        star_items = self.literal_tuple(stars[0].value, scope) if len(stars) == 1 else None
        opaque = None
        if dstars and dict_items is None:
            opaque = self.opaque_reason("**", dstars[0].value, scope)
        elif stars and star_items is None:
            opaque = self.opaque_reason("*", stars[0].value, scope)
        return CallSplats(
            tuple(dict_items) if dict_items is not None else None,
            tuple(star_items) if star_items is not None else None,
            opaque,
        )

    def opaque_reason(self, star: str, value: ast.expr, scope: Scope) -> str:
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
        s: Scope | None = scope
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

    def literal_tuple(self, value: ast.expr, scope: Scope) -> list[str] | None:
        """`*t` where t is a tuple/list literal (written inline, or bound once in the same function and never
        changed)."""
        if isinstance(value, (ast.Tuple, ast.List)):
            node: ast.expr = value
        elif isinstance(value, ast.Name) and scope.node is not None and value.id not in scope.params:
            fn = scope.node
            name = value.id
            binds = [
                n
                for n in self.scopes.walk(fn)
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
                and any(isinstance(t, ast.Name) and t.id == name for t in bound_names(n))
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
                for n in self.scopes.walk(fn):
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

    def literal_dict(self, node: ast.Call, scope: Scope) -> list[tuple[str, str]] | None:
        """`**d` where d is a dict literal, or built in the same function only from literal keys."""
        kw = next(k for k in node.keywords if k.arg is None)
        value = kw.value
        if isinstance(value, ast.Dict):
            return self._dict_items(value)
        if isinstance(value, ast.Call) and dotted(value.func) == "dict" and not value.args:
            if all(k.arg is not None for k in value.keywords):
                return [(k.arg, self.segment(k.value)) for k in value.keywords if k.arg is not None]
            return None
        if not isinstance(value, ast.Name):
            return None
        name = value.id
        fn: ast.AST | None = scope.node
        if fn is None or self._global(name, scope):
            # pyg 77f357e2: `kwargs = {...}` at the top of the benchmark, splatted in its functions.
            fn = self.scopes.tree
        if fn is None:
            return None
        src = local_binding(fn, name, scope.params if fn is scope.node else ())
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
        return self._written_later(items, fn, name)

    def _written_later(
        self, items: list[tuple[str, str]], fn: ast.AST, name: str
    ) -> list[tuple[str, str]] | None:
        """`items` with the later `name["k"] = v` writes of `fn` added, or None when `name` is changed or
        passed any other way."""
        # Later `d["k"] = v` writes with literal keys extend it; anything else (update, del, pop) gives up.
        for n in self.scopes.walk(fn):
            if isinstance(n, ast.Assign) and any(
                isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
                for t in n.targets
            ):
                t = next(t for t in n.targets if isinstance(t, ast.Subscript))
                if not (isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str)):
                    return None
                item = (t.slice.value, self.segment(n.value))
                if any(k == item[0] and v != item[1] for k, v in items):
                    return None  # one key given different values on different paths: which, a run tells
                if item not in items:
                    # FBGEMM 042cf198: `kw["eps"] = eps` in two exclusive branches is one key, not two.
                    items.append(item)
            elif (
                (
                    isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Attribute)
                    and isinstance(n.func.value, ast.Name)
                    and n.func.value.id == name
                )
                or isinstance(n, ast.Delete)
                or (isinstance(n, (ast.AnnAssign, ast.AugAssign)) and isinstance(n.target, ast.Subscript))
            ):
                return None
            elif isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load):
                parent = self.parents.get(n)
                if not (isinstance(parent, ast.keyword) and parent.arg is None) and not (
                    isinstance(parent, ast.Subscript)
                ):
                    return None  # passed elsewhere: it may be changed there
        return items

    def _global(self, name: str, scope: Scope) -> bool:
        """`name`, read in `scope`, is the module's: no function around it binds it, and nothing else in the
        module binds it either (a function's own `name = ...`, a loop, an import, a definition)."""
        s: Scope | None = scope
        while s is not None and s.node is not None:
            if name in s.params or name in s.assigns or name in s.loops or name in s.globals_:
                return False
            s = s.up()
        tree = self.scopes.tree
        if tree is None:
            return False
        binds = 0
        for n in self.scopes.walk(tree):
            if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
                binds += 1
            elif (isinstance(n, _DEFINITIONS) and name in bound_at_top(n)) or (
                isinstance(n, ast.Global) and name in n.names
            ):
                return False
        return binds == 1

    def _dict_items(self, d: ast.Dict) -> list[tuple[str, str]] | None:
        out = []
        for k, v in zip(d.keys, d.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                return None
            out.append((k.value, self.segment(v)))
        return out
