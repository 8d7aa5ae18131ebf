"""The order of evidence at run time: a value the commit's template gives is weighed against what the call's
own function holds (BO501), the first candidate is written, and the run tries the next one when the call
refuses it with a shape, type or value error; a candidate that gives numbers lands, and a call that refuses
every candidate blocks with all of them named."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchop_hook.run.runner import Failure
from benchop_hook.run.triage import refused_value
from tests.helpers.repo import Repo, run_json

OP = "src/minitile/ops/select.py"
OLD_OP = """\
import torch

from .op import Op


class SelectOp(Op):
    def __init__(self, n, dtype):
        self.n = n
        self.dtype = dtype

    def forward(self, cond, x, y):
        self.check(x, (self.n,), self.dtype)
        return torch.where(cond, x, y)
"""
# The Op takes the shape of its inputs now (a name no benchmark variable has), and checks that they have it.
NEW_OP = OLD_OP.replace(
    "    def __init__(self, n, dtype):\n        self.n = n\n",
    "    def __init__(self, in_shape, dtype):\n        self.shape = tuple(in_shape)\n",
).replace("self.check(x, (self.n,), self.dtype)", "self.check(x, self.shape, self.dtype)")

TEST = """\
import torch

from minitile.ops import SelectOp


def test_select():
    n = 8
    x = torch.randn(n)
    op = SelectOp(n=n, dtype=torch.float32)
    torch.testing.assert_close(op(x > 0, x, -x), x.abs())
"""

BENCH_HEAD = """\
import math

import pytest
import torch

from benchmarks.benchmark import report, time_ms
from minitile.ops import SelectOp


class SelectCase:
    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype

    def inputs(self):
        x = torch.randn(self.shape, dtype=self.dtype)
        return x > 0, x, torch.zeros_like(x)

"""
# The inputs keep the shape the function counted: `tuple(shape)` is right, the template's `(n,)` is not.
COUNTED = (
    BENCH_HEAD
    + """
@pytest.mark.parametrize("shape", [(16, 8)])
def test_select_bench(shape, record_property):
    n = math.prod(shape)
    case = SelectCase(shape, torch.float32)
    cond, x, y = case.inputs()
    op = SelectOp(n=n, dtype=torch.float32)
    report(record_property, "select", time_ms(op, cond, x, y))
"""
)
# `n` is the function's parameter, and the inputs are built from it: the template's `(n,)` stands.
PARAMETER = (
    BENCH_HEAD
    + """
@pytest.mark.parametrize("n", [128])
def test_select_flat_bench(n, record_property):
    case = SelectCase((n,), torch.float32)
    cond, x, y = case.inputs()
    op = SelectOp(n=n, dtype=torch.float32)
    report(record_property, "select", time_ms(op, cond, x, y))
"""
)
# The function counts the shape its case is built from, and then flattens the inputs: the first candidate,
# `tuple(shape)`, fails at the call, and the next one, the template's `(n,)`, runs.
FLATTENED = COUNTED.replace(
    "    cond, x, y = case.inputs()\n", "    cond, x, y = (t.reshape(-1) for t in case.inputs())\n"
)
# Inputs of neither shape: every candidate fails at the call.
NEITHER = COUNTED.replace(
    "    cond, x, y = case.inputs()\n", "    cond, x, y = (t.reshape(2, -1) for t in case.inputs())\n"
)

# The call's value is right; a later line of the same function that does not use the Op fails on its own.
LATER = COUNTED.replace(
    '    report(record_property, "select", time_ms(op, cond, x, y))\n',
    '    report(record_property, "select", time_ms(op, cond, x, y))\n'
    '    raise ValueError("a later check of its own")\n',
)


def _commit_with(repo: Repo, bench: str) -> str:
    """The Op and a benchmark of it, committed; then the change to shapes with the tests' own edit."""
    path = "benchmarks/ops/bench_select.py"
    repo.write(OP, OLD_OP)
    repo.replace(
        "src/minitile/ops/__init__.py",
        "from .reduction import AmaxFwdOp, MeanFwdOp, SumFwdOp\n",
        "from .reduction import AmaxFwdOp, MeanFwdOp, SumFwdOp\nfrom .select import SelectOp\n",
    )
    repo.write("tests/ops/test_select.py", TEST)
    repo.write(path, bench)
    repo.commit("select: an Op of n elements")
    repo.write(OP, NEW_OP)
    repo.replace(
        "tests/ops/test_select.py",
        "SelectOp(n=n, dtype=torch.float32)",
        "SelectOp(in_shape=(n,), dtype=torch.float32)",
    )
    repo.commit("select: the shape of the inputs, not their count")
    return path


def _run(repo: Repo, tmp_path: Path) -> tuple[int, str, dict]:
    r, data = run_json(repo, tmp_path, "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-commit")
    (bench,) = [b for b in data["benchmarks"] if b["path"] == "benchmarks/ops/bench_select.py"]
    return r.returncode, r.stdout + r.stderr, {**data, "bench": bench}


def test_the_shape_the_inputs_keep_comes_before_the_template(repo: Repo, tmp_path: Path) -> None:
    path = _commit_with(repo, COUNTED)
    code, out, data = _run(repo, tmp_path)
    assert code == 0, out
    (finding,) = [f for f in data["findings"] if f["path"] == path]
    assert finding["fix"] == "(in_shape=tuple(shape), dtype=torch.float32)", finding
    assert finding["rule"] == "BO501" and finding["guessed"], finding
    assert finding["candidates"][0]["fix"] == "(in_shape=(n,), dtype=torch.float32)", finding
    assert data["bench"]["status"] == "passed" and data["bench"]["numbers"], data["bench"]
    assert data["bench"]["iterations"] == 1, data["bench"]
    assert "op = SelectOp(in_shape=tuple(shape), dtype=torch.float32)" in repo.read(path)


def test_a_parameter_of_the_function_leaves_the_template_alone(repo: Repo, tmp_path: Path) -> None:
    path = _commit_with(repo, PARAMETER)
    code, out, data = _run(repo, tmp_path)
    assert code == 0, out
    (finding,) = [f for f in data["findings"] if f["path"] == path]
    assert finding["fix"] == "(in_shape=(n,), dtype=torch.float32)" and finding["candidates"] == [], finding
    assert "BO501" not in finding["trace"], finding
    assert data["bench"]["status"] == "passed" and data["bench"]["numbers"], data["bench"]
    assert "op = SelectOp(in_shape=(n,), dtype=torch.float32)" in repo.read(path)


def test_the_next_candidate_runs_when_the_first_fails_at_the_call(repo: Repo, tmp_path: Path) -> None:
    path = _commit_with(repo, FLATTENED)
    code, out, data = _run(repo, tmp_path)
    assert code == 0, out
    assert (
        "the run refused SelectOp(in_shape=tuple(shape), dtype=torch.float32) (ValueError: expected" in out
    ), out
    bench = data["bench"]
    assert bench["status"] == "passed" and bench["numbers"] and bench["iterations"] == 2, bench
    assert any("SelectOp(in_shape=(n,), dtype=torch.float32)" in fix for fix in bench["fixes"]), bench
    assert "op = SelectOp(in_shape=(n,), dtype=torch.float32)" in repo.read(path)


def test_a_call_that_refuses_every_candidate_blocks_with_them_named(repo: Repo, tmp_path: Path) -> None:
    path = _commit_with(repo, NEITHER)
    before = repo.read(path)
    code, out, data = _run(repo, tmp_path)
    assert code == 1, out
    bench = data["bench"]
    assert bench["status"] == "blocked" and bench["iterations"] == 2, bench
    reason = bench["reason"]
    assert reason.startswith(f"{path}:"), reason
    assert "SelectOp(in_shape=tuple(shape), dtype=torch.float32) (ValueError: expected (16, 8)" in reason, (
        reason
    )
    assert "SelectOp(in_shape=(n,), dtype=torch.float32) (ValueError: expected (128,)" in reason, reason
    assert reason.endswith("by hand"), reason
    assert repo.read(path) == before, "a blocked file is put back as it was"


@pytest.mark.parametrize(
    "kind, message, refused",
    [
        ("ValueError", "expected (16, 8) torch.float32, got (128,) torch.float32", True),
        ("AssertionError", "", True),
        ("TypeError", "'int' object is not iterable", True),
        (
            "RuntimeError",
            "expand(torch.cuda.HalfTensor{[64, 32]}, size=[2048]): the number of sizes provided (1) must be "
            "greater or equal to the number of dimensions in the tensor (2)",
            True,
        ),
        ("RuntimeError", "CUDA error: an illegal memory access was encountered", False),
        ("RuntimeError", "the kernel failed to compile", False),
        ("KeyError", "'dtype'", False),
    ],
)
def test_what_a_refused_value_raises(kind: str, message: str, refused: bool) -> None:
    assert refused_value(Failure(kind, message)) is refused


def test_a_failure_at_a_line_that_does_not_use_the_op_is_not_the_call_s(repo: Repo, tmp_path: Path) -> None:
    path = _commit_with(repo, LATER)
    code, out, data = _run(repo, tmp_path)
    assert code == 1, out
    assert "op = SelectOp(in_shape=tuple(shape), dtype=torch.float32)" in repo.read(path) or (
        data["bench"]["status"] == "blocked"
    ), data["bench"]
    assert "the run refused" not in out and "every candidate" not in out, out
    assert data["bench"]["iterations"] == 1, data["bench"]
    assert "a later check of its own" in out, out
