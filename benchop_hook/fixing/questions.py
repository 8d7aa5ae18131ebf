"""The rules' questions, built once per argument from what a judging path has at hand: the signatures, the
edits, and the evidence's answers. The judge, the splat path and the run's dict fixer build them here, so each
asks the rules the same question about the same call."""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from benchop_hook.analysis.edits import Edit, EditKind
from benchop_hook.analysis.flow import Flow, FoldedInto, Introduced, ReplacedByConstant, Transformed
from benchop_hook.analysis.signatures import Kind, Param, Signature, same_default
from benchop_hook.fixing.choices import is_choice
from benchop_hook.rules.facts import Moved, MovedTo, RemovedValue

# A `moved` reason that names the parameter whose default the old constructor built from the removed one.
BUILT_FROM = "built the default of "
PART_OF = "built the part self."
FORGOTTEN = "nothing in the new class reads it"

_FUNCTION_WORDS = ("fn", "func", "function", "callback", "hook")


def moved_to(why: str) -> MovedTo:
    """A `moved` reason (`judging.moved_values`, `judging.defaults_lost`) as the rules read it."""
    if why.startswith(BUILT_FROM):
        return MovedTo(Moved.BUILT_FROM, why[len(BUILT_FROM) :])
    if why.startswith(PART_OF):
        return MovedTo(Moved.PART_OF, why[len(PART_OF) :])
    if why == FORGOTTEN:
        return MovedTo(Moved.FORGOTTEN)
    return MovedTo(Moved.ELSEWHERE, why)


def is_old_default(src: str, param: Param | None) -> bool:
    """`src` passes what the parameter took anyway: dropping it leaves the call's meaning as it was."""
    return src == "None" or (
        param is not None and param.default is not None and same_default(src, param.default)
    )


def takes_a_function(param: Param | None, src: str) -> bool:
    """A parameter that takes a function (`arg_func`, `input_fn`, `Callable[...]`), passed one other than
    its default: what the function does is what is measured (FlagGems 4e6cb3b2's `arg_func=unary_arg`,
    the input generator, imported from a helper module)."""
    if param is None or is_old_default(src, param):
        return False
    words = param.name.lower().split("_")
    return words[-1] in _FUNCTION_WORDS or "Callable" in (param.annotation or "")


def namesake_added(name: str, old: Signature, new: Signature) -> str | None:
    """A parameter only the new signature has that shares a word of three letters or more with `name`
    (`edge_feature`, `edge_attr`): maybe `name` renamed, where no rename was read."""
    words = {w for w in name.lower().split("_") if len(w) >= 3}
    for q in new.params:
        fresh = old.get(q.name) is None and q.kind not in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)
        if fresh and words & {w for w in q.name.lower().split("_") if len(w) >= 3}:
            return q.name
    return None


@dataclass(frozen=True)
class DropEvidence:
    """What a path knows beyond the signatures, for every removed value of one call."""

    drops_choice: Callable[[str, str], bool] | None = None  # the updated tests drop `p=value` the same way
    varies: Callable[[str], str | None] | None = None  # why a value is a choice across the benchmark's cases
    moved: Mapping[str, str] | None = None  # removed parameter -> what became of its value
    flow: Flow | None = None  # what the constructor's body does with each parameter, before and after
    # New parameter -> how the commit's own edits build it from the old call's values (`(hidden,)`): where
    # that agrees with the body's transform, the value maps as they show.
    built: Mapping[str, str] | None = None


def removed_value(
    index: int,
    param: str,
    source: str | None,
    keyword: bool,
    sigs: tuple[Signature, Signature, tuple[Edit, ...]],
    ev: DropEvidence,
) -> RemovedValue:
    """The drop question for one argument of a removed parameter (`source` None: a value nobody can see, as a
    dict's entry at run time, which is judged by what the parameter could hold)."""
    old, new, edits = sigs
    p = old.get(param)
    seen = source if source is not None else (p.default if p is not None and p.default is not None else None)
    slot = next(
        (e.contested for e in edits if e.kind is EditKind.REMOVED and e.name == param and e.contested), None
    )
    positional_only = any(
        e.kind is EditKind.REMOVED and e.name == param and e.by_position_only for e in edits
    )
    why = ev.moved.get(param) if ev.moved else None
    replaced, folded, other = removed_flow(ev.flow, param)
    if (
        other is not None
        and ev.built
        and other[0] in ev.built
        and agrees(other[1], other[2], other[0], ev.built)
    ):
        other = None  # the commit's edits build the new parameter so that the body reads the old value
    return RemovedValue(
        index=index,
        param=param,
        source=source,
        keyword=keyword,
        old_default=source is not None and is_old_default(source, p),
        # A value nobody can see is a choice when the parameter's own default is one (a flag, a mode).
        choice=(is_choice(source, p) if source is not None else seen is not None and _flag_like(seen, p)),
        varies=ev.varies(source) if ev.varies is not None and source is not None else None,
        function=takes_a_function(p, source) if source is not None else _takes_functions(p),
        tests_drop_it=bool(ev.drops_choice and source is not None and ev.drops_choice(param, source)),
        slot_taken_by=slot,
        by_position_only=positional_only,
        moved=moved_to(why) if why is not None else None,
        namesake=namesake_added(param, old, new),
        replaced_by=replaced,
        folded_into=folded,
        transformed=other,
    )


def _flag_like(default: str, p: Param | None) -> bool:
    """The parameter's default picks a behaviour: whatever an unseen value is, it may pick another."""
    return default != "None" and is_choice(default, None)


def _takes_functions(p: Param | None) -> bool:
    if p is None:
        return False
    return p.name.lower().split("_")[-1] in _FUNCTION_WORDS or "Callable" in (p.annotation or "")


def removed_flow(flow: Flow | None, param: str) -> tuple[str | None, str | None, tuple[str, str, str] | None]:
    """(the constant in its places, the config path it is read from, the transformed rename) of a removed
    parameter, as its body shows them."""
    pf = flow.of_old(param) if flow is not None else None
    e = pf.entry if pf is not None else None
    if isinstance(e, ReplacedByConstant):
        return e.constant, None, None
    if isinstance(e, FoldedInto):
        return None, e.path, None
    if isinstance(e, Transformed) and e.old != e.new:
        return None, None, (e.new, e.old_expr, e.new_expr)
    return None, None, None


def transformed(flow: Flow | None, old: str, new: str) -> tuple[str, str] | None:
    """(old, new) expression of a rename whose value the new body uses through another transform."""
    pf = flow.of_old(old) if flow is not None else None
    e = pf.entry if pf is not None else None
    if isinstance(e, Transformed) and e.new == new:
        return e.old_expr, e.new_expr
    return None


def introduced(flow: Flow | None, param: str) -> str | None:
    """The literal the old body had where the new one reads `param`."""
    pf = flow.of_new(param) if flow is not None else None
    e = pf.entry if pf is not None else None
    return e.literal if isinstance(e, Introduced) else None


def agrees(old_expr: str, new_expr: str, new: str, built: Mapping[str, str]) -> bool:
    """The body's new expression, with the new parameter built as the commit's edits build it, is the old
    expression: `normalized_shape[-1]` with `normalized_shape = (hidden,)` is `hidden`. Checked by evaluating
    both with distinct numbers for their names; anything but plain arithmetic, tuples and indexing is no
    agreement."""
    try:
        old = ast.parse(old_expr.strip(), mode="eval")
        new_tree = ast.parse(new_expr.strip(), mode="eval")
        made = ast.parse(built[new].strip(), mode="eval").body
    except SyntaxError:
        return False

    class _Built(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return copy.deepcopy(made) if node.id == new else node

    subst = _Built().visit(new_tree)
    names = sorted({n.id for t in (old, subst) for n in ast.walk(t) if isinstance(n, ast.Name)})
    env = {name: 1009 + 7919 * i for i, name in enumerate(names)}
    try:
        return _value(old.body, env) == _value(subst.body, env)
    except (ValueError, IndexError, KeyError, TypeError, ZeroDivisionError):
        return False


def _value(node: ast.AST, env: Mapping[str, int]) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_value(e, env) for e in node.elts)
    if isinstance(node, ast.Subscript):
        seq, key = _value(node.value, env), _value(node.slice, env)
        if isinstance(seq, tuple) and isinstance(key, int):
            return seq[key]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _value(node.operand, env)
        if isinstance(v, (int, float)):
            return -v
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
        a, b = _value(node.left, env), _value(node.right, env)
        if isinstance(a, int) and isinstance(b, int):
            ops = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
            return ops[type(node.op)] if type(node.op) in ops else a // b
    raise ValueError("not plain arithmetic")
