"""The numbers' two steps after the benchmark runs, called from the follow-up stage:

`before_commit`: with --baseline (or `baseline = true`), compare the new numbers with the parent's,
from its git note when one from the same device model covers every case, else by running the same
benchmark functions at the parent in a temporary worktree (both sides repeated to know the noise).
It runs before the follow-up commit, whose numbers table gains a "vs parent" column; it answers the
run with its `comparison`.

`after_run`: record the numbers in git notes on the commit they measured, and apply
`fail-on-regression` (a new RunOutcome: results are frozen).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from benchop_hook.config import Config
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK
from benchop_hook.git import repo as gitrepo
from benchop_hook.git.repo import RepoPaths
from benchop_hook.git.target import Target
from benchop_hook.program import command
from benchop_hook.records import notes
from benchop_hook.records.baseline import Comparison, Key, compare, terminal_lines
from benchop_hook.run.job import Job
from benchop_hook.run.outcome import FileOutcome, RunOutcome
from benchop_hook.run.runner import Interpreter


def _echo(line: str) -> None:
    print(line, flush=True)


def _passed(run: RunOutcome) -> list[FileOutcome]:
    return [o for o in run.outcomes if o.status == "passed" and o.numbers and not o.helper]


def new_samples(outcomes: Sequence[FileOutcome]) -> dict[Key, list[tuple[float, str]]]:
    out: dict[Key, list[tuple[float, str]]] = {}
    for o in outcomes:
        for n in o.numbers:
            out.setdefault((f"{o.path}::{n.case}", n.name), []).append((n.value, n.unit))
    return out


def parent_of(target: Target, root: str) -> str | None:
    """What the change is measured against: the start of the range, else HEAD (the staged change's parent)."""
    if target.mode == "range" and target.from_rev:
        return str(target.from_rev)
    return gitrepo.verify(root, "HEAD^{commit}")


def _gpu_env(outcomes: list[FileOutcome], interp: Interpreter) -> tuple[dict[str, str], tuple[str, ...]]:
    """The GPU selection the new side ran with, for the repeats and the parent."""
    gpus = sorted({g for o in outcomes for g in o.gpus if g})
    if len(gpus) >= 2 and interp.has_xdist:
        return {"BENCHOP_GPUS": ",".join(gpus)}, ("-n", str(len(gpus)), "--dist", "loadfile")
    if gpus:
        return {"CUDA_VISIBLE_DEVICES": gpus[0]}, ()
    return {}, ()


def before_commit(job: Job, run: RunOutcome) -> RunOutcome:
    """The run with its `comparison` (and the old / new / change table printed) when a baseline is wanted."""
    if not job.baseline or job.settings.no_run:
        return run
    passed = _passed(run)
    if not passed:
        return run
    n_repeats = job.settings.repeats
    parent = parent_of(job.target, job.repo.root)
    if parent is None:
        _echo("bench-op: no baseline: there is no parent commit to compare with.")
        return run
    comparison = _comparison(job, parent, passed, n_repeats)
    return run if comparison is None else replace(run, comparison=comparison)


def _comparison(job: Job, parent: str, passed: list[FileOutcome], n_repeats: int) -> Comparison | None:
    """From the parent's note when it covers every case on this device model, else by running there."""
    repo, cfg = job.repo, job.cfg
    from benchop_hook.records.parent_run import (
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
        comparison: Comparison | None = Comparison(
            parent, "notes", device, cfg.regression_threshold, 1, deltas
        )
    else:
        comparison = _run_both(job, parent, passed, new, device, n_repeats)
    if comparison is None:
        return None
    for line in terminal_lines(comparison):
        _echo(line)
    if comparison.source == "run":
        # The parent's numbers are a clean measurement of that commit: keep them for the next time.
        torch, python = describe_interpreter(_interp(job))
        _record(
            repo.root,
            parent,
            device,
            torch,
            python,
            {(d.nodeid, d.name): (d.old, d.unit) for d in comparison.deltas if d.old is not None},
        )
    return comparison


def _interp(job: Job) -> Interpreter:
    from benchop_hook.run.runner import resolve_python

    return resolve_python(job.repo.root, job.settings.python, job.cfg.python, job.settings.python_from)


def _run_both(
    job: Job,
    parent: str,
    passed: list[FileOutcome],
    new: dict[Key, list[tuple[float, str]]],
    device: str,
    n: int,
) -> Comparison | None:
    """The parent in a temporary worktree and the new version in the tree, alternately, `n` times each
    (the new side's first run is the one that already happened)."""
    from benchop_hook.records.parent_run import targets_at, temporary_worktree
    from benchop_hook.run.runner import probe

    repo, cfg = job.repo, job.cfg
    timeout = job.settings.timeout
    interp = probe(_interp(job))
    targets = [t for o in passed for t in (o.targets or [o.path])]
    at_parent = targets_at(repo.root, parent, targets)
    threshold = cfg.regression_threshold
    if not at_parent:
        _echo(
            f"bench-op: no baseline: none of the benchmark functions that ran exist at the parent "
            f"{parent[:12]}."
        )
        return Comparison(
            parent, "run", device, threshold, 0, compare(new, {}, threshold=threshold, repeated=False)
        )
    env, extra = _gpu_env(passed, interp)
    budget = timeout * max(1, len({t.split("::", 1)[0] for t in targets}))
    sessions = _Sessions(repo, interp, (*cfg.pytest_args, *extra), env, budget, n)
    old: dict[Key, list[tuple[float, str]]] = {}
    new = {k: list(v) for k, v in new.items()}
    _echo(
        f"bench-op: baseline: running {' '.join(at_parent)} at the parent {parent[:12]} in a temporary "
        f"worktree ({n} run{'s' if n != 1 else ''} each side, {interp.path})"
    )
    with temporary_worktree(repo.root, repo.git_dir, parent) as wt:
        for i in range(1, n + 1):
            for k, v in sessions.run(wt, at_parent, "parent", i).items():
                old.setdefault(k, []).append(v)
            if sessions.foreign:
                rel = os.path.relpath(sessions.foreign[0], repo.root)
                _echo(
                    f"bench-op: no baseline: the run at the parent imported {rel} from your working tree "
                    "(an editable install?), so it measured the new code; put the package's source on "
                    "pytest's pythonpath ([tool.pytest.ini_options] pythonpath) or install it "
                    "non-editable, then run again."
                )
                return None
            if i > 1:
                for k, v in sessions.run(repo.root, targets, "new", i).items():
                    if k in new:
                        new[k].append(v)
    if not old:
        _echo(
            f"bench-op: no baseline: the benchmarks produced no numbers at the parent {parent[:12]}: "
            f"{sessions.failure}"
        )
        return None
    # only the cases of the functions that ran on the new side count as "gone"
    deltas = compare(new, old, threshold=threshold, repeated=n > 1)
    return Comparison(parent, "run", device, threshold, n, deltas)


@dataclass
class _Sessions:
    """The pytest sessions of one comparison, either side: the first failure and any module imported from
    the user's tree by a run at the parent are kept for the message."""

    repo: RepoPaths
    interp: Interpreter
    pytest_args: tuple[str, ...]
    env: dict[str, str]
    budget: float
    n: int
    failure: str | None = None
    foreign: list[str] = field(default_factory=list)

    def run(self, root: str, tgts: list[str], side: str, i: int) -> dict[Key, tuple[float, str]]:
        from benchop_hook.records.parent_run import samples_of
        from benchop_hook.run.runner import run_pytest

        t0 = time.monotonic()
        side_env = dict(self.env)
        imported = os.path.join(self.repo.git_dir, "bench-op", f"foreign.{os.getpid()}.json")
        if root != self.repo.root:
            # The plugin keeps an editable install from importing the user's tree, and says if it still did.
            side_env.update(
                BENCHOP_USER_ROOT=os.path.realpath(self.repo.root),
                BENCHOP_WORKTREE=os.path.realpath(root),
                BENCHOP_FOREIGN_OUT=imported,
            )
        try:
            log_dir = os.path.join(self.repo.git_dir, "bench-op", "logs", side)
            res = run_pytest(
                self.interp,
                root,
                tgts,
                timeout=self.budget,
                pytest_args=self.pytest_args,
                echo=lambda s: None,
                log_dir=log_dir,
                extra_env=side_env,
                use_benchmark_json=self.interp.has_pytest_benchmark,
            )
        finally:
            if os.path.exists(imported):
                with open(imported, encoding="utf-8") as f:
                    self.foreign.extend(json.load(f))
                os.unlink(imported)
        got = samples_of(res)
        _echo(f"bench-op: {side} run {i} of {self.n}: {len(got)} numbers, {time.monotonic() - t0:.1f} s")
        if not got and self.failure is None:
            bad = next((t for t in res.tests if t.outcome == "failed"), None)
            why = (
                bad.failure.headline()
                if bad and bad.failure
                else "timed out"
                if res.timed_out
                else f"pytest exit {res.returncode}"
            )
            self.failure = f"{why} (log: {res.log_path})"
        return got


def _record(
    root: str,
    commit: str,
    device: str,
    torch: str | None,
    python: str,
    values: dict[Key, tuple[float, str]],
    seconds: tuple[tuple[str, float], ...] = (),
) -> int:
    import datetime

    measures = tuple(notes.Measure(k[0], k[1], v[0], v[1]) for k, v in values.items())
    if not measures:
        return 0
    when = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    notes.write_note(root, commit, notes.Run(device, torch, python, measures, when, seconds))
    return len(measures)


_DOCS = (".md", ".rst", ".txt")  # a changed text file changes no number


def dirty_paths(root: str, exempt: set[str]) -> list[str]:
    """Tracked files that differ from HEAD (staged or not), other than `exempt` and documentation."""
    return [p for p in gitrepo.tracked_changes(root) if p not in exempt and not p.endswith(_DOCS)]


def _other_benchmark(root: str, cfg: Config, path: str) -> bool:
    """A benchmark module with tests of its own: when it did not run, its edits change no number that did."""
    from benchop_hook.globs import matches
    from benchop_hook.records.parent_run import top_level_names
    from benchop_hook.run.tree_guard import read_bytes

    if not matches(path, cfg.benchmark_paths):
        return False
    names = top_level_names(read_bytes(os.path.join(root, path)))
    return names is not None and any(n.startswith(("test", "Test")) for n in names)


def after_run(job: Job, run: RunOutcome, echo: Callable[[str], None] = _echo) -> RunOutcome:
    """Record the numbers on the commit measured, and `fail-on-regression`."""
    cfg = job.cfg
    passed = _passed(run)
    if passed and not job.settings.no_run:
        _record_run(job, run, passed, echo)
    regressed = run.comparison is not None and bool(run.comparison.regressions)
    if regressed and cfg.fail_on_regression and run.exit_code == EXIT_OK:
        echo(
            "bench-op: exit 1: fail-on-regression = true and the change regressed against the parent "
            "(the benchmarks' fix is committed all the same)."
        )
        return replace(run, exit_code=EXIT_BLOCKED)
    return run


def _record_run(job: Job, run: RunOutcome, passed: list[FileOutcome], echo: Callable[[str], None]) -> None:
    """The numbers in git notes on the commit they measured: the follow-up commit, else a clean HEAD."""
    repo, cfg = job.repo, job.cfg
    commit = run.commit
    ran = {o.path for o in run.outcomes}
    dirty = [
        p
        for p in dirty_paths(repo.root, set(run.written) if commit is None else set())
        if p in ran or not _other_benchmark(repo.root, cfg, p)
    ]
    if dirty:
        # The numbers measured the working tree, which is no commit: recording them on HEAD would be wrong.
        shown = ", ".join(dirty[:3]) + (f" and {len(dirty) - 3} more" if len(dirty) > 3 else "")
        echo(
            f"bench-op: numbers not recorded in git notes: they measured uncommitted changes ({shown}); "
            f"commit them and run `{command('run --from-ref HEAD~1 --to-ref HEAD')}` to record them."
        )
        return
    commit = commit or gitrepo.head(repo.root)
    from benchop_hook.records.parent_run import describe_interpreter, device_model

    comparison = run.comparison
    values: dict[Key, tuple[float, str]] = {}
    for (nodeid, name), samples in new_samples(passed).items():
        d = comparison.get(nodeid, name) if comparison is not None else None
        values[(nodeid, name)] = (d.new, d.unit) if d is not None and d.new is not None else samples[0]
    runtime = next((o.runtime for o in passed if o.runtime), None)
    if runtime is not None:  # the session said what it ran with: no interpreter to start for it
        torch, python = runtime[0] or None, f"{_interp(job).path} (Python {runtime[1]})"
    else:
        torch, python = describe_interpreter(_interp(job))
    seconds = tuple((o.path, round(o.busy, 3)) for o in passed if o.busy > 0)
    n = _record(repo.root, commit, device_model(passed[0].device), torch, python, values, seconds)
    echo(f"bench-op: recorded {n} numbers for {commit[:12]} in git notes ({notes.REF}).")
