"""One Python module read with `ast`: its classes (bases, constructor, public methods), imports, aliases
and top-level names, as `ModuleInfo`; and the small `ast` helpers the analyses share.

Parsing never raises: a file that can't be read is a `ModuleInfo` with `error` set. Resolving names
across modules is `project.Project`'s job.
"""

from __future__ import annotations

import ast
import hashlib
import posixpath
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from benchop_hook.analysis import trees
from benchop_hook.analysis.signatures import (
    DataclassInfo,
    Segments,
    Signature,
    dataclass_info,
    from_function,
    is_staticmethod,
)

PUBLIC_DUNDERS = {"__call__"}


@dataclass(frozen=True)
class ClassRef:
    module: str
    name: str

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.name}"


@dataclass(frozen=True)
class ModuleRef:
    module: str


@dataclass
class ClassInfo:
    name: str
    lineno: int
    bases: tuple[str, ...]
    init: Signature | None
    init_passthrough: bool
    methods: dict[str, Signature]
    node: ast.ClassDef | None = field(default=None, repr=False, compare=False)
    dataclass_like: bool = False
    dataclass: DataclassInfo | None = None  # @dataclass: the fields its synthesized __init__ takes
    # `__init__(self, ..., **kw)` whose one `super().__init__(...)` passes `**kw` on: how many positional
    # arguments and which keywords that call gives the base itself (the rest of the base's come through kw).
    init_forwards: tuple[int, frozenset[str]] | None = None
    _fingerprint: str | None = field(default=None, repr=False, compare=False)

    @property
    def fingerprint(self) -> str:
        """What the class body is, without its name: a renamed class keeps it. Computed when asked."""
        if self._fingerprint is None:
            body = (
                "\n".join(ast.dump(item) for item in self.node.body) if self.node is not None else self.name
            )
            self._fingerprint = hashlib.blake2b(body.encode(), digest_size=12).hexdigest()
        return self._fingerprint


class ImportedModule(NamedTuple):
    """`import m` (or `import m.sub`, which binds `m`) or `import m as local`."""

    kind: Literal["module"]
    module: str


class ImportedName(NamedTuple):
    """`from m import name [as local]`: `name` may be a class, a function or a submodule of `m`."""

    kind: Literal["attr"]
    module: str
    name: str


# Tuples tagged by their first item, so that code that reads them as ("module", m) / ("attr", m, name)
# keeps working, and mypy narrows on the tag.
Import = ImportedModule | ImportedName


@dataclass
class ModuleInfo:
    path: str
    module: str
    is_package: bool
    tree: ast.Module | None = None
    error: str | None = None  # why it could not be read, e.g. "line 3: invalid syntax"
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    imports: dict[str, Import] = field(default_factory=dict)  # by the local name it binds
    star_imports: list[str] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)  # local -> dotted expression
    all_names: tuple[str, ...] | None = None
    names: set[str] = field(
        default_factory=set
    )  # every name bound at the top level (functions and constants too)
    # Names a lazy module provides on first access (PEP 562 `__getattr__`, a `_LazyModule` import structure),
    # and where from: an import of one works though nothing binds it at import time.
    lazy: dict[str, ImportedName] = field(default_factory=dict)
    _nodes: list[ast.AST] | None = field(default=None, repr=False, compare=False)

    def nodes(self) -> list[ast.AST]:
        """Every node of the tree in `ast.walk` order, listed once: the analyses of a module share it."""
        if self._nodes is None:
            self._nodes = walk_list(self.tree) if self.tree is not None else []
        return self._nodes


def walk_list(tree: ast.AST) -> list[ast.AST]:
    """`list(ast.walk(tree))`, same nodes in the same order, without a generator per node: on a few hundred
    modules `ast.walk`'s nested generators were a large share of the static pass."""
    out = [tree]
    append = out.append
    AST = ast.AST
    for node in out:  # the list grows while it is read: breadth first, as ast.walk
        for name in node._fields:
            v = getattr(node, name, None)
            if isinstance(v, AST):
                append(v)
            elif isinstance(v, list):
                for item in v:
                    if isinstance(item, AST):
                        append(item)
    return out


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """`list(ast.iter_child_nodes(node))`, same order, without the generators."""
    out: list[ast.AST] = []
    for name in node._fields:
        v = getattr(node, name, None)
        if isinstance(v, ast.AST):
            out.append(v)
        elif isinstance(v, list):
            out.extend(item for item in v if isinstance(item, ast.AST))
    return out


def dotted(node: ast.AST) -> str | None:
    """`a.b.C` for Name/Attribute chains; the subscripted value for `Generic[T]`."""
    if isinstance(node, ast.Subscript):
        node = node.value
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    out = ".".join(base)
    if target:
        out = f"{out}.{target}" if out else target
    return out


def _decode_error(exc: BaseException) -> str:
    if "null bytes" in str(exc):
        return "binary content, not Python source"
    if isinstance(exc, UnicodeDecodeError):
        return f"not valid {exc.encoding} text"
    if isinstance(exc, SyntaxError):
        return f"line {exc.lineno}: {exc.msg}" if exc.lineno else exc.msg
    if isinstance(exc, (MemoryError, RecursionError)):
        return "too large or too deeply nested to read"
    return str(exc) or type(exc).__name__


def _check_text(data: bytes) -> None:
    """Python source must decode in its declared encoding (UTF-8 unless a coding cookie says otherwise)."""
    import io
    import tokenize

    if b"\0" in data:
        raise ValueError("source code string cannot contain null bytes")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        raise
    data.decode(encoding)


def parse_source(data: bytes, path: str, module: str) -> ModuleInfo:
    """Read one module's classes, imports and aliases. Never raises on bad input."""
    is_package = posixpath.basename(path) == "__init__.py"
    mi = ModuleInfo(path, module, is_package)
    try:
        _check_text(data)
        tree = trees.parse(data, filename=path)
    except (SyntaxError, ValueError, UnicodeDecodeError, MemoryError, RecursionError) as exc:
        mi.error = _decode_error(exc)
        return mi
    mi.tree = tree
    segments = Segments(data.lstrip(b"\xef\xbb\xbf") if data.startswith(b"\xef\xbb\xbf") else data)
    for node in tree.body:
        _read_toplevel(node, mi, segments)
    _mark_imported_dataclass_makers(mi, segments)
    if b"__getattr__" in data or b"_LazyModule" in data:
        _read_lazy(tree, mi)
    return mi


def _read_lazy(tree: ast.Module, mi: ModuleInfo) -> None:
    """What a lazy module provides: the `from .x import N` of its module-level `__getattr__`, and the
    `_import_structure` (`{"output": ["Output"]}`, `_import_structure["output"] = [...]`) a `_LazyModule`
    is built from (diffusers b6e0b01, transformers)."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            for sub in ast.walk(node):
                if isinstance(sub, ast.ImportFrom):
                    base = resolve_relative(mi.module, mi.is_package, sub.level, sub.module)
                    for a in sub.names:
                        if a.name != "*":
                            mi.lazy.setdefault(a.asname or a.name, ImportedName("attr", base, a.name))
    if not mi.is_package:
        return
    for node in walk_list(tree):
        for sub, names in _structure_entries(node):
            for n in names:
                mi.lazy.setdefault(n, ImportedName("attr", f"{mi.module}.{sub}", n))


def _structure_entries(node: ast.AST) -> list[tuple[str, list[str]]]:
    """(submodule, names) of `_import_structure = {...}`, `_import_structure["sub"] = [...]` and
    `_import_structure["sub"].extend([...])`."""

    def strings(x: ast.expr) -> list[str] | None:
        if not isinstance(x, (ast.List, ast.Tuple)):
            return None
        out = [e.value for e in x.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return out if len(out) == len(x.elts) else None

    def keyed(t: ast.expr) -> str | None:
        if (
            isinstance(t, ast.Subscript)
            and isinstance(t.value, ast.Name)
            and t.value.id == "_import_structure"
        ):
            k = t.slice
            return k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else None
        return None

    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        t, v = node.targets[0], node.value
        if isinstance(t, ast.Name) and t.id == "_import_structure" and isinstance(v, ast.Dict):
            pairs = [
                (k.value if isinstance(k, ast.Constant) else None, strings(x))
                for k, x in zip(v.keys, v.values)
            ]
            return [(k, n) for k, n in pairs if isinstance(k, str) and n is not None]
        sub, names = keyed(t), strings(v)
        return [(sub, names)] if sub is not None and names is not None else []
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "extend"
        and len(node.args) == 1
    ):
        sub, names = keyed(node.func.value), strings(node.args[0])
        return [(sub, names)] if sub is not None and names is not None else []
    return []


# What class decorators that write `__init__` from the class body are called where they are defined
# (dataclasses, pydantic.dataclasses, attrs); imported under another name, they are found through the import.
_DATACLASS_MAKERS = frozenset({"dataclass", "define", "attrs", "frozen", "mutable"})


def _mark_imported_dataclass_makers(mi: ModuleInfo, segments: Segments) -> None:
    """A class decorated with a dataclass maker imported under another name (`from pydantic.dataclasses
    import dataclass as pydantic_dataclass`): a `dataclass` is read as one (its fields make `__init__`, as
    for `@dataclass` of any module); attrs' makers leave the constructor unknown, as attrs classes do. Never
    `()` inherited from object."""
    for ci in mi.classes.values():
        if ci.node is None or ci.dataclass is not None or ci.dataclass_like:
            continue
        for d in ci.node.decorator_list:
            head = d.func if isinstance(d, ast.Call) else d
            t = mi.imports.get(head.id) if isinstance(head, ast.Name) else None
            if t is None or t.kind != "attr" or t.name not in _DATACLASS_MAKERS:
                continue
            ci.dataclass_like = True
            if t.name == "dataclass" and isinstance(head, ast.Name):
                ci.dataclass = dataclass_info(ci.node, segments, frozenset({"dataclass", head.id}))


def bound_at_top(node: ast.stmt) -> list[str]:
    """The names a statement binds where it stands: a definition's, an import's, an assignment's targets."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [a.asname or a.name.split(".")[0] for a in node.names if a.name != "*"]
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def _read_toplevel(node: ast.stmt, mi: ModuleInfo, segments: Segments | None = None) -> None:
    mi.names.update(bound_at_top(node))
    if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
        for sub in (*node.body, *getattr(node, "orelse", [])):
            mi.names.update(bound_at_top(sub))
    if isinstance(node, ast.ClassDef):
        mi.classes[node.name] = _read_class(node, segments)
    elif isinstance(node, ast.Import):
        for a in node.names:
            if a.asname:
                mi.imports[a.asname] = ImportedModule("module", a.name)
            else:
                top = a.name.split(".")[0]
                mi.imports[top] = ImportedModule("module", top)
    elif isinstance(node, ast.ImportFrom):
        base = resolve_relative(mi.module, mi.is_package, node.level, node.module)
        for a in node.names:
            if a.name == "*":
                mi.star_imports.append(base)
            else:
                mi.imports[a.asname or a.name] = ImportedName("attr", base, a.name)
    elif isinstance(node, ast.Assign) and len(node.targets) == 1:
        t = node.targets[0]
        if isinstance(t, ast.Name):
            if t.id == "__all__" and isinstance(node.value, (ast.List, ast.Tuple)):
                mi.all_names = tuple(
                    e.value
                    for e in node.value.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                )
            else:
                d = dotted(node.value)
                if d is not None and not isinstance(node.value, ast.Subscript):
                    mi.aliases[t.id] = d
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        d = dotted(node.value)
        if d is not None and not isinstance(node.value, ast.Subscript):
            mi.aliases[node.target.id] = d
    elif isinstance(node, ast.If):
        _read_if(node, mi, segments)
    elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
        # (ast.TryStar, Python 3.11+, has the same fields as ast.Try.)
        body: list[ast.stmt] = getattr(node, "body", [])
        handlers: list[ast.ExceptHandler] = getattr(node, "handlers", [])
        for sub in body:
            _read_toplevel(sub, mi, segments)
        rest = (
            *getattr(node, "orelse", []),
            *getattr(node, "finalbody", []),
            *(s for h in handlers for s in h.body),
        )
        for sub in rest:
            mi.names.update(bound_at_top(sub))


def _read_if(node: ast.If, mi: ModuleInfo, segments: Segments | None) -> None:
    """`if TYPE_CHECKING:` / version switches: names bound in either branch count. But a class defined for the
    type checker only is a stub: at run time the `else` branch (`Buffer = BufferAnnot()`) binds the name, and
    the stub's `__init__` is no constructor any call reaches."""
    stubs = _type_checking(node.test)
    for sub in (*node.body, *node.orelse):
        if stubs and sub in node.body and isinstance(sub, ast.ClassDef):
            mi.names.add(sub.name)
            continue
        before = mi.classes.get(sub.name) if isinstance(sub, ast.ClassDef) and sub in node.orelse else None
        _read_toplevel(sub, mi, segments)
        if before is not None and _a_stub(mi.classes[before.name]) and not _a_stub(before):
            # mmcv 7cfc839e: `if dist.is_available(): class SyncBatchNorm(...)` / `else: class
            # SyncBatchNorm: def __init__(self, *args, **kwargs): raise ...`. The stand-in for a platform
            # that lacks the real one says nothing about how the class is called: the real one does.
            mi.classes[before.name] = before


def _a_stub(ci: ClassInfo) -> bool:
    """A class whose constructor takes anything (`(*args, **kwargs)`), with no fields of its own."""
    return ci.init is not None and ci.init.is_passthrough and ci.dataclass is None


def _type_checking(test: ast.expr) -> bool:
    """`TYPE_CHECKING` or `typing.TYPE_CHECKING` (any module's attribute of that name)."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _read_class(node: ast.ClassDef, segments: Segments | None = None) -> ClassInfo:
    bases = tuple(d for d in (dotted(b) for b in node.bases) if d is not None)
    init: Signature | None = None
    passthrough = False
    forwards: tuple[int, frozenset[str]] | None = None
    methods: dict[str, Signature] = {}
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if item.name == "__init__":
                init = from_function(item, segments=segments)
                passthrough = init.is_passthrough
                forwards = None if passthrough else _forwards_kwargs(item, node.name)
            elif not item.name.startswith("_") or item.name in PUBLIC_DUNDERS:
                if any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                    continue
                methods[item.name] = from_function(
                    item, drop_first=not is_staticmethod(item), segments=segments
                )
    new = next(
        (
            i
            for i in node.body
            if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef)) and i.name == "__new__"
        ),
        None,
    )
    if init is None and new is not None:
        # Only `__new__` (diffusers 18c8f10: `def __new__(cls, *args, **kwargs): return Other(*args,
        # **kwargs)`, a deprecation shim): it takes the call's arguments, whatever `object.__init__` would.
        init = from_function(new, segments=segments)
    dataclass_like = any(
        (dotted(d.func if isinstance(d, ast.Call) else d) or "").split(".")[-1]
        in ("dataclass", "define", "attrs")
        for d in node.decorator_list
    )
    return ClassInfo(
        node.name,
        node.lineno,
        bases,
        init,
        passthrough,
        methods,
        node,
        dataclass_like,
        dataclass_info(node, segments),
        forwards,
    )


def _forwards_kwargs(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, cls: str
) -> tuple[int, frozenset[str]] | None:
    """(positional arguments, keywords) the one `super().__init__(...)` of `fn` passes besides `**kw`, where
    `kw` is `fn`'s own `**kwargs` and nothing else in `fn` reads it: every keyword a caller puts there
    reaches the base's constructor as it is. None otherwise (no such call, a `*args` in it whose length
    is unknown, or a `kw` the body looks into or changes first)."""
    kw = fn.args.kwarg.arg if fn.args.kwarg is not None else None
    if kw is None:
        return None
    supers = [
        n
        for n in ast.walk(fn)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "__init__"
        and isinstance(n.func.value, ast.Call)
        and isinstance(n.func.value.func, ast.Name)
        and n.func.value.func.id == "super"
        and (not n.func.value.args or (dotted(n.func.value.args[0]) == cls and len(n.func.value.args) == 2))
    ]
    if len(supers) != 1:
        return None
    call = supers[0]
    splats = [k for k in call.keywords if k.arg is None]
    if (
        any(isinstance(a, ast.Starred) for a in call.args)
        or len(splats) != 1
        or not (isinstance(splats[0].value, ast.Name) and splats[0].value.id == kw)
    ):
        return None
    uses = sum(1 for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == kw)
    if uses != 1:
        return None
    return len(call.args), frozenset(k.arg for k in call.keywords if k.arg is not None)


class ParseCache:
    """Parsed modules shared between the old and new versions: unchanged files are parsed once."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str, bytes], ModuleInfo] = {}
        self.parsed = 0

    def get(self, path: str, module: str, data: bytes) -> ModuleInfo:
        key = (path, module, hashlib.blake2b(data, digest_size=16).digest())
        mi = self._cache.get(key)
        if mi is None:
            mi = parse_source(data, path, module)
            self._cache[key] = mi
            self.parsed += 1
        return mi
