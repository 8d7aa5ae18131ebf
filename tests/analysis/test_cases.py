"""Which values of a benchmark function vary across its cases (analysis/cases.py), in-process."""

from __future__ import annotations

import pytest

from benchop_hook.analysis.cases import Cases

LABEL_ONLY = """import pytest


@pytest.mark.parametrize("strategy", ["direct", "split"])
def test_x(strategy, dtype):
    x = make(dtype)
    op = Op(4, strategy=strategy, dtype=dtype)
    record(tag=f"op-{strategy}")
"""

FIXTURE_OVER_LOOPS = """def _rows():
    params = []
    for shape in SHAPES:
        for strategy in ("direct", "explicit_parallel"):
            params.append(pytest.param("op", shape, strategy))
    return params


class StrategyFixture(FixtureBase):
    PARAMS = [("name, shape, strategy", _rows())]


@StrategyFixture
def test_x(name, shape, strategy):
    op = Op(shape, strategy=strategy)
"""

SAME_EVERYWHERE = """class F(FixtureBase):
    PARAMS = [("m, n", [(8, 16), (8, 32)])]


@F
def test_x(m, n):
    op = Op(M=m, N=n)
"""

LOOP = """def test_x():
    for mode in ("a", "b"):
        op = Op(mode=mode)
"""

OPTION = """def main(args):
    op = Op(4, backend=args.backend)
    print(f"{args.backend}")
"""


@pytest.mark.parametrize(
    ("source", "src", "line", "choice"),
    [
        (LABEL_ONLY, "strategy", 7, True),  # varies, and only labels read it besides this call
        (LABEL_ONLY, "dtype", 7, False),  # the inputs are built with it
        (FIXTURE_OVER_LOOPS, "strategy", 15, True),  # a fixture column from a helper's loop over literals
        (SAME_EVERYWHERE, "m", 7, False),  # every case passes 8: nothing is chosen
        (SAME_EVERYWHERE, "n", 7, True),
        (LOOP, "mode", 3, True),
        (OPTION, "args.backend", 2, True),  # an option, printed only
        (OPTION, "4", 2, False),  # not a name: is_choice decides for literals
    ],
)
def test_what_varies_across_cases(source: str, src: str, line: int, choice: bool) -> None:
    assert Cases(source.encode()).is_choice(src, (line, line)) is choice


def test_a_module_that_does_not_parse_has_no_choices() -> None:
    assert not Cases(b"def (:\n").is_choice("x", (1, 1))


@pytest.mark.parametrize(
    ("src", "choice"),
    [
        ("FailSafe(k=1.75)", True),  # an object built to pick a strategy
        ("[Greedy(), Random()]", True),
        ("cfg.Strategy()", True),
        ("tuple(spatial)", False),  # data
        ("torch.Size([4, 8])", False),
        ("dtype", False),
    ],
)
def test_a_built_object_is_a_choice(src: str, choice: bool) -> None:
    from benchop_hook.fixing.choices import is_choice

    assert is_choice(src) is choice
