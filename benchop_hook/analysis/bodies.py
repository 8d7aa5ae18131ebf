"""What a class's own code says about its parameters, beyond the signature: the value `__init__` puts in
place of a missing one (`if ctx is None: ctx = ...`), the values it accepts or asserts, whether it refuses all
but None, whether a method switches on `isinstance(p, bool)`. Read from the class and its ancestors' `ast`
nodes, pure: the judging asks before dropping a value or pinning a default.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence


def defaults_built_from(
    old: Sequence[ast.ClassDef], new: Sequence[ast.ClassDef], removed: Iterable[str], kept: Iterable[str]
) -> list[tuple[str, str]]:
    """(removed parameter, a parameter the class still takes whose default the old constructor built from
    it: `if ctx is None: ctx = Ctx.from_config(config)`), where no method of the new class tests that
    parameter for a missing value any more: a call that drops the removed value and leaves the other at its
    default now gets the bare default where it got something built from the value (Megatron 43db8c1:
    `Wrapper(model, config)` -> `Wrapper(model)` leaves `inference_context=None`, which the new code
    dereferences). `old`/`new`: the class and its ancestors, on each side."""
    gone, still = set(removed), set(kept)
    if not gone or not still:
        return []
    out: list[tuple[str, str]] = []
    for fn in _functions(old, "__init__"):
        out += [(r, p) for p, r in _defaults_filled(fn, gone, still) if (r, p) not in out]
    if not out:
        return []
    tested = {p for cls in new for node in ast.walk(cls) for p in _unset_tests(node)}
    return [(r, p) for r, p in out if p not in tested]


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _unset_tests(node: ast.AST) -> list[str]:
    """The names (or `self.` attributes) `node` tests for a missing value: `x is None`, `x is not None`,
    `not x`, `x or ...`, `if x:`."""
    if isinstance(node, ast.Compare) and any(
        isinstance(c, ast.Constant) and c.value is None for c in [node.left, *node.comparators]
    ):
        return [n for n in (_plain_name(node.left), *(_plain_name(c) for c in node.comparators)) if n]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return [n] if (n := _plain_name(node.operand)) else []
    if isinstance(node, ast.BoolOp):
        return [
            n for v in node.values for n in ([_plain_name(v)] if _plain_name(v) else _unset_tests(v)) if n
        ]
    if isinstance(node, (ast.If, ast.IfExp, ast.While)):
        return [n] if (n := _plain_name(node.test)) else []
    return []


def _plain_name(x: ast.AST) -> str | None:
    if isinstance(x, ast.Name):
        return x.id
    return x.attr if isinstance(x, ast.Attribute) else None


def _when_missing(test: ast.expr, p: str) -> str | None:
    """Which branch of an `if` on `test` runs when `p` is missing (None): "body" for `p is None` and `not
    p`, "orelse" for `p is not None` and `p`; None for any other test."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and _plain_name(test.left) == p:
        right = test.comparators[0]
        if isinstance(right, ast.Constant) and right.value is None:
            return (
                "body"
                if isinstance(test.ops[0], ast.Is)
                else "orelse"
                if isinstance(test.ops[0], ast.IsNot)
                else None
            )
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _plain_name(test.operand) == p:
        return "body"
    return "orelse" if isinstance(test, ast.Name) and test.id == p else None


def _fallbacks(fn: ast.FunctionDef | ast.AsyncFunctionDef, params: set[str]) -> list[tuple[str, ast.AST]]:
    """(parameter, value) where `fn` gives one of `params`, when it is missing, a value of its own: in the
    branch of `if p is None:` (or `if not p:`, or the `else` of `if p is not None:`) that runs then, or as
    `p = p or v` / `p = p if p is not None else v` (also into `self.p`)."""
    out: list[tuple[str, ast.AST]] = []

    def assigned(stmt: ast.AST) -> list[tuple[str, ast.expr]]:
        if isinstance(stmt, ast.Assign):
            return [(n, stmt.value) for t in stmt.targets if (n := _target(t))]
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and (n := _target(stmt.target)):
            return [(n, stmt.value)]
        return []

    for node in ast.walk(fn):
        if isinstance(node, ast.If):
            for p in sorted(params):
                branch = _when_missing(node.test, p)
                if branch is None:
                    continue
                for stmt in (s for top in getattr(node, branch) for s in ast.walk(top)):
                    out += [(p, v) for t, v in assigned(stmt) if t == p]
        for target, value in assigned(node):
            if target in params and (fallback := _built_when_missing(value, target)) is not None:
                out.append((target, fallback))
    return out


def _target(t: ast.expr) -> str | None:
    """The parameter an assignment target names: `p`, or `self.p`."""
    if isinstance(t, ast.Name):
        return t.id
    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
        return t.attr
    return None


def _defaults_filled(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, gone: set[str], still: set[str]
) -> list[tuple[str, str]]:
    """(kept parameter, removed parameter) where `fn` gives the kept one, when it is missing, a value built
    from the removed one (`_fallbacks`)."""
    return [(p, r) for p, v in _fallbacks(fn, still) for r in sorted(_names_in(v) & gone)]


def filled_when_missing(classes: Sequence[ast.ClassDef], param: str) -> list[str]:
    """The values (source) an `__init__` of `classes` gives `param` when the call leaves it at None: the
    ruff B006 idiom, `def f(x=None): if x is None: x = [..]`, where `[..]` was the default before."""
    return [ast.unparse(v) for fn in _functions(classes, "__init__") for _, v in _fallbacks(fn, {param})]


def _built_when_missing(value: ast.expr, p: str) -> ast.expr | None:
    """What `p = value` gives `p` when it was missing: the rest of `p or v` (one value), the branch of `v
    if p is None else p` that runs then; None when `value` is no such fallback."""
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) and _plain_name(value.values[0]) == p:
        rest = value.values[1:]
        return rest[0] if len(rest) == 1 else ast.BoolOp(op=ast.Or(), values=rest)
    if isinstance(value, ast.IfExp):
        branch = _when_missing(value.test, p)
        if branch is not None:
            return value.body if branch == "body" else value.orelse
    return None


def accepted_values(classes: Sequence[ast.ClassDef], param: str) -> list[object] | None:
    """The values a constructor of `classes` (the class and its ancestors) accepts for `param` when it
    checks it against a literal list: `assert p in ['a', 'b']`, or `if p not in ('a', 'b'): raise ...`.
    None when no `__init__` checks it so."""
    for fn in _functions(classes, "__init__"):
        for node in ast.walk(fn):
            test = node.test if isinstance(node, ast.Assert) else None
            if isinstance(node, ast.If) and node.body and isinstance(node.body[0], ast.Raise):
                test = node.test
                op: type[ast.cmpop] = ast.NotIn
            else:
                op = ast.In
            found = _membership(test, param, op) if test is not None else None
            if found is not None:
                return found
    return None


def _membership(test: ast.expr, param: str, op: type[ast.cmpop]) -> list[object] | None:
    """The constants of `param in [...]` (or `not in`, as `op` says), when `test` is exactly that."""
    if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == param):
        return None
    values = test.comparators[0] if len(test.ops) == 1 and isinstance(test.ops[0], op) else None
    if not isinstance(values, (ast.List, ast.Tuple, ast.Set)):
        return None
    out: list[object] = [e.value for e in values.elts if isinstance(e, ast.Constant)]
    return out if len(out) == len(values.elts) else None


def asserted_equal(classes: Sequence[ast.ClassDef], param: str) -> str | None:
    """The source of `x` in an `assert param == x` of an `__init__` of `classes` (FBGEMM: `assert
    cache_assoc == ASSOC`, the platform's constant); None when there is none."""
    for fn in _functions(classes, "__init__"):
        for node in ast.walk(fn):
            test = node.test if isinstance(node, ast.Assert) else None
            if (
                isinstance(test, ast.Compare)
                and isinstance(test.left, ast.Name)
                and test.left.id == param
                and len(test.ops) == 1
                and isinstance(test.ops[0], ast.Eq)
            ):
                return ast.unparse(test.comparators[0])
    return None


def refuses_a_value(classes: Sequence[ast.ClassDef], param: str) -> bool:
    """An `__init__` of `classes` raises, or warns, when `param` is given anything but None: `if param is
    not None: raise ValueError("deprecated")` (kornia 074f1053), or a warning of a deprecated alias."""
    for fn in _functions(classes, "__init__"):
        for node in ast.walk(fn):
            if not isinstance(node, ast.If) or _when_missing(node.test, param) != "orelse":
                continue
            for stmt in node.body:
                if isinstance(stmt, ast.Raise):
                    return True
                call = stmt.value if isinstance(stmt, ast.Expr) else None
                if isinstance(call, ast.Call) and (_plain_name(call.func) or "").endswith("warn"):
                    return True
    return False


def _functions(classes: Sequence[ast.ClassDef], name: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods named `name` that `classes` define in their bodies, in order."""
    return [
        fn
        for cls in classes
        for fn in cls.body
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == name
    ]


def switches_on_bool(classes: Sequence[ast.ClassDef], function: str, param: str) -> bool:
    """A `function` of `classes` tests `isinstance(param, bool)`: any bool, False too, takes that branch (pyg
    f3d0dfcb: `return_attention_weights=False` became `None`, and `if isinstance(return_attention_weights,
    bool): return out, (edge_index, alpha)`)."""
    return any(
        isinstance(node, ast.Call)
        and _plain_name(node.func) == "isinstance"
        and len(node.args) == 2
        and _plain_name(node.args[0]) == param
        and "bool" in {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
        for fn in _functions(classes, function)
        for node in ast.walk(fn)
    )


def parts_built_from(
    old: Sequence[ast.ClassDef], new: Sequence[ast.ClassDef], removed: Iterable[str]
) -> list[tuple[str, str]]:
    """(removed parameter, `self.` attribute the old constructor built from it by a call, `self.lin =
    Linear(in_channels, out_channels)`), where the new class and its ancestors mention neither that attribute
    nor the parameter's name: the part is gone with the parameter, and a call that drops the value no longer
    builds what it measured (pyg df2113b4: `APPNP(in_channels, out_channels, K, alpha)` -> `APPNP(K,
    alpha)`, its linear layer removed). An Op that now reads the values from its inputs still names one of
    them (`M = x.shape[0]`) or still has the part."""
    gone = set(removed)
    if not gone:
        return []
    found: list[tuple[str, str]] = []
    for fn in _functions(old, "__init__"):
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and isinstance(node.value, _BUILDS):
                used = gone & _names_in(_built_from(node.value))
                found += [(p, a) for a in map(_self_attr, node.targets) if a for p in sorted(used)]
    if not found:
        return []
    named = {
        n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else n.arg
        for cls in new
        for n in ast.walk(cls)
        if isinstance(n, (ast.Name, ast.Attribute, ast.arg))
    }
    # One of the part's sizes still named (`c_in = x.shape[-1]`): the Op reads them from its inputs now.
    kept = {attr for p, attr in found if p in named or attr in named}
    return [(p, attr) for p, attr in found if attr not in kept]


# What builds a part, as against storing a value (`self.M = M`, `self.size = M * N`): a call, a comprehension.
_BUILDS = (ast.Call, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _built_from(value: ast.expr) -> ast.AST:
    """What a part is built from: a call's arguments (not the callee: `self.proj(x)` is no input of it)."""
    if isinstance(value, ast.Call):
        return ast.Tuple(elts=[*value.args, *(k.value for k in value.keywords)], ctx=ast.Load())
    return value


def _self_attr(t: ast.expr) -> str | None:
    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
        return t.attr
    return None


def unnamed(classes: Sequence[ast.ClassDef], names: Iterable[str]) -> set[str]:
    """Those of `names` that nothing in `classes` mentions: no name, attribute, parameter or keyword of
    that spelling, nor a string of it (`kwargs.get("p")`, `getattr(self, "p")`, a deprecation decorator's
    `name="p"`)."""
    left = set(names)
    for cls in classes:
        for n in ast.walk(cls):
            if isinstance(n, ast.Name):
                left.discard(n.id)
            elif isinstance(n, ast.Attribute):
                left.discard(n.attr)
            elif isinstance(n, (ast.arg, ast.keyword)):
                left.discard(n.arg or "")
            elif isinstance(n, ast.Constant) and isinstance(n.value, str):
                left.discard(n.value)
            if not left:
                return left
    return left
