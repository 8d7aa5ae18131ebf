"""`bench-op check`: report Op signature changes and the benchmark calls they break; write nothing."""

from __future__ import annotations

import argparse

from benchop_hook.commands.common import quick, static
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK


def main(args: argparse.Namespace) -> int:
    repo, cfg, target, changes = quick(args)
    if changes is None:
        if not args.quiet:
            print(f"bench-op: nothing to check: no Op file changed in {target.label}.")
        if args.json:
            from benchop_hook.report import write_json

            write_json(args.json, {"status": "nothing-to-do", "target": target.as_json(), "changes": [], "findings": []})
        return EXIT_OK
    from benchop_hook.report import render_check, static_json, write_json

    result = static(repo, cfg, target, changes, rewrite=False)
    print(render_check(result))
    if args.json:
        data = static_json(result)
        data["status"] = "broken" if result.broken or result.rewritten else ("nothing-to-do" if not result.changes else "ok")
        write_json(args.json, data)
    return EXIT_BLOCKED if (result.broken or result.rewritten) else EXIT_OK
