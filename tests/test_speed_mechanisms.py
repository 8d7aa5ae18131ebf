"""The shortcuts taken for speed give the answers the long way gives: pure functions, tested with strings."""

from __future__ import annotations

from benchop_hook import renames

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
    for olds, news in [({"SumOp"}, {"SumFwdOp"}), ({"SumOp", "MeanOp"}, {"MeanFwdOp"}), ({"b"}, {"c"}),
                       ({"SumOp", "b"}, {"c", "SumFwdOp", "Nothing"}), ({"Gone"}, {"SumFwdOp"})]:
        want = {k: v for k, v in everything.items() if k[0] in olds and k[1] in news}
        assert renames.votes_from(files, olds, news) == want, (olds, news)


def test_a_swap_only_in_prose_is_no_vote():
    old = '"""Uses SumOp."""\n# SumOp below\nx = 1\n'
    new = '"""Uses SumFwdOp."""\n# SumFwdOp below\nx = 1\n'
    assert renames.substitutions(old, new) == []
    assert renames.votes_from([(renames.TESTS, old, new)], {"SumOp"}, {"SumFwdOp"}) == {}
