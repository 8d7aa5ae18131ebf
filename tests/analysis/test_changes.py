"""Which Op classes changed between two versions, and how (`changes.detect`), and the typed edits between
two signatures (`edits.diff`): in process, on sources held in dicts."""

from __future__ import annotations

import ast
import json

import pytest

from benchop_hook.analysis import renames
from benchop_hook.analysis.changes import OpChange, detect
from benchop_hook.analysis.edits import Edit, EditKind, diff, param_map
from benchop_hook.analysis.modules import ClassRef, ParseCache
from benchop_hook.analysis.project import Project
from benchop_hook.analysis.signatures import Kind, Signature, from_function
from benchop_hook.git.snapshots import Snapshot


class Files(Snapshot):
    """A repository version as a dict of path -> source."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def paths(self) -> list[str]:
        return sorted(self.files)

    def read(self, path: str) -> bytes | None:
        text = self.files.get(path)
        return None if text is None else text.encode()


BASE = "lib/ops/base.py"
REDUCE = "lib/ops/reduce.py"
COMMON = {"lib/__init__.py": "", "lib/ops/__init__.py": "", BASE: "class Op:\n    pass\n"}


def ops(*classes: str) -> str:
    return "from lib.ops.base import Op\n\n\n" + "\n\n".join(classes)


def cls(name: str, params: str, base: str = "Op", body: str = "pass") -> str:
    return f"class {name}({base}):\n    def __init__(self, {params}):\n        {body}\n"


def project(files: dict[str, str]) -> Project:
    return Project(Files({**COMMON, **files}), ParseCache(), lambda p: p.startswith("lib/ops/"), ["Op"])


def changes(
    old: dict[str, str],
    new: dict[str, str],
    votes: dict[tuple[str, str], set[str]] | None = None,
) -> list[OpChange]:
    """detect() over the op files that differ between `old` and `new`."""
    old_p, new_p = project(old), project(new)
    changed = sorted(p for p in {*old, *new} if old.get(p) != new.get(p))
    return detect(
        old_p,
        new_p,
        [p for p in changed if p in old],
        [p for p in changed if p in new],
        lambda: sorted(p for p in {**COMMON, **new} if p.startswith("lib/ops/")),
        rename_votes=(lambda olds, news: votes or {}) if votes is not None else None,
    )


def summary(found: list[OpChange]) -> list[tuple[str, str, str | None, str | None]]:
    return [
        (c.status, c.name, c.old.qualname if c.old else None, c.new.qualname if c.new else None)
        for c in found
    ]


def test_a_changed_constructor() -> None:
    (c,) = changes(
        {REDUCE: ops(cls("SumOp", "m, n, dtype"))}, {REDUCE: ops(cls("SumOp", "n, dtype, dim=-1"))}
    )
    assert (c.status, c.name, c.path) == ("changed", "SumOp", REDUCE)
    assert [e.kind for e in c.edits] == [EditKind.REMOVED, EditKind.ADDED_OPTIONAL]
    assert c.headline() == "SumOp(m, n, dtype) -> SumOp(n, dtype, dim=-1)"


def test_an_unchanged_class_and_a_non_op_are_no_change() -> None:
    old = {
        REDUCE: ops(cls("SumOp", "m, n")) + "\n\nclass Helper:\n    def __init__(self, a):\n        pass\n"
    }
    new = {
        REDUCE: ops(cls("SumOp", "m, n")) + "\n\nclass Helper:\n    def __init__(self, b):\n        pass\n"
    }
    assert changes(old, new) == []


def test_a_change_reaches_every_subclass_that_inherits_it() -> None:
    child = "from lib.ops.reduce import ReduceOp\n\n\nclass SumOp(ReduceOp):\n    pass\n"
    old = {REDUCE: ops(cls("ReduceOp", "m, n, dtype")), "lib/ops/sum.py": child}
    new = {REDUCE: ops(cls("ReduceOp", "n, dtype")), "lib/ops/sum.py": child}
    found = changes(old, new)
    assert summary(found) == [
        ("changed", "ReduceOp", "lib.ops.reduce.ReduceOp", "lib.ops.reduce.ReduceOp"),
        ("changed", "SumOp", "lib.ops.sum.SumOp", "lib.ops.sum.SumOp"),
    ]
    assert found[1].via_base == ClassRef("lib.ops.reduce", "ReduceOp")
    assert found[1].headline().endswith("(through base class ReduceOp)")


def test_a_class_moved_to_another_file() -> None:
    old = {REDUCE: ops(cls("SumOp", "m, n"))}
    new = {REDUCE: ops(), "lib/ops/sum.py": ops(cls("SumOp", "m, n"))}
    (c,) = changes(old, new)
    assert summary([c]) == [("moved", "SumOp", "lib.ops.reduce.SumOp", "lib.ops.sum.SumOp")]
    assert c.edits == () and c.evidence == ()
    assert c.headline() == "SumOp(m, n) -> SumOp(m, n)  [lib.ops.reduce.SumOp -> lib.ops.sum.SumOp]"


def test_a_class_still_importable_under_its_old_name_is_followed() -> None:
    old = {REDUCE: ops(cls("SumOp", "m, n"))}
    new = {REDUCE: ops(cls("SumFwdOp", "n")) + "\n\nSumOp = SumFwdOp\n"}
    (c,) = changes(old, new)
    # a change is named by its new class
    assert summary([c]) == [("renamed", "SumFwdOp", "lib.ops.reduce.SumOp", "lib.ops.reduce.SumFwdOp")]


def test_a_rename_with_the_same_body() -> None:
    (c,) = changes({REDUCE: ops(cls("SumOp", "m, n"))}, {REDUCE: ops(cls("AddOp", "m, n"))})
    assert (c.status, c.evidence) == ("renamed", ("the class body is unchanged",))


def test_a_rename_the_evidence_shows() -> None:
    old = {REDUCE: ops(cls("SumOp", "m, n", body="self.x = 1"))}
    new = {REDUCE: ops(cls("TotalOp", "n", body="self.y = 2"))}  # (no name match: only the votes)
    (c,) = changes(old, new, votes={("SumOp", "TotalOp"): {renames.TESTS, renames.OTHER}})
    assert c.status == "renamed"
    assert c.evidence == (renames.TESTS, renames.OTHER)  # strongest first
    assert "(evidence: the tests updated in the same commit use the new name, and 1 more)" in c.headline()


def test_a_removed_class_lists_the_candidates_the_evidence_cannot_choose_between() -> None:
    old = {REDUCE: ops(cls("SumOp", "m, n", body="self.x = 1"))}
    new = {REDUCE: ops(cls("SumAOp", "m, n", body="self.a = 1"), cls("SumBOp", "m, n", body="self.b = 1"))}
    votes = {("SumOp", "SumAOp"): {renames.TESTS}, ("SumOp", "SumBOp"): {renames.TESTS}}
    (c,) = changes(old, new, votes=votes)
    assert (c.status, c.new, [r.name for r in c.candidates]) == ("removed", None, ["SumAOp", "SumBOp"])
    assert c.headline() == (
        "SumOp(m, n) -> removed, or renamed to one of SumAOp, SumBOp (the evidence does not say which)"
    )
    (c,) = changes(old, {REDUCE: ops()})
    assert (c.status, c.candidates, c.headline()) == ("removed", (), "SumOp(m, n) -> removed")


def test_a_changed_method() -> None:
    old = {REDUCE: ops(cls("SumOp", "m", body="pass\n\n    def forward(self, x):\n        pass"))}
    new = {REDUCE: ops(cls("SumOp", "m", body="pass\n\n    def forward(self, x, y):\n        pass"))}
    (c,) = changes(old, new)
    assert (c.status, c.edits) == ("changed", ())
    assert [(m.name, [e.kind for e in m.edits]) for m in c.methods] == [
        ("forward", [EditKind.ADDED_REQUIRED])
    ]


def test_the_json_of_a_change_is_plain_strings() -> None:
    (c,) = changes({REDUCE: ops(cls("SumOp", "m, n"))}, {REDUCE: ops(cls("SumOp", "n"))})
    data = c.as_json()
    assert json.loads(json.dumps(data)) == data
    assert data["status"] == "changed" and type(data["status"]) is str
    assert data["edits"] == [
        {
            "kind": "removed",
            "name": "m",
            "text": "'m' removed",
            "old_index": 0,
            "old_kind": "positional-or-keyword",
        }
    ]


# -- typed edits


def sig(params: str) -> Signature:
    fn = ast.parse(f"def __init__(self, {params}): pass").body[0]
    assert isinstance(fn, ast.FunctionDef)
    return from_function(fn)


@pytest.mark.parametrize(
    "old, new, edits",
    [
        pytest.param(
            "a, b, c",
            "a, x, c",
            [Edit(EditKind.RENAMED, "b", new_name="x", old_index=1, new_index=1, by="position")],
            id="renamed-by-position",
        ),
        pytest.param(
            "numel, E, B",
            "tokens, top_k, E, B",
            [
                Edit(
                    EditKind.REMOVED,
                    "numel",
                    old_index=0,
                    old_kind=Kind.POSITIONAL_OR_KEYWORD,
                    contested="tokens",
                ),
                Edit(EditKind.ADDED_REQUIRED, "tokens", new_index=0, new_kind=Kind.POSITIONAL_OR_KEYWORD),
                Edit(EditKind.ADDED_REQUIRED, "top_k", new_index=1, new_kind=Kind.POSITIONAL_OR_KEYWORD),
            ],
            id="contested-slot",
        ),
        pytest.param(
            "d_in, h_in, w_in, dtype",
            "d, h, w, dtype",
            [
                Edit(EditKind.RENAMED, "d_in", new_name="d", old_index=0, new_index=0, by="position"),
                Edit(EditKind.RENAMED, "h_in", new_name="h", old_index=1, new_index=1, by="position"),
                Edit(EditKind.RENAMED, "w_in", new_name="w", old_index=2, new_index=2, by="position"),
            ],
            id="a-block-of-renames",
        ),
        pytest.param(
            "m, n=1, k=2",
            "m, n, *, k=3",
            [
                Edit(
                    EditKind.KIND_CHANGED,
                    "k",
                    old_kind=Kind.POSITIONAL_OR_KEYWORD,
                    new_kind=Kind.KEYWORD_ONLY,
                ),
                Edit(EditKind.DEFAULT_CHANGED, "k", old_default="2", new_default="3"),
                Edit(EditKind.DEFAULT_CHANGED, "n", old_default="1", new_default=None),
            ][::1],
            id="kind-and-defaults",
        ),
        pytest.param(
            "m, *args",
            "m, **kw",
            [
                Edit(EditKind.REMOVED, "args", old_kind=Kind.VAR_POSITIONAL),
                Edit(EditKind.ADDED_OPTIONAL, "kw", new_kind=Kind.VAR_KEYWORD),
            ],
            id="variadics",
        ),
        pytest.param(
            "m, n, k",
            "n, m, k",
            [
                Edit(EditKind.MOVED, "m", old_index=0, new_index=1),
                Edit(EditKind.MOVED, "n", old_index=1, new_index=0),
            ],
            id="swapped",
        ),
        pytest.param(
            "m, n, k",
            "n, k",
            [Edit(EditKind.REMOVED, "m", old_index=0, old_kind=Kind.POSITIONAL_OR_KEYWORD)],
            id="a-shift-is-no-move",
        ),
        pytest.param("m, dim=(1, 2)", "m, dim=(1,2)", [], id="same-default-written-otherwise"),
    ],
)
def test_diff(old: str, new: str, edits: list[Edit]) -> None:
    got = diff(sig(old), sig(new))
    assert sorted(got, key=repr) == sorted(edits, key=repr)


def test_the_edits_come_in_a_fixed_order() -> None:
    # removed, renamed, added, then what changed about each kept parameter in old order, then variadics.
    # (`q` sits alone between `b` and `c`: a removed pair in one gap would make `a -> x` unknowable.)
    got = diff(sig("z, a, b, q, c=1, *args"), sig("z, x, b, d=0, *, c=2"))
    assert [(e.kind, e.name) for e in got] == [
        (EditKind.REMOVED, "q"),
        (EditKind.RENAMED, "a"),
        (EditKind.ADDED_OPTIONAL, "d"),
        (EditKind.KIND_CHANGED, "c"),
        (EditKind.DEFAULT_CHANGED, "c"),
        (EditKind.REMOVED, "args"),
    ]


def test_a_rename_hint_from_the_tests_is_marked_so() -> None:
    (e,) = diff(sig("a, b"), sig("a, z"), rename_hints={"b": "z"})
    assert (e.kind, e.by) == (EditKind.RENAMED, "tests")
    assert param_map([e], sig("a, b")) == {"a": "a", "b": "z"}
    assert e.as_json() == {
        "kind": "renamed",
        "name": "b",
        "text": "'b' renamed to 'z'",
        "new_name": "z",
        "old_index": 1,
        "new_index": 1,
        "by": "tests",
    }


def test_a_change_reaches_a_subclass_that_passes_its_kwargs_on() -> None:
    # `Sub(n, act="relu", **kwargs)` -> `super().__init__(n, **kwargs)`: its own signature never changed, and
    # `Sub(4, eps=1e-3)` broke with the base's rename, "no Op constructor changed".
    child = (
        "from lib.ops.reduce import ReduceOp\n\n\nclass SumOp(ReduceOp):\n"
        "    def __init__(self, n, act='relu', **kwargs):\n        super().__init__(n, **kwargs)\n"
    )
    old = {REDUCE: ops(cls("ReduceOp", "n, eps=1e-5")), "lib/ops/sum.py": child}
    new = {REDUCE: ops(cls("ReduceOp", "n, epsilon=1e-5")), "lib/ops/sum.py": child}
    found = changes(old, new)
    assert [c.name for c in found] == ["ReduceOp", "SumOp"]
    assert (
        found[1]
        .headline()
        .startswith("SumOp(n, act='relu', *, eps=1e-5) -> SumOp(n, act='relu', *, epsilon=1e-5)")
    ), found[1].headline()
    assert [(e.kind, e.name, e.new_name) for e in found[1].edits] == [(EditKind.RENAMED, "eps", "epsilon")]


LOSSES = "lib/ops/losses.py"


def _losses(exports: list[str], *classes: str) -> str:
    return f"__all__ = {exports!r}\n\n" + ops(*classes)


OLD_LOSSES = {
    LOSSES: _losses(
        ["FooLoss", "BarLoss"],
        cls("FooLoss", "reduction='mean'", body="self.f = 1"),
        cls("BarLoss", "reduction='mean', eps=1e-6", body="self.b = 1"),
    )
}
FOO_PROVEN = {("FooLoss", "FooCriterion"): {renames.TESTS}}


def _renamed(
    exports: list[str], baz_params: str = "reduction='mean', eps=1e-6", *more: str
) -> dict[str, str]:
    return {
        LOSSES: _losses(
            exports,
            cls("FooCriterion", "reduction='mean'", body="self.f = 2"),
            cls("BazCriterion", baz_params, body="self.z = 1"),
            *more,
        )
    }


def test_the_one_class_left_with_the_same_constructor_in_its_place_is_the_successor() -> None:
    found = changes(OLD_LOSSES, _renamed(["FooCriterion", "BazCriterion"]), votes=FOO_PROVEN)
    assert [(c.status, c.old and c.old.name, c.new and c.new.name, c.evidence) for c in found] == [
        ("renamed", "BarLoss", "BazCriterion", (renames.ELIMINATION,)),
        ("renamed", "FooLoss", "FooCriterion", (renames.TESTS,)),
    ]


@pytest.mark.parametrize(
    "new, votes",
    [
        pytest.param(
            _renamed(["FooCriterion", "BazCriterion"], "reduction='sum', eps=1e-6"),
            FOO_PROVEN,
            id="a-default",
        ),
        pytest.param(
            _renamed(["FooCriterion", "BazCriterion"], "reduction='mean'"), FOO_PROVEN, id="a-param"
        ),
        pytest.param(
            _renamed(["FooCriterion", "BazCriterion"], "reduction='mean', *, eps=1e-6"),
            FOO_PROVEN,
            id="a-kind",
        ),
        pytest.param(_renamed(["BazCriterion", "FooCriterion"]), FOO_PROVEN, id="another-place"),
        pytest.param(_renamed(["FooCriterion", "BazCriterion", "Extra"]), FOO_PROVEN, id="exports-grew"),
        pytest.param(_renamed(["FooCriterion"]), FOO_PROVEN, id="not-exported"),
        pytest.param(
            _renamed(["FooCriterion", "BazCriterion"], "reduction='mean', eps=1e-6", cls("Helper", "n")),
            FOO_PROVEN,
            id="two-classes-left",
        ),
        pytest.param(_renamed(["FooCriterion", "BazCriterion"]), {}, id="the-twin-unproven"),
    ],
)
def test_a_successor_by_elimination_needs_all_three(new: dict[str, str], votes: dict) -> None:
    by_old = {c.old.name: c for c in changes(OLD_LOSSES, new, votes=votes) if c.old is not None}
    assert by_old["BarLoss"].status == "removed"
    assert by_old["BarLoss"].new is None


def test_an_export_list_without_the_other_renames_proven_says_nothing() -> None:
    assert renames.takes_its_place("B", "Z", ["A", "B"], ["A", "Z"], {})
    assert renames.takes_its_place("B", "Z", ["A", "B"], ["C", "Z"], {"A": "C"})
    assert not renames.takes_its_place("B", "Z", ["A", "B"], ["C", "Z"], {})
    assert not renames.takes_its_place("B", "Z", ["A", "B"], ["Z", "A"], {})
    assert not renames.takes_its_place("B", "Z", ["A", "B", "B"], ["A", "Z", "B"], {})
