"""A pure function over many inputs shared with a forked child (fixing/forked.py): the answers come back in
order whoever computed them, and a child that fails leaves its half to this process; a forked child reads
git through its own `cat-file`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.kern import make


def test_forked_answers_come_back_in_order_from_the_child() -> None:
    import os
    import time

    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    me = os.getpid()
    ran: list[int] = []

    def where(x: int) -> tuple[int, bool]:
        time.sleep(0.01)
        return x, os.getpid() != me

    got = forked.map_split(
        where,
        list(range(40)),
        [1] * 40,
        min_weight=0,
        meanwhile=lambda: (ran.append(os.getpid()), time.sleep(0.05)),
    )
    # Every answer in its place; the child (another pid) took some while this process ran `meanwhile`,
    # and this process took some once it was free.
    assert [x for x, _ in got] == list(range(40))
    assert any(child for _, child in got) and not all(child for _, child in got)
    assert ran == [me]
    # Under the threshold everything is answered here.
    assert forked.map_split(where, list(range(10)), [1] * 10, min_weight=11) == [
        (x, False) for x in range(10)
    ]
    # More items than the queue holds records: they go in batches, still every one answered once.
    calls: list[int] = []
    many = forked.map_split(
        lambda x: (calls.append(x), x * 2)[1], list(range(3000)), list(range(3000)), min_weight=0
    )
    assert many == [x * 2 for x in range(3000)]
    assert sorted(calls) == sorted(set(calls)) and len(calls) <= 3000  # (the child's calls are not seen here)


def test_a_failing_child_leaves_its_half_to_this_process() -> None:
    import os

    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    me = os.getpid()

    def fails_elsewhere(x: int) -> bool:
        if os.getpid() != me:
            raise RuntimeError("child")
        return x % 2 == 0

    assert forked.map_split(fails_elsewhere, list(range(60)), [1] * 60, min_weight=0) == [
        x % 2 == 0 for x in range(60)
    ]


def test_a_forked_child_reads_git_through_its_own_cat_file(tmp_path: Path) -> None:
    import os

    from benchop_hook.fixing import forked
    from benchop_hook.git.snapshots import GitSnapshot

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    repo = make(tmp_path, {f"m{k}.py": f"X = {k}\n" for k in range(4)})
    snap = GitSnapshot(str(repo.path), "HEAD")
    assert snap.read("m0.py") == b"X = 0\n"
    parent_cat = snap._reader.pid
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: read a blob, say which cat-file answered
        ok = snap.read("m1.py") == b"X = 1\n" and snap._reader.pid is not None
        os.write(w, f"{int(ok)} {snap._reader.pid or 0}".encode())
        os._exit(0)
    os.close(w)
    # the parent goes on talking to its own cat-file meanwhile
    assert [snap.read(f"m{k}.py") for k in (2, 3)] == [b"X = 2\n", b"X = 3\n"]
    ok, child_cat = os.read(r, 100).decode().split()
    os.close(r)
    os.waitpid(pid, 0)
    assert ok == "1" and parent_cat is not None and int(child_cat) != parent_cat
    assert snap._reader.pid == parent_cat
