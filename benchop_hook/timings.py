"""Per-stage times, behind an environment variable: `BENCHOP_TIMINGS=1 bench-op check --all-files`.

The stages are wrapped from outside (nothing in the pipeline knows about timers), so the
modules stay as they are and the wrapping costs nothing unless the variable is set. Each
stage counts its outermost calls only (a recursive or re-entered stage is not counted
twice); stages nest, so their times overlap: parsing happens inside the analysis, the
analysis inside `all-files mode`. Printed to stderr when the process ends.
"""

from __future__ import annotations

import atexit
import functools
import importlib
import importlib.abc
import importlib.machinery
import inspect
import os
import sys
import time
from collections.abc import Callable
from typing import Any

ENV = "BENCHOP_TIMINGS"

# (module, attribute or Class.method, label), in pipeline order.
STAGES: tuple[tuple[str, str, str], ...] = (
    ("benchop_hook.commands.common", "quick", "repository, config, what changed (git)"),
    ("benchop_hook.fixing.static", "static_pass", "static pass, all of it"),
    ("benchop_hook.git.snapshots", "list_tracked", "  list of tracked files (git)"),
    ("benchop_hook.git.snapshots", "WorkTree.read", "  read files from the working tree"),
    ("benchop_hook.git.snapshots", "GitSnapshot.read", "  read blobs from git"),
    ("benchop_hook.analysis.modules", "parse_source", "  parse (ast) and read classes/imports"),
    ("benchop_hook.fixing.detect", "_Detector.interface_changed", "  interface files: constructors changed?"),
    ("benchop_hook.fixing.detect", "_Detector.rename_votes", "  rename votes from the other changed files"),
    ("benchop_hook.analysis.changes", "detect", "  detect Op changes"),
    ("benchop_hook.analysis.callsites", "ModuleAnalyzer.__init__", "  call sites: scopes of a module"),
    ("benchop_hook.analysis.callsites", "ModuleAnalyzer.calls", "  call sites: resolve calls"),
    ("benchop_hook.analysis.evidence", "TestEvidence.rename_hints", "  evidence from tests: rename hints"),
    ("benchop_hook.analysis.evidence", "TestEvidence.value_for", "  evidence from tests: values"),
    ("benchop_hook.fixing.commit_range", "judge_files", "  judge and plan calls of changed Ops"),
    ("benchop_hook.fixing.all_files", "all_files_pass", "  all-files mode"),
    (
        "benchop_hook.fixing.all_files",
        "_FromHistory.fix",
        "    all-files: fix from the benchmark's last commit",
    ),
    (
        "benchop_hook.git.last_commit",
        "LastCommits.base_for",
        "    all-files: last commit of a benchmark (git)",
    ),
    ("benchop_hook.rewrite.edit", "rewrite", "  rewrite (libcst)"),
    ("benchop_hook.rewrite.units", "_expression", "    a call or dict parsed alone"),
    ("benchop_hook.rewrite.units", "_import_statement", "    an import statement parsed alone"),
    ("benchop_hook.rewrite.edit", "_rewrite_module", "    the whole module parsed (what a unit can't hold)"),
    ("benchop_hook.rewrite.edit", "_whole_module_for_imports", "    of which: a file with an import edit"),
    ("benchop_hook.report.text", "render_check", "report"),
    # the run: what sits between the static pass and the numbers, and after them
    ("benchop_hook.run.runner", "start_warm", "start the benchmark interpreter early"),
    ("benchop_hook.run.execute", "write", "write the fixes"),
    ("benchop_hook.run.execute", "_run", "the run: import the repair loop, run, outcomes"),
    ("benchop_hook.run.runner", "probe", "probe the benchmark interpreter (a process)"),
    ("benchop_hook.run.gpus", "visible_gpus", "which GPUs are visible"),
    ("benchop_hook.run.repair", "repair_all", "run and repair the benchmark files"),
    ("benchop_hook.run.runner", "run_pytest", "  pytest sessions"),
    ("benchop_hook.records.notes", "write_note", "record the numbers in git notes"),
    ("benchop_hook.report.out", "write_json", "write a JSON report"),
)

# Modules whose import is itself a stage (its time, and when it happened).
IMPORTS: dict[str, str] = {
    "benchop_hook.run.repair": "import the repair loop",
    "benchop_hook.rewrite.edit": "  import the rewriter (libcst)",
}

_totals: dict[str, list[float]] = {}  # label -> [seconds, calls, CPU seconds of this process]
_span: dict[str, list[float]] = {}  # label -> [first start, last end], seconds since install
_active: set[str] = set()
_wrappers: set[Callable[..., Any]] = set()  # the timed wrappers, so that one is never wrapped twice
_start = time.perf_counter()
_epoch = time.time()
_exec_offset: float | None = None


def _add(label: str, secs: float, calls: int, cpu: float = 0.0) -> None:
    slot = _totals.setdefault(label, [0.0, 0, 0.0])
    slot[0] += secs
    slot[1] += calls
    slot[2] += cpu
    end = time.perf_counter() - _start
    span = _span.setdefault(label, [end - secs, end])
    span[1] = end


def handover() -> dict[str, tuple[list[float], list[float]]]:
    """The stages recorded since the last handover, cleared here: what a forked child that works for this
    process (the rewriter) sends back with its answers. The child clears what it inherited first."""
    out = {label: (_totals[label], _span[label]) for label in _totals}
    _totals.clear()
    _span.clear()
    return out


def take(records: dict[str, tuple[list[float], list[float]]]) -> None:
    """A child's `handover()`, counted as if its stages ran here (its clock is this process's: the
    monotonic clock is the system's)."""
    for label, (totals, span) in records.items():
        slot = _totals.setdefault(label, [0.0, 0, 0.0])
        for i in range(3):
            slot[i] += totals[i]
        mine = _span.setdefault(label, list(span))
        mine[0], mine[1] = min(mine[0], span[0]), max(mine[1], span[1])


def _since_exec() -> float | None:
    """Seconds from this process's exec to now (Linux), to place `install` on the process's own clock."""
    try:
        with open("/proc/self/stat", "rb") as f:
            started = int(f.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        return uptime - started / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _wrap(fn: Callable[..., Any], label: str) -> Callable[..., Any]:
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def timed_gen(*args: Any, **kwargs: Any) -> Any:
            # Only the time spent producing items: the consumer's work between them is not this stage's.
            it = fn(*args, **kwargs)
            calls = 1
            while True:
                t0, c0 = time.perf_counter(), time.process_time()
                try:
                    item = next(it)
                except StopIteration:
                    _add(label, time.perf_counter() - t0, calls, time.process_time() - c0)
                    return
                _add(label, time.perf_counter() - t0, calls, time.process_time() - c0)
                calls = 0
                yield item

        _wrappers.add(timed_gen)
        return timed_gen

    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        if label in _active:
            return fn(*args, **kwargs)
        _active.add(label)
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            _active.discard(label)
            _add(label, time.perf_counter() - t0, 1, time.process_time() - c0)

    _wrappers.add(timed)
    return timed


def _wrap_module(mod: Any) -> None:
    """Wrap the stages that live in `mod`."""
    for modname, attr, label in STAGES:
        if modname != mod.__name__:
            continue
        owner: Any = mod
        name = attr
        if "." in attr:
            cls, name = attr.split(".")
            owner = getattr(mod, cls)
        orig = getattr(owner, name)
        if orig in _wrappers:
            continue
        new = _wrap(orig, label)
        setattr(owner, name, new)
        if owner is mod:
            # `from module import name` copies taken before now.
            for other in list(sys.modules.values()):
                if (
                    getattr(other, "__name__", "").startswith("benchop_hook.")
                    and getattr(other, name, None) is orig
                ):
                    setattr(other, name, new)


class _WrapOnImport(importlib.abc.MetaPathFinder):
    """Wraps a stage's module when the program imports it, not before: importing every stage at install
    (libcst among them) would move imports and change what is measured."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname not in self.names:
            return None
        self.names.discard(fullname)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module: Any) -> None:
            t0, c0 = time.perf_counter(), time.process_time()
            run(module)
            if fullname in IMPORTS:
                _add(IMPORTS[fullname], time.perf_counter() - t0, 1, time.process_time() - c0)
            _wrap_module(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]  # this one loader, for this one module
        return spec


def install() -> None:
    """Wrap every stage, now for the modules already imported, else when the program imports them; report
    at exit."""
    global _start, _epoch, _exec_offset
    _start, _epoch = time.perf_counter(), time.time()
    _exec_offset = _since_exec()
    later = set()
    for modname in dict.fromkeys([*(m for m, _, _ in STAGES), *IMPORTS]):
        if modname in sys.modules:
            _wrap_module(sys.modules[modname])
        else:
            later.add(modname)
    sys.meta_path.insert(0, _WrapOnImport(later))
    atexit.register(report)


def report() -> None:
    total = time.perf_counter() - _start
    exec_note = f"; install {_exec_offset:.3f} s after exec" if _exec_offset is not None else ""
    print(
        f"bench-op timings (seconds; nested stages overlap; {total:.3f} s from install to exit{exec_note}; "
        f"[first start, last end] since install; wall clock at install {_epoch:.3f}; cpu: the CPU time in "
        f"the stage of the process that ran it, {time.process_time():.3f} s in all here; a forked child's "
        "stages are not counted, but for the rewriter's):",
        file=sys.stderr,
    )
    for label in [*(label for _, _, label in STAGES), *IMPORTS.values()]:
        if label in _totals:
            secs, calls, cpu = _totals[label]
            lo, hi = _span[label]
            print(
                f"  {label:<52} {secs:8.3f}  cpu {cpu:6.3f}  ({int(calls)} calls)  [{lo:.3f}, {hi:.3f}]",
                file=sys.stderr,
            )
