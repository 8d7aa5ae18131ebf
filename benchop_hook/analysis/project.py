"""One version of the repository as a set of importable modules, and name resolution across them.

`Project` answers: which class does `pkg.ops.SumFwdOp` name (following
re-exports through package `__init__` files, aliases and star imports)? Is it
an Op? What is its constructor, inherited across files? Everything is lazy and
cached: only the modules a question touches are read and parsed.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Iterable
from typing import TypeVar

from benchop_hook.analysis.modules import ClassInfo, ClassRef, ModuleInfo, ModuleRef, ParseCache
from benchop_hook.analysis.signatures import (
    DataclassInfo,
    Kind,
    Param,
    Signature,
    dataclass_signature,
    is_class_level,
)
from benchop_hook.git.snapshots import Snapshot

K = TypeVar("K")
V = TypeVar("V")

TRIVIAL_BASES = {"object", "ABC", "Generic", "Protocol", "Module", "ABCMeta"}


def module_names_for(path: str, inits: set[str]) -> list[str]:
    """Import names a file is known by: from its package chain, and its full path without a leading `src/`."""
    if not path.endswith(".py"):
        return []
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts:
        return []
    i = len(parts) - 1  # parts[:i] is the directory holding the module
    while i > 0 and "/".join(parts[:i]) + "/__init__.py" in inits:
        i -= 1
    names = [".".join(parts[i:])]
    full = ".".join(parts[1:] if parts[0] == "src" and len(parts) > 1 else parts)
    if full not in names:
        if i == len(parts) - 1 and len(parts) > 1:
            # No __init__.py beside it: a PEP 420 namespace package, known by its full name first
            # (two such files may share a bare name).
            names.insert(0, full)
        else:
            names.append(full)
    # Folders without `__init__.py` below a regular package are its namespace subpackages (sglang's
    # `python/sglang/srt/layers/`): the file is also known from the outermost package above it.
    outer = next((k for k in range(i) if "/".join(parts[: k + 1]) + "/__init__.py" in inits), None)
    if outer is not None and ".".join(parts[outer:]) not in names:
        names.append(".".join(parts[outer:]))
    # A regular package inside a namespace folder (mlx: `python/mlx/` has no `__init__.py`, `nn/` has):
    # `import mlx.nn` names it through that folder.
    regular = path.endswith("/__init__.py") or i < len(parts) - 1
    if regular and i > 0 and parts[i - 1] != "src" and ".".join(parts[i - 1 :]) not in names:
        names.append(".".join(parts[i - 1 :]))
    return names


class Project:
    """One version of the repository as a set of importable modules."""

    def __init__(
        self,
        snapshot: Snapshot,
        cache: ParseCache,
        is_op_path: Callable[[str], bool],
        op_bases: Iterable[str],
        is_interface_path: Callable[[str], bool] | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.is_interface_path = is_interface_path
        self.cache = cache
        self.is_op_path = is_op_path
        self.op_bases = set(op_bases)
        self._by_module: dict[str, str] | None = None
        self._packages: set[str] = set()  # every package, with or without __init__.py (PEP 420)
        self._by_path: dict[str, str] = {}
        self._names: dict[str, tuple[str, ...]] = {}  # every import name of a file, its module_name first
        self._is_op: dict[ClassRef, tuple[bool, frozenset[str]]] = {}
        self._ctor: dict[ClassRef, tuple[Signature | None, frozenset[str]]] = {}
        self._at: dict[str, ModuleInfo | None] = {}
        self._recording: set[str] | None = None
        self._bases: dict[ClassRef, tuple[tuple[ClassRef | str, ...], frozenset[str]]] = {}
        self._inits: set[str] = set()
        self._local: dict[str, tuple[ModuleInfo, ModuleInfo]] = {}  # `_from_its_folder`'s copies

    # -- files and module names
    def _index(self) -> dict[str, str]:
        if self._by_module is None:
            paths = [p for p in self.snapshot.paths() if p.endswith(".py")]
            inits = {p for p in paths if p.endswith("__init__.py")}
            self._inits = inits
            by_module: dict[str, str] = {}
            aliases: list[tuple[str, str]] = []
            for p in paths:
                names = module_names_for(p, inits)
                if names:
                    self._by_path[p] = names[0]
                    self._names[p] = tuple(names)
                for k, n in enumerate(names):
                    if k == 0:
                        by_module.setdefault(n, p)
                    else:
                        aliases.append((n, p))
                    parts = n.split(".")
                    self._packages.update(".".join(parts[:i]) for i in range(1, len(parts)))
            # A file's own name comes before another file's second name: the bare name `utils` of every
            # `utils.py` in a directory without `__init__.py` would otherwise go to whichever sorts first,
            # even with a top-level `utils.py` there. A second name that several files share names none of
            # them: which one an import gets depends on `sys.path`, and a guess could judge a call against
            # another file's class (an import from the file's own folder is found by `_from_its_folder`).
            claims: dict[str, set[str]] = {}
            for n, p in aliases:
                claims.setdefault(n, set()).add(p)
            for n, ps in claims.items():
                if len(ps) == 1:
                    by_module.setdefault(n, next(iter(ps)))
            self._by_module = by_module
        return self._by_module

    def parse(self, path: str, data: bytes) -> ModuleInfo:
        """`path`'s module read from `data` (through the shared cache), its imports as this version of the
        repository resolves them from where the file is (`_from_its_folder`)."""
        return self._from_its_folder(path, self.cache.get(path, self.module_name(path), data))

    def _from_its_folder(self, path: str, mi: ModuleInfo) -> ModuleInfo:
        """`mi` with each absolute import whose first name is a module or package in the file's own folder
        (the first folder up from it without `__init__.py`) pointed at that one.

        Run as a script, or collected by pytest (its default import mode), a file has that folder first on
        `sys.path`: `from utils import X` in `benchmarks/attn/bench.py` reads `benchmarks/attn/utils.py`,
        whatever other `utils.py` the repository has. Unchanged (the same object) when no import is such."""
        self._index()
        parts = path.split("/")[:-1]
        while parts and "/".join(parts) + "/__init__.py" in self._inits:
            parts.pop()
        if parts and parts[0] == "src":
            parts = parts[1:]  # as `module_names_for` names the files there
        if not parts:
            return mi  # the repository's top folder: a bare name is already the full one
        prefix = ".".join(parts)

        def local(module: str) -> str | None:
            first = module.split(".")[0]
            if not self.has_module(f"{prefix}.{first}"):
                return None
            # The name as written when its package is that very one already (the second name of a package
            # below a folder without `__init__.py`: `tk` for `python/tk/tk/`): an edit of the import must
            # find the statement as it is written, and a module the commit renamed names no file to compare.
            here = self.path_of(first)
            return (
                None
                if here is not None and here == self.path_of(f"{prefix}.{first}")
                else f"{prefix}.{module}"
            )

        imports = {}
        for k, t in mi.imports.items():
            near = local(t.module) if t.module else None
            imports[k] = t._replace(module=near) if near is not None else t
        stars = [local(m) or m for m in mi.star_imports]
        if imports == mi.imports and stars == mi.star_imports:
            return mi
        hit = self._local.get(path)
        if hit is None or hit[0] is not mi:  # one copy per parse, so its analyses are kept with it
            hit = (mi, dataclasses.replace(mi, imports=imports, star_imports=stars))
            self._local[path] = hit
        return hit[1]

    def module_name(self, path: str) -> str:
        self._index()
        return self._by_path.get(path, path[:-3].replace("/", "."))

    def module_names(self, path: str) -> tuple[str, ...]:
        """Every name the file can be imported by (two below a directory without `__init__.py`)."""
        self._index()
        return self._names.get(path, (self.module_name(path),))

    def has_module(self, module: str) -> bool:
        """A module file, or a package directory (a namespace package has no file of its own)."""
        return module in self._index() or module in self._packages

    def top_packages(self) -> set[str]:
        """The first names of the repository's own modules (`tileops`, `workloads`, ...)."""
        return {m.split(".")[0] for m in self._index()}

    def path_of(self, module: str) -> str | None:
        return self._index().get(module)

    def module(self, module: str) -> ModuleInfo | None:
        path = self.path_of(module)
        if path is None:
            return None
        return self.at(path)

    def record(self) -> set[str]:
        """Start noting which files name resolution reads (for the all-files cache); returns the set."""
        self._recording = set()
        return self._recording

    def stop_recording(self) -> None:
        self._recording = None

    def at(self, path: str) -> ModuleInfo | None:
        if self._recording is not None:
            self._recording.add(path)
        if path in self._at:
            return self._at[path]
        data = self.snapshot.read(path)
        mi = None if data is None else self.parse(path, data)
        self._at[path] = mi
        return mi

    # -- names
    def resolve_name(self, module: str, name: str, _depth: int = 0) -> ClassRef | ModuleRef | None:
        if _depth > 12:
            return None
        mi = self.module(module)
        if mi is None:
            sub = f"{module}.{name}" if module else name
            return ModuleRef(sub) if self.has_module(sub) else None
        return self.resolve_in(mi, name, _depth)

    def bound_otherwise(self, module: str, name: str, _depth: int = 0) -> bool:
        """`from module import name` still works, to something no class reference reads: the module (or one
        it takes the name from) binds it by an assignment or a definition that is no class (pyg 744fceea:
        `GNNExplainer = deprecated(...)(GNNExplainer_)` where the class moved away). What that is, a run
        tells; it is no sign the class is gone."""
        mi = self.module(module)
        if mi is None or _depth > 12 or name not in mi.names or name in mi.classes or name in mi.aliases:
            return False  # (an alias resolves, or names what is gone)
        imp = mi.imports.get(name)
        if imp is None:
            return True
        return imp.kind == "attr" and self.bound_otherwise(imp.module, imp.name, _depth + 1)

    def resolve_in(self, mi: ModuleInfo, name: str, _depth: int = 0) -> ClassRef | ModuleRef | None:
        if _depth > 12:
            return None  # a cycle of aliases (mmcv's `FileNotFoundError = FileNotFoundError`) names no class
        if name in mi.classes:
            return ClassRef(mi.module, name)
        target = mi.imports.get(name)
        if target is not None:
            if target.kind == "module":
                return ModuleRef(target.module)
            m, n = target.module, target.name
            r = self.resolve_name(m, n, _depth + 1)
            if r is None and self.has_module(f"{m}.{n}"):
                return ModuleRef(f"{m}.{n}")
            return r
        if name in mi.aliases:
            return self.resolve_dotted(mi, mi.aliases[name], _depth + 1)
        for star in mi.star_imports:
            smi = self.module(star)
            if smi is not None and smi.all_names is not None and name not in smi.all_names:
                continue
            r = self.resolve_name(star, name, _depth + 1)
            if r is not None:
                return r
        if mi.is_package and self.has_module(f"{mi.module}.{name}"):
            return ModuleRef(f"{mi.module}.{name}")
        lazy = mi.lazy.get(name)
        if lazy is not None:
            return self.resolve_name(lazy.module, lazy.name, _depth + 1)
        return None

    def resolve_dotted(self, mi: ModuleInfo, expr: str, _depth: int = 0) -> ClassRef | ModuleRef | None:
        head, *rest = expr.split(".")
        r: ClassRef | ModuleRef | None = self.resolve_in(mi, head, _depth)
        imported = mi.imports.get(head)
        if r is None and imported is not None and imported.kind == "module":
            r = ModuleRef(head)
        for part in rest:
            if isinstance(r, ModuleRef):
                r = self.resolve_name(r.module, part, _depth + 1)
            else:
                return None
        return r

    def resolve_module_attr(self, module: str, dotted_rest: str) -> ClassRef | ModuleRef | None:
        r: ClassRef | ModuleRef | None = ModuleRef(module)
        for part in dotted_rest.split("."):
            if not isinstance(r, ModuleRef):
                return None
            r = self.resolve_name(r.module, part)
        return r

    # -- classes
    def class_info(self, ref: ClassRef) -> ClassInfo | None:
        mi = self.module(ref.module)
        return None if mi is None else mi.classes.get(ref.name)

    def class_path(self, ref: ClassRef) -> str | None:
        return self.path_of(ref.module)

    def _remembered(self, cache: dict[K, tuple[V, frozenset[str]]], key: K, compute: Callable[[], V]) -> V:
        """`compute()`, cached with the files it read: a cached answer adds them to the current
        record too, so the all-files cache learns every file a benchmark's answers depend on."""
        hit = cache.get(key)
        if hit is not None:
            if self._recording is not None:
                self._recording.update(hit[1])
            return hit[0]
        outer, self._recording = self._recording, set()
        try:
            value = compute()
        finally:
            touched, self._recording = self._recording, outer
        if outer is not None:
            outer.update(touched or ())
        cache[key] = (value, frozenset(touched or ()))
        return value

    def bases(self, ref: ClassRef) -> list[ClassRef | str]:
        """Each base resolved to a class, or left as its dotted text when outside the repo.

        Cached: method and constructor lookups ask for the same bases thousands of times.
        """

        def resolve() -> tuple[ClassRef | str, ...]:
            return tuple(self._resolve_bases(ref))

        found: tuple[ClassRef | str, ...] = self._remembered(self._bases, ref, resolve)
        return list(found)

    def _resolve_bases(self, ref: ClassRef) -> list[ClassRef | str]:
        ci = self.class_info(ref)
        mi = self.module(ref.module)
        if ci is None or mi is None:
            return []
        out: list[ClassRef | str] = []
        for b in ci.bases:
            r = self.resolve_dotted(mi, b)
            out.append(r if isinstance(r, ClassRef) and r != ref else b)
        return out

    def is_op(self, ref: ClassRef, _seen: frozenset[ClassRef] = frozenset()) -> bool:
        return self._remembered(self._is_op, ref, lambda: self._is_op_uncached(ref, _seen))

    def _is_op_uncached(self, ref: ClassRef, _seen: frozenset[ClassRef]) -> bool:
        result = False
        path = self.class_path(ref)
        if path is not None and self.is_op_path(path) and ref not in _seen:
            for b in self.bases(ref):
                if isinstance(b, ClassRef):
                    if b.name in self.op_bases or self.is_op(b, _seen | {ref}):
                        result = True
                        break
                elif b.split(".")[-1] in self.op_bases:
                    result = True
                    break
        return result

    def builds(self, ref: ClassRef) -> bool:
        """An Op, or another class benchmarks may build whose constructor counts the same: a workload or
        test helper in an interface file, or a class of an op file without an Op base (a composite)."""
        if self.is_op(ref):
            return True
        if self.is_interface_path is None:
            return False
        path = self.class_path(ref)
        return (
            path is not None
            and (self.is_interface_path(path) or self.is_op_path(path))
            and self.class_info(ref) is not None
        )

    def constructor(self, ref: ClassRef, _seen: frozenset[ClassRef] = frozenset()) -> Signature | None:
        """The `__init__` callers of `ref(...)` bind to, inherited across files; None when unknowable."""
        return self._remembered(self._ctor, ref, lambda: self._constructor_uncached(ref, _seen))

    def _constructor_uncached(self, ref: ClassRef, _seen: frozenset[ClassRef]) -> Signature | None:
        ci = self.class_info(ref)
        result: Signature | None
        if ci is None or ref in _seen or self._made_elsewhere(ref, ci):
            result = None
        elif ci.init is None and ci.dataclass is not None and ci.dataclass.init:
            result = self._dataclass_init(ref, ci.dataclass)
        elif ci.dataclass_like and ci.dataclass is None and ci.init is None:
            result = None  # attrs and friends: their rules are not read
        elif ci.init is not None and not ci.init_passthrough:
            result = self._with_forwarded(ref, ci, _seen) if ci.init_forwards else ci.init
        else:
            result = Signature(())
            for b in self.bases(ref):
                if isinstance(b, ClassRef):
                    s = self.constructor(b, _seen | {ref})
                    if s is None:
                        result = None
                        break
                    if self._defines_init(b, _seen | {ref}):
                        result = s
                        break
                elif b.split(".")[-1] in TRIVIAL_BASES:
                    continue
                else:
                    result = None  # a base outside the repository may define __init__
                    break
            if result is not None and ci.init_passthrough and not result.params:
                result = ci.init
        return result

    def _made_elsewhere(self, ref: ClassRef, ci: ClassInfo) -> bool:
        """Calls of the class don't go to an `__init__` bench-op can read: a metaclass of it or of an ancestor
        defines `__call__` (GPTQModel's `QuantizeConfigMeta` builds a subclass picked from the arguments),
        or, with no `__init__` or `@dataclass` of its own, an ancestor's `__init_subclass__` makes it a
        dataclass (flax's `struct.PyTreeNode`, linen's `Module`)."""
        chain = [(r, self.class_info(r)) for r in (ref, *self.ancestors(ref))]
        for r, info in chain:
            node = info.node if info is not None else None
            for kw in node.keywords if node is not None else ():
                meta = self.resolve_in_module(r.module, kw.value) if kw.arg == "metaclass" else None
                mci = self.class_info(meta) if isinstance(meta, ClassRef) else None
                if mci is not None and "__call__" in _defined(mci.node):
                    return True
        if ci.init is not None or ci.dataclass is not None:
            return False
        for _, info in chain[1:]:
            hook = _defined(info.node if info is not None else None).get("__init_subclass__")
            if hook is not None and any(
                "dataclass" in (n.id if isinstance(n, ast.Name) else n.attr)
                for n in ast.walk(hook)
                if isinstance(n, (ast.Name, ast.Attribute))
            ):
                return True
        return False

    def resolve_in_module(self, module: str, expr: ast.expr) -> ClassRef | ModuleRef | None:
        """A name or dotted name written in `module`, resolved."""
        mi = self.module(module)
        text = ast.unparse(expr)
        if mi is None or not all(part.isidentifier() for part in text.split(".")):
            return None
        return self.resolve_dotted(mi, text) if "." in text else self.resolve_in(mi, text)

    def _with_forwarded(self, ref: ClassRef, ci: ClassInfo, seen: frozenset[ClassRef]) -> Signature | None:
        """`__init__(self, n, act="relu", **kwargs)` that passes `**kwargs` on to its one base's constructor:
        its own parameters, then, keyword-only, those of the base's that its `super().__init__(...)` leaves
        to `kwargs` (`Sub(4, eps=1e-3)` is a call of the base's `eps` as much as `Base(4, eps=1e-3)` is).
        Its own signature when the base is outside the repository or can't be read."""
        own = ci.init
        assert own is not None and ci.init_forwards is not None
        bases = self.bases(ref)
        base = bases[0] if len(bases) == 1 and isinstance(bases[0], ClassRef) else None
        sig = self.constructor(base, seen | {ref}) if base is not None else None
        if sig is None:
            return own
        n_pos, given = ci.init_forwards
        taken = {p.name for p in own.params} | given
        positional = [p for p in sig.params if p.positional]
        filled = {p.name for p in positional[:n_pos]}
        rest = [
            Param(p.name, Kind.KEYWORD_ONLY, p.default, p.annotation)
            for p in sig.params
            if p.keyword and p.name not in filled and p.name not in taken
        ]
        mine = [p for p in own.params if p.kind is not Kind.VAR_KEYWORD]
        tail = [p for p in own.params if p.kind is Kind.VAR_KEYWORD] if sig.var_keyword is not None else []
        names = {p.name for p in rest}
        aliases = own.aliases + tuple(a for a in sig.aliases if a[1] in names)
        return Signature((*mine, *rest, *tail), own.refused | (sig.refused - taken), aliases)

    def _dataclass_init(self, ref: ClassRef, own: DataclassInfo) -> Signature | None:
        """Fields of the dataclasses in the bases (first base last, as dataclasses collects them), then
        its own; None when a base outside the repository (or a non-dataclass with fields) may add some."""
        chain: list[tuple[Param, ...]] = []
        bases = self.bases(ref)
        for b in reversed(bases):
            if isinstance(b, ClassRef):
                bci = self.class_info(b)
                if bci is None:
                    return None
                if bci.dataclass is not None:
                    sig = self.constructor(b)
                    if sig is None:
                        return None
                    chain.append(sig.params)
                elif self._fields_above(b, frozenset({ref})):
                    # A plain class has no fields of its own, but dataclasses collect the fields of every
                    # class of the MRO: a dataclass above it, or a class outside the repository, may add some.
                    return None
            elif b.split(".")[-1] not in TRIVIAL_BASES:
                return None
        chain.append(own.fields)
        return dataclass_signature(chain)

    def _fields_above(self, ref: ClassRef, seen: frozenset[ClassRef]) -> bool:
        """Whether a class's ancestors may hold dataclass fields: a dataclass among them, a class bench-op
        can't read, or a base outside the repository."""
        for b in self.bases(ref):
            if isinstance(b, ClassRef):
                if b in seen:
                    continue
                bci = self.class_info(b)
                if bci is None or bci.dataclass is not None or self._fields_above(b, seen | {ref}):
                    return True
            elif b.split(".")[-1] not in TRIVIAL_BASES:
                return True
        return False

    def _defines_init(self, ref: ClassRef, seen: frozenset[ClassRef]) -> bool:
        ci = self.class_info(ref)
        if ci is None or ref in seen:
            return False
        if ci.init is not None or (ci.dataclass is not None and ci.dataclass.init):
            return True  # a dataclass's synthesized `__init__` is one too (GPTQModel: `class Cfg(BaseCfg)`)
        return any(isinstance(b, ClassRef) and self._defines_init(b, seen | {ref}) for b in self.bases(ref))

    def method(self, ref: ClassRef, name: str, _seen: frozenset[ClassRef] = frozenset()) -> Signature | None:
        ci = self.class_info(ref)
        if ci is None or ref in _seen:
            return None
        if name in ci.methods:
            return ci.methods[name]
        for b in self.bases(ref):
            if isinstance(b, ClassRef):
                s = self.method(b, name, _seen | {ref})
                if s is not None:
                    return s
        return None

    def class_level(self, ref: ClassRef, name: str, _seen: frozenset[ClassRef] = frozenset()) -> bool:
        """Whether `ref.name(...)` called on the class itself is a method call bench-op reads as on an
        object: the nearest definition of `name` is a classmethod or a staticmethod (a factory such as
        `TraceContext.create(...)`), of a class bench-op reads whole."""
        ci = self.class_info(ref)
        if ci is None or ci.node is None or ref in _seen:
            return False
        for item in ci.node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                return is_class_level(item)
        return any(
            isinstance(b, ClassRef) and self.class_level(b, name, _seen | {ref}) for b in self.bases(ref)
        )

    def method_names(self, ref: ClassRef, _seen: frozenset[ClassRef] = frozenset()) -> set[str]:
        ci = self.class_info(ref)
        if ci is None or ref in _seen:
            return set()
        names = set(ci.methods)
        for b in self.bases(ref):
            if isinstance(b, ClassRef):
                names |= self.method_names(b, _seen | {ref})
        return names

    def ancestors(self, ref: ClassRef, _seen: frozenset[ClassRef] = frozenset()) -> list[ClassRef]:
        out: list[ClassRef] = []
        for b in self.bases(ref):
            if isinstance(b, ClassRef) and b not in _seen and b != ref:
                out.append(b)
                out.extend(self.ancestors(b, _seen | {ref}))
        return out


def _defined(node: ast.ClassDef | None) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions a class body defines, by name."""
    if node is None:
        return {}
    return {f.name: f for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
