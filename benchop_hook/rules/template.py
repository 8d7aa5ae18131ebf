"""BO5xx: what the commit's own edits teach, weighed against what the call's own function holds."""

from __future__ import annotations

from benchop_hook.rules.facts import TemplateValue
from benchop_hook.rules.registry import rule
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
