"""Each benchmark file's last recorded duration: what `run --shard` balances the shards by.

A run that records its numbers in git notes records, per file, the seconds its cases took. The newest
note on the commits before the range's end that has a file's duration gives it; a file with none is left
out (the split then counts it as a typical file).
"""

from __future__ import annotations

from collections.abc import Collection

from benchop_hook.git.repo import recent_commits
from benchop_hook.records import notes

HISTORY = 500  # commits looked back through; a note older than that says little about a file today


def recorded_seconds(root: str, rev: str, paths: Collection[str]) -> dict[str, float]:
    """Per file of `paths`, the seconds its cases took in the newest run recorded for it."""
    noted = notes.noted_commits(root)
    if not noted or not paths:
        return {}
    wanted = set(paths)
    found: dict[str, float] = {}
    for commit in recent_commits(root, rev, HISTORY):
        if commit not in noted:
            continue
        for run in reversed(notes.read_note(root, commit)):  # the newest run of a note comes last
            for path, seconds in run.seconds:
                if path in wanted and path not in found:
                    found[path] = seconds
        if len(found) == len(wanted):
            break
    return found
