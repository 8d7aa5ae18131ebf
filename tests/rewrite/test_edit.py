"""The libcst rewrite (rewrite/edit.py): statement by statement it is the whole-module rewrite, byte for byte;
no edit is no change; BOM, CRLF, tabs, other encodings and comments survive; the right splatted dict is
edited."""

from __future__ import annotations

import ast

import pytest

from benchop_hook.rewrite.edit import CallEdit, rewrite
from tests.helpers.changes import reduction_change, stage_reduction_change
from tests.helpers.repo import Repo

# -- rewriting statement by statement gives the whole-module rewrite, byte for byte and message for message

REWRITE_SRC = '''\ufeff"""A benchmark module.
class NotAClass(Op):
    these lines are in a docstring at column 0
"""
import pytest

from lib import Op, make  # comment


@pytest.mark.parametrize("m, n", [(1, 2), (3, make(4, 5))])
@pytest.mark.parametrize(
    "dtype",
    [Op(1, 2)],
)
def test_a(m, n, dtype):
    op = Op(m, n, dtype)  # keep
    other = Op(
        m,
        n,  # the n
        dtype,
    )
    x = 1; y = Op(m,
                  n)
    def inner():
        return make(Op(1, 2, 3), key=Op(4))
    return op, other, inner, {"m": m, "n": n}


class Bench:
  """Two-space indentation here."""

  def run(self, very_long_argument_name_one, very_long_argument_name_two, dtype):
    return Op(very_long_argument_name_one, very_long_argument_name_two, dtype, tune=True)

  def grow(self, alpha, beta):
    if alpha:
      g = Grow(alpha, beta)
      return g, Grow(alpha)

a = 1; b = Op(1,
              2)
PARAMS = {"m": 1, "n": 2, "dtype": None}
Op(**PARAMS)
'''


def _edits_for(src: bytes):
    import ast

    from benchop_hook.fixing.plan import ArgOp
    from benchop_hook.rewrite.edit import CallEdit, DictEdit

    tree = ast.parse(src)
    lines = src.decode("utf-8-sig").splitlines()
    calls, dicts = [], []
    for node in ast.walk(tree):
        col = len(lines[node.lineno - 1][: node.col_offset]) if hasattr(node, "col_offset") else 0
        if isinstance(node, ast.Call) and node.end_lineno is not None and node.end_col_offset is not None:
            n = len(node.args) + len(node.keywords)
            ops = [ArgOp("drop", 0)] if n else [ArgOp("add_kw", None, "k", "1")]
            if (
                isinstance(node.func, ast.Name) and node.func.id == "Grow"
            ):  # grows past the line length: wrapped
                ops = [ArgOp("add_kw", None, "gamma_parameter", "some_rather_long_value_expression")]
            if len(node.args) > 2 and not node.keywords:
                ops.append(ArgOp("to_kw", len(node.args) - 1, "last"))
            calls.append(CallEdit(node.lineno, col, node.end_lineno, node.end_col_offset, tuple(ops)))
        elif isinstance(node, ast.Dict) and node.keys and isinstance(node.keys[0], ast.Constant):
            dicts.append(
                DictEdit(
                    node.lineno,
                    col,
                    (ArgOp("drop", None, node.keys[0].value), ArgOp("add_kw", None, "z", "0")),
                )
            )
    # One the rewriter can't find (a column off), and one whose dropped argument carries a comment.
    c0 = calls[0]
    calls.append(CallEdit(c0.lineno, c0.col + 1, c0.end_lineno, c0.end_col, c0.ops))
    return calls, dicts


def test_rewrite_by_statement_is_the_whole_module_rewrite():
    import random

    from benchop_hook.rewrite import edit as rw

    rng = random.Random(7)
    for variant in range(3):
        src = REWRITE_SRC if variant != 1 else REWRITE_SRC.lstrip("\ufeff")
        if variant == 2:
            src = src.replace(
                "    op = Op(m, n, dtype)  # keep\n", "    op = Op(  # the op\n        m, n, dtype)\n"
            )
        data = src.encode()
        calls, dicts = _edits_for(data)
        for trial in range(12):
            cs = [c for c in calls if rng.random() < 0.4]
            ds = [d for d in dicts if rng.random() < 0.5]
            if not cs and not ds:
                continue
            for line_length in (None, 40, 88):
                text = data.decode("utf-8-sig")
                layout = (
                    rw.Layout(line_length, rw.file_style(text), tuple(text.splitlines()))
                    if line_length
                    else None
                )
                whole = rw._rewrite_module(data, cs, (), ds, None, layout)
                alone = rw._rewrite_by_statement(data, cs, ds, layout)
                if alone is None:  # only where libcst fails: the whole module's message is the answer
                    assert any(f.startswith(("rewrite failed", "libcst could not")) for f in whole.failed)
                    continue
                assert (alone.data, alone.applied, alone.failed) == (
                    whole.data,
                    whole.applied,
                    whole.failed,
                ), (variant, trial, line_length)
                assert rw.rewrite(data, cs, (), ds, line_length=line_length).data == whole.data


def test_rewrite_by_statement_leaves_what_could_differ_to_the_whole_module():
    from benchop_hook.fixing.plan import ArgOp
    from benchop_hook.rewrite import edit as rw

    edit = [rw.CallEdit(1, 4, 1, 19, (ArgOp("drop", 0),))]
    assert (
        rw._rewrite_by_statement(b"x = Op(M, N, dtype)\r\ny = 2\r\n", edit, [], None) is None
    )  # libcst's newline
    assert (
        rw._rewrite_by_statement(
            b"# -*- coding: latin-1 -*-\nx = Op(M, N, dtype)\n",
            [rw.CallEdit(2, 4, 2, 19, (ArgOp("drop", 0),))],
            [],
            None,
        )
        is None
    )
    assert (
        rw._rewrite_by_statement(b"x = Op(M, N, dtype)\n", [rw.CallEdit(5, 0, 5, 3, ())], [], None) is None
    )  # no statement there
    assert rw.rewrite(b"x = Op(M, N, dtype)\n", edit).data == b"x = Op(N, dtype)\n"


@pytest.mark.parametrize("src", ["x = 1\n", "Op(M, N)\n"])
def test_rewrite_without_edits_is_identity(src):
    assert rewrite(src.encode()).data is None


def test_rewrite_keeps_crlf_and_bom():
    src = "\ufeffx = Op(M, N, dtype)\r\ny = 2\r\n".encode("utf-8")
    call = ast.parse(src).body[0].value  # type: ignore[attr-defined]
    from benchop_hook.fixing.plan import ArgOp

    res = rewrite(src, [CallEdit(1, 4, 1, call.end_col_offset, (ArgOp("drop", 0),))])
    assert res.data == "\ufeffx = Op(N, dtype)\r\ny = 2\r\n".encode("utf-8")


@pytest.mark.parametrize("kind", ["bom", "crlf", "tabs", "latin1"])
def test_encodings_and_line_endings_survive_a_rewrite(repo: Repo, kind: str) -> None:
    src = (
        "import torch\nfrom minitile.ops import SumFwdOp\n\n\ndef test_x():\n"
        "    op = SumFwdOp(4, 8, torch.float32)  # note\n"
    )
    if kind == "tabs":
        src = src.replace("    op", "\top")
    data = src.encode()
    if kind == "bom":
        data = b"\xef\xbb\xbf" + data
    elif kind == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif kind == "latin1":
        data = ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + src).encode("latin-1")
    (repo.path / "benchmarks/ops/bench_enc.py").write_bytes(data)
    repo.git("config", "core.autocrlf", "false")
    repo.commit("encoded bench")
    stage_reduction_change(repo)
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    expected = data.replace(b"SumFwdOp(4, 8, torch.float32)", b"SumFwdOp(8, torch.float32)")
    assert (repo.path / "benchmarks/ops/bench_enc.py").read_bytes() == expected


def test_the_splatted_dict_of_the_right_call_is_edited(repo: Repo) -> None:
    repo.write(
        "benchmarks/ops/bench_dicts.py",
        (
            "import torch\nfrom benchmarks.benchmark import time_ms\nfrom minitile.ops import SumFwdOp\n\n\n"
            "def test_two_calls_one_line():\n    x = torch.randn(64, 256)\n    timing = {'iters': 5}\n"
            "    cfg = {'M': 64, 'N': 256, 'dtype': torch.float32}\n    ms = time_ms(SumFwdOp(**cfg), x, "
            "**timing)\n"
        ),
    )
    repo.commit("dicts")
    repo.replace(
        "src/minitile/ops/reduction.py",
        "def __init__(self, M, N, dtype, tune=False):",
        "def __init__(self, M, N, dtype, tune=True):",
    )
    repo.git("add", "-A")
    repo.cli("fix")
    text = repo.read("benchmarks/ops/bench_dicts.py")
    assert "timing = {'iters': 5}\n" in text
    assert "cfg = {'M': 64, 'N': 256, 'dtype': torch.float32, 'tune': False}" in text


MULTI = """import torch
from minitile.ops import SumFwdOp


def test_multi():
    op = SumFwdOp(
        64,  # M: rows
        256,  # N: columns
        torch.float32,  # dtype
    )
"""


def test_comments_stay_with_their_arguments(repo: Repo) -> None:
    repo.write("benchmarks/ops/bench_multi.py", MULTI)
    repo.commit("multi-line")
    reduction_change(repo)
    repo.git("add", "-A")
    repo.cli("fix")
    assert repo.read("benchmarks/ops/bench_multi.py") == MULTI.replace("        64,  # M: rows\n", "")
