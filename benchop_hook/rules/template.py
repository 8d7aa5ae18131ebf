"""BO5xx: what the commit's own edits teach. The tests the commit updated show the new call for their own
cases; their edit is repeated on a benchmark only where it means the same there, weighed against what the
call's own function holds, and reported where it does more than bench-op could repeat (rules/settled.py)."""

from __future__ import annotations

from benchop_hook.rules.facts import Found, TemplateValue
from benchop_hook.rules.registry import rule
from benchop_hook.rules.settled import answers
from benchop_hook.rules.verdicts import Prefer


@rule(
    "BO501",
    "the-shape-the-inputs-keep",
    summary="A template's one-element tuple `(n,)` of a variable the benchmark's function computes as the "
    "element count of a shape (`n = math.prod(shape)`) that its inputs are built from flattens what the "
    "inputs keep: `tuple(shape)` is tried first, the template's value next; both are guesses, and land once "
    "a run gives numbers.",
    motivated_by="TileOPs cdcee99c: the tests' `(n,)` for shape parameters, where the benchmark counted a "
    "multi-dimensional `shape` its inputs were built from",
    fires="`Op(n=n)` -> `Op(shape=(n,))` in the tests; the benchmark has `n = math.prod(shape)` and "
    "`Case(shape, dtype)`: `Op(shape=tuple(shape))`, then `Op(shape=(n,))`",
    quiet="the same template where `n` is the benchmark's parameter and its inputs are `Case(n, dtype)`: "
    "`(n,)` stands",
)
def the_shape_the_inputs_keep(f: TemplateValue) -> Prefer | None:
    if f.single is None or f.counts is None or f.built_from is None:
        return None
    scoped = f"tuple({f.counts})"
    return Prefer(
        "BO501",
        f.param,
        (scoped, f.value),
        f"the template's {f.value} would flatten what {f.built_from} keeps, as {f.single} counts the "
        f"elements of {f.counts}; {f.value} is the next candidate",
    )


also_changes = answers(
    "BO510",
    "template-also-changes",
    Found.TEMPLATE_ALSO_CHANGES,
    "hand",
    summary="Where the commit's own edit changes the value of a parameter the call passes, the call's value "
    "and the edit's disagree: a person says which the benchmark measures.",
    motivated_by="the design: the commit's edit of its own value is not the benchmark's",
    fires="the tests' `Op(n, eps=1e-5)` -> `Op(n, eps=1e-6, dim=-1)`, the benchmark passing `eps=1e-5`",
    quiet="the tests' edit leaves `eps` as it was",
)
passes_code = answers(
    "BO511",
    "template-passes-code",
    Found.TEMPLATE_CODE,
    "hand",
    summary="A value the commit's own edit writes as code of its own (a lambda) is the tests' stub, not a "
    "value a benchmark shares.",
    motivated_by="Megatron 9475bab: the tests pass `is_built_on_rank=lambda: True`",
    fires="the tests' new `Config(..., is_built_on_rank=lambda: True)`",
    quiet="the tests' new `Config(..., rank=0)`",
)
choice_not_shown = answers(
    "BO512",
    "choice-not-shown",
    Found.CHOICE_NOT_SHOWN,
    "hand",
    summary="A template that arranges several old values into one is shown only for the choices its pairs "
    "made: a call passing another choice may need another arrangement.",
    motivated_by="a `shape_b = (K, N)` learned from calls without `trans_b=True`",
    fires="`Gemm(m, n, k, trans_b=True)`, the pairs all without `trans_b`",
    quiet="`Gemm(m, n, k)`: the pairs' own choice",
)
half_edit = answers(
    "BO513",
    "half-an-edit",
    Found.HALF_EDIT,
    "hand",
    summary="Dropping a call's removed arguments is half of the commit's edit when its pairs also set "
    "another parameter and do not agree on one template: the edit is reported, not halved.",
    motivated_by="TileOPs: the softmax tests' edit drops `N`, `M` and sets `dim`",
    fires="`SoftmaxOp(m, n)` after the tests' pairs drop `M`, `N` and set `dim` in different ways",
    quiet="the pairs dropping `M` and setting nothing else",
)
fields_of_a_parameter = answers(
    "BO514",
    "fields-of-a-new-parameter",
    Found.FIELDS_OF_A_PARAMETER,
    "hand",
    summary="Removed keywords that are fields of the class a new parameter takes were folded into that "
    "object: dropping them one by one cannot be right, unless the commit's own edits show how to build it.",
    motivated_by="`Collector(backend=..., timeout=t)` -> `Collector(server=ServerConfig(...))`",
    fires="`Collector(backend='nccl', timeout=t)` after both moved into `ServerConfig`",
    quiet="the same, the tests showing `server=ServerConfig(backend=..., timeout=...)`",
)
retyped = answers(
    "BO515",
    "retyped",
    Found.RETYPED,
    "hand",
    summary="A keyword renamed to a parameter of another type (its annotation or its default's class "
    "changed) is reported with both types: a rename carries a slot, not its values, unless the commit's own "
    "edits show how values map.",
    motivated_by="the design: a value carried into a renamed slot of another type measures something else",
    fires="`Op(mode='fast')` after `mode: str` was renamed to `fast: bool`",
    quiet="`Op(use_sync=True)` after `use_sync: bool` was renamed to `sync: bool`",
)
overwritten = answers(
    "BO516",
    "overwritten",
    Found.OVERWRITTEN,
    "hand",
    summary="A parameter renamed by its slot that the commit's own edits set to a constant of their own: "
    "the call's value does not carry over, and nothing says what it becomes.",
    motivated_by="the design: a pair that replaces a value shows the tests' value, not the benchmark's",
    fires="the tests' `eps=1e-5` -> `epsilon=1e-6`, the benchmark passing `eps=1e-3`",
    quiet="the benchmark passing the old default, or nothing",
)
as_the_commit_shows = answers(
    "BO517",
    "as-the-commit-shows",
    Found.AS_THE_COMMIT_SHOWS,
    "pin",
    summary="A new parameter takes the value the commit's own pairs agree on, built from the call's own "
    "arguments: a guess from the tests, it lands only once a run gives numbers with it.",
    motivated_by="TileOPs: the norm tests' `M=m, N=n` -> `normalized_shape=(n,)`",
    fires="`LayerNormOp(M=m, N=hidden)` -> `LayerNormOp(normalized_shape=(hidden,))`",
    quiet="the pairs disagreeing on the value",
)
