"""One pytest subprocess over benchmark files, in the project's own interpreter.

The run gets its own process group, so a timeout or Ctrl-C kills the whole
tree. Output streams to the terminal as it comes (bounded), with the elapsed
time on each finished case. Results come back structured through a small
pytest plugin (`pytest_plugin/benchop_collect.py`), with JUnit XML as the
fallback.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from benchop_hook.config import Config
from benchop_hook.errors import BenchOpError
from benchop_hook.run.interpreter import Interpreter as Interpreter
from benchop_hook.run.interpreter import child_env as _child_env
from benchop_hook.run.interpreter import no_pytest
from benchop_hook.run.interpreter import probe as probe
from benchop_hook.run.interpreter import resolve_python as resolve_python

PLUGIN_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pytest_plugin")
_ECHO_LINES = 400  # lines of a run's output shown on the terminal; the full log is kept in a file
_LOG_LIMIT = 20 * 1024 * 1024
_FAILURE_LINES = 60  # of pytest's failure report, per run


_BENCH_FIXTURE = re.compile(rb"def\s+test\w*\s*\([^)]*\bbenchmark\b")


def uses_benchmark_fixture(data: bytes | None) -> bool:
    """A test function takes pytest-benchmark's `benchmark` fixture."""
    return data is not None and _BENCH_FIXTURE.search(data) is not None


@dataclass
class Failure:
    type: str
    message: str
    frames: list[dict[str, object]] = field(default_factory=list)  # {"path", "line", "name"}, outermost first

    def headline(self) -> str:
        first = (self.message.strip().splitlines() or [""])[0][:300]
        return f"{self.type}: {first}" if first else self.type


@dataclass
class TestRecord:
    nodeid: str
    outcome: str  # passed, failed, skipped
    duration: float = 0.0
    properties: list[tuple[str, str]] = field(default_factory=list)
    stdout: str = ""
    failure: Failure | None = None
    skip_reason: str | None = None
    gpu: str | None = None
    when: str | None = None  # the phase that decided a failure or skip: "setup" for a skip marker


@dataclass
class RunResult:
    targets: list[str]
    returncode: int | None
    seconds: float
    tests: list[TestRecord] = field(default_factory=list)
    errors: list[tuple[str, Failure]] = field(default_factory=list)  # collection errors
    timed_out: bool = False
    device: str | None = None
    runtime: tuple[str, str] | None = None  # (torch version or "", Python version), from the session itself
    tail: list[str] = field(default_factory=list)
    log_path: str | None = None
    last_started: str | None = None
    benchmark_json: str | None = None
    collected: int = 0
    selected: int = 0
    deselected: dict[str, int] = field(default_factory=dict)  # per file, in a one-case-per-function run

    @property
    def crashed_signal(self) -> str | None:
        if self.returncode is not None and self.returncode < 0:
            try:
                return signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return None


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process group, then SIGKILL to what is left of it."""
    for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        if _gone(proc, wait):
            return


def _gone(proc: subprocess.Popen[bytes], wait: float) -> bool:
    """Whether the whole group has ended within `wait` seconds."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return True
        time.sleep(0.05)
    return False


_PROGRESS = (" PASSED", " FAILED", " ERROR", " SKIPPED", " XFAIL", " XPASS")
_SECTION = re.compile(r"^=+ (?P<name>.+?) =+$")


def _section(line: str, current: str) -> str:
    """Which part of pytest's report a line belongs to: header, progress, failures, warnings, summary."""
    m = _SECTION.match(line)
    if m:
        name = m.group("name").lower()
        if "test session starts" in name:
            return "header"
        if name in ("failures", "errors"):
            return "failures"
        if "warnings summary" in name:
            return "warnings"
        if "short test summary" in name:
            return "short"
        return "summary"
    if current == "header" and (line.startswith("collected ") or line.startswith("collecting ")):
        return "progress"
    return current


def _show(line: str, section: str) -> bool:
    """What the terminal gets: progress, failures and the final tally; not pytest's header, warnings or our
    junit file."""
    if "generated xml file" in line:
        return False
    if section == "header":
        return False
    if section == "warnings":
        return False
    return bool(line.strip()) or section == "failures"


class _Output:
    """What a run prints: bounded on the terminal (and a failure report cut short), whole in the log file
    (up to a limit), its last lines kept for error messages, and the test that started last."""

    def __init__(
        self, echo: Callable[[str], None], log: IO[bytes] | None, log_path: str | None, start: float
    ) -> None:
        self.echo, self.log, self.start = echo, log, start
        self.where = log_path or "the run output"
        self.tail: deque[str] = deque(maxlen=200)
        self.last_started: str | None = None
        self.shown = 0
        self.written = 0
        self.section = "header"
        self.failure_lines = 0

    def feed(self, raw: bytes) -> None:
        if self.log is not None and self.written < _LOG_LIMIT:
            self.log.write(raw)
            self.written += len(raw)
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if len(line) > 2000:
            line = line[:2000] + " ...(line truncated)"
        self.tail.append(line)
        if "::" in line and not any(p in line for p in _PROGRESS):
            self.last_started = line.split(" ", 1)[0]
        prev, self.section = self.section, _section(line, self.section)
        if self.section == "failures":
            self.failure_lines = 0 if prev != "failures" else self.failure_lines + 1
            if self.failure_lines == _FAILURE_LINES:
                self.echo(f"    ... (the rest of the failure report is in {self.where})")
            if self.failure_lines >= _FAILURE_LINES:
                return
        if self.shown < _ECHO_LINES and _show(line, self.section):
            if any(p in line for p in _PROGRESS) and "::" in line:
                # a clock since the session started (interpreter, imports, collection included), not the
                # case's own duration: pytest's "N passed in X s" counts only the cases
                line = f"{line}  (at {time.monotonic() - self.start:.1f} s)"
            self.echo(line)
            self.shown += 1
            if self.shown == _ECHO_LINES:
                self.echo(f"... (more output hidden; the whole log is in {self.where})")


def _pump(proc: subprocess.Popen[bytes], out: _Output, *, deadline: float) -> bool:
    """Feed the run's output to `out` until it ends or the deadline passes, then kill its process group (a
    timeout or Ctrl-C kills the whole tree; a finished run's stray children, a hung helper or a server, go
    with it too). True when it timed out."""
    lines: queue.Queue[bytes | None] = queue.Queue(maxsize=10000)

    def reader() -> None:
        assert proc.stdout is not None
        for raw in iter(proc.stdout.readline, b""):
            lines.put(raw)
        lines.put(None)

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    exited_at: float | None = None
    timed_out = False
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            try:
                raw = lines.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                # pytest is gone but something it started still holds the pipe open.
                if proc.poll() is not None:
                    exited_at = exited_at or time.monotonic()
                    if time.monotonic() - exited_at > 2.0:
                        break
                continue
            if raw is None:
                break
            out.feed(raw)
    finally:
        kill_group(proc)
    t.join(timeout=5)
    return timed_out


def start_warm(root: str, python: str | None, cfg: Config) -> Warm | None:
    """The benchmark interpreter, started now: it imports pytest and torch while bench-op imports its static
    pass and runs it. Called as soon as a command knows there is work, before those imports."""
    try:
        interp = resolve_python(root, python, cfg.python)
    except BenchOpError:
        return None  # said once, later, where the run resolves it
    return Warm(interp, root, warm_modules(root, cfg))


def warm_modules(root: str, cfg: Config) -> tuple[str, ...]:
    """What the early process imports before the project's conftest: torch, unless a conftest next to the
    benchmarks may set the environment first (torch reads some of it when imported): then only pytest."""
    tops = {g.split("/", 1)[0] for g in cfg.benchmark_paths if "/" in g}
    dirs = {""} | {t for t in tops if "*" not in t}
    for d in sorted(dirs):
        try:
            with open(os.path.join(root, d, "conftest.py"), "rb") as f:
                data = f.read()
        except OSError:
            continue
        if b"environ" in data or b"putenv" in data:
            return ()
    return ("torch",)


class Warm:
    """A pytest process started early (`pytest_plugin/benchop_launch.py`): its interpreter start and the
    heavy imports overlap with the static pass; the first run hands it its argv and environment, after
    the benchmark files are written. Used at most once; `close()` ends it when nothing took it."""

    def __init__(self, interp: Interpreter, root: str, warm_modules: Sequence[str] = ("torch",)) -> None:
        self.path, self.root = interp.path, root
        env = _child_env({"PYTHONPATH": _pythonpath(), "BENCHOP_WARM": ",".join(warm_modules)})
        self.proc: subprocess.Popen[bytes] | None = None
        try:
            self.proc = subprocess.Popen(
                [interp.path, "-m", "benchop_launch"],
                cwd=root,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError:
            self.proc = None  # the run starts it cold and says what is wrong

    def take(
        self, interp: Interpreter, root: str, argv: Sequence[str], env: dict[str, str]
    ) -> subprocess.Popen[bytes] | None:
        """The process, now running pytest with `argv` in `env`; None when it cannot be used (then the
        caller starts one cold, and this one is ended)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        if interp.path != self.path or root != self.root or proc.poll() is not None or proc.stdin is None:
            _end(proc)
            return None
        try:
            proc.stdin.write(json.dumps({"argv": list(argv), "env": env}).encode() + b"\n")
            proc.stdin.close()
        except OSError:
            _end(proc)
            return None
        return proc

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            _end(proc)


def _end(proc: subprocess.Popen[bytes]) -> None:
    for f in (proc.stdin, proc.stdout):
        if f is not None:
            with contextlib.suppress(OSError):
                f.close()
    kill_group(proc)
    with contextlib.suppress(subprocess.TimeoutExpired):  # it has had SIGKILL: not worth waiting longer for
        proc.wait(timeout=5)


def _pythonpath() -> str:
    return os.pathsep.join(p for p in (PLUGIN_DIR, os.environ.get("PYTHONPATH", "")) if p)


def run_pytest(
    interp: Interpreter,
    root: str,
    targets: Sequence[str],
    *,
    timeout: float,
    pytest_args: Sequence[str] = (),
    echo: Callable[[str], None] = print,
    log_dir: str | None = None,
    extra_env: dict[str, str] | None = None,
    use_benchmark_json: bool = False,
    warm: Warm | None = None,
) -> RunResult:
    with tempfile.TemporaryDirectory(prefix="bench-op-") as tmp:
        result_json = os.path.join(tmp, "result.json")
        junit = os.path.join(tmp, "junit.xml")
        cmd = [
            interp.path,
            "-m",
            "pytest",
            *targets,
            "-v",
            "-p",
            "benchop_collect",
            "-p",
            "no:cacheprovider",
            f"--junitxml={junit}",
            "-o",
            "junit_family=xunit1",
            *pytest_args,
        ]
        bench_json = os.path.join(tmp, "benchmark.json")
        if use_benchmark_json and interp.has_pytest_benchmark:
            cmd.append(f"--benchmark-json={bench_json}")
        env = _child_env({"PYTHONPATH": _pythonpath(), "BENCHOP_RESULT": result_json, **(extra_env or {})})
        log_path = None
        log = None
        if log_dir:
            os.makedirs(log_dir, exist_ok=True)
            log_path = os.path.join(log_dir, "last-run.log")
            log = open(log_path, "wb")  # noqa: SIM115 - closed in finally
        start = time.monotonic()
        proc = warm.take(interp, root, cmd[3:], env) if warm is not None else None
        try:
            proc = proc or subprocess.Popen(
                cmd,
                cwd=root,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            if log:
                log.close()
            raise BenchOpError(f"cannot start {interp.path} ({exc.strerror}).") from None
        out = _Output(echo, log, log_path, start)
        try:
            timed_out = _pump(proc, out, deadline=start + timeout)
        finally:
            if log is not None:
                log.close()
        rc = proc.wait()
        seconds = time.monotonic() - start
        res = RunResult(
            list(targets),
            None if timed_out else rc,
            seconds,
            timed_out=timed_out,
            tail=list(out.tail),
            log_path=log_path,
            last_started=out.last_started,
        )
        if not _read_plugin(result_json, res):
            if rc != 0 and any("No module named pytest" in line for line in res.tail):
                raise no_pytest(interp)
            _read_junit(junit, res)
        if os.path.exists(bench_json):
            with open(bench_json, encoding="utf-8") as f:
                res.benchmark_json = f.read()
        return res


def _failure(d: dict[str, Any] | None) -> Failure | None:
    if not d:
        return None
    return Failure(str(d.get("type", "Error")), str(d.get("message", "")), list(d.get("frames", []) or []))


def _read_plugin(path: str, res: RunResult) -> bool:
    """The plugin's file; under xdist also each worker's, merged by node id (the controller sees outcomes,
    properties and output; only a worker sees a failure's frames and which GPU it had)."""
    folder = os.path.dirname(path)
    workers = sorted(
        os.path.join(folder, f)
        for f in os.listdir(folder)
        if f.startswith("result.json.gw") and not f.endswith(".tmp")
    )
    records: dict[str, dict] = {}
    found = False
    deselected: dict[str, int] = {}
    for p in [path, *workers]:
        if not os.path.exists(p):
            continue
        try:
            with open(p, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            continue
        found = True
        is_worker = bool(data.get("worker"))
        res.device = res.device or data.get("device")
        if res.runtime is None and data.get("python"):
            res.runtime = (str(data.get("torch") or ""), str(data["python"]))
        if not workers or is_worker:
            res.collected = (
                max(res.collected, int(data.get("collected", 0) or 0))
                if is_worker
                else int(data.get("collected", 0) or 0)
            )
            res.selected = (
                max(res.selected, int(data.get("selected", 0) or 0))
                if is_worker
                else int(data.get("selected", 0) or 0)
            )
        for k, v in (data.get("deselected") or {}).items():
            deselected[k] = max(deselected.get(k, 0), int(v))
        for t in data.get("tests", []):
            rec = records.get(t["nodeid"])
            if rec is None:
                records[t["nodeid"]] = dict(t)
            else:
                for k, v in t.items():
                    if k not in rec or (k in ("exception", "gpu") and v):
                        rec[k] = v
        for e in data.get("errors", []):
            fl = _failure(e)
            if fl is not None:
                if fl.type == "CollectionError" and e.get("longrepr"):
                    fl.message = e["longrepr"]
                if not any(n == e.get("nodeid", "") and x.type == fl.type for n, x in res.errors):
                    res.errors.append((str(e.get("nodeid", "")), fl))
    if workers:
        # the controller collects nothing: the totals are what the workers saw once
        res.collected = res.selected + sum(deselected.values())
    res.deselected = deselected
    for t in records.values():
        if "outcome" not in t:
            continue
        rec = TestRecord(
            t["nodeid"],
            t["outcome"],
            float(t.get("duration", 0.0)),
            [(str(k), str(v)) for k, v in t.get("properties", [])],
            t.get("stdout", ""),
            _failure(t.get("exception")),
            t.get("skip_reason"),
            t.get("gpu"),
            t.get("when"),
        )
        if rec.outcome == "failed" and rec.failure is None:
            rec.failure = Failure("Error", (t.get("longrepr") or "")[-1000:])
        res.tests.append(rec)
    if workers:
        res.selected = len([t for t in res.tests])
        res.collected = res.selected + sum(deselected.values())
    return found


def _read_junit(path: str, res: RunResult) -> None:
    if not os.path.exists(path):
        return
    try:
        tree = ET.parse(path)
    except ET.ParseError:
        return
    for case in tree.iter("testcase"):
        file = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
        nodeid = f"{file}::{case.get('name')}"
        props = [(p.get("name", ""), p.get("value", "")) for p in case.iter("property")]
        outcome = "passed"
        failure = None
        for tag in ("failure", "error"):
            el = case.find(tag)
            if el is not None:
                outcome = "failed"
                failure = Failure(el.get("type", "Error").split(".")[-1] or "Error", el.get("message", ""))
        if case.find("skipped") is not None:
            outcome = "skipped"
        res.tests.append(TestRecord(nodeid, outcome, float(case.get("time", 0) or 0), props, "", failure))
