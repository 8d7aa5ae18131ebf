"""The repair loop, the manual procedure as a state machine:
RUN -> (numbers) DONE | (interface error) FIX -> RUN ... | BLOCKED.

A failure is about the interface when its traceback ends in a benchmark file at
a call that builds (or calls) a changed Op: a binding TypeError, or an import
of a name that moved. Anything else blocks the file, with the exception, its
message and where it was raised.
"""

from __future__ import annotations

import ast
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from benchop_hook.callsites import CallSite, Instance
from benchop_hook.changes import OpChange
from benchop_hook.edits import EditKind
from benchop_hook.fixes import Value
from benchop_hook.locate import analyze
from benchop_hook.modules import ClassRef
from benchop_hook.numbers import Number, for_case, from_pytest_benchmark
from benchop_hook.pipeline import FileResult, StaticPass, _value_for
from benchop_hook.rewrite import insert_before_call
from benchop_hook.runner import Failure, Interpreter, RunResult, run_pytest, uses_benchmark_fixture

_BIND = re.compile(
    r"(?:(?P<qual>[\w.<>]+)\(\) )?(?:got an unexpected keyword argument '(?P<kw>\w+)'"
    r"|missing \d+ required (?:positional|keyword-only) arguments?: (?P<missing>.+)"
    r"|takes (?:from \d+ to )?\d+ positional arguments? but \d+ (?:were|was) given"
    r"|got multiple values for argument '(?P<multi>\w+)'"
    r"|got some positional-only arguments passed as keyword arguments?)"
)
_IMPORT = re.compile(r"cannot import name '(?P<name>\w+)'|No module named '(?P<module>[\w.]+)'|has no attribute '(?P<attr>\w+)'")
_NO_GPU = re.compile(
    r"Torch not compiled with CUDA enabled|No CUDA GPUs are available|Found no NVIDIA driver|"
    r"CUDA driver initialization failed|no CUDA-capable device is detected|0 active drivers|"
    r"CUDA is not available|cuda unavailable|requires? (?:a )?(?:CUDA|GPU)|no GPU", re.IGNORECASE)


@dataclass
class FileOutcome:
    path: str
    status: str = "failed"  # passed, failed, skipped, blocked
    runs: int = 0
    numbers: list[Number] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    reason: str | None = None
    patch: str | None = None
    seconds: float = 0.0
    device: str | None = None
    gpus: set[str] = field(default_factory=set)
    targets: list[str] = field(default_factory=list)
    content: bytes | None = None  # the file as bench-op leaves it (None: unchanged)
    notes: list[str] = field(default_factory=list)
    cases: int = 0
    written: set[str] = field(default_factory=set)  # other files the repairs wrote (a helper the traceback pointed at)
    uses: set[str] = field(default_factory=set)  # helpers bench-op changed that this file imports

    def as_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "status": self.status,
            "iterations": self.runs,
            "numbers": [n.as_json() for n in self.numbers],
            "fixes": self.fixes,
            "reason": self.reason,
            "patch": self.patch,
            "seconds": round(self.seconds, 3),
            "device": self.device,
            "gpus": sorted(self.gpus),
            "targets": self.targets,
            "notes": self.notes,
        }


@dataclass
class Verdict:
    kind: str  # passed, no-numbers, no-gpu, interface, failed, timeout, crash, no-tests
    reason: str = ""
    failure: Failure | None = None
    nodeid: str | None = None
    numbers: list[Number] = field(default_factory=list)
    skipped_no_gpu: int = 0


def _rel(root: str, path: str) -> str:
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _where(root: str, f: Failure) -> str:
    if not f.frames:
        return ""
    fr = f.frames[-1]
    return f"{_rel(root, str(fr['path']))}:{fr['line']}"


def no_gpu(f: Failure | None, skip_reason: str | None = None) -> bool:
    text = (f.message if f else "") + " " + (skip_reason or "")
    return bool(_NO_GPU.search(text)) or (skip_reason is not None and bool(re.search(r"\b(cuda|gpu)\b", skip_reason, re.I)))


def verdict(res: RunResult, root: str, is_bench: Callable[[str], bool]) -> Verdict:
    if res.timed_out:
        running = f" (it was running {res.last_started})" if res.last_started else ""
        return Verdict("timeout", f"timed out after {res.seconds:.0f} s{running}; its whole process group was killed")
    sig = res.crashed_signal
    if sig:
        running = f" in {res.last_started}" if res.last_started else ""
        return Verdict("crash", f"the benchmark process was killed by {sig}{running}")
    for nodeid, f in res.errors:
        if interface_failure(f, root, is_bench):
            return Verdict("interface", f.headline(), f, nodeid)
    if res.errors:
        nodeid, f = res.errors[0]
        if no_gpu(f):
            return Verdict("no-gpu", f.headline(), f, nodeid)
        where = _where(root, f)
        first = _first_error_line(f.message) if f.type == "CollectionError" else f.headline()
        return Verdict("failed", f"{first}" + (f" (raised at {where})" if where else "") + f" while collecting {nodeid or 'the file'}", f, nodeid)
    failed = [t for t in res.tests if t.outcome == "failed"]
    for t in failed:
        if t.failure and interface_failure(t.failure, root, is_bench):
            return Verdict("interface", t.failure.headline(), t.failure, t.nodeid)
    hard = [t for t in failed if not no_gpu(t.failure)]
    numbers: list[Number] = []
    for t in res.tests:
        if t.outcome == "passed":
            numbers.extend(for_case(t.nodeid.split("::", 1)[-1], t.properties, t.stdout))
    if res.benchmark_json:
        numbers.extend(from_pytest_benchmark(res.benchmark_json))
    skipped_gpu = sum(1 for t in res.tests if (t.outcome == "skipped" and no_gpu(None, t.skip_reason)) or (t.outcome == "failed" and no_gpu(t.failure)))
    if hard:
        t = hard[0]
        f = t.failure or Failure("Error", "failed")
        where = _where(root, f)
        return Verdict("failed", f"{f.headline()}" + (f" (raised at {where}" if where else " (") + f" in {t.nodeid.split('::', 1)[-1]})", f, t.nodeid)
    passed = [t for t in res.tests if t.outcome == "passed"]
    if not passed:
        if skipped_gpu:
            return Verdict("no-gpu", "no CUDA device is visible", skipped_no_gpu=skipped_gpu)
        if res.tests:
            return Verdict("no-tests", "every case was skipped: " + ((res.tests[0].skip_reason or "").strip() or "no reason given"))
        tail = next((line for line in reversed(res.tail) if line.strip()), "")
        return Verdict("no-tests", f"pytest ran no test (exit {res.returncode}){': ' + tail[:200] if tail else ''}")
    if not numbers:
        return Verdict("no-numbers", "it passed but printed no latency, TFLOPS or bandwidth: record them with "
                       "record_property(...) or print e.g. 'latency 0.12 ms'")
    return Verdict("passed", "", numbers=numbers, skipped_no_gpu=skipped_gpu)


def _first_error_line(text: str) -> str:
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("E   "):
            return s[4:].strip()
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "collection error"


def interface_failure(f: Failure, root: str, is_bench: Callable[[str], bool]) -> bool:
    text = f.message
    if f.type == "TypeError" and _BIND.search(text):
        # Python raises a binding error in the caller's frame: the innermost frame is the benchmark's call.
        if f.frames:
            last = _rel(root, str(f.frames[-1]["path"]))
            return is_bench(last)
        return False
    if f.type in ("ImportError", "ModuleNotFoundError", "AttributeError", "CollectionError") and _IMPORT.search(text):
        return f.type != "CollectionError" or ("ImportError" in text or "ModuleNotFoundError" in text)
    return False


def _bench_frame(f: Failure, root: str, is_bench: Callable[[str], bool]) -> tuple[str, int] | None:
    for fr in reversed(f.frames):
        rel = _rel(root, str(fr["path"]))
        if is_bench(rel):
            return rel, int(fr["line"])  # type: ignore[arg-type]
    return None


@dataclass
class RuntimeFix:
    content: bytes | None
    description: str
    path: str | None = None


def runtime_fix(f: Failure, content_of: Callable[[str], bytes | None], sp: StaticPass, root: str,
                is_bench: Callable[[str], bool]) -> RuntimeFix:
    """Fix what the traceback points at, from the same evidence rules as the static pass."""
    if f.type != "TypeError":
        return RuntimeFix(None, f"{f.headline()}: bench-op's static rewrite did not resolve this import; update it by hand")
    loc = _bench_frame(f, root, is_bench)
    if loc is None:
        return RuntimeFix(None, f"{f.headline()}: no benchmark frame in the traceback")
    path, line = loc
    data = content_of(path)
    if data is None:
        return RuntimeFix(None, f"{f.headline()} at {path}:{line}: cannot read the file")
    az = analyze(path, data, sp.new_p, sp.old_p)
    sites = [s for s in az.calls() if s.lineno <= line <= s.end_lineno]
    if not sites:
        return RuntimeFix(None, f"{f.headline()} at {path}:{line}: bench-op found no Op call on that line")
    site = min(sites, key=lambda s: (s.end_lineno - s.lineno, s.end_col - s.col))
    change = _change_for(site, f, sp)
    if change is None:
        return RuntimeFix(None, f"{f.headline()} at {path}:{line}: the call does not build an Op whose signature changed")
    dstar = [a for a in site.args if a.kind == "dstar"]
    if len(dstar) != 1 or any(a.kind == "star" for a in site.args) or site.splat_name is None:
        return RuntimeFix(None, f"{f.headline()} at {path}:{line}: bench-op rewrites calls that splat one plain dict name (**params) only; fix this call by hand")
    if site.method is not None:
        old_sig, new_sig, edits = None, None, ()
        for m in change.methods:
            if m.name in (site.method, "forward"):
                old_sig, new_sig, edits = m.old_sig, m.new_sig, m.edits
    else:
        old_sig, new_sig, edits = change.old_sig, change.new_sig, change.edits
    if old_sig is None or new_sig is None:
        return RuntimeFix(None, f"{f.headline()} at {path}:{line}: the signature can't be read statically")
    name = site.splat_name
    value_for = _value_for(site, sp_evidence(sp), change.new, new_sig, old_sig, tuple(edits))
    ops: list[tuple[str, str, str | None]] = []  # (op, key, arg)
    notes: list[str] = []
    for e in edits:
        if e.kind is EditKind.REMOVED and e.old_kind is not None and e.old_kind.value in ("*args", "**kwargs"):
            continue
        if e.kind is EditKind.REMOVED:
            ops.append(("pop", e.name, None))
            notes.append(f"'{e.name}' removed")
        elif e.kind is EditKind.RENAMED and e.new_name:
            ops.append(("rename", e.name, e.new_name))
            notes.append(f"'{e.name}' renamed to '{e.new_name}'")
    for p in new_sig.params:
        if not p.required:
            continue
        explicit = {a.keyword for a in site.args if a.kind == "kw"}
        n_pos = sum(1 for a in site.args if a.kind == "pos")
        if p.name in explicit or p.name in [q.name for q in new_sig.positional[:n_pos]]:
            continue
        if old_sig.get(p.name) is not None and p.name not in {e.new_name for e in edits if e.kind is EditKind.RENAMED}:
            old_param = old_sig.get(p.name)
            if old_param is not None and old_param.default is not None:
                ops.append(("setdefault", p.name, old_param.default))
                notes.append(f"'{p.name}' is required now: its old default {old_param.default} kept")
            continue  # it was required before too: the dict has it
        if p.name in {e.new_name for e in edits if e.kind is EditKind.RENAMED}:
            continue
        v: Value = value_for(p.name)
        if v.source is None:
            return RuntimeFix(None, f"{f.headline()} at {path}:{line}: needs a value for '{p.name}' ({v.reason}); add it by hand")
        ops.append(("setdefault", p.name, v.source))
        notes.append(f"'{p.name}'={v.source}: {v.reason}")
    if not ops:
        return RuntimeFix(None, f"{f.headline()} at {path}:{line}: the change gives nothing to fix in **{name}")
    target = name
    statements: list[str] = []
    if not _only_used_here(az, site, name):
        target = _fresh_name(az, "op_" + name if not name.startswith("op_") else name + "_new")
        statements.append(f"{target} = dict({name})")
    for op, key, arg in ops:
        if op == "pop":
            statements.append(f"{target}.pop({key!r}, None)")
        elif op == "rename":
            statements.append(f"if {key!r} in {target}: {target}[{arg!r}] = {target}.pop({key!r})")
        else:
            statements.append(f"{target}.setdefault({key!r}, {arg})")
    res = insert_before_call(data, (site.lineno, site.col, site.end_lineno, site.end_col), statements,
                             new_splat=target if target != name else None)
    if res.data is None:
        return RuntimeFix(None, f"{f.headline()} at {path}:{line}: " + "; ".join(res.failed))
    try:
        ast.parse(res.data)
    except SyntaxError:
        return RuntimeFix(None, f"{f.headline()} at {path}:{line}: the fix would not parse")
    desc = f"{path}:{site.lineno}: {site.func_source}(**{name}): " + "; ".join(statements) + f"  ({', '.join(notes)})"
    return RuntimeFix(res.data, desc, path)


def sp_evidence(sp: StaticPass):
    ev = getattr(sp, "_ev_cache", None)
    if ev is None:
        ev = sp._evidence(sp.old_p)
        sp._ev_cache = ev  # type: ignore[attr-defined]
    return ev


def _change_for(site: CallSite, f: Failure, sp: StaticPass) -> OpChange | None:
    by_new = {c.new: c for c in sp.result.changes if c.new is not None}
    for a in site.atoms:
        if isinstance(a, ClassRef) and a in by_new and site.method is None:
            return by_new[a]
        if isinstance(a, Instance) and a.cls in by_new and site.method is not None:
            return by_new[a.cls]
    m = _BIND.search(f.message)
    qual = (m.group("qual") or "") if m else ""
    owner = qual.split(".")[0] if qual else ""
    matching = [c for c in sp.result.changes if c.new is not None and owner in (c.new.name, c.via_base.name if c.via_base else "")]
    if matching and len({(c.old_sig, c.new_sig, c.edits) for c in matching}) == 1:
        return matching[0]
    return None


def _only_used_here(az, site: CallSite, name: str) -> bool:
    """`name` is a dict made in this function and used only by this splat."""
    tree = az.tree
    fn = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
               and n.lineno <= site.lineno <= (n.end_lineno or 0) and n.name == (site.function or "")), None)
    if fn is None:
        return False
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    if name in params:
        return False
    assigned = any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
                   for n in ast.walk(fn))
    loads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    return assigned and len(loads) == 1


def _fresh_name(az, base: str) -> str:
    used = {n.id for n in ast.walk(az.tree) if isinstance(n, ast.Name)}
    name, i = base, 2
    while name in used:
        name, i = f"{base}_{i}", i + 1
    return name


def fix_lines(fr: FileResult) -> list[str]:
    from benchop_hook.report import call_text

    out = []
    for f in fr.findings:
        if f.fixed and f.plan is not None and f.plan.ops:
            func = f.site.func_source + (f".{f.method}" if f.method and f.method != "__call__" else "")
            out.append(f"{f.site.path}:{f.site.lineno}: {call_text(f)} -> {func}{f.plan.preview}")
    return out


def node_targets(fr: FileResult) -> list[str]:
    """Only the test functions that build a changed Op, when that is all of it; else the whole file."""
    funcs = {f.site.qualfunction for f in fr.findings}
    if not funcs or None in funcs:
        return [fr.path]
    try:
        tree = ast.parse(fr.after or fr.before or b"")
        every = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")}
    except SyntaxError:
        every = set()
    if every and funcs >= every:
        return [fr.path]  # every test function: the file is the shorter name for it
    names = []
    for q in funcs:
        assert q is not None
        leaf = q.split("::")[-1]
        if not leaf.startswith("test"):
            return [fr.path]  # a helper: which tests reach it is not worth guessing
        names.append(f"{fr.path}::{q}")
    return sorted(names)


@dataclass
class LoopContext:
    root: str
    interp: Interpreter
    sp: StaticPass
    is_bench: Callable[[str], bool]
    timeout: float
    max_iterations: int
    pytest_args: tuple[str, ...]
    echo: Callable[[str], None]
    write: Callable[[str, bytes], None]
    read: Callable[[str], bytes | None]
    log_dir: str | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    session_seconds: list[float] = field(default_factory=list)  # wall time of every pytest session run


class FileRepair:
    """One benchmark file's way through the loop; fed one run's results at a time."""

    def __init__(self, fr: FileResult, ctx: LoopContext, *, static_fixed: bool) -> None:
        self.fr = fr
        self.ctx = ctx
        self.out = FileOutcome(fr.path)
        self.out.fixes = fix_lines(fr)
        self.out.targets = node_targets(fr)
        self.probe = not static_fixed  # interface errors only a run can find: one case per function first
        self.repairs = 0
        self.done = False
        self.uses_benchmark = uses_benchmark_fixture(ctx.read(fr.path))
        self.start = time.monotonic()

    @property
    def targets(self) -> list[str]:
        return self.out.targets

    def env(self) -> dict[str, str]:
        return {"BENCHOP_FIRST_CASE": "1"} if self.probe else {}

    def feed(self, res: RunResult) -> None:
        """The state machine: RUN -> DONE | FIX -> RUN | BLOCKED."""
        ctx, out = self.ctx, self.out
        out.runs += 1
        out.device = res.device or out.device
        out.gpus |= {t.gpu for t in res.tests if t.gpu}
        v = verdict(res, ctx.root, ctx.is_bench)
        if v.kind == "interface" and v.failure is not None:
            if self.repairs >= ctx.max_iterations:
                self._finish("blocked", f"still failing after {self.repairs} repair{'s' if self.repairs != 1 else ''}: {v.reason}")
                return
            fix = runtime_fix(v.failure, ctx.read, ctx.sp, ctx.root, ctx.is_bench)
            if fix.content is None or fix.path is None:
                self._finish("blocked", fix.description)
                return
            self.repairs += 1
            ctx.write(fix.path, fix.content)
            if fix.path != out.path:
                out.written.add(fix.path)
            out.fixes.append(fix.description)
            ctx.echo(f"bench-op: repaired from the traceback: {fix.description}")
            return
        if v.kind == "passed" and self.probe and res.selected < res.collected:
            self.probe = False  # the interface holds: now every case, once, for the numbers
            return
        out.cases = sum(1 for t in res.tests if t.outcome == "passed")
        if v.kind == "passed":
            out.numbers = v.numbers
            if v.skipped_no_gpu:
                out.notes.append(f"{v.skipped_no_gpu} case(s) skipped: no CUDA device visible")
            self._finish("passed", None)
        elif v.kind == "no-gpu":
            self._finish("skipped", "no CUDA device is visible; the static fix stands")
        elif v.kind == "no-numbers":
            self._finish("failed", v.reason)
        else:
            self._finish("blocked", v.reason)

    def _finish(self, status: str, reason: str | None) -> None:
        self.out.status, self.out.reason = status, reason
        self.out.seconds = time.monotonic() - self.start
        self.done = True


def _run(ctx: LoopContext, targets: list[str], env: dict[str, str], label: str, *, timeout: float,
         extra_args: tuple[str, ...] = (), use_benchmark_json: bool = False) -> RunResult:
    ctx.echo(f"bench-op: running {' '.join(targets)}{label}")
    res = run_pytest(ctx.interp, ctx.root, targets, timeout=timeout, pytest_args=(*ctx.pytest_args, *extra_args),
                     echo=lambda s: ctx.echo("    " + s), log_dir=ctx.log_dir, extra_env={**ctx.extra_env, **env},
                     use_benchmark_json=use_benchmark_json)
    ctx.session_seconds.append(res.seconds)
    return res


def repair(fr: FileResult, ctx: LoopContext, *, static_fixed: bool) -> FileOutcome:
    """Run one benchmark file (its affected functions) and repair it until it prints numbers, or block."""
    fx = FileRepair(fr, ctx, static_fixed=static_fixed)
    while not fx.done:
        label = (" (one case per function first)" if fx.probe else "") + f" [run {fx.out.runs + 1}]"
        fx.feed(_run(ctx, fx.targets, fx.env(), label, timeout=ctx.timeout, use_benchmark_json=fx.uses_benchmark))
    return fx.out


def _split(res: RunResult, path: str) -> RunResult:
    """The part of a run over several files that belongs to one of them."""
    sub = RunResult(res.targets, res.returncode, res.seconds, timed_out=res.timed_out, device=res.device,
                    tail=res.tail, log_path=res.log_path, last_started=res.last_started)
    sub.tests = [t for t in res.tests if t.nodeid.split("::", 1)[0] == path]
    sub.errors = [(n, f) for n, f in res.errors if n.split("::", 1)[0] == path]
    sub.selected = len(sub.tests)
    sub.collected = sub.selected + res.deselected.get(path, 0)
    if res.benchmark_json:
        sub.benchmark_json = _benchmarks_of(res.benchmark_json, path)
    if not sub.tests and not sub.errors and not res.timed_out and res.crashed_signal is None:
        sub.returncode = 5
    return sub


def _benchmarks_of(doc: str, path: str) -> str | None:
    """pytest-benchmark's JSON, cut down to one file's benchmarks."""
    import json

    try:
        data = json.loads(doc)
    except ValueError:
        return None
    data["benchmarks"] = [b for b in data.get("benchmarks", []) if str(b.get("fullname", "")).split("::", 1)[0] == path]
    return json.dumps(data)


def _culprit(res: RunResult, group: list[FileRepair]) -> FileRepair | None:
    """The file whose test was running when the whole run died (timeout, crash)."""
    if not res.last_started:
        return None
    path = res.last_started.split("::", 1)[0]
    return next((f for f in group if f.fr.path == path), None)


def repair_all(jobs: list[tuple[FileResult, bool]], ctx: LoopContext, gpus: list[str]) -> list[FileOutcome]:
    """Every affected file in one pytest session per round (one interpreter start, one CUDA init),
    split back per file; each file goes through the same state machine as on its own.

    With several GPUs the session is pytest-xdist with one worker per GPU, each pinned to its GPU
    (CUDA_VISIBLE_DEVICES), --dist loadfile: one file per GPU at a time. A file's timeout holds per
    file: the session gets the sum. When a session dies (timeout, crash), the file that was running
    is blocked and the others run again without it.
    """
    fxs = [FileRepair(fr, ctx, static_fixed=sf) for fr, sf in jobs]
    spread = len(gpus) >= 2
    isolated: set[str] = set()
    while True:
        pending = [f for f in fxs if not f.done]
        if not pending:
            break
        # Probing and full runs select cases differently: one session for each kind this round;
        # a file that took a whole session down with it runs on its own from then on.
        groups = [[f] for f in pending if f.fr.path in isolated]
        for probe in (True, False):
            groups.append([f for f in pending if f.probe == probe and f.fr.path not in isolated])
        for group in groups:
            group = [f for f in group if not f.done]
            if not group:
                continue
            probe = group[0].probe
            targets = [t for f in group for t in f.targets]
            env: dict[str, str] = {"BENCHOP_FIRST_CASE": "1"} if probe else {}
            extra: tuple[str, ...] = ()
            label = " (one case per function first)" if probe else ""
            budget = len(group)
            if spread:
                workers = min(len(gpus), len(group))
                env["BENCHOP_GPUS"] = ",".join(gpus)
                extra = ("-n", str(workers), "--dist", "loadfile")
                label = f" on {workers} GPUs ({', '.join(gpus[:workers])})" + label
                budget = -(-len(group) // workers)
            res = _run(ctx, targets, env, label, timeout=ctx.timeout * budget, extra_args=extra,
                       use_benchmark_json=any(f.uses_benchmark for f in group))
            died = res.timed_out or res.crashed_signal is not None or (not res.tests and not res.errors and res.collected == 0)
            if died and len(group) > 1:
                culprit = _culprit(res, group)
                if culprit is not None:
                    culprit.feed(res)  # the others had no results: they run again without it
                else:
                    isolated.update(f.fr.path for f in group)  # who did it is unknown: each on its own
                continue
            for f in group:
                f.feed(_split(res, f.fr.path) if len(group) > 1 else res)
    return [f.out for f in fxs]


def visible_gpus(selection: str) -> list[str]:
    """The GPUs a --gpus selection means: 'all', a count 'N', or indices '0,2,5'."""
    import subprocess

    env_ids = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env_ids is not None:
        ids = [g.strip() for g in env_ids.split(",") if g.strip() and g.strip() != "-1"]
    elif os.path.isdir("/proc/driver/nvidia/gpus"):
        # the driver's own list: no process to start (nvidia-smi takes a few hundred ms)
        ids = [str(i) for i in range(len(os.listdir("/proc/driver/nvidia/gpus")))]
    else:
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"], capture_output=True,
                                 text=True, timeout=20)
            ids = [line.strip() for line in out.stdout.splitlines() if line.strip().isdigit()] if out.returncode == 0 else []
        except (OSError, subprocess.TimeoutExpired):
            ids = []
    if selection == "all":
        return ids
    if selection.isdigit():
        return ids[: int(selection)]
    wanted = [g for g in selection.split(",") if g]
    if env_ids is not None:
        # indices into the visible list, as CUDA numbers them
        return [ids[int(g)] for g in wanted if g.isdigit() and int(g) < len(ids)]
    return [g for g in wanted if g in ids] if ids else []
