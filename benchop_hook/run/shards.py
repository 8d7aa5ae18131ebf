"""`run --shard I/N`: this runner's share of the affected benchmark files, the same split on every runner.

CI's matrix starts the runners; bench-op only has to make each take a different share, and every runner must
compute the same split from the same inputs: the affected files (from the commit range) and the files'
last recorded durations (git notes, which every runner fetched alike). Longest first, each file to the
least loaded shard (ties to the lowest shard): balanced by time when there are durations, by count when
there are none. A file with no duration of its own counts as the median of those recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchop_hook.errors import UsageError


@dataclass(frozen=True)
class Share:
    """Which share of the affected files a run took, and the whole split it took it from."""

    index: int  # 1-based, as CI matrices and `--shard 1/2` count
    count: int
    split: tuple[tuple[str, ...], ...]  # every shard's files, shard 1 first
    balanced_by: str  # "durations" (recorded in git notes) or "count"

    @property
    def files(self) -> tuple[str, ...]:
        return self.split[self.index - 1]

    def as_json(self) -> dict[str, object]:
        return {
            "index": self.index,
            "count": self.count,
            "files": list(self.files),
            "split": [list(s) for s in self.split],
            "balanced_by": self.balanced_by,
        }


def parse_shard(text: str) -> tuple[int, int]:
    """`I/N` with 1 <= I <= N."""
    index, sep, count = text.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        i = n = 0
    if not sep or not 1 <= i <= n:
        raise UsageError(f"--shard takes I/N with 1 <= I <= N (for example --shard 1/2), not '{text}'.")
    return i, n


def split(files: Sequence[str], seconds: Mapping[str, float], count: int) -> tuple[tuple[str, ...], ...]:
    """`files` in `count` shards: complete, disjoint, and the same for the same inputs whatever their
    order. Each shard's files are sorted."""
    import statistics  # (fractions, decimal: a few ms the runs without --shard need not pay)

    known = [seconds[f] for f in files if f in seconds and seconds[f] > 0]
    fill = statistics.median(known) if known else 1.0
    weight = {f: seconds[f] if f in seconds and seconds[f] > 0 else fill for f in set(files)}
    loads = [0.0] * count
    shards: list[list[str]] = [[] for _ in range(count)]
    for f in sorted(weight, key=lambda f: (-weight[f], f)):
        i = min(range(count), key=lambda k: (loads[k], k))
        shards[i].append(f)
        loads[i] += weight[f]
    return tuple(tuple(sorted(s)) for s in shards)


def take_share(files: Sequence[str], seconds: Mapping[str, float], index: int, count: int) -> Share:
    """Shard `index` of `count` of `files`, balanced by `seconds` where they are known."""
    recorded = {f: s for f, s in seconds.items() if f in set(files)}
    return Share(index, count, split(files, recorded, count), "durations" if recorded else "count")


def describe(s: Share) -> str:
    """The line a shard prints: what it took, out of what, balanced how."""
    every = sum(len(g) for g in s.split)
    how = "their last recorded durations" if s.balanced_by == "durations" else "count"
    mine = ", ".join(s.files) if s.files else "none"
    return (
        f"bench-op: shard {s.index}/{s.count}: {len(s.files)} of {every} affected benchmark files "
        f"(balanced by {how}): {mine}"
    )
