"""`bench-op fix`: rewrite the broken benchmark calls in the working tree (or print the diff)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from benchop_hook.commands.ci import static_diffs, summarize
from benchop_hook.commands.common import quick
from benchop_hook.commands.options import Options
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK, BenchOpError

if TYPE_CHECKING:
    from benchop_hook.fixing.results import StaticResult


def main(opts: Options) -> int:
    repo, cfg, target, changes = quick(opts)
    if changes is None:
        if not opts.quiet:
            # With --diff, stdout is the patch alone (empty here): what is said goes where the report goes.
            out = sys.stderr if opts.diff else sys.stdout
            print(f"bench-op: nothing to fix: no Op file changed in {target.label}.", file=out)
        summarize(
            opts, "fix", {"target": target.as_json(), "changes": [], "findings": []}, label=target.label
        )
        return EXIT_OK
    from benchop_hook.fixing.results import not_written
    from benchop_hook.fixing.static import restrict, static_pass
    from benchop_hook.report.as_json import static_json
    from benchop_hook.report.out import write_json
    from benchop_hook.report.text import unified_diff
    from benchop_hook.run.tree_guard import write_file

    result = restrict(static_pass(repo, cfg, target, changes, only=opts.shard() or None)[0], opts.shard())
    diffs = static_diffs(result)
    if opts.diff:
        for fr in result.rewritten:
            sys.stdout.write(unified_diff(fr.path, fr.before, fr.after))
        print(_rendered(opts, result, wrote=False), file=sys.stderr)
    else:
        failed = []
        for fr in result.rewritten:
            try:
                write_file(repo.root, fr.path, fr.before, fr.after or b"")
                print(f"Rewriting {fr.path}")
            except BenchOpError as exc:
                failed.append(exc.message)
                result = not_written(result, fr.path, exc.message)
                diffs.pop(fr.path, None)
        print(_rendered(opts, result, wrote=True))
        for msg in failed:
            print(f"bench-op: {msg}", file=sys.stderr)
    data = static_json(result)
    if opts.json:
        write_json(opts.json, data)
    summarize(opts, "fix", data, label=target.label, diffs=diffs)
    # A call only a run can judge is no block: nothing about it is provably broken (`bench-op run` decides).
    return EXIT_BLOCKED if any(not f.runtime_candidate for f in result.broken) else EXIT_OK


def _rendered(opts: Options, result: StaticResult, *, wrote: bool) -> str:
    from benchop_hook.report.as_json import static_json
    from benchop_hook.report.text import render_check

    if opts.format == "github":
        from benchop_hook.report.github import render_static

        return render_static(result, static_json(result), kind="fix", wrote=wrote)
    return render_check(result, wrote=wrote)
