"""The repair loop, the manual procedure as a state machine: RUN -> (numbers) DONE | (interface error)
FIX -> RUN ... | BLOCKED; and the scheduler that runs every affected file in one pytest session per round.

What a run means is `triage.py`'s job; the fix from a traceback is `dictfix.py`'s.
"""

from __future__ import annotations

import ast
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from benchop_hook.fixing.context import StaticContext
from benchop_hook.fixing.plan import CallEdit
from benchop_hook.fixing.results import FileResult
from benchop_hook.run import candidates
from benchop_hook.run.dictfix import runtime_fix
from benchop_hook.run.notrun import Environment
from benchop_hook.run.outcome import FileOutcome, OutcomeStatus
from benchop_hook.run.runner import (
    Failure,
    Interpreter,
    RunResult,
    Warm,
    run_pytest,
    uses_benchmark_fixture,
)
from benchop_hook.run.triage import verdict


def node_targets(fr: FileResult) -> list[str]:
    """Only the test functions that build a changed Op, when that is all of it; else the whole file."""
    funcs = {f.site.qualfunction for f in fr.findings} | set(fr.reaches)
    if not funcs or None in funcs:
        return [fr.path]
    try:
        tree = ast.parse(fr.after or fr.before or b"")
        every = {
            n.name
            for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test")
        }
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


def traceback_text(f: Failure, root: str, frames: int = 6) -> str:
    """A failure as a coding agent reads it: the innermost frames in the repository, then the exception."""
    paths = [str(fr.get("path")) for fr in f.frames]
    mine = [(os.path.relpath(p, root) if os.path.isabs(p) else p, fr) for p, fr in zip(paths, f.frames)]
    where = [f"  {p}:{fr.get('line')} in {fr.get('name', '?')}" for p, fr in mine if not p.startswith("..")]
    return "\n".join([*where[-frames:], f.headline()])


@dataclass(frozen=True)
class LoopContext:
    """What every file's loop shares: where and how to run, and what the static pass learned."""

    root: str
    interp: Interpreter
    static: StaticContext
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
    env: Environment | None = None  # tells a module missing here from one the diff moved
    warm: Warm | None = None  # a pytest process started early: the first session takes it
    line_length: int | None = None  # the project's, for a call rewritten with its next candidate


class FileRepair:
    """One benchmark file's way through the loop; fed one run's results at a time."""

    def __init__(self, fr: FileResult, ctx: LoopContext, *, static_fixed: bool) -> None:
        self.fr = fr
        self.ctx = ctx
        # Each step of the loop makes a new outcome from the last one.
        self.out = FileOutcome(fr.path, fixes=tuple(fr.fix_lines()), targets=tuple(node_targets(fr)))
        self.probe = not static_fixed  # interface errors only a run can find: one case per function first
        self.repairs = 0
        self.done = False
        self.uses_benchmark = uses_benchmark_fixture(ctx.read(fr.path))
        self.start = time.monotonic()
        self.candidates = list(candidates.pending(fr))  # calls whose fix carried later candidates

    @property
    def targets(self) -> list[str]:
        return list(self.out.targets)

    def feed(self, res: RunResult) -> None:
        """The state machine: RUN -> DONE | FIX -> RUN | BLOCKED."""
        ctx, out = self.ctx, self.out
        self.out = out = replace(
            out,
            runs=out.runs + 1,
            device=res.device or out.device,
            runtime=res.runtime or out.runtime,
            gpus=out.gpus | {t.gpu for t in res.tests if t.gpu},
        )
        v = verdict(res, ctx.root, ctx.is_bench, ctx.env)
        if v.kind == "interface" and v.failure is not None:
            if self.repairs >= ctx.max_iterations:
                self.out = replace(self.out, interface=traceback_text(v.failure, ctx.root))
                self._finish(
                    "blocked",
                    f"still failing after {self.repairs} repair{'s' if self.repairs != 1 else ''}: "
                    f"{v.reason}",
                )
                return
            fix = runtime_fix(v.failure, ctx.read, ctx.static, ctx.root, ctx.is_bench)
            if fix.content is None or fix.path is None:
                self.out = replace(self.out, interface=traceback_text(v.failure, ctx.root))
                self._finish("blocked", fix.description)
                return
            self.repairs += 1
            ctx.write(fix.path, fix.content)
            written = out.written | {fix.path} if fix.path != out.path else out.written
            self.out = replace(out, written=written, fixes=(*out.fixes, fix.description))
            ctx.echo(f"bench-op: repaired from the traceback: {fix.description}")
            return
        if v.kind == "failed" and self.candidates and self._next_candidate(res):
            return
        # The interface holds (or the first cases skip themselves): now every case, once, for the numbers.
        if v.kind in ("passed", "self-skipped") and self.probe and res.selected < res.collected:
            self.probe = False
            return
        self.out = out = replace(
            out,
            cases=sum(1 for t in res.tests if t.outcome == "passed"),
            busy=sum(t.duration for t in res.tests),
        )
        if v.kind == "passed":
            skipped = f"{v.skipped_no_gpu} case(s) skipped: no CUDA device visible"
            notes = (*out.notes, skipped) if v.skipped_no_gpu else out.notes
            self.out = replace(out, numbers=tuple(v.numbers), notes=notes)
            self._finish("passed", None)
        elif v.kind == "no-gpu":
            self._finish("not-run", "no CUDA device is visible")
        elif v.kind in ("not-run", "self-skipped"):
            self._finish("not-run", v.reason)
        elif v.kind == "no-numbers":
            self._finish("failed", v.reason)
        else:
            self._finish("blocked", v.reason)

    def _next_candidate(self, res: RunResult) -> bool:
        """The calls whose candidate in place the run refused at or below the call (a shape, type or value
        error) get their next candidate, and the file runs again; once a call has none left, the file is
        blocked. False when no failure is one of theirs."""
        ctx, path = self.ctx, self.fr.path
        data = ctx.read(path)
        failures = [t.failure for t in res.tests if t.outcome == "failed" and t.failure is not None]
        hit = candidates.refused(failures, data, self.candidates, ctx.root) if data is not None else {}
        if data is None or not hit:
            return False
        edits = []
        for k, f in hit.items():
            c, error = self.candidates[k], f.headline()[:200]
            edit = candidates.next_edit(data, c) if c.left else None
            if not isinstance(edit, CallEdit):
                why = candidates.exhausted(c, error) if edit is None else candidates.unwritable(c, edit)
                self.out = replace(self.out, interface=traceback_text(f, ctx.root))
                self._finish("blocked", why)
                return True
            edits.append(edit)
        from benchop_hook.rewrite.edit import rewrite  # libcst: only when a candidate is to be written

        done = rewrite(data, edits, line_length=ctx.line_length)
        if done.data is None:
            self._finish(
                "blocked",
                f"{path}: the next candidate could not be written ({'; '.join(done.failed)}): fix the call "
                "by hand",
            )
            return True
        ctx.write(path, done.data)
        fixes = list(self.out.fixes)
        for k, f in hit.items():
            c = self.candidates[k]
            line = c.finding.fix_line(c.current)
            fixes = [c.finding.fix_line(c.left[0]) if x == line else x for x in fixes]
            where = f"{c.finding.site.path}:{c.finding.site.lineno}"
            ctx.echo(
                f"bench-op: {where}: the run refused {c.call(c.current)} ({f.headline()[:200]}); trying the "
                f"next candidate, {c.call(c.left[0])}"
            )
            self.candidates[k] = candidates.advanced(c, f.headline()[:200])
        self.out = replace(self.out, fixes=tuple(fixes))
        return True

    def _finish(self, status: OutcomeStatus, reason: str | None) -> None:
        self.out = replace(self.out, status=status, reason=reason, seconds=time.monotonic() - self.start)
        self.done = True


def _run(
    ctx: LoopContext,
    targets: list[str],
    env: dict[str, str],
    label: str,
    *,
    timeout: float,
    extra_args: tuple[str, ...] = (),
    use_benchmark_json: bool = False,
) -> RunResult:
    ctx.echo(f"bench-op: running {' '.join(targets)}{label}")
    res = run_pytest(
        ctx.interp,
        ctx.root,
        targets,
        timeout=timeout,
        pytest_args=(*ctx.pytest_args, *extra_args),
        echo=lambda s: ctx.echo("    " + s),
        log_dir=ctx.log_dir,
        extra_env={**ctx.extra_env, **env},
        use_benchmark_json=use_benchmark_json,
        warm=ctx.warm,
    )
    ctx.session_seconds.append(res.seconds)
    return res


def _split(res: RunResult, path: str) -> RunResult:
    """The part of a run over several files that belongs to one of them."""
    sub = RunResult(
        res.targets,
        res.returncode,
        res.seconds,
        timed_out=res.timed_out,
        device=res.device,
        runtime=res.runtime,
        tail=res.tail,
        log_path=res.log_path,
        last_started=res.last_started,
    )
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
    try:
        data = json.loads(doc)
    except ValueError:
        return None
    data["benchmarks"] = [
        b for b in data.get("benchmarks", []) if str(b.get("fullname", "")).split("::", 1)[0] == path
    ]
    return json.dumps(data)


def _culprit(res: RunResult, group: list[FileRepair]) -> FileRepair | None:
    """The file whose test was running when the whole run died (timeout, crash)."""
    if not res.last_started:
        return None
    path = res.last_started.split("::", 1)[0]
    return next((f for f in group if f.fr.path == path), None)


def _environment_down(res: RunResult, ctx: LoopContext) -> bool:
    """The session never started for a reason outside the repository (a conftest's missing module)."""
    return (
        ctx.env is not None
        and not res.timed_out
        and res.crashed_signal is None
        and res.returncode != 0
        and ctx.env.missing_module("\n".join(res.tail)) is not None
    )


def _rerun_others(res: RunResult, group: list[FileRepair]) -> bool:
    """When some files of a batch fail to collect, pytest runs none of the others (node ids it could not
    find make it stop: "found no collectors"). The failing files get their own errors; the files with
    no result of their own run again without them. True when that is what happened."""
    erred = {n.split("::", 1)[0] for n, _ in res.errors}
    ran = {t.nodeid.split("::", 1)[0] for t in res.tests}
    silent = [f for f in group if f.fr.path not in erred and f.fr.path not in ran]
    if not silent or not any(f.fr.path in erred for f in group):
        return False
    for f in group:
        if f.fr.path in erred or f.fr.path in ran:
            f.feed(_split(res, f.fr.path))
    return True


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
            res = _run(
                ctx,
                targets,
                env,
                label,
                timeout=ctx.timeout * budget,
                extra_args=extra,
                use_benchmark_json=any(f.uses_benchmark for f in group),
            )
            died = (
                res.timed_out
                or res.crashed_signal is not None
                or (not res.tests and not res.errors and res.collected == 0)
            )
            if not died and len(group) > 1 and res.errors and _rerun_others(res, group):
                continue  # the files that failed to collect got their results; the others run again
            if died and len(group) > 1 and _environment_down(res, ctx):
                for f in group:  # a conftest importing what this interpreter lacks: the same for every file
                    f.feed(res)
                continue
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
