"""Apply planned edits to a benchmark file with libcst: comments, formatting and line endings preserved.

Each edit changes the smallest node (`with_changes` on the call's argument
list, an import alias, a dict key). Nothing here raises on bad input: the
result says what was applied and what could not be.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from benchop_hook.fixing.plan import ArgOp, CallEdit, DictEdit, ImportEdit
from benchop_hook.rewrite.units import RewriteResult, rewrite_units, unplaced_imports
from benchop_hook.rewrite.wrap import Style, file_style, wrap_call

_NO_SPACE = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
)


_SPACE_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _plain(c: cst.Comma) -> cst.Comma:
    """A separator with its line layout but without the comment that follows it."""
    ws = c.whitespace_after
    if isinstance(ws, cst.ParenthesizedWhitespace) and ws.first_line.comment is not None:
        return c.with_changes(whitespace_after=ws.with_changes(first_line=cst.TrailingWhitespace()))
    return c


def _merge(own: cst.Comma, layout: cst.Comma) -> cst.Comma:
    """The comment after `own` (it describes its argument), with the line layout of `layout`."""
    ows, lws = own.whitespace_after, layout.whitespace_after
    if isinstance(ows, cst.ParenthesizedWhitespace) and isinstance(lws, cst.ParenthesizedWhitespace):
        return layout.with_changes(whitespace_after=lws.with_changes(first_line=ows.first_line))
    return layout


def _reflow_commas(original: Sequence, items: list) -> list:
    """Separators for a new list of arguments (or dict elements), each given as (node, index in the
    original or None when added): every kept element keeps its own comma and the comment after it;
    the new last one takes the original last one's layout (trailing comma or not); added ones get a
    plain separator. Multi-line calls keep one argument per line with its comment."""
    if not items:
        return []
    n = len(original)
    last_comma = original[-1].comma if n else cst.MaybeSentinel.DEFAULT
    middle = [original[i].comma for i in range(n - 1) if isinstance(original[i].comma, cst.Comma)]
    sep = _plain(middle[-1]) if middle else _SPACE_COMMA
    kept = {idx for _, idx in items if idx is not None}

    def breaks(c: object) -> bool:
        return isinstance(c, cst.Comma) and isinstance(c.whitespace_after, cst.ParenthesizedWhitespace)

    def after(idx: int, own: cst.Comma) -> cst.Comma:
        # An element dropped at the end of its line takes its line break with it unless the one before
        # it, now at the end of that line, keeps it: `b=2, c=3,` / `d=4` without c stays two lines.
        k = idx + 1
        while k < n - 1 and k not in kept:
            if breaks(original[k].comma) and not breaks(own):
                return _merge(own, _plain(original[k].comma))
            k += 1
        return own

    out = []
    for j, (node, idx) in enumerate(items):
        own = original[idx].comma if idx is not None else None
        if j < len(items) - 1:
            if idx is not None and idx < n - 1 and isinstance(own, cst.Comma):
                c = after(idx, own)
            elif isinstance(own, cst.Comma):
                c = _merge(own, sep)  # the old last one, no longer last
            else:
                c = sep
            if idx == n - 1 and isinstance(node, cst.Arg):
                node = node.with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
        else:
            if idx == n - 1:
                c = own
            elif isinstance(last_comma, cst.Comma):
                c = _merge(own, last_comma) if isinstance(own, cst.Comma) else _plain(last_comma)
            else:
                c = cst.MaybeSentinel.DEFAULT
            if isinstance(node, cst.Arg) and n and idx != n - 1:
                node = node.with_changes(whitespace_after_arg=original[-1].whitespace_after_arg)
        out.append(node.with_changes(comma=c))
    return out


class _Comments(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node.value)


def _comments(node: cst.CSTNode) -> list[str]:
    # one visitor class, not one made per argument: making a class costs more than visiting an argument
    v = _Comments()
    node.visit(v)
    return sorted(v.found)


def _parse_value(src: str) -> cst.BaseExpression:
    return cst.parse_expression(src)


class CommentsWouldMove(Exception):
    """A rewrite that would lose or move a comment is not made."""


def edit_args(args: Sequence[cst.Arg], ops: Sequence[ArgOp]) -> list[cst.Arg]:
    by_index = {op.index: op for op in ops if op.index is not None and op.op != "after"}
    # An op's index counts as the call site does (ast): positionals and *splats first, then keywords
    # and **splats; in the source a *splat may follow a keyword (`f(k=1, *a)`).
    order = [j for j, a in enumerate(args) if a.keyword is None and a.star != "**"] + [
        j for j, a in enumerate(args) if a.keyword is not None or a.star == "**"
    ]
    site_index = {j: i for i, j in enumerate(order)}
    items: list[tuple[cst.Arg, int | None]] = []
    dropped: list[str] = []
    for j, a in enumerate(args):
        i = site_index[j]
        op = by_index.get(i)
        if op is None:
            items.append((a, j))
        elif op.op == "drop":
            dropped += _comments(a)
        elif op.op == "rename":
            items.append((a.with_changes(keyword=cst.Name(op.name or "")), j))
        elif op.op == "to_kw":
            items.append((a.with_changes(keyword=cst.Name(op.name or ""), equal=_NO_SPACE), j))
        elif op.op == "set":  # a new keyword in the place of the argument it replaces
            kept = a.equal if a.keyword is not None else _NO_SPACE
            items.append(
                (
                    a.with_changes(
                        keyword=cst.Name(op.name or ""), value=_parse_value(op.value or "None"), equal=kept
                    ),
                    j,
                )
            )
        for extra in (o for o in ops if o.op == "after" and o.index == i):
            value = _parse_value(extra.value or "None")
            items.append((cst.Arg(value=value, keyword=cst.Name(extra.name or ""), equal=_NO_SPACE), None))
    adds = [op for op in ops if op.op == "add_kw"]
    # New keywords go after the existing ones but before any **splat.
    insert_at = next((j for j, (a, _) in enumerate(items) if a.star == "**"), len(items))
    for op in adds:
        items.insert(
            insert_at,
            (
                cst.Arg(
                    value=_parse_value(op.value or "None"), keyword=cst.Name(op.name or ""), equal=_NO_SPACE
                ),
                None,
            ),
        )
        insert_at += 1
    out = _reflow_commas(args, items)
    before = [c for a in args for c in _comments(a)]
    for c in dropped:
        before.remove(c)
    after = [c for a in out for c in _comments(a)]
    if sorted(before) != sorted(after):
        raise CommentsWouldMove("a comment in this call would be lost or moved: fix it by hand")
    return out


@dataclass(frozen=True)
class Layout:
    """The project's line length and how this file wraps calls."""

    limit: int
    style: Style
    lines: tuple[str, ...]  # the file's lines, without line ends


class _Rewriter(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(
        self,
        calls: Sequence[CallEdit],
        imports: Sequence[ImportEdit],
        dicts: Sequence[DictEdit],
        name_renames: dict[str, str],
        layout: Layout | None = None,
        origin: tuple[int, int, int] | None = None,
        known: tuple[cst.CSTNode, CodeRange] | None = None,
    ) -> None:
        self.layout = layout
        self.origin = origin  # a unit rewritten alone: where it sits in the file (see units.Visit)
        # A unit whose only edit is the unit itself: its position is known, and no other node's is needed.
        self.known = known
        self.blocks: list[str] = [""]  # the indentation of each enclosing block
        self.calls = {(c.lineno, c.col, c.end_lineno, c.end_col): c for c in calls}
        self.dicts = {(d.lineno, d.col): d for d in dicts}
        self.imports = list(imports)
        self.name_renames = name_renames
        self.applied: set[object] = set()
        self.seen: set[object] = set()  # the calls found, rewritten or not
        self.failed: list[str] = []
        self._skip: set[int] = set()  # ids of names a rename must not touch

    def _pos(self, node: cst.CSTNode) -> CodeRange | None:
        if self.known is None:
            r = self.get_metadata(PositionProvider, node)
        elif node is self.known[0]:
            r = self.known[1]
        else:
            return None
        if self.origin is None:
            return r
        first, line, shift = self.origin

        def place(p: CodePosition) -> CodePosition:
            return CodePosition(p.line - first + line, p.column + shift if p.line == first else p.column)

        return CodeRange(place(r.start), place(r.end))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        r = self._pos(original)
        if r is None:
            return updated
        key = (r.start.line, r.start.column, r.end.line, r.end.column)
        edit = self.calls.get(key)
        if edit is None:
            return updated
        self.seen.add(key)
        try:
            new_args = edit_args(updated.args, edit.ops)
        except CommentsWouldMove as exc:
            self.failed.append(f"line {edit.lineno}: {exc}")
            return updated
        except Exception as exc:  # noqa: BLE001 - a value that does not parse: report, never crash
            self.failed.append(f"line {edit.lineno}: {exc}")
            return updated
        new = updated.with_changes(args=new_args)
        # The class renamed where the call reads it through an attribute (`mk.ModularKernel` -> `mk.Kernel`).
        for op in (o for o in edit.ops if o.op == "func_attr"):
            if not isinstance(updated.func, cst.Attribute):
                self.failed.append(f"line {edit.lineno}: the called name is no attribute to rename")
                return updated
            new = new.with_changes(func=updated.func.with_changes(attr=cst.Name(op.name or "")))
        self.applied.add(key)
        if self.layout is not None and r.start.line == r.end.line:
            return self._fit(r, new)
        if self.layout is not None:
            return self._fit_last_line(r, updated, new)
        return new

    def visit_Module(self, node: cst.Module) -> None:
        self.default_indent = node.default_indent

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.blocks.append(
            self.blocks[-1] + (node.indent if node.indent is not None else self.default_indent)
        )

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.BaseSuite:
        self.blocks.pop()
        return updated

    def _fit(self, r: CodeRange, call: cst.Call) -> cst.BaseExpression:
        """A one-line call that no longer fits the project's line length, wrapped as the file wraps calls."""
        assert self.layout is not None
        line = self.layout.lines[r.start.line - 1] if r.start.line <= len(self.layout.lines) else ""
        if len(line) > self.layout.limit:
            return call  # it did not fit before either: the user's own layout
        code = cst.Module(body=[]).code_for_node
        args = [code(a.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip() for a in call.args]
        func = code(call.func)
        text = wrap_call(
            func,
            args,
            column=r.start.column,
            suffix=line[r.end.column :],
            limit=self.layout.limit,
            style=self.layout.style,
            line_indent=line[: len(line) - len(line.lstrip())],
            block=len(self.blocks[-1]),
        )
        if text is None:
            return call
        try:
            wrapped = cst.parse_expression(text)
        except Exception:  # noqa: BLE001 - a layout that does not parse is not used
            return call
        return wrapped.with_changes(lpar=call.lpar, rpar=call.rpar) if isinstance(wrapped, cst.Call) else call

    def _fit_last_line(self, r: CodeRange, before: cst.Call, call: cst.Call) -> cst.Call:
        """A wrapped call whose last line the arguments appended to it push past the line length: those
        arguments on a line of their own, indented as the call's last line break indents (pyg f4622e59:
        `..., dropout=0.25, act=F.relu)` at 93 columns of 88)."""
        assert self.layout is not None
        line = self.layout.lines[r.end.line - 1] if r.end.line <= len(self.layout.lines) else ""
        code = cst.Module(body=[]).code_for_node
        old_text, new_text = code(before), code(call)
        if old_text.count("\n") != new_text.count("\n") or len(line) > self.layout.limit:
            return call  # lines added or removed, or it did not fit before either: left as it is
        grown = len(new_text.rsplit("\n", 1)[-1]) - len(old_text.rsplit("\n", 1)[-1])
        if len(line) + grown <= self.layout.limit:
            return call
        breaks = [
            a.comma.whitespace_after
            for a in before.args
            if isinstance(a.comma, cst.Comma)
            and isinstance(a.comma.whitespace_after, cst.ParenthesizedWhitespace)
        ]
        # The arguments added at the end: their values are new nodes (a kept or renamed one keeps its own).
        old_values = {id(a.value) for a in before.args}
        args = list(call.args)
        first = len(args)
        while first > 1 and id(args[first - 1].value) not in old_values:
            first -= 1
        comma = args[first - 1].comma if 0 < first < len(args) else None
        if not breaks or not isinstance(comma, cst.Comma) or id(args[first - 1].value) not in old_values:
            return call
        if isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace):
            return call
        indent = breaks[-1]
        args[first - 1] = args[first - 1].with_changes(comma=comma.with_changes(whitespace_after=indent))
        wrapped = call.with_changes(args=args)
        last = code(wrapped).rsplit("\n", 1)[-1]
        width = (len(self.blocks[-1]) if indent.indent else 0) + len(last) + len(line) - r.end.column
        return wrapped if width <= self.layout.limit else call

    def leave_Dict(self, original: cst.Dict, updated: cst.Dict) -> cst.BaseExpression:
        r = self._pos(original)
        if r is None:
            return updated
        edit = self.dicts.get((r.start.line, r.start.column))
        if edit is None:
            return updated
        elements = list(updated.elements)
        items: list = []
        for i, el in enumerate(elements):
            key = el.key if isinstance(el, cst.DictElement) else None
            name = key.evaluated_value if isinstance(key, cst.SimpleString) else None
            op = next((o for o in edit.ops if o.op in ("drop", "rename") and o.name == name), None)
            if op is None:
                items.append((el, i))
            elif op.op == "rename" and isinstance(key, cst.SimpleString):
                q = key.value[0] if key.value[0] in "'\"" else '"'
                items.append((el.with_changes(key=cst.SimpleString(f"{q}{op.value}{q}")), i))
        quote = '"'
        for el in elements:
            if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString):
                quote = el.key.value[0] if el.key.value[0] in "'\"" else quote
                break
        for op in edit.ops:
            if op.op == "add_kw":
                items.append(
                    (
                        cst.DictElement(
                            cst.SimpleString(f"{quote}{op.name}{quote}"), _parse_value(op.value or "None")
                        ),
                        None,
                    )
                )
        self.applied.add(("dict", edit.lineno, edit.col))
        return updated.with_changes(elements=_reflow_commas(elements, items))

    def leave_ImportFrom(
        self, original: cst.ImportFrom, updated: cst.ImportFrom
    ) -> cst.BaseSmallStatement | cst.RemovalSentinel:
        if isinstance(updated.names, cst.ImportStar) or updated.relative:
            return updated
        module = _dotted(updated.module) if updated.module is not None else ""
        matches = [e for e in self.imports if e.old_module == module]
        if not matches:
            return updated
        names = list(updated.names)
        found = [next((e for e in matches if e.old_name == _dotted(a.name)), None) for a in names]
        # The statement moves only when every name it imports moved to one module (modules merged into
        # one): a name that stays, or goes elsewhere, keeps the old module, and the report says so.
        targets = {e.new_module for e in found if e is not None}
        moved = None not in found and len(targets) == 1 and module not in targets
        changed = False
        new_module = targets.pop() if moved else module
        if not moved and targets - {module}:
            where = ", ".join(sorted(targets - {module}))
            self.failed.append(
                f"`from {module} import ...` also imports names that did not move to {where}: split that "
                "import by hand"
            )
        for j, (alias, e) in enumerate(zip(names, found)):
            if e is None or (e.new_module != module and not moved):
                continue
            names[j] = alias.with_changes(name=cst.Name(e.new_name))
            changed = True
            self.applied.add(("import", e.old_module, e.old_name))
        if not changed:
            return updated
        out = updated.with_changes(names=names)
        if new_module != module:
            out = out.with_changes(module=_attr_expr(new_module))
        return out

    # Renamed Ops: rename loads of the imported name only, not attributes, keywords, parameters or
    # definitions.
    def _skip_node(self, node: cst.CSTNode | None) -> None:
        if node is not None:
            self._skip.add(id(node))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip_node(node.attr)

    def visit_Arg(self, node: cst.Arg) -> None:
        self._skip_node(node.keyword)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        for n in (node.name, node.asname.name if node.asname else None):
            self._skip_node(n)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._skip_node(node.name)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._skip_node(node.name)

    def visit_Param(self, node: cst.Param) -> None:
        self._skip_node(node.name)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        new = self.name_renames.get(updated.value)
        if not new or id(original) in self._skip:
            return updated
        return updated.with_changes(value=new)


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _attr_expr(dotted: str) -> cst.Attribute | cst.Name:
    parts = dotted.split(".")
    node: cst.Attribute | cst.Name = cst.Name(parts[0])
    for p in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(p))
    return node


def rewrite(
    data: bytes,
    calls: Sequence[CallEdit] = (),
    imports: Sequence[ImportEdit] = (),
    dicts: Sequence[DictEdit] = (),
    name_renames: dict[str, str] | None = None,
    line_length: int | None = None,
) -> RewriteResult:
    """The file with the edits made: each edit's call, dict or import statement rewritten alone where that
    is provably the whole-module rewrite (`units`), else the whole module."""
    layout = None
    if line_length:
        text = data.decode("utf-8-sig", "replace")
        layout = Layout(line_length, file_style(text), tuple(text.splitlines()))
    renames = dict(name_renames or {})

    def unit(
        source: bytes, origin: tuple[int, int, int], root: tuple[int, int, int, int] | None
    ) -> tuple[bytes, _Rewriter] | str:
        return _visit(source, calls, imports, dicts, renames, layout, origin, root)

    done = rewrite_units(data, calls, imports, dicts, renames, unit)
    if done is not None:
        return RewriteResult(done.data, done.applied, list(done.failed))
    if imports:
        return _whole_module_for_imports(data, calls, imports, dicts, renames, layout)
    return _rewrite_module(data, calls, imports, dicts, renames, layout)


def _visit(
    data: bytes,
    calls: Sequence[CallEdit],
    imports: Sequence[ImportEdit],
    dicts: Sequence[DictEdit],
    name_renames: dict[str, str] | None,
    layout: Layout | None,
    origin: tuple[int, int, int] | None = None,
    root: tuple[int, int, int, int] | None = None,
) -> tuple[bytes, _Rewriter] | str:
    """The rewritten module and what the rewriter saw, or why libcst could not do it. `root`: the source is
    a unit whose only edit is the unit itself, at these positions (line, column, end line, end column): the
    rewriter needs no other position, and libcst's position pass is skipped (it costs twice the parse)."""
    try:
        module = cst.parse_module(data)
    except Exception as exc:  # noqa: BLE001 - libcst raises several error types
        return f"libcst could not parse it: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    node = _unit_node(module) if root is not None else None
    try:
        if root is not None and node is not None:
            place = CodeRange(CodePosition(root[0], root[1]), CodePosition(root[2], root[3]))
            tr = _Rewriter(calls, imports, dicts, dict(name_renames or {}), layout, origin, (node, place))
            new = module.visit(tr)
        else:
            tr = _Rewriter(calls, imports, dicts, dict(name_renames or {}), layout, origin)
            new = MetadataWrapper(module, unsafe_skip_copy=True).visit(tr)
    except Exception as exc:  # noqa: BLE001 - a rewrite never raises: its failure is a result
        return f"rewrite failed: {exc}"
    return new.bytes, tr


def _unit_node(module: cst.Module) -> cst.CSTNode | None:
    """The one expression or small statement of a unit's source (inside its `if 1:` when indented)."""
    stmt: cst.CSTNode | None = module.body[0] if len(module.body) == 1 else None
    if isinstance(stmt, cst.If) and isinstance(stmt.body, cst.IndentedBlock) and len(stmt.body.body) == 1:
        stmt = stmt.body.body[0]
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    return small.value if isinstance(small, cst.Expr) else small


def _rewrite_module(
    data: bytes,
    calls: Sequence[CallEdit],
    imports: Sequence[ImportEdit],
    dicts: Sequence[DictEdit],
    name_renames: dict[str, str] | None,
    layout: Layout | None = None,
) -> RewriteResult:
    part = _visit(data, calls, imports, dicts, name_renames, layout)
    if isinstance(part, str):
        return RewriteResult(None, 0, [part])
    out, tr = part
    missing = [c for c in calls if (c.lineno, c.col, c.end_lineno, c.end_col) not in tr.applied]
    failed = tr.failed + [f"line {c.lineno}: call not found where expected" for c in missing]
    failed += unplaced_imports(imports, tr.applied, failed)
    return RewriteResult(out if out != data else None, len(tr.applied), failed)


def _whole_module_for_imports(
    data: bytes,
    calls: Sequence[CallEdit],
    imports: Sequence[ImportEdit],
    dicts: Sequence[DictEdit],
    name_renames: dict[str, str] | None,
    layout: Layout | None = None,
) -> RewriteResult:
    """The whole-module rewrite of a file with an import edit its statement could not take alone (timed
    apart: BENCHOP_TIMINGS says which case each file was)."""
    return _rewrite_module(data, calls, imports, dicts, name_renames, layout)


class _Inserter(cst.CSTTransformer):
    """Insert statements before the statement holding a call; optionally re-point its `**splat`."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(
        self, call: tuple[int, int, int, int], statements: Sequence[str], new_splat: str | None
    ) -> None:
        self.call = call
        self.statements = [cst.parse_statement(s) for s in statements]
        self.new_splat = new_splat
        self.inserted = False
        self.call_found = False

    def _contains(self, node: cst.CSTNode) -> bool:
        r = self.get_metadata(PositionProvider, node)
        line, col = self.call[0], self.call[1]
        return (r.start.line, r.start.column) <= (line, col) and (line, col) < (r.end.line, r.end.column)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        r = self.get_metadata(PositionProvider, original)
        if (r.start.line, r.start.column, r.end.line, r.end.column) != self.call:
            return updated
        self.call_found = True
        if self.new_splat is None:
            return updated
        args = [a.with_changes(value=cst.Name(self.new_splat)) if a.star == "**" else a for a in updated.args]
        return updated.with_changes(args=args)

    def _insert(
        self, original_body: Sequence[cst.CSTNode], updated_body: Sequence[cst.CSTNode]
    ) -> list[cst.CSTNode] | None:
        if self.inserted:
            return None
        for i, stmt in enumerate(original_body):
            if self._contains(stmt):
                self.inserted = True
                return [*updated_body[:i], *self.statements, *updated_body[i:]]
        return None

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.BaseSuite:
        body = self._insert(original.body, updated.body)
        return updated.with_changes(body=body) if body is not None else updated

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        body = self._insert(original.body, updated.body)
        return updated.with_changes(body=body) if body is not None else updated


def insert_before_call(
    data: bytes, call: tuple[int, int, int, int], statements: Sequence[str], new_splat: str | None = None
) -> RewriteResult:
    try:
        module = cst.parse_module(data)
        tr = _Inserter(call, statements, new_splat)
        new = MetadataWrapper(module, unsafe_skip_copy=True).visit(tr)
    except Exception as exc:  # noqa: BLE001 - a rewrite never raises: its failure is a result
        return RewriteResult(None, 0, [f"could not edit it: {exc}"])
    if not (tr.inserted and tr.call_found):
        return RewriteResult(None, 0, ["the call is not inside a statement bench-op can add lines before"])
    return RewriteResult(new.bytes, 1, [])
