"""A rewritten call that no longer fits is wrapped within the project's line length."""

from __future__ import annotations

import ast
from pathlib import Path

from benchop_hook.rewrite.wrap import file_style, project_line_length, wrap_call
from tests.helpers.repo import Repo

GEMM = "src/minitile/ops/gemm.py"


BENCH_GEMM = "benchmarks/ops/bench_gemm.py"


def test_fix_wraps_a_call_that_no_longer_fits_the_ruff_line_length(repo: Repo) -> None:
    repo.write("pyproject.toml", repo.read("pyproject.toml") + "\n[tool.ruff]\nline-length = 40\n")
    repo.commit("ruff: 40 columns")
    repo.replace(
        GEMM,
        "def __init__(self, M, N, K, dtype, trans_b=False):",
        "def __init__(self, M, N, K, *, dtype, trans_b=False):",
    )
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    text = repo.read(BENCH_GEMM)
    assert "    op = ops.GemmOp(\n        M, N, K, dtype=DTYPE\n    )\n" in text, text
    ast.parse(text)
    # the lines bench-op did not touch keep their layout, long or not
    assert '    report(record_property, "gemm", ms, flops=2 * M * N * K,' in text
    again = repo.cli("check")
    assert again.returncode == 0, again.stdout


def test_line_length_comes_from_ruff_then_black_else_88(tmp_path: Path) -> None:
    assert project_line_length(str(tmp_path)) == 88
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 120\n")
    assert project_line_length(str(tmp_path)) == 120
    (tmp_path / "pyproject.toml").write_text(
        "[tool.black]\nline-length = 120\n[tool.ruff]\nline-length = 100\n"
    )
    assert project_line_length(str(tmp_path)) == 100
    (tmp_path / "ruff.toml").write_text("line-length = 79\n")
    assert project_line_length(str(tmp_path)) == 79


def test_wrapped_the_way_the_file_wraps() -> None:
    args = ["batch", "heads", "dim", "dtype=torch.float16", "causal=True"]
    visual = "x = f(a,\n      b)\n"
    assert file_style(visual) == "visual" and file_style("x = f(\n    a,\n)\n") == "hanging"
    text = wrap_call(
        "AttentionOp", args, column=9, suffix="", limit=50, style="visual", line_indent="    ", block=4
    )
    pad = "\n" + " " * 17  # under the parenthesis at column 21, less the block's 4 that libcst adds
    assert text == f"AttentionOp(batch, heads, dim,{pad}dtype=torch.float16,{pad}causal=True)"
    text = wrap_call(
        "AttentionOp", args, column=9, suffix="", limit=50, style="hanging", line_indent="    ", block=4
    )
    assert (
        text
        == "AttentionOp(\n    batch,\n    heads,\n    dim,\n    dtype=torch.float16,\n    causal=True,\n)"
    )
    assert (
        wrap_call("Op", ["a"], column=4, suffix="", limit=88, style="hanging", line_indent="", block=0)
        is None
    )


def test_arguments_appended_past_the_line_length_go_on_a_line_of_their_own() -> None:
    # pyg f4622e59: a pin appended to a call wrapped under its parenthesis made its last line 93 columns
    # of 88. The new argument goes on a line of its own, indented as the call's other continuation line.
    from benchop_hook.fixing.plan import ArgOp
    from benchop_hook.rewrite.edit import CallEdit, rewrite

    head = "class Net:\n    def __init__(self):\n        self.conv = ARMAConv(features, 16, stacks=3,\n"
    src = head + "                             layers=2, shared=True, dropout=0.25)\n"
    call = ast.parse(src).body[0].body[0].body[0].value  # type: ignore[attr-defined]
    where = (call.lineno, call.col_offset, call.end_lineno, call.end_col_offset)
    pin = ArgOp("add_kw", None, "act", "F.relu")
    res = rewrite(src.encode(), [CallEdit(*where, (pin,))], line_length=72)
    assert res.data.decode() == (
        head + "                             layers=2, shared=True, dropout=0.25,\n"
        "                             act=F.relu)\n"
    )
    # Within the limit, it stays where the other arguments are.
    res = rewrite(src.encode(), [CallEdit(*where, (pin,))], line_length=120)
    assert (
        res.data.decode()
        == head + "                             layers=2, shared=True, dropout=0.25, act=F.relu)\n"
    )
