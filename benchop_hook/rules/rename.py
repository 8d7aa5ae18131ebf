"""BO6xx: a parameter under a new name. A rename carries a slot, and a value only where the new parameter
means what the old one meant."""

from __future__ import annotations

from benchop_hook.rules.facts import BodyRename, Found, RenamedValue
from benchop_hook.rules.registry import rule
from benchop_hook.rules.settled import answers
from benchop_hook.rules.verdicts import Hand, Rename


@rule(
    "BO601",
    "rename-the-body-shows",
    summary="A removed parameter and an added one that the constructor's body uses at exactly the same "
    "places, with "
    "the same default and type, are one parameter renamed: a call's value carries over to the new name.",
    motivated_by="`Timer(use_sync=True)` -> `Timer(sync=True)`, `if self.use_sync:` become `if self.sync:`",
    fires="`Timer(use_sync=True)` -> `Timer(sync=True)`, even where the tests' one pair passes `sync=False`",
    quiet="`use_sync=True` -> `sync=False`: another default, so more than a name changed",
)
def rename_the_body_shows(f: BodyRename) -> Rename | None:
    if not (f.exact and f.same_default and f.same_annotation) or f.new.startswith("_"):
        return None  # (a leading underscore: a parameter the class's own subclasses pass, not its callers)
    return Rename("BO601", f.old, f.new)


@rule(
    "BO602",
    "rename-through-another-transform",
    summary="A parameter renamed whose value the new body uses through another transform is not carried "
    "over: "
    "`log_scale=0.5` into `scale=` measures 0.5 where it measured e^0.5.",
    motivated_by="a prior whose `log_scale` became `scale`, the `exp()` gone from the body",
    fires="`Prior(log_scale=0.5)` after `self.scale = exp(log_scale)` became `self.scale = scale`",
    quiet="`Prior(log_scale=0.5)` after `log_scale` became `log_sigma` with `exp()` kept",
    guard=True,
)
def rename_through_another_transform(f: RenamedValue) -> Hand | None:
    if f.transformed is None:
        return None
    old_expr, new_expr = f.transformed
    return Hand(
        "BO602",
        f"passes {f.param}={f.source}; '{f.param}' became '{f.new}', and the new class uses it as "
        f"{new_expr} where "
        f"it used {old_expr}: pass the {f.new} that means the same, by hand",
    )


signature_rename = answers(
    "BO603",
    "renamed-in-the-signature",
    Found.SIGNATURE_RENAME,
    "rename",
    summary="A keyword whose parameter the signatures pair with a new name (the same slot, kind and "
    "default, a related name, or a rename the commit's tests show) is passed under the new name with its "
    "value.",
    motivated_by="the design: a rename the signatures pair carries the value under the new name",
    fires="`Op(n_total=n)` after `n_total` became `n`: `Op(n=n)`",
    quiet="`Op(n)`: positional, the slot carries it",
)
