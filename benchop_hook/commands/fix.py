"""`bench-op fix`: rewrite the broken benchmark calls in the working tree (or print the diff)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from benchop_hook.commands.ci import static_diffs, summarize
from benchop_hook.commands.common import quick
from benchop_hook.commands.options import Options
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK, BenchOpError

if TYPE_CHECKING:
    from benchop_hook.fixing.results import StaticResult
    from benchop_hook.git.target import Target


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
    from benchop_hook.fixing.static import bench_source, restrict, static_pass
    from benchop_hook.report.as_json import static_json
    from benchop_hook.report.out import write_json
    from benchop_hook.report.text import unified_diff
    from benchop_hook.run.tree_guard import write_file

    only = opts.shard() or None
    result = restrict(
        static_pass(repo, cfg, target, changes, bench_from=bench_source(target), only=only)[0], opts.shard()
    )
    diffs = static_diffs(result)
    unwritable = _why_not_written(repo.root, target, result)
    if unwritable is not None and not opts.diff:
        print(_rendered(opts, result, wrote=False, hint=False))
        print(f"bench-op: nothing written: {unwritable}")
    elif opts.diff:
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
    if unwritable is not None and not opts.diff:
        return EXIT_BLOCKED  # the calls are as broken as they were
    # A call only a run can judge is no block: nothing about it is provably broken (`bench-op run` decides).
    return EXIT_BLOCKED if any(not f.runtime_candidate for f in result.broken) else EXIT_OK


def _why_not_written(root: str, target: Target, result: StaticResult) -> str | None:
    """Why the rewrite of a range's benchmarks (read at its last commit) cannot go into the working tree:
    only onto the same files, at HEAD, is it the fix of what is checked out."""
    if target.mode != "range" or not result.rewritten:
        return None
    from benchop_hook.report.text import fix_command
    from benchop_hook.run.tree_guard import read_bytes

    see = f"see the fix with `{fix_command(target)} --diff`"
    if not target.to_is_head:
        return (
            f"the fix is for {target.to_ref}, which is not checked out: check it out and run again, or {see}."
        )
    differ = [fr.path for fr in result.rewritten if read_bytes(os.path.join(root, fr.path)) != fr.before]
    if differ:
        return (
            f"{', '.join(differ)} in the working tree differ{'s' if len(differ) == 1 else ''} from "
            f"{target.to_ref}: commit or stash those edits and run this again, or {see}."
        )
    return None


def _rendered(opts: Options, result: StaticResult, *, wrote: bool, hint: bool = True) -> str:
    from benchop_hook.report.as_json import static_json
    from benchop_hook.report.text import render_check

    if opts.format == "github":
        from benchop_hook.report.github import render_static

        return render_static(result, static_json(result), kind="fix", wrote=wrote)
    return render_check(result, wrote=wrote, hint=hint)
