"""Planning a call's fix and applying it with libcst: (before, after) tables, and cases left alone."""

from __future__ import annotations

import ast

import pytest

from benchop_hook.analysis.callsites import Arg
from benchop_hook.analysis.edits import diff
from benchop_hook.analysis.signatures import from_function
from benchop_hook.fixing.plan import NoPlan, Status, Value, classify
from benchop_hook.fixing.planner import CallEvidence, plan
from benchop_hook.rewrite.edit import CallEdit, rewrite


def sig(src: str):
    return from_function(ast.parse(f"def f(self, {src}): pass").body[0])


def args_of(call_src: str) -> tuple[tuple[Arg, ...], ast.Call]:
    call = ast.parse(call_src, mode="eval").body
    assert isinstance(call, ast.Call)
    out = [Arg("pos", None, ast.unparse(a)) for a in call.args]
    out += [
        Arg("kw", k.arg, ast.unparse(k.value)) if k.arg else Arg("dstar", None, ast.unparse(k.value))
        for k in call.keywords
    ]
    return tuple(out), call


def no_value(name: str) -> Value:
    return Value(None, "no evidence")


def apply(call_src: str, old: str, new: str, value_for=no_value) -> str:
    args, call = args_of(call_src)
    o, n = sig(old), sig(new)
    p = plan(args, (o, n, tuple(diff(o, n))), CallEvidence(value_for))
    if isinstance(p, NoPlan):
        return f"NoPlan: {p.reason}"
    res = rewrite(call_src.encode(), [CallEdit(1, 0, call.end_lineno or 1, call.end_col_offset or 0, p.ops)])
    return (res.data or call_src.encode()).decode()


@pytest.mark.parametrize(
    "call, old, new, after",
    [
        pytest.param("Op(M, N, dtype)", "M, N, dtype", "N, dtype", "Op(N, dtype)", id="removed-positional"),
        pytest.param(
            "Op(M=1, N=2, dtype=d)", "M, N, dtype", "N, dtype", "Op(N=2, dtype=d)", id="removed-keyword"
        ),
        pytest.param("Op(M, hidden=h)", "M, hidden", "M, dim", "Op(M, dim=h)", id="renamed-keyword"),
        pytest.param(
            "Op(M, N, dtype, True)",
            "M, N, dtype, tune=False",
            "M, N, dtype, *, tune=False",
            "Op(M, N, dtype, tune=True)",
            id="positional-to-keyword-only",
        ),
        pytest.param("Op(m, n, k)", "M, N, K", "M, K, N", "Op(m, N=n, K=k)", id="reordered"),
        pytest.param(
            "Op(b, h, s, d, causal, dtype)",
            "batch, heads, seq_len, dim, causal, dtype",
            "batch, heads, seq_len, dim, dtype, kernel_map=None",
            "Op(b, h, s, d, dtype)",
            id="shifted-after-removal",
        ),
        pytest.param(
            "Op(b, s, dtype)",
            "batch, seq_len, dtype",
            "batch, heads, seq_len, dtype, *, causal=False",
            "NoPlan",
            id="inserted-required-no-evidence",
        ),
        pytest.param(
            "Op(\n    M,\n    N,\n    dtype,  # keep me\n)",
            "M, N, dtype",
            "N, dtype",
            "Op(\n    N,\n    dtype,  # keep me\n)",
            id="multiline-comments-kept",
        ),
        pytest.param(
            "Op(N, dtype)", "N, dtype", "N, dtype, dim", "Op(N, dtype, dim=dim)", id="new-required-from-scope"
        ),
    ],
)
def test_plan_and_rewrite(call, old, new, after):
    value_for = (
        (lambda name: Value(name, "in scope"))
        if "from-scope" in after or after.endswith("dim=dim)")
        else no_value
    )
    got = apply(call, old, new, value_for)
    if after == "NoPlan":
        assert got.startswith("NoPlan"), got
        assert "'heads'" in got
    else:
        assert got == after


def test_inserted_parameter_keeps_meaning_with_evidence():
    got = apply(
        "Op(b, s, dtype)",
        "batch, seq_len, dtype",
        "batch, heads, seq_len, dtype",
        lambda name: Value("8", "tests") if name == "heads" else no_value(name),
    )
    assert got == "Op(b, seq_len=s, dtype=dtype, heads=8)"


@pytest.mark.parametrize(
    "call, old, new, status",
    [
        ("Op(M, N, dtype)", "M, N, dtype", "N, dtype", Status.BROKEN),
        ("Op(M, N, dtype)", "M, N, dtype", "N, dtype, dim=-1", Status.SHIFTED),
        (
            "Op(M, h)",
            "M, hidden",
            "M, dim",
            Status.OK,
        ),  # a rename at the same position keeps a positional call's meaning
        ("Op(**params)", "M, N", "N", Status.UNKNOWN),
        ("Op(N, dtype)", "M, N, dtype", "N, dtype", Status.OK),  # already written for the new signature
        ("Op(x)", "M, N", "N", Status.OK),
        # TransformerEngine's MeshResource: a slot inserted third; the positional Nones move from one
        # None-defaulted slot to another, and every parameter keeps its value
        (
            "Op(dp, tp, None, None)",
            "dp, tp, fsdp=None, pp=None",
            "dp, tp, tpsp=None, fsdp=None, pp=None",
            Status.OK,
        ),
        # the same shift with a value that is not every slot's default still moves it
        (
            "Op(dp, tp, 2, None)",
            "dp, tp, fsdp=None, pp=None",
            "dp, tp, tpsp=None, fsdp=None, pp=None",
            Status.SHIFTED,
        ),
        (
            "Op(dp, tp, None, 1)",
            "dp, tp, fsdp=None, pp=None",
            "dp, tp, tpsp=None, fsdp=None, pp=None",
            Status.SHIFTED,
        ),
    ],
)
def test_classify(call, old, new, status):
    args, _ = args_of(call)
    o, n = sig(old), sig(new)
    assert classify(args, o, n, diff(o, n))[0] is status


@pytest.mark.parametrize(
    "old, after",
    [
        pytest.param("x, eps=0.5", "Op(x, eps=0.5)", id="a-value-is-pinned"),
        # lmdeploy's SchedulerSession(session_id, seq_manager=None) -> (session_id, seq_manager): None is what
        # the constructor stopped accepting (it reads seq_manager.seq_meta now).
        pytest.param(
            "x, eps=None",
            "NoPlan: it left 'eps' at None, which the new class requires a value for: None stood for what "
            "the old code worked out by itself, and no constant stands for that: pass eps by hand",
            id="none-is-not",
        ),
    ],
)
def test_a_default_that_became_required(old: str, after: str) -> None:
    assert apply("Op(x)", old, "x, eps") == after


def test_a_refused_file_says_which_call_stopped_each_of_its_rewrites() -> None:
    from benchop_hook.analysis.callsites import CallSite
    from benchop_hook.fixing.apply import _refused
    from benchop_hook.fixing.plan import ArgOp, Plan
    from benchop_hook.fixing.results import FileResult, Finding

    def finding(line: int, end: int, status: Status = Status.SHIFTED) -> Finding:
        site = CallSite(
            "b.py", line, 4, end, 20, "Op", (), frozenset(), None, None, None, frozenset(), "direct"
        )
        return Finding(site, "Op", status, "shifted", Plan((ArgOp("drop", 0),), (), "()"))

    base = FileResult("b.py", (finding(4, 4), finding(9, 12), finding(20, 20, Status.DEFAULT)))
    failed = [
        "line 10: a comment in this call would be lost or moved: fix it by hand",
        "line 10: call not found where expected",
    ]
    first, second, pin = _refused(base, failed).findings
    assert first.plan is None and second.plan is None
    # nanotron 19e8ee4: a default pin left unwritten binds and measures the new default: a hand edit, counted.
    assert pin.hand and pin.needs_action and not first.hand
    assert second.why_not == "not rewritten: " + failed[0]
    assert first.why_not == (
        "not rewritten: bench-op rewrites a file whole or not at all, and another edit in it was refused "
        "(line 10: a comment in this call would be lost or moved: fix it by hand)"
    )


@pytest.mark.parametrize(
    "reason, clause",
    [
        ("needs a value for 'dim'", "it needs a value for 'dim'"),
        ("passes x through *args, which bench-op does not rewrite", "it passes x through *args, which"),
        ("it did not bind the old signature either", "it did not bind the old signature either"),
        ("'dim' is positional-only now", "'dim' is positional-only now"),
        ("no edit found that makes it bind the new signature", "no edit found that makes it bind"),
    ],
)
def test_a_reason_reads_as_a_clause_after_not_rewritten(reason: str, clause: str) -> None:
    from benchop_hook.fixing.plan import as_clause

    assert as_clause(reason).startswith(clause)
