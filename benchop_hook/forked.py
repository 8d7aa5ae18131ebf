"""A pure function over many inputs, run by two processes when there is enough work for two cores.

The interface check of a large commit parses both versions of a few hundred changed files (4 MB of
Python on TileOPs 50e3fe58fa: ~1 s of one core, all in the C parser). The answers are one bit per file
(or, for the rename votes, a few name pairs), so a forked child that takes half of the work costs a
fork, a pipe and a small pickle. The child
only runs the pure function it was given on inputs already in memory (no git, no files, no output)
and leaves with `os._exit`; anything unusual (no `fork`, one core, threads running, the child failing)
answers everything in this process. The answers are the function's either way.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Below this much input (bytes, by the caller's weights) a fork costs more than it saves.
MIN_WEIGHT = 1_000_000


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _can_fork() -> bool:
    import threading

    # A fork copies one thread: with others running, a lock one of them holds would stay held in the child.
    return hasattr(os, "fork") and threading.active_count() == 1 and _cores() >= 2


def _split(weights: Sequence[int]) -> int:
    """The index that cuts the items into two runs of about equal weight (the first at least one item)."""
    half, acc = sum(weights) / 2, 0
    for i, w in enumerate(weights):
        acc += w
        if acc >= half:
            return i + 1
    return len(weights)


def map_split(fn: Callable[[T], R], items: Sequence[T], weights: Sequence[int],
              min_weight: int | None = None, meanwhile: Callable[[], object] | None = None,
              meanwhile_weight: int = 0) -> list[R]:
    """`[fn(x) for x in items]`, the last items (by weight) in a forked child when the weights add up
    to `min_weight` or more. `meanwhile` (work of about `meanwhile_weight` that this process needs
    anyway) runs here while the child works, and the items are split so that both sides get about half
    of everything."""
    if len(items) < 2 or sum(weights) < (MIN_WEIGHT if min_weight is None else min_weight) or not _can_fork():
        if meanwhile is not None:
            meanwhile()
        return [fn(x) for x in items]
    k = _split([meanwhile_weight, *weights]) - 1
    if k >= len(items):
        if meanwhile is not None:
            meanwhile()
        return [fn(x) for x in items]
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        if meanwhile is not None:
            meanwhile()
        return [fn(x) for x in items]
    if pid == 0:  # the child: answer the second half, write the answers, leave
        code = 1
        try:
            os.close(r)
            data = pickle.dumps([fn(x) for x in items[k:]], protocol=pickle.HIGHEST_PROTOCOL)
            while data:
                data = data[os.write(w, data):]
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    try:
        if meanwhile is not None:
            meanwhile()
        mine = [fn(x) for x in items[:k]]
        chunks = []
        while chunk := os.read(r, 65536):
            chunks.append(chunk)
    finally:
        os.close(r)
        _, status = os.waitpid(pid, 0)
    theirs: list[R] | None = None
    if status == 0:
        try:
            theirs = pickle.loads(b"".join(chunks))
        except (pickle.UnpicklingError, EOFError):
            theirs = None
    if not isinstance(theirs, list) or len(theirs) != len(items) - k:
        theirs = [fn(x) for x in items[k:]]  # the child failed: answer its half here
    return mine + theirs
