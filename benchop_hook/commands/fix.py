"""`bench-op fix`: rewrite the broken benchmark calls in the working tree (or print the diff)."""

from __future__ import annotations

import sys

from benchop_hook.commands.common import quick
from benchop_hook.commands.options import Options
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK, BenchOpError


def main(opts: Options) -> int:
    repo, cfg, target, changes = quick(opts)
    if changes is None:
        if not opts.quiet:
            print(f"bench-op: nothing to fix: no Op file changed in {target.label}.")
        return EXIT_OK
    from benchop_hook.fixing.results import not_written
    from benchop_hook.fixing.static import restrict, static_pass
    from benchop_hook.report.as_json import static_json
    from benchop_hook.report.out import write_json
    from benchop_hook.report.text import render_check, unified_diff
    from benchop_hook.run.tree_guard import write_file

    result = restrict(static_pass(repo, cfg, target, changes, only=opts.shard() or None)[0], opts.shard())
    if opts.diff:
        for fr in result.rewritten:
            sys.stdout.write(unified_diff(fr.path, fr.before, fr.after))
        print(render_check(result), file=sys.stderr)
    else:
        failed = []
        for fr in result.rewritten:
            try:
                write_file(repo.root, fr.path, fr.before, fr.after or b"")
                print(f"Rewriting {fr.path}")
            except BenchOpError as exc:
                failed.append(exc.message)
                result = not_written(result, fr.path, exc.message)
        print(render_check(result, wrote=True))
        for msg in failed:
            print(f"bench-op: {msg}", file=sys.stderr)
    if opts.json:
        data = static_json(result)
        write_json(opts.json, data)
    return EXIT_BLOCKED if result.broken else EXIT_OK
