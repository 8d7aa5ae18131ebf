"""What the static pass hands on: frozen values, one stage's output the next stage's input.

`judge_file` returns a `FileVerdict` (the findings of one benchmark file and the import edits it needs);
`apply` turns a verdict into a `FileResult` (the file as rewritten, and each finding as it then stands);
the drivers gather those into a `StaticResult`. A later stage never edits an earlier stage's value: it
makes a new one (`dataclasses.replace`), as LibCST's codemods return a new result instead of mutating.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from benchop_hook.analysis.callsites import CallSite
from benchop_hook.analysis.callsites.model import PARTIAL_LATER
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.modules import ClassRef
from benchop_hook.fixing.plan import ImportEdit, Plan, Status
from benchop_hook.git.target import Target
from benchop_hook.rules import decide
from benchop_hook.rules.facts import Found, Settled
from benchop_hook.rules.verdicts import Hand, LeaveToRun


def written_args(site: CallSite) -> str:
    """A call's arguments as written (each one's own source), between its brackets."""
    return ", ".join(
        a.source
        if a.kind == "pos"
        else f"{a.keyword}={a.source}"
        if a.kind == "kw"
        else ("*" if a.kind == "star" else "**") + a.source
        for a in site.args
        if a.source != PARTIAL_LATER
    )


def shown_call(site: CallSite, method: str | None, limit: int = 72) -> str:
    """A call as reports show it: its name (and the method called) and arguments, cut at `limit`."""
    if site.via == "import":
        return site.func_source if len(site.func_source) <= limit else site.func_source[: limit - 3] + "..."
    args = written_args(site)
    shown = method and method != "__call__" and not site.func_source.endswith(method)
    text = f"{site.func_source}{f'.{method}' if shown else ''}({args})"
    if site.via == "partial":
        text = f"partial({site.func_source}{', ' if args else ''}{args})"
    return text if len(text) <= limit else text[: limit - 4] + "...)"


def import_statement_site(path: str, data: bytes, modules: set[str], names: set[str]) -> CallSite | None:
    """The first `from m import ...` statement of `modules`, or importing one of `names`, as a site a finding
    is reported on (via "import": no call, its text shown as written)."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    node = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom)
            and (n.module in modules or any(a.name in names for a in n.names))
        ),
        None,
    )
    return written_site(path, data, node) if node is not None else None


def import_of(path: str, data: bytes, module: str, name: str) -> CallSite | None:
    """The `from module import name` statement of the file (a relative one by its last part), as a site; or,
    where none names the module so, the one statement importing `name`, when only one does. Never another
    module's import of the same name (peft 64a9867: `ia3`'s and `vera`'s `Linear8bitLt`, both imported)."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    froms = [
        n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and any(a.name == name for a in n.names)
    ]
    exact = [
        n
        for n in froms
        if (n.level == 0 and n.module == module)
        or (n.level > 0 and (module + ".").endswith("." + (n.module + "." if n.module else "")))
    ]
    pick = exact[:1] or (froms if len(froms) == 1 else [])
    return written_site(path, data, pick[0]) if pick else None


def written_site(path: str, data: bytes, node: ast.stmt | ast.expr) -> CallSite:
    """A statement or expression that is no call, as a site a finding is reported on (via "import": its
    text shown as written)."""
    lines = data.decode("utf-8-sig", "replace").splitlines()
    text = " ".join(line.strip() for line in lines[node.lineno - 1 : node.end_lineno or node.lineno])
    return CallSite(
        path,
        node.lineno,
        node.col_offset,
        node.end_lineno or node.lineno,
        node.end_col_offset or 0,
        text,
        (),
        frozenset(),
        None,
        None,
        None,
        frozenset(),
        "import",
    )


@dataclass(frozen=True)
class Example:
    """The commit's own edit a fix repeats: the first pair of an old call and its new call, and how many
    pairs agree."""

    path: str
    line: int
    old: str
    new: str
    agreeing: int

    def as_json(self) -> dict[str, object]:
        return {
            "kind": "example",
            "path": self.path,
            "line": self.line,
            "old": self.old,
            "new": self.new,
            "agreeing": self.agreeing,
        }


@dataclass(frozen=True)
class Finding:
    """One benchmark call that a change concerns, judged."""

    site: CallSite
    op: str
    status: Status
    problem: str
    plan: Plan | None = None
    why_not: str | None = None  # why there is no fix
    info: tuple[str, ...] = ()  # notes that need no action (e.g. default not pinned)
    method: str | None = None
    fixed: bool = False  # the rewrite was applied
    hand: bool = False  # a default to pin that bench-op could not write: the user should
    rest_to_run: bool = (
        False  # its explicit arguments are rewritten; what its splat binds only a run can judge
    )
    route: ClassRef | None = None  # the class the call is rewritten to, when not its Op's successor
    renamed_func: str | None = None  # the called name once the file's imports follow a renamed Op
    example: Example | None = None  # the commit's own edit the fix repeats
    rule: str | None = None  # the rule that decided it (docs/rules.md), where one did
    trace: tuple[str, ...] = ()  # every rule that fired on the call, in order

    @property
    def func_after(self) -> str:
        """The called name as the rewritten file spells it."""
        return self.renamed_func or self.site.func_source

    @property
    def guessed(self) -> bool:
        """Its fix rests on induction (a value the tests pass, the commit's own edits as a template), not on
        proof: it lands in a commit only once a run gave numbers; without a run it is a proposal."""
        plan = self.plan
        return plan is not None and bool(plan.ops) and (plan.induced or self.example is not None)

    @property
    def needs_action(self) -> bool:
        # A call broken before the change (STALE) is reported, never this change's stop (rules/binding.py).
        return (self.status not in (Status.OK, Status.DEFAULT, Status.STALE) or self.hand) and not self.fixed

    @property
    def runtime_candidate(self) -> bool:
        """Only a run can judge it (splatted arguments)."""
        return self.status is Status.UNKNOWN or self.rest_to_run

    def as_json(self) -> dict[str, object]:
        method = "." + self.method if self.method and self.method != "__call__" else ""
        return {
            "path": self.site.path,
            "line": self.site.lineno,
            "call": self.site.func_source + method,
            "op": self.op,
            "method": self.method,
            "via": self.site.via,
            "function": self.site.qualfunction,
            "status": self.status.name.lower(),
            "problem": self.problem,
            "fix": self.plan.preview if self.plan else None,
            "notes": list(self.plan.notes) if self.plan else [],
            "why_not": self.why_not,
            "info": list(self.info),
            "fixed": self.fixed,
            "call_after": self.func_after + method,
            "route": self.route.qualname if self.route else None,
            "rest_to_run": self.rest_to_run,
            "evidence": self.example.as_json() if self.example else None,
            "rule": self.rule,
            "trace": list(self.trace),
            "guessed": self.guessed,
            "candidates": [
                {"fix": alt.preview, "notes": list(alt.notes)}
                for alt in (self.plan.alternatives if self.plan else ())
            ],
        }

    def fix_line(self, plan: Plan | None = None) -> str:
        """The rewrite of this call with `plan` (its own by default), one line, as the report and the commit
        body say it."""
        p = plan or self.plan
        assert p is not None
        func = self.func_after + (f".{self.method}" if self.method and self.method != "__call__" else "")
        return (
            f"{self.site.path}:{self.site.lineno}: {shown_call(self.site, self.method)} -> {func}{p.preview}"
        )


def decided(f: Finding, found: Found, said: str = "", off: frozenset[str] = frozenset()) -> Finding:
    """`f` as the rule that answers `found` leaves it: reported, with `said` as why it is not rewritten;
    left to the run; or as it is (a rewrite the rule keeps), named by that rule either way."""
    d = decide.settled(Settled(found, said), off)
    v = d.verdict
    trace = f.trace + d.trace
    if isinstance(v, LeaveToRun):
        return replace(
            f, status=Status.UNKNOWN, plan=None, why_not=v.reason or None, rule=v.rule, trace=trace
        )
    if isinstance(v, Hand):
        return replace(f, why_not=v.reason or None, rule=v.rule, trace=trace)
    return replace(f, rule=v.rule, trace=trace)


@dataclass(frozen=True)
class Note:
    """A call or import only a run can judge: information, not a failure."""

    path: str
    line: int
    call: str
    reason: str

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "call": self.call, "reason": self.reason}


@dataclass(frozen=True)
class ImportNote:
    """What a benchmark's import of a renamed, moved or removed class needs, as the report says it."""

    name: str  # the imported name
    text: str
    successor: str | None = None  # the class the import now names, when it follows one
    module: str | None = None  # the module it is imported from, for a removed class


@dataclass(frozen=True)
class FileVerdict:
    """The judge's word on one benchmark file: its findings, and the import edits its rewrite needs."""

    path: str
    before: bytes
    findings: tuple[Finding, ...] = ()
    imports: tuple[ImportEdit, ...] = ()
    renames: Mapping[str, str] = field(default_factory=dict)  # imported name -> the successor's name
    import_notes: tuple[ImportNote, ...] = ()
    error: str | None = None  # the file could not be parsed
    # The functions (pytest node ids' qualified names; None: not in a function) with a call that builds a
    # changed class, whether or not the call needs anything: they run after the change.
    reaches: tuple[str | None, ...] = ()
    # (module, name) of the import edits whose old import provably fails in the new version: the module is
    # gone, or it binds no such name and has neither a star import nor a module `__getattr__`.
    failing: frozenset[tuple[str, str]] = frozenset()


@dataclass(frozen=True)
class FileResult:
    """One benchmark file after the rewrite step: as it was, as it is to be, and its findings then."""

    path: str
    findings: tuple[Finding, ...] = ()
    before: bytes | None = None
    after: bytes | None = None
    error: str | None = None
    import_notes: tuple[ImportNote, ...] = ()
    would_change: bool = False  # check mode: a rewrite is planned (libcst not run)
    reaches: tuple[str | None, ...] = ()  # the functions that build a changed class (FileVerdict.reaches)

    @property
    def changed(self) -> bool:
        return self.after is not None and self.after != self.before

    def fix_lines(self) -> list[str]:
        """The rewrites the static pass made in the file, one line each (the report's and the commit
        body's)."""
        return [f.fix_line() for f in self.findings if f.fixed and f.plan is not None and f.plan.ops]

    def hand_edit(self) -> Finding:
        """The first call in the file that needs a hand edit (what blocks it before any run)."""
        return next(f for f in self.findings if f.needs_action and not f.runtime_candidate)


@dataclass(frozen=True)
class StaticResult:
    target: Target
    changes: tuple[OpChange, ...] = ()
    files: tuple[FileResult, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()  # (path, why it was not read)
    op_files_changed: bool = False
    # all-files mode: what was checked against the current signatures, and what only a run can judge
    checked_calls: int = 0
    checked_classes: frozenset[str] = frozenset()
    unknown: tuple[Note, ...] = ()
    unresolved: tuple[Note, ...] = ()

    @property
    def findings(self) -> list[Finding]:
        return [f for fr in self.files for f in fr.findings]

    @property
    def broken(self) -> list[Finding]:
        return [f for f in self.findings if f.needs_action]

    @property
    def rewritten(self) -> list[FileResult]:
        return [fr for fr in self.files if fr.changed or fr.would_change]


def not_written(result: StaticResult, path: str, why: str) -> StaticResult:
    """`result` with the rewrite of `path` undone in its findings: the file could not be written."""

    def unfixed(fr: FileResult) -> FileResult:
        if fr.path != path:
            return fr
        return replace(
            fr,
            findings=tuple(
                decided(replace(f, fixed=False), Found.NOT_WRITTEN, why) if f.fixed else f
                for f in fr.findings
            ),
        )

    return replace(result, files=tuple(unfixed(fr) for fr in result.files))
