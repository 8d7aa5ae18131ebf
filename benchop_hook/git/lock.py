"""One bench-op run per repository at a time: an advisory lock in .git/bench-op (released if the process
dies)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator

from benchop_hook.errors import BenchOpError


@contextlib.contextmanager
def repo_lock(git_dir: str, wait: float | None = None) -> Iterator[None]:
    """Hold the repository's bench-op lock; wait up to `wait`
    seconds (BENCH_OP_LOCK_WAIT, default 10) for it.
    """
    if wait is None:
        try:
            wait = float(os.environ.get("BENCH_OP_LOCK_WAIT", "10"))
        except ValueError:
            wait = 10.0
    folder = os.path.join(git_dir, "bench-op")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    try:
                        pid = os.pread(fd, 32, 0).decode().strip() or "?"
                    except OSError:
                        pid = "?"
                    raise BenchOpError(
                        f"another bench-op run (pid {pid}) is working in this repository: "
                        "wait for it to finish, then run bench-op again."
                    ) from None
                time.sleep(0.2)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
