"""BO4xx: a default the call relies on changed. The benchmark measured the old value: pin it where it can be
written and means what it meant; otherwise say why, and ask a person where only a person can write it."""

from __future__ import annotations

from benchop_hook.rules.facts import ChangedDefault
from benchop_hook.rules.registry import rule
from benchop_hook.rules.verdicts import Hand, Keep, Note, Pin


@rule(
    "BO401",
    "default-respelled",
    summary="A new default that is the old value respelled (a re-export, the enum member of the same "
    "value, a "
    "member renamed with its value) is no change: nothing to pin.",
    motivated_by="MONAI d25e4e56e: `mode='bilinear'` -> `mode=InterpolateMode.BILINEAR`",
    fires="`act='relu'` -> `act=Act.RELU` where `Act.RELU == 'relu'`",
    quiet="`act='relu'` -> `act='gelu'`",
)
def default_respelled(f: ChangedDefault) -> Keep | None:
    return Keep("BO401") if f.same_meaning else None


@rule(
    "BO402",
    "old-default-not-writable",
    summary="An old default that can't be written at the call as it stood (a name the benchmark lacks or "
    "means "
    "otherwise, a value the new annotation excludes) is not pinned: the report says why.",
    motivated_by="flax 2d32f287: `initializers` in the benchmark is another module",
    fires="`init_fn=initializers.zeros` where the benchmark's `initializers` is not the package's",
    quiet="`eps=1e-6`: a constant, pinned (BO408)",
)
def old_default_not_writable(f: ChangedDefault) -> Note | None:
    why = f.not_pinnable
    return Note("BO402", f"{f.what}; {why}") if why is not None else None


@rule(
    "BO403",
    "old-default-refused-now",
    summary="An old default the new code refuses (a member that is gone, an enum conversion with no such "
    "member, "
    "a type the annotation excludes) is not pinned: pinned, the call would fail or mean something else.",
    motivated_by="MONAI 840ffad64: an enum conversion with no such member",
    fires="`mode=Mode.OLD` when the new class converts through an enum without `OLD`",
    quiet="`mode=Mode.FAST` when `FAST` is still a member",
)
def old_default_refused_now(f: ChangedDefault) -> Note | None:
    why = f.rejected_now
    return Note("BO403", f"{f.what}; {why}") if why is not None else None


@rule(
    "BO404",
    "tests-swap-the-values",
    summary="A changed default whose two values the commit's tests swap has changed meaning, not value: "
    "the old "
    "value is not the old behaviour, so it is not pinned.",
    motivated_by="MONAI 38d73e83e",
    fires="`align=True` -> `align=False` where the tests turn `True` into `False` and `False` into `True`",
    quiet="the same change with tests that keep passing `True`",
)
def tests_swap_the_values(f: ChangedDefault) -> Note | None:
    why = f.swapped
    return Note("BO404", f"{f.what}; {why}") if why is not None else None


@rule(
    "BO405",
    "tests-adopt-the-new-default",
    summary="When the updated tests moved to the new default, the new default is what is meant: no pin.",
    motivated_by="FBGEMM f592c6d: the tests moved to the new `StepMode`",
    fires="`mode` default FAST -> SLOW, and the updated tests now pass SLOW where they passed FAST",
    quiet="the same change with tests untouched",
)
def tests_adopt_the_new_default(f: ChangedDefault) -> Note | None:
    how = f.adopted
    if how is None:
        return None
    return Note("BO405", f"{f.what}; not pinned: the updated tests use the new default ({how})")


@rule(
    "BO406",
    "none-stood-for-a-value",
    summary="A None default the old constructor turned into a value stood for that value: a person pins it, "
    "since pinning None would now mean something else.",
    motivated_by="kornia 865de5d6: `device=None` stood for `torch.device('cuda')`",
    fires="`device=None` -> `device='cpu'`, where the old body set `device = device or torch.device('cuda')`",
    quiet="`device=None` -> `device='cpu'` where the old body passed None on",
    guard=True,
)
def none_stood_for_a_value(f: ChangedDefault) -> Hand | None:
    meant = f.meant_by_none
    if meant is None:
        return None
    return Hand(
        "BO406",
        f"not pinned: the old constructor turned None into {meant}; pin {f.param}={meant} by hand",
    )


@rule(
    "BO407",
    "pin-by-hand",
    summary="An old default bench-op can't write at the call (its name is not imported there) is pinned by a "
    "person: left alone, the benchmark measures the new default.",
    motivated_by="TileOPs: a default `Mode.FAST` whose `Mode` the benchmark does not import",
    fires="`mode=Mode.FAST` -> `Mode.SLOW`, and the benchmark does not import `Mode`",
    quiet="the same change where the benchmark imports `Mode` (BO408 pins it)",
    guard=True,
)
def pin_by_hand(f: ChangedDefault) -> Hand | None:
    note = f.by_hand
    return Hand("BO407", note) if note is not None else None


@rule(
    "BO408",
    "pin-old-default",
    summary="Any other changed default the call relies on is pinned to its old value: the benchmark "
    "measured it.",
    motivated_by="TileOPs: `tune=False` -> `tune=True`",
    fires="`Op(n)` after `eps=1e-6` became `eps=1e-5`: `Op(n, eps=1e-6)`",
    quiet="`Op(n, eps=1e-6)`: the call passes it, and relies on no default",
)
def pin_old_default(f: ChangedDefault) -> Pin:
    return Pin(
        "BO408",
        f.param,
        f.old_default,
        f"{f.param}={f.old_default} pinned: the default changed to {f.new_default}, and the benchmark "
        "measured "
        f"{f.old_default}",
    )
