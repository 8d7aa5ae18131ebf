"""analysis/trees.py: one parse per distinct source, and always ast.parse's own answer (tree or error)."""

from __future__ import annotations

import ast
import re

import pytest

from benchop_hook.analysis import trees


def test_a_source_is_parsed_once() -> None:
    data = b"class A:\n    def __init__(self, m, n):\n        pass\n"
    first = trees.parse(data, filename="a.py")
    assert trees.parse(bytes(bytearray(data)), filename="b.py") is first  # equal bytes, another object
    assert ast.dump(first, include_attributes=True) == ast.dump(ast.parse(data), include_attributes=True)


def test_an_error_is_ast_parse_s_own_and_never_kept() -> None:
    data = b"x = (\n"
    for _ in range(2):
        with pytest.raises(SyntaxError) as got:
            trees.parse(data, filename="bad.py")
        with pytest.raises(SyntaxError) as want:
            ast.parse(data, filename="bad.py")
        assert (got.value.msg, got.value.lineno, got.value.filename) == (
            want.value.msg,
            want.value.lineno,
            want.value.filename,
        )


@pytest.mark.parametrize(
    "text",
    [
        "x = 'café'\n",  # read as UTF-8 either way: the bytes' tree
        "# -*- coding: latin-1 -*-\nx = 'café'\n",  # the bytes would read as Latin-1: parsed as text
        "\ufeffx = 1\n",  # a byte order mark is an error in a text, not in bytes
    ],
)
def test_a_text_gets_the_tree_its_own_parse_would(text: str) -> None:
    try:
        want = ast.dump(ast.parse(text), include_attributes=True)
    except SyntaxError as exc:
        with pytest.raises(SyntaxError, match=re.escape(exc.msg)):
            trees.parse_text(text)
        return
    assert ast.dump(trees.parse_text(text), include_attributes=True) == want
