"""The run below the command line, in named steps: select -> write -> run -> settle.

- `select`: which statically fixed files run, which are blocked for a hand edit, which helper modules
  (files without tests) are checked through the benchmark files that import them;
- `write`: put the fixes on disk, through the tree guard (the follow-up commit may adapt each file first);
- `run`: the benchmarks in the project's interpreter, repaired from their tracebacks (`repair.py`);
- `settle`: files that stand or fall together are kept together or put back together, with a patch.

Only benchmark files are written, and only through the caller's `tree_guard`.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from benchop_hook.analysis.modules import parse_source
from benchop_hook.commands.options import Options
from benchop_hook.config import Config, parse_gpus
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK, UsageError
from benchop_hook.fixing.results import FileResult, StaticResult
from benchop_hook.git.repo import Change, RepoPaths
from benchop_hook.git.target import Target
from benchop_hook.report.render import fix_lines, hand_edit, outcome_lines, render_check, unified_diff
from benchop_hook.run.gpus import choose_gpus
from benchop_hook.run.notrun import CannotRun, Environment
from benchop_hook.run.outcome import Component, FileOutcome, RunOutcome, components
from benchop_hook.run.runner import (
    Interpreter,
    Warm,
    probe,
    resolve_python,
    start_warm,
    uses_benchmark_fixture,
)
from benchop_hook.run.tree_guard import TreeGuard, save_patch

if TYPE_CHECKING:  # the repair loop (libcst) is imported when a run starts: the early pytest starts first
    from benchop_hook.fixing.context import StaticContext


def echo(line: str) -> None:
    print(line, flush=True)


@dataclass(frozen=True)
class Settings:
    """The run's limits: the command line over the config, checked."""

    timeout: float
    max_iterations: int
    gpus: str  # 'all', a count, or '0,2,5'


def settings(opts: Options, cfg: Config) -> Settings:
    gpus = parse_gpus(opts.gpus, where="--gpus") if opts.gpus else cfg.gpus
    timeout = opts.timeout if opts.timeout else cfg.timeout
    max_it = opts.max_iterations if opts.max_iterations else cfg.max_iterations
    if timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds.")
    if max_it < 1:
        raise UsageError("--max-iterations must be at least 1.")
    return Settings(float(timeout), int(max_it), gpus)


@dataclass(frozen=True)
class LeftAlone:
    """What a `prepare` step answers for a file bench-op must not write, and why."""

    reason: str


Prepare = Callable[[FileResult], "bytes | LeftAlone"]
Excluded = tuple[tuple[FileResult, str], ...]  # files left alone, and why


def execute(
    opts: Options,
    repo: RepoPaths,
    cfg: Config,
    target: Target,
    changes: list[Change],
    guard: TreeGuard,
    *,
    bench_from: str = "worktree",
    prepare: Prepare | None = None,
    finalize: bool = True,
    warm: Warm | None = None,
) -> RunOutcome:
    """The whole pipeline below the command line. Writes benchmark files in the working tree only.

    `prepare(fr)` turns a statically fixed file into what goes on disk, or `LeftAlone` (the follow-up
    commit uses it to keep the user's unstaged edits). With `finalize=False` the caller decides what
    stays (the files of good components are not kept yet). `warm`: the benchmark interpreter, started by
    the caller as soon as it knew there was work (`runner.start_warm`); else it is started here.
    """
    limits = settings(opts, cfg)
    if warm is None and not opts.no_run:
        warm = start_warm(repo.root, opts.python, cfg)
    try:
        return _execute(opts, repo, cfg, target, changes, guard, limits, warm, bench_from, prepare, finalize)
    finally:
        if warm is not None:
            warm.close()  # nothing took it (nothing to run, blocked, an error, Ctrl-C): it goes now


def _execute(
    opts: Options,
    repo: RepoPaths,
    cfg: Config,
    target: Target,
    changes: list[Change],
    guard: TreeGuard,
    limits: Settings,
    warm: Warm | None,
    bench_from: str,
    prepare: Prepare | None,
    finalize: bool,
) -> RunOutcome:
    from benchop_hook.fixing.static import static_pass

    result, ctx = static_pass(repo, cfg, target, changes, bench_from=bench_from, only=opts.only)
    wrote = bool(result.changes or result.findings)
    echo(render_check(result, wrote=True).rsplit("\n", 1)[0] if wrote else render_check(result))
    sel = select(result, ctx, opts.shard() if target.mode != "all" else frozenset())
    if sel is None:
        if result.changes and not result.broken:
            echo("bench-op: no benchmark needs a change.")
        blocked = bool(result.broken)
        return RunOutcome(
            "blocked" if blocked else "nothing-to-do", EXIT_BLOCKED if blocked else EXIT_OK, result
        )
    for fr in sel.hand:
        f = hand_edit(fr)
        saved = ""
        if fr.changed:  # the calls it could fix are not dropped: they wait in a patch
            patch = save_patch(repo.git_dir, fr.path, fr.before or b"", fr.after or b"")
            saved = f"; the other fixes are saved as {patch}"
        echo(
            f"bench-op: {fr.path}: blocked: {f.site.path}:{f.site.lineno} {f.why_not or f.problem}; "
            f"nothing was written to it{saved}"
        )
    # a wrong --python is a usage error before anything is written
    interp = None if opts.no_run else resolve_python(repo.root, opts.python, cfg.python)
    runnable, excluded = write(sel, guard, prepare)
    if interp is None:
        return _static_only(result, sel, runnable, excluded, guard, finalize)
    outcomes, seconds = run(interp, cfg, limits, repo, ctx, sel, runnable, guard, changes, warm)
    comps, written = settle(outcomes, guard, repo.git_dir, finalize=finalize)
    for o in outcomes:
        for line in outcome_lines(o):
            echo(line)
    return _finish(
        RunOutcome(
            "done",
            EXIT_OK,
            result,
            tuple(outcomes),
            sel.hand,
            written,
            excluded,
            comps,
            run_seconds=sum(seconds),
            sessions=len(seconds),
        ),
        cfg,
    )


# -- select


@dataclass(frozen=True)
class Selection:
    runnable: tuple[FileResult, ...]  # what the static pass fixed or left to the run, in report order
    hand: tuple[FileResult, ...]  # a call needs a hand edit: nothing is written to these
    tested: tuple[FileResult, ...]  # benchmark files with tests: they run
    helpers: tuple[FileResult, ...]  # modules without tests: checked through the files importing them
    importers: tuple[FileResult, ...]  # benchmark files bench-op did not change that import a helper it did
    uses: dict[str, frozenset[str]]  # benchmark file -> the changed helpers it imports


def select(result: StaticResult, ctx: StaticContext, shard: frozenset[str]) -> Selection | None:
    """What the run is about; None when no benchmark file needs anything."""
    affected = [
        fr
        for fr in result.files
        if fr.findings and not fr.error and any(f.fixed or f.needs_action for f in fr.findings)
    ]
    if shard:
        # a shard: only these files, and the helpers without tests they may import
        affected = [fr for fr in affected if fr.path in shard or not has_tests(fr.after or fr.before)]
    if not affected:
        return None
    hand = [fr for fr in affected if any(f.needs_action and not f.runtime_candidate for f in fr.findings)]
    runnable = [fr for fr in affected if fr not in hand]
    # A module without tests (a helper under benchmarks/) is checked by the benchmark files that import it.
    tested = [fr for fr in runnable if has_tests(fr.after or fr.before)]
    helpers: list[FileResult] = []
    uses: dict[str, set[str]] = {}
    extra: dict[str, FileResult] = {}
    for h in (fr for fr in runnable if fr not in tested):
        importers = find_importers(ctx, h.path)
        if shard:
            importers = [p for p in importers if p in shard]
            if not importers:
                continue  # another shard's business
        helpers.append(h)
        for p in importers:
            uses.setdefault(p, set()).add(h.path)
            if p not in {fr.path for fr in tested} and p not in extra:
                extra[p] = FileResult(p, before=ctx.bench.read(p))
    runnable = [fr for fr in runnable if fr in tested or fr in helpers]
    return Selection(
        tuple(runnable),
        tuple(hand),
        tuple(tested),
        tuple(helpers),
        tuple(extra.values()),
        {p: frozenset(hs) for p, hs in uses.items()},
    )


def has_tests(data: bytes | None) -> bool:
    """A pytest module: a top-level test function or Test class."""
    try:
        tree = ast.parse(data or b"")
    except (SyntaxError, ValueError):
        return True  # let pytest say what is wrong with it
    return any(
        (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test"))
        or (isinstance(n, ast.ClassDef) and n.name.startswith("Test"))
        for n in tree.body
    )


def find_importers(ctx: StaticContext, helper: str) -> list[str]:
    """Benchmark files with tests that import `helper` (by its module name)."""
    module = ctx.new_p.module_name(helper)
    leaf = module.rsplit(".", 1)[-1].encode()
    out = []
    for path in ctx.bench.paths():
        if path == helper or not ctx.paths.bench(path):
            continue
        data = ctx.bench.read(path)
        if data is None or leaf not in data or not has_tests(data):
            continue
        mi = parse_source(data, path, ctx.new_p.module_name(path))
        for target in mi.imports.values():
            names = {target[1]} if target[0] == "module" else {target[1], f"{target[1]}.{target[2]}"}
            if module in names or any(n.startswith(module + ".") for n in names):
                out.append(path)
                break
    return sorted(out)


# -- write


def write(sel: Selection, guard: TreeGuard, prepare: Prepare | None) -> tuple[list[FileResult], Excluded]:
    """Put the fixes on disk; returns the files that go on to the run, and the ones left alone (and why)."""
    runnable: list[FileResult] = []
    excluded: list[tuple[FileResult, str]] = []
    disk: dict[str, bytes] = {}
    for fr in sel.runnable:
        content = fr.after if fr.changed else None
        if prepare is not None:
            prepared = prepare(fr)
            if isinstance(prepared, LeftAlone):
                excluded.append((fr, prepared.reason))
                echo(f"bench-op: {fr.path}: left alone: {prepared.reason}")
                continue
            content = prepared
        runnable.append(fr)
        if content is not None:
            disk[fr.path] = content
    for fr in runnable:
        if fr.changed:
            sys.stdout.write(unified_diff(fr.path, fr.before, fr.after))
    for fr in runnable:
        if fr.path in disk:
            guard.write(fr.path, disk[fr.path])
    return runnable, tuple(excluded)


def _static_only(
    result: StaticResult,
    sel: Selection,
    runnable: list[FileResult],
    excluded: Excluded,
    guard: TreeGuard,
    finalize: bool,
) -> RunOutcome:
    """--no-run: the static rewrite is the result."""
    outcomes: list[FileOutcome] = []
    written: dict[str, bytes] = {}
    for fr in runnable:
        if finalize:
            guard.keep(fr.path)
        if fr.path in guard.current:
            written[fr.path] = guard.current[fr.path]
            outcomes.append(static_outcome(fr, guard.current[fr.path]))
    pending = sum(1 for fr in runnable for f in fr.findings if f.runtime_candidate)
    note = f"; {pending} call(s) can only be checked by a run" if pending else ""
    n = len(written)
    echo(
        f"bench-op: static rewrite only (--no-run): {n} benchmark file{'s' if n != 1 else ''} "
        f"rewritten{note}."
    )
    blocked = bool(sel.hand)
    return RunOutcome(
        "blocked" if blocked else "fixed-not-run",
        EXIT_BLOCKED if blocked else EXIT_OK,
        result,
        tuple(outcomes),
        sel.hand,
        written,
        excluded,
        components(outcomes),
    )


def static_outcome(
    fr: FileResult, content: bytes, reason: str = "--no-run", *, helper: bool = False
) -> FileOutcome:
    return FileOutcome(
        fr.path, status="not-run", reason=reason, fixes=fix_lines(fr), content=content, helper=helper
    )


# -- run


def run(
    interp: Interpreter,
    cfg: Config,
    limits: Settings,
    repo: RepoPaths,
    ctx: StaticContext,
    sel: Selection,
    runnable: list[FileResult],
    guard: TreeGuard,
    changes: list[Change],
    warm: Warm | None = None,
) -> tuple[list[FileOutcome], list[float]]:
    """Run and repair the benchmark files; the helpers' outcomes follow from their importers'. Returns every
    outcome and the wall time of each pytest session."""
    try:
        if any(uses_benchmark_fixture(guard.read(fr.path)) for fr in runnable):
            interp = probe(interp)  # is pytest-benchmark there, for its JSON?
        return _run(cfg, limits, repo, ctx, sel, runnable, guard, changes, interp, warm)
    except CannotRun as exc:  # no pytest there: nothing runs, every static fix stands
        echo(f"bench-op: not running the benchmarks: {exc.message}")
        return [
            static_outcome(
                fr,
                guard.current.get(fr.path, fr.after or fr.before or b""),
                exc.message,
                helper=fr in sel.helpers,
            )
            for fr in runnable
        ], []


def _run(
    cfg: Config,
    limits: Settings,
    repo: RepoPaths,
    ctx: StaticContext,
    sel: Selection,
    runnable: list[FileResult],
    guard: TreeGuard,
    changes: list[Change],
    interp: Interpreter,
    warm: Warm | None,
) -> tuple[list[FileOutcome], list[float]]:
    from benchop_hook.run.repair import LoopContext, repair_all

    echo(f"bench-op: running benchmarks with {interp.path} (from {interp.source})")
    jobs = [(fr, not any(f.runtime_candidate for f in fr.findings)) for fr in sel.tested if fr in runnable]
    jobs += [(fr, True) for fr in sel.importers]
    gpus = choose_gpus(limits.gpus, interp, len(jobs), echo)
    if len(gpus) >= 2:
        echo(
            f"bench-op: spreading {len(jobs)} benchmark files over GPUs {', '.join(gpus)} "
            "(pytest-xdist, one file per GPU at a time)"
        )
    ctx_loop = LoopContext(
        root=repo.root,
        interp=interp,
        static=ctx,
        is_bench=ctx.paths.bench,
        timeout=limits.timeout,
        max_iterations=limits.max_iterations,
        pytest_args=cfg.pytest_args,
        echo=echo,
        write=guard.write,
        read=guard.read,
        log_dir=os.path.join(repo.git_dir, "bench-op", "logs"),
        extra_env={"CUDA_VISIBLE_DEVICES": gpus[0]} if len(gpus) == 1 else {},
        env=Environment.of(repo.root, interp.path, changes),
        warm=warm,
    )
    outcomes = repair_all(jobs, ctx_loop, gpus)
    for o in outcomes:
        if len(gpus) == 1:
            o.gpus = {gpus[0]}
        o.uses = set(sel.uses.get(o.path, ()))
    for h in (fr for fr in sel.helpers if fr in runnable):
        users = sorted(p for p, hs in sel.uses.items() if h.path in hs)
        why = (
            f"checked through {', '.join(users)}"
            if users
            else "no benchmark file imports it; its static fix stands"
        )
        ho = static_outcome(h, guard.current.get(h.path, h.after or b""), why, helper=True)
        if users:
            ho.status = "passed"
        outcomes.append(ho)
    return outcomes, ctx_loop.session_seconds


# -- settle


def settle(
    outcomes: list[FileOutcome], guard: TreeGuard, git_dir: str, *, finalize: bool
) -> tuple[tuple[Component, ...], dict[str, bytes]]:
    """Files that stand or fall together: a blocked member blocks its component, which is put back as it
    was (the proposed rewrite saved as a patch); a good component's files stay. Returns the components and
    what was left in the tree."""
    comps = components(outcomes)
    written: dict[str, bytes] = {}
    for comp in comps:
        bad = [o for o in comp.members if o.bad]
        if bad:
            _put_back(comp, bad[0], guard, git_dir)
            continue
        for path in comp.paths:
            if path in guard.current:
                written[path] = guard.current[path]
            if finalize:
                guard.keep(path)
        for o in comp.members:
            if o.path in guard.current:
                o.content = guard.current[o.path]
    return comps, written


def _put_back(comp: Component, culprit: FileOutcome, guard: TreeGuard, git_dir: str) -> None:
    for o in comp.members:
        if o.bad:
            continue
        if o.helper:
            why = f"put back as it was: {culprit.path}, which imports it, is blocked"
        else:
            related = set(o.uses) | set(o.written) | set(culprit.uses) | set(culprit.written)
            shared = sorted((comp.paths - {o.path}) & related)
            why = (
                f"put back as it was: it shares {', '.join(shared) or 'a helper'} with {culprit.path}, "
                "which is blocked"
            )
        o.status, o.reason = "blocked", why
    patches = []
    for path in sorted(comp.paths):
        current, original = guard.read(path), guard.originals.get(path)
        if current is not None and original is not None and current != original:
            patches.append(save_patch(git_dir, path, original, current))
        guard.restore(path)
    joined = patches[0] if len(patches) == 1 else (", ".join(patches) if patches else None)
    for o in comp.members:
        o.patch = o.patch or joined


def _finish(run: RunOutcome, cfg: Config) -> RunOutcome:
    """The run's status from its files'."""
    bad = [o for o in run.outcomes if o.bad]
    if bad or run.blocked_static:
        reason = "; ".join(f"{o.path}: {o.reason}" for o in bad) or "a call needs a hand edit"
        return replace(run, status="blocked", exit_code=EXIT_BLOCKED, reason=reason)
    not_run = [o for o in run.outcomes if o.status == "not-run" and not o.helper]
    if cfg.require_run and not_run:
        return replace(
            run,
            status="blocked",
            exit_code=EXIT_BLOCKED,
            reason="; ".join(f"{o.path}: not run: {o.reason}" for o in not_run)
            + " (require-run = true wants numbers)",
        )
    if not_run and not any(o.status == "passed" and not o.helper for o in run.outcomes):
        return replace(
            run, status="fixed-not-run", reason="; ".join(f"{o.path}: {o.reason}" for o in not_run)
        )
    return run
