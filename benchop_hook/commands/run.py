"""`bench-op run`: static rewrite, then run the affected benchmarks and repair them until they
print numbers (or block with the reason), then report (and, at HEAD, commit: see hook.py)."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field

from benchop_hook.commands.common import quick
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK


@dataclass
class RunOutcome:
    """What a run did, for the report and for the follow-up commit."""

    status: str  # nothing-to-do, done, blocked
    result: object | None = None  # pipeline.StaticResult
    outcomes: list = field(default_factory=list)  # repair.FileOutcome
    blocked_static: list = field(default_factory=list)  # FileResult with calls needing a hand edit
    written: dict[str, bytes] = field(default_factory=dict)  # path -> content bench-op left in the tree
    reason: str | None = None
    exit_code: int = EXIT_OK
    comparison: object | None = None  # issue 14: baseline.Comparison against the parent (commands/compare.py)


def echo(line: str) -> None:
    print(line, flush=True)


def options(args: argparse.Namespace, cfg) -> tuple[float, int]:  # noqa: ANN001
    if getattr(args, "gpus", None):
        from benchop_hook.config import parse_gpus

        parse_gpus(args.gpus, where="--gpus")
    timeout = args.timeout if getattr(args, "timeout", None) else cfg.timeout
    max_it = args.max_iterations if getattr(args, "max_iterations", None) else cfg.max_iterations
    if timeout is not None and timeout <= 0:
        from benchop_hook.errors import UsageError

        raise UsageError("--timeout must be a positive number of seconds.")
    if max_it is not None and max_it < 1:
        from benchop_hook.errors import UsageError

        raise UsageError("--max-iterations must be at least 1.")
    return float(timeout), int(max_it)


def execute(args: argparse.Namespace, repo, cfg, target, changes, *, bench_from: str = "worktree",  # noqa: ANN001
            prepare=None, finalize: bool = True) -> RunOutcome:  # noqa: ANN001
    """The whole pipeline below the command line. Writes benchmark files in the working tree only.

    `prepare(fr)` turns a statically fixed file into what goes on disk, or a reason to leave it alone
    (the follow-up commit uses it to keep the user's unstaged edits). With `finalize=False` the
    caller decides what stays (the guard is on the result).
    """
    from benchop_hook.commands.common import static
    from benchop_hook.files import TreeGuard, save_patch
    from benchop_hook.pipeline import FileResult, Paths
    from benchop_hook.repair import LoopContext, repair_all
    from benchop_hook.report import outcome_lines, render_check, unified_diff
    from benchop_hook.runner import probe, resolve_python, uses_benchmark_fixture

    timeout, max_it = options(args, cfg)
    result = static(repo, cfg, target, changes, bench_from=bench_from, only=getattr(args, "only", None))
    paths = Paths(cfg)
    echo(render_check(result, wrote=True).rsplit("\n", 1)[0] if (result.changes or result.findings) else render_check(result))
    run = RunOutcome("nothing-to-do", result)
    affected = [fr for fr in result.files if fr.findings and not fr.error and any(
        f.fixed or f.needs_action for f in fr.findings)]
    shard = {os.path.normpath(f) for f in (getattr(args, "files", None) or [])} if target.mode != "all" else set()
    if shard:
        # a shard: only these files, and the helpers without tests they may import
        affected = [fr for fr in affected if fr.path in shard or not has_tests(fr.after or fr.before)]
    if not affected:
        run.exit_code = EXIT_BLOCKED if result.broken else EXIT_OK
        run.status = "blocked" if result.broken else "nothing-to-do"
        if result.changes and not result.broken:
            echo("bench-op: no benchmark needs a change.")
        return run
    hand = [fr for fr in affected if any(f.needs_action and not f.runtime_candidate for f in fr.findings)]
    runnable = [fr for fr in affected if fr not in hand]
    run.blocked_static = hand
    for fr in hand:
        f = next(f for f in fr.findings if f.needs_action and not f.runtime_candidate)
        echo(f"bench-op: {fr.path}: blocked: {f.site.path}:{f.site.lineno} {f.why_not or f.problem}; nothing was written to it")
    # A module without tests (a helper under benchmarks/) is checked by the benchmark files that import it.
    tested = [fr for fr in runnable if has_tests(fr.after or fr.before)]
    helpers = [fr for fr in runnable if fr not in tested]
    uses: dict[str, set[str]] = {}  # benchmark file -> helpers it imports that bench-op changed
    extra_jobs: list = []
    for h in list(helpers):
        importers = find_importers(result.context, repo.root, h.path, paths.bench)  # type: ignore[attr-defined]
        if shard:
            importers = [p for p in importers if p in shard]
            if not importers:
                helpers.remove(h)  # another shard's business
                runnable.remove(h)
                continue
        for p in importers:
            uses.setdefault(p, set()).add(h.path)
            if p not in {fr.path for fr in tested} and p not in {fr.path for fr in extra_jobs}:
                extra_jobs.append(FileResult(p, before=result.context.src.bench.read(p)))  # type: ignore[attr-defined]
    guard = TreeGuard(repo.root, repo.git_dir, paths.bench)
    run.guard = guard  # type: ignore[attr-defined]
    run.excluded = []  # type: ignore[attr-defined]
    disk: dict[str, bytes] = {}
    for fr in list(runnable):
        content = fr.after if fr.changed else None
        if prepare is not None:
            prepared = prepare(fr)
            if isinstance(prepared, str):
                runnable.remove(fr)
                run.excluded.append((fr, prepared))  # type: ignore[attr-defined]
                echo(f"bench-op: {fr.path}: left alone: {prepared}")
                continue
            content = prepared
        if content is not None:
            disk[fr.path] = content
    for fr in runnable:
        if fr.changed:
            sys.stdout.write(unified_diff(fr.path, fr.before, fr.after))
    try:
        for fr in runnable:
            if fr.path in disk:
                guard.write(fr.path, disk[fr.path])
        if getattr(args, "no_run", False):
            for fr in runnable:
                if finalize:
                    guard.keep(fr.path)
                if fr.path in guard.current:
                    run.written[fr.path] = guard.current[fr.path]
                    o = _static_outcome(fr, guard.current[fr.path])
                    run.outcomes.append(o)
            run.components = components(run.outcomes, [])  # type: ignore[attr-defined]
            pending = sum(1 for fr in runnable for f in fr.findings if f.runtime_candidate)
            note = f"; {pending} call(s) can only be checked by a run" if pending else ""
            n = len(run.written)
            echo(f"bench-op: static rewrite only (--no-run): {n} benchmark file{'s' if n != 1 else ''} rewritten{note}.")
            run.status = "blocked" if hand else "done"
            run.exit_code = EXIT_BLOCKED if hand else EXIT_OK
            return run
        interp = resolve_python(repo.root, getattr(args, "python", None), cfg.python)
        if any(uses_benchmark_fixture(guard.read(fr.path)) for fr in runnable):
            interp = probe(interp)  # is pytest-benchmark there, for its JSON?
        echo(f"bench-op: running benchmarks with {interp.path} (from {interp.source})")
        ctx = LoopContext(
            root=repo.root, interp=interp, sp=result.context, is_bench=paths.bench, timeout=timeout,  # type: ignore[attr-defined]
            max_iterations=max_it, pytest_args=cfg.pytest_args, echo=echo, write=guard.write, read=guard.read,
            log_dir=os.path.join(repo.git_dir, "bench-op", "logs"),
        )
        tested = [fr for fr in tested if fr in runnable]
        helpers = [fr for fr in helpers if fr in runnable]
        jobs = [(fr, not any(f.runtime_candidate for f in fr.findings)) for fr in tested] + [(fr, True) for fr in extra_jobs]
        gpus = _gpus(args, cfg, interp, len(jobs))
        if len(gpus) >= 2:
            echo(f"bench-op: spreading {len(jobs)} benchmark files over GPUs {', '.join(gpus)} (pytest-xdist, one file per GPU at a time)")
        elif gpus:
            ctx.extra_env["CUDA_VISIBLE_DEVICES"] = gpus[0]
        outcomes = repair_all(jobs, ctx, gpus)
        run.run_seconds = sum(ctx.session_seconds)  # type: ignore[attr-defined]
        run.sessions = len(ctx.session_seconds)  # type: ignore[attr-defined]
        if len(gpus) == 1:
            for o in outcomes:
                o.gpus = {gpus[0]}
        for o in outcomes:
            o.uses = uses.get(o.path, set())  # type: ignore[attr-defined]
        helper_outcomes = []
        for h in helpers:
            users = sorted(p for p, hs in uses.items() if h.path in hs)
            ho = _static_outcome(h, guard.current.get(h.path, h.after or b""),
                                 f"checked through {', '.join(users)}" if users else "no benchmark file imports it; its static fix stands")
            ho.helper = True  # type: ignore[attr-defined]
            if users:
                ho.status = "passed"
            helper_outcomes.append(ho)
        run.components = components(outcomes, helper_outcomes)  # type: ignore[attr-defined]
        for comp_paths, members in run.components:  # type: ignore[attr-defined]
            bad = [o for o in members if o.status in ("blocked", "failed")]
            for o in members:
                if bad and o.status not in ("blocked", "failed"):
                    if getattr(o, "helper", False):
                        why = f"put back as it was: {bad[0].path}, which imports it, is blocked"
                    else:
                        shared = sorted((comp_paths - {o.path}) & (set(o.uses) | set(o.written) | set(bad[0].uses) | set(bad[0].written)))
                        why = f"put back as it was: it shares {', '.join(shared) or 'a helper'} with {bad[0].path}, which is blocked"
                    o.status, o.reason = "blocked", why
            if bad:
                patches = []
                for path in sorted(comp_paths):
                    current, original = guard.read(path), guard.originals.get(path)
                    if current is not None and original is not None and current != original:
                        patches.append(save_patch(repo.git_dir, path, original, current))
                    guard.restore(path)
                for o in members:
                    o.patch = o.patch or (patches[0] if len(patches) == 1 else (", ".join(patches) if patches else None))
            else:
                for path in comp_paths:
                    if finalize:
                        guard.keep(path)
                    if path in guard.current:
                        run.written[path] = guard.current[path]
                for o in members:
                    if o.path in guard.current:
                        o.content = guard.current[o.path]
        for o in [*outcomes, *helper_outcomes]:
            for line in outcome_lines(o):
                echo(line)
            run.outcomes.append(o)
    except BaseException:
        guard.restore_all()
        raise
    bad = [o for o in run.outcomes if o.status in ("blocked", "failed")]
    no_gpu = [o for o in run.outcomes if o.status == "skipped"]
    run.status = "blocked" if bad or hand else "done"
    if bad or hand:
        run.reason = "; ".join(f"{o.path}: {o.reason}" for o in bad) or "a call needs a hand edit"
        run.exit_code = EXIT_BLOCKED
    elif no_gpu and cfg.require_gpu:
        run.status = "blocked"
        run.reason = "no CUDA device is visible and require-gpu = true"
        run.exit_code = EXIT_BLOCKED
    return run


def _gpus(args: argparse.Namespace, cfg, interp, n_files: int) -> list[str]:  # noqa: ANN001
    """The GPUs to spread the files over: empty or one means the files run one after another."""
    from benchop_hook.config import parse_gpus
    from benchop_hook.repair import visible_gpus

    selection = parse_gpus(args.gpus, where="--gpus") if getattr(args, "gpus", None) else cfg.gpus
    if selection in ("0", "1") or (n_files < 2 and "," not in selection):
        return []
    gpus = visible_gpus(selection)
    if "," not in selection and selection != "all" and len(gpus) < int(selection):
        echo(f"bench-op: {selection} GPUs asked for, {len(gpus)} visible: using {', '.join(gpus) or 'none'}")
    if len(gpus) >= 2 and n_files >= 2 and not interp.has_xdist:
        from benchop_hook.runner import probe

        interp = probe(interp)
    if len(gpus) >= 2 and n_files >= 2 and not interp.has_xdist:
        echo(f"bench-op: pytest-xdist is not installed in {interp.path}: the benchmark files run one after another on GPU {gpus[0]}")
        return gpus[:1]
    return gpus if n_files >= 2 else gpus[:1]


def has_tests(data: bytes | None) -> bool:
    """A pytest module: a top-level test function or Test class."""
    import ast

    try:
        tree = ast.parse(data or b"")
    except (SyntaxError, ValueError):
        return True  # let pytest say what is wrong with it
    return any((isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test"))
               or (isinstance(n, ast.ClassDef) and n.name.startswith("Test")) for n in tree.body)


def find_importers(sp, root: str, helper: str, is_bench) -> list[str]:  # noqa: ANN001
    """Benchmark files with tests that import `helper` (by its module name)."""
    from benchop_hook.modules import parse_source

    module = sp.new_p.module_name(helper)
    leaf = module.rsplit(".", 1)[-1].encode()
    out = []
    for path in sp.src.bench.paths():
        if path == helper or not is_bench(path):
            continue
        data = sp.src.bench.read(path)
        if data is None or leaf not in data or not has_tests(data):
            continue
        mi = parse_source(data, path, sp.new_p.module_name(path))
        for target in mi.imports.values():
            names = {target[1]} if target[0] == "module" else {target[1], f"{target[1]}.{target[2]}"}
            if module in names or any(n.startswith(module + ".") for n in names):
                out.append(path)
                break
    return sorted(out)


def components(outcomes: list, helper_outcomes: list) -> list[tuple[set[str], list]]:  # noqa: ANN001
    """Files that stand or fall together: a benchmark, the helpers it imports, the files its repairs wrote."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: str, b: str) -> None:
        parent[find(a)] = find(b)

    for o in [*outcomes, *helper_outcomes]:
        find(o.path)
        for p in (*getattr(o, "written", ()), *getattr(o, "uses", ())):
            union(o.path, p)
    groups: dict[str, tuple[set[str], list]] = {}
    for path in list(parent):
        groups.setdefault(find(path), (set(), []))[0].add(path)
    for o in [*outcomes, *helper_outcomes]:
        groups[find(o.path)][1].append(o)
    return list(groups.values())


def _static_outcome(fr, content: bytes, reason: str = "not run (--no-run)"):  # noqa: ANN001
    from benchop_hook.repair import FileOutcome

    o = FileOutcome(fr.path, status="skipped", reason=reason)
    from benchop_hook.repair import fix_lines

    o.fixes = fix_lines(fr)
    o.content = content
    return o


def summary_line(run: RunOutcome) -> str:
    done = [o for o in run.outcomes if o.status == "passed" and not getattr(o, "helper", False)]
    skipped = [o for o in run.outcomes if o.status == "skipped" and not getattr(o, "helper", False)]
    helpers = [o for o in run.outcomes if getattr(o, "helper", False) and o.status in ("passed", "skipped")]
    bad = [o for o in run.outcomes if o.status in ("blocked", "failed")] + list(run.blocked_static)
    parts = []
    if done:
        n = len(done)
        parts.append(f"{n} benchmark file{'s' if n != 1 else ''} repaired and producing numbers")
    if skipped:
        why = "not run (--no-run)" if all(o.reason and "--no-run" in o.reason for o in skipped) else "not run: no GPU"
        parts.append(f"{len(skipped)} fixed but {why}")
    if helpers:
        parts.append(f"{len(helpers)} helper module{'s' if len(helpers) != 1 else ''} fixed")
    excluded = getattr(run, "excluded", [])
    if excluded:
        parts.append(f"{len(excluded)} left alone")
    if bad:
        parts.append(f"{len(bad)} blocked")
    return f"bench-op: {run.status}: " + (", ".join(parts) if parts else "nothing to do") + "."


def run_json(run: RunOutcome, target) -> dict:  # noqa: ANN001
    from benchop_hook.report import static_json

    data: dict = {"status": run.status, "target": target.as_json()}
    if run.result is not None:
        s = static_json(run.result)  # type: ignore[arg-type]
        data["changes"] = s["changes"]
        data["findings"] = s["findings"]
    else:
        data["changes"], data["findings"] = [], []
    benches = [o.as_json() for o in run.outcomes]
    for fr in run.blocked_static:
        f = next(f for f in fr.findings if f.needs_action and not f.runtime_candidate)
        benches.append({"path": fr.path, "status": "failed", "iterations": 0, "numbers": [], "fixes": [],
                        "reason": f"{f.site.path}:{f.site.lineno}: {f.why_not or f.problem}"})
    data["benchmarks"] = benches
    if run.reason:
        data["reason"] = run.reason
    if "commit" in run.__dict__:
        data["commit"] = run.__dict__["commit"]
    if "run_seconds" in run.__dict__:
        data["benchmark_seconds"] = round(run.__dict__["run_seconds"], 3)
        data["pytest_sessions"] = run.__dict__["sessions"]
    if run.comparison is not None:  # issue 14: baseline and change per number, regressions on top
        from benchop_hook.baseline import decorate_json

        data = decorate_json(data, run.comparison)  # type: ignore[arg-type]
    return data


def main(args: argparse.Namespace) -> int:
    from benchop_hook.lock import repo_lock

    repo, cfg, target, changes = quick(args)
    if changes is None:
        if not args.quiet:
            print(f"bench-op: nothing to do: no Op file changed in {target.label}.")
        if args.json:
            from benchop_hook.report import write_json

            write_json(args.json, {"status": "nothing-to-do", "target": target.as_json(), "changes": [], "benchmarks": []})
        return EXIT_OK
    with repo_lock(repo.git_dir):
        from benchop_hook.commands import hook

        run = hook.run_and_maybe_commit(args, repo, cfg, target, changes)
    echo(summary_line(run))
    if args.json:
        from benchop_hook.report import write_json

        write_json(args.json, run_json(run, target))
    return run.exit_code
