"""`bench-op run`: static rewrite, then run the affected benchmarks and repair them until they print numbers
(or block with the reason), then report, and at HEAD make the follow-up commit.

The run's steps are `execute.py`'s; the commit's assembly is `followup.py`'s.
"""

from __future__ import annotations

from benchop_hook.commands.ci import annotate, run_diffs, summarize
from benchop_hook.commands.common import early_pytest, job_for, quick
from benchop_hook.commands.options import Options
from benchop_hook.errors import EXIT_OK


def main(opts: Options) -> int:
    repo, cfg, target, changes = quick(opts)
    if changes is None:
        if not opts.quiet:
            print(f"bench-op: nothing to do: no Op file changed in {target.label}.")
        data = {"status": "nothing-to-do", "target": target.as_json(), "changes": [], "benchmarks": []}
        if opts.json:
            from benchop_hook.report.out import write_json

            write_json(opts.json, data)
        summarize(opts, "run", data, label=target.label)
        return EXIT_OK
    with early_pytest(repo.root, opts, cfg) as warm:
        from benchop_hook.followup.assemble import run_and_maybe_commit
        from benchop_hook.git.lock import repo_lock
        from benchop_hook.report.as_json import run_json
        from benchop_hook.report.out import write_json
        from benchop_hook.report.run import summary_line
        from benchop_hook.run.execute import echo

        with repo_lock(repo.git_dir):
            # `bench-op run` is the follow-up stage by hand: every function that builds a changed Op runs
            job = job_for(
                opts, repo, cfg, target, changes, affected=cfg.run_after_commit == "affected", agent=True
            )
            run = run_and_maybe_commit(job, warm=warm)
    if opts.op and run.result is not None and not run.result.changes:
        echo(f"bench-op: --op {opts.op}: no class of that name changed its signature in {target.label}.")
    echo(summary_line(run))
    data = run_json(run, target)
    data["range"] = target.label  # the refs as named ("origin/main..HEAD"), for a summary made elsewhere
    data["diffs"] = run_diffs(repo.root, run, target)
    if opts.json:
        write_json(opts.json, data)
    annotate(opts, "run", data)
    summarize(opts, "run", data, label=target.label)
    return run.exit_code
