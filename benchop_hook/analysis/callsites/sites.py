"""Every call in one module that may build or call an Op, as a `CallSite`: its callee, arguments, splats,
and the conditions it runs under."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import replace

from benchop_hook.analysis.callsites.evaluation import Evaluator
from benchop_hook.analysis.callsites.model import PARTIAL_LATER, Arg, Atom, CallSite, Gone, Instance, Via
from benchop_hook.analysis.callsites.scopes import Scope, ScopeTree
from benchop_hook.analysis.callsites.splats import SplatReader
from benchop_hook.analysis.modules import ClassRef, ModuleInfo, dotted
from benchop_hook.analysis.signatures import Segments


def char_col(lines: list[str], lineno: int, byte_col: int) -> int:
    """ast's byte column as a character column (what CallSite and libcst positions use)."""
    if lineno - 1 >= len(lines):
        return byte_col
    line = lines[lineno - 1]
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


class ModuleAnalyzer:
    """Finds every call in one module and what it may call."""

    def __init__(
        self,
        mi: ModuleInfo,
        source: bytes,
        resolve: Callable[[ModuleInfo, str], Atom | None],
        resolve_attr: Callable[[str, str], Atom | None],
        helper_args: Callable[[str, str, int, str | None], list[Atom]] | None = None,
        class_level: Callable[[ClassRef, str], bool] | None = None,
    ) -> None:
        self.mi = mi
        self._class_level = class_level
        self.tree = mi.tree
        self.text = source.decode("utf-8-sig", "replace")
        self.lines = self.text.splitlines()
        self._segments = Segments(source[3:] if source.startswith(b"\xef\xbb\xbf") else source)
        self.scopes = ScopeTree(mi)
        self.parents = self.scopes.parents
        self.evaluator = Evaluator(self.scopes, resolve, resolve_attr, helper_args)
        self.splats = SplatReader(self.scopes, self.segment)

    def segment(self, node: ast.AST) -> str:
        """The node's source as written (multi-line ones normalised by ast.unparse)."""
        seg = self._segments.of(node)
        return seg if seg is not None else ast.unparse(node)

    def calls(self) -> Iterator[CallSite]:
        if self.tree is None:
            return
        for node in self.mi.nodes():
            if not isinstance(node, ast.Call):
                continue
            scope = self.scopes.scope_of(node)
            atoms, method = self._callee(node, scope)
            if not any(isinstance(a, (ClassRef, Instance, Gone)) for a in atoms):
                partial = self._partial(node, scope)
                if partial is not None:
                    yield partial
                continue
            via = self._via(node.func, scope, method)
            guard, conditional = self._guard_of(node, node.func, scope)
            yield self._site(node, scope, atoms, method, via, guard, conditional)

    def _callee(self, node: ast.Call, scope: Scope) -> tuple[set[Atom], str | None]:
        """What the callee can be, and the method called when it is an Op instance."""
        ev = self.evaluator
        func = node.func
        parent = self._super_base(func)
        if parent is not None:
            atoms = ev.eval(parent[0], parent[1])
            return (atoms, None) if atoms and all(isinstance(a, ClassRef) for a in atoms) else (set(), None)
        if isinstance(func, ast.Attribute):
            base = ev.eval(func.value, scope)
            if base and all(isinstance(b, Instance) for b in base):
                return set(base), func.attr
            level = self._class_level
            if (
                level is not None
                and base
                and all(isinstance(b, ClassRef) and level(b, func.attr) for b in base)
            ):
                # `Ctx.create(...)`: a classmethod or staticmethod; its signature (less `cls`) is the method's
                return {Instance(b) for b in base if isinstance(b, ClassRef)}, func.attr
            atoms = ev.eval(func, scope)
            if atoms and all(isinstance(a, Instance) for a in atoms):
                return atoms, "__call__"  # `self.op(x)`: an Op object the class keeps, called
            return atoms, None
        atoms = ev.eval(func, scope)
        if isinstance(func, ast.Name):
            atoms = self._narrowed(node, func.id, scope, atoms)
        if atoms and all(isinstance(a, Instance) for a in atoms):
            return atoms, "__call__"
        return atoms, None

    def _super_base(self, func: ast.expr) -> tuple[ast.expr, Scope] | None:
        """The base class and the scope it is named in, for `super().__init__` (or `super(Cls, self)`) in a
        method of a class with one base: a benchmark's own subclass of an Op builds the Op there. With
        several bases the MRO decides whose `__init__` runs: not read."""
        if not (
            isinstance(func, ast.Attribute)
            and func.attr == "__init__"
            and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "super"
            and not func.value.keywords
        ):
            return None
        fn: ast.AST | None = self.parents.get(func)
        while fn is not None and not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            fn = self.parents.get(fn)
        cls = self.parents.get(fn) if fn is not None else None
        cls_scope = self.scopes.scopes.get(cls) if cls is not None else None
        if not (
            isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
            and isinstance(cls, ast.ClassDef)
            and fn in cls.body
            and len(cls.bases) == 1
            and not cls.keywords
            and cls_scope is not None
        ):
            return None
        sargs = func.value.args
        first = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)][:1]
        if sargs and not (
            len(sargs) == 2
            and isinstance(sargs[0], ast.Name)
            and sargs[0].id == cls.name
            and first == [getattr(sargs[1], "id", None)]
        ):
            return None
        outer = cls_scope.up()
        return (cls.bases[0], outer) if outer is not None else None

    def _partial(self, node: ast.Call, scope: Scope) -> CallSite | None:
        """`functools.partial(Op, ...)`: a call of the Op whose first arguments are written here and whose
        others come wherever the partial is called; those stand as splats nobody can see into, so the run
        decides, unless what is written here fails whatever comes later."""
        if not node.args or isinstance(node.args[0], ast.Starred) or not self._is_partial(node.func):
            return None
        atoms = self.evaluator.eval(node.args[0], scope)
        if not any(isinstance(a, (ClassRef, Gone)) for a in atoms):
            return None
        guard, conditional = self._guard_of(node, node.args[0], scope)
        site = self._site(node, scope, atoms, None, "partial", guard, conditional)
        later = (Arg("star", None, PARTIAL_LATER), Arg("dstar", None, PARTIAL_LATER))
        positional = [a for a in site.args[1:] if a.kind in ("pos", "star")]
        keywords = [a for a in site.args[1:] if a.kind not in ("pos", "star")]
        return replace(
            site,
            func_source=self.segment(node.args[0]),
            args=(*positional, later[0], *keywords, later[1]),
            splat_dict=None,
            splat_name=None,
            splat_star=None,
            opaque=PARTIAL_LATER,
        )

    def _is_partial(self, func: ast.expr) -> bool:
        """`functools.partial` or `partial`, as this module imports them."""
        imports = self.mi.imports
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            t = imports.get(func.value.id)
            return func.attr == "partial" and t is not None and t.kind == "module" and t.module == "functools"
        if isinstance(func, ast.Name):
            t = imports.get(func.id)
            return t is not None and t.kind == "attr" and (t.module, t.name) == ("functools", "partial")
        return False

    def _via(self, func: ast.expr, scope: Scope, method: str | None) -> Via:
        """How the callee reaches the call (asked only of calls an Op reaches)."""
        if method is not None:
            return "instance"
        if self._super_base(func) is not None:
            return "direct"  # the base is named where the class is defined: its import follows a rename
        if isinstance(func, ast.Attribute):
            return "module"
        if isinstance(func, ast.Subscript):
            return "dict"  # `configs[name](...)`: taken from a dict or a list, as `cls = configs[name]` is
        if isinstance(func, ast.Name) and not self._is_import_name(func.id, scope):
            return self._how(func.id, scope)
        if (
            isinstance(func, ast.Name)
            and func.id in self.mi.imports
            and self.mi.imports[func.id][-1] != func.id
        ):
            return "alias"
        return "direct"

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

    def _guard_of(self, node: ast.Call, func: ast.expr, scope: Scope) -> tuple[str | None, bool]:
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

    def _narrowed(self, node: ast.Call, name: str, scope: Scope, atoms: set[Atom]) -> set[Atom]:
        """`cls = table[kind]` then `if kind in ("std", "var"): cls(...)`: only the table's entries the
        visible guards let through reach the call."""
        vals = scope.assigns.get(name, [])
        if scope.node is None or len(vals) != 1 or name in scope.params or name in scope.loops:
            return atoms
        v = vals[0]
        if not (isinstance(v, ast.Subscript) and isinstance(v.slice, ast.Name)):
            return atoms
        key = v.slice.id
        tables = self.evaluator.elements_source(v.value, scope, 1)
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
                out |= self.evaluator.eval(val, scope, 1)
        return out or atoms

    def _is_import_name(self, name: str, scope: Scope) -> bool:
        module_scope = self.scopes.module_scope
        s: Scope | None = scope
        while s is not None and s is not module_scope:
            if name in s.assigns or name in s.params or name in s.loops:
                return False
            s = s.up()
        return name not in module_scope.assigns and name not in module_scope.loops

    # -- the call site
    def _site(
        self,
        node: ast.Call,
        scope: Scope,
        atoms: set[Atom],
        method: str | None,
        via: Via,
        guard: str | None,
        conditional: bool,
    ) -> CallSite:
        args, splat_name = self._args(node)
        splats = self.splats.of_call(node, scope)
        top, qual = self.scopes.enclosing_function(node)
        return CallSite(
            path=self.mi.path,
            lineno=node.lineno,
            col=char_col(self.lines, node.lineno, node.col_offset),
            end_lineno=node.end_lineno or node.lineno,
            end_col=char_col(self.lines, node.end_lineno or node.lineno, node.end_col_offset or 0),
            func_source=self.segment(node.func),
            args=args,
            atoms=frozenset(atoms),
            method=method,
            function=top,
            qualfunction=qual,
            scope_names=frozenset(self.scopes.visible_names(node, scope)),
            via=via,
            splat_dict=splats.dict_items,
            splat_name=splat_name,
            splat_star=splats.star_items,
            opaque=splats.opaque,
            guard=guard,
            conditional=conditional,
        )

    def _args(self, node: ast.Call) -> tuple[tuple[Arg, ...], str | None]:
        """The arguments, keywords and `**` splats in the order written; and the name a `**name` splats."""
        args = [
            Arg("star", None, self.segment(a.value))
            if isinstance(a, ast.Starred)
            else Arg("pos", None, self.segment(a))
            for a in node.args
        ]
        keywords: list[Arg] = []
        splat_name: str | None = None
        for k in node.keywords:
            if k.arg is None:
                keywords.append(Arg("dstar", None, self.segment(k.value)))
                if isinstance(k.value, ast.Name):
                    splat_name = k.value.id
            else:
                keywords.append(Arg("kw", k.arg, self.segment(k.value)))
        # ast lists `**d` after every keyword; the source may interleave them.
        order = sorted(
            range(len(node.keywords)), key=lambda i: (node.keywords[i].lineno, node.keywords[i].col_offset)
        )
        return tuple(args + [keywords[i] for i in order]), splat_name

    def _how(self, name: str, scope: Scope) -> Via:
        """How a callee bound by `name` in this module's scopes reaches the call."""
        s: Scope | None = scope
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
