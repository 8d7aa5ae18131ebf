"""Rename votes (analysis/renames.py): which name swaps a commit's changed files vote for, prose lines
(docstrings and comments) left out; pure functions, tested with strings, and spread over two processes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from benchop_hook.analysis import renames
from tests.helpers.repo import PROJECT

OLD_TEST = '''"""SumOp is tested here."""
from tileops.ops import SumOp, MeanOp

# SumOp with a small shape
def test_sum():
    op = SumOp(4, 8)
    ref = MeanOp(4, 8)
    """SumOp in a docstring."""
    return op, ref
'''


NEW_TEST = '''"""SumFwdOp is tested here."""
from tileops.ops import SumFwdOp, MeanFwdOp

# SumFwdOp with a small shape
def test_sum():
    op = SumFwdOp(4, 8)
    ref = MeanFwdOp(4, 8)
    """SumFwdOp in a docstring."""
    return op, ref
'''


UNRELATED_OLD = "x = helper(a, b)\ny = other(a)\n"


UNRELATED_NEW = "x = helper(a, c)\ny = other(c)\n"


def test_votes_for_given_names_are_the_unfiltered_votes_of_those_names():
    files = [(renames.TESTS, OLD_TEST, NEW_TEST), (renames.OTHER, UNRELATED_OLD, UNRELATED_NEW)]
    everything = renames.votes_from(files)
    # The docstring and comment lines are prose: only the import and the two calls vote.
    assert everything[("SumOp", "SumFwdOp")] == {renames.TESTS}
    assert everything[("MeanOp", "MeanFwdOp")] == {renames.TESTS}
    assert ("b", "c") in everything and ("a", "c") in everything
    for olds, news in [
        ({"SumOp"}, {"SumFwdOp"}),
        ({"SumOp", "MeanOp"}, {"MeanFwdOp"}),
        ({"b"}, {"c"}),
        ({"SumOp", "b"}, {"c", "SumFwdOp", "Nothing"}),
        ({"Gone"}, {"SumFwdOp"}),
    ]:
        want = {k: v for k, v in everything.items() if k[0] in olds and k[1] in news}
        assert renames.votes_from(files, olds, news) == want, (olds, news)


def test_a_swap_only_in_prose_is_no_vote():
    old = '"""Uses SumOp."""\n# SumOp below\nx = 1\n'
    new = '"""Uses SumFwdOp."""\n# SumFwdOp below\nx = 1\n'
    assert renames.substitutions(old, new) == []
    assert renames.votes_from([(renames.TESTS, old, new)], {"SumOp"}, {"SumFwdOp"}) == {}


def test_rename_votes_spread_over_processes_are_the_votes() -> None:
    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    files = [
        (renames.TESTS, OLD_TEST, NEW_TEST),
        (renames.OTHER, UNRELATED_OLD, UNRELATED_NEW),
        (
            renames.WORKLOADS,
            OLD_TEST.replace("test_sum", "test_mean"),
            NEW_TEST.replace("test_sum", "test_mean"),
        ),
    ]

    def spread(
        f: Callable[[tuple[str, str, str]], list[tuple[str, str]]], xs: list[tuple[str, str, str]]
    ) -> list[list[tuple[str, str]]]:
        return forked.map_split(f, xs, [1] * len(xs), min_weight=0)

    for olds, news in [(None, None), ({"SumOp", "MeanOp", "b"}, {"SumFwdOp", "MeanFwdOp", "c"})]:
        assert renames.votes_from(files, olds, news, spread) == renames.votes_from(files, olds, news)
    assert renames.votes_from(files, None, None, spread)[("SumOp", "SumFwdOp")] == {
        renames.TESTS,
        renames.WORKLOADS,
    }


def test_prose_lines_found_through_statements_are_those_of_every_node() -> None:
    import ast

    def every_node(text: str) -> set[int]:  # the long way: ast.walk over every node
        out = set()
        for node in ast.walk(ast.parse(text)):
            if (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                out.update(range(node.lineno - 1, node.end_lineno or node.lineno))
        return out

    nested = (
        'class A:\n    """doc"""\n    def f(self):\n        try:\n            "in try"\n        except E:\n'
        '            """in handler"""\n        else:\n            "else"\n        finally:\n            '
        '"fin"\n'
        '        match x:\n            case 1:\n                "in case"\n        with a:\n            '
        "while b:\n"
        '                for c in d:\n                    if e:\n                        "deep"\n'
        '                    else:\n                        "orelse"\n        g = lambda: "not a statement"\n'
        '        async def h():\n            "async"\n            async with x:\n                "aw"\n'
    )
    assert renames._prose_lines(nested, []) == every_node(nested) and len(every_node(nested)) == 10
    root = PROJECT
    sources = [
        p.read_text()
        for p in [*sorted((root / "benchop_hook").rglob("*.py")), *sorted((root / "tests").rglob("*.py"))]
    ]
    assert len(sources) > 50
    for text in sources:
        lines = text.splitlines()
        comments = {i for i, line in enumerate(lines) if line.lstrip().startswith("#")}
        assert renames._prose_lines(text, lines) == comments | every_node(text)


@pytest.mark.parametrize(
    "old, new, kinds, paired",
    [
        # peft v0.18 -> v0.19: BoneConfig left the sorted export list, CartridgeConfig came in at its place.
        pytest.param("BoneConfig", "CartridgeConfig", {renames.EXPORTS}, False, id="exports-alone-unrelated"),
        pytest.param("SumOp", "SumFwdOp", {renames.EXPORTS}, True, id="exports-alone-related"),
        pytest.param(
            "BoneConfig", "CartridgeConfig", {renames.EXPORTS, renames.TESTS}, True, id="exports-and-tests"
        ),
    ],
)
def test_an_export_swap_alone_pairs_only_related_names(
    old: str, new: str, kinds: set[str], paired: bool
) -> None:
    p = renames.pair_names([old], [new], {(old, new): kinds}, lambda o, n: True)
    assert (old in p.pairs) is paired
