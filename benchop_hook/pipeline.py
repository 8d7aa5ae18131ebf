"""The static pass: diff -> Op changes -> benchmark calls -> plans -> rewritten files.

I/O happens at the edges (`commands/common.static` opens the snapshots; the caller writes files);
`StaticPass.run` takes snapshots and returns a `StaticResult`, and `StaticPass.context()` hands what it
learned (projects, evidence, changes) to the repair loop as a frozen `StaticContext`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchop_hook import gitrepo
from benchop_hook.binding import bind
from benchop_hook.callsites import UNKNOWN, Arg, CallSite, Gone, Instance, char_col, local_binding
from benchop_hook.changes import OpChange, detect
from benchop_hook.config import Config
from benchop_hook.context import StaticContext, call_signature, change_signatures, value_source
from benchop_hook.edits import Edit
from benchop_hook.evidence import TestEvidence
from benchop_hook.fixes import ArgOp, NoPlan, Plan, Status, classify, default_pins, plan, shape
from benchop_hook.history import History
from benchop_hook.locate import analyze
from benchop_hook.modules import ClassRef, ParseCache, Project
from benchop_hook.paths import Paths
from benchop_hook.signatures import Signature, free_names, is_constant_source
from benchop_hook.target import Target

if TYPE_CHECKING:
    from benchop_hook.callsites import ModuleAnalyzer
    from benchop_hook.rewrite import DictEdit, ImportEdit


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


def _dict_preview(site: CallSite, d: DictEdit) -> str:
    """What a **dict fix does, as a preview: the call as it is, and the edit of the dict it splats."""
    args = ", ".join(a.source if a.kind == "pos" else f"{a.keyword}={a.source}" if a.kind == "kw"
                     else ("*" if a.kind == "star" else "**") + a.source for a in site.args)
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


class StaticPass:
    def __init__(self, config: Config, sources: Sources, target: Target, *, history: History | None = None,
                 only: set[str] | None = None, rewrite: bool = True, cache_dir: str | None = None) -> None:
        self.config = config
        self.paths = Paths(config)
        self.src = sources
        self.target = target
        self.cache = ParseCache()
        self.new_p = Project(sources.new, self.cache, self.paths.op, config.op_bases)
        self.old_p = Project(sources.old, self.cache, self.paths.op, config.op_bases) if sources.old is not None else None
        self.history = history  # all-files mode: finds the version a benchmark was written against
        self.only = only  # all-files mode: just these benchmark files
        self.rewrite = rewrite  # False: plan only (check), no libcst
        self.cache_dir = cache_dir  # where the all-files cache lives (.git/bench-op)
        self.result = StaticResult(target)
        self.evidence: TestEvidence | None = None  # what the updated tests say, once it is needed
        self._history_changes: dict[str, tuple[list[OpChange], TestEvidence]] = {}

    def context(self) -> StaticContext:
        """What this pass learned, for the repair loop."""
        if self.evidence is None:
            self.evidence = self._evidence(self.old_p)
        return StaticContext(self.paths, self.new_p, self.old_p, self.src.bench, self.evidence,
                             tuple(self.result.changes))

    # -- helpers
    def _evidence(self, old_p: Project | None) -> TestEvidence:
        tests = [p for p in self.src.new.paths() if self.paths.test(p)]
        changed_tests = [(c.old_path, c.new_path) for c in self.src.changes
                         if (c.old_path and self.paths.test(c.old_path)) or (c.new_path and self.paths.test(c.new_path))]
        return TestEvidence(self.new_p, old_p, tests, changed_tests)

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
                      if (c.old_path and self.paths.op(c.old_path)) or (c.new_path and self.paths.op(c.new_path))]
        self.result.op_files_changed = bool(op_changes)
        if not op_changes or self.old_p is None:
            return self.result
        old_paths = [c.old_path for c in op_changes if c.old_path and self.paths.op(c.old_path)]
        new_paths = [c.new_path for c in op_changes if c.new_path and self.paths.op(c.new_path)]
        self._skip_unreadable(self.old_p, old_paths)
        self._skip_unreadable(self.new_p, new_paths)
        # A file that can't be read on either side says nothing about its classes (they are not "removed").
        unreadable = {p for p, _ in self.result.skipped}
        pairs = [(c.old_path, c.new_path) for c in op_changes]
        drop = {(o, n) for o, n in pairs if (o in unreadable) or (n in unreadable)}
        old_paths = [p for p in old_paths if not any(p == o for o, _ in drop)]
        new_paths = [p for p in new_paths if not any(p == n for _, n in drop)]
        ev = self.evidence = self._evidence(self.old_p)
        changes = detect(self.old_p, self.new_p, old_paths, new_paths, self._op_files, ev.rename_hints)
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

    def _import_fixes(self, az: ModuleAnalyzer, by_old: dict[ClassRef, OpChange], old_p: Project) -> tuple[list, dict[str, str], list[str]]:
        """Imports of a renamed or moved Op -> import edits and name renames; a removed Op -> a note."""
        from benchop_hook.rewrite import ImportEdit

        edits: list[ImportEdit] = []
        renames: dict[str, str] = {}
        notes: list[str] = []
        mi = az.mi
        for local, target in mi.imports.items():
            if target[0] != "attr":
                continue
            _, module, name = target
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

    def _changes_reaching(self, site: CallSite, by_new: dict[ClassRef, OpChange],
                          by_old: dict[ClassRef, OpChange]) -> tuple[list[OpChange], int]:
        """The changes of the classes that can reach the call and that matter to it; and how many classes can."""
        method = site.method
        relevant: list[OpChange | None] = []
        for a in site.atoms:
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

    def _judge(self, site: CallSite, by_new: dict[ClassRef, OpChange], by_old: dict[ClassRef, OpChange],
               old_p: Project, ev: TestEvidence) -> Finding | None:
        method = site.method
        changed, n_relevant = self._changes_reaching(site, by_new, by_old)
        if not changed:
            return None
        op = "/".join(sorted({c.name for c in changed}))
        unknown = UNKNOWN in site.atoms or len(changed) != n_relevant
        # Every class that can reach the call must agree on the change.
        keys = {change_signatures(c, method, self.new_p) for c in changed}
        if len(keys) > 1 or (unknown and site.via != "direct"):
            other = "other values" if UNKNOWN in site.atoms else "Ops whose signatures changed differently"
            return Finding(site, op, Status.AMBIGUOUS, f"reached through {site.via} by {op} and {other}",
                           why_not="the classes that can reach this call don't agree on one fix: update it by hand", method=method)
        change = changed[0]
        old_name = change.old.name if change.old is not None else change.name
        if change.status == "removed":
            return Finding(site, op, Status.GONE, f"{old_name} was removed and nothing replaced it",
                           why_not="no successor to rewrite to: remove or replace this benchmark case by hand", method=method)
        old_sig, new_sig, edits = change_signatures(change, method, self.new_p)
        label = op if method is None else f"{op}.{'forward' if method == '__call__' else method}"
        if old_sig is None or new_sig is None:
            if change.status in ("renamed", "moved") and change.new is not None:
                return Finding(site, op, Status.GONE, f"{old_name} is now {change.new.name}", method=method)
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
        ref = change.new
        dp = self._default_pins(site, ref, default_pins(args, old_sig, new_sig, edits), new_sig, ev)
        info, hand, hand_note, what, pins = dp.info, dp.hand, dp.hand_note, dp.what, dp.pins
        if status is Status.OK and not pins:
            if hand:
                return Finding(site, op, Status.DEFAULT, what, info=info, method=method, hand=True, why_not=hand_note)
            if info:
                return Finding(site, op, Status.DEFAULT, info[0], info=info, method=method)
            if change.status in ("renamed", "moved") and change.new is not None:
                return Finding(site, op, Status.GONE, f"{old_name} is now {change.new.qualname}", info=info, method=method,
                               plan=Plan((), (f"{old_name} -> {change.new.name}",), "(unchanged arguments)"))
            return None
        if status is Status.OK:
            status, problem = Status.DEFAULT, f"relies on the default of '{pins[0][0]}', which changed"
        if splat_expanded:
            problem += " (through a literal **dict)"
        p = plan(args, old_sig, new_sig, edits, value_source(site, ev, ref, new_sig, old_sig, edits), pins, site.scope_names)
        if isinstance(p, NoPlan):
            return Finding(site, op, status, problem, why_not=f"not rewritten: it {p.reason}", info=info, method=method)
        return Finding(site, op, status, problem, plan=p, info=info, method=method)

    def _default_pins(self, site: CallSite, ref: ClassRef | None, changed: list[Edit], new_sig: Signature,
                      ev: TestEvidence) -> _DefaultPins:
        """Defaults the call relies on that changed: pin the old value, note why not, or ask for a hand edit."""
        out = _DefaultPins()
        for e in changed:
            out.what = f"relies on the default of '{e.name}', which changed from {e.old_default} to {e.new_default}"
            if not self.config.pin_defaults:
                out.info.append(f"{out.what}; not pinned (pin-defaults = false)")
            elif not is_constant_source(e.old_default or ""):
                out.info.append(f"{out.what}; not pinned: the old default is not a constant")
            elif free_names(e.old_default or "") - site.scope_names:
                missing = ", ".join(sorted(free_names(e.old_default or "") - site.scope_names))
                out.hand_note = f"not pinned: {missing} is not imported in the benchmark; pin {e.name}={e.old_default} by hand"
                out.hand = True
            else:
                adopted = ev.adopts_new_default(ref, e.name, e.old_default or "", e.new_default, new_sig) if ref else None
                if adopted:
                    out.info.append(f"{out.what}; not pinned: the updated tests use the new default ({adopted})")
                else:
                    out.pins.append((e.name, e.old_default or "", f"{e.name}={e.old_default} pinned: the default changed to {e.new_default}, and the benchmark measured {e.old_default}"))
        return out

    def _apply(self, fr: FileResult, data: bytes, imports: list, renames: dict[str, str]) -> None:
        if not self.rewrite:
            # `check` only reports: the plans are verified on the call's shape; libcst is not needed.
            for f in fr.findings:
                if f.plan is not None and (f.plan.ops or imports):
                    f.fixed = True
            fr.would_change = any(f.fixed for f in fr.findings) or bool(imports)
            return
        from benchop_hook.rewrite import CallEdit

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
                # the same words in check, fix and the commit message: the dict is edited, the call is not
                f.plan = Plan(f.plan.ops, f.plan.notes, _dict_preview(s, d))
                continue
            calls.append(CallEdit(s.lineno, s.col, s.end_lineno, s.end_col, f.plan.ops))
        if not calls and not imports and not dicts:
            for f in fr.findings:
                if f.status is Status.GONE and f.plan is not None:
                    f.fixed = False
            return
        from benchop_hook.rewrite import rewrite  # libcst: only for files that will be rewritten

        res = rewrite(data, calls, imports, dicts, renames, line_length=self.config.line_length)
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

    def _dict_edit(self, fr: FileResult, site: CallSite, f: Finding) -> DictEdit | None:
        """Turn a plan over a literal **dict's keys into edits of that dict literal."""
        assert f.plan is not None and site.splat_dict is not None
        data = fr.before or b""
        tree = ast.parse(data)
        lines = data.decode("utf-8-sig", "replace").splitlines()
        call = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == site.lineno
                     and n.end_lineno == site.end_lineno and char_col(lines, n.lineno, n.col_offset) == site.col
                     and char_col(lines, n.end_lineno or n.lineno, n.end_col_offset or 0) == site.end_col), None)
        if call is None:
            return None
        kw = next((k for k in call.keywords if k.arg is None), None)
        if kw is None:
            return None
        node = kw.value
        if isinstance(node, ast.Name):
            around = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.lineno <= site.lineno <= (n.end_lineno or 0)]
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
        from benchop_hook.rewrite import DictEdit

        return DictEdit(node.lineno, col, tuple(ops))

    # -- all-files mode
    def _run_all(self) -> StaticResult:
        """Every benchmark against the current signatures; a call that no longer binds is fixed
        from the version of its Op at the benchmark's last commit, when history has one."""
        from benchop_hook.cache import CleanCache, digest

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
                    sig = call_signature(self.new_p, ref, site.method)
                    if sig is None:
                        continue
                    sh = shape(site.args)
                    if sh.splatted or not bind(sig, sh).ok:
                        suspect.append(site)
                        break
            gone = [local for local, t in az.mi.imports.items() if t[0] == "attr" and self.new_p.resolve_name(t[1], t[2]) is None
                    and self._looks_like_op_import(t[1])]
            self.new_p.stop_recording()
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
        base = hist.base_for(path) if hist is not None else None
        if hist is None or base is None:
            for s in suspect:
                fr.findings.append(Finding(s, s.func_source, Status.BROKEN, "does not bind the current signature",
                                           why_not="not rewritten: no earlier version of this benchmark in git to learn what it meant"))
            if fr.findings:
                self.result.files.append(fr)
            return
        old_p = hist.project(base, self.cache, self.paths.op, self.config.op_bases)
        if base not in self._history_changes:
            # Op files that differ between the benchmark's last commit and now.
            old_paths, new_paths = hist.op_paths_changed(base, self.paths.op)
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

