"""Constructor and method signatures as plain values, read with `ast`.

A `Signature` is the parameter list a caller sees (without `self`): each
parameter's name, kind, default source text and annotation.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from enum import Enum


class Kind(str, Enum):
    POSITIONAL_ONLY = "positional-only"
    POSITIONAL_OR_KEYWORD = "positional-or-keyword"
    VAR_POSITIONAL = "*args"
    KEYWORD_ONLY = "keyword-only"
    VAR_KEYWORD = "**kwargs"


@dataclass(frozen=True)
class Param:
    name: str
    kind: Kind
    default: str | None = None  # source text of the default; None when required
    annotation: str | None = None

    @property
    def required(self) -> bool:
        return self.default is None and self.kind not in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)

    @property
    def positional(self) -> bool:
        return self.kind in (Kind.POSITIONAL_ONLY, Kind.POSITIONAL_OR_KEYWORD)

    @property
    def keyword(self) -> bool:
        return self.kind in (Kind.POSITIONAL_OR_KEYWORD, Kind.KEYWORD_ONLY)

    def render(self) -> str:
        if self.kind is Kind.VAR_POSITIONAL:
            return f"*{self.name}"
        if self.kind is Kind.VAR_KEYWORD:
            return f"**{self.name}"
        return f"{self.name}={self.default}" if self.default is not None else self.name


@dataclass(frozen=True)
class Signature:
    params: tuple[Param, ...]
    # Parameters left out of `params` because the function refuses them as soon as it starts (`_rejected`).
    refused: frozenset[str] = frozenset()
    # Old keyword -> the parameter a decorator of the function still passes it to (`_aliases`).
    aliases: tuple[tuple[str, str], ...] = ()

    def get(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name and p.kind not in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD):
                return p
        return None

    @property
    def positional(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.positional)

    @property
    def var_positional(self) -> Param | None:
        return next((p for p in self.params if p.kind is Kind.VAR_POSITIONAL), None)

    @property
    def var_keyword(self) -> Param | None:
        return next((p for p in self.params if p.kind is Kind.VAR_KEYWORD), None)

    @property
    def is_passthrough(self) -> bool:
        """`(*args, **kwargs)`: says nothing of its own about what it accepts."""
        kinds = [p.kind for p in self.params]
        return kinds == [Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD]

    def render(self) -> str:
        out: list[str] = []
        kinds = [p.kind for p in self.params]
        for i, p in enumerate(self.params):
            if (
                p.kind is Kind.KEYWORD_ONLY
                and Kind.VAR_POSITIONAL not in kinds[:i]
                and (i == 0 or self.params[i - 1].kind is not Kind.KEYWORD_ONLY)
            ):
                out.append("*")
            out.append(p.render())
            if p.kind is Kind.POSITIONAL_ONLY and (
                i + 1 == len(self.params) or self.params[i + 1].kind is not Kind.POSITIONAL_ONLY
            ):
                out.append("/")
        return "(" + ", ".join(out) + ")"


class Segments:
    """Source text of nodes, as written (ast.unparse would turn `1e-6` into `1e-06`)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.starts = [0]
        pos = data.find(b"\n")
        while pos != -1:
            self.starts.append(pos + 1)
            pos = data.find(b"\n", pos + 1)

    def of(self, node: ast.AST) -> str | None:
        try:
            start = self.starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]  # no position: AttributeError, below
            end = self.starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]  # the same
        except (AttributeError, IndexError, TypeError):
            return None
        text = self.data[start:end].decode("utf-8", "replace")
        return text if "\n" not in text else None  # a multi-line default: use the normalised form


def from_function(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, *, drop_first: bool = True, segments: Segments | None = None
) -> Signature:
    """The signature callers see; `drop_first` removes `self`/`cls`."""

    def _src(node: ast.AST | None) -> str | None:
        if node is None:
            return None
        return (segments.of(node) if segments is not None else None) or ast.unparse(node)

    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    params: list[Param] = []
    for i, arg in enumerate(positional):
        kind = Kind.POSITIONAL_ONLY if i < len(a.posonlyargs) else Kind.POSITIONAL_OR_KEYWORD
        params.append(Param(arg.arg, kind, _src(defaults[i]), _src(arg.annotation)))
    if a.vararg:
        params.append(Param(a.vararg.arg, Kind.VAR_POSITIONAL, None, _src(a.vararg.annotation)))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        params.append(Param(arg.arg, Kind.KEYWORD_ONLY, _src(d), _src(arg.annotation)))
    if a.kwarg:
        params.append(Param(a.kwarg.arg, Kind.VAR_KEYWORD, None, _src(a.kwarg.annotation)))
    if drop_first and params and params[0].kind in (Kind.POSITIONAL_ONLY, Kind.POSITIONAL_OR_KEYWORD):
        params = params[1:]
    kept = _accepted(params, _rejected(fn))
    refused = frozenset(p.name for p in params) - {p.name for p in kept}
    names = {p.name for p in kept}
    # MONAI's `@deprecated_arg(name="dimensions", new_name="spatial_dims")` over `(spatial_dims, ...,
    # dimensions=None)`: the old name, kept last as a None placeholder, is the new parameter's alias.
    order = [q.name for q in kept]
    held = {
        old: new
        for old, new in (*_aliases(fn, names, placeholders=True), *_taken_over(fn, names))
        if kept[order.index(old)].default == "None" and order.index(old) > order.index(new)
    }
    kept = [p for p in kept if p.name not in held]
    aliases = tuple(dict.fromkeys(_aliases(fn, names - set(held)) + tuple(held.items())))
    return Signature(tuple(kept), refused, aliases)


def _aliases(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, names: set[str], *, placeholders: bool = False
) -> tuple[tuple[str, str], ...]:
    """Old keyword names a decorator maps to parameters of the function: mmcv's `@deprecated_api_warning(
    {'out_size': 'output_size'})`, transformers' `@deprecate_kwarg('old', new_name='new')`, MONAI's
    `@deprecated_arg(name='old', new_name='new')`. A call that passes the old name binds, and means the same
    (a warning aside). `placeholders`: only the old names the function still takes itself."""
    out: list[tuple[str, str]] = []

    def text(node: ast.expr | None) -> str | None:
        return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None

    for d in fn.decorator_list:
        if not isinstance(d, ast.Call):
            continue
        for arg in d.args:
            if isinstance(arg, ast.Dict) and arg.keys and not placeholders:
                pairs = [(text(k), text(v)) for k, v in zip(arg.keys, arg.values)]
                # Every key a name the function lacks and every value one of its parameters: a renaming.
                if all(k is not None and v in names and k not in names for k, v in pairs):
                    out += [(k, v) for k, v in pairs if k is not None and v is not None]
        new = next((text(k.value) for k in d.keywords if k.arg == "new_name"), None)
        old = (
            text(d.args[0]) if d.args else next((text(k.value) for k in d.keywords if k.arg == "name"), None)
        )
        if new in names and old is not None and (old in names) is placeholders:
            out.append((old, new))
    return tuple(out)


def _taken_over(fn: ast.FunctionDef | ast.AsyncFunctionDef, names: set[str]) -> list[tuple[str, str]]:
    """(old, new) for a parameter a decorator deprecates (`@deprecated_arg(name="ndim")`) whose value the body
    hands to another one first thing (`if ndim is not None: spatial_dims = ndim`)."""
    deprecated = {
        k.value.value
        for d in fn.decorator_list
        if isinstance(d, ast.Call) and "deprecat" in (ast.unparse(d.func).lower())
        for k in d.keywords
        if k.arg == "name" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)
    }
    out = []
    for stmt in fn.body[:8]:
        if not (
            isinstance(stmt, ast.If)
            and isinstance(stmt.test, ast.Compare)
            and isinstance(stmt.test.left, ast.Name)
            and stmt.test.left.id in deprecated
            and isinstance(stmt.test.ops[0], ast.IsNot)
        ):
            continue
        old = stmt.test.left.id
        for sub in stmt.body:
            if (
                isinstance(sub, ast.Assign)
                and len(sub.targets) == 1
                and isinstance(sub.targets[0], ast.Name)
                and sub.targets[0].id in names
                and isinstance(sub.value, ast.Name)
                and sub.value.id == old
            ):
                out.append((old, sub.targets[0].id))
    return out


def _rejected(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Parameters the function refuses as soon as it starts (`if x is not None: raise TypeError(...)`, a
    deprecated parameter kept in the signature: Megatron ffbc43f's `inference_wrapper_config=None`): passing
    one binds and then raises."""
    out: set[str] = set()
    body = fn.body[1:] if fn.body and isinstance(fn.body[0], ast.Expr) else fn.body
    for stmt in body[:5]:
        if not isinstance(stmt, ast.If) or stmt.orelse or not isinstance(stmt.body[-1], ast.Raise):
            continue
        test = stmt.test
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.IsNot)
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        ):
            out.add(test.left.id)
    return out


def _accepted(params: list[Param], rejected: set[str]) -> list[Param]:
    """`params` without the rejected ones that no later positional parameter's place depends on (a keyword-
    only one, or one after which only keyword-only and splat parameters follow), with a `None` default."""
    out = list(params)
    for p in params:
        if p.name not in rejected or p.default != "None":
            continue
        later = out[out.index(p) + 1 :]
        if p.kind is Kind.KEYWORD_ONLY or not any(q.positional for q in later):
            out.remove(p)
    return out


@dataclass(frozen=True)
class DataclassInfo:
    """What `@dataclass` makes of a class body: its own fields as parameters, in order."""

    fields: tuple[Param, ...]  # keyword-only ones already marked
    init: bool = True  # False: @dataclass(init=False), no synthesized __init__


def _kw_true(call: ast.expr, name: str) -> bool | None:
    if not isinstance(call, ast.Call):
        return None
    for k in call.keywords:
        if k.arg == name and isinstance(k.value, ast.Constant):
            return bool(k.value.value)
    return None


def _last_name(node: ast.expr) -> str:
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.split("[")[0].split(".")[-1]  # "ClassVar[int]" as a string annotation
    return ""


def dataclass_info(
    node: ast.ClassDef, segments: Segments | None = None, makers: frozenset[str] = frozenset({"dataclass"})
) -> DataclassInfo | None:
    """The fields of a `@dataclass` class (None when it isn't one): annotated class-body names,
    less ClassVar and `field(init=False)`, with InitVar kept; defaults from `= value`,
    `field(default=...)` or `field(default_factory=f)` (shown as `f()`); kw_only from the decorator,
    `field(kw_only=True)` or a `_: KW_ONLY` marker. `makers`: the names `dataclass` is called by here."""
    deco = next(
        (d for d in node.decorator_list if _last_name(d.func if isinstance(d, ast.Call) else d) in makers),
        None,
    )
    if deco is None:
        return None

    def src(n: ast.expr) -> str:
        return (segments.of(n) if segments is not None else None) or ast.unparse(n)

    kw_only = bool(_kw_true(deco, "kw_only"))
    fields: list[Param] = []
    for item in node.body:
        if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
            continue
        ann = _last_name(item.annotation)
        if ann == "ClassVar":
            continue
        if ann == "KW_ONLY":
            kw_only = True
            continue
        default: str | None = None
        field_kw_only: bool | None = None
        v = item.value
        if isinstance(v, ast.Call) and _last_name(v.func) == "field":
            if _kw_true(v, "init") is False:
                continue
            field_kw_only = _kw_true(v, "kw_only")
            for k in v.keywords:
                if k.arg == "default":
                    default = src(k.value)
                elif k.arg == "default_factory":
                    # `lambda: [...]` is called as `(lambda: [...])()`: the default must read as Python.
                    f = src(k.value)
                    plain = isinstance(k.value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
                    default = f"{f}()" if plain else f"({f})()"
        elif v is not None:
            default = src(v)
        kind = (
            Kind.KEYWORD_ONLY
            if (field_kw_only if field_kw_only is not None else kw_only)
            else Kind.POSITIONAL_OR_KEYWORD
        )
        fields.append(Param(item.target.id, kind, default, src(item.annotation)))
    return DataclassInfo(tuple(fields), _kw_true(deco, "init") is not False)


def dataclass_signature(field_lists: list[tuple[Param, ...]]) -> Signature:
    """The synthesized __init__ from each dataclass in the MRO, base first: a field redefined later
    keeps its first place and takes its new default; keyword-only fields go last."""
    order: list[str] = []
    by_name: dict[str, Param] = {}
    for fl in field_lists:
        for p in fl:
            if p.name not in by_name:
                order.append(p.name)
            by_name[p.name] = p
    params = [by_name[n] for n in order]
    return Signature(
        tuple(
            [p for p in params if p.kind is not Kind.KEYWORD_ONLY]
            + [p for p in params if p.kind is Kind.KEYWORD_ONLY]
        )
    )


def is_staticmethod(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)


def is_class_level(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A classmethod or a staticmethod: called on the class, it takes no object first."""
    return any(isinstance(d, ast.Name) and d.id in ("classmethod", "staticmethod") for d in fn.decorator_list)


def expr_key(src: str) -> str | None:
    """An expression's source by meaning, not formatting (`(n,)` and `( n, )` are one key); None when it does
    not parse as an expression."""
    try:
        return ast.dump(ast.parse(src.strip(), mode="eval").body)
    except (SyntaxError, ValueError):
        return None


def same_default(a: str | None, b: str | None) -> bool:
    """Defaults compare by meaning of their source, not its formatting."""
    if a is None or b is None:
        return a is b
    if a == b:
        return True
    try:
        if ast.dump(ast.parse(a, mode="eval")) == ast.dump(ast.parse(b, mode="eval")):
            return True
    except SyntaxError:
        return False
    return _same_number(a, b)


def _same_number(a: str, b: str) -> bool:
    """`0` and `0.0`, `1` and `1.`: one number, respelled (pyg 5d768659 made every such default a float)."""
    try:
        x, y = ast.literal_eval(a), ast.literal_eval(b)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    numbers = (int, float)
    return (
        isinstance(x, numbers)
        and isinstance(y, numbers)
        and not isinstance(x, bool)
        and not isinstance(y, bool)
        and x == y
    )


def a_size(src: str) -> bool:
    """An integer literal other than -1, 0 and 1, or a tuple or list of them: a size one test picks for
    itself (`out_channels=8`), where -1, 0 and 1 are conventions (`dim=-1`) every caller writes alike."""
    try:
        v = ast.literal_eval(src)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    items = list(v) if isinstance(v, (tuple, list)) else [v]
    return bool(items) and all(isinstance(x, int) and not isinstance(x, bool) and abs(x) > 1 for x in items)


def is_constant_source(src: str) -> bool:
    """A value that means the same anywhere: literals, -literals, tuples of them, dotted names like
    torch.float16."""
    try:
        node = ast.parse(src, mode="eval").body
    except SyntaxError:
        return False
    return _constant(node)


def free_names(src: str) -> set[str]:
    """The names an expression needs from its scope (`torch` for `torch.float16`)."""
    try:
        node = ast.parse(src, mode="eval")
    except SyntaxError:
        return {"?"}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _constant(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _constant(node.operand)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_constant(e) for e in node.elts)
    if isinstance(node, ast.Attribute):
        # torch.float16, Dtype.BF16: a dotted name rooted at an imported module.
        base = node.value
        while isinstance(base, ast.Attribute):
            base = base.value
        return isinstance(base, ast.Name)
    return False
