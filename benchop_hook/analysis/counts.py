"""What a benchmark function's variable counts: `n = math.prod(shape)` makes `n` the element count of
`shape`. When the function builds its inputs from `shape` (`Case(shape, dtype)`) and not from `n`, a value
made of `n` alone, the one-element tuple `(n,)`, flattens what the inputs keep: the shape they have is
`tuple(shape)`. Pure: a module's source in, values out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from benchop_hook.analysis import trees
from benchop_hook.analysis.modules import walk_list

# Modules whose `prod` multiplies the elements of the value it is given.
_PROD_MODULES = frozenset({"math", "np", "numpy"})


@dataclass(frozen=True)
class Count:
    """A variable a function assigns the element count of another in-scope value."""

    var: str
    of: str  # the counted value's name: a shape, or a tensor
    shape: str  # the expression of the shape it counts: `shape`, or `x.shape` for a tensor's `x.numel()`
    built: str | None  # a call of the function that takes `of` and not `var` (what builds the inputs)


def product_of(node: ast.expr) -> tuple[str, str] | None:
    """(the name, the expression of its shape) when `node` is the product of a name's elements: `prod(s)`,
    `math.prod(s)`, `np.prod(s)`, `functools.reduce(operator.mul, s)` (a `lambda a, b: a * b` too, and a start
    value), `int(...)` of any of these; a tensor's `x.numel()` counts the elements of `x.shape`. Anything else
    (a sum, `len(s)`, a product of some elements only) is no element count."""
    if (
        isinstance(node, ast.Call)
        and _dotted(node.func) == "int"
        and len(node.args) == 1
        and not node.keywords
    ):
        return product_of(node.args[0])
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    func = _dotted(node.func)
    if isinstance(node.func, ast.Attribute) and node.func.attr == "numel" and not node.args:
        owner = node.func.value
        return (owner.id, f"{owner.id}.shape") if isinstance(owner, ast.Name) else None
    args = node.args
    if func == "prod" or (func.endswith(".prod") and func.rsplit(".", 1)[0] in _PROD_MODULES):
        return (args[0].id, args[0].id) if len(args) == 1 and isinstance(args[0], ast.Name) else None
    if func in ("reduce", "functools.reduce") and len(args) in (2, 3) and _multiplies(args[0]):
        if len(args) == 3 and not (isinstance(args[2], ast.Constant) and args[2].value == 1):
            return None
        return (args[1].id, args[1].id) if isinstance(args[1], ast.Name) else None
    return None


def _multiplies(node: ast.expr) -> bool:
    """`operator.mul`, `mul`, or `lambda a, b: a * b`."""
    if _dotted(node) in ("mul", "operator.mul"):
        return True
    if not isinstance(node, ast.Lambda) or len(node.args.args) != 2:
        return False
    a, b = (p.arg for p in node.args.args)
    body = node.body
    return (
        isinstance(body, ast.BinOp)
        and isinstance(body.op, ast.Mult)
        and {_dotted(body.left), _dotted(body.right)} == {a, b}
    )


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def element_count(data: bytes, line: int, var: str) -> Count | None:
    """What `var` counts in the innermost function around `line`: its one assignment there, before the line,
    from the product of another value's elements; with the call of that function which takes the counted
    value and not `var` (the inputs built from it), when there is one. None where `var` is the function's
    parameter, is assigned more than once, or holds anything else."""
    try:
        tree = trees.parse(data)
    except (SyntaxError, ValueError):
        return None
    around = [
        n
        for n in walk_list(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.lineno <= line <= (n.end_lineno or 0)
    ]
    if not around:
        return None
    fn = max(around, key=lambda n: n.lineno)
    if var in {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}:
        return None
    bound = [n for n in ast.walk(fn) if _assigns(n, var)]
    if len(bound) != 1 or not isinstance(bound[0], (ast.Assign, ast.AnnAssign)) or bound[0].lineno >= line:
        return None
    value = bound[0].value
    counted = product_of(value) if value is not None else None
    if counted is None:
        return None
    of, shape = counted
    skip = {id(n) for n in ast.walk(value)} if value is not None else set()
    return Count(var, of, shape, _builds_from(fn, of, var, line, skip))


def _assigns(node: ast.AST, name: str) -> bool:
    """`node` binds `name`: an assignment, an augmented one, a loop or `with` target, a walrus."""
    if isinstance(node, ast.Assign):
        targets: list[ast.expr] = list(node.targets)
    elif isinstance(
        node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension)
    ):
        targets = [node.target]
    elif isinstance(node, ast.withitem):
        targets = [node.optional_vars] if node.optional_vars is not None else []
    else:
        return False
    return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))


def _builds_from(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, of: str, var: str, line: int, skip: set[int]
) -> str | None:
    """The first call of the function, other than the one on `line` and the count itself (`skip`), that
    passes `of` itself and not `var` (`Case(shape, dtype)`), as written."""
    calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and id(n) not in skip]
    for node in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            continue
        passed = [*node.args, *(k.value for k in node.keywords)]
        names = {a.id for a in passed if isinstance(a, ast.Name)}
        if of in names and var not in names:
            return ast.unparse(node)
    return None
