"""Templates from the commit's own edits (analysis/examples.py), in-process: pairs of an old and a new call,
what each pair says, and when pairs agree."""

from __future__ import annotations

import pytest

from benchop_hook.analysis.callsites import Arg, CallSite
from benchop_hook.analysis.examples import Pair, agree, from_old_calls, pair_calls, template_of
from benchop_hook.analysis.signatures import Kind, Param, Signature


def _sig(*names: str, defaults: dict[str, str] | None = None) -> Signature:
    defaults = defaults or {}
    return Signature(tuple(Param(n, Kind.POSITIONAL_OR_KEYWORD, defaults.get(n)) for n in names))


def _site(line: int, *args: tuple[str | None, str], fn: str = "test_x", path: str = "tests/t.py") -> CallSite:
    built = tuple(Arg("kw", k, v) if k else Arg("pos", None, v) for k, v in args)
    return CallSite(path, line, 4, line, 40, "Op", built, frozenset(), None, fn, fn, frozenset(), "direct")


OLD_SIG = _sig("M", "N", "dtype")
NEW_SIG = _sig("normalized_shape", "dtype")


def _pair(old: tuple[tuple[str | None, str], ...], new: tuple[tuple[str | None, str], ...]) -> Pair:
    return Pair(_site(3, *old), _site(3, *new))


def test_a_pair_reads_as_a_template_over_the_old_call():
    p = _pair(
        (("M", "m"), ("N", "n"), ("dtype", "dtype")), (("normalized_shape", "(n,)"), ("dtype", "dtype"))
    )
    t = template_of(p, OLD_SIG, NEW_SIG, frozenset())
    assert not isinstance(t, str)
    assert t.shown() == "normalized_shape = (OLD[N],), M dropped"
    expr = dict(t.sets)["normalized_shape"]
    assert expr.render({"N": "hidden", "M": "rows", "dtype": "d"}) == "(hidden,)"
    assert expr.render({"M": "rows"}) is None  # no value for N: the template does not apply


def test_literal_values_tie_to_the_old_argument_that_passed_them():
    # RMSNormOp(8, 64, f32) -> RMSNormOp((64,), f32): the 64 is the old N, not a constant
    p = _pair(
        ((None, "8"), (None, "64"), (None, "torch.float32")), ((None, "(64,)"), (None, "torch.float32"))
    )
    t = template_of(p, OLD_SIG, NEW_SIG, frozenset({"torch"}))
    assert not isinstance(t, str)
    assert t.shown() == "normalized_shape = (OLD[N],), M dropped"


def test_a_value_two_old_arguments_passed_is_ambiguous():
    p = _pair(((None, "8"), (None, "8"), (None, "f32")), ((None, "(8,)"), (None, "f32")))
    t = template_of(p, OLD_SIG, NEW_SIG, frozenset({"f32"}))
    assert isinstance(t, str) and "several old arguments" in t


def test_a_name_only_the_new_test_has_is_not_transferable():
    p = _pair(
        (("M", "m"), ("N", "n"), ("dtype", "dtype")), (("normalized_shape", "shape"), ("dtype", "dtype"))
    )
    t = template_of(p, OLD_SIG, NEW_SIG, frozenset())
    assert isinstance(t, str) and "uses shape, which only the new test has" in t


def test_a_module_level_name_is_transferable():
    p = _pair(
        (("M", "m"), ("N", "n"), ("dtype", "dtype")), (("normalized_shape", "(n, WIDTH)"), ("dtype", "dtype"))
    )
    t = template_of(p, OLD_SIG, NEW_SIG, frozenset({"WIDTH"}))
    assert not isinstance(t, str)
    assert dict(t.sets)["normalized_shape"].free == frozenset({"WIDTH"})


def test_pairs_agree_or_report_their_templates():
    a = _pair(
        (("M", "m"), ("N", "n"), ("dtype", "dtype")), (("normalized_shape", "(n,)"), ("dtype", "dtype"))
    )
    b = _pair(
        (("M", "M"), ("N", "hidden"), ("dtype", "dt")), (("normalized_shape", "(hidden,)"), ("dtype", "dt"))
    )
    c = _pair((("M", "m"), ("N", "n"), ("dtype", "dtype")), (("normalized_shape", "[n]"), ("dtype", "dtype")))
    same = agree((p, template_of(p, OLD_SIG, NEW_SIG, frozenset())) for p in (a, b))
    assert same.template is not None and len(same.pairs) == 2
    differ = agree((p, template_of(p, OLD_SIG, NEW_SIG, frozenset())) for p in (a, c))
    assert differ.template is None and "disagree" in (differ.why_not or "")
    assert "normalized_shape = (OLD[N],)" in (differ.why_not or "") and "[OLD[N]]" in (differ.why_not or "")
    assert agree([]).template is None


def test_one_removed_call_pairs_with_one_added_call_in_a_hunk():
    old = b"def test_a():\n    Op(m, n)\n\n\ndef test_b():\n    Op(1, 2)\n"
    new = b"def test_a():\n    Op((n,))\n\n\ndef test_b():\n    Op(1, 2)\n"
    olds = [_site(2, (None, "m"), (None, "n"), fn="test_a"), _site(6, (None, "1"), (None, "2"), fn="test_b")]
    news = [_site(2, (None, "(n,)"), fn="test_a"), _site(6, (None, "1"), (None, "2"), fn="test_b")]
    pairs = pair_calls(old, new, olds, news)
    assert [(p.old.lineno, p.new.lineno) for p in pairs] == [(2, 2)]  # the unchanged call is no example


def test_two_changed_calls_in_one_hunk_pair_only_by_function():
    old = b"def test_a():\n    Op(m, n)\ndef test_b():\n    Op(p, q)\n"
    new = b"def test_a():\n    Op((n,))\ndef test_b():\n    Op((q,))\n"
    olds = [_site(2, (None, "m"), (None, "n"), fn="test_a"), _site(4, (None, "p"), (None, "q"), fn="test_b")]
    news = [_site(2, (None, "(n,)"), fn="test_a"), _site(4, (None, "(q,)"), fn="test_b")]
    pairs = pair_calls(old, new, olds, news)
    assert sorted((p.old.function, p.new.function) for p in pairs) == [
        ("test_a", "test_a"),
        ("test_b", "test_b"),
    ]


@pytest.mark.parametrize(
    ("src", "derived"),
    [("(64,)", True), ("64", True), ("64 * 2", True), ("(128,)", False), ("True", False)],
)
def test_a_tests_constant_that_is_their_own_old_value_is_no_constant(src: str, derived: bool) -> None:
    p = _pair(((None, "8"), (None, "64"), (None, "True")), ((None, "(64,)"), (None, "True")))
    assert (from_old_calls(src, [p]) is not None) is derived
