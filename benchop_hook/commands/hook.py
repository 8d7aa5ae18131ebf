"""The hook stages.

pre-commit stage: a commit can't be made inside a commit, so bench-op fixes the
benchmark files in the working tree and fails with a message (pre-commit's
`--fix` convention: the staging area is never touched; the user reviews and adds).

post-commit / post-merge: compare HEAD~1..HEAD (ORIG_HEAD..HEAD after a merge),
repair and run the benchmarks the change broke, and commit them as a follow-up
commit of their own (`followup.py`), or say why that was blocked.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import TYPE_CHECKING

from benchop_hook import config as config_mod
from benchop_hook.commands.common import early_pytest, job_for, needs_work, run_settings
from benchop_hook.commands.options import Options
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK
from benchop_hook.git import repo as gitrepo
from benchop_hook.git.commit import ENV_GUARD, is_follow_up
from benchop_hook.git.target import Target
from benchop_hook.program import command

if TYPE_CHECKING:
    from benchop_hook.run.job import Job
    from benchop_hook.run.outcome import RunOutcome


def main(opts: Options) -> int:
    if os.environ.get(ENV_GUARD):
        return EXIT_OK  # bench-op's own follow-up commit
    repo = gitrepo.find_repo(opts.directory)
    cfg = config_mod.load(repo.root)
    for w in cfg.warnings:
        print(w, file=sys.stderr)
    opts = dataclasses.replace(opts, all_files=False, quiet=True)
    run_settings(opts, cfg)  # a wrong hook argument is an error on every commit, not only on an Op change
    if opts.detached:
        return _detached(opts, repo, cfg, *opts.detached)
    if opts.stage == "pre-commit":
        # (No word on background runs here: pre-commit shows a passing hook's output to no one, and the
        # follow-up stage, whose output it shows, tells them after the commit.)
        return _pre_commit(opts, repo, cfg)
    _tell_background(repo)
    from benchop_hook.git import flows

    stage = flows.detect_stage(repo.git_dir) if opts.stage in (None, "follow-up") else opts.stage
    return _follow_up(opts, repo, cfg, stage)


def _pre_commit(opts: Options, repo: gitrepo.RepoPaths, cfg: config_mod.Config) -> int:
    changes = gitrepo.staged_changes_if_head(repo.root)
    if changes is None:
        return EXIT_OK  # the first commit: nothing to compare it with
    staged = {p for c in changes for p in (c.old_path, c.new_path) if p}
    explicit = [f for f in opts.files if f not in staged]
    only = opts.only
    if needs_work(repo.root, cfg, Target("staged"), changes):
        target = Target("staged")
    elif explicit:
        # `pre-commit run bench-op --all-files` (or --files): check those benchmarks as they are now.
        from benchop_hook.globs import matches

        benches = [f for f in explicit if matches(f, cfg.benchmark_paths)]
        if not benches:
            return EXIT_OK
        target = Target("all")
        only = frozenset(benches)
        from benchop_hook.commands.ci import warn_if_shallow

        warn_if_shallow(repo.root)
    else:
        return EXIT_OK
    # What pre-commit passed chose the mode; it is no shard. The commit is the user's to make. The
    # benchmarks run here only when no follow-up stage will run them after the commit (pre-commit-run).
    from benchop_hook.commands.install import follow_up_installed

    follow_up = follow_up_installed(repo.root)
    later = _runs_after_commit(cfg, follow_up)
    why = "--no-run" if opts.no_run else (_not_run_here(repo.root, target, cfg, follow_up) if later else "")
    opts = dataclasses.replace(opts, no_commit=True, files=(), only=only, no_run=opts.no_run or later)
    with early_pytest(repo.root, opts, cfg) as warm:
        from benchop_hook.commands.layout import warn_if_wrong
        from benchop_hook.fixing.static import static_pass
        from benchop_hook.git.lock import repo_lock
        from benchop_hook.paths import Paths
        from benchop_hook.report.run import summary_line
        from benchop_hook.run.execute import echo, execute
        from benchop_hook.run.tree_guard import tree_guard

        job = job_for(opts, repo, cfg, target, changes, no_run=opts.no_run, no_run_why=why)
        with repo_lock(repo.git_dir), tree_guard(repo.root, repo.git_dir, Paths(cfg).bench) as guard:
            static = static_pass(repo, cfg, target, changes, only=job.settings.only)
            warn_if_wrong(repo.root, cfg, found_nothing=target.mode == "all" and not static[0].checked_calls)
            run = execute(job, static, guard, warm=warm)
    echo(summary_line(run))
    if run.written:
        print(_review(sorted(run.written), target, why if opts.no_run else None))
        return EXIT_BLOCKED
    if run.exit_code == EXIT_BLOCKED:
        return _cannot_fix_here(run, follow_up)
    return run.exit_code


def _cannot_fix_here(run: RunOutcome, follow_up: bool) -> int:
    """What this stage could not fix (a hand edit, a benchmark that fails) would stop every commit the same
    way, `git add` or not: with a follow-up stage the commit goes ahead and that stage takes it over after
    the commit; without one, the stop says how to commit anyway and what then takes it over."""
    blocked = sorted({*(fr.path for fr in run.blocked_static), *(o.path for o in run.outcomes if o.bad)})
    what = ", ".join(blocked) or "a benchmark"
    if follow_up:
        print(
            f"bench-op: {what}: not fixed at the pre-commit stage; the commit goes ahead, and after it the "
            "follow-up stage runs and repairs it, hands it to your coding agent, or says why it is blocked."
        )
        return EXIT_OK
    print(
        f"bench-op: {what}: not fixed, and `git add` will not change that: commit anyway with "
        f"`SKIP=bench-op git commit`, then `{command('run --from-ref HEAD~1 --to-ref HEAD')}` runs and "
        "repairs it, and hands what is left to your coding agent."
    )
    return EXIT_BLOCKED


# Why a stage runs no benchmark, as its report says it (a user who passed no --no-run must not read it).
AFTER_COMMIT = "the follow-up stage runs them after the commit"  # the pre-commit stage, with one installed
NEVER = 'run-after-commit = "never" in [tool.bench-op]'  # the follow-up stage


def _not_run_here(root: str, target: Target, cfg: config_mod.Config, follow_up: bool) -> str:
    """Why the pre-commit stage runs no benchmark, as the report names it (when it runs none)."""
    if target.mode == "all":
        # `pre-commit run --all-files`: no commit is in progress, and a commit of benchmark files alone
        # starts no follow-up run.
        return "the pre-commit stage runs no benchmark"
    if follow_up and cfg.run_after_commit != "never":
        return AFTER_COMMIT
    return 'pre-commit-run = "false" in [tool.bench-op]'


def _review(written: list[str], target: Target, not_run: str | None) -> str:
    """What the user does with the files the pre-commit stage rewrote: a commit is in progress only for
    staged changes (`pre-commit run --all-files` has none to make again). `not_run`: why they did not run
    (the summary line above said it; this line says what runs them)."""
    n = len(written)
    files = f"{n} benchmark file{'s' if n != 1 else ''}"
    if target.mode == "all":
        later = "; `bench-op run --all-files` runs them" if not_run else ""
        return (
            f"bench-op: rewrote {files} to bind the current Op signatures ({', '.join(written)}): review "
            f"them (git diff), then git add and commit them{later}."
        )
    later = f"; {AFTER_COMMIT}" if not_run == AFTER_COMMIT else ""
    return (
        f"bench-op: rewrote {files} for the new Op interface ({', '.join(written)}): review them "
        f"(git diff), git add them, and commit again{later}."
    )


LONG_RUN = 60.0  # seconds of a foreground follow-up stage after which the background setting is worth a hint


def _background(repo: gitrepo.RepoPaths, cfg: config_mod.Config, target: Target, changes: list) -> int:
    """`background = true`: the static pass here, the run in a detached process; git commit returns now."""
    from benchop_hook.fixing.static import static_pass
    from benchop_hook.followup.background import start
    from benchop_hook.report.text import render_check

    result, _ = static_pass(repo, cfg, target, changes, bench_from="target", rewrite=False)
    print(render_check(result, hint=False), flush=True)  # the background run applies the fix itself
    if not result.files:
        return EXIT_OK  # no benchmark builds a changed class: nothing to run
    assert target.from_rev is not None and target.to_rev is not None
    print(start(repo, target.from_rev, target.to_rev, fixes=bool(result.rewritten)), flush=True)
    return EXIT_OK


def _follow_up_job(
    opts: Options,
    repo: gitrepo.RepoPaths,
    cfg: config_mod.Config,
    target: Target,
    changes: list[gitrepo.Change] | tuple[gitrepo.Change, ...],
    *,
    agent: bool,
) -> Job:
    """The follow-up stage's job, in the foreground or the background: what it runs is `run-after-commit`."""
    after = cfg.run_after_commit
    return job_for(
        opts,
        repo,
        cfg,
        target,
        changes,
        affected=after == "affected",
        no_run=after == "never",
        no_run_why=NEVER,
        agent=agent,
    )


def _detached(opts: Options, repo: gitrepo.RepoPaths, cfg: config_mod.Config, base: str, commit: str) -> int:
    """The background run itself (`hook follow-up --detached BASE COMMIT`), started by `_background`."""
    from benchop_hook.followup.background import run_detached

    changes = gitrepo.range_changes(repo.root, base, commit)
    target = Target("range", base[:12], commit[:12], base, commit)
    return run_detached(_follow_up_job(opts, repo, cfg, target, changes, agent=False))


def _runs_after_commit(cfg: config_mod.Config, follow_up: bool) -> bool:
    """Whether the pre-commit stage leaves the run to the follow-up stage: `pre-commit-run = false`, or
    "auto" with a follow-up hook installed (the run then happens once, after the commit)."""
    if cfg.pre_commit_run != "auto":
        return cfg.pre_commit_run == "false"
    return follow_up and cfg.run_after_commit != "never"


def _tell_background(repo: gitrepo.RepoPaths) -> None:
    """A background run that finished since the user last heard from bench-op, else a fix one saved as a
    patch that still waits to be applied: one line, on every commit until it is applied."""
    if not os.path.isdir(os.path.join(repo.git_dir, "bench-op", "background")):
        return  # (one stat on the no-op path)
    from benchop_hook.followup.background import unseen_line, waiting_patch_line

    line = unseen_line(repo) or waiting_patch_line(repo)
    if line:
        print(line, file=sys.stderr)


def _follow_up(opts: Options, repo: gitrepo.RepoPaths, cfg: config_mod.Config, stage: str) -> int:
    root = repo.root
    if os.environ.get("PRE_COMMIT_IS_SQUASH_MERGE") == "1":
        return EXIT_OK  # a squash merge commits nothing: the commit that follows gets the hook
    from benchop_hook.git import flows  # a rebase or a multi-commit pick is handled once, at its end

    flow = flows.decide_here(
        root, repo.git_dir, stage, opts.rewrite_command or os.environ.get("PRE_COMMIT_REWRITE_COMMAND")
    )
    if flow.action in ("quiet", "defer"):
        if flow.say:
            print(flow.say)
        return EXIT_OK
    merge = stage == "post-merge"
    if flow.action == "range":
        frm = flow.from_rev or ""
    else:
        base = "ORIG_HEAD^{commit}" if merge else "HEAD^1"
        frm = gitrepo.verify(root, base) or ""
    if not frm:
        return EXIT_OK  # the first commit, or no ORIG_HEAD: nothing to compare with
    changes = gitrepo.range_changes(root, frm, "HEAD")
    if not needs_work(root, cfg, Target("range", frm[:12], "HEAD", frm, "HEAD"), changes):
        return EXIT_OK
    if flow.action == "default" and is_follow_up(gitrepo.commit_message(root)):
        # (A rebase or a sequence may end on a follow-up commit it replayed: its range still counts.)
        return EXIT_OK
    hint = command(f"run --from-ref {frm[:12]} --to-ref HEAD")
    what = gitrepo.in_progress_operation(repo.git_dir, merge_done=merge, done=flow.done)
    if what is not None or gitrepo.has_unmerged(root):
        print(
            f"bench-op: {what or 'a merge with conflicts'} is in progress: skipped; "
            f"run `{hint}` once it is done."
        )
        return EXIT_OK
    head = gitrepo.head(root)
    target = Target("range", frm[:12], "HEAD", frm, head, to_is_head=True)
    from benchop_hook.commands.layout import warn_if_wrong

    warn_if_wrong(root, cfg, found_nothing=False)  # (there is work: an Op or a constructor changed)
    if cfg.background:
        return _background(repo, cfg, target, changes)
    return _run_follow_up(opts, repo, cfg, target, changes, merge=merge, flow_done=flow.done, hint=hint)


def _run_follow_up(
    opts: Options,
    repo: gitrepo.RepoPaths,
    cfg: config_mod.Config,
    target: Target,
    changes: list[gitrepo.Change],
    *,
    merge: bool,
    flow_done: frozenset[str],
    hint: str,
) -> int:
    """The follow-up stage in the foreground: run, repair, commit, report."""
    import time

    started = time.monotonic()
    with early_pytest(repo.root, opts, cfg) as warm:
        from benchop_hook.followup.assemble import run_and_maybe_commit
        from benchop_hook.git.lock import repo_lock
        from benchop_hook.report.as_json import run_json
        from benchop_hook.report.out import write_json
        from benchop_hook.report.run import follow_up_line, summary_line
        from benchop_hook.run.execute import echo

        with repo_lock(repo.git_dir):
            job = _follow_up_job(opts, repo, cfg, target, changes, agent=True)
            run = run_and_maybe_commit(job, merge_done=merge, flow_done=flow_done, warm=warm)
    echo(summary_line(run))
    if run.run_seconds is not None and time.monotonic() - started > LONG_RUN:
        print(
            f"bench-op: that took {time.monotonic() - started:.0f} s; with `background = true` in "
            "[tool.bench-op], git commit returns at once and the run goes on behind it "
            f"(`{command('status')}`)."
        )
    if run.status == "blocked":
        print(
            "bench-op: no follow-up commit for the blocked files; your commit stays as it is. "
            f"Fix the reason above, then run `{hint}`."
        )
    if run.commit and target.to_rev:
        # Last: git prints its own summary of the user's commit only after this hook returns, and that
        # line must not be the one that seems to name HEAD.
        print(follow_up_line(run.commit, target.to_rev))
    if opts.json:
        write_json(opts.json, run_json(run, target))
    return run.exit_code
