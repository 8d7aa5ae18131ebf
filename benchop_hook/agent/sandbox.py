"""Where the agent works, and how it runs: a temporary repository at the commit bench-op works on with
bench-op's own fixes applied (`git/sandbox.py`), the agent in its own process group under a timeout, its
output in a log. The sandbox goes afterwards whatever happens (a failure, the timeout, Ctrl-C); the user's
working tree, index and stash are never touched."""

from __future__ import annotations

import collections
import contextlib
import os
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import IO

from benchop_hook.git import repo as gitrepo
from benchop_hook.git import sandbox as gitsandbox
from benchop_hook.run.runner import kill_group

# What tools leave in a working tree: caches, an agent's history and settings. Never part of its edit.
LEFT_BEHIND = [
    "__pycache__/",
    "*.py[cod]",
    ".pytest_cache/",
    ".benchmarks/",
    ".mypy_cache/",
    ".ruff_cache/",
    ".aider*",
    ".claude/",
    ".codex/",
]


@dataclass(frozen=True)
class Sandbox:
    path: str
    base: str  # bench-op's commit there: the agent's edit is whatever changed since


@contextlib.contextmanager
def sandbox(
    repo: gitrepo.RepoPaths, commit: str, tree: str | None, files: Mapping[str, bytes]
) -> Iterator[Sandbox]:
    """The repository at `commit` (with the staged `tree` on top, when bench-op works on the staged
    change), `files` written over it, committed there: removed on the way out."""
    path = tempfile.mkdtemp(prefix="bench-op-agent-")
    try:
        gitsandbox.create(repo, path, commit, tree)
        for rel, data in files.items():
            full = os.path.join(path, rel)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(data)
        gitsandbox.ignore(path, LEFT_BEHIND)
        base = gitsandbox.commit_all(path, "bench-op: the interface change, and bench-op's own fixes")
        yield Sandbox(path, base)
    finally:
        _remove(path)


def _remove(path: str) -> None:
    """The folder and everything in it, read-only files an agent left included."""

    def writable(func: object, p: str, exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(p), stat.S_IRWXU)
            os.chmod(p, stat.S_IRWXU)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)

    shutil.rmtree(path, onerror=writable)  # (onexc from 3.12 on; onerror still works there)


@dataclass(frozen=True)
class AgentRun:
    """How the agent's process ended."""

    code: int | None  # its exit status; None when it was killed at the timeout
    answer: str  # the last line it printed on stdout
    seconds: float

    @property
    def timed_out(self) -> bool:
        return self.code is None

    @property
    def blocked(self) -> str | None:
        """The reason after `BLOCKED:` when that is its answer."""
        if self.answer.upper().startswith("BLOCKED"):
            return self.answer[len("BLOCKED") :].lstrip(" :-").strip() or "no reason given"
        return None


def run_agent(
    command: str, cwd: str, task: str, env: Mapping[str, str], timeout: float, log_path: str
) -> AgentRun:
    """The agent command (a shell command line) in `cwd`, the task on its stdin, in a process group of its
    own: killed with everything it started at the timeout, on Ctrl-C, and once it exits (what it left
    running goes too). Its stdout and stderr go to `log_path`."""
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    tail: collections.deque[bytes] = collections.deque(maxlen=40)
    start = time.monotonic()
    with open(log_path, "ab", buffering=0) as log:
        log.write(f"$ {command}\n(in {cwd}, timeout {timeout:.0f} s)\n".encode())
        proc = subprocess.Popen(
            command,
            shell=True,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            start_new_session=True,
        )
        feeder = threading.Thread(target=_feed, args=(proc, task.encode()), daemon=True)
        reader = threading.Thread(target=_read, args=(proc, log, tail), daemon=True)
        feeder.start()
        reader.start()
        code: int | None
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            kill_group(proc)  # a timeout, Ctrl-C, or what a finished agent left running
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        reader.join(timeout=5)
        seconds = time.monotonic() - start
        log.write(
            f"\n(exit {code if code is not None else 'killed at the timeout'}, {seconds:.1f} s)\n".encode()
        )
    return AgentRun(code, _answer(tail), seconds)


def _feed(proc: subprocess.Popen[bytes], data: bytes) -> None:
    assert proc.stdin is not None
    with contextlib.suppress(OSError):  # an agent that does not read its stdin closes it
        proc.stdin.write(data)
    with contextlib.suppress(OSError):
        proc.stdin.close()


def _read(proc: subprocess.Popen[bytes], log: IO[bytes], tail: collections.deque[bytes]) -> None:
    assert proc.stdout is not None
    for line in iter(proc.stdout.readline, b""):
        with contextlib.suppress(OSError, ValueError):  # the log is closed once the agent is done
            log.write(line)
        tail.append(line)


def _answer(tail: collections.deque[bytes]) -> str:
    """Its last non-empty line, without the Markdown an agent may dress it in."""
    for raw in reversed(tail):
        line = raw.decode("utf-8", "replace").strip().strip("*`_#> \t")
        if line:
            return line
    return ""
