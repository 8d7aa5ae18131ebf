"""The libcst rewrite (rewrite/edit.py): no edit is no change; BOM, CRLF, tabs, other encodings and comments
survive; the right splatted dict is edited. Each edit's unit alone against the whole module: test_units.py."""

from __future__ import annotations

import ast

import pytest

from benchop_hook.rewrite.edit import CallEdit, rewrite
from tests.helpers.changes import reduction_change, stage_reduction_change
from tests.helpers.repo import Repo


def test_a_dropped_argument() -> None:
    from benchop_hook.fixing.plan import ArgOp

    edit = [CallEdit(1, 4, 1, 19, (ArgOp("drop", 0),))]
    assert rewrite(b"x = Op(M, N, dtype)\n", edit).data == b"x = Op(N, dtype)\n"


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


def test_an_import_whose_names_all_moved_to_one_module_follows_them() -> None:
    # Modules merged into one (`workloads.reduce` into `workloads.reduction`): the statement moves whole.
    from benchop_hook.fixing.plan import ImportEdit

    src = (
        b"from workloads.reduce import (\n    MeanTest,\n    SumTest,\n)\nfrom workloads.reduce import Kept\n"
    )
    moves = [ImportEdit("workloads.reduce", n, "workloads.reduction", n) for n in ("MeanTest", "SumTest")]
    res = rewrite(src, imports=moves)
    assert res.failed == []
    assert res.data == src.replace(b"from workloads.reduce import (", b"from workloads.reduction import (")


def test_an_import_whose_names_went_different_ways_is_left_with_the_reason() -> None:
    from benchop_hook.fixing.plan import ImportEdit

    src = b"from workloads.reduce import MeanTest, SumTest\n"
    res = rewrite(src, imports=[ImportEdit("workloads.reduce", "SumTest", "workloads.reduction", "SumTest")])
    assert res.data is None
    assert res.failed == [
        "`from workloads.reduce import ...` also imports names that did not move to workloads.reduction: "
        "split that import by hand"
    ]


def test_an_argument_dropped_at_the_end_of_its_line_keeps_the_line_break() -> None:
    # TileOPs 82535c3d: `dtype=DTYPE,` ended a line of a multi-line dict(...); the next keyword stays on its
    # own line, as the engineers' later edit has it.
    from benchop_hook.fixing.plan import ArgOp

    src = b"kwargs = dict(\n    a=1, b=2, dtype=DTYPE,\n    activation=ACT,\n)\n"
    call = ast.parse(src).body[0].value  # type: ignore[attr-defined]
    res = rewrite(src, [CallEdit(1, 9, call.end_lineno, call.end_col_offset, (ArgOp("drop", 2),))])
    assert res.data == b"kwargs = dict(\n    a=1, b=2,\n    activation=ACT,\n)\n"
