"""The values a call's judgement hands on (`Plan`, `NoPlan`, `ArgOp`, the rewrite's edits) and the checks of a
call with splats that the judge makes before planning (`planner.py` plans the edit itself)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchop_hook.analysis.binding import bind
from benchop_hook.analysis.callsites import Arg
from benchop_hook.analysis.edits import Edit, EditKind

# Re-exported: the fixing stage reads these from here; they live in analysis.meaning, which the tests'
# evidence asks too.
from benchop_hook.analysis.meaning import Status as Status
from benchop_hook.analysis.meaning import Value as Value
from benchop_hook.analysis.meaning import _targets
from benchop_hook.analysis.meaning import classify as classify
from benchop_hook.analysis.meaning import shape as shape
from benchop_hook.analysis.meaning import targets_of as targets_of
from benchop_hook.analysis.signatures import (
    Kind,
    Param,
    Signature,
)


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
    trace: tuple[str, ...] = ()  # the rules that decided it, in order (rules/decide.py)
    # A value in it rests on induction (the tests' constant, the commit's template), not on proof: it lands
    # only once a run gave numbers.
    induced: bool = False
    # The next candidates in the order of evidence, each a complete fix of the same call: the run tries
    # them, in order, when this one fails at the call (fixing/candidates.py).
    alternatives: tuple[Plan, ...] = ()


@dataclass(frozen=True)
class NoPlan:
    reason: str
    missing: tuple[str, ...] = ()
    choice: tuple[int, str, str] | None = None  # (argument index, parameter, value): a choice with no home
    rule: str | None = None  # the rule that refused it
    trace: tuple[str, ...] = ()
    to_run: bool = False  # nothing is provable either way: the run decides (a rule turned off)


def as_clause(reason: str) -> str:
    """A NoPlan reason after "it": most read as what the call does ("passes ...", "needs ..."); the others
    already have their subject ("it did not bind ...", "'x' is positional-only now", "no edit found ...")."""
    return reason if reason.startswith(("it ", "'", "no ")) else f"it {reason}"


def positional_splat_unharmed(args: Sequence[Arg], old: Signature, new: Signature) -> bool:
    """A call of positional arguments and `*args` only binds whatever they hold the same way before and
    after when nothing but the `**kwargs` changed (BitBLAS b952851: `self.matmul(*args)`, when
    `__call__(*args, **kwds)` became `__call__(*args)`): the parameters they reach, and the defaults of the
    keyword-only ones they rely on, are the same."""

    def kept(sig: Signature) -> list[Param]:
        return [p for p in sig.params if p.kind is not Kind.VAR_KEYWORD]

    return all(a.kind in ("pos", "star") for a in args) and kept(old) == kept(new)


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
