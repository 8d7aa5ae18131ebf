"""Traceback triage: what one pytest run says about a benchmark file.

A failure is about the interface when its traceback ends in a benchmark file at a call that builds (or
calls) a changed Op: a binding TypeError, or an import of a name that moved. Anything else blocks the file,
with the exception, its message and where it was raised.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from benchop_hook.run.measurements import Number, for_case, from_pytest_benchmark
from benchop_hook.run.notrun import Environment
from benchop_hook.run.runner import Failure, RunResult

BIND = re.compile(
    r"(?:(?P<qual>[\w.<>]+)\(\) )?(?:got an unexpected keyword argument '(?P<kw>\w+)'"
    r"|missing \d+ required (?:positional|keyword-only) arguments?: (?P<missing>.+)"
    r"|takes (?:from \d+ to )?\d+ positional arguments? but \d+ (?:were|was) given"
    r"|got multiple values for argument '(?P<multi>\w+)'"
    r"|got some positional-only arguments passed as keyword arguments?)"
)
_IMPORT = re.compile(
    r"cannot import name '(?P<name>\w+)'|No module named '(?P<module>[\w.]+)'|has no attribute "
    r"'(?P<attr>\w+)'"
)
_NO_GPU = re.compile(
    r"Torch not compiled with CUDA enabled|No CUDA GPUs are available|Found no NVIDIA driver|"
    r"CUDA driver initialization failed|no CUDA-capable device is detected|0 active drivers|"
    r"CUDA is not available|cuda unavailable|requires? (?:a )?(?:CUDA|GPU)|no GPU",
    re.IGNORECASE,
)


_CONFTEST = re.compile(r"while loading conftest '([^']+)'")

VerdictKind = Literal[
    "passed",
    "no-numbers",
    "no-gpu",
    "not-run",
    "self-skipped",
    "interface",
    "failed",
    "timeout",
    "crash",
    "no-tests",
]


@dataclass(frozen=True)
class Verdict:
    kind: VerdictKind
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


def raised_at(root: str, f: Failure) -> str:
    """Where a failure was raised: the innermost frame, relative to the repository."""
    if not f.frames:
        return ""
    fr = f.frames[-1]
    return f"{_rel(root, str(fr['path']))}:{fr['line']}"


def no_gpu(f: Failure | None, skip_reason: str | None = None) -> bool:
    text = (f.message if f else "") + " " + (skip_reason or "")
    return bool(_NO_GPU.search(text)) or (
        skip_reason is not None and bool(re.search(r"\b(cuda|gpu)\b", skip_reason, re.I))
    )


def _not_run(f: Failure, root: str, is_bench: Callable[[str], bool], env: Environment | None) -> str | None:
    """A missing module outside the repository (or the repository's own package not installed): the reason
    the file could not run here, at the benchmark's own import line."""
    if env is None or f.type not in ("ImportError", "ModuleNotFoundError", "CollectionError"):
        return None
    why = env.missing_module(f.message)
    if why is None:
        return None
    at = bench_frame(f, root, is_bench)
    return why.replace("': ", f"' (at {at[0]}:{at[1]}): ", 1) if at else why


def _collection_verdict(
    res: RunResult, root: str, is_bench: Callable[[str], bool], env: Environment | None
) -> Verdict:
    """A file that failed to collect: not run here, an interface error, no GPU, or the failure itself."""
    for nodeid, f in res.errors:
        why = _not_run(f, root, is_bench, env)
        if why:
            return Verdict("not-run", why, f, nodeid)
    for nodeid, f in res.errors:
        if interface_failure(f, root, is_bench):
            return Verdict("interface", f.headline(), f, nodeid)
    nodeid, f = res.errors[0]
    if no_gpu(f):
        return Verdict("no-gpu", f.headline(), f, nodeid)
    where = raised_at(root, f)
    first = _first_error_line(f.message) if f.type == "CollectionError" else f.headline()
    at = bench_frame(f, root, is_bench)
    own = f" at {at[0]}:{at[1]}" if at and f"{at[0]}:{at[1]}" != where else ""
    return Verdict(
        "failed",
        f"{first}{own}"
        + (f" (raised at {where})" if where else "")
        + f" while collecting {nodeid or 'the file'}",
        f,
        nodeid,
    )


def verdict(
    res: RunResult, root: str, is_bench: Callable[[str], bool], env: Environment | None = None
) -> Verdict:
    if res.timed_out:
        running = f" (it was running {res.last_started})" if res.last_started else ""
        return Verdict(
            "timeout", f"timed out after {res.seconds:.0f} s{running}; its whole process group was killed"
        )
    sig = res.crashed_signal
    if sig:
        running = f" in {res.last_started}" if res.last_started else ""
        return Verdict("crash", f"the benchmark process was killed by {sig}{running}")
    if res.errors:
        return _collection_verdict(res, root, is_bench, env)
    failed = [t for t in res.tests if t.outcome == "failed"]
    for t in failed:
        why = _not_run(t.failure, root, is_bench, env) if t.failure else None
        if why:
            return Verdict("not-run", why, t.failure, t.nodeid)
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
    skipped_gpu = sum(
        1
        for t in res.tests
        if (t.outcome == "skipped" and no_gpu(None, t.skip_reason))
        or (t.outcome == "failed" and no_gpu(t.failure))
    )
    if hard:
        t = hard[0]
        f = t.failure or Failure("Error", "failed")
        where = raised_at(root, f)
        return Verdict(
            "failed",
            f"{f.headline()}"
            + (f" (raised at {where}" if where else " (")
            + f" in {t.nodeid.split('::', 1)[-1]})",
            f,
            t.nodeid,
        )
    passed = [t for t in res.tests if t.outcome == "passed"]
    if not passed:
        if skipped_gpu:
            return Verdict("no-gpu", "no CUDA device is visible", skipped_no_gpu=skipped_gpu)
        if res.tests and all(t.outcome == "skipped" and t.when == "setup" for t in res.tests):
            # Skipped before any case ran (a skip marker, or a fixture that skips): the benchmark's own
            # decision, made at the parent as at this commit. It did not break; it just did not run here.
            why = (res.tests[0].skip_reason or "").strip() or "no reason given"
            return Verdict("self-skipped", f"every case is skipped by the benchmark itself ({why})")
        if res.tests:
            return Verdict(
                "no-tests",
                "every case was skipped: " + ((res.tests[0].skip_reason or "").strip() or "no reason given"),
            )
        why = env.missing_module("\n".join(res.tail)) if env is not None and res.returncode != 0 else None
        if why:  # a conftest that imports a module this interpreter lacks: no session at all
            conftest = next((m.group(1) for m in map(_CONFTEST.search, res.tail) if m), None)
            if conftest:
                why = why.replace("': ", f"' (in {_rel(root, conftest)}): ", 1)
            return Verdict("not-run", why)
        tail = next((line for line in reversed(res.tail) if line.strip()), "")
        return Verdict(
            "no-tests", f"pytest ran no test (exit {res.returncode}){': ' + tail[:200] if tail else ''}"
        )
    if not numbers:
        return Verdict(
            "no-numbers",
            "it passed but printed no latency, TFLOPS or bandwidth: record them with "
            "record_property(...) or print e.g. 'latency 0.12 ms'",
        )
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
    if f.type == "TypeError" and BIND.search(text):
        # Python raises a binding error in the caller's frame: the innermost frame is the benchmark's call.
        if f.frames:
            last = _rel(root, str(f.frames[-1]["path"]))
            return is_bench(last)
        return False
    if f.type in (
        "ImportError",
        "ModuleNotFoundError",
        "AttributeError",
        "CollectionError",
    ) and _IMPORT.search(text):
        return f.type != "CollectionError" or ("ImportError" in text or "ModuleNotFoundError" in text)
    return False


def bench_frame(f: Failure, root: str, is_bench: Callable[[str], bool]) -> tuple[str, int] | None:
    for fr in reversed(f.frames):
        rel = _rel(root, str(fr["path"]))
        if is_bench(rel):
            return rel, int(str(fr["line"]))
    return None


# A value an Op refuses: the types Python and torch raise for a wrong shape, type or value. A RuntimeError
# counts only where it speaks of sizes (torch's `expand`, `view`, broadcasting); a CUDA fault never does.
_REFUSED_TYPES = ("TypeError", "ValueError", "AssertionError", "IndexError")
_SIZES = re.compile(r"\b(shape|size|sizes|dimension|dimensions|dim|numel|broadcast)\b", re.IGNORECASE)
_DEVICE_FAULT = re.compile(r"CUDA error|illegal memory|device-side assert|out of memory", re.IGNORECASE)


def refused_value(f: Failure) -> bool:
    """The failure is a shape, type or value error: what a wrong value given to an Op raises."""
    if _DEVICE_FAULT.search(f.message):
        return False
    if f.type.rsplit(".", 1)[-1] in _REFUSED_TYPES:
        return True
    return f.type.rsplit(".", 1)[-1] == "RuntimeError" and bool(_SIZES.search(f.message))


def frame_line(f: Failure, root: str, path: str, function: str) -> int | None:
    """The line the innermost frame of `function` in `path` was at when the failure was raised (at that
    line, or in a call below it): None when the traceback does not pass through that function."""
    for fr in reversed(f.frames):
        if _rel(root, str(fr.get("path"))) == path and fr.get("name") == function:
            return int(str(fr.get("line")))
    return None
