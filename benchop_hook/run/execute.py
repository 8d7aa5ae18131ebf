"""The run below the command line, in named steps: select -> write -> run -> settle.

- `select` (`selection.py`): which statically fixed files run, which are blocked for a hand edit, which
  helper modules (files without tests) are checked through the benchmark files that import them;
- `write`: put the fixes on disk, through the tree guard (the follow-up commit may adapt each file first);
- `run`: the benchmarks in the project's interpreter, repaired from their tracebacks (`repair.py`);
- `settle`: files that stand or fall together are kept together or put back together, with a patch.

Only benchmark files are written, and only through the caller's `tree_guard`. The static pass's result
comes in from the caller; nothing here reads the command line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from benchop_hook.config import Config
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK
from benchop_hook.fixing.results import FileResult, StaticResult
from benchop_hook.fixing.static import restrict
from benchop_hook.report.run import outcome_lines
from benchop_hook.report.text import render_check, unified_diff
from benchop_hook.run.gpus import choose_gpus
from benchop_hook.run.interpreter import first_time
from benchop_hook.run.job import Job
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
from benchop_hook.run.selection import Selection, select
from benchop_hook.run.shards import Share, describe, take_share
from benchop_hook.run.tree_guard import TreeGuard, save_patch

if TYPE_CHECKING:  # the repair loop (libcst) is imported when a run starts: the early pytest starts first
    from benchop_hook.fixing.context import StaticContext


def echo(line: str) -> None:
    print(line, flush=True)


@dataclass(frozen=True)
class LeftAlone:
    """What a `prepare` step answers for a file bench-op must not write, and why."""

    reason: str


Prepare = Callable[[FileResult], "bytes | LeftAlone"]
Excluded = tuple[tuple[FileResult, str], ...]  # files left alone, and why
Static = tuple[StaticResult, "StaticContext"]  # what the static pass found, and what it learned


def execute(
    job: Job,
    static: Static,
    guard: TreeGuard,
    *,
    prepare: Prepare | None = None,
    finalize: bool = True,
    warm: Warm | None = None,
) -> RunOutcome:
    """The whole run below the command line, from the static pass's result. Writes benchmark files in the
    working tree only.

    `prepare(fr)` turns a statically fixed file into what goes on disk, or `LeftAlone` (the follow-up
    commit uses it to keep the user's unstaged edits). With `finalize=False` the caller decides what
    stays (the files of good components are not kept yet). `warm`: the benchmark interpreter, started by
    the caller as soon as it knew there was work (`runner.start_warm`); else it is started here.
    """
    if warm is None and not job.settings.no_run:
        warm = start_warm(job.repo.root, job.settings.python, job.cfg)
    try:
        return _execute(job, static, guard, warm, prepare, finalize)
    finally:
        if warm is not None:
            warm.close()  # nothing took it (nothing to run, blocked, an error, Ctrl-C): it goes now


def _execute(
    job: Job, static: Static, guard: TreeGuard, warm: Warm | None, prepare: Prepare | None, finalize: bool
) -> RunOutcome:
    result, ctx = static
    shard = job.settings.shard if job.target.mode != "all" else frozenset()
    share = _share(job, result, ctx, shard) if job.settings.split is not None else None
    if share is not None:
        shard = frozenset(share.files)
    sel = select(result, ctx, shard, affected=job.settings.affected) if share is None or shard else None
    if share is not None:  # this shard reports its own files, and the helpers they import
        mine = shard | {h.path for h in (sel.helpers if sel else ())}
        result = restrict(result, mine) if mine else replace(result, files=(), skipped=())
    wrote = bool(result.changes or result.findings)
    echo(render_check(result, wrote=True).rsplit("\n", 1)[0] if wrote else render_check(result))
    if share is not None:
        echo(describe(share))
    if sel is None:
        if result.changes and not result.broken and share is None:  # (a shard said what it took)
            echo("bench-op: no benchmark needs a change.")
        blocked = bool(result.broken)
        return RunOutcome(
            "blocked" if blocked else "nothing-to-do",
            EXIT_BLOCKED if blocked else EXIT_OK,
            result,
            share=share,
        )
    _say_blocked(sel, job.repo.git_dir)
    # a wrong --python is a usage error before anything is written
    interp = (
        None
        if job.settings.no_run
        else resolve_python(job.repo.root, job.settings.python, job.cfg.python, job.settings.python_from)
    )
    runnable, excluded = write(sel, guard, prepare)
    if interp is None:
        why = job.settings.no_run_why
        static_only = _static_only(result, sel, runnable, excluded, guard, finalize, why, job.repo.git_dir)
        return replace(static_only, share=share)
    outcomes, seconds = run(_Env(job, ctx, guard, interp, warm), sel, runnable)
    outcomes = hold_back(outcomes, guessed(runnable), guard, job.repo.git_dir)
    outcomes, comps, written = settle(outcomes, guard, job.repo.git_dir, finalize=finalize)
    for o in outcomes:
        for line in outcome_lines(o):
            echo(line)
    done = RunOutcome(
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
        share=share,
    )
    return finish(done, job.cfg)


def _share(job: Job, result: StaticResult, ctx: StaticContext, shard: frozenset[str]) -> Share:
    """This runner's share of the files the run is about (those with tests: a helper goes with the files
    that import it), split by their last recorded durations."""
    from benchop_hook.records.durations import recorded_seconds

    assert job.settings.split is not None
    everything = select(result, ctx, shard, affected=job.settings.affected)
    every = (*everything.tested, *everything.hand, *everything.importers) if everything else ()
    files = sorted({fr.path for fr in every})
    # Durations recorded before the change: what the shards record as they finish (on HEAD, or the range's
    # end) must not change the split for a shard that starts later.
    rev = job.target.from_rev or ("HEAD" if job.target.mode == "staged" else "HEAD~1")
    return take_share(files, recorded_seconds(job.repo.root, rev, files), *job.settings.split)


def _say_blocked(sel: Selection, git_dir: str) -> None:
    """Each file blocked for a hand edit, once; the calls it could fix are not dropped: they wait in a
    patch."""
    for fr in sel.hand:
        f = fr.hand_edit()
        saved = ""
        if fr.changed:
            patch = save_patch(git_dir, fr.path, fr.before or b"", fr.after or b"")
            saved = f"; the other fixes are saved as {patch}"
        echo(
            f"bench-op: {fr.path}: blocked: {f.site.path}:{f.site.lineno} {f.why_not or f.problem}; "
            f"nothing was written to it{saved}"
        )


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
    why: str,
    git_dir: str,
) -> RunOutcome:
    """No run (`why`: --no-run, or the stage or setting that leaves it to later): the static rewrite is the
    result, but for a fix that rests on induction, which is a proposal (`hold_back`)."""
    outcomes: list[FileOutcome] = []
    written: dict[str, bytes] = {}
    guesses = guessed(runnable)
    for fr in runnable:
        if fr.path in guesses and fr.path in guard.current:
            outcomes.extend(
                hold_back([static_outcome(fr, guard.current[fr.path], why)], guesses, guard, git_dir)
            )
            continue
        if finalize:
            guard.keep(fr.path)
        if fr.path in guard.current:
            written[fr.path] = guard.current[fr.path]
            outcomes.append(static_outcome(fr, guard.current[fr.path], why))
    pending = sum(1 for fr in runnable for f in fr.findings if f.runtime_candidate)
    note = f"; {pending} call(s) can only be checked by a run" if pending else ""
    n = len(written)
    echo(f"bench-op: static rewrite only ({why}): {n} benchmark file{'s' if n != 1 else ''} rewritten{note}.")
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


def guessed(files: Sequence[FileResult]) -> frozenset[str]:
    """The files with a fix that rests on induction (`Finding.guessed`)."""
    return frozenset(fr.path for fr in files if any(f.fixed and f.guessed for f in fr.findings))


def hold_back(
    outcomes: Sequence[FileOutcome], guesses: frozenset[str], guard: TreeGuard, git_dir: str
) -> list[FileOutcome]:
    """A file whose fix rests on induction and that did not run here is put back as it was, its fix saved as a
    patch: a proposal. A guess lands in the tree or a commit only once a run gave numbers with it."""
    out = []
    for o in outcomes:
        if o.status != "not-run" or o.helper or o.path not in guesses:
            out.append(o)
            continue
        current, original = guard.read(o.path), guard.originals.get(o.path)
        patch = (
            save_patch(git_dir, o.path, original, current)
            if current is not None and original is not None and current != original
            else None
        )
        guard.restore(o.path)
        take = f"; `git apply {patch}` takes it as it is" if patch else ""
        reason = (
            f"a proposal: its fix rests on what the commit's tests show, not on proof, and lands once a run "
            f"gives numbers with it ({o.reason}){take}"
        )
        out.append(replace(o, content=None, fixes=(), patch=patch, proposed=current, reason=reason))
    return out


def static_outcome(fr: FileResult, content: bytes, reason: str, *, helper: bool = False) -> FileOutcome:
    return FileOutcome(
        fr.path, status="not-run", reason=reason, fixes=tuple(fr.fix_lines()), content=content, helper=helper
    )


# -- run


@dataclass(frozen=True)
class _Env:
    """Where and how the benchmarks run."""

    job: Job
    ctx: StaticContext
    guard: TreeGuard
    interp: Interpreter
    warm: Warm | None


def run(env: _Env, sel: Selection, runnable: list[FileResult]) -> tuple[list[FileOutcome], list[float]]:
    """Run and repair the benchmark files; the helpers' outcomes follow from their importers'. Returns every
    outcome and the wall time of each pytest session."""
    try:
        if any(uses_benchmark_fixture(env.guard.read(fr.path)) for fr in runnable):
            env = replace(env, interp=probe(env.interp))  # is pytest-benchmark there, for its JSON?
        return _run(env, sel, runnable)
    except CannotRun as exc:  # no pytest there: nothing runs, every static fix stands
        if first_time(exc.message):  # (each stage of a run meets it: said once, with the fix)
            echo(f"bench-op: not running the benchmarks: {exc.message}")
        current = env.guard.current
        return [
            static_outcome(
                fr, current.get(fr.path, fr.after or fr.before or b""), exc.reason, helper=fr in sel.helpers
            )
            for fr in runnable
        ], []


def _run(env: _Env, sel: Selection, runnable: list[FileResult]) -> tuple[list[FileOutcome], list[float]]:
    from benchop_hook.run.repair import LoopContext, repair_all

    job, interp = env.job, env.interp
    echo(f"bench-op: running benchmarks with {interp.path} (from {interp.source})")
    jobs = [(fr, not any(f.runtime_candidate for f in fr.findings)) for fr in sel.tested if fr in runnable]
    jobs += [(fr, True) for fr in sel.importers]
    gpus = choose_gpus(job.settings.gpus, interp, len(jobs), echo)
    if len(gpus) >= 2:
        echo(
            f"bench-op: spreading {len(jobs)} benchmark files over GPUs {', '.join(gpus)} "
            "(pytest-xdist, one file per GPU at a time)"
        )
    ctx_loop = LoopContext(
        root=job.repo.root,
        interp=interp,
        static=env.ctx,
        is_bench=env.ctx.paths.bench,
        timeout=job.settings.timeout,
        max_iterations=job.settings.max_iterations,
        pytest_args=job.cfg.pytest_args,
        echo=echo,
        write=env.guard.write,
        read=env.guard.read,
        log_dir=os.path.join(job.repo.git_dir, "bench-op", "logs"),
        extra_env={**dict(job.settings.env), **({"CUDA_VISIBLE_DEVICES": gpus[0]} if len(gpus) == 1 else {})},
        env=Environment.of(job.repo.root, interp.path, list(job.changes)),
        warm=env.warm,
        line_length=job.cfg.line_length,
    )
    outcomes = [
        replace(
            o, gpus=frozenset({gpus[0]}) if len(gpus) == 1 else o.gpus, uses=sel.uses.get(o.path, frozenset())
        )
        for o in repair_all(jobs, ctx_loop, gpus)
    ]
    for h in (fr for fr in sel.helpers if fr in runnable):
        users = sorted(p for p, hs in sel.uses.items() if h.path in hs)
        why = (
            f"checked through {', '.join(users)}"
            if users
            else "no benchmark file imports it; its static fix stands"
        )
        ho = static_outcome(h, env.guard.current.get(h.path, h.after or b""), why, helper=True)
        outcomes.append(replace(ho, status="passed") if users else ho)
    return outcomes, ctx_loop.session_seconds


# -- settle


def settle(
    outcomes: list[FileOutcome], guard: TreeGuard, git_dir: str, *, finalize: bool
) -> tuple[list[FileOutcome], tuple[Component, ...], dict[str, bytes]]:
    """Files that stand or fall together: a blocked member blocks its component, which is put back as it
    was (the proposed rewrite saved as a patch); a good component's files stay. Returns the outcomes as
    they then stand, their components, and what was left in the tree."""
    settled: dict[int, FileOutcome] = {}
    written: dict[str, bytes] = {}
    for comp in components(outcomes):
        bad = [o for o in comp.members if o.bad]
        if bad:
            settled.update(_put_back(comp, bad[0], guard, git_dir))
            continue
        for path in comp.paths:
            if path in guard.current:
                written[path] = guard.current[path]
            if finalize:
                guard.keep(path)
        for o in comp.members:
            if o.path in guard.current:
                settled[id(o)] = replace(o, content=guard.current[o.path])
    out = [settled.get(id(o), o) for o in outcomes]
    return out, components(out), written


def _put_back(
    comp: Component, culprit: FileOutcome, guard: TreeGuard, git_dir: str
) -> dict[int, FileOutcome]:
    """The component's files as they were, the proposed rewrite saved as a patch; its good members are
    blocked with the reason (by the id of the outcome they replace)."""
    why: dict[int, str] = {}
    for o in comp.members:
        if o.bad:
            continue
        if o.helper:
            why[id(o)] = f"put back as it was: {culprit.path}, which imports it, is blocked"
        else:
            related = set(o.uses) | set(o.written) | set(culprit.uses) | set(culprit.written)
            shared = sorted((comp.paths - {o.path}) & related)
            why[id(o)] = (
                f"put back as it was: it shares {', '.join(shared) or 'a helper'} with {culprit.path}, "
                "which is blocked"
            )
    patches = []
    proposed: dict[str, bytes] = {}
    for path in sorted(comp.paths):
        current, original = guard.read(path), guard.originals.get(path)
        if current is not None and original is not None and current != original:
            patches.append(save_patch(git_dir, path, original, current))
            proposed[path] = current
        guard.restore(path)
    joined = patches[0] if len(patches) == 1 else (", ".join(patches) if patches else None)
    out = {}
    for o in comp.members:
        new = replace(o, status="blocked", reason=why[id(o)]) if id(o) in why else o
        out[id(o)] = replace(new, patch=new.patch or joined, proposed=proposed.get(o.path))
    return out


def finish(run: RunOutcome, cfg: Config) -> RunOutcome:
    """The run's status from its files'."""
    bad = [o for o in run.outcomes if o.bad]
    if bad or run.blocked_static:
        reason = "; ".join(f"{o.path}: {o.reason}" for o in bad) or "a call needs a hand edit"
        return replace(run, status="blocked", exit_code=EXIT_BLOCKED, reason=reason)
    not_run = [o for o in run.outcomes if o.status == "not-run" and not o.helper]
    if cfg.require_run and not_run:
        reason = (
            "; ".join(f"{o.path}: not run: {o.reason}" for o in not_run)
            + " (require-run = true wants numbers)"
        )
        return replace(run, status="blocked", exit_code=EXIT_BLOCKED, reason=reason)
    if not_run and not any(o.status == "passed" and not o.helper for o in run.outcomes):
        return replace(
            run, status="fixed-not-run", reason="; ".join(f"{o.path}: {o.reason}" for o in not_run)
        )
    return run
