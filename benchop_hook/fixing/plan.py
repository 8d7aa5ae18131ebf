"""Judge one call against an Op change, and plan the smallest edit that makes it bind with the same meaning.

Pure: a call is its argument list (kind, keyword, source text); the result is
either a `Plan` (operations on that list) or a `NoPlan` with the reason. A plan
is only returned when the rewritten call binds the new signature and every
argument reaches the parameter it reached before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from benchop_hook.analysis.binding import CallShape, bind
from benchop_hook.analysis.callsites import Arg, ArgKind
from benchop_hook.analysis.edits import Edit, EditKind, param_map
from benchop_hook.analysis.signatures import (
    Kind,
    Param,
    Signature,
    expr_key,
    free_names,
    is_constant_source,
    same_default,
)
from benchop_hook.fixing.choices import is_choice


class Status(str, Enum):
    OK = "ok"
    BROKEN = "does not bind the new signature"
    SHIFTED = "still binds, but an argument now reaches another parameter"
    DEFAULT = "relies on a default that changed"
    UNKNOWN = "cannot be judged statically"
    GONE = "names an Op that no longer exists"
    AMBIGUOUS = "may build Ops that disagree"
    STALE = "did not bind the old signature either"


@dataclass(frozen=True)
class ArgOp:
    # "drop", "rename", "to_kw", "add_kw"; "set": the argument becomes name=value, in its place; "after":
    # name=value is added right after the argument (after its "set"); "func_attr": the called attribute
    # becomes `name` (a class renamed where the call reads it, `mk.Old(...)` -> `mk.New(...)`)
    op: str
    index: int | None = None  # position in the call's argument list
    name: str | None = None
    value: str | None = None


@dataclass(frozen=True)
class Plan:
    ops: tuple[ArgOp, ...]
    notes: tuple[str, ...]
    preview: str  # the argument list after the edit, e.g. "(N, dtype, dim=-1)"


@dataclass(frozen=True)
class NoPlan:
    reason: str
    missing: tuple[str, ...] = ()
    choice: tuple[int, str, str] | None = None  # (argument index, parameter, value): a choice with no home


_FUNCTION_WORDS = ("fn", "func", "function", "callback", "hook")


def _takes_a_function(param: Param | None, src: str) -> bool:
    """A parameter that takes a function (`arg_func`, `input_fn`, `Callable[...]`), passed one other than
    its default: what the function does is what is measured (FlagGems 4e6cb3b2's `arg_func=unary_arg`,
    the input generator, imported from a helper module)."""
    if param is None or _is_old_default(src, param):
        return False
    words = param.name.lower().split("_")
    return words[-1] in _FUNCTION_WORDS or "Callable" in (param.annotation or "")


def _is_old_default(src: str, param: Param | None) -> bool:
    """`src` passes what the parameter took anyway: dropping it leaves the call's meaning as it was."""
    return src == "None" or (
        param is not None and param.default is not None and same_default(src, param.default)
    )


def as_clause(reason: str) -> str:
    """A NoPlan reason after "it": most read as what the call does ("passes ...", "needs ..."); the others
    already have their subject ("it did not bind ...", "'x' is positional-only now", "no edit found ...")."""
    return reason if reason.startswith(("it ", "'", "no ")) else f"it {reason}"


@dataclass(frozen=True)
class Value:
    source: str | None
    reason: str  # where the value comes from, or why there is none
    shown: bool = False  # the commit's own edits build the parameter this way (their agreed template)


def shape(args: Sequence[Arg]) -> CallShape:
    return CallShape(
        sum(1 for a in args if a.kind == "pos"),
        tuple(a.keyword for a in args if a.kind == "kw" and a.keyword),
        any(a.kind == "star" for a in args),
        any(a.kind == "dstar" for a in args),
    )


def targets_of(args: Sequence[Arg], sig: Signature) -> list[str] | None:
    """The parameter each argument reaches, in order; None when the arguments don't bind `sig`."""
    return _targets(args, sig)


def _targets(args: Sequence[Arg], sig: Signature) -> list[str] | None:
    b = bind(sig, shape(args))
    if not b.ok:
        return None
    kw = dict(b.keywords)
    out: list[str] = []
    k = 0
    for a in args:
        if a.kind == "pos":
            out.append(b.positional[k])
            k += 1
        else:
            out.append(kw[a.keyword or ""])
    return out


def positional_splat_unharmed(args: Sequence[Arg], old: Signature, new: Signature) -> bool:
    """A call of positional arguments and `*args` only binds whatever they hold the same way before and
    after when nothing but the `**kwargs` changed (BitBLAS b952851: `self.matmul(*args)`, when
    `__call__(*args, **kwds)` became `__call__(*args)`): the parameters they reach, and the defaults of the
    keyword-only ones they rely on, are the same."""

    def kept(sig: Signature) -> list[Param]:
        return [p for p in sig.params if p.kind is not Kind.VAR_KEYWORD]

    return all(a.kind in ("pos", "star") for a in args) and kept(old) == kept(new)


def classify(
    args: Sequence[Arg], old: Signature, new: Signature, edits: Sequence[Edit]
) -> tuple[Status, str]:
    """What is wrong with a call after the change, as (status, sentence)."""
    sh = shape(args)
    if sh.splatted:
        return Status.UNKNOWN, "passes *args/**kwargs, so only a run can tell whether it binds"
    ob = bind(old, sh)
    nb = bind(new, sh)
    if not nb.ok:
        if not ob.ok:
            return Status.STALE, f"did not bind the old signature either ({ob.error})"
        return Status.BROKEN, f"TypeError: {nb.error}"
    if not ob.ok:
        return Status.OK, "already written for the new signature"
    pmap = param_map(list(edits), old)
    old_t, new_t = _targets(args, old) or [], _targets(args, new) or []
    for a, o, n in zip(args, old_t, new_t):
        if old.get(o) is not None and new.get(n) is None:
            return _into_a_catch_all(a, o, pmap, new)
        if old.get(o) is None and new.get(n) is not None:
            # mmengine 7e246b6f: `get(self, *args)` -> `get(self, key, default=None)`. What the old body made
            # of its `*args` is not in the signature: the call binds, and a run tells what it means.
            return (
                Status.UNKNOWN,
                f"unknown: the run decides (argument {a.source} went into {o} before and reaches '{n}' now)",
            )
        if a.kind == "pos" and pmap.get(o, o) != n and _named_for(a.source) == n:
            # `Wrapper(model, inference_wrapper_config)` that now reaches `inference_wrapper_config`: the
            # name says where it was meant to go (a revert puts it back there), so pinning the old binding
            # could be the wrong fix, and the call may be right as it is.
            return (
                Status.UNKNOWN,
                f"unknown: the run decides (argument {a.source} now reaches '{n}', the parameter it is named "
                f"after, instead of '{o}')",
            )
        if a.kind == "pos" and pmap.get(o, o) != n and not _same_values(args, old, new, old_t, new_t, pmap):
            return Status.SHIFTED, f"argument {a.source} now reaches '{n}' instead of '{o}'"
    return Status.OK, "binds with the same meaning"


def _into_a_catch_all(a: Arg, o: str, pmap: Mapping[str, str | None], new: Signature) -> tuple[Status, str]:
    """An argument that bound parameter `o` and goes into the new `*args` or `**kwargs` now: a keyword whose
    parameter was renamed is shifted (its rename is the fix); anything else binds, but where it goes now
    (pyg d99fc69e: `forward(inputs, conv_layer=None)` -> `forward(*args, **kwargs)`) only a run can tell,
    and dropping it as "removed" would drop the Op's inputs."""
    into = "*args" if a.kind == "pos" else "**kwargs"
    renamed = pmap.get(o, o)
    if a.kind == "kw" and renamed is not None and renamed != o and new.get(renamed) is not None:
        return Status.SHIFTED, f"argument {o}={a.source} now goes into {into} instead of '{renamed}'"
    return (
        Status.UNKNOWN,
        f"unknown: the run decides (argument {a.source} now goes into {into} instead of '{o}')",
    )


def appended_unharmed(args: Sequence[Arg], old: Signature, new: Signature, edits: Sequence[Edit]) -> bool:
    """A call with splats, when the change only added parameters with defaults after every old positional
    one (or keyword-only): whatever the splats hold bound the old signature, and binds the new one the same
    way, the new parameters at their defaults (kornia 9aa8c7f6: `params = (0.5, 0.5); TverskyLoss(*params)`
    when `ignore_index=-100` was appended). Not where an old `*args` or `**kwargs` could have taken a value
    the new parameter would take now."""
    if not edits or any(e.kind is not EditKind.ADDED_OPTIONAL for e in edits):
        return False
    if any(a.kind == "star" for a in args) and old.var_positional is not None:
        return False
    if any(a.kind == "dstar" for a in args) and old.var_keyword is not None:
        return False
    n_old = len(old.positional)
    for e in edits:
        p = new.get(e.name)
        if p is None:
            return False
        if p.positional and new.positional.index(p) < n_old:
            return False
    return True


def keywords_only_unharmed(args: Sequence[Arg], old: Signature, edits: Sequence[Edit]) -> bool:
    """A call by keyword only (`Config(**config)`, `Op(n=n, **extra)`) that the change cannot reach: it only
    added parameters with defaults, moved parameters, or made some keyword-only. Whatever the splat holds
    bound the old signature by name, binds the new one the same way, and a new parameter takes its default
    (the splat could not hold its name before: the old signature had no `**kwargs` to take it). litgpt's
    `Config(**config)` gained fields in ten commits; each was "left to the run"."""
    if old.var_keyword is not None or any(a.kind in ("pos", "star") for a in args):
        return False
    if not any(a.kind == "dstar" for a in args):
        return False  # nothing splatted: `classify` binds it
    for e in edits:
        if e.kind is EditKind.KIND_CHANGED:
            if e.new_kind not in (Kind.POSITIONAL_OR_KEYWORD, Kind.KEYWORD_ONLY):
                return False
        elif e.kind not in (EditKind.ADDED_OPTIONAL, EditKind.MOVED):
            return False
    return True


def _same_values(
    args: Sequence[Arg],
    old: Signature,
    new: Signature,
    old_t: Sequence[str],
    new_t: Sequence[str],
    pmap: dict[str, str | None],
) -> bool:
    """Every parameter ends up with the same value, passed or defaulted, under both bindings: a positional
    `None` that moved from one slot defaulting to None into another (`MeshResource(dp, tp, None, None)` when a
    `tpsp_resource=None` was inserted third) changes nothing, and rewriting it would be noise."""

    def dump(src: str | None) -> str | None:
        return expr_key(src) if src is not None else None

    def old_key(name: str) -> str:
        renamed = pmap.get(name, name)
        return renamed if renamed is not None else "\0" + name  # removed: a slot of its own

    def values(
        sig: Signature, targets: Sequence[str], key: Callable[[str], str]
    ) -> dict[str, str | None] | None:
        out = {key(p.name): dump(p.default) for p in sig.params if sig.get(p.name) is not None}
        for a, t in zip(args, targets):
            if sig.get(t) is None:
                return None  # into *args or **kwargs: not a value of one parameter
            out[key(t)] = dump(a.source)
        return out

    before, after = values(old, old_t, old_key), values(new, new_t, str)
    if before is None or after is None:
        return False
    new_defaults = {p.name: dump(p.default) for p in new.params}
    old_defaults = {old_key(p.name): dump(p.default) for p in old.params}
    for k in before.keys() | after.keys():
        b = before.get(k, new_defaults.get(k))  # a new parameter: the old call meant its default
        n = after.get(k, old_defaults.get(k))  # a removed one: fine if the old call left it at its default
        if b is None or b != n:
            return False
    return True


def _namesake_added(name: str, old: Signature, new: Signature) -> str | None:
    """A parameter only the new signature has that shares a word of three letters or more with `name`
    (`edge_feature`, `edge_attr`): maybe `name` renamed, where no rename was read."""
    words = {w for w in name.lower().split("_") if len(w) >= 3}
    for q in new.params:
        fresh = old.get(q.name) is None and q.kind not in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)
        if fresh and words & {w for w in q.name.lower().split("_") if len(w) >= 3}:
            return q.name
    return None


def _named_for(src: str) -> str | None:
    """The name an argument is spelled as (`cfg` and `args.cfg` are both `cfg`), or None for an expression."""
    import ast

    try:
        node = ast.parse(src.strip(), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def judge_now(
    args: Sequence[Arg], expanded: Sequence[Arg] | None, sig: Signature, opaque: str | None = None
) -> tuple[Status, str]:
    """A call against one current signature, no history: OK, BROKEN (provably: it raises TypeError
    whatever its splats hold) or UNKNOWN (an opaque splat: the run decides).

    `expanded` is the call's arguments with literal splats replaced by what they hold, or None
    when a splat is opaque (`opaque` says which); then only the explicit arguments are judged.
    """
    if expanded is not None:
        b = bind(sig, shape(expanded))
        return (Status.OK, "binds") if b.ok else (Status.BROKEN, f"TypeError: {b.error}")
    explicit = [a for a in args if a.kind in ("pos", "kw")]
    err = fails_whatever_splats_hold(explicit, sig, any(a.kind == "star" for a in args))
    if err is not None:
        return Status.BROKEN, f"TypeError: {err}"
    return Status.UNKNOWN, f"unknown: the run decides ({opaque or 'passes *args/**kwargs'})"


def fails_whatever_splats_hold(explicit: Sequence[Arg], sig: Signature, star: bool) -> str | None:
    """The TypeError a call raises for any contents of its `*`/`**` splats, or None when some contents bind.

    Splats can only add arguments: too many explicit positionals, or an explicit keyword the
    signature has no place for, fail whatever they hold. Anything else might bind.
    """
    n_pos = sum(1 for a in explicit if a.kind == "pos")
    positional = sig.positional
    if sig.var_positional is None and n_pos > len(positional):
        plural = "s" if len(positional) != 1 else ""
        more = " or more" if star else ""
        return f"takes {len(positional)} positional argument{plural} but {n_pos}{more} were given"
    filled = {p.name for p in positional[:n_pos]}
    for a in explicit:
        if a.kind != "kw" or a.keyword is None:
            continue
        p = sig.get(a.keyword)
        if (p is None or not p.keyword) and sig.var_keyword is None:
            return f"got an unexpected keyword argument '{a.keyword}'"
        if p is not None and p.name in filled:
            return f"got multiple values for argument '{a.keyword}'"
    return None


def default_pins(args: Sequence[Arg], old: Signature, new: Signature, edits: Sequence[Edit]) -> list[Edit]:
    """DEFAULT_CHANGED edits this call relies on (it leaves that parameter to its default)."""
    old_t = _targets(args, old)
    if old_t is None:
        return []
    passed = set(old_t)
    return [
        e
        for e in edits
        if e.kind is EditKind.DEFAULT_CHANGED and e.new_default is not None and e.name not in passed
    ]


# A `moved` reason that names the parameter whose default the old constructor built from the removed one.
BUILT_FROM = "built the default of "
PART_OF = "built the part self."
FORGOTTEN = "nothing in the new class reads it"


def moved_clause(why: str) -> str:
    """What to say of a value the call passes and the commit moved (`why`: `moved` of `plan`)."""
    if why.startswith(BUILT_FROM):
        other = why[len(BUILT_FROM) :]
        return (
            f"from which the old constructor built the default of '{other}', left at its bare default now: "
            f"pass {other} by hand"
        )
    if why == FORGOTTEN:
        return (
            "which nothing in the new class reads any more: dropping it changes what is measured; rewrite "
            "the call by hand"
        )
    if why.startswith(PART_OF):
        part = why[len(PART_OF) :]
        return (
            f"from which the old constructor built self.{part}, a part the new class no longer has: "
            "dropping it changes what is measured; rewrite the call by hand"
        )
    return f"a value the commit moved elsewhere ({why}): move it there by hand"


def plan(
    args: Sequence[Arg],
    old: Signature,
    new: Signature,
    edits: Sequence[Edit],
    value_for: Callable[[str], Value],
    pins: Sequence[tuple[str, str, str]] = (),
    in_scope: frozenset[str] | None = None,
    own_name: Callable[[str], bool] | None = None,
    drops_choice: Callable[[str, str], bool] | None = None,
    varies: Callable[[str], str | None] | None = None,
    moved: Mapping[str, str] | None = None,
) -> Plan | NoPlan:
    """The edit that makes `args` bind `new` as they bound `old`. `pins`: (param, value, note) to add.

    `own_name(p)`: the updated tests pass a variable named `p` for parameter `p` (settles a
    contested slot). `drops_choice(p, value)`: the updated tests drop `p=value` the same way.
    `moved`: removed parameter -> where the updated tests pass its value now (another call), or the
    parameter whose default the old constructor built from it (`BUILT_FROM`).
    """
    if shape(args).splatted:
        return NoPlan("passes *args/**kwargs")
    old_t = _targets(args, old)
    if old_t is None:
        return NoPlan("it did not bind the old signature either, so its meaning is unknown")
    pmap = param_map(list(edits), old)
    by_position = {e.name for e in edits if e.kind is EditKind.RENAMED and e.by == "position"}
    contested_slot = {e.name: e.contested for e in edits if e.kind is EditKind.REMOVED and e.contested}
    by_position_only = {e.name for e in edits if e.kind is EditKind.REMOVED and e.by_position_only}
    contested: dict[str, str] = {}  # new parameter -> the argument its slot would give it
    as_keyword: dict[str, str] = {}  # new parameter -> the old one its contested argument was passed as
    new_pos = [p.name for p in new.positional]
    ops: list[ArgOp] = []
    notes: list[str] = []
    final: list[tuple[ArgKind, str, str]] = []  # (kind, param, source) in order
    k = 0
    converting = False

    def _a_choice(a: Arg, p_old: str) -> bool:
        return (
            is_choice(a.source, old.get(p_old))
            or bool(varies is not None and varies(a.source))
            or _takes_a_function(old.get(p_old), a.source)
        ) and (drops_choice is None or not drops_choice(p_old, a.source))

    for i, (a, p_old) in enumerate(zip(args, old_t)):
        if (
            p_old.startswith("**")
            and a.kind == "kw"
            and a.keyword
            and new.var_keyword is not None
            and new.get(a.keyword) is None
            and old.get(a.keyword) is None
        ):
            # GPTQModel, MONAI, composer: `Cfg(bits=4, extra=1)`, `extra` into `**kwargs` before and after:
            # it goes where it went, and a pin beside it touches nothing of it.
            final.append(("kw", a.keyword, a.source))
            continue
        if p_old.startswith("*"):
            return NoPlan(f"passes {a.source} through {p_old}, which bench-op does not rewrite")
        p_new = pmap.get(p_old, p_old)
        if (
            p_new is not None
            and p_old in by_position
            and in_scope is not None
            and p_new in in_scope
            and a.source != p_new
        ):
            # A variable named like the new parameter is at hand and is not what the call passes:
            # the slot says one thing, the scope another.
            contested[p_new] = a.source
            ops.append(ArgOp("drop", i))
            continue
        # A keyword passed for a parameter that is gone is a choice first (`bias=True`, whose slot a new
        # `dilation` took, is not a dilation); a positional one is what its slot gives the new parameter.
        if (
            p_new is None
            and p_old in contested_slot
            and (a.kind != "kw" or (p_old not in by_position_only and not _a_choice(a, p_old)))
        ):
            contested[contested_slot[p_old] or ""] = a.source
            if a.kind == "kw":
                as_keyword[contested_slot[p_old] or ""] = p_old
        elif p_new is None and _a_choice(a, p_old):
            why = varies(a.source) if varies is not None else None
            what = (
                "a choice"
                if is_choice(a.source, old.get(p_old))
                else f"a choice ({why or 'a function: what it does is what is measured'})"
            )
            return NoPlan(
                f"passes {p_old}={a.source}, {what} the new signature has no '{p_old}' for, "
                "and no test the commit updated drops it the same way: carry that choice over by hand",
                choice=(i, p_old, a.source),
            )
        if (
            p_new is None
            and moved
            and p_old in moved
            and not _is_old_default(a.source, old.get(p_old))
            # A slot another parameter took says more than "nothing reads it": the report names both.
            and not (
                moved[p_old] == FORGOTTEN and (p_old in contested_slot or _namesake_added(p_old, old, new))
            )
        ):
            return NoPlan(f"passes {p_old}={a.source}, {moved_clause(moved[p_old])}")
        if p_new is None and a.kind == "kw" and not _is_old_default(a.source, old.get(p_old)):
            twin = _namesake_added(p_old, old, new)
            if twin is not None:
                # pyg aa2c5985: `forward(x, ei, size=None, edge_feature=None)` -> `(x, ei, edge_attr=None,
                # size=None)`. The slot moved, so no rename was read, and the edge features were dropped.
                return NoPlan(
                    f"passes {p_old}={a.source}; '{p_old}' was removed and '{twin}' added: if it is the same "
                    f"parameter renamed, pass {twin}={a.source}, else drop it, by hand"
                )
        if p_new is None:
            ops.append(ArgOp("drop", i))
            notes.append(f"dropped {a.source} ('{p_old}' was removed)")
            continue
        param = new.get(p_new)
        if param is None:
            return NoPlan(f"'{p_new}' is not a parameter of the new signature")
        if a.kind == "pos":
            if not converting and k < len(new_pos) and new_pos[k] == p_new:
                final.append(("pos", p_new, a.source))
                k += 1
                continue
            converting = True
            if not param.keyword:
                return NoPlan(f"'{p_new}' is positional-only now and the arguments before it moved")
            ops.append(ArgOp("to_kw", i, p_new))
            notes.append(f"{a.source} passed as {p_new}={a.source}")
            final.append(("kw", p_new, a.source))
        else:
            if not param.keyword:
                return NoPlan(f"'{p_new}' is positional-only now")
            if a.keyword != p_new:
                ops.append(ArgOp("rename", i, p_new))
                notes.append(f"keyword {a.keyword}= renamed to {p_new}=")
            final.append(("kw", p_new, a.source))
    filled = {p for _, p, _ in final}
    inverse = {v: k2 for k2, v in pmap.items() if v is not None}
    missing: list[str] = []
    reasons: list[str] = []
    for p in new.params:
        if p.name in contested and p.name not in filled:
            src = contested[p.name]
            if own_name is not None and in_scope is not None and p.name in in_scope and own_name(p.name):
                ops.append(ArgOp("add_kw", None, p.name, p.name))
                notes.append(
                    f"{p.name}={p.name} added, {src} dropped: the updated tests pass a variable named "
                    f"{p.name} there"
                )
                final.append(("kw", p.name, p.name))
                continue
            v = value_for(p.name)
            if v.shown and v.source is not None:
                # The commit's own edits build it from something else: the slot's argument is not its value.
                ops.append(ArgOp("add_kw", None, p.name, v.source))
                notes.append(f"{p.name}={v.source} added, {src} dropped: {v.reason}")
                final.append(("kw", p.name, v.source))
                continue
            scope = (
                f"the variable {p.name} in scope"
                if in_scope is not None and p.name in in_scope
                else "a new value"
            )
            where = (
                f"passed as {as_keyword[p.name]}=, the parameter its slot had"
                if p.name in as_keyword
                else "the argument in its slot"
            )
            return NoPlan(
                f"leaves '{p.name}' open: it could be {src} ({where}) or {scope}; "
                "no test the commit updated says which: pick one by hand",
                (p.name,),
            )
        if not p.required or p.name in filled:
            continue
        old_name = inverse.get(p.name)
        old_param = old.get(old_name) if old_name else None
        if (
            old_param is not None
            and old_param.default is not None
            # A parameter that lost its None default now needs a real value: None is what it stopped
            # accepting (the constructor uses it now), so pinning it would bind and fail, or measure nothing.
            and old_param.default != "None"
            and old_param.name not in old_t
            and is_constant_source(old_param.default)
            and (in_scope is None or free_names(old_param.default) <= in_scope)
            and (in_scope is None or p.name not in in_scope)  # a variable of that name comes first
        ):
            ops.append(ArgOp("add_kw", None, p.name, old_param.default))
            notes.append(
                f"{p.name}={old_param.default} added (it had that default before and is required now)"
            )
            final.append(("kw", p.name, old_param.default))
            continue
        v = value_for(p.name)
        if v.source is None:
            missing.append(p.name)
            reasons.append(f"'{p.name}' ({v.reason})")
            continue
        ops.append(ArgOp("add_kw", None, p.name, v.source))
        notes.append(f"{p.name}={v.source} added: {v.reason}")
        final.append(("kw", p.name, v.source))
    if missing:
        return NoPlan("needs a value for " + ", ".join(reasons), tuple(missing))
    for name, value, note in pins:
        if name in {p for _, p, _ in final}:
            continue
        ops.append(ArgOp("add_kw", None, name, value))
        notes.append(note)
        final.append(("kw", name, value))
    # Check the result as Python would bind it, and that nothing changed meaning.
    new_args = [Arg(kind, p if kind == "kw" else None, src) for kind, p, src in final]
    new_t = _targets(new_args, new)
    if new_t is None:
        return NoPlan("no edit found that makes it bind the new signature")
    splat = new.var_keyword
    for (kind, p, _), t in zip(final, new_t):
        if p != t and not (kind == "kw" and splat is not None and t == "**" + splat.name):
            return NoPlan("no edit found that keeps every argument on its parameter")
    preview = "(" + ", ".join(src if kind == "pos" else f"{p}={src}" for kind, p, src in final) + ")"
    return Plan(tuple(ops), tuple(notes), preview)


def _preview(args: Sequence[Arg]) -> str:
    return (
        "("
        + ", ".join(
            a.source
            if a.kind == "pos"
            else f"{a.keyword}={a.source}"
            if a.kind == "kw"
            else ("*" if a.kind == "star" else "**") + a.source
            for a in args
        )
        + ")"
    )


def applied(args: Sequence[Arg], ops: Sequence[ArgOp]) -> list[Arg]:
    """The argument list after `ops`, in the order the rewrite writes it: each argument in its place (or
    gone), then the added keywords before any **splat."""
    by_index = {op.index: op for op in ops if op.index is not None and op.op != "after"}
    out: list[Arg] = []
    for i, a in enumerate(args):
        op = by_index.get(i)
        if op is None:
            out.append(a)
        elif op.op in ("rename", "to_kw"):
            out.append(Arg("kw", op.name, a.source))
        elif op.op == "set":
            out.append(Arg("kw", op.name, op.value or ""))
        out.extend(Arg("kw", o.name, o.value or "") for o in ops if o.op == "after" and o.index == i)
    at = next((k for k, a in enumerate(out) if a.kind == "dstar"), len(out))
    adds = [Arg("kw", op.name, op.value or "") for op in ops if op.op == "add_kw"]
    return out[:at] + adds + out[at:]


def preview_of(args: Sequence[Arg], ops: Sequence[ArgOp]) -> str:
    return _preview(applied(args, ops))


# -- the edits a rewrite applies (libcst applies them: `rewrite.py`; these are plain data)


@dataclass(frozen=True)
class CallEdit:
    lineno: int
    col: int
    end_lineno: int
    end_col: int
    ops: tuple[ArgOp, ...]


@dataclass(frozen=True)
class ImportEdit:
    """`from old_module import old_name [as x]` -> `from new_module import new_name [as x]`."""

    old_module: str
    old_name: str
    new_module: str
    new_name: str


@dataclass(frozen=True)
class DictEdit:
    """Edit the string keys of a dict literal (or `dict(k=v)`) that a call splats, at its position."""

    lineno: int
    col: int
    ops: tuple[ArgOp, ...]  # drop/rename by key name (name=old key, value=new key), add_kw (name, value)
    call: CallEdit | None = None  # `dict(k=v)`: the same edits as an edit of that call's keywords
    used_by: tuple[int, ...] = ()  # the lines of every call that splats this dict
