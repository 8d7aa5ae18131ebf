"""`run --shard I/N`'s split (run/shards.py): complete, disjoint, the same on every runner, balanced by the
durations recorded in git notes when there are any, by count otherwise."""

from __future__ import annotations

import random

import pytest

from benchop_hook.errors import UsageError
from benchop_hook.records import notes
from benchop_hook.records.durations import recorded_seconds
from benchop_hook.run.shards import parse_shard, split, take_share
from tests.helpers.repo import Repo

FILES = [f"benchmarks/ops/bench_{i:02d}.py" for i in range(11)]


@pytest.mark.parametrize("count", [1, 2, 3, 4, 11, 13])
def test_split_is_complete_disjoint_and_stable(count: int) -> None:
    rng = random.Random(count)
    seconds = {f: rng.uniform(1, 100) for f in FILES if rng.random() < 0.7}
    shards = split(FILES, seconds, count)
    assert len(shards) == count
    flat = [f for s in shards for f in s]
    assert sorted(flat) == sorted(FILES), "complete and disjoint"
    for _ in range(5):  # every runner, whatever order it found the files and durations in
        files = FILES[:]
        rng.shuffle(files)
        shuffled = dict(sorted(seconds.items(), key=lambda _: rng.random()))
        assert split(files, shuffled, count) == shards


def test_by_count_when_nothing_is_recorded() -> None:
    shards = split(FILES, {}, 3)
    assert [len(s) for s in shards] == [4, 4, 3]
    assert take_share(FILES, {}, 1, 3).balanced_by == "count"


def test_by_durations_when_they_are_recorded() -> None:
    # one long file against many short ones: time, not count, is what is evened out
    seconds = {"a.py": 300.0, **{f"s{i}.py": 10.0 for i in range(10)}}
    shards = split(list(seconds), seconds, 2)
    assert shards[0] == ("a.py",)
    assert len(shards[1]) == 10
    assert take_share(list(seconds), seconds, 2, 2).balanced_by == "durations"
    # a file never recorded counts as a typical one (the median), not as free or as the longest
    with_new = split([*seconds, "new.py"], seconds, 2)
    assert "new.py" in with_new[1]


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0", "-1/2", "1/2/3"])
def test_bad_shard_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError, match="--shard takes I/N"):
        parse_shard(text)


def _timed(*seconds: tuple[str, float]) -> notes.Run:
    return notes.Run("H200", None, "py", (notes.Measure("x::t", "latency", 1.0, "ms"),), "", seconds)


def test_durations_come_from_the_newest_note_before_the_change(repo: Repo) -> None:
    base = repo.head()
    notes.write_note(str(repo.path), base, _timed(("a.py", 30.0), ("b.py", 5.0)))
    repo.write("README.md", "more\n")
    second = repo.commit("second")
    notes.write_note(str(repo.path), second, _timed(("a.py", 40.0)))
    repo.write("README.md", "more again\n")
    third = repo.commit("third")
    notes.write_note(str(repo.path), third, _timed(("a.py", 99.0)))
    root = str(repo.path)
    # from the range's start back: the newest recording of each file
    assert recorded_seconds(root, second, ["a.py", "b.py", "c.py"]) == {"a.py": 40.0, "b.py": 5.0}
    assert recorded_seconds(root, base, ["a.py"]) == {"a.py": 30.0}
    # recording again for the same device keeps the other files' durations
    notes.write_note(root, base, _timed(("b.py", 6.0)))
    assert recorded_seconds(root, base, ["a.py", "b.py"]) == {"a.py": 30.0, "b.py": 6.0}


def test_notes_written_before_durations_existed_still_read() -> None:
    text = '{"bench-op": 1, "runs": [{"device": "H200", "torch": null, "python": "p", "numbers": {}}]}'
    (run,) = notes.parse_note(text)
    assert run.seconds == ()
    assert "seconds" not in notes.render_note([run])
