"""`--all-files`: every benchmark against the current signatures, with no diff to start from.

A call that provably fails the current signature is broken; what it meant comes from its Op as it was at
the benchmark's last commit (`git/last_commit.py`), which the same judge and rewrite stages as a commit
range then fix. A file whose bytes, and the bytes of every module its names resolved through, are as the
last run saw them is skipped (`cache.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from benchop_hook.analysis.callsites import CallSite, Instance, ModuleAnalyzer
from benchop_hook.analysis.changes import OpChange, detect
from benchop_hook.analysis.evidence import TestEvidence
from benchop_hook.analysis.locate import analyze
from benchop_hook.analysis.modules import ClassRef, ModuleInfo
from benchop_hook.analysis.project import Project
from benchop_hook.config import Config
from benchop_hook.fixing.commit_range import judge_files, projects, symlinks_naming
from benchop_hook.fixing.context import StaticContext, call_signature
from benchop_hook.fixing.detect import Sources, evidence_for
from benchop_hook.fixing.judging import Judging
from benchop_hook.fixing.plan import Status, judge_now
from benchop_hook.fixing.results import FileResult, Finding, Note, StaticResult, decided, shown_call
from benchop_hook.git.last_commit import LastCommits
from benchop_hook.git.target import Target
from benchop_hook.paths import Paths
from benchop_hook.rules.decide import turned_off
from benchop_hook.rules.facts import Found

Suspects = dict[tuple[int, int], tuple[CallSite, str]]  # (line, column) -> the call and the TypeError now


@dataclass(frozen=True)
class AllFiles:
    """What the pass over every benchmark needs besides the snapshots."""

    history: LastCommits
    only: frozenset[str] | None = None  # just these benchmark files
    cache_dir: str | None = None  # where the clean-file cache lives (.git/bench-op); None: no cache


@dataclass
class _Tally:
    """What the files add up to, gathered as the pass goes (local to one call of `all_files_pass`)."""

    files: list[FileResult] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    calls: int = 0
    classes: set[str] = field(default_factory=set)
    unknown: list[Note] = field(default_factory=list)
    unresolved: list[Note] = field(default_factory=list)
    changes: list[OpChange] = field(default_factory=list)  # from history: the repair loop looks them up

    def add(self, now: _Now) -> None:
        self.calls += now.calls
        self.classes |= now.classes
        self.unknown.extend(now.unknown)
        self.unresolved.extend(now.unresolved)

    def result(self, target: Target) -> StaticResult:
        return StaticResult(
            target,
            tuple(self.changes),
            tuple(self.files),
            tuple(self.skipped),
            False,
            self.calls,
            frozenset(self.classes),
            tuple(self.unknown),
            tuple(self.unresolved),
        )

    def add_cached(self, extra: dict[str, object]) -> None:
        """What the cache kept of a clean file: its counts, unknown calls, unresolved imports."""
        n_calls, names = extra.get("calls"), extra.get("classes")
        self.calls += n_calls if isinstance(n_calls, int) else 0
        if isinstance(names, list):
            self.classes.update(str(c) for c in names)
        for key, dest in (("unknown", self.unknown), ("unresolved", self.unresolved)):
            items = extra.get(key)
            if isinstance(items, list):
                dest.extend(Note(**n) for n in items if isinstance(n, dict))


def all_files_pass(
    cfg: Config, src: Sources, target: Target, opts: AllFiles, *, rewrite: bool
) -> tuple[StaticResult, StaticContext]:
    """Every benchmark against the current signatures; a call that no longer binds is fixed from the
    version of its Op at the benchmark's last commit, when history has one."""
    from benchop_hook.fixing.cache import CleanCache, digest

    paths = Paths(cfg)
    new_p = projects(cfg, paths, src).new
    ev = evidence_for(src, paths, new_p, None)
    py_paths = sorted(p for p in src.new.paths() if p.endswith(".py"))
    # The rules turned off decide as much as the config: a file clean under some rules is not under others.
    cache = CleanCache(opts.cache_dir, [repr(cfg), repr(sorted(turned_off(cfg.ignore))), *py_paths])
    digests: dict[str, str | None] = {}

    def dep_digest(p: str) -> str | None:
        if p not in digests:
            d = src.new.read(p)
            digests[p] = digest(d) if d is not None else None
        return digests[p]

    t = _Tally(skipped=list(symlinks_naming(src.bench, paths, None, ())))
    history = _FromHistory(cfg, paths, src, new_p, ev, opts.history, rewrite)
    for path in sorted(p for p in src.bench.paths() if paths.bench(p)):
        data = src.bench.read(path) if opts.only is None or path in opts.only else None
        if data is None:
            continue
        own = digest(data)
        if cache.is_clean(path, own, dep_digest):
            t.add_cached(cache.extra(path))
            continue
        deps = new_p.record()
        az = analyze(path, data, new_p, None)
        if az.mi.error:
            t.skipped.append((path, az.mi.error))
            t.files.append(FileResult(path, before=data, error=az.mi.error))
            continue
        now = _now(path, az, new_p, paths)
        new_p.stop_recording()
        t.add(now)
        if not now.suspect and not now.gone:
            cache.mark_clean(path, own, {p: dep_digest(p) for p in sorted(deps)}, now.counts())
            continue
        cache.forget(path)
        fr = history.fix(path, data, now.suspect, t.changes)
        if fr is not None:
            t.files.append(fr)
        # An Op import history explains (renamed, moved, removed) is reported there, not as unresolved.
        told = {w for n in (fr.import_notes if fr is not None else ()) for w in (n.name, n.successor) if w}
        t.unresolved = [n for n in t.unresolved if n.path != path or n.call.rsplit(" ", 1)[-1] not in told]
    cache.save()
    return t.result(target), StaticContext(
        paths, new_p, None, src.bench, ev, tuple(t.changes), turned_off(cfg.ignore)
    )


@dataclass(frozen=True)
class _Now:
    """One benchmark file against the current signatures."""

    suspect: Suspects  # the provably broken calls
    gone: tuple[str, ...]  # names it imports from an op module that no longer define them
    calls: int
    classes: frozenset[str]
    unknown: tuple[Note, ...]
    unresolved: tuple[Note, ...]

    def counts(self) -> dict[str, object]:
        """What the clean-file cache keeps of it."""
        return {
            "calls": self.calls,
            "classes": sorted(self.classes),
            "unknown": [n.as_json() for n in self.unknown],
            "unresolved": [n.as_json() for n in self.unresolved],
        }


def _now(path: str, az: ModuleAnalyzer, new_p: Project, paths: Paths) -> _Now:
    suspect, calls, classes, unknown = judge_now_all(path, az.calls(), new_p)
    gone = tuple(
        local
        for local, tg in az.mi.imports.items()
        if tg[0] == "attr" and new_p.resolve_name(tg[1], tg[2]) is None and _op_module(tg[1], new_p, paths)
    )
    unresolved = unresolved_imports(path, az.mi, new_p)
    return _Now(suspect, gone, calls, frozenset(classes), tuple(unknown), tuple(unresolved))


def judge_now_all(
    path: str, sites: Iterable[CallSite], new_p: Project
) -> tuple[Suspects, int, set[str], list[Note]]:
    """Each Op call of one file against the current signatures: the provably broken ones by position
    (with the TypeError each raises now), how many calls of which classes were checked, and the calls only
    a run can judge."""
    suspect: Suspects = {}
    calls, classes, unknown = 0, set[str](), list[Note]()
    for site in sites:
        atoms = sorted(site.atoms, key=repr)  # a set: the first broken class named is the same each run
        classes_ = [a for a in atoms if isinstance(a, ClassRef) and new_p.is_op(a)]
        insts = [a.cls for a in atoms if isinstance(a, Instance) and new_p.is_op(a.cls)]
        sigs = [
            (r, call_signature(new_p, r, site.method)) for r in (classes_ if site.method is None else insts)
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
                    shown_call(site, site.method),
                    f"unknown: the run decides ({broken}, but only {why})",
                )
            )
        elif broken is not None:
            suspect[(site.lineno, site.col)] = (site, broken)
        elif any(st is Status.UNKNOWN for st, _ in verdicts):
            why = next(why for st, why in verdicts if st is Status.UNKNOWN)
            unknown.append(Note(path, site.lineno, shown_call(site, site.method), why))
    return suspect, calls, classes, unknown


def _op_module(module: str, new_p: Project, paths: Paths) -> bool:
    """Whether an import from `module` is an import of an Op: its file is an op file, or (a module that
    doesn't exist any more) it was an op module if history says so."""
    p = new_p.path_of(module)
    if p is not None:
        return paths.op(p)
    return any(seg == "ops" for seg in module.split("."))


class _FromHistory:
    """Fixes for the provably broken calls of a file, from the Ops as they were at its last commit. The
    changes history shows are detected once per such commit."""

    def __init__(
        self,
        cfg: Config,
        paths: Paths,
        src: Sources,
        new_p: Project,
        ev: TestEvidence,
        hist: LastCommits,
        rewrite: bool,
    ) -> None:
        self.cfg, self.paths, self.src, self.new_p, self.ev = cfg, paths, src, new_p, ev
        self.hist, self.rewrite = hist, rewrite
        self._detected: dict[str, tuple[Project, list[OpChange], TestEvidence]] = {}

    def _at(self, base: str) -> tuple[Project, list[OpChange], TestEvidence]:
        if base not in self._detected:
            old_p = self.hist.project(base, self.new_p.cache, self.paths.op, self.cfg.op_bases)
            # Op files that differ between the benchmark's last commit and now.
            old_paths, new_paths = self.hist.op_paths_changed(base, self.paths.op)
            hev = TestEvidence(self.new_p, old_p, self.ev.test_files, [])

            def op_files() -> list[str]:
                return [p for p in self.src.new.paths() if self.paths.op(p)]

            changes = detect(old_p, self.new_p, old_paths, new_paths, op_files, hev.rename_hints)
            self._detected[base] = (old_p, changes, hev)
        return self._detected[base]

    def fix(self, path: str, data: bytes, suspect: Suspects, known: list[OpChange]) -> FileResult | None:
        """The provably broken calls of one file, fixed from history where it says what they meant; the
        changes history showed are added to `known` (the repair loop looks them up there)."""
        base = self.hist.base_for(path)
        if base is None:
            why_not = "not rewritten: no earlier version of this benchmark in git to learn what it meant"
            off = turned_off(self.cfg.ignore)
            found = tuple(
                decided(Finding(s, s.func_source, Status.BROKEN, why), Found.HISTORY_SILENT, why_not, off)
                for s, why in suspect.values()
            )
            return FileResult(path, found, before=data) if found else None
        old_p, changes, hev = self._at(base)
        known.extend(c for c in changes if c not in known)
        j = Judging.of(
            self.new_p,
            old_p,
            hev,
            changes,
            pin_defaults=self.cfg.pin_defaults,
            commit_old_p=None,
            successors=frozenset(),
            bench_path=self.paths.bench,
            off=turned_off(self.cfg.ignore),
        )
        done = judge_files(self.src.bench, [path], j, rewrite=self.rewrite, line_length=self.cfg.line_length)
        fr = done[0] if done else FileResult(path, before=data)
        kept = _kept(fr.findings, suspect, j.off)
        fr = replace(fr, findings=tuple(sorted(kept, key=lambda f: (f.site.lineno, f.site.col))))
        return fr if fr.findings or fr.changed or fr.would_change else None


def _kept(findings: Iterable[Finding], suspect: Suspects, off: frozenset[str]) -> list[Finding]:
    """The current signature decides what is broken; history only says what a call meant (and so can also
    show a call that still binds, with its arguments on other parameters)."""
    kept: list[Finding] = []
    seen: set[tuple[int, int]] = set()
    for f in findings:
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
                f = Finding(f.site, f.op, Status.BROKEN, suspect[key][1], info=f.info, method=f.method)
                f = decided(f, Found.HISTORY_SILENT, why_not, off)
            kept.append(f)
        elif f.status in (Status.SHIFTED, Status.DEFAULT, Status.GONE, Status.BROKEN):
            kept.append(f)  # provable from what the call meant at the benchmark's last commit
    for key, (s, why) in suspect.items():
        if key not in seen:
            why_not = "not rewritten: its Op did not change since the benchmark's last commit"
            kept.append(
                decided(Finding(s, s.func_source, Status.BROKEN, why), Found.HISTORY_SILENT, why_not, off)
            )
    return kept


def unresolved_imports(path: str, mi: ModuleInfo, new_p: Project) -> list[Note]:
    """Imports from the repository's own packages that name nothing bench-op can find."""
    out: list[Note] = []
    ours = new_p.top_packages()
    for t in mi.imports.values():
        module, name = (t[1], None) if t[0] == "module" else (t[1], t[2])
        if module.split(".")[0] not in ours or module == mi.module:
            continue
        if name is None:
            if not new_p.has_module(module):
                out.append(Note(path, 0, f"import {module}", "unresolved: no such module in the repository"))
            continue
        if new_p.resolve_name(module, name) is not None:
            continue
        if not new_p.has_module(module):
            out.append(
                Note(path, 0, f"from {module} import {name}", "unresolved: no such module in the repository")
            )
            continue
        target = new_p.module(module)
        if target is not None and (name in target.names or target.star_imports or target.error):
            continue  # a function or a constant, or beyond a star import: not a class, not lost
        out.append(Note(path, 0, f"from {module} import {name}", f"unresolved: {module} defines no {name}"))
    return out
