"""Signatures, binding and typed edits: pure functions, tested with strings."""

from __future__ import annotations

import ast

import pytest

from benchop_hook.analysis.binding import CallShape, bind
from benchop_hook.analysis.edits import EditKind, diff
from benchop_hook.analysis.signatures import Kind, from_function, is_constant_source


def sig(src: str):
    fn = ast.parse(f"def __init__(self, {src}): pass").body[0]
    return from_function(fn)


@pytest.mark.parametrize(
    "old, new, kinds",
    [
        pytest.param("M, N, dtype", "N, dtype", {EditKind.REMOVED}, id="removed"),
        pytest.param("N, dtype", "N, dtype, dim", {EditKind.ADDED_REQUIRED}, id="added-required"),
        pytest.param("N, dtype", "N, dtype, dim=-1", {EditKind.ADDED_OPTIONAL}, id="added-default"),
        pytest.param("M, hidden, dtype", "M, dim, dtype", {EditKind.RENAMED}, id="renamed-same-position"),
        pytest.param(
            "M, hidden: int, dtype",
            "M, dim: float, dtype",
            {EditKind.REMOVED, EditKind.ADDED_REQUIRED},
            id="not-renamed-annotation-differs",
        ),
        pytest.param("M, N, tune=False", "M, N, *, tune=False", {EditKind.KIND_CHANGED}, id="keyword-only"),
        pytest.param("M, N, K", "M, K, N", {EditKind.MOVED}, id="reordered"),
        pytest.param("M, N, dim=-1", "M, N, dim=0", {EditKind.DEFAULT_CHANGED}, id="default-changed"),
        pytest.param("M, N, dtype", "M, N, dtype", set(), id="unchanged"),
        pytest.param(
            "M, N, dtype",
            "N, dtype, dim=-1",
            {EditKind.REMOVED, EditKind.ADDED_OPTIONAL},
            id="shift-is-not-move",
        ),
    ],
)
def test_diff_kinds(old, new, kinds):
    assert {e.kind for e in diff(sig(old), sig(new))} == kinds


@pytest.mark.parametrize(
    "old, new",
    [
        pytest.param("M, hidden, eps=1e-5", "normalized_shape, eps=1e-5", id="two-went-one-came"),
        pytest.param("M, N, K, dtype", "shape, dtype", id="three-went-one-came"),
        pytest.param("a, b, c", "a, d", id="two-went-one-came-at-the-end"),
    ],
)
def test_no_rename_by_position_when_more_went_than_came(old, new):
    # Which of the removed parameters became the new one (if any) is unknown: carrying M into
    # normalized_shape would bind and measure something else.
    edits = diff(sig(old), sig(new))
    assert not [e for e in edits if e.kind is EditKind.RENAMED]
    assert next(e.contested for e in edits if e.kind is EditKind.REMOVED) is not None


@pytest.mark.parametrize(
    "old, new",
    [
        # composer b16caab5: the last parameter gone, three in its place.
        pytest.param(
            "opt, steps=None, max_epochs=None",
            "opt, steps=None, samples_per_epoch=None, num_tokens=None, duration=None",
            id="one-went-three-came-at-the-end",
        ),
        # flax b5db513f: `use_ref` gone, four keyword-only ones in its place.
        pytest.param(
            "value, *, use_ref=None, **meta",
            "value, *, is_hijax=None, has_ref=False, is_mutable=True, sharding=None, **meta",
            id="one-went-four-came-keyword-only",
        ),
    ],
)
def test_no_rename_by_position_when_more_came_than_went_at_the_end(old, new):
    edits = diff(sig(old), sig(new))
    assert not [e for e in edits if e.kind is EditKind.RENAMED]


def test_a_renamed_last_parameter_is_still_renamed():
    edits = diff(sig("x, dtype, tune_all=False"), sig("x, dtype, tune=False"))
    assert [(e.name, e.new_name) for e in edits if e.kind is EditKind.RENAMED] == [("tune_all", "tune")]
    # TileOPs 39308ee0: the one required slot renamed, an option appended after it.
    edits = diff(sig("x"), sig("input, decimals=0"))
    assert [(e.name, e.new_name) for e in edits if e.kind is EditKind.RENAMED] == [("x", "input")]


def test_block_of_renames_is_still_renames():
    edits = diff(sig("x, d_in, h_in, w_in, dtype"), sig("x, d, h, w, dtype"))
    assert sorted((e.name, e.new_name) for e in edits if e.kind is EditKind.RENAMED) == [
        ("d_in", "d"),
        ("h_in", "h"),
        ("w_in", "w"),
    ]


def test_rename_hint_from_tests_wins_over_position():
    edits = diff(sig("a, b, c"), sig("x, b, y"), rename_hints={"c": "x"})
    renames = {(e.name, e.new_name) for e in edits if e.kind is EditKind.RENAMED}
    assert ("c", "x") in renames


def test_render_roundtrip():
    s = sig("M, N, /, dtype, *args, tune=False, **kw")
    assert s.render() == "(M, N, /, dtype, *args, tune=False, **kw)"
    assert sig("N, dtype, dim=-1, *, tune=False").render() == "(N, dtype, dim=-1, *, tune=False)"
    assert [p.kind for p in s.params][:2] == [Kind.POSITIONAL_ONLY, Kind.POSITIONAL_ONLY]


@pytest.mark.parametrize(
    "params, shape, ok, error",
    [
        ("M, N, dtype", CallShape(3, ()), True, None),
        ("N, dtype", CallShape(3, ()), False, "takes 2 positional arguments but 3 were given"),
        ("N, dtype", CallShape(1, ("dtype", "M")), False, "unexpected keyword argument 'M'"),
        ("N, dtype", CallShape(2, ("dtype",)), False, "multiple values for argument 'dtype'"),
        ("N, dtype, dim", CallShape(2, ()), False, "missing 1 required argument: 'dim'"),
        ("N, *, tune=False", CallShape(2, ()), False, "takes 1 positional argument but 2 were given"),
        ("N, **kw", CallShape(1, ("anything",)), True, None),
    ],
)
def test_bind(params, shape, ok, error):
    b = bind(sig(params), shape)
    assert b.ok is ok
    if error:
        assert error in (b.error or "")


@pytest.mark.parametrize(
    "src, ok", [("-1", True), ("torch.float16", True), ("(1, 2)", True), ("dim", False), ("f(x)", False)]
)
def test_constant_source(src, ok):
    assert is_constant_source(src) is ok


def test_a_rename_pairs_places_among_the_kept_parameters_not_indexes():
    # BitBLAS: a leading parameter went, so every index moved by one; by index dtypeAB would become
    # out_dtype. Among the kept parameters both are the first after K.
    edits = diff(
        sig("enable_simplify=True, M=None, K=None, dtypeAB='f16', dtypeC='f16', acc='f16'"),
        sig("M=None, K=None, in_dtype='f16', out_dtype='f16', acc='f16'"),
    )
    renames = {(e.name, e.new_name) for e in edits if e.kind is EditKind.RENAMED}
    assert renames == {("dtypeAB", "in_dtype"), ("dtypeC", "out_dtype")}


@pytest.mark.parametrize(
    "old, new, removed, contested",
    [
        # BitBLAS: `forward(weight, res)` -> `forward(inp, out=None)`: a value for res now reaches out.
        pytest.param("weight, res", "inp, out=None", "res", "out", id="required-became-optional"),
        # torchtitan: sequences became tokens in the same keyword-only slot.
        pytest.param(
            "*, batch=8, seq=2048", "*, tokens=16384, seq=2048", "batch", "tokens", id="another-default"
        ),
    ],
)
def test_a_slot_that_changed_what_it_takes_is_contested_not_renamed(old, new, removed, contested):
    edits = diff(sig(old), sig(new))
    assert not [e for e in edits if e.kind is EditKind.RENAMED and e.name == removed]
    assert next(e.contested for e in edits if e.kind is EditKind.REMOVED and e.name == removed) == contested


@pytest.mark.parametrize(
    "old, new, text",
    [
        pytest.param("m, dim=-1", "m, dim=0", "'dim' default -1 -> 0", id="changed"),
        pytest.param(
            "m, mgr=None", "m, mgr", "'mgr' is now required (default None before)", id="now-required"
        ),
    ],
)
def test_a_default_change_reads_as_what_it_is(old: str, new: str, text: str) -> None:
    (edit,) = [e for e in diff(sig(old), sig(new)) if e.kind is EditKind.DEFAULT_CHANGED]
    assert edit.explain() == text


@pytest.mark.parametrize(
    "old, new, narrower",
    [
        pytest.param("dp_pg, acc", "dp_cp_pg, acc", True, id="a-word-added-in-the-middle"),
        pytest.param("block_size, n", "kv_block_size, n", True, id="a-word-added-in-front"),
        pytest.param("seq_len_q, n", "max_seqlen_q, n", False, id="respelled-with-a-word-is-no-extension"),
        pytest.param("kv_stride, n", "stride_kv, n", False, id="reordered"),
    ],
)
def test_a_name_with_a_word_added_is_no_rename(old: str, new: str, narrower: bool) -> None:
    # nanotron 7bc9923: dp_pg -> dp_cp_pg is another process group; carrying parallel_context.dp_pg over
    # reduced gradients over the wrong ranks. Contested, for a keyword too.
    edits = diff(sig(old), sig(new))
    renamed = [e for e in edits if e.kind is EditKind.RENAMED]
    if narrower:
        (gone,) = [e for e in edits if e.kind is EditKind.REMOVED]
        assert not renamed and gone.contested == new.split(",")[0] and not gone.by_position_only
    else:
        assert [(e.name, e.new_name) for e in renamed] == [(old.split(",")[0], new.split(",")[0])]


def test_a_headline_shows_a_signature_too_long_to_read_by_its_size() -> None:
    # sglang's ServerArgs has some 300 fields: rendered whole, one added field made a 20 KB line.
    from benchop_hook.analysis.changes import OpChange
    from benchop_hook.analysis.modules import ClassRef

    many = ", ".join(f"option_{i}=None" for i in range(300))
    old, new = sig(many), sig(many + ", extra=0")
    ref = ClassRef("srt.server_args", "ServerArgs")
    line = OpChange("changed", ref, ref, old, new, tuple(diff(old, new))).headline()
    assert line == "ServerArgs(300 parameters) -> ServerArgs(301 parameters)"
    short = OpChange("changed", ref, ref, sig("M, N"), sig("N"), tuple(diff(sig("M, N"), sig("N"))))
    assert short.headline() == "ServerArgs(M, N) -> ServerArgs(N)"


def test_a_parameter_the_function_refuses_at_once_is_not_in_its_signature() -> None:
    # Megatron ffbc43f: `inference_wrapper_config=None` kept at the end, raising TypeError when passed: a
    # positional config rewritten to that keyword bound, then raised.
    fn = ast.parse(
        "def __init__(self, model, ctx=None, cfg=None, *, old=None):\n"
        '    """doc"""\n'
        "    if cfg is not None:\n        raise TypeError('cfg is gone: pass ctx')\n"
        "    if old is not None:\n        raise TypeError('old is gone')\n"
        "    self.model = model\n"
    ).body[0]
    assert from_function(fn).render() == "(model, ctx=None)"
    # A refused parameter with a positional one after it keeps its place (the slot still binds).
    mid = ast.parse("def f(self, a=None, b=None):\n    if a is not None:\n        raise ValueError\n").body[0]
    assert from_function(mid).render() == "(a=None, b=None)"
