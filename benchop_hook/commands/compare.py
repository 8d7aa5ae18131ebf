"""The numbers' two steps after the benchmark runs (issue 14), called from the run command's seams:

`before_commit`: with --baseline (or `baseline = true`), compare the new numbers with the parent's,
from its git note when one from the same device model covers every case, else by running the same
benchmark functions at the parent in a temporary worktree (both sides repeated to know the noise).
It runs before the follow-up commit, whose numbers table gains a "vs parent" column.

`after_run`: record the numbers in git notes on the commit they measured, and apply
`fail-on-regression`.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from typing import Any

from benchop_hook import gitrepo, notes
from benchop_hook.baseline import Comparison, Key, compare, terminal_lines
from benchop_hook.config import Config
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK, UsageError


def _echo(line: str) -> None:
    print(line, flush=True)


def wanted(args: argparse.Namespace, cfg: Config) -> bool:
    return bool(getattr(args, "baseline", False)) or cfg.baseline


def repeats(args: argparse.Namespace, cfg: Config) -> int:
    n = getattr(args, "repeats", None)
    if n is None:
        return cfg.baseline_repeats
    if n < 1:
        raise UsageError("--repeats must be at least 1.")
    return int(n)


def _passed(run: Any) -> list[Any]:
    return [o for o in run.outcomes if o.status == "passed" and o.numbers and not getattr(o, "helper", False)]


def new_samples(outcomes: list[Any]) -> dict[Key, list[tuple[float, str]]]:
    out: dict[Key, list[tuple[float, str]]] = {}
    for o in outcomes:
        for n in o.numbers:
            out.setdefault((f"{o.path}::{n.case}", n.name), []).append((n.value, n.unit))
    return out


def parent_of(target: Any, root: str) -> str | None:
    """What the change is measured against: the start of the range, else HEAD (the staged change's parent)."""
    if target.mode == "range" and target.from_rev:
        return str(target.from_rev)
    proc = gitrepo.git(root, "rev-parse", "-q", "--verify", "HEAD^{commit}", check=False)
    return proc.stdout.decode().strip() or None


def _gpu_env(outcomes: list[Any], interp: Any) -> tuple[dict[str, str], tuple[str, ...]]:
    """The GPU selection the new side ran with, for the repeats and the parent."""
    gpus = sorted({g for o in outcomes for g in o.gpus if g})
    if len(gpus) >= 2 and interp.has_xdist:
        return {"BENCHOP_GPUS": ",".join(gpus)}, ("-n", str(len(gpus)), "--dist", "loadfile")
    if gpus:
        return {"CUDA_VISIBLE_DEVICES": gpus[0]}, ()
    return {}, ()


def before_commit(args: argparse.Namespace, repo: Any, cfg: Config, target: Any, run: Any) -> None:
    """Attach `run.comparison` (and print the old / new / change table) when a baseline is wanted."""
    if not wanted(args, cfg) or getattr(args, "no_run", False):
        return
    passed = _passed(run)
    if not passed:
        return
    n_repeats = repeats(args, cfg)
    parent = parent_of(target, repo.root)
    if parent is None:
        _echo("bench-op: no baseline: there is no parent commit to compare with.")
        return
    from benchop_hook.worktree import (
        describe_interpreter,
        device_model,
        node_exists,
        read_at,
        top_level_names,
    )

    device = device_model(passed[0].device)
    new = new_samples(passed)
    files = {k[0].split("::", 1)[0] for k in new}
    names = {p: top_level_names(read_at(repo.root, parent, p)) for p in files}
    needed = {k for k in new if node_exists(k[0], names[k[0].split("::", 1)[0]])}
    recorded = notes.latest(notes.read_note(repo.root, parent), device)
    if needed and all(k[0] in recorded for k in needed):
        old: dict[Key, list[tuple[float, str]]] = {}
        for nodeid in {k[0] for k in new}:
            for m in recorded.get(nodeid, []):
                old.setdefault((nodeid, m.name), []).append((m.value, m.unit))
        deltas = compare(new, old, threshold=cfg.regression_threshold, repeated=False)
        run.comparison = Comparison(parent, "notes", device, cfg.regression_threshold, 1, deltas)
    else:
        run.comparison = _run_both(args, repo, cfg, run, parent, passed, new, device, n_repeats)
    if run.comparison is None:
        return
    for line in terminal_lines(run.comparison):
        _echo(line)
    if run.comparison.source == "run":
        # The parent's numbers are a clean measurement of that commit: keep them for the next time.
        torch, python = describe_interpreter(_interp(args, cfg, repo.root))
        _record(repo.root, parent, device, torch, python,
                {(d.nodeid, d.name): (d.old, d.unit) for d in run.comparison.deltas if d.old is not None})


def _interp(args: argparse.Namespace, cfg: Config, root: str) -> Any:
    from benchop_hook.runner import resolve_python

    return resolve_python(root, getattr(args, "python", None), cfg.python)


def _run_both(args: argparse.Namespace, repo: Any, cfg: Config, run: Any, parent: str, passed: list[Any],
              new: dict[Key, list[tuple[float, str]]], device: str, n: int) -> Comparison | None:
    """The parent in a temporary worktree and the new version in the tree, alternately, `n` times each
    (the new side's first run is the one that already happened)."""
    from benchop_hook.runner import probe, run_pytest
    from benchop_hook.worktree import samples_of, targets_at, temporary_worktree

    timeout = float(getattr(args, "timeout", None) or cfg.timeout)  # validated by the run before
    interp = probe(_interp(args, cfg, repo.root))
    targets = [t for o in passed for t in (o.targets or [o.path])]
    at_parent = targets_at(repo.root, parent, targets)
    env, extra = _gpu_env(passed, interp)
    log_dir = os.path.join(repo.git_dir, "bench-op", "logs")
    budget = timeout * max(1, len({t.split("::", 1)[0] for t in targets}))
    old: dict[Key, list[tuple[float, str]]] = {}
    new = {k: list(v) for k, v in new.items()}
    failure: str | None = None

    foreign: list[str] = []

    def session(root: str, tgts: list[str], side: str, i: int) -> dict[Key, tuple[float, str]]:
        nonlocal failure
        t0 = time.monotonic()
        side_env = dict(env)
        imported = os.path.join(repo.git_dir, "bench-op", f"foreign.{os.getpid()}.json")
        if root != repo.root:
            # The plugin keeps an editable install from importing the user's tree, and says if it still did.
            side_env.update(BENCHOP_USER_ROOT=os.path.realpath(repo.root), BENCHOP_WORKTREE=os.path.realpath(root),
                            BENCHOP_FOREIGN_OUT=imported)
        try:
            res = run_pytest(interp, root, tgts, timeout=budget, pytest_args=(*cfg.pytest_args, *extra),
                             echo=lambda s: None, log_dir=os.path.join(log_dir, side), extra_env=side_env,
                             use_benchmark_json=interp.has_pytest_benchmark)
        finally:
            if os.path.exists(imported):
                with open(imported, encoding="utf-8") as f:
                    foreign.extend(json.load(f))
                os.unlink(imported)
        got = samples_of(res)
        _echo(f"bench-op: {side} run {i} of {n}: {len(got)} numbers, {time.monotonic() - t0:.1f} s")
        if not got and failure is None:
            bad = next((t for t in res.tests if t.outcome == "failed"), None)
            why = (bad.failure.headline() if bad and bad.failure else "timed out" if res.timed_out
                   else f"pytest exit {res.returncode}")
            failure = f"{why} (log: {res.log_path})"
        return got

    if not at_parent:
        _echo(f"bench-op: no baseline: none of the benchmark functions that ran exist at the parent {parent[:12]}.")
        deltas = compare(new, {}, threshold=cfg.regression_threshold, repeated=False)
        return Comparison(parent, "run", device, cfg.regression_threshold, 0, deltas)
    _echo(f"bench-op: baseline: running {' '.join(at_parent)} at the parent {parent[:12]} in a temporary worktree "
          f"({n} run{'s' if n != 1 else ''} each side, {interp.path})")
    with temporary_worktree(repo.root, repo.git_dir, parent) as wt:
        for i in range(1, n + 1):
            for k, v in session(wt, at_parent, "parent", i).items():
                old.setdefault(k, []).append(v)
            if foreign:
                rel = os.path.relpath(foreign[0], repo.root)
                _echo(f"bench-op: no baseline: the run at the parent imported {rel} from your working tree (an editable "
                      "install?), so it measured the new code; put the package's source on pytest's pythonpath "
                      "([tool.pytest.ini_options] pythonpath) or install it non-editable, then run again.")
                return None
            if i > 1:
                for k, v in session(repo.root, targets, "new", i).items():
                    if k in new:
                        new[k].append(v)
    if not old:
        _echo(f"bench-op: no baseline: the benchmarks produced no numbers at the parent {parent[:12]}: {failure}")
        return None
    # only the cases of the functions that ran on the new side count as "gone"
    deltas = compare(new, old, threshold=cfg.regression_threshold, repeated=n > 1)
    return Comparison(parent, "run", device, cfg.regression_threshold, n, deltas)


def _record(root: str, commit: str, device: str, torch: str | None, python: str,
            values: dict[Key, tuple[float, str]]) -> int:
    import datetime

    measures = tuple(notes.Measure(k[0], k[1], v[0], v[1]) for k, v in values.items())
    if not measures:
        return 0
    when = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    notes.write_note(root, commit, notes.Run(device, torch, python, measures, when))
    return len(measures)


_DOCS = (".md", ".rst", ".txt")  # a changed text file changes no number


def dirty_paths(root: str, exempt: set[str]) -> list[str]:
    """Tracked files that differ from HEAD (staged or not), other than `exempt` and documentation."""
    out = gitrepo.git(root, "status", "--porcelain=v1", "-z", "--untracked-files=no").stdout
    paths = []
    parts = out.split(b"\0")
    i = 0
    while i < len(parts):
        rec = parts[i]
        i += 1
        if len(rec) < 4:
            continue
        if rec[:1] in (b"R", b"C"):
            i += 1  # the rename's source follows
        p = rec[3:].decode("utf-8", "surrogateescape")
        if p not in exempt and not p.endswith(_DOCS):
            paths.append(p)
    return paths


def _other_benchmark(root: str, cfg: Config, path: str) -> bool:
    """A benchmark module with tests of its own: when it did not run, its edits change no number that did."""
    from benchop_hook.files import read_bytes
    from benchop_hook.globs import matches
    from benchop_hook.worktree import top_level_names

    if not matches(path, cfg.benchmark_paths):
        return False
    names = top_level_names(read_bytes(os.path.join(root, path)))
    return names is not None and any(n.startswith(("test", "Test")) for n in names)


def after_run(args: argparse.Namespace, repo: Any, cfg: Config, target: Any, run: Any,
              echo: Callable[[str], None] = _echo) -> None:
    """Record the numbers on the commit measured, and `fail-on-regression`."""
    passed = _passed(run)
    if passed and not getattr(args, "no_run", False):
        commit = getattr(run, "commit", None)
        ran = {o.path for o in run.outcomes}
        dirty = [p for p in dirty_paths(repo.root, set(run.written) if commit is None else set())
                 if p in ran or not _other_benchmark(repo.root, cfg, p)]
        if dirty:
            # The numbers measured the working tree, which is no commit: recording them on HEAD would be wrong.
            shown = ", ".join(dirty[:3]) + (f" and {len(dirty) - 3} more" if len(dirty) > 3 else "")
            echo(f"bench-op: numbers not recorded in git notes: they measured uncommitted changes ({shown}); "
                 "commit them and run `bench-op run --from-ref HEAD~1 --to-ref HEAD` to record them.")
        else:
            commit = commit or gitrepo.git(repo.root, "rev-parse", "HEAD").stdout.decode().strip()
            from benchop_hook.worktree import describe_interpreter, device_model

            comparison = getattr(run, "comparison", None)
            values: dict[Key, tuple[float, str]] = {}
            for (nodeid, name), samples in new_samples(passed).items():
                d = comparison.get(nodeid, name) if comparison is not None else None
                values[(nodeid, name)] = (d.new, d.unit) if d is not None and d.new is not None else samples[0]
            torch, python = describe_interpreter(_interp(args, cfg, repo.root))
            n = _record(repo.root, commit, device_model(passed[0].device), torch, python, values)
            echo(f"bench-op: recorded {n} numbers for {commit[:12]} in git notes ({notes.REF}).")
    comparison = getattr(run, "comparison", None)
    if comparison is not None and comparison.regressions and cfg.fail_on_regression and run.exit_code == EXIT_OK:
        run.exit_code = EXIT_BLOCKED
        echo("bench-op: exit 1: fail-on-regression = true and the change regressed against the parent "
             "(the benchmarks' fix is committed all the same).")
