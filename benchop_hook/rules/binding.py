"""BO1xx: what a call's arguments reach, before and after the change."""

from __future__ import annotations

from benchop_hook.rules.facts import BoundBefore, Found
from benchop_hook.rules.registry import rule
from benchop_hook.rules.settled import answers
from benchop_hook.rules.verdicts import LeaveToRun, Note


@rule(
    "BO101",
    "not-this-changes-break",
    summary="A call that did not bind the old signature either is no break of this change: it is reported, "
    "and "
    "never stops the commit (a condition bench-op can't evaluate around it leaves it to the run).",
    motivated_by="accelerate: a call broken by an earlier commit, reported as a hand edit on five later ones",
    fires="`Tracker(logging_dir=d)` at a commit that changed `Tracker`, where `logging_dir` was gone already",
    quiet="`Tracker(project_dir=d)`: it bound the old signature",
)
def not_this_changes_break(f: BoundBefore) -> Note | LeaveToRun | None:
    if f.bound_before:
        return None
    if f.guard is not None:
        return LeaveToRun("BO101", f"unknown: the run decides ({f.error_now}, but only {f.guard})")
    return Note(
        "BO101", "it did not bind before this change either: not this change's break; fix it when you can"
    )


# What a call binds, settled as a whole (rules/settled.py).
opaque_binding = answers(
    "BO102",
    "only-the-run-binds-it",
    Found.OPAQUE_BINDING,
    "run",
    summary="A call whose binding depends on values bench-op can't see (a `*args` or `**kwargs` it passes, a "
    "name it can't evaluate) is neither broken nor fixed statically: the run decides, and the repair loop "
    "fixes it from the traceback.",
    motivated_by="TileOPs: `Op(**params)`, the dict built by a helper from the case's parameters",
    fires="`Op(**params)` after `M` was removed, `params` built elsewhere",
    quiet="`Op(m, n)` after `M` was removed: its binding is readable",
)
unreadable = answers(
    "BO103",
    "signature-unreadable",
    Found.UNREADABLE,
    "run",
    summary="A class whose constructor (or method) bench-op can't read statically, a metaclass or a "
    "decorator that builds it, is left to the run.",
    motivated_by="the design: a constructor a metaclass, a decorator or a factory builds has no signature in "
    "the source",
    fires="`Op(n)` where `Op = make_op(...)` after the change",
    quiet="`Op(n)` where `class Op` defines `__init__` in the file",
)
authored_broken = answers(
    "BO104",
    "written-for-the-new-signature",
    Found.AUTHORED_BROKEN,
    "hand",
    summary="A call the range itself wrote was written for the new signature: when it fails it, its old "
    "binding means nothing, and a person fixes it.",
    motivated_by="the design: the old binding of a line the range wrote is not what its author meant",
    fires="`Op(n, dimm=1)`, added by the commit that made `dim` a parameter",
    quiet="`Op(n, dim=1)`, added by that commit: it binds",
    says="not rewritten: this call was written in this change for the new signature, and it does not bind "
    "it: fix it by hand",
)
partial_broken = answers(
    "BO105",
    "partial-binds-elsewhere",
    Found.PARTIAL_BROKEN,
    "hand",
    summary="A `functools.partial` of the class binds some arguments here and the rest where it is called: "
    "when what it binds here fails, a person fixes both places.",
    motivated_by="the design: a `functools.partial` shows half of the call",
    fires="`partial(Op, M=4)` after `M` was removed",
    quiet="`partial(Op, N=4)`: what it binds here still binds",
    says="not rewritten: a functools.partial binds these arguments here and the rest where it is called: fix "
    "them by hand",
)
classes_disagree = answers(
    "BO106",
    "classes-disagree",
    Found.CLASSES_DISAGREE,
    "hand",
    summary="A call that several changed classes can reach (`op_cls(...)` over a list) is rewritten only "
    "when every class asks the same rewrite.",
    motivated_by="TileOPs: `op_cls(...)` over a list of Ops, one of them removed with no successor",
    fires="`op_cls(n)` over `AFwdOp` (now `(n, dim)`) and `BFwdOp` (removed)",
    quiet="`op_cls(n)` over two classes whose fix is the same",
)
no_edit_binds = answers(
    "BO107",
    "no-edit-binds",
    Found.NO_EDIT_BINDS,
    "hand",
    summary="A plan is written only when the rewritten call binds the new signature with every argument on "
    "the parameter it reached before; when no edit does, a person says what the call becomes.",
    motivated_by="the planner's invariant: a rewrite that binds but moves a value to another parameter "
    "measures something else",
    fires="`Op(a, b)` where the new signature orders `b` before `a`, positional-only",
    quiet="`Op(a, b=b)` after `c` was appended with a default",
)
through_varargs = answers(
    "BO108",
    "through-varargs",
    Found.THROUGH_VARARGS,
    "hand",
    summary="A value that reached the class through its `*args` went to whatever read it there: bench-op "
    "does not move it.",
    motivated_by="the design: what a `*args` collects is the constructor's own to read",
    fires="`Op(4, 8, dtype)` after `*shape` became `shape: tuple`",
    quiet="`Op((4, 8), dtype)`",
)
positional_only = answers(
    "BO109",
    "positional-only-now",
    Found.POSITIONAL_ONLY,
    "hand",
    summary="A value for a parameter that is positional-only now, where the arguments before it moved, "
    "can't be kept on its parameter by keyword: a person rewrites it.",
    motivated_by="the design: a keyword can't reach a positional-only parameter",
    fires="`Op(n=4)` after `def __init__(self, n, /)`",
    quiet="`Op(4)` after the same change",
)
history_silent = answers(
    "BO110",
    "history-silent",
    Found.HISTORY_SILENT,
    "hand",
    summary="In `--all-files`, a call the current signature provably rejects is reported; it is rewritten "
    "only where the benchmark's last commit says what it meant.",
    motivated_by="the design of `--all-files`: the current signature proves a break, only history a fix",
    fires="`Op(m, n)` at HEAD, `Op` taking `(n,)`, and no earlier version of the benchmark in git",
    quiet="`Op(n)`: it binds the current signature",
)
not_written = answers(
    "BO111",
    "not-written",
    Found.NOT_WRITTEN,
    "hand",
    summary="A planned edit the rewrite stage could not write (the call is not where the plan found it, or "
    "another edit of the file was refused) is reported: a file is rewritten whole or not at all.",
    motivated_by="the design: a file is rewritten whole or not at all",
    fires="a file where one call's edit is refused and another's planned",
    quiet="a file whose every planned edit is written",
)
by_keyword = answers(
    "BO112",
    "kept-by-keyword",
    Found.BY_KEYWORD,
    "keep",
    summary="A positional value whose slot another parameter took is passed by keyword to the parameter it "
    "reached: the same value, on the same parameter.",
    motivated_by="TileOPs: positional calls whose slots a new parameter took (status shifted)",
    fires="`Op(n, dtype)` -> `Op(n, dtype=dtype)` once `dim` took the second slot",
    quiet="`Op(n, dtype=dtype)`: already by keyword",
)
