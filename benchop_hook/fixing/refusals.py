"""Calls that would bind after a plain edit but measure something else: a value carried into a renamed slot
of another type. Each rule says why bench-op reports the call instead."""

from __future__ import annotations

from collections.abc import Sequence

from benchop_hook.analysis.callsites import Arg
from benchop_hook.analysis.edits import Edit, EditKind
from benchop_hook.analysis.examples import Learned, bound_args
from benchop_hook.analysis.signatures import Signature, same_default


def classes_named(annotation: str | None, default: str | None) -> list[str]:
    """Class names a parameter's annotation or default names (`ServerConfig`, `Optional[ServerConfig]`,
    `ServerConfig | None`, a default `ServerConfig()`)."""
    import re

    text = " ".join(t for t in (annotation, default) if t)
    return [
        n
        for n in dict.fromkeys(re.findall(r"\b([A-Z][A-Za-z0-9_]*)\b", text))
        if n not in ("Optional", "None", "Union")
    ]


def retyped(
    edits: Sequence[Edit],
    args: Sequence[Arg],
    old_sig: Signature,
    new_sig: Signature,
    learned: Learned | None,
) -> str | None:
    """A rename carries a slot, not its values: a keyword renamed to a parameter of another type (its
    annotation, or its default's class, changed; or the value is an attribute of a class the new annotation
    does not name) is reported with both types, unless the commit's own edits show how values map."""
    bv = bound_args(args, old_sig) or {}
    taught = {p for p, _ in learned.template.sets} if learned is not None and learned.template else set()
    for e in edits:
        if e.kind is not EditKind.RENAMED or e.name not in bv or e.new_name in taught:
            continue
        old_p, new_p = old_sig.get(e.name), new_sig.get(e.new_name or "")
        if old_p is None or new_p is None:
            continue
        value = bv[e.name].strip()
        why = _other_type(old_p.annotation, new_p.annotation, old_p.default, new_p.default, value)
        if why:
            return f"'{e.name}' was renamed to '{e.new_name}', and {why}: map {e.name}={value} to it by hand"
    return None


def overwritten(
    edits: Sequence[Edit], args: Sequence[Arg], old_sig: Signature, learned: Learned | None
) -> str | None:
    """A parameter renamed by its slot (`eps` -> `epsilon`) that the commit's own edits set to a constant of
    their own (`eps=1e-5` -> `epsilon=1e-6`): they say the old value does not carry over, and not what this
    call's own value becomes. Applying their edit would put their constant in place of the call's value;
    carrying the value over would undo what they show. A call that passes the old default, or nothing, loses
    nothing either way."""
    if learned is None or learned.template is None:
        return None
    built = dict(learned.template.sets)
    bv = bound_args(args, old_sig) or {}
    for e in edits:
        expr = built.get(e.new_name or "") if e.kind is EditKind.RENAMED and e.by == "position" else None
        if expr is None or expr.params or e.name not in bv:
            continue
        old_p = old_sig.get(e.name)
        value = bv[e.name].strip()
        if old_p is not None and old_p.default is not None and same_default(value, old_p.default):
            continue
        return (
            f"it passes {e.name}={value}; the commit's own edits set '{e.new_name}' to {expr.shown()} of "
            f"their own where they passed '{e.name}', so nothing says what this value becomes: pass "
            f"{e.new_name} by hand"
        )
    return None


def _other_type(
    old_ann: str | None, new_ann: str | None, old_def: str | None, new_def: str | None, value: str
) -> str | None:
    def norm(t: str | None) -> str | None:
        return "".join(t.split()) if t else None

    if norm(old_ann) and norm(new_ann) and norm(old_ann) != norm(new_ann):
        return f"its type changed ({old_ann} -> {new_ann})"
    old_cls, new_cls = _owner(old_def), _owner(new_def)
    if old_cls and new_cls and old_cls != new_cls:
        return f"its default's type changed ({old_def} -> {new_def})"
    owner = _owner(value)
    if owner and new_ann and owner not in new_ann and (not new_cls or owner != new_cls):
        return f"{value} belongs to {owner}, which its annotation ({new_ann}) does not name"
    return None


def _owner(src: str | None) -> str | None:
    """`KernelChoice` for `KernelChoice.FAST` (or `mod.KernelChoice.FAST`): the class an enum-like value is
    an attribute of."""
    if not src or "." not in src or "(" in src:
        return None
    parts = src.strip().split(".")
    return parts[-2] if len(parts) >= 2 and parts[-2][:1].isupper() else None


def is_required(sig: Signature, name: str) -> bool:
    p = sig.get(name)
    return p is not None and p.required


def moved_to_constructor(
    args: Sequence[Arg],
    old_sig: Signature,
    new_sig: Signature,
    old_ctor: Signature | None,
    new_ctor: Signature | None,
    cls: str,
) -> str | None:
    """A method's parameter the call passes that left the method for the class's constructor, where its
    default is not the value passed (`generate(p, max_new_tokens=1000)` once `max_new_tokens=256` is the
    constructor's): dropping it from the method call would run with the constructor's default instead."""
    if new_ctor is None:
        return None
    for param, value in (bound_args(args, old_sig) or {}).items():
        q = new_ctor.get(param)
        if new_sig.get(param) is not None or q is None or (old_ctor is not None and old_ctor.get(param)):
            continue
        if q.default is not None and same_default(value, q.default):
            continue  # the constructor's default is what the call passed: dropping it changes nothing
        default = f" (default {q.default})" if q.default is not None else ""
        return (
            f"'{param}' moved from this method to {cls}'s constructor{default}, and the call passes "
            f"{param}={value.strip()}: pass it where the object is built, by hand"
        )
    return None
