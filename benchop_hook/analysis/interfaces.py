"""Did a commit change the constructor of a class benchmarks may build, outside the op files?

Workloads, test helpers and benchmark bases change alongside the Ops (`SoftmaxTest(m, n, dtype)`
becomes `SoftmaxTest(n, dtype)`). With `interface-paths` defaulting to every Python file outside
`benchmark-paths`, almost any commit touches one, so this check is on the no-op path: stdlib
`ast` over the two versions of each touched file, and nothing else. Pure: bytes in, answer out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Literal


def constructors(data: bytes | None) -> dict[str, str] | None:
    """Top-level class name -> what decides how it is called (bases, decorators, `__init__` arguments,
    class-level annotated fields); None when the file can't be parsed (then it counts as changed)."""
    if data is None:
        return {}
    if b"class " not in data:
        return {}
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    return _classes(tree.body)


def _classes(body: list[ast.stmt]) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in body:
        if not isinstance(node, ast.ClassDef):
            continue
        parts = [ast.dump(b) for b in node.bases] + [ast.dump(d) for d in node.decorator_list]
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in (
                "__init__",
                "__new__",
            ):
                parts.append(item.name + ast.dump(item.args))
            elif isinstance(item, ast.AnnAssign):  # dataclass-style fields
                parts.append(ast.dump(item))
        out[node.name] = "\n".join(parts)
    return out


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _plain(data: bytes) -> bool:
    """Source whose lines mean the same wherever they are cut out: UTF-8 without a BOM or an encoding
    declaration (a cut-out would read its own), no backslash line continuation (a statement could begin
    on the line before its first token), no `barry_as_FLUFL` (it changes the grammar of what follows)."""
    head = b"\n".join(data.split(b"\n", 2)[:2])
    return (
        not data.startswith(b"\xef\xbb\xbf")
        and b"coding" not in head
        and b"\\\n" not in data
        and b"\\\r" not in data
        and b"barry_as_FLUFL" not in data
    )


def constructors_after_edit(old_tree: ast.Module, old: bytes, new: bytes) -> dict[str, str] | None:
    """`constructors(new)` from the parsed old version: the old top-level statements found unchanged in
    the new text are reused, only the new lines between them are parsed. None when that can't be done
    soundly; then the caller parses `new` whole.

    Why the result is the whole parse's: Python's tokenizer is at the top level (outside any bracket,
    string or block, indentation 0) at the first line of a module. Cut the new text at line boundaries
    into old chunks (a top-level statement with the comment and blank lines before it, exactly as in the
    old version, where it parsed from the top level) and new pieces that each parse on their own as
    complete statements. After either the tokenizer is back at the top level: a chunk ends a complete
    statement and what follows starts on a new line; whatever follows a compound statement starts at
    column 0 (a chunk's first statement) or is a piece, and a piece that starts indented does not parse
    on its own. So each part reads the same inside the module as alone, and the module is their
    statements in order."""
    if not (_plain(old) and _plain(new)):
        return None
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    chunks = _chunks(old_tree.body)
    if chunks and chunks[-1][1] > len(a):
        return None
    where: dict[bytes, list[int]] = {}
    for i, line in enumerate(b):
        where.setdefault(line, []).append(i)
    out: list[ast.stmt] = []
    pos = 0
    k = 0
    while k < len(chunks):
        lo, hi, stmts = chunks[k]
        if b[pos : pos + hi - lo] == a[lo:hi]:
            out.extend(stmts)
            pos += hi - lo
            k += 1
            continue
        # The next old chunk found further on in the new text: the lines up to it are new.
        found: tuple[int, int] | None = None
        for k2 in range(k, len(chunks)):
            lo2, hi2, _ = chunks[k2]
            q = next(
                (q for q in where.get(a[lo2], []) if q >= pos and b[q : q + hi2 - lo2] == a[lo2:hi2]), None
            )
            if q is not None:
                found = (k2, q)
                break
        q = found[1] if found is not None else len(b)
        piece = _parse_piece(b[pos:q])
        if piece is None:
            return None
        out.extend(piece)
        pos = q
        k = found[0] if found is not None else len(chunks)
    if pos < len(b):
        # Lines after the last old statement: the old ones (comments, blank) and any appended.
        piece = _parse_piece(b[pos:])
        if piece is None:
            return None
        out.extend(piece)
    return _classes(out)


def _chunks(body: list[ast.stmt]) -> list[tuple[int, int, list[ast.stmt]]]:
    """Old lines [lo, hi) (0-based) of each top-level statement with the lines before it; its statements."""
    chunks: list[tuple[int, int, list[ast.stmt]]] = []
    lo, group = 0, []
    for k, st in enumerate(body):
        group.append(st)
        end = st.end_lineno or st.lineno
        if k + 1 < len(body) and _first_line(body[k + 1]) <= end:
            continue  # statements sharing a line (`a = 1; b = 2`) go together
        chunks.append((lo, end, group))
        lo, group = end, []
    return chunks


def _parse_piece(lines: list[bytes]) -> list[ast.stmt] | None:
    text = b"".join(lines)
    if b"__future__" in text:
        return None  # a future import is one only at the top of a module
    try:
        return ast.parse(text).body
    except (SyntaxError, ValueError):
        return None


# `class` at the start of a line, and the name after it (up to a bracket, a colon or a space). Searched in
# the text with a newline put in front (`at_line_starts`): `^` under re.M, but with a literal to skip to,
# which makes the search some ten times faster.
_CLASS_LINE = re.compile(rb"\nclass[ \t]+([^\s(:\[]+)")


def at_line_starts(pattern: re.Pattern[bytes], data: bytes) -> list[bytes]:
    """`pattern`, which begins with a newline, matched at the start of every line of `data`, the first
    included."""
    return pattern.findall(b"\n" + data)


def top_level_class_names(data: bytes) -> frozenset[bytes] | None:
    """The name after `class` on every line that starts with it: each top-level class's (a top-level
    statement starts at column 0 and a class statement can't follow another on its line; every source
    encoding Python reads keeps ASCII as it is), and maybe a few more (a line inside a string). None when
    the text may hide one: a form feed (a line can start at column 0 after one), a name cut by a backslash
    continuation, or one that isn't ASCII (its bytes depend on the file's encoding)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\f" in data:
        return None
    names = frozenset(at_line_starts(_CLASS_LINE, data))
    if any(b"\\" in n or not n.isascii() for n in names):
        return None
    return names


def left_unparsed(
    old: bytes, new: bytes, in_benchmarks: Callable[[bytes], bool], in_op_files: Callable[[bytes], bool]
) -> Literal["op files", "nowhere"] | None:
    """Whether an edited file can be left unparsed, from its top-level class names, which must be the same
    on both sides (no class appears or disappears to pair as a rename): None when a benchmark file names one
    of them (parse it); "op files" when only op files do (it matters only if an Op inherits from one of
    them); "nowhere" when nothing does."""
    a = top_level_class_names(old)
    if a is None or a != top_level_class_names(new) or any(in_benchmarks(n) for n in a):
        return None
    return "op files" if any(in_op_files(n) for n in a) else "nowhere"


def constructor_changed(old: bytes | None, new: bytes | None) -> bool:
    """A class was removed, or one that exists on both sides is called differently now."""
    if old == new:
        return False
    if old is None or new is None or b"class " not in old or b"class " not in new:
        a, b = constructors(old), constructors(new)
    else:
        try:
            old_tree: ast.Module | None = ast.parse(old)
        except (SyntaxError, ValueError):
            old_tree = None
        if old_tree is None:
            return True
        a = _classes(old_tree.body)
        b = constructors_after_edit(old_tree, old, new)
        del old_tree  # (the trees are not kept: a large commit checks a hundred files)
        if b is None:
            b = constructors(new)
    if a is None or b is None:
        return True
    return any(name not in b or b[name] != sig for name, sig in a.items())
