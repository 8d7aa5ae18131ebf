"""Whether a call binds a changed signature, and with the same meaning: each argument on the parameter it
reached before, every parameter with the value it had. Pure, over argument lists and signatures; the tests'
evidence and the judge both ask it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from benchop_hook.analysis.binding import CallShape, bind
from benchop_hook.analysis.callsites import Arg
from benchop_hook.analysis.edits import Edit, param_map
from benchop_hook.analysis.signatures import Signature, expr_key


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
class Value:
    source: str | None
    reason: str  # where the value comes from, or why there is none
    shown: bool = False  # the commit's own edits build the parameter this way (their agreed template)
    induced: bool = False  # learned from the tests' calls (a constant they pass): a guess a run must confirm


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
