"""Plan the smallest edit that makes a call bind the new signature with the same meaning.

Pure: a call is its argument list (kind, keyword, source text); the result is a `Plan` (operations on that
list) or a `NoPlan` with the reason. What each argument becomes is the rules' word (`rules/decide.py`): this
module asks them, turns their verdicts into argument operations, and checks the invariant every plan keeps:
the rewritten call binds the new signature, and every argument reaches the parameter it reached before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from benchop_hook.analysis.callsites import Arg, ArgKind
from benchop_hook.analysis.edits import Edit, EditKind, param_map
from benchop_hook.analysis.flow import Flow
from benchop_hook.analysis.meaning import Value, shape, targets_of
from benchop_hook.analysis.signatures import Param, Signature, free_names, is_constant_source
from benchop_hook.fixing import questions
from benchop_hook.fixing.plan import ArgOp, NoPlan, Plan
from benchop_hook.rules import decide
from benchop_hook.rules.facts import Found, RenamedValue, RequiredNow, Settled
from benchop_hook.rules.verdicts import Contest, Hand, LeaveToRun, Pin, Verdict

Sigs = tuple[Signature, Signature, tuple[Edit, ...]]


@dataclass(frozen=True)
class CallEvidence:
    """What a judging path knows of one call beyond its signatures."""

    value_for: Callable[[str], Value]
    pins: tuple[tuple[str, str, str], ...] = ()  # (param, value, note) to add
    in_scope: frozenset[str] | None = None  # the names the call's scope binds (None: unknown)
    # The updated tests pass a variable named `p` for parameter `p` (settles a contested slot).
    own_name: Callable[[str], bool] | None = None
    drop: questions.DropEvidence = field(default_factory=questions.DropEvidence)
    off: frozenset[str] = frozenset()  # the rules turned off
    flow: Flow | None = None  # what the constructor's body does with each parameter, before and after


@dataclass
class _Draft:
    """The plan under construction, inside `plan` alone."""

    ops: list[ArgOp] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    final: list[tuple[ArgKind, str, str]] = field(default_factory=list)  # (kind, param, source) in order
    contested: dict[str, str] = field(default_factory=dict)  # new parameter -> its slot's argument
    as_keyword: dict[str, str] = field(
        default_factory=dict
    )  # new parameter -> the old keyword of that argument
    trace: list[str] = field(default_factory=list)
    induced: bool = False  # a value came from the tests or the commit's template (`Plan.induced`)

    def add(self, name: str, value: str, note: str) -> None:
        self.ops.append(ArgOp("add_kw", None, name, value))
        self.notes.append(note)
        self.final.append(("kw", name, value))

    def refused(self, reason: str, **kw: object) -> NoPlan:
        return NoPlan(reason, trace=tuple(self.trace), **kw)  # type: ignore[arg-type]  # NoPlan's own fields

    def ask(self, found: Found, said: str, off: frozenset[str], param: str = "", value: str = "") -> Verdict:
        """The rule that answers what the evidence found here, in the trace."""
        decision = decide.settled(Settled(found, said, param, value), off)
        self.trace.extend(decision.trace)
        return decision.verdict

    def refused_for(self, found: Found, reason: str, off: frozenset[str], **kw: object) -> NoPlan:
        """No plan, as the rule that answers `found` says: a person's edit, or the run's."""
        v = self.ask(found, reason, off)
        if isinstance(v, LeaveToRun):
            return self.refused(v.reason, rule=v.rule, to_run=True)
        return self.refused(reason, rule=v.rule, **kw)


def plan(args: Sequence[Arg], sigs: Sigs, ev: CallEvidence) -> Plan | NoPlan:
    """The edit that makes `args` bind `sigs`' new signature as they bound the old one."""
    old, new, _ = sigs
    d = _Draft()
    if shape(args).splatted:
        return d.refused_for(Found.OPAQUE_BINDING, "passes *args/**kwargs", ev.off)
    old_t = targets_of(args, old)
    if old_t is None:
        why = "it did not bind the old signature either, so its meaning is unknown"
        return d.refused_for(Found.OPAQUE_BINDING, why, ev.off)
    refused = _each_argument(args, old_t, sigs, ev, d)
    if refused is not None:
        return refused
    refused = _fill_required(old_t, sigs, ev, d)
    if refused is not None:
        return refused
    for name, value, note in ev.pins:
        if name not in {p for _, p, _ in d.final}:
            d.add(name, value, note)
    return _checked(new, d, ev.off)


def _each_argument(  # long: one pass over the arguments, each kind of argument a branch of its own
    args: Sequence[Arg], old_t: Sequence[str], sigs: Sigs, ev: CallEvidence, d: _Draft
) -> NoPlan | None:
    old, new, edits = sigs
    pmap = param_map(list(edits), old)
    by_position = {e.name for e in edits if e.kind is EditKind.RENAMED and e.by == "position"}
    by_body = {e.name for e in edits if e.kind is EditKind.RENAMED and e.by == "body"}
    new_pos = [p.name for p in new.positional]
    k = 0
    converting = False
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
            d.final.append(("kw", a.keyword, a.source))
            continue
        if p_old.startswith("*"):
            why = f"passes {a.source} through {p_old}, which bench-op does not rewrite"
            return d.refused_for(Found.THROUGH_VARARGS, why, ev.off)
        p_new = pmap.get(p_old, p_old)
        if (
            p_new is not None
            and p_old in by_position
            and ev.in_scope is not None
            and p_new in ev.in_scope
            and a.source != p_new
        ):
            # A variable named like the new parameter is at hand and is not what the call passes:
            # the slot says one thing, the scope another.
            d.contested[p_new] = a.source
            d.ops.append(ArgOp("drop", i))
            continue
        if p_new is None:
            refused = _removed(i, a, p_old, sigs, ev, d)
            if refused is not None:
                return refused
            continue
        param = new.get(p_new)
        if param is None:
            return d.refused_for(
                Found.NO_EDIT_BINDS, f"'{p_new}' is not a parameter of the new signature", ev.off
            )
        if p_new != p_old:
            refused = _renamed(a, p_old, p_new, sigs, ev, d)
            if refused is not None:
                return refused
        if a.kind == "pos":
            if not converting and k < len(new_pos) and new_pos[k] == p_new:
                d.final.append(("pos", p_new, a.source))
                k += 1
                continue
            converting = True
            if not param.keyword:
                why = f"'{p_new}' is positional-only now and the arguments before it moved"
                return d.refused_for(Found.POSITIONAL_ONLY, why, ev.off)
            v = d.ask(Found.BY_KEYWORD, f"{a.source} passed as {p_new}={a.source}", ev.off)
            if isinstance(v, LeaveToRun):
                return d.refused(v.reason, rule=v.rule, to_run=True)
            d.ops.append(ArgOp("to_kw", i, p_new))
            d.notes.append(f"{a.source} passed as {p_new}={a.source}")
            d.final.append(("kw", p_new, a.source))
        else:
            if not param.keyword:
                return d.refused_for(Found.POSITIONAL_ONLY, f"'{p_new}' is positional-only now", ev.off)
            if a.keyword != p_new:
                if p_old not in by_body:  # a rename the body shows has its rule in the trace already
                    v = d.ask(Found.SIGNATURE_RENAME, "", ev.off, a.keyword or "", p_new)
                    if isinstance(v, LeaveToRun):
                        return d.refused(v.reason, rule=v.rule, to_run=True)
                d.ops.append(ArgOp("rename", i, p_new))
                d.notes.append(f"keyword {a.keyword}= renamed to {p_new}=")
            d.final.append(("kw", p_new, a.source))
    return None


def _renamed(a: Arg, p_old: str, p_new: str, sigs: Sigs, ev: CallEvidence, d: _Draft) -> NoPlan | None:
    """A keyword whose parameter was renamed: the value carries over unless the rules say it would mean
    something else under the new name."""
    by_body = any(e.kind is EditKind.RENAMED and e.name == p_old and e.by == "body" for e in sigs[2])
    if by_body and a.kind == "kw":
        d.trace.append("BO601")
    q = RenamedValue(p_old, p_new, a.source, questions.transformed(ev.flow, p_old, p_new))
    decision = decide.renamed_value(q, ev.off)
    if decision is None:
        return None
    d.trace.extend(decision.trace)
    v = decision.verdict
    if isinstance(v, LeaveToRun):
        return d.refused(v.reason, rule=v.rule, to_run=True)
    assert isinstance(v, Hand)
    return d.refused(v.reason, rule=v.rule)


def _removed(i: int, a: Arg, p_old: str, sigs: Sigs, ev: CallEvidence, d: _Draft) -> NoPlan | None:
    """An argument for a removed parameter: what the rules say becomes of it."""
    q = questions.removed_value(i, p_old, a.source, a.kind == "kw", sigs, ev.drop)
    decision = decide.removed_value(q, ev.off)
    d.trace.extend(decision.trace)
    for v in decision.verdicts:
        if isinstance(v, Contest):
            d.contested[v.param] = a.source
            if v.as_keyword:
                d.as_keyword[v.param] = v.as_keyword
    v = decision.verdict
    if isinstance(v, Hand):
        return d.refused(v.reason, choice=v.choice, rule=v.rule)
    if isinstance(v, LeaveToRun):
        return d.refused(v.reason, rule=v.rule, to_run=True)
    d.ops.append(ArgOp("drop", i))
    d.notes.append(getattr(v, "note", "") or f"dropped {a.source} ('{p_old}' was removed)")
    return None


def _fill_required(  # long: each new parameter's value, from the slot, the tests' variable, or the evidence
    old_t: Sequence[str], sigs: Sigs, ev: CallEvidence, d: _Draft
) -> NoPlan | None:
    old, new, edits = sigs
    pmap = param_map(list(edits), old)
    filled = {p for _, p, _ in d.final}
    inverse = {v: k2 for k2, v in pmap.items() if v is not None}
    missing: list[str] = []
    reasons: list[str] = []
    for p in new.params:
        if p.name in d.contested and p.name not in filled:
            refused = _contested(p, ev, d)
            if refused is not None:
                return refused
            continue
        if not p.required or p.name in filled:
            continue
        old_name = inverse.get(p.name)
        decision = decide.required_now(
            _required_now(p, old.get(old_name) if old_name else None, old_t, ev), ev.off
        )
        if decision is not None:
            d.trace.extend(decision.trace)
            v = decision.verdict
            if isinstance(v, LeaveToRun):
                return d.refused(v.reason, rule=v.rule, to_run=True)
            if isinstance(v, Hand):
                return d.refused(v.reason, rule=v.rule)
            if isinstance(v, Pin):
                d.add(p.name, v.value, v.note)
                continue
        found = ev.value_for(p.name)
        if found.source is None:
            missing.append(p.name)
            reasons.append(f"'{p.name}' ({found.reason})")
            continue
        kind = Found.AS_THE_COMMIT_SHOWS if found.shown else Found.FROM_TESTS
        note = f"{p.name}={found.source} added: {found.reason}"
        refused = _filled(d, d.ask(kind, note, ev.off, p.name, found.source))
        if refused is not None:
            return refused
        d.induced = d.induced or found.induced or found.shown
    if missing:
        why = "needs a value for " + ", ".join(reasons)
        return d.refused_for(Found.NO_VALUE, why, ev.off, missing=tuple(missing))
    return None


def _required_now(p: Param, old_param: Param | None, old_t: Sequence[str], ev: CallEvidence) -> RequiredNow:
    default = old_param.default if old_param is not None else None
    return RequiredNow(
        param=p.name,
        old_default=default,
        passed_before=old_param is not None and old_param.name in old_t,
        constant=default is not None and is_constant_source(default),
        names_in_scope=ev.in_scope is None or default is None or free_names(default) <= ev.in_scope,
        variable_in_scope=ev.in_scope is not None and p.name in ev.in_scope,
        introduced=_writable(questions.introduced(ev.flow, p.name), ev.in_scope),
    )


def _writable(src: str | None, in_scope: frozenset[str] | None) -> str | None:
    """`src` where writing it at the call means what it meant in the class's module: a constant whose names
    the call's scope binds (a module's own `_pool` is another thing, or nothing, in the benchmark)."""
    if src is None or not is_constant_source(src):
        return None
    return src if in_scope is None or free_names(src) <= in_scope else None


def _contested(p: Param, ev: CallEvidence, d: _Draft) -> NoPlan | None:
    """A new parameter whose slot an old argument fills: the tests' variable, the commit's template, or a
    person says which value it takes."""
    src = d.contested[p.name]
    if ev.own_name is not None and ev.in_scope is not None and p.name in ev.in_scope and ev.own_name(p.name):
        note = (
            f"{p.name}={p.name} added, {src} dropped: the updated tests pass a variable named {p.name} there"
        )
        return _filled(d, d.ask(Found.NAMED_BY_TESTS, note, ev.off, p.name, p.name))
    v = ev.value_for(p.name)
    if v.shown and v.source is not None:
        # The commit's own edits build it from something else: the slot's argument is not its value.
        note = f"{p.name}={v.source} added, {src} dropped: {v.reason}"
        d.induced = True
        return _filled(d, d.ask(Found.AS_THE_COMMIT_SHOWS, note, ev.off, p.name, v.source))
    scope = (
        f"the variable {p.name} in scope"
        if ev.in_scope is not None and p.name in ev.in_scope
        else "a new value"
    )
    where = (
        f"passed as {d.as_keyword[p.name]}=, the parameter its slot had"
        if p.name in d.as_keyword
        else "the argument in its slot"
    )
    why = (
        f"leaves '{p.name}' open: it could be {src} ({where}) or {scope}; "
        "no test the commit updated says which: pick one by hand"
    )
    return d.refused_for(Found.CONTESTED, why, ev.off, missing=(p.name,))


def _filled(d: _Draft, v: Verdict) -> NoPlan | None:
    """The value a fill rule gave, added; or the run's, when the rule is turned off."""
    if isinstance(v, Pin):
        d.add(v.param, v.value, v.note)
        return None
    return d.refused(getattr(v, "reason", ""), rule=v.rule, to_run=True)


def _checked(new: Signature, d: _Draft, off: frozenset[str]) -> Plan | NoPlan:
    """The plan, once the rewritten call binds `new` as Python would bind it, every argument on its "
    "parameter."""
    new_args = [Arg(kind, p if kind == "kw" else None, src) for kind, p, src in d.final]
    new_t = targets_of(new_args, new)
    if new_t is None:
        return d.refused_for(Found.NO_EDIT_BINDS, "no edit found that makes it bind the new signature", off)
    splat = new.var_keyword
    for (kind, p, _), t in zip(d.final, new_t):
        if p != t and not (kind == "kw" and splat is not None and t == "**" + splat.name):
            why = "no edit found that keeps every argument on its parameter"
            return d.refused_for(Found.NO_EDIT_BINDS, why, off)
    preview = "(" + ", ".join(src if kind == "pos" else f"{p}={src}" for kind, p, src in d.final) + ")"
    return Plan(tuple(d.ops), tuple(d.notes), preview, tuple(d.trace), d.induced)
