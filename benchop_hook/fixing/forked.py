"""A pure function over many inputs, run by two processes when there is enough work for two cores.

The interface check of a large commit parses both versions of a hundred changed files (4 MB of Python
on TileOPs 50e3fe58fa: ~0.5 s of one core, all in the C parser). The answers are one bit per file (or,
for the rename votes, a few name pairs), so a forked child that shares the work costs a fork, two pipes
and a small pickle. The two processes take items from a shared queue, so neither idles while the other
has work left. The child only runs the pure function it was given on inputs already in memory (no git,
no files, no output) and leaves with `os._exit`; anything unusual (no `fork`, one core, threads running,
the child failing) answers everything in this process. The answers are the function's either way.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from typing import NoReturn, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Below this much input (bytes, by the caller's weights) a fork costs more than it saves.
MIN_WEIGHT = 1_000_000


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    import threading

    # A fork copies one thread: with others running, a lock one of them holds would stay held in the child.
    return hasattr(os, "fork") and threading.active_count() == 1 and _cores() >= 2


_RECORD = 4  # bytes per item number in the queue: a pipe read of that size is whole, never split


def map_split(
    fn: Callable[[T], R],
    items: Sequence[T],
    weights: Sequence[int],
    min_weight: int | None = None,
    meanwhile: Callable[[], object] | None = None,
    first: Sequence[bool] | None = None,
) -> list[R]:
    """`[fn(x) for x in items]`, shared with a forked child when the weights add up to `min_weight` or
    more. The item numbers wait in a pipe, heaviest first; each process takes the next one when it is free
    (a read of one fixed-size record from a pipe is atomic), so neither waits long for the other whatever
    the items cost. `meanwhile` (work this process needs anyway) runs here first, while the child starts on
    the queue; the child may take every item meanwhile. `first`: items to queue before the others (work that
    costs a one-time import is better started early, where the other process overlaps it)."""
    if len(items) < 2 or sum(weights) < (MIN_WEIGHT if min_weight is None else min_weight) or not can_fork():
        if meanwhile is not None:
            meanwhile()
        return [fn(x) for x in items]
    order = sorted(range(len(items)), key=lambda i: (not (first and first[i]), -weights[i]))
    per = -(-len(items) // (_PIPE_ROOM // _RECORD))  # items per queue record, for the queue to fit the pipe
    batches = [order[b : b + per] for b in range(0, len(order), per)]
    fds: list[int] = []
    try:
        queue_r, queue_w = os.pipe()
        fds += [queue_r, queue_w]
        r, w = os.pipe()
        fds += [r, w]
        os.write(queue_w, b"".join(b.to_bytes(_RECORD, "little") for b in range(len(batches))))
        os.close(queue_w)
        fds.remove(queue_w)
        pid = os.fork()
    except OSError:
        for fd in fds:
            os.close(fd)
        if meanwhile is not None:
            meanwhile()
        return [fn(x) for x in items]
    if pid == 0:
        _child(lambda: _drain(fn, items, batches, queue_r), r, w)
    os.close(w)
    try:
        if meanwhile is not None:
            meanwhile()
        answers = _drain(fn, items, batches, queue_r)
        chunks = []
        while chunk := os.read(r, 65536):
            chunks.append(chunk)
    finally:
        os.close(r)
        os.close(queue_r)
        _, status = os.waitpid(pid, 0)
    theirs: object = None
    if status == 0:
        try:
            theirs = pickle.loads(b"".join(chunks))
        except (pickle.UnpicklingError, EOFError):
            theirs = None
    if isinstance(theirs, dict):
        answers.update(theirs)
    # What the child took but did not answer (it failed) is answered here.
    return [answers[i] if i in answers else fn(x) for i, x in enumerate(items)]


# The queue is written whole before the fork: it must fit in the pipe's buffer (64 KiB on Linux; POSIX
# promises 512 bytes, but a pipe holds at least a page everywhere bench-op runs).
_PIPE_ROOM = 4096


def _child(work: Callable[[], object], r: int, w: int) -> NoReturn:
    """The child: answer items from the queue until it is empty, write the answers, leave."""
    code = 1
    try:
        os.close(r)
        data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
        while data:
            data = data[os.write(w, data) :]
        code = 0
    finally:
        os._exit(code)


def _drain(fn: Callable[[T], R], items: Sequence[T], batches: list[list[int]], queue: int) -> dict[int, R]:
    """Answer the batches taken from the queue until it is empty: item number -> answer."""
    out: dict[int, R] = {}
    while rec := os.read(queue, _RECORD):
        for i in batches[int.from_bytes(rec, "little")]:
            out[i] = fn(items[i])
    return out
