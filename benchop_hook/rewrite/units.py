"""Rewrite only what changes: each edit's smallest unit parsed by libcst alone, transformed, spliced back.

A call edit's unit is the call expression, a dict edit's the dict literal, an import edit's the
`from ... import` statement (an import edit renames in place: it never adds or moves lines); edits nested
in one another share the outermost unit. A renamed Op's name outside every unit is a unit of its own whose
code is its identifier, so it is replaced in the bytes exactly as libcst would print it.

Each unit's exact source span is parsed inside a one-statement `if 1:` block indented as the block that
holds it in the file: libcst then reads and prints the unit's continuation lines, and indents a wrapped
call's, exactly as it does in the whole module; the rewriter is told where the unit sits in the file, so
its positions, messages and wrapping rules see the file's own lines. The result is the whole-module
rewrite's, byte for byte and message for message. Whatever could make it differ goes to the whole-module
rewrite (None): a line end other than \\n, an encoding other than UTF-8, an edit that is not exactly at an
ast node, a unit libcst can't parse or rewrite alone, a renamed name where libcst would rename an
identifier that ast does not keep as a `Name` (the head of a dotted module name, `global`, `except ... as`,
match patterns, type parameters) or inside an f-string outside a unit, and a block indented with a form
feed.

Why: libcst parses a module with position metadata at about 0.1 s per 10 KB and the rewrite prints it all
again; a call is a few hundred bytes.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import io
import re
import tokenize
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from benchop_hook.analysis import trees
from benchop_hook.fixing.plan import CallEdit, DictEdit, ImportEdit

_BOM = b"\xef\xbb\xbf"
# ast fields holding an identifier that libcst keeps as a `Name` the rewrite never renames (a definition's
# name, a parameter, a keyword, an attribute, an alias). Any other identifier field (but a `Name`'s) equal
# to a renamed name sends the file to the whole-module rewrite.
_NEVER_RENAMED = {
    ("FunctionDef", "name"),
    ("AsyncFunctionDef", "name"),
    ("ClassDef", "name"),
    ("arg", "arg"),
    ("keyword", "arg"),
    ("Attribute", "attr"),
    ("alias", "asname"),
}

Pos = tuple[int, int]  # ast's (line, byte column)


@dataclass
class RewriteResult:
    """What `rewrite.edit.rewrite` made: the new bytes (None: no change), and what it could not do. Here,
    away from libcst, so that a process that only receives one (from the rewriter child) never imports it."""

    data: bytes | None
    applied: int = 0
    failed: list[str] = dataclasses.field(default_factory=list)


class Seen(Protocol):
    """What the libcst rewriter reports for one unit."""

    failed: list[str]
    applied: set[object]
    seen: set[object]


# (source, origin, root) -> the rewritten source and what the rewriter saw, or why libcst could not do it.
# The origin places the source's line `origin[0]` at the file's line `origin[1]`, its columns on that line
# shifted by `origin[2]` characters. `root`: the unit's own position in the source (line, column, end line,
# end column) when its only edit is the unit itself; None when edits nest in it.
Visit = Callable[
    [bytes, tuple[int, int, int], "tuple[int, int, int, int] | None"], "tuple[bytes, Seen] | str"
]


@dataclass(frozen=True)
class Units:
    """The whole-module rewrite's answer, made from the units."""

    data: bytes | None
    applied: int
    failed: tuple[str, ...]


@dataclass(frozen=True)
class Span:
    """A unit in the file: its ast start and end, and the first line of the statement holding it (whose
    indentation is the enclosing block's)."""

    start: Pos
    end: Pos
    statement_line: int
    kind: Literal["expression", "import"]
    alone: bool = True  # no other edit nests in it


@dataclass(frozen=True)
class _Name:
    start: Pos
    end: Pos
    new: bytes
    alone: bool  # False: ast's position is not to be trusted here (an f-string), or it spells it otherwise


@dataclass(frozen=True)
class _Source:
    data: bytes
    lines: tuple[bytes, ...]  # ast's lines, split at \n only
    starts: tuple[int, ...]  # where each line starts in `data`

    @staticmethod
    def of(data: bytes) -> _Source:
        at = 3 if data.startswith(_BOM) else 0
        lines = data[at:].split(b"\n")
        starts = []
        for line in lines:
            starts.append(at)
            at += len(line) + 1
        return _Source(data, tuple(lines), tuple(starts))

    def byte(self, p: Pos) -> int:
        return self.starts[p[0] - 1] + p[1]

    def char_col(self, p: Pos) -> int:
        return len(self.lines[p[0] - 1][: p[1]].decode("utf-8"))

    def byte_col(self, line: int, char_col: int) -> int:
        return len(self.lines[line - 1].decode("utf-8")[:char_col].encode("utf-8"))

    def indent(self, line: int) -> bytes | None:
        text = self.lines[line - 1]
        ws = text[: len(text) - len(text.lstrip(b" \t\f"))]
        return None if b"\f" in ws else ws


def rewrite_units(
    data: bytes,
    calls: Sequence[CallEdit],
    imports: Sequence[ImportEdit],
    dicts: Sequence[DictEdit],
    renames: Mapping[str, str],
    visit: Visit,
) -> Units | None:
    """The whole-module rewrite's result, from the edits' units alone; None: rewrite the whole module."""
    if b"\r" in data or not _utf8(data):
        return None
    try:
        tree = trees.parse(data)
    except (SyntaxError, ValueError):
        return None
    src = _Source.of(data)
    found = _find(tree, src, calls, dicts, imports, renames)
    if found is None:
        return None
    spans, names = found
    units = _outermost(spans)
    pieces: list[tuple[int, int, bytes]] = []
    failed: list[str] = []
    applied: set[object] = set()
    seen: set[object] = set()
    for span in units:
        part = (_import_statement if span.kind == "import" else _expression)(src, span, visit)
        if part is None:
            return None
        text, tr = part
        failed += tr.failed
        applied |= tr.applied
        seen |= tr.seen
        pieces.append((src.byte(span.start), src.byte(span.end), text))
    if any(_key(c) not in seen for c in calls) or any(
        ("dict", d.lineno, d.col) not in applied for d in dicts
    ):
        return None  # an edit no unit placed: the whole module says what became of it
    for name in names:
        if not any(_within(name.start, name.end, u) for u in units):
            if not name.alone:
                return None
            pieces.append((src.byte(name.start), src.byte(name.end), name.new))
    failed += [f"line {c.lineno}: call not found where expected" for c in calls if _key(c) not in applied]
    failed += unplaced_imports(imports, applied, failed)
    out = _splice(data, pieces)
    return Units(out if out != data else None, len(applied), tuple(failed))


def unplaced_imports(imports: Sequence[ImportEdit], applied: set[object], failed: Sequence[str]) -> list[str]:
    """An import edit the rewrite did not make: the file would keep importing a name its module no longer
    gives while its calls are fixed (half of the edit), so the file is not written. A statement already
    refused (names that did not all move) says so itself."""
    return [
        f"`from {e.old_module} import {e.old_name}` is not written that way here (a relative import, or "
        "the module spelled another way): edit that import by hand"
        for e in imports
        if ("import", e.old_module, e.old_name) not in applied
        and not any(f.startswith(f"`from {e.old_module} import") for f in failed)
    ]


def _utf8(data: bytes) -> bool:
    try:
        return tokenize.detect_encoding(io.BytesIO(data).readline)[0] in ("utf-8", "utf-8-sig")
    except SyntaxError:
        return False


def _key(c: CallEdit) -> tuple[int, int, int, int]:
    return (c.lineno, c.col, c.end_lineno, c.end_col)


def _find(
    tree: ast.Module,
    src: _Source,
    calls: Sequence[CallEdit],
    dicts: Sequence[DictEdit],
    imports: Sequence[ImportEdit],
    renames: Mapping[str, str],
) -> tuple[list[Span], list[_Name]] | None:
    """The units the edits are at, and every name the rewrite renames; None when a renamed name is where
    only the whole module can say what libcst makes of it."""
    if any(not (old.isascii() and old.isidentifier()) for old in renames):
        return None  # ast normalises identifiers (NFKC), libcst compares them as written
    want_calls = {
        (c.lineno, src.byte_col(c.lineno, c.col), c.end_lineno, src.byte_col(c.end_lineno, c.end_col))
        for c in calls
    }
    want_dicts = {(d.lineno, src.byte_col(d.lineno, d.col)) for d in dicts}
    old_modules = {e.old_module for e in imports}
    statements: list[tuple[Pos, Pos]] = []
    nodes: list[tuple[Pos, Pos, Literal["expression", "import"]]] = []
    names: list[_Name] = []
    in_fstrings: set[int] = set()
    for node in _on_lines(tree, _lines(src, calls, dicts, imports, renames)):
        if isinstance(node, ast.stmt):
            statements.append((_start(node), _end(node)))
        if isinstance(node, ast.Call):
            if (*_start(node), *_end(node)) in want_calls:
                nodes.append((_start(node), _end(node), "expression"))
        elif isinstance(node, ast.Dict):
            if _start(node) in want_dicts:
                nodes.append((_start(node), _end(node), "expression"))
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module in old_modules:
                nodes.append((_start(node), _end(node), "import"))
        elif isinstance(node, ast.Name):
            if node.id in renames:
                names.append(_name(node, src, renames, in_fstrings))
        elif renames and isinstance(node, ast.JoinedStr):
            in_fstrings.update(id(n) for n in ast.walk(node) if isinstance(n, ast.Name))
        if renames and not _only_names(node, renames):
            return None
    spans = []
    for start, end, kind in nodes:
        holders = [s for s in statements if s[0] <= start and end <= s[1]]
        if not holders:
            return None
        spans.append(Span(start, end, max(holders)[0][0], kind))
    return spans, names


def _lines(
    src: _Source,
    calls: Sequence[CallEdit],
    dicts: Sequence[DictEdit],
    imports: Sequence[ImportEdit],
    renames: Mapping[str, str],
) -> list[int]:
    """The lines the edits can be on: where each call and dict starts, each line with the word `from` (an
    import statement starts with it), and each line where a renamed name is written (an identifier is
    written within the lines of the node that holds it). Sorted."""
    out = {c.lineno for c in calls} | {d.lineno for d in dicts}
    words = [b"from"] if imports else []
    words += [old.encode() for old in renames]
    if words:
        word = re.compile(rb"(?<![A-Za-z0-9_])(?:" + b"|".join(map(re.escape, words)) + rb")(?![A-Za-z0-9_])")
        out.update(k for k, line in enumerate(src.lines, 1) if word.search(line))
    return sorted(out)


def _on_lines(tree: ast.Module, lines: list[int]) -> Iterator[ast.AST]:
    """Every node whose lines hold one of `lines`, a parent before its children; the rest of the tree is not
    walked. (A node without a position is walked through.)"""
    stack: list[ast.AST] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if hasattr(node, "lineno"):
            first, last = _start(node)[0], _end(node)[0] or _start(node)[0]
            k = bisect.bisect_left(lines, first)
            if k == len(lines) or lines[k] > last:
                continue
        yield node
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _name(node: ast.Name, src: _Source, renames: Mapping[str, str], in_fstrings: set[int]) -> _Name:
    # ast.walk reaches an f-string before the names inside it, so `in_fstrings` already holds them
    as_written = src.lines[node.lineno - 1][node.col_offset : node.end_col_offset]
    alone = id(node) not in in_fstrings and node.end_lineno == node.lineno and as_written == node.id.encode()
    return _Name(_start(node), _end(node), renames[node.id].encode(), alone)


def _start(node: ast.AST) -> Pos:
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        return (min(d.lineno for d in decorators), 0)
    return (node.lineno, node.col_offset)  # type: ignore[attr-defined]


def _end(node: ast.AST) -> Pos:
    return (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]


def _only_names(node: ast.AST, renames: Mapping[str, str]) -> bool:
    """No identifier of `node` other than an ast `Name`'s is one libcst's rewrite would rename."""
    kind = type(node).__name__
    if kind in ("Name", "Constant"):
        return True
    for field in node._fields:
        value = getattr(node, field, None)
        for v in value if isinstance(value, list) else (value,):
            if not isinstance(v, str):
                continue
            if kind == "ImportFrom" and field == "module":
                if v.split(".")[0] in renames:  # libcst's `Name` at the head of the module
                    return False
            elif kind == "alias" and field == "name":
                if "." in v and v.split(".")[0] in renames:  # `import a.b`: libcst's `Name` is `a`
                    return False
            elif v in renames and (kind, field) not in _NEVER_RENAMED:
                return False
    return True


def _outermost(spans: Iterable[Span]) -> list[Span]:
    """The units no other unit holds, in the file's order."""
    out: list[Span] = []
    for s in sorted(set(spans), key=lambda s: (s.start, -s.end[0], -s.end[1])):
        if out and _within(s.start, s.end, out[-1]):
            out[-1] = dataclasses.replace(out[-1], alone=False)
            continue
        out.append(s)
    return out


def _within(start: Pos, end: Pos, unit: Span) -> bool:
    return unit.start <= start and end <= unit.end


def _expression(src: _Source, span: Span, visit: Visit) -> tuple[bytes, Seen] | None:
    """A call or a dict literal alone (apart from `_import_statement` for BENCHOP_TIMINGS)."""
    return _rewrite_unit(src, span, visit)


def _import_statement(src: _Source, span: Span, visit: Visit) -> tuple[bytes, Seen] | None:
    """A `from ... import` statement alone."""
    return _rewrite_unit(src, span, visit)


def _rewrite_unit(src: _Source, span: Span, visit: Visit) -> tuple[bytes, Seen] | None:
    """The unit's new bytes, parsed by libcst inside a block indented as the one that holds it."""
    indent = src.indent(span.statement_line)
    if indent is None:
        return None
    text = src.data[src.byte(span.start) : src.byte(span.end)]
    head = b"if 1:\n" + indent if indent else b""
    first = 2 if indent else 1
    origin = (first, span.start[0], src.char_col(span.start) - len(indent))
    root = None
    if span.alone:
        last = text.rsplit(b"\n", 1)[-1].decode("utf-8")
        end_col = len(last) + (len(indent) if b"\n" not in text else 0)
        root = (first, len(indent), first + text.count(b"\n"), end_col)
    done = visit(head + text + b"\n", origin, root)
    if isinstance(done, str):
        return None
    out, tr = done
    if not (out.startswith(head) and out.endswith(b"\n")):
        return None
    return out[len(head) : -1], tr


def _splice(data: bytes, pieces: list[tuple[int, int, bytes]]) -> bytes:
    out: list[bytes] = []
    done = 0
    for a, b, text in sorted(pieces):
        out += [data[done:a], text]
        done = b
    out.append(data[done:])
    return b"".join(out)
