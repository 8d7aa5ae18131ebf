"""The static pass: diff -> Op changes -> benchmark calls -> plans -> rewritten files.

I/O happens at the edges (`commands/common.static` opens the snapshots; the caller writes files);
`StaticPass.run` takes snapshots and returns a `StaticResult`, and `StaticPass.context()` hands what it
learned (projects, evidence, changes) to the repair loop as a frozen `StaticContext`.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchop_hook.analysis.callsites import UNKNOWN, Arg, CallSite, Gone, Instance, char_col, local_binding
from benchop_hook.analysis.changes import OpChange, detect
from benchop_hook.analysis.edits import Edit, EditKind
from benchop_hook.analysis.evidence import TestEvidence
from benchop_hook.analysis.locate import analyze
from benchop_hook.analysis.modules import ClassRef, ModuleInfo, ParseCache, resolve_relative, walk_list
from benchop_hook.analysis.project import Project
from benchop_hook.analysis.signatures import Signature, free_names, is_constant_source, same_default
from benchop_hook.config import Config
from benchop_hook.fixing.context import StaticContext, call_signature, change_signatures, value_source
from benchop_hook.fixing.plan import (
    ArgOp,
    DictEdit,
    ImportEdit,
    NoPlan,
    Plan,
    Status,
    choice_words,
    classify,
    default_pins,
    fails_whatever_splats_hold,
    judge_now,
    plan,
    plan_explicit,
)
from benchop_hook.git import repo as gitrepo
from benchop_hook.git.last_commit import History
from benchop_hook.git.target import Target
from benchop_hook.paths import Paths

if TYPE_CHECKING:
    from benchop_hook.analysis.callsites import ModuleAnalyzer


@dataclass
class Finding:
    site: CallSite
    op: str
    status: Status
    problem: str
    plan: Plan | None = None
    why_not: str | None = None  # why there is no fix
    info: list[str] = field(default_factory=list)  # notes that need no action (e.g. default not pinned)
    method: str | None = None
    fixed: bool = False  # the rewrite was applied

    hand: bool = False  # a default to pin that bench-op could not write: the user should
    rest_to_run: bool = (
        False  # its explicit arguments are rewritten; what its splat binds only a run can judge
    )
    route: ClassRef | None = (
        None  # the class the call is rewritten to, when not its Op's successor (a choice's sibling)
    )
    renamed_func: str | None = (
        None  # the called name once the file's imports follow a renamed Op (for the report)
    )

    @property
    def func_after(self) -> str:
        """The called name as the rewritten file spells it."""
        return self.renamed_func or self.site.func_source

    @property
    def needs_action(self) -> bool:
        return (self.status not in (Status.OK, Status.DEFAULT) or self.hand) and not self.fixed

    @property
    def runtime_candidate(self) -> bool:
        """Only a run can judge it (splatted arguments)."""
        return self.status is Status.UNKNOWN or self.rest_to_run

    def as_json(self) -> dict[str, object]:
        return {
            "path": self.site.path,
            "line": self.site.lineno,
            "call": self.site.func_source
            + ("." + self.method if self.method and self.method != "__call__" else ""),
            "op": self.op,
            "method": self.method,
            "via": self.site.via,
            "function": self.site.qualfunction,
            "status": self.status.name.lower(),
            "problem": self.problem,
            "fix": self.plan.preview if self.plan else None,
            "notes": list(self.plan.notes) if self.plan else [],
            "why_not": self.why_not,
            "info": self.info,
            "fixed": self.fixed,
            "call_after": self.func_after
            + ("." + self.method if self.method and self.method != "__call__" else ""),
            "route": self.route.qualname if self.route else None,
            "rest_to_run": self.rest_to_run,
        }


@dataclass(frozen=True)
class Note:
    """A call or import only a run can judge: information, not a failure."""

    path: str
    line: int
    call: str
    reason: str

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "call": self.call, "reason": self.reason}


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    before: bytes | None = None
    after: bytes | None = None
    error: str | None = None
    import_notes: list[str] = field(default_factory=list)

    would_change: bool = False  # check mode: a rewrite is planned (libcst not run)

    @property
    def changed(self) -> bool:
        return self.after is not None and self.after != self.before


@dataclass
class StaticResult:
    target: Target
    changes: list[OpChange] = field(default_factory=list)
    files: list[FileResult] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why it was not read)
    op_files_changed: bool = False
    # all-files mode: what was checked against the current signatures, and what only a run can judge
    checked_calls: int = 0
    checked_classes: set[str] = field(default_factory=set)
    unknown: list[Note] = field(default_factory=list)
    unresolved: list[Note] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return [f for fr in self.files for f in fr.findings]

    @property
    def broken(self) -> list[Finding]:
        return [f for f in self.findings if f.needs_action]

    @property
    def rewritten(self) -> list[FileResult]:
        return [fr for fr in self.files if fr.changed or fr.would_change]


def _dict_preview(site: CallSite, d: DictEdit) -> str:
    """What a **dict fix does, as a preview: the call as it is, and the edit of the dict it splats."""
    args = ", ".join(
        a.source
        if a.kind == "pos"
        else f"{a.keyword}={a.source}"
        if a.kind == "kw"
        else ("*" if a.kind == "star" else "**") + a.source
        for a in site.args
    )
    name = next((a.source for a in site.args if a.kind == "dstar"), "the dict")
    said = {"drop": "{k!r} removed", "rename": "{k!r} renamed to {v!r}", "add_kw": "{k}={v} added"}
    edits = ", ".join(said[op.op].format(k=op.name, v=op.value) for op in d.ops if op.op in said)
    return f"({args}) with {name} edited: {edits}"


@dataclass
class Sources:
    """The snapshots one run of the static pass reads."""

    old: gitrepo.Snapshot | None
    new: gitrepo.Snapshot
    bench: gitrepo.Snapshot  # where benchmark files are read from (and rewritten for)
    changes: list[gitrepo.Change]


@dataclass
class _DefaultPins:
    """What `StaticPass._default_pins` decided for one call."""

    info: list[str] = field(default_factory=list)  # notes: a changed default not pinned, and why
    hand: bool = False  # a default to pin that bench-op can't write
    hand_note: str = ""
    what: str = ""  # the last changed default the call relies on, as a sentence
    pins: list[tuple[str, str, str]] = field(default_factory=list)  # (param, old value, note)


_WORD_RUN = re.compile(rb"[A-Za-z0-9_]+")


def _word_runs(blobs: Iterable[bytes | None]) -> bytes:
    return b"\0".join(set(_WORD_RUN.findall(b"\0".join(b for b in blobs if b is not None))))


class StaticPass:
    def __init__(
        self,
        config: Config,
        sources: Sources,
        target: Target,
        *,
        history: History | None = None,
        only: set[str] | None = None,
        rewrite: bool = True,
        cache_dir: str | None = None,
    ) -> None:
        self.config = config
        self.paths = Paths(config)
        self.src = sources
        self.target = target
        self.cache = ParseCache()
        self.new_p = Project(sources.new, self.cache, self.paths.op, config.op_bases, self.paths.interface)
        self.old_p = (
            Project(sources.old, self.cache, self.paths.op, config.op_bases, self.paths.interface)
            if sources.old is not None
            else None
        )
        self.history = history  # all-files mode: finds the version a benchmark was written against
        self.only = only  # all-files mode: just these benchmark files
        self.rewrite = rewrite  # False: plan only (check), no libcst
        self.cache_dir = cache_dir  # where the all-files cache lives (.git/bench-op)
        self.result = StaticResult(target)
        self._corpus: tuple[bytes, bytes] | None = None  # see `_corpora`
        self.evidence: TestEvidence | None = None  # what the updated tests say, once it is needed
        self._history_changes: dict[str, tuple[list[OpChange], TestEvidence]] = {}

    def context(self) -> StaticContext:
        """What this pass learned, for the repair loop."""
        if self.evidence is None:
            self.evidence = self._evidence(self.old_p)
        return StaticContext(
            self.paths, self.new_p, self.old_p, self.src.bench, self.evidence, tuple(self.result.changes)
        )

    # -- helpers
    def _evidence(self, old_p: Project | None) -> TestEvidence:
        tests = [p for p in self.src.new.paths() if self.paths.test(p)]
        changed_tests = [
            (c.old_path, c.new_path)
            for c in self.src.changes
            if (c.old_path and self.paths.test(c.old_path)) or (c.new_path and self.paths.test(c.new_path))
        ]
        return TestEvidence(self.new_p, old_p, tests, changed_tests)

    def _built_by_benchmarks(self, changes: list[OpChange]) -> list[OpChange]:
        """Interface classes (workloads, helpers) matter only where a benchmark names them; Ops always do."""

        def interface(c: OpChange) -> bool:
            return (c.old is None or not self.old_p or not self.old_p.is_op(c.old)) and (
                c.new is None or not self.new_p.is_op(c.new)
            )

        if not any(interface(c) for c in changes):
            return changes
        blobs = [
            d
            for p in self.src.bench.paths()
            if self.paths.bench(p) and (d := self.src.bench.read(p)) is not None
        ]
        return [
            c
            for c in changes
            if not interface(c)
            or any(n.encode() in d for n in {r.name for r in (c.old, c.new) if r} for d in blobs)
        ]

    def _detected(self, p: str) -> bool:
        return self.paths.op(p) or self.paths.interface(p)

    def _interface_changed(
        self, changes: list[gitrepo.Change], meanwhile: Callable[[], object] | None = None
    ) -> list[bool | None]:
        """For each change, whether it is of an interface file whose classes' constructors changed (most
        changes to such files don't); None for an edited file left unparsed because none of its classes
        can matter (`_unparsed`). A large commit's files are shared with a forked child, and `meanwhile`
        runs in this process while the child works."""
        from benchop_hook.analysis.interfaces import constructor_changed
        from benchop_hook.fixing import forked

        out: list[bool | None] = [False] * len(changes)
        asks: list[int] = []
        late: dict[
            int, str
        ] = {}  # named by op files only: asked once their module is known to be an ancestor
        blobs: dict[int, tuple[bytes | None, bytes | None]] = {}
        for i, c in enumerate(changes):
            paths = [p for p in (c.old_path, c.new_path) if p]
            if not paths or not all(self.paths.interface(p) for p in paths) or self.src.old is None:
                continue
            old = self.src.old.read(c.old_path) if c.old_path else None
            new = self.src.new.read(c.new_path) if c.new_path else None
            if old == new:
                continue
            blobs[i] = (old, new)
            why = self._unparsed(c, old, new)
            if why == "nowhere":
                out[i] = None
            elif why == "op files" and c.new_path:
                late[i] = c.new_path
            else:
                asks.append(i)

        def size(i: int) -> int:
            return len(blobs[i][0] or b"") + len(blobs[i][1] or b"")

        ancestors: set[str] = set()
        if sum(size(i) for i in late) < ANCESTOR_CHECK_WEIGHT:
            asks += sorted(late)
            late = {}

        def then() -> None:
            if meanwhile is not None:
                meanwhile()
            if late:
                ancestors.update(self._op_ancestor_modules())

        answers = forked.map_split(
            lambda i: constructor_changed(*blobs[i]), asks, [size(i) for i in asks], meanwhile=then
        )
        for i, yes in zip(asks, answers):
            out[i] = yes
        for i, path in late.items():
            # No op class inherits from a class of this module: what its constructors say reaches no
            # benchmark.
            out[i] = constructor_changed(*blobs[i]) if self.new_p.module_name(path) in ancestors else None
        return out

    def _unparsed(self, c: gitrepo.Change, old: bytes | None, new: bytes | None) -> str | None:
        """Whether an edited interface file can be left unparsed: "nowhere" when no benchmark file and no op
        file names any of its classes; "op files" when only op files do (then it depends on whether an Op
        inherits from one of them: a call of the class in an op file is not the Op's constructor); None:
        parse it. Only when its top-level classes are the same on both sides (none appears or disappears to
        pair as a rename): a class's change is dropped unless a benchmark file names it
        (`_built_by_benchmarks`), and reaches an Op only as an ancestor (`changes.detect`'s frontier, which
        looks in the op files that name it)."""
        from benchop_hook.analysis.interfaces import left_unparsed

        if old is None or new is None or c.old_path != c.new_path:
            return None
        bench, ops = self._corpora()
        return left_unparsed(old, new, bench.__contains__, ops.__contains__)

    def _op_ancestor_modules(self) -> set[str]:
        """The modules of every class an Op of the new version inherits from (each op file parsed)."""
        from benchop_hook.analysis.changes import classes_in

        out: set[str] = set()
        for path in self._op_files():
            for ref in classes_in(self.new_p, path):
                if self.new_p.is_op(ref):
                    out.update(a.module for a in self.new_p.ancestors(ref))
        return out

    def _unparsed_changed(self, changes: list[gitrepo.Change], answers: list[bool | None]) -> bool:
        """Whether a file the interface check left unparsed changed a constructor after all: asked only
        when nothing else changed, for the summary line (none of its classes matters to a benchmark)."""
        from benchop_hook.analysis.interfaces import constructor_changed

        old, new = self.src.old, self.src.new
        return old is not None and any(
            constructor_changed(old.read(c.old_path or ""), new.read(c.new_path or ""))
            for c, a in zip(changes, answers)
            if a is None
        )

    def _corpora(self) -> tuple[bytes, bytes]:
        """What can name a class of an interface file so that it matters: the benchmark files, and the op
        files. Both are searched for the name as a substring (as `_built_by_benchmarks` and `changes.detect`
        do); an ASCII name found in a text lies within one run of ASCII letters, digits and underscores, so
        the distinct runs, joined by NUL, answer the same, and are some 20 times shorter to search."""
        if self._corpus is None:
            benches, ops = [p for p in self.src.bench.paths() if self.paths.bench(p)], self._op_files()
            self.src.bench.prefetch(benches)
            self.src.new.prefetch(ops)
            self._corpus = (
                _word_runs(self.src.bench.read(p) for p in benches),
                _word_runs(self.src.new.read(p) for p in ops),
            )
        return self._corpus

    def _rename_votes(self, olds: set[str], news: set[str]) -> dict[tuple[str, str], set[str]]:
        """Swaps of an old name for a new one in the other Python files of the diff (benchmarks excluded:
        they are what gets fixed)."""
        from benchop_hook.analysis import renames

        files: list[tuple[str, str, str]] = []
        for c in self.src.changes:
            if not (c.old_path and c.new_path and c.new_path.endswith(".py")) or self.paths.bench(c.new_path):
                continue
            if self.src.old is None:
                continue
            old, new = self.src.old.read(c.old_path), self.src.new.read(c.new_path)
            if old is None or new is None:
                continue
            p = c.new_path
            kind = (
                renames.EXPORTS
                if p.endswith("__init__.py")
                else renames.TESTS
                if self.paths.test(p)
                else renames.OPS
                if self.paths.op(p)
                else renames.WORKLOADS
                if "workload" in p
                else renames.OTHER
            )
            files.append((kind, old.decode("utf-8", "replace"), new.decode("utf-8", "replace")))
        from benchop_hook.fixing import forked

        def spread(
            f: Callable[[tuple[str, str, str]], list[tuple[str, str]]], xs: list[tuple[str, str, str]]
        ) -> list[list[tuple[str, str]]]:
            # A file with a swap is diffed and parsed on both sides: worth a fork from a few files on.
            return forked.map_split(f, xs, [len(a) + len(b) for _, a, b in xs], min_weight=VOTES_FORK_WEIGHT)

        return renames.votes_from(files, olds, news, spread)

    def _op_files(self) -> list[str]:
        return [p for p in self.src.new.paths() if self.paths.op(p)]

    def _skip_unreadable(self, project: Project, paths: Iterable[str]) -> None:
        for p in paths:
            mi = project.at(p)
            if mi is not None and mi.error and (p, mi.error) not in self.result.skipped:
                self.result.skipped.append((p, mi.error))

    # -- diff modes
    def run(self) -> StaticResult:
        if self.target.mode == "all":
            return self._run_all()

        def op(c: gitrepo.Change) -> bool:
            return bool(
                (c.old_path and self.paths.op(c.old_path)) or (c.new_path and self.paths.op(c.new_path))
            )

        others = [c for c in self.src.changes if not op(c)]
        # Every changed Python file is read below (op files, the interface check, the rename votes).
        if self.src.old is not None:
            self.src.old.prefetch(
                c.old_path for c in self.src.changes if c.old_path and c.old_path.endswith(".py")
            )
        self.src.new.prefetch(
            c.new_path for c in self.src.changes if c.new_path and c.new_path.endswith(".py")
        )
        # The op files are parsed below whatever the interface check says: parse them while it runs.
        warm: list[tuple[Project, str]] = []
        if self.old_p is not None and self.src.old is not None:
            ops = [c for c in self.src.changes if op(c)]
            warm = [(self.old_p, c.old_path) for c in ops if c.old_path and self._detected(c.old_path)]
            warm += [(self.new_p, c.new_path) for c in ops if c.new_path and self._detected(c.new_path)]
        answers = self._interface_changed(others, lambda: [p.at(path) for p, path in warm])
        changed = {id(c) for c, yes in zip(others, answers) if yes}
        op_changes = [c for c in self.src.changes if op(c) or id(c) in changed]
        self.result.op_files_changed = bool(op_changes) or self._unparsed_changed(others, answers)
        if not op_changes or self.old_p is None:
            return self.result
        old_paths = [c.old_path for c in op_changes if c.old_path and self._detected(c.old_path)]
        new_paths = [c.new_path for c in op_changes if c.new_path and self._detected(c.new_path)]
        self._skip_unreadable(self.old_p, old_paths)
        self._skip_unreadable(self.new_p, new_paths)
        # A file that can't be read on either side says nothing about its classes (they are not "removed").
        unreadable = {p for p, _ in self.result.skipped}
        pairs = [(c.old_path, c.new_path) for c in op_changes]
        drop = {(o, n) for o, n in pairs if (o in unreadable) or (n in unreadable)}
        old_paths = [p for p in old_paths if not any(p == o for o, _ in drop)]
        new_paths = [p for p in new_paths if not any(p == n for _, n in drop)]
        ev = self.evidence = self._evidence(self.old_p)
        changes = detect(
            self.old_p, self.new_p, old_paths, new_paths, self._op_files, ev.rename_hints, self._rename_votes
        )
        changes = self._built_by_benchmarks(changes)
        self.result.changes = changes
        if changes:
            self._locate_and_fix(changes, self.old_p, ev, self._bench_candidates(changes))
        return self.result

    def _names(self, changes: list[OpChange]) -> set[bytes]:
        names: set[bytes] = set()
        for c in changes:
            for ref in (c.old, c.new):
                if ref is not None:
                    names.add(ref.name.encode())
        return names

    def _report_links(self, names: set[bytes] | None) -> None:
        """Symlinks under benchmark-paths are never written through: say so when they matter."""
        bench = self.src.bench
        if not isinstance(bench, gitrepo.WorkTree):
            return  # only a working tree has symlinks bench-op could be asked to write through
        for p in bench.links:
            if not self.paths.bench(p):
                continue
            full = os.path.join(bench.root, p)
            try:
                with open(full, "rb") as f:
                    data = f.read(2_000_000)
            except OSError:
                data = b""
            if names is None or any(n in data for n in names):
                why = "a symlink; bench-op never writes through one, so fix the file it points to by hand"
                if (p, why) not in self.result.skipped:
                    self.result.skipped.append((p, why))

    def _bench_candidates(self, changes: list[OpChange]) -> list[str]:
        names = self._names(changes)
        self._report_links(names)
        out = []
        for p in self.src.bench.paths():
            if not self.paths.bench(p):
                continue
            data = self.src.bench.read(p)
            if data is not None and any(n in data for n in names):
                out.append(p)
        return sorted(out)

    def _locate_and_fix(
        self,
        changes: list[OpChange],
        old_p: Project,
        ev: TestEvidence,
        paths: list[str],
        only: set[tuple[str, int]] | None = None,
    ) -> None:
        by_new = {c.new: c for c in changes if c.new is not None}
        by_old = {c.old: c for c in changes if c.old is not None}
        from benchop_hook.fixing import forked

        self.src.bench.prefetch(paths)
        blobs = [self.src.bench.read(p) for p in paths]
        weights = [len(b or b"") for b in blobs]
        # Each file is judged on its own: with enough of them, a forked child takes some (what it finds is
        # plain data), and they are put back in this order; the rewrites are made here. When a file is likely
        # to be rewritten and a child shares the work, libcst is imported here first, while the child judges.
        likely = [b is not None and _likely_rewritten(b, changes) for b in blobs]
        shared = sum(weights) >= JUDGE_FORK_WEIGHT and forked.can_fork()
        done = forked.map_split(
            lambda k: self._locate_one(paths[k], blobs[k], by_new, by_old, old_p, ev, only),
            range(len(paths)),
            weights,
            min_weight=JUDGE_FORK_WEIGHT,
            first=likely,
            meanwhile=_import_rewriter if self.rewrite and shared and any(likely) else None,
        )
        for found in done:
            if found is None:
                continue
            fr, imports, renames = found
            if fr.error:
                self.result.skipped.append((fr.path, fr.error))
            else:
                self._apply(fr, fr.before or b"", imports, renames)
            self.result.files.append(fr)

    def _locate_one(
        self,
        path: str,
        data: bytes | None,
        by_new: dict[ClassRef, OpChange],
        by_old: dict[ClassRef, OpChange],
        old_p: Project,
        ev: TestEvidence,
        only: set[tuple[str, int]] | None,
    ) -> tuple[FileResult, list[ImportEdit], dict[str, str]] | None:
        """One benchmark file's findings, and the import edits and renames its rewrite needs; None when
        nothing in it concerns the changes."""
        if data is None:
            return None
        fr = FileResult(path, before=data)
        az = analyze(path, data, self.new_p, old_p)
        if az.mi.error:
            fr.error = az.mi.error
            return fr, [], {}
        for site in az.calls():
            if only is not None and (path, site.lineno) not in only:
                continue
            f = self._judge(site, by_new, by_old, old_p, ev)
            if f is not None:
                fr.findings.append(f)
        routes = self._routes(az, fr, by_old)
        imports, renames, notes = self._import_fixes(az, by_old, old_p, routes, _imports_in_functions(data))
        fr.import_notes = notes
        return (fr, imports, renames) if fr.findings or imports else None

    def _routes(
        self, az: ModuleAnalyzer, fr: FileResult, by_old: dict[ClassRef, OpChange]
    ) -> dict[ClassRef, ClassRef]:
        """old class -> the sibling its name becomes in this file: every use of the imported name is a call
        routed to that one sibling (the import and the name are renamed, as for a renamed Op); any other
        use of the name needs the successor too, and the routed calls are reported instead."""
        routed = [f for f in fr.findings if f.route is not None and f.plan is not None]
        if not routed:
            return {}
        mi = az.mi
        out: dict[ClassRef, ClassRef] = {}
        by_name: dict[str, list[Finding]] = {}
        for f in routed:
            by_name.setdefault(f.site.func_source, []).append(f)
        for local, fs in by_name.items():
            target = mi.imports.get(local)
            gone = {a.old for f in fs for a in f.site.atoms if isinstance(a, Gone)}
            sibs = {f.route for f in fs}
            uses = sum(1 for n in mi.nodes() if isinstance(n, ast.Name) and n.id == local)
            ok = (
                target is not None
                and target[0] == "attr"
                and target[2] == local
                and len(gone) == 1
                and len(sibs) == 1
                and all(f.site.via == "direct" for f in fs)
                and uses == len(fs)
            )
            if ok:
                old_ref, sib = gone.pop(), sibs.pop()
                if sib is not None and old_ref in by_old:
                    out[old_ref] = sib
                    continue
            for f in fs:
                succ = f.route.name if f.route else "?"
                f.plan, f.route = None, None
                f.why_not = (
                    f"not rewritten: with its choice it is {succ} now, but {local} is used elsewhere in this "
                    "file too, where it needs another class: split it by hand"
                )
        return out

    def _import_fixes(
        self,
        az: ModuleAnalyzer,
        by_old: dict[ClassRef, OpChange],
        old_p: Project,
        routes: dict[ClassRef, ClassRef] | None = None,
        local: bool = True,
    ) -> tuple[list, dict[str, str], list[str]]:
        """Imports of a renamed or moved Op -> import edits and name renames; a removed Op -> a note.
        `local`: also the imports inside functions (False when the text shows there are none)."""
        edits: list[ImportEdit] = []
        renames: dict[str, str] = {}
        notes: list[str] = []
        mi = az.mi
        seen: set[tuple[str, str, str]] = set()
        for name_here, target in _all_imports(mi, local):
            if target[0] != "attr" or (name_here, *target[1:]) in seen:
                continue
            _, module, name = target
            seen.add((name_here, module, name))
            if self.new_p.resolve_name(module, name) is not None:
                continue
            old_ref = old_p.resolve_name(module, name)
            if not isinstance(old_ref, ClassRef):
                continue
            ch = by_old.get(old_ref)
            if ch is None or ch.new is None:
                if ch is not None:
                    notes.append(
                        f"imports {name} from {module}, which was removed with no successor: remove or "
                        "replace it by hand"
                    )
                continue
            succ = (routes or {}).get(old_ref, ch.new)
            via_same = self.new_p.resolve_name(module, succ.name)
            new_module = module if via_same == succ else succ.module
            edits.append(ImportEdit(module, name, new_module, succ.name))
            if name_here == name and succ.name != name:
                renames[name] = succ.name
            notes.append(f"import of {name} from {module} -> {succ.name} from {new_module}")
        return edits, renames, notes

    def _changes_reaching(
        self, site: CallSite, by_new: dict[ClassRef, OpChange], by_old: dict[ClassRef, OpChange]
    ) -> tuple[list[OpChange], int]:
        """The changes of the classes that can reach the call and that
        matter to it; and how many classes can.
        """
        method = site.method
        relevant: list[OpChange | None] = []
        for a in sorted(
            site.atoms, key=repr
        ):  # a set: in one order, so the change named is the same each run
            if isinstance(a, ClassRef) and method is None:
                relevant.append(by_new.get(a))
            elif isinstance(a, Instance) and method is not None:
                relevant.append(by_new.get(a.cls))
            elif isinstance(a, Gone):
                relevant.append(by_old.get(a.old))
        changed = [c for c in relevant if c is not None]
        if method is not None:
            changed = [c for c in changed if change_signatures(c, method, self.new_p)[2]]
        elif changed:
            changed = [c for c in changed if c.edits or c.status in ("removed", "renamed", "moved")]
        return changed, len(relevant)

    def _judge(
        self,
        site: CallSite,
        by_new: dict[ClassRef, OpChange],
        by_old: dict[ClassRef, OpChange],
        old_p: Project,
        ev: TestEvidence,
    ) -> Finding | None:
        method = site.method
        changed, n_relevant = self._changes_reaching(site, by_new, by_old)
        if not changed:
            return None
        op = "/".join(sorted({c.name for c in changed}))
        unknown = UNKNOWN in site.atoms or len(changed) != n_relevant

        # Every class that can reach the call must agree on the change.
        def key(c: OpChange) -> object:
            if method is None and not c.edits and c.status in ("renamed", "moved"):
                # a class renamed or moved with its constructor unchanged needs no edit of the call itself
                return None
            return change_signatures(c, method, self.new_p)

        keys = {key(c) for c in changed}
        if unknown and site.via != "direct":
            other = "other values" if UNKNOWN in site.atoms else "Ops whose signatures did not change"
            return Finding(
                site,
                op,
                Status.AMBIGUOUS,
                f"reached through {site.via} by {op} and {other}",
                why_not="the classes that can reach this call don't agree on one fix: update it by hand",
                method=method,
            )
        if len(keys) > 1:
            # Different changes may still need the same edit of this call: compare the outcomes.
            distinct: dict[object, list[OpChange]] = {}
            for c in changed:
                distinct.setdefault(key(c), []).append(c)
            outcomes = [
                (", ".join(sorted(c.name for c in cs)), self._judge_one(site, op, cs[0], method, old_p, ev))
                for cs in distinct.values()
            ]
            return _agreed(site, op, method, sorted(outcomes, key=lambda o: o[0]))
        return self._judge_one(site, op, changed[0], method, old_p, ev)

    def _judge_one(
        self, site: CallSite, op: str, change: OpChange, method: str | None, old_p: Project, ev: TestEvidence
    ) -> Finding | None:
        """The finding for a call reached by classes that all changed as `change` did."""
        old_name = change.old.name if change.old is not None else change.name
        if change.status == "removed":
            return Finding(
                site,
                op,
                Status.GONE,
                f"{old_name} was removed and nothing replaced it",
                why_not="no successor to rewrite to: remove or replace this benchmark case by hand",
                method=method,
            )
        old_sig, new_sig, edits = change_signatures(change, method, self.new_p)
        label = op if method is None else f"{op}.{'forward' if method == '__call__' else method}"
        # A moved class still importable under the name the benchmark uses (a re-export) needs nothing.
        name_gone = any(isinstance(a, Gone) for a in site.atoms)
        if old_sig is None or new_sig is None:
            if change.status in ("renamed", "moved") and not name_gone:
                return None
            if change.status in ("renamed", "moved") and change.new is not None:
                return Finding(site, op, Status.GONE, f"{old_name} is now {change.new.name}", method=method)
            return Finding(
                site, op, Status.UNKNOWN, f"the signature of {label} can't be read statically", method=method
            )
        args = site.args
        splat_expanded = site.splat_dict is not None
        if site.splat_dict is not None:
            # A literal **dict: judged as the keywords it holds; the fix edits the dict's keys.
            args = tuple(a for a in site.args if a.kind != "dstar") + tuple(
                Arg("kw", k, v) for k, v in site.splat_dict
            )
        status, problem = classify(args, old_sig, new_sig, edits)
        if status is Status.UNKNOWN:
            return (
                self._explicit_fix(site, op, change, old_sig, new_sig, edits, ev) if method is None else None
            ) or Finding(
                site,
                op,
                status,
                problem,
                why_not="left to the run: the repair loop fixes it from the traceback",
                method=method,
            )
        if status is Status.STALE:
            return Finding(
                site,
                op,
                status,
                problem,
                why_not="it did not bind before this change either: fix it by hand",
                method=method,
            )
        ref = change.new
        dp = self._default_pins(site, ref, default_pins(args, old_sig, new_sig, edits), new_sig, ev)
        info, hand, hand_note, what, pins = dp.info, dp.hand, dp.hand_note, dp.what, dp.pins
        if status is Status.OK and not pins:
            if hand:
                return Finding(
                    site, op, Status.DEFAULT, what, info=info, method=method, hand=True, why_not=hand_note
                )
            if info:
                return Finding(site, op, Status.DEFAULT, info[0], info=info, method=method)
            if change.status in ("renamed", "moved") and name_gone and change.new is not None:
                return Finding(
                    site,
                    op,
                    Status.GONE,
                    f"{old_name} is now {change.new.qualname}",
                    info=info,
                    method=method,
                    plan=Plan((), (f"{old_name} -> {change.new.name}",), "(unchanged arguments)"),
                )
            return None
        if status is Status.OK:
            status, problem = Status.DEFAULT, f"relies on the default of '{pins[0][0]}', which changed"
        if splat_expanded:
            problem += " (through a literal **dict)"
        own, drops = (
            _test_checks(ev, change.old or ref, ref, old_sig, new_sig, edits)
            if method is None
            else (None, None)
        )
        p = plan(
            args,
            old_sig,
            new_sig,
            edits,
            value_source(site, ev, ref, new_sig, old_sig, edits),
            pins,
            site.scope_names,
            own,
            drops,
        )
        if isinstance(p, NoPlan):
            # A choice with no home in the successor may have a class of its own in the same commit.
            routed = (
                self._route(site, op, change, p.choice, old_sig, status, problem, ev)
                if p.choice is not None
                and method is None
                and name_gone
                and not splat_expanded
                and change.status in ("renamed", "moved")
                and change.new is not None
                else None
            )
            return routed or Finding(
                site, op, status, problem, why_not=f"not rewritten: it {p.reason}", info=info, method=method
            )
        return Finding(site, op, status, problem, plan=p, info=info, method=method)

    def _explicit_fix(
        self,
        site: CallSite,
        op: str,
        change: OpChange,
        old_sig: Signature,
        new_sig: Signature,
        edits: Sequence[Edit],
        ev: TestEvidence,
    ) -> Finding | None:
        """A constructor call with an opaque splat whose explicit arguments provably fail the new signature
        (`X(dtype=dtype, **op_params)` once `dtype` is gone): their edit, with the splat left to the run."""
        star = any(a.kind == "star" for a in site.args)
        err = fails_whatever_splats_hold([a for a in site.args if a.kind in ("pos", "kw")], new_sig, star)
        if err is None:
            return None
        _, drops = _test_checks(ev, change.old or change.new, change.new, old_sig, new_sig, edits)
        p = plan_explicit(site.args, old_sig, new_sig, edits, drops, site.scope_names)
        if p is None:
            return None
        splats = " and ".join(
            ("*" if a.kind == "star" else "**") + a.source for a in site.args if a.kind in ("star", "dstar")
        )
        problem = f"TypeError: {err}, whatever {splats} hold{'s' if ' and ' not in splats else ''}"
        if isinstance(p, NoPlan):
            return Finding(site, op, Status.BROKEN, problem, why_not=f"not rewritten: it {p.reason}")
        dropped = {o.index for o in p.ops if o.op == "drop"}
        rest = any(a.kind in ("star", "dstar") and i not in dropped for i, a in enumerate(site.args))
        info = (
            [f"its explicit arguments rewritten; the rest is unknown: the run decides ({site.opaque})"]
            if rest
            else []
        )
        return Finding(site, op, Status.BROKEN, problem, plan=p, info=info, rest_to_run=rest)

    def _choice_siblings(self, succ: ClassRef, param: str, value: str) -> list[ClassRef]:
        """Classes that appeared next to `succ` in this commit and whose name is `succ`'s with the choice
        `param=value` added as words (`Conv2dFwdOp` + `bias=True` -> `Conv2dBiasFwdOp`): the split is on
        it."""
        from benchop_hook.analysis.renames import name_words

        path = self.new_p.class_path(succ)
        mi = self.new_p.at(path) if path else None
        if mi is None or self.old_p is None:
            return []
        token = choice_words(param, value)
        if not token:
            return []
        base = name_words(succ.name)
        successors = {c.new for c in self.result.changes if c.new is not None and c.old is not None}
        out = []
        for name in sorted(mi.classes):
            ref = ClassRef(succ.module, name)
            # New in this commit, and not another class's successor: a class of its own for the choice.
            if (
                name == succ.name
                or ref in successors
                or self.old_p.resolve_name(succ.module, name) is not None
                or not self.new_p.builds(ref)
            ):
                continue
            words = name_words(name)
            extra = len(words) - len(base)
            if extra <= 0:
                continue
            for k in range(len(base) + 1):
                if (
                    words[:k] == base[:k]
                    and words[k + extra :] == base[k:]
                    and "".join(words[k : k + extra]) in token
                ):
                    out.append(ref)
                    break
        return out

    def _route(
        self,
        site: CallSite,
        op: str,
        change: OpChange,
        choice: tuple[int, str, str],
        old_sig: Signature,
        status: Status,
        problem: str,
        ev: TestEvidence,
    ) -> Finding | None:
        """A call whose choice has no home in its Op's successor, rewritten to the sibling class the commit
        built for that choice, when there is exactly one and the call binds it with the same meaning."""
        from benchop_hook.analysis.edits import diff

        i, param, value = choice
        succ = change.new
        assert succ is not None
        sibs = self._choice_siblings(succ, param, value)
        if not sibs:
            return None
        old_name = change.old.name if change.old is not None else change.name
        if len(sibs) > 1:
            return Finding(
                site,
                op,
                status,
                problem,
                why_not=f"not rewritten: {succ.name} has no '{param}' for {param}={value}, and the commit "
                f"built several classes for it ({', '.join(s.name for s in sibs)}): pick one by hand",
            )
        sib = sibs[0]
        sib_sig = self.new_p.constructor(sib)
        if sib_sig is None:
            return None
        edits = diff(old_sig, sib_sig, ev.rename_hints(sib, old_sig, sib_sig))
        sp = sib_sig.get(param)
        # The class carries the choice: it has no such parameter, or takes it with that value as its default.
        carried = sp is None or (sp.default is not None and same_default(value, sp.default))
        args = site.args[:i] + site.args[i + 1 :] if carried else site.args
        changed = [e for e in default_pins(args, old_sig, sib_sig, edits) if e.name != param]
        dp = self._default_pins(site, sib, changed, sib_sig, ev)
        why = f"with {param}={value} it is {sib.name} now (the class the commit built for it)"
        if dp.hand:
            return Finding(site, op, status, problem, why_not=f"not rewritten: {why}, but {dp.hand_note}")
        own, drops = _test_checks(ev, change.old or succ, sib, old_sig, sib_sig, edits)
        p = plan(
            args,
            old_sig,
            sib_sig,
            edits,
            value_source(site, ev, sib, sib_sig, old_sig, tuple(edits)),
            dp.pins,
            site.scope_names,
            own,
            drops,
        )
        if isinstance(p, NoPlan):
            return Finding(site, op, status, problem, why_not=f"not rewritten: {why}, but it {p.reason}")
        ops = p.ops
        notes = [
            f"{old_name} -> {sib.name}: the class built for {param}={value} ({succ.name} has no '{param}')"
        ]
        if carried:
            ops = (
                *(
                    ArgOp(
                        o.op,
                        o.index + 1 if o.index is not None and o.index >= i else o.index,
                        o.name,
                        o.value,
                    )
                    for o in ops
                ),
                ArgOp("drop", i),
            )
            notes.append(
                f"{param}={value} dropped: "
                + (f"{sib.name} has it as its default" if sp is not None else f"{sib.name} stands for it")
            )
        return Finding(
            site,
            op,
            status,
            problem,
            plan=Plan(ops, tuple(notes) + p.notes, p.preview),
            info=dp.info,
            route=sib,
        )

    def _default_pins(
        self, site: CallSite, ref: ClassRef | None, changed: list[Edit], new_sig: Signature, ev: TestEvidence
    ) -> _DefaultPins:
        """Defaults the call relies on that changed: pin the old
        value, note why not, or ask for a hand edit.
        """
        out = _DefaultPins()
        for e in changed:
            out.what = (
                f"relies on the default of '{e.name}', which changed from {e.old_default} to {e.new_default}"
            )
            if not self.config.pin_defaults:
                out.info.append(f"{out.what}; not pinned (pin-defaults = false)")
            elif not is_constant_source(e.old_default or ""):
                out.info.append(f"{out.what}; not pinned: the old default is not a constant")
            elif free_names(e.old_default or "") - site.scope_names:
                missing = ", ".join(sorted(free_names(e.old_default or "") - site.scope_names))
                out.hand_note = (
                    f"not pinned: {missing} is not imported in the benchmark; "
                    f"pin {e.name}={e.old_default} by hand"
                )
                out.hand = True
            else:
                adopted = (
                    ev.adopts_new_default(ref, e.name, e.old_default or "", e.new_default, new_sig)
                    if ref
                    else None
                )
                if adopted:
                    out.info.append(
                        f"{out.what}; not pinned: the updated tests use the new default ({adopted})"
                    )
                else:
                    out.pins.append(
                        (
                            e.name,
                            e.old_default or "",
                            f"{e.name}={e.old_default} pinned: the default changed to {e.new_default}, and "
                            f"the benchmark measured {e.old_default}",
                        )
                    )
        return out

    def _apply(self, fr: FileResult, data: bytes, imports: list, renames: dict[str, str]) -> None:
        for f in fr.findings:
            head, dot, rest = f.site.func_source.partition(".")
            if f.plan is not None and head in renames:
                f.renamed_func = renames[head] + dot + rest
        if not self.rewrite:
            # `check` only reports: the plans are verified on the call's shape; libcst is not needed.
            for f in fr.findings:
                if f.plan is not None and (f.plan.ops or imports):
                    f.fixed = True
            fr.would_change = any(f.fixed for f in fr.findings) or bool(imports)
            return
        edited: list[Finding] = []
        dicts: list[DictEdit] = []
        for f in fr.findings:
            if f.plan is None or not f.plan.ops:
                continue
            s = f.site
            if s.splat_dict is not None:
                d = self._dict_edit(fr, s, f)
                if d is None:
                    f.plan, f.why_not = (
                        None,
                        "not rewritten: the splatted dict is not a literal bench-op can edit in place",
                    )
                    continue
                dicts.append(d)
                # the same words in check, fix and the commit message: the dict is edited, the call is not
                f.plan = Plan(f.plan.ops, f.plan.notes, _dict_preview(s, d))
                continue
            edited.append(f)
        if not edited and not imports and not dicts:
            for f in fr.findings:
                if f.status is Status.GONE and f.plan is not None:
                    f.fixed = False
            return
        from benchop_hook.rewrite.edit import (  # libcst: only for files that will be rewritten
            CallEdit,
            rewrite,
        )

        calls = [
            CallEdit(f.site.lineno, f.site.col, f.site.end_lineno, f.site.end_col, f.plan.ops)
            for f in edited
            if f.plan is not None
        ]

        res = rewrite(data, calls, imports, dicts, renames, line_length=self.config.line_length)
        if res.data is None or res.failed:
            for f in fr.findings:
                if f.plan is not None:
                    f.why_not = "not rewritten: " + (
                        "; ".join(res.failed) or "the rewrite produced no change"
                    )
                    f.plan = None
            return
        try:
            ast.parse(res.data)
        except SyntaxError as exc:  # pragma: no cover - a bug in a rewrite: never write it
            for f in fr.findings:
                f.plan, f.why_not = None, f"not rewritten: the result would not parse ({exc.msg})"
            return
        fr.after = res.data
        for f in fr.findings:
            if f.plan is not None:
                f.fixed = True

    def _dict_edit(self, fr: FileResult, site: CallSite, f: Finding) -> DictEdit | None:
        """Turn a plan over a literal **dict's keys into edits of that dict literal."""
        assert f.plan is not None and site.splat_dict is not None
        data = fr.before or b""
        tree = ast.parse(data)
        lines = data.decode("utf-8-sig", "replace").splitlines()
        call = next(
            (
                n
                for n in ast.walk(tree)
                if isinstance(n, ast.Call)
                and n.lineno == site.lineno
                and n.end_lineno == site.end_lineno
                and char_col(lines, n.lineno, n.col_offset) == site.col
                and char_col(lines, n.end_lineno or n.lineno, n.end_col_offset or 0) == site.end_col
            ),
            None,
        )
        if call is None:
            return None
        kw = next((k for k in call.keywords if k.arg is None), None)
        if kw is None:
            return None
        node = kw.value
        if isinstance(node, ast.Name):
            around = [
                n
                for n in ast.walk(tree)
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.lineno <= site.lineno <= (n.end_lineno or 0)
            ]
            fn = max(around, key=lambda n: n.lineno) if around else None  # the innermost
            bound = local_binding(fn, node.id, ()) if fn is not None else None
            node = bound if bound is not None else node
        if not isinstance(node, ast.Dict):
            return None
        literal_keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
        n_pos = sum(1 for a in site.args if a.kind != "dstar")
        ops = []
        for op in f.plan.ops:
            if op.index is not None and op.index < n_pos:
                return None  # the edit touches the call's own arguments too: leave it to the run
            if op.op in ("drop", "rename"):
                key = site.splat_dict[op.index - n_pos][0] if op.index is not None else None
                if key not in literal_keys:
                    return None  # added later with d["k"] = v: not a dict-literal edit
                ops.append(ArgOp(op.op, None, key, op.name))
            elif op.op == "add_kw":
                ops.append(op)
            else:
                return None
        col = char_col(lines, node.lineno, node.col_offset)
        return DictEdit(node.lineno, col, tuple(ops))

    # -- all-files mode
    def _run_all(self) -> StaticResult:
        """Every benchmark against the current signatures; a call that no longer binds is fixed
        from the version of its Op at the benchmark's last commit, when history has one."""
        from benchop_hook.fixing.cache import CleanCache, digest

        ev = self.evidence = self._evidence(None)
        py_paths = sorted(p for p in self.src.new.paths() if p.endswith(".py"))
        cache = CleanCache(self.cache_dir, [repr(self.config), *py_paths])
        digests: dict[str, str | None] = {}

        def dep_digest(p: str) -> str | None:
            if p not in digests:
                d = self.src.new.read(p)
                digests[p] = digest(d) if d is not None else None
            return digests[p]

        self._report_links(None)
        for path in sorted(p for p in self.src.bench.paths() if self.paths.bench(p)):
            if self.only is not None and path not in self.only:
                continue
            data = self.src.bench.read(path)
            if data is None:
                continue
            own = digest(data)
            if cache.is_clean(path, own, dep_digest):
                self._count_cached(cache.extra(path))
                continue
            deps = self.new_p.record()
            az = analyze(path, data, self.new_p, None)
            if az.mi.error:
                self.result.skipped.append((path, az.mi.error))
                self.result.files.append(FileResult(path, before=data, error=az.mi.error))
                continue
            suspect, calls, classes, unknown = self._judge_now(path, az.calls())
            gone = [
                local
                for local, t in az.mi.imports.items()
                if t[0] == "attr"
                and self.new_p.resolve_name(t[1], t[2]) is None
                and self._looks_like_op_import(t[1])
            ]
            unresolved = self._unresolved_imports(path, az.mi)
            self.new_p.stop_recording()
            self.result.checked_calls += calls
            self.result.checked_classes |= classes
            self.result.unknown.extend(unknown)
            self.result.unresolved.extend(unresolved)
            if not suspect and not gone:
                cache.mark_clean(
                    path,
                    own,
                    {p: dep_digest(p) for p in sorted(deps)},
                    {
                        "calls": calls,
                        "classes": sorted(classes),
                        "unknown": [n.as_json() for n in unknown],
                        "unresolved": [n.as_json() for n in unresolved],
                    },
                )
                continue
            cache.forget(path)
            self._fix_from_history(path, data, suspect, ev)
            told = " ".join(n for fr in self.result.files if fr.path == path for n in fr.import_notes)
            # An Op import history explains (renamed, moved, removed) is reported there, not as unresolved.
            self.result.unresolved = [
                n
                for n in self.result.unresolved
                if n.path != path or f" {n.call.rsplit(' ', 1)[-1]} from " not in f" {told}"
            ]
        cache.save()
        return self.result

    def _count_cached(self, extra: dict[str, object]) -> None:
        """Add what the cache kept of a clean file (its counts, unknown calls, unresolved imports) to the
        result."""
        n_calls, names = extra.get("calls"), extra.get("classes")
        self.result.checked_calls += n_calls if isinstance(n_calls, int) else 0
        if isinstance(names, list):
            self.result.checked_classes.update(str(c) for c in names)
        for key, dest in (("unknown", self.result.unknown), ("unresolved", self.result.unresolved)):
            items = extra.get(key)
            if isinstance(items, list):
                dest.extend(Note(**n) for n in items if isinstance(n, dict))

    def _judge_now(
        self, path: str, sites: Iterable[CallSite]
    ) -> tuple[dict[tuple[int, int], tuple[CallSite, str]], int, set[str], list[Note]]:
        """Each Op call of one file against the current signatures: the provably broken ones by position
        (with the TypeError each raises now), how many calls of which classes were checked, and the calls only
        a run can judge."""
        suspect: dict[tuple[int, int], tuple[CallSite, str]] = {}
        calls, classes, unknown = 0, set[str](), list[Note]()
        for site in sites:
            atoms = sorted(site.atoms, key=repr)  # a set: the first broken class named is the same each run
            classes_ = [a for a in atoms if isinstance(a, ClassRef) and self.new_p.is_op(a)]
            insts = [a.cls for a in atoms if isinstance(a, Instance) and self.new_p.is_op(a.cls)]
            sigs = [
                (r, call_signature(self.new_p, r, site.method))
                for r in (classes_ if site.method is None else insts)
            ]
            judged = [(r, sig) for r, sig in sigs if sig is not None]
            if not judged:
                continue
            calls += 1
            classes.update(r.qualname for r, _ in judged)
            verdicts = [judge_now(site.args, site.expanded_args, sig, site.opaque) for _, sig in judged]
            broken = next((why for st, why in verdicts if st is Status.BROKEN), None)
            if broken is not None and (
                site.guard is not None
                or (site.conditional and any(st is not Status.BROKEN for st, _ in verdicts))
            ):
                # Some classes may never get here: the condition decides, and only a run evaluates it.
                why = site.guard or "under a condition that may keep the classes it does not fit away"
                unknown.append(
                    Note(
                        path,
                        site.lineno,
                        _call_text(site),
                        f"unknown: the run decides ({broken}, but only {why})",
                    )
                )
            elif broken is not None:
                suspect[(site.lineno, site.col)] = (site, broken)
            elif any(st is Status.UNKNOWN for st, _ in verdicts):
                why = next(why for st, why in verdicts if st is Status.UNKNOWN)
                unknown.append(Note(path, site.lineno, _call_text(site), why))
        return suspect, calls, classes, unknown

    def _looks_like_op_import(self, module: str) -> bool:
        p = self.new_p.path_of(module)
        if p is not None:
            return self.paths.op(p)
        # A module that doesn't exist any more: it was an op module if history says so.
        return any(seg == "ops" for seg in module.split("."))

    def _fix_from_history(
        self, path: str, data: bytes, suspect: dict[tuple[int, int], tuple[CallSite, str]], ev: TestEvidence
    ) -> None:
        """Plan fixes for the provably broken calls of one file from the Ops as they were at its last commit.

        The current signatures decide what is broken; history only says what a call meant (and so
        can also show a call that still binds, with its arguments on other parameters)."""
        hist = self.history
        fr = FileResult(path, before=data)
        base = hist.base_for(path) if hist is not None else None
        if hist is None or base is None:
            for s, why in suspect.values():
                fr.findings.append(
                    Finding(
                        s,
                        s.func_source,
                        Status.BROKEN,
                        why,
                        why_not="not rewritten: no earlier version of this benchmark in git to learn what "
                        "it meant",
                    )
                )
            if fr.findings:
                self.result.files.append(fr)
            return
        old_p = hist.project(base, self.cache, self.paths.op, self.config.op_bases)
        if base not in self._history_changes:
            # Op files that differ between the benchmark's last commit and now.
            old_paths, new_paths = hist.op_paths_changed(base, self.paths.op)
            hev = TestEvidence(self.new_p, old_p, ev.test_files, [])
            self._history_changes[base] = (
                detect(old_p, self.new_p, old_paths, new_paths, self._op_files, hev.rename_hints),
                hev,
            )
        changes, ev = self._history_changes[base]
        for c in changes:
            if c not in self.result.changes:
                self.result.changes.append(
                    c
                )  # the repair loop looks changes up here; all-files reports do not list them
        before = len(self.result.files)
        self._locate_and_fix(changes, old_p, ev, [path])
        if len(self.result.files) > before:
            fr = self.result.files.pop()
        kept: list[Finding] = []
        seen: set[tuple[int, int]] = set()
        for f in fr.findings:
            key = (f.site.lineno, f.site.col)
            if key in suspect:
                seen.add(key)
                if f.status in (Status.UNKNOWN, Status.AMBIGUOUS, Status.STALE, Status.OK) or f.plan is None:
                    # What history could not settle, the current signature has: it raises.
                    why_not = (
                        f.why_not
                        if f.status is not Status.UNKNOWN and f.why_not
                        else "not rewritten: its Op's history does not say what it meant"
                    )
                    f = Finding(
                        f.site,
                        f.op,
                        Status.BROKEN,
                        suspect[key][1],
                        why_not=why_not,
                        info=f.info,
                        method=f.method,
                    )
                kept.append(f)
            elif f.status in (Status.SHIFTED, Status.DEFAULT, Status.GONE, Status.BROKEN):
                kept.append(f)  # provable from what the call meant at the benchmark's last commit
        for key, (s, why) in suspect.items():
            if key not in seen:
                kept.append(
                    Finding(
                        s,
                        s.func_source,
                        Status.BROKEN,
                        why,
                        why_not="not rewritten: its Op did not change since the benchmark's last commit",
                    )
                )
        fr.findings = sorted(kept, key=lambda f: (f.site.lineno, f.site.col))
        if fr.findings or fr.changed or fr.would_change:
            self.result.files.append(fr)

    def _unresolved_imports(self, path: str, mi: ModuleInfo) -> list[Note]:
        """Imports from the repository's own packages that name nothing bench-op can find."""
        out: list[Note] = []
        ours = self.new_p.top_packages()
        for t in mi.imports.values():
            module, name = (t[1], None) if t[0] == "module" else (t[1], t[2])
            if module.split(".")[0] not in ours or module == mi.module:
                continue
            if name is None:
                if not self.new_p.has_module(module):
                    out.append(
                        Note(path, 0, f"import {module}", "unresolved: no such module in the repository")
                    )
                continue
            if self.new_p.resolve_name(module, name) is not None:
                continue
            if not self.new_p.has_module(module):
                out.append(
                    Note(
                        path,
                        0,
                        f"from {module} import {name}",
                        "unresolved: no such module in the repository",
                    )
                )
                continue
            target = self.new_p.module(module)
            if target is not None and (name in target.names or target.star_imports or target.error):
                continue  # a function or a constant, or beyond a star import: not a class, not lost
            out.append(
                Note(path, 0, f"from {module} import {name}", f"unresolved: {module} defines no {name}")
            )
        return out


VOTES_FORK_WEIGHT = 300_000  # characters of the files the rename votes diff
ANCESTOR_CHECK_WEIGHT = 400_000  # bytes of interface files only op files name: worth parsing every op file
JUDGE_FORK_WEIGHT = 200_000  # bytes of the benchmark files judged (each costs its imports' parses too)


def _import_rewriter() -> None:
    import benchop_hook.rewrite.edit  # noqa: F401 - libcst, ahead of the rewrites


def _likely_rewritten(data: bytes, changes: Sequence[OpChange]) -> bool:
    """A guess, for the order of work only: the file names a class gone from its old name or module (an
    import to rewrite), or names a changed class and passes by keyword a parameter it lost or renamed. Such
    files are queued first, and libcst is imported while the child judges."""
    for c in changes:
        if c.old is None:
            continue
        if (c.new is None or c.new.name != c.old.name) and c.old.name.encode() in data:
            return True
        if c.new is not None and c.new.module != c.old.module and c.old.module.encode() in data:
            return True
        lost = [e.name for e in c.edits if e.kind in (EditKind.REMOVED, EditKind.RENAMED)]
        if lost and c.old.name.encode() in data and any(f"{p}=".encode() in data for p in lost):
            return True
    return False


def _imports_in_functions(data: bytes) -> bool:
    """Whether the source may import inside a function: some line other than a top-level `import` or
    `from` statement's first one says `import` (a function's body is indented, or follows `def ...:` on
    its line; a string that says it costs only the walk)."""
    return any(
        b"import" in line and not line.startswith((b"import ", b"from ")) for line in data.splitlines()
    )


def _all_imports(mi: ModuleInfo, local: bool = True) -> list[tuple[str, tuple[str, ...]]]:
    """Module-level imports, then `from m import X` inside functions (a benchmark may import its Op locally)
    unless `local` is False."""
    out: list[tuple[str, tuple[str, ...]]] = list(mi.imports.items())
    if not local:
        return out
    for node in mi.nodes():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in walk_list(node):
                if isinstance(sub, ast.ImportFrom):
                    base = resolve_relative(mi.module, mi.is_package, sub.level, sub.module)
                    out.extend(
                        (a.asname or a.name, ("attr", base, a.name)) for a in sub.names if a.name != "*"
                    )
    return out


def _test_checks(
    ev: TestEvidence,
    old_ref: ClassRef | None,
    new_ref: ClassRef | None,
    old_sig: Signature,
    new_sig: Signature,
    edits: Sequence[Edit],
) -> tuple[Callable[[str], bool] | None, Callable[[str, str], bool] | None]:
    """What the updated tests settle for `plan`: a contested slot (`own`) and a dropped choice (`drops`)."""
    if old_ref is None or new_ref is None:
        return None, None
    o, n = old_ref, new_ref

    def own(param: str) -> bool:
        return ev.passes_own_name(n, param, new_sig, old_sig, edits)

    def drops(param: str, value: str) -> bool:
        return ev.drops_same_way(o, n, param, value, old_sig, new_sig)

    return own, drops


def _agreed(
    site: CallSite, op: str, method: str | None, outcomes: list[tuple[str, Finding | None]]
) -> Finding | None:
    """One finding for a call several differently changed classes reach: theirs when every class's
    outcome (status and rewrite) is the same; else one that names each class's fix."""

    def outcome(f: Finding | None) -> object:
        if f is None:
            return None
        if f.plan is not None and f.plan.ops and not f.hand:
            return (
                "rewrite",
                f.plan.ops,
            )  # the rewritten call is what has to agree, whatever each class's status
        return (f.status, f.why_not, f.hand)

    first = outcomes[0][1]
    if all(outcome(f) == outcome(first) for _, f in outcomes):
        if first is not None:
            first.op = op
            if len(outcomes) > 1:
                first.info.append(f"the same rewrite for each of {op}")
        return first
    parts = []
    for name, f in outcomes:
        if f is None:
            parts.append(f"{name}: no change needed")
        elif f.plan is not None and f.plan.ops:
            parts.append(f"{name}: {site.func_source}{f.plan.preview}")
        else:
            parts.append(f"{name}: {f.why_not or f.problem}")
    return Finding(
        site,
        op,
        Status.AMBIGUOUS,
        f"reached by {op}, whose signatures changed differently",
        why_not="the classes need different fixes, update it by hand: " + "; ".join(parts),
        method=method,
    )


def _call_text(site: CallSite) -> str:
    args = ", ".join(
        a.source
        if a.kind == "pos"
        else f"{a.keyword}={a.source}"
        if a.kind == "kw"
        else ("*" if a.kind == "star" else "**") + a.source
        for a in site.args
    )
    func = site.func_source + (
        f".{site.method}"
        if site.method and site.method != "__call__" and not site.func_source.endswith(site.method)
        else ""
    )
    text = f"{func}({args})"
    return text if len(text) <= 72 else text[:68] + "...)"
