"""One method's body in two versions, side by side: the statements it runs, aligned old against new, and the
smallest subtrees in which aligned statements differ (RefactoringMiner's statement mapping, on `ast`).

The statements a method runs are its own, those of the `self.` methods it calls and those of the ancestors'
methods it reaches through `super()` (or `Base.method(self, ...)`), each callee's parameters replaced by what
the call passes (its defaults where the call passes nothing), so that a base's `self.eps = eps` reads
`self.eps = 1e-5` when the subclass passes `1e-5`. Compound statements are cut into their header (the
`if`'s test, the `for`'s target and iterable) and the statements of their blocks.

Alignment knows no library's names: identical statements anchor it (after the renames already established),
statements between anchors pair by their head (the same assignment target, the same callee, the same shape of
test), and what is left pairs by position only where both stretches are the same length and kind, or where
one statement is the other's single best match. A statement that two others could take stays unpaired.
flow.py reads what the differences say about the parameters.
"""

from __future__ import annotations

import ast
import copy
import difflib
import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast

Function = ast.FunctionDef | ast.AsyncFunctionDef

_MAX_DEPTH = 4
_MAX_UNITS = 4000  # a generated or enormous method stops being read here rather than slowing the hook
_MAX_GAP = 400  # unpaired statements compared all against all only in stretches up to this many pairs
_BLOCKS = ("body", "orelse", "finalbody")  # statement lists of compound statements
_SKIP_FIELDS = frozenset({"ctx", "type_comment", "kind"})  # fields that say nothing about what runs


@dataclass(frozen=True)
class Body:
    """One side: the statements `units` (compound ones without their blocks), the parameters followed, the
    `self.` attributes that hold one of them unchanged (`self.x = p`: attribute -> parameter), the
    names the body binds itself (locals, loop variables, renamed callee locals), and the calls it follows
    into."""

    units: tuple[ast.stmt, ...]
    params: frozenset[str]
    aliases: Mapping[str, str]
    bound: frozenset[str]
    inlined: frozenset[int]  # the `id`s of the calls whose callee's body follows them among the units


@dataclass(frozen=True)
class Pair:
    """Statement `old` of the old body aligned with statement `new` of the new one; `strong` unless only
    their position paired them."""

    old: int
    new: int
    strong: bool


# (old subtree, new subtree, the old call when one side is None: that call had no argument in that slot)
Difference = tuple[ast.AST | None, ast.AST | None, ast.Call | None]


def body(classes: Sequence[ast.ClassDef], method: str, params: Sequence[str]) -> Body:
    """The statements `method` of `classes` (the class and its ancestors, nearest first) runs."""
    units: list[ast.stmt] = []
    inlined: set[int] = set()
    found = _find(classes, method, 0)
    if found is not None:
        _flatten(found[1].body, classes, found[0], (units, inlined), 0, frozenset({found}))
    names = frozenset(params) - {"self"}
    bound = {
        n.id
        for u in units
        for n in ast.walk(u)
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    return Body(tuple(units), names, _aliases(units, names), frozenset(bound - names), frozenset(inlined))


def reached(classes: Sequence[ast.ClassDef], method: str) -> tuple[int, ...]:
    """The functions `body(classes, method, ...)` reads (ids of their nodes, in the order it meets them): two
    class lists that reach the same functions have the same body, whatever else their classes hold."""
    out: list[int] = []
    found = _find(classes, method, 0)
    todo = [(found, 0)] if found is not None else []
    seen: set[int] = set()
    while todo:
        (index, fn), depth = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        out.append(id(fn))
        if depth >= _MAX_DEPTH:
            continue
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            target = _callee(call, classes, index)
            if target is not None:
                todo.append(((target[0], target[1]), depth + 1))
    return tuple(out)


def _find(classes: Sequence[ast.ClassDef], name: str, start: int) -> tuple[int, Function] | None:
    for i in range(start, len(classes)):
        for fn in classes[i].body:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == name:
                return i, fn
    return None


def _flatten(
    stmts: Sequence[ast.stmt],
    classes: Sequence[ast.ClassDef],
    index: int,
    out: tuple[list[ast.stmt], set[int]],
    depth: int,
    seen: frozenset[tuple[int, Function]],
) -> None:
    """Append `stmts` to `out`'s units, each followed by the bodies of the methods its header calls (whose
    calls `out` records)."""
    for stmt in stmts:
        if len(out[0]) >= _MAX_UNITS:
            return
        head = _header(stmt)
        out[0].append(head)
        for call in (n for n in ast.walk(head) if isinstance(n, ast.Call)):
            target = _callee(call, classes, index) if depth < _MAX_DEPTH else None
            if target is not None and target[:2] not in seen:
                cls, fn, skip = target
                out[1].add(id(call))
                _flatten(_bound_body(fn, call, skip), classes, cls, out, depth + 1, seen | {(cls, fn)})
        for block in _blocks(stmt):
            _flatten(block, classes, index, out, depth, seen)


def is_check(stmt: ast.AST) -> bool:
    """`if <test>: raise ...`: a check of the arguments, one unit with its error, not a branch."""
    return (
        isinstance(stmt, ast.If)
        and bool(stmt.body)
        and not stmt.orelse
        and all(isinstance(s, ast.Raise) for s in stmt.body)
    )


def _header(stmt: ast.stmt) -> ast.stmt:
    """`stmt` without its blocks: the part of a compound statement that is not other statements."""
    fields = [f for f in (*_BLOCKS, "handlers", "cases") if isinstance(getattr(stmt, f, None), list)]
    if not fields or is_check(stmt):
        return stmt
    head = copy.copy(stmt)
    for f in fields:
        setattr(head, f, [])
    return head


def _blocks(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    if is_check(stmt):
        return
    for f in _BLOCKS:
        block = getattr(stmt, f, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for holder in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
        yield holder.body


def _callee(call: ast.Call, classes: Sequence[ast.ClassDef], index: int) -> tuple[int, Function, bool] | None:
    """The method a call runs, the index of the class that defines it, and whether the call leaves out its
    first parameter (`self.m(x)`, `super().m(x)`; not `Base.m(self, x)`)."""
    f = call.func
    if not isinstance(f, ast.Attribute):
        return None
    v = f.value
    if isinstance(v, ast.Name) and v.id == "self":
        found = _find(classes, f.attr, 0)
        skip = True
    elif isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super":
        found = _find(classes, f.attr, index + 1)
        skip = True
    elif isinstance(v, ast.Name) and (named := [i for i, c in enumerate(classes) if c.name == v.id]):
        found = _find(classes, f.attr, named[0])
        skip = False
    else:
        return None
    if found is None:
        return None
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in found[1].decorator_list)
    return found[0], found[1], skip and not static


def _bound_body(fn: Function, call: ast.Call, skip_first: bool) -> list[ast.stmt]:
    """`fn`'s body with its parameters replaced by what `call` passes (or their defaults), and the names it
    binds itself renamed apart, so that a callee's `mode` is never taken for the caller's."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args][1 if skip_first else 0 :]
    values: dict[str, ast.expr] = {}
    if skip_first and (a.posonlyargs or a.args):
        values[[*a.posonlyargs, *a.args][0].arg] = ast.Name(id="self", ctx=ast.Load())
    opaque = any(isinstance(x, ast.Starred) for x in call.args) or any(k.arg is None for k in call.keywords)
    for p, arg in zip(positional, call.args):
        if isinstance(arg, ast.Starred):
            break
        values[p.arg] = arg
    names = {p.arg for p in (*positional, *a.kwonlyargs)}
    values.update((k.arg, k.value) for k in call.keywords if k.arg in names)
    if not opaque:
        defaults = [
            *zip(positional[len(positional) - len(a.defaults) :], a.defaults),
            *((p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None),
        ]
        for p, d in defaults:
            values.setdefault(p.arg, d)
    stored = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    unbound = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]} - set(values)
    for extra in (a.vararg, a.kwarg):
        if extra is not None:
            unbound.add(extra.arg)
    renamed = {n: f"{fn.name}:{n}" for n in stored | unbound}
    subst = {k: v for k, v in values.items() if k not in stored}
    return [_bound(s, subst, renamed) for s in fn.body]


def is_placeholder(name: str) -> bool:
    """A callee's own name renamed apart (`_setup:mode`): what the call did not bind, never a literal."""
    return ":" in name


_Node = TypeVar("_Node", bound=ast.AST)


def _bound(node: _Node, values: Mapping[str, ast.expr], renamed: Mapping[str, str]) -> _Node:
    """A copy of `node` with the names `values` binds replaced by (copies of) their values and the names in
    `renamed` renamed; the original is left as it is. One pass, where a deep copy and a transformer took two
    (the body of every method a constructor calls is copied once per call of it)."""
    if isinstance(node, ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in values:
            return cast(_Node, _bound(values[node.id], {}, {}))
        if node.id in renamed:
            return cast(_Node, ast.Name(id=renamed[node.id], ctx=node.ctx))
    cls = type(node)
    new = cls.__new__(cls)
    for name in node._fields:
        if not hasattr(node, name):
            continue
        v = getattr(node, name)
        if isinstance(v, ast.AST):
            v = _bound(v, values, renamed)
        elif isinstance(v, list):
            v = [_bound(x, values, renamed) if isinstance(x, ast.AST) else x for x in v]
        setattr(new, name, v)
    for name in node._attributes:
        if hasattr(node, name):
            setattr(new, name, getattr(node, name))
    return new


def assignments(stmt: ast.AST) -> list[tuple[ast.expr, ast.expr]]:
    """(target, value) of an assignment statement, tuples unpacked pairwise (`self.a, self.b = a, b`)."""
    if isinstance(stmt, ast.Assign):
        pairs = [(t, stmt.value) for t in stmt.targets]
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        pairs = [(stmt.target, stmt.value)]
    else:
        return []
    out: list[tuple[ast.expr, ast.expr]] = []
    for t, v in pairs:
        if isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) and len(t.elts) == len(v.elts):
            out += list(zip(t.elts, v.elts))
        else:
            out.append((t, v))
    return out


def self_attr(node: object) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _aliases(units: Sequence[ast.stmt], params: frozenset[str]) -> dict[str, str]:
    """`self.` attributes that hold a parameter unchanged: stored from that parameter (`self.x = p`) and
    from no other parameter (a fallback `self.x = default` elsewhere leaves it the parameter's place)."""
    found: dict[str, set[str]] = {}
    for u in units:
        for t, v in assignments(u):
            if (attr := self_attr(t)) is not None:
                held = found.setdefault(attr, set())
                if isinstance(v, ast.Name) and v.id in params:
                    held.add(v.id)
    return {a: next(iter(ps)) for a, ps in found.items() if len(ps) == 1}


def dump(node: object, names: Mapping[str, str], attrs: Mapping[str, str], shape: bool = False) -> str:
    """A node as text for comparison, `names` and `self.` `attrs` renamed; `shape` keeps only the structure
    (names, attributes and constants are holes, callees stay)."""
    if isinstance(node, ast.Name):
        return "_" if shape else names.get(node.id, node.id)
    if (attr := self_attr(node)) is not None:
        return "_" if shape else "self." + attrs.get(attr, attr)
    if isinstance(node, ast.Constant):
        return "_" if shape else repr(node.value)
    if isinstance(node, ast.Attribute) and shape and is_ref(node):
        return "_"
    if isinstance(node, ast.Call) and shape:
        parts = [dump(node.func, names, attrs), *(dump(x, names, attrs, True) for x in node.args)]
        parts += [f"{k.arg}={dump(k.value, names, attrs, True)}" for k in node.keywords]
        return "Call(" + ",".join(parts) + ")"
    if isinstance(node, ast.AST):
        fields = (
            dump(getattr(node, f, None), names, attrs, shape) for f in node._fields if f not in _SKIP_FIELDS
        )
        return type(node).__name__ + "(" + ",".join(fields) + ")"
    if isinstance(node, list):
        return "[" + ",".join(dump(x, names, attrs, shape) for x in node) + "]"
    return repr(node)


def is_ref(node: ast.AST) -> bool:
    """A name or an attribute chain on a name: `x`, `self.x`, `cfg.timeout`, `torch.float16`."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _head(u: ast.stmt, names: Mapping[str, str], attrs: Mapping[str, str]) -> str:
    """What a statement is, apart from the values it uses: its assignment target, its callee, the shape of
    its test; statements with the same head are the same place in both versions."""
    if isinstance(u, ast.Assign):
        return "=" + ",".join(dump(t, names, attrs) for t in u.targets)
    if isinstance(u, (ast.AnnAssign, ast.AugAssign)):
        return "=" + dump(u.target, names, attrs)
    if isinstance(u, ast.Expr) and isinstance(u.value, ast.Call):
        return "call " + dump(u.value.func, names, attrs)
    if isinstance(u, (ast.For, ast.AsyncFor)):
        return "for " + dump(u.target, names, attrs)
    return dump(u, names, attrs, shape=True)


def align(old: Body, new: Body, names: Mapping[str, str], attrs: Mapping[str, str]) -> list[Pair]:
    """Pair the statements of `old` (read with the renames `names`, `attrs` already established) with those
    of `new`."""
    none: dict[str, str] = {}
    okeys = [dump(u, names, attrs) for u in old.units]
    nkeys = [dump(u, none, none) for u in new.units]
    oheads = [_head(u, names, attrs) for u in old.units]
    nheads = [_head(u, none, none) for u in new.units]
    pairs: list[Pair] = []
    matcher = difflib.SequenceMatcher(None, okeys, nkeys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            pairs += [Pair(i1 + k, j1 + k, True) for k in range(i2 - i1)]
            continue
        heads = _common(oheads[i1:i2], nheads[j1:j2])
        pairs += [Pair(i1 + a, j1 + b, True) for a, b in heads]
        bounds = [(-1, -1), *heads, (i2 - i1, j2 - j1)]
        for (a0, b0), (a1, b1) in itertools.pairwise(bounds):
            pairs += _by_position(old, new, range(i1 + a0 + 1, i1 + a1), range(j1 + b0 + 1, j1 + b1))
    return pairs


def _common(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """The longest common subsequence of two short lists of heads, as index pairs."""
    if not a or not b or len(a) * len(b) > _MAX_GAP * 25:
        return []
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            out.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def _by_position(old: Body, new: Body, olds: range, news: range) -> list[Pair]:
    """Weak pairs in a stretch with no common head: statement by statement where both stretches have the
    same length and kinds; otherwise only a statement that is the other's one best match (a tie pairs
    nothing: two new statements that could each take the old one's place leave it unpaired)."""
    if not olds or not news:
        return []
    ou, nu = [old.units[i] for i in olds], [new.units[j] for j in news]
    if len(ou) == len(nu) and all(type(a) is type(b) for a, b in zip(ou, nu)):
        return [Pair(i, j, False) for i, j in zip(olds, news)]
    if len(ou) * len(nu) > _MAX_GAP:
        return []
    scores = [[_score(a, b) for b in nu] for a in ou]
    pairs: list[Pair] = []
    for x, row in enumerate(scores):
        best = max(row)
        column = [scores[k][row.index(best)] for k in range(len(ou))]
        if best >= 2 and row.count(best) == 1 and column.count(best) == 1 and max(column) == best:
            pairs.append(Pair(olds[x], news[row.index(best)], False))
    return pairs


def _score(a: ast.stmt, b: ast.stmt) -> int:
    return differences(a, b)[1] if type(a) is type(b) else 0


def differences(old: ast.AST, new: ast.AST) -> tuple[list[Difference], int]:
    """The smallest subtrees in which two aligned statements differ, and how many nodes they share. A name
    or attribute chain is one value (`self.timeout` against `self.cfg.timeout` is one difference), a call
    with another callee is one difference, and a call's arguments pair by position and keyword."""
    out: list[Difference] = []
    return out, _diff(old, new, out)


def _diff(o: ast.AST, n: ast.AST, out: list[Difference]) -> int:
    if type(o) is not type(n):
        out.append((o, n, None))
        return 0
    if is_ref(o) or is_ref(n) or isinstance(o, ast.Constant):
        if dump(o, {}, {}) == dump(n, {}, {}):
            return 1
        out.append((o, n, None))
        return 0
    if isinstance(o, ast.Call) and isinstance(n, ast.Call):
        return _diff_call(o, n, out)
    fields = [f for f in o._fields if f not in _SKIP_FIELDS]
    mine, theirs = [getattr(o, f, None) for f in fields], [getattr(n, f, None) for f in fields]
    if not all(_same_frame(a, b) for a, b in zip(mine, theirs)):
        out.append((o, n, None))
        return 0
    shared = 1
    for a, b in zip(mine, theirs):
        for x, y in zip(a, b) if isinstance(a, list) and isinstance(b, list) else [(a, b)]:
            if isinstance(x, ast.AST) and isinstance(y, ast.AST):
                shared += _diff(x, y, out)
    return shared


def _same_frame(a: object, b: object) -> bool:
    """Two field values that can be compared child by child: lists of one length, nodes, or equal
    plain values."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(
            (isinstance(x, ast.AST) and isinstance(y, ast.AST)) or x == y for x, y in zip(a, b)
        )
    if isinstance(a, ast.AST) and isinstance(b, ast.AST):
        return True
    return a == b


def _diff_call(o: ast.Call, n: ast.Call, out: list[Difference]) -> int:
    starred = any(isinstance(x, ast.Starred) for x in (*o.args, *n.args))
    if dump(o.func, {}, {}) != dump(n.func, {}, {}) or (starred and len(o.args) != len(n.args)):
        out.append((o, n, None))
        return 0
    shared = 2
    for i in range(max(len(o.args), len(n.args))):
        a = o.args[i] if i < len(o.args) else None
        b = n.args[i] if i < len(n.args) else None
        shared += _diff(a, b, out) if a is not None and b is not None else _absent(a, b, o, out)
    mine = {k.arg: k.value for k in o.keywords}
    theirs = {k.arg: k.value for k in n.keywords}
    for key in [*mine, *(k for k in theirs if k not in mine)]:
        a, b = mine.get(key), theirs.get(key)
        shared += _diff(a, b, out) if a is not None and b is not None else _absent(a, b, o, out)
    return shared


def _absent(a: ast.AST | None, b: ast.AST | None, call: ast.Call, out: list[Difference]) -> int:
    out.append((a, b, call))
    return 0
