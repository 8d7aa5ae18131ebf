"""The static pass: diff -> Op changes -> benchmark calls -> plans -> rewritten files.

I/O happens at the edges (`open_target` reads git; the caller writes files);
`static_pass` itself takes snapshots and returns values.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from benchop_hook import gitrepo
from benchop_hook.callsites import UNKNOWN, Arg, CallSite, Gone, Instance
from benchop_hook.changes import OpChange, detect
from benchop_hook.config import Config
from benchop_hook.edits import Edit
from benchop_hook.evidence import TestEvidence
from benchop_hook.fixes import ArgOp, NoPlan, Plan, Status, Value, classify, default_pins, plan
from benchop_hook.globs import matches
from benchop_hook.locate import analyze
from benchop_hook.modules import ClassRef, ModuleInfo, ParseCache, Project, resolve_relative
from benchop_hook.signatures import Signature, free_names, is_constant_source
from benchop_hook.target import Target


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

    @property
    def needs_action(self) -> bool:
        return (self.status not in (Status.OK, Status.DEFAULT) or self.hand) and not self.fixed

    @property
    def runtime_candidate(self) -> bool:
        """Only a run can judge it (splatted arguments)."""
        return self.status is Status.UNKNOWN

    def as_json(self) -> dict[str, object]:
        return {
            "path": self.site.path,
            "line": self.site.lineno,
            "call": self.site.func_source + ("." + self.method if self.method and self.method != "__call__" else ""),
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
        }


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

    @property
    def functions(self) -> set[str]:
        return {f.site.qualfunction for f in self.findings if f.site.qualfunction}

    @property
    def module_level(self) -> bool:
        return any(f.site.function is None for f in self.findings)


@dataclass
class StaticResult:
    target: Target
    changes: list[OpChange] = field(default_factory=list)
    files: list[FileResult] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why it was not read)
    op_files_changed: bool = False

    @property
    def findings(self) -> list[Finding]:
        return [f for fr in self.files for f in fr.findings]

    @property
    def broken(self) -> list[Finding]:
        return [f for f in self.findings if f.needs_action]

    @property
    def rewritten(self) -> list[FileResult]:
        return [fr for fr in self.files if fr.changed or fr.would_change]


class Paths:
    """Which stage of the pipeline a repository path belongs to; benchmarks first, then tests, then ops."""

    def __init__(self, config: Config) -> None:
        self.c = config

    def bench(self, p: str) -> bool:
        return p.endswith(".py") and matches(p, self.c.benchmark_paths)

    def test(self, p: str) -> bool:
        return p.endswith(".py") and not self.bench(p) and matches(p, self.c.test_paths)

    def op(self, p: str) -> bool:
        return p.endswith(".py") and not self.bench(p) and not self.test(p) and matches(p, self.c.op_paths)

    def interface(self, p: str) -> bool:
        """Workloads, test helpers, benchmark bases: classes benchmarks build whose constructors a commit may change."""
        return (p.endswith(".py") and not self.bench(p) and not self.op(p)
                and (self.c.interface_paths is None or matches(p, self.c.interface_paths)))


@dataclass
class Sources:
    """The snapshots one run of the static pass reads."""

    old: gitrepo.Snapshot | None
    new: gitrepo.Snapshot
    bench: gitrepo.Snapshot  # where benchmark files are read from (and rewritten for)
    changes: list[gitrepo.Change]


def _value_for(site: CallSite, ev: TestEvidence | None, ref: ClassRef | None, sig: Signature,
               old_sig: Signature, edits: tuple[Edit, ...]):
    def value_for(param: str) -> Value:
        if param in site.scope_names:
            return Value(param, f"a variable named '{param}' is in scope at the call")
        if ev is None or ref is None:
            return Value(None, "no variable of that name at the call")
        v = ev.value_for(ref, param, sig, old_sig, edits)
        if v.source is None:
            return Value(None, f"no variable of that name at the call, and {v.reason}")
        missing = free_names(v.source) - site.scope_names
        if missing:
            return Value(None, f"the tests pass {param}={v.source}, but {', '.join(sorted(missing))} is not defined in the benchmark")
        return Value(v.source, v.reason)
    return value_for


def _call_sig(project: Project, ref: ClassRef, method: str | None) -> Signature | None:
    if method is None:
        return project.constructor(ref)
    if method == "__call__":
        s = project.method(ref, "__call__")
        if s is None or s.is_passthrough:
            return project.method(ref, "forward")
        return s
    return project.method(ref, method)


def _method_edits(change: OpChange, method: str, old_p: Project, new_p: Project) -> tuple[Signature | None, Signature | None, tuple[Edit, ...]]:
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


class StaticPass:
    def __init__(self, config: Config, sources: Sources, target: Target, history: object | None = None) -> None:
        self.config = config
        self.paths = Paths(config)
        self.src = sources
        self.target = target
        self.cache = ParseCache()
        self.new_p = Project(sources.new, self.cache, self.paths.op, config.op_bases, self.paths.interface)
        self.old_p = (Project(sources.old, self.cache, self.paths.op, config.op_bases, self.paths.interface)
                      if sources.old is not None else None)
        self.history = history  # all-files mode: finds the version a benchmark was written against
        self.result = StaticResult(target)
        self.result.context = self  # type: ignore[attr-defined]  # the repair loop reuses the projects
        self._history_changes = {}

    # -- helpers
    def _evidence(self, old_p: Project | None) -> TestEvidence:
        tests = [p for p in self.src.new.paths() if self.paths.test(p)]
        changed_tests = [(c.old_path, c.new_path) for c in self.src.changes
                         if (c.old_path and self.paths.test(c.old_path)) or (c.new_path and self.paths.test(c.new_path))]
        return TestEvidence(self.new_p, old_p, tests, changed_tests)

    def _built_by_benchmarks(self, changes: list[OpChange]) -> list[OpChange]:
        """Interface classes (workloads, helpers) matter only where a benchmark names them; Ops always do."""
        def interface(c: OpChange) -> bool:
            return (c.old is None or not self.old_p or not self.old_p.is_op(c.old)) and (c.new is None or not self.new_p.is_op(c.new))

        if not any(interface(c) for c in changes):
            return changes
        blobs = [d for p in self.src.bench.paths() if self.paths.bench(p) and (d := self.src.bench.read(p)) is not None]
        return [c for c in changes if not interface(c) or any(n.encode() in d for n in {r.name for r in (c.old, c.new) if r}
                                                              for d in blobs)]

    def _detected(self, p: str) -> bool:
        return self.paths.op(p) or self.paths.interface(p)

    def _interface_changed(self, c: gitrepo.Change) -> bool:
        """An interface file whose classes' constructors changed (most changes to such files don't)."""
        from benchop_hook.interfaces import constructor_changed

        paths = [p for p in (c.old_path, c.new_path) if p]
        if not paths or not all(self.paths.interface(p) for p in paths) or self.src.old is None:
            return False
        old = self.src.old.read(c.old_path) if c.old_path else None
        new = self.src.new.read(c.new_path) if c.new_path else None
        return constructor_changed(old, new)

    def _rename_votes(self) -> dict[tuple[str, str], set[str]]:
        """Name swaps in the other Python files of the diff (benchmarks excluded: they are what gets fixed)."""
        from benchop_hook import renames

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
            kind = (renames.EXPORTS if p.endswith("__init__.py") else renames.TESTS if self.paths.test(p)
                    else renames.OPS if self.paths.op(p) else renames.WORKLOADS if "workload" in p else renames.OTHER)
            files.append((kind, old.decode("utf-8", "replace"), new.decode("utf-8", "replace")))
        return renames.votes_from(files)

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
        op_changes = [c for c in self.src.changes
                      if (c.old_path and self.paths.op(c.old_path)) or (c.new_path and self.paths.op(c.new_path))
                      or self._interface_changed(c)]
        self.result.op_files_changed = bool(op_changes)
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
        ev = self._evidence(self.old_p)
        changes = detect(self.old_p, self.new_p, old_paths, new_paths, self._op_files, ev.rename_hints,
                         self._rename_votes)
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
        import os

        for p in getattr(self.src.bench, "links", []):
            if not self.paths.bench(p):
                continue
            full = os.path.join(getattr(self.src.bench, "root", ""), p)
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

    def _locate_and_fix(self, changes: list[OpChange], old_p: Project, ev: TestEvidence, paths: list[str],
                        only: set[tuple[str, int]] | None = None) -> None:
        by_new = {c.new: c for c in changes if c.new is not None}
        by_old = {c.old: c for c in changes if c.old is not None}
        for path in paths:
            data = self.src.bench.read(path)
            fr = FileResult(path, before=data)
            if data is None:
                continue
            az = analyze(path, data, self.new_p, old_p)
            if az.mi.error:
                fr.error = az.mi.error
                self.result.skipped.append((path, az.mi.error))
                self.result.files.append(fr)
                continue
            for site in az.calls():
                if only is not None and (path, site.lineno) not in only:
                    continue
                f = self._judge(site, by_new, by_old, old_p, ev)
                if f is not None:
                    fr.findings.append(f)
            imports, renames, notes = self._import_fixes(az, by_old, old_p)
            fr.import_notes = notes
            if fr.findings or imports:
                self._apply(fr, data, imports, renames)
                self.result.files.append(fr)

    def _import_fixes(self, az, by_old: dict[ClassRef, OpChange], old_p: Project) -> tuple[list, dict[str, str], list[str]]:
        """Imports of a renamed or moved Op -> import edits and name renames; a removed Op -> a note."""
        from benchop_hook.rewrite import ImportEdit

        edits: list[ImportEdit] = []
        renames: dict[str, str] = {}
        notes: list[str] = []
        mi = az.mi
        seen: set[tuple[str, str, str]] = set()
        for local, target in _all_imports(mi):
            if target[0] != "attr" or (local, *target[1:]) in seen:
                continue
            _, module, name = target
            seen.add((local, module, name))
            if self.new_p.resolve_name(module, name) is not None:
                continue
            old_ref = old_p.resolve_name(module, name)
            if not isinstance(old_ref, ClassRef):
                continue
            ch = by_old.get(old_ref)
            if ch is None or ch.new is None:
                if ch is not None:
                    notes.append(f"imports {name} from {module}, which was removed with no successor: remove or replace it by hand")
                continue
            succ = ch.new
            via_same = self.new_p.resolve_name(module, succ.name)
            new_module = module if via_same == succ else succ.module
            edits.append(ImportEdit(module, name, new_module, succ.name))
            if local == name and succ.name != name:
                renames[name] = succ.name
            notes.append(f"import of {name} from {module} -> {succ.name} from {new_module}")
        return edits, renames, notes

    only: set[str] | None = None  # all-files mode: just these benchmark files
    rewrite: bool = True  # False: plan only (check), no libcst
    cache_dir: str | None = None  # where the all-files cache lives (.git/bench-op)
    _history_changes: dict[str, tuple[list[OpChange], TestEvidence]]

    def _judge(self, site: CallSite, by_new: dict[ClassRef, OpChange], by_old: dict[ClassRef, OpChange],
               old_p: Project, ev: TestEvidence) -> Finding | None:
        method = site.method
        relevant: list[tuple[OpChange | None, ClassRef]] = []
        for a in site.atoms:
            if isinstance(a, ClassRef) and method is None:
                relevant.append((by_new.get(a), a))
            elif isinstance(a, Instance) and method is not None:
                relevant.append((by_new.get(a.cls), a.cls))
            elif isinstance(a, Gone):
                relevant.append((by_old.get(a.old), a.old))
        changed = [(c, r) for c, r in relevant if c is not None]
        if method is not None:
            changed = [(c, r) for c, r in changed if _method_edits(c, method, old_p, self.new_p)[2]]
        elif changed:
            changed = [(c, r) for c, r in changed if c.edits or c.status in ("removed", "renamed", "moved")]
        if not changed:
            return None
        names = sorted({(c.new or c.old).name for c, _ in changed})  # type: ignore[union-attr]
        op = "/".join(names)
        unknown = UNKNOWN in site.atoms or len(changed) != len(relevant)
        # Every class that can reach the call must agree on the change.
        keys = set()
        for c, _ in changed:
            if method is None:
                # A class renamed or moved with its constructor unchanged needs no edit of the call itself.
                keys.add((c.old_sig, c.new_sig, c.edits) if c.edits or c.status not in ("renamed", "moved") else None)
            else:
                keys.add(_method_edits(c, method, old_p, self.new_p))
        if len(keys) > 1 or (unknown and site.via != "direct"):
            other = "other values" if UNKNOWN in site.atoms else "Ops whose signatures changed differently"
            return Finding(site, op, Status.AMBIGUOUS, f"reached through {site.via} by {op} and {other}",
                           why_not="the classes that can reach this call don't agree on one fix: update it by hand", method=method)
        change = changed[0][0]
        assert change is not None
        if change.status == "removed":
            return Finding(site, op, Status.GONE, f"{change.old.name} was removed and nothing replaced it",  # type: ignore[union-attr]
                           why_not="no successor to rewrite to: remove or replace this benchmark case by hand", method=method)
        if method is None:
            old_sig, new_sig, edits = change.old_sig, change.new_sig, change.edits
        else:
            old_sig, new_sig, edits = _method_edits(change, method, old_p, self.new_p)
        label = op if method is None else f"{op}.{'forward' if method == '__call__' else method}"
        # A moved class still importable under the name the benchmark uses (a re-export) needs nothing.
        name_gone = any(isinstance(a, Gone) for a in site.atoms)
        if old_sig is None or new_sig is None:
            if change.status in ("renamed", "moved") and not name_gone:
                return None
            if change.status in ("renamed", "moved"):
                return Finding(site, op, Status.GONE, f"{change.old.name} is now {change.new.name}", method=method)  # type: ignore[union-attr]
            return Finding(site, op, Status.UNKNOWN, f"the signature of {label} can't be read statically", method=method)
        args = site.args
        splat_expanded = site.splat_dict is not None
        if site.splat_dict is not None:
            # A literal **dict: judged as the keywords it holds; the fix edits the dict's keys.
            args = tuple(a for a in site.args if a.kind != "dstar") + tuple(Arg("kw", k, v) for k, v in site.splat_dict)
        status, problem = classify(args, old_sig, new_sig, edits)
        if status is Status.UNKNOWN:
            return Finding(site, op, status, problem, why_not="left to the run: the repair loop fixes it from the traceback", method=method)
        if status is Status.STALE:
            return Finding(site, op, status, problem, why_not="it did not bind before this change either: fix it by hand", method=method)
        info: list[str] = []
        hand, hand_note, what = False, "", ""
        pins: list[tuple[str, str, str]] = []
        ref = change.new
        for e in default_pins(args, old_sig, new_sig, edits):
            what = f"relies on the default of '{e.name}', which changed from {e.old_default} to {e.new_default}"
            if not self.config.pin_defaults:
                info.append(f"{what}; not pinned (pin-defaults = false)")
            elif not is_constant_source(e.old_default or ""):
                info.append(f"{what}; not pinned: the old default is not a constant")
            elif free_names(e.old_default or "") - site.scope_names:
                missing = ", ".join(sorted(free_names(e.old_default or "") - site.scope_names))
                hand_note = f"not pinned: {missing} is not imported in the benchmark; pin {e.name}={e.old_default} by hand"
                hand = True
            else:
                adopted = ev.adopts_new_default(ref, e.name, e.old_default or "", e.new_default, new_sig) if ref else None
                if adopted:
                    info.append(f"{what}; not pinned: the updated tests use the new default ({adopted})")
                else:
                    pins.append((e.name, e.old_default or "", f"{e.name}={e.old_default} pinned: the default changed to {e.new_default}, and the benchmark measured {e.old_default}"))
        if status is Status.OK and not pins:
            if hand:
                return Finding(site, op, Status.DEFAULT, what, info=info, method=method, hand=True, why_not=hand_note)
            if info:
                return Finding(site, op, Status.DEFAULT, info[0], info=info, method=method)
            if change.status in ("renamed", "moved") and name_gone:
                return Finding(site, op, Status.GONE, f"{change.old.name} is now {change.new.qualname}", info=info, method=method,  # type: ignore[union-attr]
                               plan=Plan((), (f"{change.old.name} -> {change.new.name}",), "(unchanged arguments)"))  # type: ignore[union-attr]
            return None
        if status is Status.OK:
            status, problem = Status.DEFAULT, pins[0][2].split(":")[0] + " needed"
            problem = f"relies on the default of '{pins[0][0]}', which changed"
        if splat_expanded:
            problem += " (through a literal **dict)"
        own: Callable[[str], bool] | None = None
        drops: Callable[[str, str], bool] | None = None
        if ref is not None and method is None:
            new_ref, old_ref = ref, change.old or ref
            o_sig, n_sig = old_sig, new_sig

            def _own(param: str) -> bool:
                return ev.passes_own_name(new_ref, param, n_sig, o_sig, edits)

            def _drops(param: str, value: str) -> bool:
                return ev.drops_same_way(old_ref, new_ref, param, value, o_sig, n_sig)
            own, drops = _own, _drops
        p = plan(args, old_sig, new_sig, edits, _value_for(site, ev, ref, new_sig, old_sig, edits), pins, site.scope_names,
                 own, drops)
        if isinstance(p, NoPlan):
            return Finding(site, op, status, problem, why_not=f"not rewritten: it {p.reason}", info=info, method=method)
        return Finding(site, op, status, problem, plan=p, info=info, method=method)

    def _apply(self, fr: FileResult, data: bytes, imports: list, renames: dict[str, str]) -> None:
        if not self.rewrite:
            # `check` only reports: the plans are verified on the call's shape; libcst is not needed.
            for f in fr.findings:
                if f.plan is not None and (f.plan.ops or imports):
                    f.fixed = True
            fr.would_change = any(f.fixed for f in fr.findings) or bool(imports)
            return
        from benchop_hook.rewrite import CallEdit, DictEdit

        calls: list[CallEdit] = []
        dicts: list[DictEdit] = []
        for f in fr.findings:
            if f.plan is None or not f.plan.ops:
                continue
            s = f.site
            if s.splat_dict is not None:
                d = self._dict_edit(fr, s, f)
                if d is None:
                    f.plan, f.why_not = None, "not rewritten: the splatted dict is not a literal bench-op can edit in place"
                    continue
                dicts.append(d)
                continue
            calls.append(CallEdit(s.lineno, s.col, s.end_lineno, s.end_col, f.plan.ops))
        if not calls and not imports and not dicts:
            for f in fr.findings:
                if f.status is Status.GONE and f.plan is not None:
                    f.fixed = False
            return
        from benchop_hook.rewrite import rewrite  # libcst: only for files that will be rewritten

        res = rewrite(data, calls, imports, dicts, renames)
        if res.data is None or res.failed:
            for f in fr.findings:
                if f.plan is not None:
                    f.why_not = "not rewritten: " + ("; ".join(res.failed) or "the rewrite produced no change")
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

    def _dict_edit(self, fr: FileResult, site: CallSite, f: Finding):  # -> rewrite.DictEdit | None
        """Turn a plan over a literal **dict's keys into edits of that dict literal."""
        assert f.plan is not None and site.splat_dict is not None
        data = fr.before or b""
        tree = ast.parse(data)
        lines = data.decode("utf-8-sig", "replace").splitlines()
        def char_col(lineno: int, byte_col: int) -> int:
            return len(lines[lineno - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace")) if lineno - 1 < len(lines) else byte_col

        call = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == site.lineno
                     and n.end_lineno == site.end_lineno and char_col(n.lineno, n.col_offset) == site.col
                     and char_col(n.end_lineno or n.lineno, n.end_col_offset or 0) == site.end_col), None)
        if call is None:
            return None
        kw = next((k for k in call.keywords if k.arg is None), None)
        if kw is None:
            return None
        node: ast.AST | None = kw.value if isinstance(kw.value, ast.Dict) else None
        if node is None and isinstance(kw.value, ast.Name):
            around = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.lineno <= site.lineno <= (n.end_lineno or 0)]
            fn = max(around, key=lambda n: n.lineno) if around else None  # the innermost
            for n in ast.walk(fn) if fn is not None else []:
                if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == kw.value.id for t in n.targets) and isinstance(n.value, ast.Dict):
                    node = n.value
        if node is None:
            return None
        literal_keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}  # type: ignore[attr-defined]
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
        col = char_col(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        from benchop_hook.rewrite import DictEdit

        return DictEdit(node.lineno, col, tuple(ops))  # type: ignore[attr-defined]

    # -- all-files mode
    def _run_all(self) -> StaticResult:
        """Every benchmark against the current signatures; a call that no longer binds is fixed
        from the version of its Op at the benchmark's last commit, when history has one."""
        from benchop_hook.cache import CleanCache, digest

        ev = self._evidence(None)
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
                continue
            deps = self.new_p.record()
            az = analyze(path, data, self.new_p, None)
            if az.mi.error:
                self.result.skipped.append((path, az.mi.error))
                self.result.files.append(FileResult(path, before=data, error=az.mi.error))
                continue
            suspect: list[CallSite] = []
            for site in az.calls():
                classes = [a for a in site.atoms if isinstance(a, ClassRef) and self.new_p.is_op(a)]
                insts = [a.cls for a in site.atoms if isinstance(a, Instance) and self.new_p.is_op(a.cls)]
                refs = classes if site.method is None else insts
                if not refs:
                    continue
                for ref in refs:
                    sig = _call_sig(self.new_p, ref, site.method)
                    if sig is None:
                        continue
                    args = site.args
                    sh = classify_shape(args)
                    if sh is None or not _binds(sig, args):
                        suspect.append(site)
                        break
            gone = [local for local, t in az.mi.imports.items() if t[0] == "attr" and self.new_p.resolve_name(t[1], t[2]) is None
                    and self._looks_like_op_import(t[1])]
            self.new_p._recording = None
            if not suspect and not gone:
                cache.mark_clean(path, own, {p: dep_digest(p) for p in sorted(deps)})
                continue
            cache.forget(path)
            self._fix_from_history(path, data, suspect, ev)
        cache.save()
        return self.result

    def _looks_like_op_import(self, module: str) -> bool:
        p = self.new_p.path_of(module)
        if p is not None:
            return self.paths.op(p)
        # A module that doesn't exist any more: it was an op module if history says so.
        return any(seg == "ops" for seg in module.split("."))

    def _fix_from_history(self, path: str, data: bytes, suspect: list[CallSite], ev: TestEvidence) -> None:
        hist = self.history
        fr = FileResult(path, before=data)
        base = hist.base_for(path) if hist is not None else None  # type: ignore[attr-defined]
        if base is None:
            for s in suspect:
                fr.findings.append(Finding(s, s.func_source, Status.BROKEN, "does not bind the current signature",
                                           why_not="not rewritten: no earlier version of this benchmark in git to learn what it meant"))
            if fr.findings:
                self.result.files.append(fr)
            return
        old_p = hist.project(base, self.cache, self.paths.op, self.config.op_bases)  # type: ignore[attr-defined]
        if base not in self._history_changes:
            # Op files that differ between the benchmark's last commit and now.
            old_paths, new_paths = hist.op_paths_changed(base, self.paths.op)  # type: ignore[attr-defined]
            hev = TestEvidence(self.new_p, old_p, ev.test_files, [])
            self._history_changes[base] = (detect(old_p, self.new_p, old_paths, new_paths, self._op_files, hev.rename_hints), hev)
        changes, ev = self._history_changes[base]
        for c in changes:
            if c not in self.result.changes:
                self.result.changes.append(c)
        before = len(self.result.files)
        self._locate_and_fix(changes, old_p, ev, [path])
        if len(self.result.files) == before:
            for s in suspect:
                fr.findings.append(Finding(s, s.func_source, Status.BROKEN, "does not bind the current signature",
                                           why_not="not rewritten: its Op did not change since the benchmark's last commit"))
            self.result.files.append(fr)


def _all_imports(mi: ModuleInfo) -> list[tuple[str, tuple[str, ...]]]:
    """Module-level imports, then `from m import X` inside functions (a benchmark may import its Op locally)."""
    out: list[tuple[str, tuple[str, ...]]] = list(mi.imports.items())
    for node in ast.walk(mi.tree) if mi.tree is not None else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                if isinstance(sub, ast.ImportFrom):
                    base = resolve_relative(mi.module, mi.is_package, sub.level, sub.module)
                    out.extend((a.asname or a.name, ("attr", base, a.name)) for a in sub.names if a.name != "*")
    return out


def classify_shape(args) -> object | None:
    from benchop_hook.fixes import shape

    sh = shape(args)
    return None if sh.splatted else sh


def _binds(sig: Signature, args) -> bool:
    from benchop_hook.binding import bind
    from benchop_hook.fixes import shape

    return bind(sig, shape(args)).ok
