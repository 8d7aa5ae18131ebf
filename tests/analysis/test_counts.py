"""analysis/counts.py in-process: what counts as the product of a value's elements, and what a benchmark
function's count is of."""

from __future__ import annotations

import ast

import pytest

from benchop_hook.analysis.counts import element_count, product_of


@pytest.mark.parametrize(
    "src, counted",
    [
        ("prod(shape)", ("shape", "shape")),
        ("math.prod(shape)", ("shape", "shape")),
        ("np.prod(shape)", ("shape", "shape")),
        ("int(numpy.prod(shape))", ("shape", "shape")),
        ("functools.reduce(operator.mul, shape)", ("shape", "shape")),
        ("reduce(mul, shape, 1)", ("shape", "shape")),
        ("reduce(lambda a, b: a * b, shape)", ("shape", "shape")),
        ("x.numel()", ("x", "x.shape")),
        ("sum(shape)", None),
        ("len(shape)", None),
        ("reduce(operator.add, shape)", None),
        ("reduce(operator.mul, shape, 2)", None),
        ("prod(shape[1:])", None),
        ("torch.prod(shape)", None),
    ],
)
def test_what_counts_as_the_product_of_a_value(src: str, counted: tuple[str, str] | None) -> None:
    assert product_of(ast.parse(src, mode="eval").body) == counted


BENCH = b"""\
import math


def test_counted(shape, dtype):
    n = math.prod(shape)
    case = Case(shape, dtype)
    op = Op(n=n, dtype=dtype)


def test_parameter(n, dtype):
    case = Case(n, dtype)
    op = Op(n=n, dtype=dtype)


def test_built_from_both(shape, dtype):
    n = math.prod(shape)
    case = Case(shape, n)
    op = Op(n=n, dtype=dtype)


def test_reassigned(shape, dtype):
    n = math.prod(shape)
    n = n * 2
    case = Case(shape, dtype)
    op = Op(n=n, dtype=dtype)
"""


def _line(fn: str) -> int:
    lines = BENCH.decode().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"def {fn}("))
    return next(i for i in range(start, len(lines)) if "op = Op(" in lines[i]) + 1


def test_a_count_of_the_shape_the_inputs_are_built_from() -> None:
    c = element_count(BENCH, _line("test_counted"), "n")
    assert c is not None and (c.of, c.shape, c.built) == ("shape", "shape", "Case(shape, dtype)")


def test_a_parameter_counts_nothing() -> None:
    assert element_count(BENCH, _line("test_parameter"), "n") is None


def test_inputs_built_from_the_count_too_are_not_built_from_the_shape_alone() -> None:
    c = element_count(BENCH, _line("test_built_from_both"), "n")
    assert c is not None and c.built is None


def test_a_variable_assigned_twice_is_no_count() -> None:
    assert element_count(BENCH, _line("test_reassigned"), "n") is None
