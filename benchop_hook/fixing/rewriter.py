"""libcst, imported ahead by a forked child that then makes the rewrites this process sends it.

libcst's import is about 0.25 s of one core, a sixth of a large commit's static pass, and in the state the
hook sees (an Op commit whose benchmarks are still broken) a rewrite is likely. Imported where the rewrite is
made, it sat on the critical path: the judging waited for it, or gave up a core to it. A child forked when
the pass starts imports it on the second core while this process reads git and parses, then makes each
rewrite it is sent. `rewrite.edit.rewrite` is a pure function of bytes and edits, so the child's answer is
the one this process would compute; anything unusual (no fork, the child gone or failing, an answer that
does not unpickle) makes the rewrite here, as before.

The child keeps only its two pipes (a copy of another descriptor, `git cat-file`'s input say, would keep
that process waiting for an end of file), writes nothing else, and leaves with `os._exit`.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from benchop_hook.fixing.plan import CallEdit, DictEdit, ImportEdit
    from benchop_hook.rewrite.units import RewriteResult

_LEN = 8  # bytes of a message's length


class Rewriter:
    """`rewrite.edit.rewrite`, made by a child that imported libcst ahead when one runs, else here."""

    def __init__(self, pid: int | None = None, send: int = -1, receive: int = -1) -> None:
        self._pid, self._send, self._receive = pid, send, receive

    @classmethod
    def ahead(cls) -> Rewriter:
        """A child importing libcst now, when forking is safe and a second core can take it."""
        from benchop_hook.fixing import forked

        if not forked.can_fork():
            return cls()
        fds: list[int] = []
        try:
            req_r, req_w = os.pipe()
            fds += [req_r, req_w]
            resp_r, resp_w = os.pipe()
            fds += [resp_r, resp_w]
            pid = os.fork()
        except OSError:
            for fd in fds:
                os.close(fd)
            return cls()
        if pid == 0:
            _serve(req_r, resp_w)
        os.close(req_r)
        os.close(resp_w)
        return cls(pid, req_w, resp_r)

    @property
    def is_ahead(self) -> bool:
        return self._pid is not None

    @property
    def pid(self) -> int | None:
        """The child's, while it is asked."""
        return self._pid

    def rewrite(
        self,
        data: bytes,
        calls: list[CallEdit],
        imports: list[ImportEdit],
        dicts: list[DictEdit],
        renames: dict[str, str],
        line_length: int | None,
    ) -> RewriteResult:
        args = (data, calls, imports, dicts, renames, line_length)
        if self._pid is not None:
            answer = self._ask(args)
            if answer is not None:
                return answer
            self.close()  # a child that failed once is not asked again
        from benchop_hook.rewrite.edit import rewrite  # libcst: only for files that will be rewritten

        return rewrite(*args)

    def _ask(self, args: tuple[object, ...]) -> RewriteResult | None:
        from benchop_hook.rewrite.units import RewriteResult

        try:
            _send(self._send, pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL))
            msg = _receive(self._receive)
            answer, stages = pickle.loads(msg) if msg else (None, {})
        except (OSError, pickle.PickleError, EOFError, AttributeError, ValueError, TypeError):
            return None
        _take(stages)
        return answer if isinstance(answer, RewriteResult) else None

    def close(self) -> None:
        """Stop the child (it may still be importing: nothing it does is needed any more) and reap it."""
        if self._pid is None:
            return
        pid, self._pid = self._pid, None
        for fd in (self._send, self._receive):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _serve(receive: int, send: int) -> NoReturn:
    """The child: import libcst, then answer each request until the parent closes its end."""
    try:
        _keep_only(receive, send)
        _handover()  # the parent's stages, copied by the fork: not this child's to report
        from benchop_hook.rewrite.edit import rewrite

        while msg := _receive(receive):
            try:
                answer = rewrite(*pickle.loads(msg))
                out = pickle.dumps((answer, _handover()), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # noqa: BLE001 - any failure: the parent makes this rewrite itself
                out = b""
            _send(send, out)
    finally:
        os._exit(0)


def _handover() -> dict[str, Any]:
    """The stages timed here since the last call (`BENCHOP_TIMINGS`: then `timings` is imported)."""
    t = sys.modules.get("benchop_hook.timings")
    return t.handover() if t is not None else {}


def _take(stages: dict[str, Any]) -> None:
    t = sys.modules.get("benchop_hook.timings")
    if t is not None and stages:
        t.take(stages)


def _keep_only(*keep: int) -> None:
    """Close every descriptor above stderr but `keep`."""
    start = 3
    for fd in sorted(keep):
        os.closerange(start, fd)
        start = fd + 1
    os.closerange(start, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 65536)


def _send(fd: int, data: bytes) -> None:
    data = len(data).to_bytes(_LEN, "little") + data
    while data:
        data = data[os.write(fd, data) :]


def _receive(fd: int) -> bytes:
    """One message; b"" at the end of the stream (or an empty message: the other side failed)."""
    head = _read(fd, _LEN)
    return _read(fd, int.from_bytes(head, "little")) if len(head) == _LEN else b""


def _read(fd: int, n: int) -> bytes:
    chunks: list[bytes] = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)
