"""`bench-op check`: report Op signature changes and the benchmark calls they break; write nothing."""

from __future__ import annotations

from benchop_hook.commands.ci import static_diffs, summarize
from benchop_hook.commands.common import quick
from benchop_hook.commands.options import Options
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK


def main(opts: Options) -> int:
    repo, cfg, target, changes = quick(opts)
    if changes is None:
        if not opts.quiet:
            print(f"bench-op: nothing to check: no Op file changed in {target.label}.")
        data = {"status": "nothing-to-do", "target": target.as_json(), "changes": [], "findings": []}
        if opts.json:
            from benchop_hook.report.out import write_json

            write_json(opts.json, data)
        summarize(opts, "check", data, label=target.label)
        return EXIT_OK
    from benchop_hook.fixing.static import bench_source, restrict, static_pass
    from benchop_hook.report.as_json import static_json
    from benchop_hook.report.out import write_json
    from benchop_hook.report.text import render_check

    # The same plan as `fix` and the follow-up commit (the rewrite is made, and not written): the same
    # calls counted, the same edit described.
    shard = opts.shard() or None
    passed = static_pass(repo, cfg, target, changes, bench_from=bench_source(target), only=shard)
    result = restrict(passed[0], opts.shard())
    from benchop_hook.commands.layout import warn_if_wrong

    # (--all-files with no call checked: are there Op classes at all? A diff's op file is read already.)
    warn_if_wrong(repo.root, cfg, found_nothing=target.mode == "all" and not result.checked_calls)
    data = static_json(result)
    ok = "nothing-to-do" if not result.changes else "ok"
    data["status"] = "broken" if result.broken or result.rewritten else ok
    if opts.format == "github":
        from benchop_hook.report.github import render_static

        print(render_static(result, data, kind="check"))
    else:
        text = render_check(result, quiet=opts.quiet)
        if text:
            print(text)
    if opts.json:
        write_json(opts.json, data)
    summarize(opts, "check", data, label=target.label, diffs=static_diffs(result))
    return EXIT_BLOCKED if (result.broken or result.rewritten) else EXIT_OK
