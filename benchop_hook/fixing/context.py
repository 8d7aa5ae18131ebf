"""What the static pass learned, shared read-only with the repair loop.

The repair loop fixes what a traceback points at "from the same evidence rules as the static pass": the
same projects, the same test evidence, the same Op changes, and the same lookup of the signature a call
reaches (a constructor, a method, `__call__` falling through to `forward`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from benchop_hook.analysis.callsites import CallSite
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.edits import Edit
from benchop_hook.analysis.evidence import TestEvidence
from benchop_hook.analysis.examples import Learned, from_old_calls
from benchop_hook.analysis.modules import ClassRef
from benchop_hook.analysis.project import Project
from benchop_hook.analysis.signatures import Signature, free_names
from benchop_hook.fixing.plan import Value
from benchop_hook.git.snapshots import Snapshot
from benchop_hook.paths import Paths


@dataclass(frozen=True)
class StaticContext:
    paths: Paths
    new_p: Project
    old_p: Project | None  # None in all-files mode
    bench: Snapshot  # where the benchmark files were read from
    evidence: TestEvidence
    changes: tuple[OpChange, ...]
    off: frozenset[str] = frozenset()  # the rules turned off: the run's dict fixer asks the same rules
    outside_op: frozenset[str] = frozenset()  # changed classes `--op` left out of this run


SigEdits = tuple[Signature | None, Signature | None, tuple[Edit, ...]]


def change_signatures(change: OpChange, method: str | None, new_p: Project) -> SigEdits:
    """(old signature, new signature, edits) of what a call reaches: the constructor (method None) or a
    method.

    A call of the instance (`__call__`) reaches `forward` unless the class defines a `__call__` of its own
    that is not a plain pass-through.
    """
    if method is None:
        return change.old_sig, change.new_sig, change.edits
    names = [method]
    if method == "__call__":
        names.append("forward")
    for m in change.methods:
        if m.name in names:
            if m.name == "forward" and method == "__call__" and change.new is not None:
                own = new_p.method(change.new, "__call__")
                if own is not None and not own.is_passthrough:
                    continue
            return m.old_sig, m.new_sig, m.edits
    return None, None, ()


def call_signature(project: Project, ref: ClassRef, method: str | None) -> Signature | None:
    """The signature a call of `ref` (method None: its constructor) binds in `project`."""
    if method is None:
        return project.constructor(ref)
    if method == "__call__":
        s = project.method(ref, "__call__")
        if s is None or s.is_passthrough:
            return project.method(ref, "forward")
        return s
    return project.method(ref, method)


def value_source(
    site: CallSite,
    ev: TestEvidence | None,
    ref: ClassRef | None,
    sig: Signature,
    old_sig: Signature,
    edits: tuple[Edit, ...],
    learned: Learned | None = None,
    from_template: Mapping[str, Value] | None = None,
) -> Callable[[str], Value]:
    """Where a value for a new required parameter comes from at this call, in this order: a variable of
    that name in scope; the template the commit's own edits agree on (`from_template`); the one constant
    every updated test passes, when the benchmark can name it and it is not the tests' own old value."""

    def value_for(param: str) -> Value:
        if param in site.scope_names:
            # (dtype, head_dim_v, arch) against the new (dtype, head_dim, head_dim_v, arch): the variable
            # already reaches head_dim, and passing it to its namesake too would give both the same value.
            # Which of the two it was meant for, the call can't say.
            elsewhere = [a for a in site.expanded_args or site.args if a.source.strip() == param]
            if elsewhere:
                return Value(
                    None,
                    f"the call already passes the variable '{param}' to another parameter, and which of the "
                    "two it meant can't be told",
                )
            return Value(param, f"a variable named '{param}' is in scope at the call")
        if from_template and param in from_template:
            return from_template[param]
        if ev is None or ref is None:
            return Value(None, "no variable of that name at the call")
        v = ev.value_for(ref, param, sig, old_sig, edits)
        if v.source is None:
            return Value(None, f"no variable of that name at the call, and {v.reason}")
        where = from_old_calls(v.source, learned.pairs) if learned is not None else None
        if where is not None:
            why = learned.why_not if learned is not None and learned.why_not else "no template"
            return Value(
                None,
                f"the tests pass {param}={v.source}, but that is their own old call's value ({where}), not a "
                f"constant to copy; and their edits give no template ({why})",
            )
        missing = free_names(v.source) - site.scope_names
        if missing:
            return Value(
                None,
                f"the tests pass {param}={v.source}, but {', '.join(sorted(missing))} "
                "is not defined in the benchmark",
            )
        return Value(v.source, v.reason, induced=True)

    return value_for
