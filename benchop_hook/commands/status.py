"""`bench-op status`: the background runs (`background = true`): the one going on, the last results, and
where their logs are."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from benchop_hook.commands.options import Options
from benchop_hook.errors import EXIT_OK
from benchop_hook.git import repo as gitrepo

if TYPE_CHECKING:
    from benchop_hook.followup.background import State

# Each line fits a terminal: a run's reason (one per blocked file, joined) ran past 600 characters on one
# line. The whole of it is in the run's log.
WIDTH = 100
LIMIT = 5  # the runs shown, newest first


def main(opts: Options) -> int:
    from benchop_hook.followup.background import alive, mark_seen, states

    repo = gitrepo.find_repo(opts.directory)
    found = states(repo)
    if not found:
        print(
            "bench-op: no background run yet (they start when `background = true` is set in [tool.bench-op])."
        )
        return EXIT_OK
    going = [s for s in found if s.status == "running" and alive(s.pid)]
    print(f"bench-op: {len(going)} background run{'s' if len(going) != 1 else ''} going on; the latest:")
    for s in found[:LIMIT]:
        for line in run_lines(s, repo.root, running=s in going):
            print(line)
    mark_seen(repo)  # the user has seen them now: no line about them with the next command
    return EXIT_OK


def run_lines(s: State, root: str, *, running: bool, width: int = WIDTH) -> list[str]:
    """One background run: its commit, status and start on the first line; why it ended (cut to `width`),
    each patch and its log on lines of their own (a path is never cut: it is there to be copied)."""
    word = "running" if running else ("stopped" if s.status == "running" else s.status)
    follow_up = f" -> follow-up {s.follow_up[:12]}" if s.follow_up else ""
    lines = [f"  {s.commit[:12]}  {word}{follow_up}  started {s.started}"]
    if s.reason and not running:
        lines.append(fit(f"    why: {s.reason}", width, more=" (the log has all of it)"))
    if s.patch:  # one line each: they are there to be applied (the state file keeps one a line)
        lines.extend(f"    patch: {_shown(p, root)}" for p in s.patch.splitlines() if p)
    lines.append(f"    log: {_shown(s.log, root)}")
    return lines


def fit(text: str, width: int, *, more: str = "") -> str:
    """`text` cut to `width` columns, with `...` and `more` saying so, where it is longer."""
    if len(text) <= width:
        return text
    tail = "..." + more
    return text[: max(width - len(tail), 0)].rstrip() + tail


def _shown(path: str, root: str) -> str:
    return os.path.relpath(path, root) if os.path.isabs(path) else path
