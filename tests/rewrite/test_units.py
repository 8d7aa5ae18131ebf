"""Rewriting each edit's unit alone (rewrite/units.py) is the whole-module rewrite, byte for byte and message
for message; libcst is given the units only; whatever could differ goes to the whole module."""

from __future__ import annotations

import ast
import random

import pytest

from benchop_hook.fixing.plan import ArgOp, CallEdit, DictEdit, ImportEdit
from benchop_hook.rewrite import edit as rw
from benchop_hook.rewrite.units import rewrite_units

RICH = '''\ufeff"""A benchmark module.
class NotAClass(Op):
    these lines are in a docstring at column 0
"""
import pytest

from lib import Op, make  # comment
from lib.sub import (
    Grow,  # grows
    Other,
)


@pytest.mark.parametrize("m, n", [(1, 2), (3, make(4, 5))])
@pytest.mark.parametrize(
    "dtype",
    [Op(1, 2)],
)
def test_a(m, n, dtype, kind: Op = None) -> Op:
    """Uses Op."""
    from lib import Op as LocalOp, make
    op = Op(m, n, dtype)  # keep
    other = Op(
        m,
        n,  # the n
        dtype,
    )
    x = 1; y = Op(m,
                  n)
    def inner(Op=None):
        return make(Op(1, 2, 3), key=Op(4), Op=Op)
    label = f"{obj.Op}: {m}"
    lam = lambda Op: Op(1, 2)
    return op, other, inner, {"m": m, "n": n}, obj.Op(1, 2), isinstance(op, Op)


class Bench:
  """Two-space indentation here."""

  def run(self, very_long_argument_name_one, very_long_argument_name_two, dtype):
    return Op(very_long_argument_name_one, very_long_argument_name_two, dtype, tune=True)

  def grow(self, alpha, beta):
    if alpha:
      g = Grow(alpha, beta)
      return g, Grow(alpha)
    else: return make(Grow(alpha, beta, alpha), Op(alpha, beta, alpha))


class Tabbed:
\tdef go(self, a, b):
\t\tfor k in (1, 2):
\t\t\tyield Op(a, b, k, make(a, b, k), {"m": a, "n": b})


a = 1; b = Op(1,
              2)
PARAMS = {"m": 1, "n": 2, "dtype": None}
Op(**PARAMS)
ops = [Op, Grow, make]
'''

RENAMES = [{}, {"Op": "NewOp"}, {"make": "build", "Grow": "Grew"}, {"Op": "Op2", "Other": "Another"}]
IMPORTS = [
    (),
    (ImportEdit("lib", "Op", "lib", "NewOp"),),
    (ImportEdit("lib.sub", "Grow", "lib.sub", "Grew"), ImportEdit("lib", "make", "lib.build", "make")),
    (ImportEdit("lib", "make", "lib", "build"),),
]


def _edits(src: bytes) -> tuple[list[CallEdit], list[DictEdit]]:
    """A call edit at every call (a drop, or a keyword added; a long one added to `Grow`, to be wrapped; the
    last argument made a keyword) and a dict edit at every dict with a string key."""
    tree = ast.parse(src)
    lines = src.decode("utf-8-sig").split("\n")
    calls, dicts = [], []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Call, ast.Dict)):
            continue
        col = len(lines[node.lineno - 1].encode()[: node.col_offset].decode())
        end = len(lines[node.end_lineno - 1].encode()[: node.end_col_offset].decode())  # type: ignore[index]
        if isinstance(node, ast.Call):
            n = len(node.args) + len(node.keywords)
            ops = [ArgOp("drop", 0)] if n else [ArgOp("add_kw", None, "k", "1")]
            if isinstance(node.func, ast.Name) and node.func.id == "Grow":
                ops = [ArgOp("add_kw", None, "gamma_parameter", "some_rather_long_value_expression")]
            if len(node.args) > 2 and not node.keywords:
                ops.append(ArgOp("to_kw", len(node.args) - 1, "last"))
            calls.append(CallEdit(node.lineno, col, node.end_lineno or 0, end, tuple(ops)))
        elif node.keys and isinstance(node.keys[0], ast.Constant):
            key = node.keys[0].value
            dicts.append(
                DictEdit(node.lineno, col, (ArgOp("drop", None, key), ArgOp("add_kw", None, "z", "0")))
            )
    return calls, dicts


def _layout(data: bytes, line_length: int | None) -> rw.Layout | None:
    if not line_length:
        return None
    text = data.decode("utf-8-sig")
    return rw.Layout(line_length, rw.file_style(text), tuple(text.splitlines()))


def _units(data, calls, imports, dicts, renames, layout, sources=None):
    def visit(source: bytes, origin: tuple[int, int, int], root: tuple[int, int, int, int] | None):
        if sources is not None:
            sources.append(source)
        return rw._visit(source, calls, imports, dicts, renames, layout, origin, root)

    return rewrite_units(data, calls, imports, dicts, renames, visit)


def _variants() -> list[bytes]:
    return [
        RICH.encode(),
        RICH.lstrip("\ufeff").encode(),
        RICH.replace(
            "    op = Op(m, n, dtype)  # keep\n", "    op = Op(  # the op\n        m, n, dtype)\n"
        ).encode(),
        RICH.replace("x = 1; y", "x = 'é'; y").replace("# comment", "# commentaire é").encode(),
    ]


@pytest.mark.parametrize("variant", range(4))
def test_units_are_the_whole_module_rewrite(variant: int) -> None:
    data = _variants()[variant]
    calls, dicts = _edits(data)
    rng = random.Random(variant)
    for trial in range(12):
        cs = [c for c in calls if rng.random() < 0.35]
        ds = [d for d in dicts if rng.random() < 0.5]
        renames = RENAMES[trial % len(RENAMES)]
        imports = IMPORTS[(trial // 3) % len(IMPORTS)]
        layout = _layout(data, (None, 40, 88)[trial % 3])
        whole = rw._rewrite_module(data, cs, imports, ds, renames, layout)
        alone = _units(data, cs, imports, ds, renames, layout)
        assert alone is not None, (variant, trial)
        got = (alone.data, alone.applied, list(alone.failed))
        assert got == (whole.data, whole.applied, whole.failed), (variant, trial)
    res = rw.rewrite(data, cs, imports, ds, renames, line_length=40)
    assert (res.data, res.failed) == (
        rw._rewrite_module(data, cs, imports, ds, renames, _layout(data, 40)).data,
        [],
    )


def test_libcst_is_given_the_units_only() -> None:
    data = RICH.encode()
    calls, _ = _edits(data)
    # a call in an `if` of a method of a class indented by two: libcst parses it inside `if 1:` indented as
    # its block, and a wrapped call's lines get that block's indentation
    line = data.decode("utf-8-sig").split("\n").index("      g = Grow(alpha, beta)") + 1
    grow = [c for c in calls if c.lineno == line]
    sources: list[bytes] = []
    done = _units(data, grow, (), [], {}, _layout(data, 40), sources)
    assert sources == [b"if 1:\n      Grow(alpha, beta)\n"]
    assert (
        done is not None and done.data == rw._rewrite_module(data, grow, (), [], {}, _layout(data, 40)).data
    )
    assert done.data is not None and (
        b"      g = Grow(\n          alpha,\n          beta,\n"
        b"          gamma_parameter=some_rather_long_value_expression,\n      )\n" in done.data
    )
    # an import edit: the `from ... import` statement alone
    sources.clear()
    imports = (ImportEdit("lib.sub", "Grow", "lib.sub", "Grew"),)
    done = _units(data.replace(b"Grow(alpha", b"Other(alpha"), [], imports, [], {}, None, sources)
    assert done is not None and sources == [b"from lib.sub import (\n    Grow,  # grows\n    Other,\n)\n"]
    assert done.data == data.replace(b"Grow(alpha", b"Other(alpha").replace(b"    Grow,  #", b"    Grew,  #")


BODY = "from lib import Op\n\n\ndef test_x():\n    {stmt}\n    return Op(1, 2)\n"


@pytest.mark.parametrize(
    "stmt",
    [
        "global Op",  # libcst renames a `global`'s name; ast keeps it as a string
        "import Op.sub",  # the head of a dotted module name
        "label = f'{Op}'",  # ast's positions inside an f-string are not to be trusted before 3.12
    ],
)
def test_a_name_only_the_whole_module_can_place_goes_to_it(stmt: str) -> None:
    data = BODY.format(stmt=stmt).encode()
    renames = {"Op": "NewOp"}
    assert _units(data, [], (), [], renames, None) is None
    whole = rw._rewrite_module(data, [], (), [], renames, None)
    assert rw.rewrite(data, name_renames=renames).data == whole.data


@pytest.mark.parametrize(
    "data",
    [
        b"x = Op(M, N, dtype)\r\ny = 2\r\n",  # libcst's own newline
        b"# -*- coding: latin-1 -*-\nx = Op(M, N, dtype)\n",
        b"x = (Op\n     (M, N, dtype))\n",  # the line break is legal only inside the parentheses around it
    ],
)
def test_what_could_differ_goes_to_the_whole_module(data: bytes) -> None:
    tree = ast.parse(data.decode("latin-1"))
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call))
    edit = [
        CallEdit(
            call.lineno, call.col_offset, call.end_lineno or 0, call.end_col_offset or 0, (ArgOp("drop", 0),)
        )
    ]
    assert _units(data, edit, (), [], {}, None) is None
    whole = rw._rewrite_module(data, edit, (), [], None, None)
    assert whole.data is not None and rw.rewrite(data, edit).data == whole.data


def test_an_edit_at_no_call_goes_to_the_whole_module() -> None:
    data = b"x = Op(M, N, dtype)\n"
    edit = [CallEdit(1, 5, 1, 19, (ArgOp("drop", 0),))]
    assert _units(data, edit, (), [], {}, None) is None
    assert rw.rewrite(data, edit).failed == ["line 1: call not found where expected"]
