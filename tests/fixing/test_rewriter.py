"""libcst imported ahead by a forked child that makes the rewrites (fixing/rewriter.py): its answers are the
ones this process computes, a child that is gone leaves the rewrite here, and the child keeps no descriptor
but its pipes (a copy of `git cat-file`'s input would keep that process waiting)."""

from __future__ import annotations

import os
import select
import signal

import pytest

from benchop_hook.fixing.plan import ArgOp, CallEdit
from benchop_hook.fixing.rewriter import Rewriter
from benchop_hook.rewrite.edit import rewrite

SRC = b"import torch\n\nx = Op(M, N, torch.float16)  # keep\n"
EDIT = [CallEdit(3, 4, 3, 27, (ArgOp("drop", 0),))]


def _ahead() -> Rewriter:
    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    r = Rewriter.ahead()
    assert r.is_ahead and r.pid is not None
    return r


def test_the_child_rewrites_as_this_process_does() -> None:
    r = _ahead()
    pid = r.pid
    try:
        got = r.rewrite(SRC, EDIT, [], [], {}, 100)
        assert r.is_ahead  # it answered: still asked
    finally:
        r.close()
    assert got == rewrite(SRC, EDIT, [], [], {}, 100)
    assert got.data == b"import torch\n\nx = Op(N, torch.float16)  # keep\n"
    assert pid is not None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped by close()


def test_a_child_that_is_gone_leaves_the_rewrite_here() -> None:
    r = _ahead()
    assert r.pid is not None
    os.kill(r.pid, signal.SIGKILL)
    got = r.rewrite(SRC, EDIT, [], [], {}, 100)
    assert not r.is_ahead
    assert got == rewrite(SRC, EDIT, [], [], {}, 100)
    r.close()


def test_the_child_keeps_no_other_descriptor() -> None:
    read_end, write_end = os.pipe()
    try:
        r = _ahead()
        try:
            r.rewrite(SRC, EDIT, [], [], {}, 100)  # the child is past its start: it closed what it inherited
            os.close(write_end)
            write_end = -1
            # The end of file comes only when no process holds the write end.
            ready, _, _ = select.select([read_end], [], [], 5)
            assert ready and os.read(read_end, 1) == b""
        finally:
            r.close()
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


def test_no_child_rewrites_here() -> None:
    r = Rewriter()
    assert not r.is_ahead
    assert r.rewrite(SRC, EDIT, [], [], {}, 100) == rewrite(SRC, EDIT, [], [], {}, 100)
    r.close()
