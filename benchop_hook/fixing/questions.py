"""The rules' questions, built once per argument from what a judging path has at hand: the signatures, the
edits, and the evidence's answers. The judge, the splat path and the run's dict fixer build them here, so each
asks the rules the same question about the same call."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from benchop_hook.analysis.edits import Edit, EditKind
from benchop_hook.analysis.signatures import Kind, Param, Signature, same_default
from benchop_hook.fixing.choices import is_choice
from benchop_hook.rules.facts import Moved, MovedTo, RemovedValue

# A `moved` reason that names the parameter whose default the old constructor built from the removed one.
BUILT_FROM = "built the default of "
PART_OF = "built the part self."
FORGOTTEN = "nothing in the new class reads it"

_FUNCTION_WORDS = ("fn", "func", "function", "callback", "hook")


def moved_to(why: str) -> MovedTo:
    """A `moved` reason (`judging.moved_values`, `judging.defaults_lost`) as the rules read it."""
    if why.startswith(BUILT_FROM):
        return MovedTo(Moved.BUILT_FROM, why[len(BUILT_FROM) :])
    if why.startswith(PART_OF):
        return MovedTo(Moved.PART_OF, why[len(PART_OF) :])
    if why == FORGOTTEN:
        return MovedTo(Moved.FORGOTTEN)
    return MovedTo(Moved.ELSEWHERE, why)


def is_old_default(src: str, param: Param | None) -> bool:
    """`src` passes what the parameter took anyway: dropping it leaves the call's meaning as it was."""
    return src == "None" or (
        param is not None and param.default is not None and same_default(src, param.default)
    )


def takes_a_function(param: Param | None, src: str) -> bool:
    """A parameter that takes a function (`arg_func`, `input_fn`, `Callable[...]`), passed one other than
    its default: what the function does is what is measured (FlagGems 4e6cb3b2's `arg_func=unary_arg`,
    the input generator, imported from a helper module)."""
    if param is None or is_old_default(src, param):
        return False
    words = param.name.lower().split("_")
    return words[-1] in _FUNCTION_WORDS or "Callable" in (param.annotation or "")


def namesake_added(name: str, old: Signature, new: Signature) -> str | None:
    """A parameter only the new signature has that shares a word of three letters or more with `name`
    (`edge_feature`, `edge_attr`): maybe `name` renamed, where no rename was read."""
    words = {w for w in name.lower().split("_") if len(w) >= 3}
    for q in new.params:
        fresh = old.get(q.name) is None and q.kind not in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)
        if fresh and words & {w for w in q.name.lower().split("_") if len(w) >= 3}:
            return q.name
    return None


@dataclass(frozen=True)
class DropEvidence:
    """What a path knows beyond the signatures, for every removed value of one call."""

    drops_choice: Callable[[str, str], bool] | None = None  # the updated tests drop `p=value` the same way
    varies: Callable[[str], str | None] | None = None  # why a value is a choice across the benchmark's cases
    moved: Mapping[str, str] | None = None  # removed parameter -> what became of its value


def removed_value(
    index: int,
    param: str,
    source: str | None,
    keyword: bool,
    sigs: tuple[Signature, Signature, tuple[Edit, ...]],
    ev: DropEvidence,
) -> RemovedValue:
    """The drop question for one argument of a removed parameter (`source` None: a value nobody can see, as a
    dict's entry at run time, which is judged by what the parameter could hold)."""
    old, new, edits = sigs
    p = old.get(param)
    seen = source if source is not None else (p.default if p is not None and p.default is not None else None)
    slot = next(
        (e.contested for e in edits if e.kind is EditKind.REMOVED and e.name == param and e.contested), None
    )
    positional_only = any(
        e.kind is EditKind.REMOVED and e.name == param and e.by_position_only for e in edits
    )
    why = ev.moved.get(param) if ev.moved else None
    return RemovedValue(
        index=index,
        param=param,
        source=source,
        keyword=keyword,
        old_default=source is not None and is_old_default(source, p),
        # A value nobody can see is a choice when the parameter's own default is one (a flag, a mode).
        choice=(is_choice(source, p) if source is not None else seen is not None and _flag_like(seen, p)),
        varies=ev.varies(source) if ev.varies is not None and source is not None else None,
        function=takes_a_function(p, source) if source is not None else _takes_functions(p),
        tests_drop_it=bool(ev.drops_choice and source is not None and ev.drops_choice(param, source)),
        slot_taken_by=slot,
        by_position_only=positional_only,
        moved=moved_to(why) if why is not None else None,
        namesake=namesake_added(param, old, new),
    )


def _flag_like(default: str, p: Param | None) -> bool:
    """The parameter's default picks a behaviour: whatever an unseen value is, it may pick another."""
    return default != "None" and is_choice(default, None)


def _takes_functions(p: Param | None) -> bool:
    if p is None:
        return False
    return p.name.lower().split("_")[-1] in _FUNCTION_WORDS or "Callable" in (p.annotation or "")
