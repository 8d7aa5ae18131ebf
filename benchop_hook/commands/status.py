"""`bench-op status`: the background runs (`background = true`): the one going on, the last results, and
where their logs are."""

from __future__ import annotations

from benchop_hook.commands.options import Options
from benchop_hook.errors import EXIT_OK
from benchop_hook.git import repo as gitrepo


def main(opts: Options) -> int:
    from benchop_hook.followup.background import alive, mark_seen, states, status_lines

    repo = gitrepo.find_repo(opts.directory)
    found = states(repo)
    if not found:
        print(
            "bench-op: no background run yet (they start when `background = true` is set in [tool.bench-op])."
        )
        return EXIT_OK
    going = [s for s in found if s.status == "running" and alive(s.pid)]
    print(f"bench-op: {len(going)} background run{'s' if len(going) != 1 else ''} going on; the latest:")
    for line in status_lines(repo):
        print("  " + line)
    mark_seen(repo)  # the user has seen them now: no line about them with the next command
    return EXIT_OK
