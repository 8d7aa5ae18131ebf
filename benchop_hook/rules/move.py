"""BO7xx: a value the change moved elsewhere. Dropped from this call, it would be missing where it went."""

from __future__ import annotations

from benchop_hook.rules.facts import Found, MovedOut
from benchop_hook.rules.registry import rule
from benchop_hook.rules.settled import answers
from benchop_hook.rules.verdicts import Hand


@rule(
    "BO701",
    "moved-to-the-constructor",
    summary="A method's parameter the call passes that the class's constructor takes now, with a default "
    "other "
    "than the value passed, is passed where the object is built, by a person: dropped, the method would "
    "run with "
    "the constructor's default.",
    motivated_by="`generate(p, max_new_tokens=1000)` once `max_new_tokens=256` is the constructor's",
    fires="`gen.generate(p, max_new_tokens=1000)` after `max_new_tokens` moved to `Generator(...)`",
    quiet="`gen.generate(p, max_new_tokens=256)`: the constructor's default is what it passed",
    guard=True,
)
def moved_to_the_constructor(f: MovedOut) -> Hand | None:
    return Hand("BO701", f.reason) if f.kind == "to-constructor" else None


@rule(
    "BO702",
    "refused-now",
    summary="A value for a parameter the constructor required before and refuses now is not dropped: what "
    "replaces it is not in the signature.",
    motivated_by="Megatron ffbc43f: `inference_wrapper_config`, required, then refused",
    fires="`Wrapper(model, config)` after `config` became a parameter the constructor raises on",
    quiet="`Wrapper(model, config)` after `config` left for good, read from nothing",
    guard=True,
)
def refused_now(f: MovedOut) -> Hand | None:
    return Hand("BO702", f.reason) if f.kind == "refused-now" else None


@rule(
    "BO703",
    "required-elsewhere",
    summary="A value for a parameter that the same change made required in another class or method goes "
    "there, "
    "by hand: dropped, the other call would lack it.",
    motivated_by="Megatron 9475bab: `is_built_on_rank` left the dataset config for the builder",
    fires="`Config(n, is_built_on_rank=f)` after `Builder(cfg, is_built_on_rank)` gained it as required",
    quiet="`Config(n)`: nothing passed for it",
    guard=True,
)
def required_elsewhere(f: MovedOut) -> Hand | None:
    return Hand("BO703", f.reason) if f.kind == "required-elsewhere" else None


# Classes that moved, were renamed or removed (rules/settled.py).
class_removed = answers(
    "BO704",
    "class-removed",
    Found.CLASS_REMOVED,
    "hand",
    summary="A call of a class the change removed with nothing in its place is reported: no successor, no "
    "rewrite.",
    motivated_by="TileOPs: benchmark cases of GQA prefill Ops removed with their kernels",
    fires="`GQAPrefillWithKVCacheFwdTest(...)` after the class was deleted",
    quiet="`GQAPrefillFwdTest(...)` after the class was renamed",
    says="no successor to rewrite to: remove or replace this benchmark case by hand",
)
import_of_removed = answers(
    "BO705",
    "import-of-removed",
    Found.IMPORT_OF_REMOVED,
    "hand",
    summary="An import of a class removed with no successor, where that import provably fails, is a hand "
    "edit on the import statement: the file would fail before any call.",
    motivated_by="torchao 8d4a921: `NVFP4MMConfig` left in an import whose other names were rewritten",
    fires="`from pkg import Gone, Kept` after `Gone` was deleted",
    quiet="the same import where the package still re-exports `Gone`",
    says="remove or replace it by hand",
)
class_renamed = answers(
    "BO706",
    "class-follows-its-rename",
    Found.CLASS_RENAMED,
    "rename",
    summary="A call of a class the change renamed or moved, that binds the successor as it bound the class, "
    "names the successor: the import and the called name follow it, the arguments stay.",
    motivated_by="TileOPs: `GQAPrefillFwdTest` renamed with its Op family",
    fires="`OldOp(n)` after `OldOp` became `NewOp` with the same constructor",
    quiet="`OldOp(n)` where `OldOp` is still importable (a re-export)",
)
successor_unreadable = answers(
    "BO707",
    "successor-unreadable",
    Found.SUCCESSOR_UNREADABLE,
    "run",
    summary="A call of a renamed or moved class whose successor's constructor bench-op can't read is left "
    "to the run; its import follows the class.",
    motivated_by="the design: the successor's binding is unknown, not broken",
    fires="`OldOp(n)` after `OldOp` became `NewOp = build_op(...)`",
    quiet="`OldOp(n)` after `OldOp` became `class NewOp` with a readable constructor",
    says="left to the run: the import follows the class, and the run tells whether the call binds",
)
successor_slot = answers(
    "BO708",
    "successor-slot-unrelated",
    Found.SUCCESSOR_SLOT,
    "hand",
    summary="Where a renamed class's successor takes a parameter with an unrelated name in a slot the call "
    "fills, only the slot pairs them: two classes, two names, and what the successor wants there is a "
    "person's to say.",
    motivated_by="flax: `PytreeOptimizer(params, tx)` -> `ModelAndOptimizer(model, tx)`",
    fires="`PytreeOptimizer(params, tx)` after the rename",
    quiet="`Timer(n, use_sync)` -> `TimerOp(n, sync)`: related names",
)
member_gone = answers(
    "BO709",
    "member-gone",
    Found.MEMBER_GONE,
    "hand",
    summary="`Old.member` in a benchmark, where the class was renamed or moved and its successor has no "
    "such member, is a hand edit on that line: the import edit alone leaves an AttributeError.",
    motivated_by="pyg 1acbf5dd: `DiffNorm.groupDistanceRatio` after `DiffGroupNorm`'s `group_distance_ratio`",
    fires="`DiffNorm.groupDistanceRatio(x)` after the rename",
    quiet="`DiffNorm(...)`: the call follows the class",
    says="fix it by hand",
)
import_from_moved = answers(
    "BO710",
    "import-from-a-moved-module",
    Found.IMPORT_FROM_MOVED,
    "hand",
    summary="An import of names that moved, from a module that no longer gives them, whose edit bench-op "
    "could not write, is a hand edit on the import statement.",
    motivated_by="vllm 400d483: `from pkg.v1 import V1Meta, v1_shrink`, the module gone",
    fires="`from pkg.v1 import Meta, shrink` after `Meta` moved and `shrink` was deleted",
    quiet="`from pkg.v1 import Meta` after `Meta` moved: the import is rewritten",
)
routed = answers(
    "BO711",
    "choice-has-its-own-class",
    Found.ROUTED,
    "keep",
    summary="A call whose choice the successor no longer takes is rewritten to the one class the commit "
    "built for that choice, when the call binds it with the same meaning.",
    motivated_by="the design: `Conv2dOp(..., bias=True)` split into `Conv2dFwdOp` and `Conv2dBiasFwdOp`",
    fires="`Conv2dOp(..., bias=True)` -> `Conv2dBiasFwdOp(...)`, the only class built for `bias=True`",
    quiet="the same, the commit building two classes for it",
)
several_routes = answers(
    "BO712",
    "several-classes-for-the-choice",
    Found.SEVERAL_ROUTES,
    "hand",
    summary="A choice the successor no longer takes, for which the commit built several classes, is a "
    "person's to route.",
    motivated_by="the design: picking one of several classes is a choice",
    fires="`Conv2dOp(..., bias=True)` after `bias` left for `Conv2dBiasFwdOp` and `Conv2dBiasAddFwdOp`",
    quiet="the commit building one class for it",
)
by_elimination = answers(
    "BO713",
    "successor-by-elimination",
    Found.BY_ELIMINATION,
    "rename",
    summary="A removed class whose successor nothing but elimination names follows it only when all three "
    "hold: it is the only class that appeared in its module once every proven rename is taken, its "
    "constructor is the same (parameters, kinds, defaults), and it stands where the removed class stood in "
    "the module's export list. Then the call names the successor, as for any rename; with one of the three "
    "missing, or two classes left, the call is reported as removed.",
    motivated_by="first contact: `BarLoss` -> `BazCriterion` beside `FooLoss` -> `FooCriterion`, both in "
    "`__all__`",
    fires="`BarLoss(reduction='sum')` -> `BazCriterion(reduction='sum')`, the one class left, same "
    "constructor, same place in `__all__`",
    quiet="the same, the new class taking another parameter or another place in `__all__`, or two classes "
    "left",
)
