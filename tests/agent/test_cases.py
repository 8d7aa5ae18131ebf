"""What an edit may not take from a benchmark's cases: a test, a named case, cases written out, a case value
it still takes but no longer reads. Pure: sources in, reasons out."""

from __future__ import annotations

import pytest

from benchop_hook.agent.cases import bench_functions, removed_cases

BEFORE = """import pytest

SHAPES = [(64, 256), (128, 512)] if GPU else [(64, 256)]
ROWS = [pytest.param(1, 2, id="small"), pytest.param(3, 4, id="large")]


@pytest.mark.parametrize("M, N", SHAPES)
def test_sum(M, N):
    op = SumOp(M, N)


@pytest.mark.parametrize("m, n", ROWS)
def test_mean(m, n):
    op = MeanOp(m, n)


class TestGemm:
    @pytest.mark.parametrize("k", [1, 2, 3])
    def test_nn(self, k):
        op = GemmOp(k)
"""


def _problems(after: str) -> tuple[list[str], dict[str, int]]:
    b, a = bench_functions(BEFORE.encode()), bench_functions(after.encode())
    assert b is not None and a is not None
    return removed_cases(b, a)


def test_the_source_counts_and_names_cases() -> None:
    fns = bench_functions(BEFORE.encode())
    assert fns is not None
    assert fns["test_sum"].cases == (1, 3)  # one row without a GPU; three written out in all
    assert fns["test_mean"].ids == frozenset({"small", "large"})
    assert fns["TestGemm::test_nn"].cases == (3, 3) and fns["TestGemm::test_nn"].columns == {"k"}
    assert bench_functions(b"def broken(:\n") is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("op = SumOp(M, N)", "op = SumOp((M, N))"),  # the call changed, the cases did not
        ('pytest.param(3, 4, id="large")]', 'pytest.param(3, 4, id="large"), pytest.param(5, 6, id="huge")]'),
        ("[(64, 256)]\n", "[(64, 256), (32, 32)]\n"),
    ],
    ids=["call", "a case added", "a row added"],
)
def test_an_edit_that_keeps_every_case_passes(old: str, new: str) -> None:
    assert _problems(BEFORE.replace(old, new)) == ([], {})


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("def test_mean(m, n):\n    op = MeanOp(m, n)\n", "", "it removes the test test_mean"),
        (', pytest.param(3, 4, id="large")', "", "it removes the case(s) large of test_mean"),
        ('id="large"', 'id="big"', "it removes the case(s) large of test_mean"),
        (
            "[(64, 256), (128, 512)] if",
            "[(64, 256)] if",
            "test_sum had 3 cases written out, the edit leaves 2",
        ),
        ("[1, 2, 3]", "[1, 2]", "TestGemm::test_nn had 3 cases written out, the edit leaves 2"),
        ("op = SumOp(M, N)", "op = SumOp(M, 256)", "test_sum no longer reads its case value(s) N"),
    ],
    ids=["a test", "a named case", "a renamed case", "a row", "a method's row", "a case value"],
)
def test_an_edit_that_takes_a_case_is_refused(old: str, new: str, problem: str) -> None:
    assert old in BEFORE
    problems, _ = _problems(BEFORE.replace(old, new))
    assert problems == [problem]


def test_cases_the_source_computes_are_left_to_collection() -> None:
    after = BEFORE.replace('"M, N", SHAPES', '"M, N", load_workloads("sum")')
    assert _problems(after) == ([], {"test_sum": 1})  # at least the row every machine runs


def test_a_new_parametrization_is_not_a_lost_case_value() -> None:
    """A case value the edit no longer takes at all (the cases were redesigned) is left to the count."""
    after = BEFORE.replace(
        '"m, n", ROWS)\ndef test_mean(m, n):\n    op = MeanOp(m, n)',
        '"shape", ROWS)\ndef test_mean(shape):\n    op = MeanOp(shape)',
    )
    assert _problems(after) == ([], {})
