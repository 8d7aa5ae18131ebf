"""`ast.parse`, once per distinct source in a process.

A large commit's static pass reads the same text in several stages: an op file is parsed for its classes and
again for the comment and docstring lines of the rename votes, a benchmark file for its calls and again to
place its rewrites and to read its cases. A tree depends on the source alone (the file name only names it in
an error, and a failure is never kept) and the stages only read trees, so the first tree of a source is the
tree of every later parse of it. A forked child starts with the trees its parent had.
"""

from __future__ import annotations

import ast
import io
import tokenize

_BY_SOURCE: dict[bytes, ast.Module] = {}


def parse(data: bytes, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(data, filename=filename)`: the same tree, or the same error."""
    tree = _BY_SOURCE.get(data)
    if tree is None:
        tree = ast.parse(data, filename=filename)
        _BY_SOURCE[data] = tree
    return tree


def parse_text(text: str) -> ast.Module:
    """`ast.parse(text)`. Its tree is the tree of the text's UTF-8 bytes when those bytes read as UTF-8
    themselves (no byte order mark, no coding cookie naming another encoding); otherwise it is parsed on its
    own."""
    try:
        data = text.encode("utf-8")
        same = tokenize.detect_encoding(io.BytesIO(data).readline)[0] == "utf-8"
    except (UnicodeEncodeError, SyntaxError):
        same = False
    return parse(data) if same else ast.parse(text)
