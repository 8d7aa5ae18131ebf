"""What every command does first: find the repo, read the config, decide cheaply whether there is anything
to do."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from benchop_hook import config as config_mod
from benchop_hook.commands.options import Options
from benchop_hook.git import repo as gitrepo
from benchop_hook.git.target import Target, changed_files, resolve
from benchop_hook.paths import Paths

if TYPE_CHECKING:
    from benchop_hook.agent.settings import Agent
    from benchop_hook.run.job import Job, RunSettings
    from benchop_hook.run.runner import Warm


def tell_finished_runs(repo: gitrepo.RepoPaths) -> None:
    """One line about a background run that finished since the user last heard from bench-op."""
    if not os.path.isdir(os.path.join(repo.git_dir, "bench-op", "background")):
        return  # (one stat on the no-op path)
    from benchop_hook.followup.background import unseen_line

    line = unseen_line(repo)
    if line:
        print(line, file=sys.stderr)


def open_repo(opts: Options) -> tuple[gitrepo.RepoPaths, config_mod.Config]:
    repo = gitrepo.find_repo(opts.directory)
    tell_finished_runs(repo)
    cfg = config_mod.load(repo.root)
    for w in cfg.warnings:
        print(w, file=sys.stderr)
    return repo, cfg


@contextlib.contextmanager
def early_pytest(root: str, opts: Options, cfg: config_mod.Config) -> Iterator[Warm | None]:
    """The benchmark interpreter, started before the static pass is imported (pytest's and torch's
    imports overlap with bench-op's), for a command that knows it has work; ended on the way out if
    nothing took it."""
    from benchop_hook.run.runner import start_warm

    warm = None if opts.no_run else start_warm(root, opts.python, cfg)
    try:
        yield warm
    finally:
        if warm is not None:
            warm.close()


def op_files_touched(cfg: config_mod.Config, changes: list[gitrepo.Change]) -> bool:
    is_op = Paths(cfg).op
    return any((c.old_path and is_op(c.old_path)) or (c.new_path and is_op(c.new_path)) for c in changes)


def quick(opts: Options) -> tuple[gitrepo.RepoPaths, config_mod.Config, Target, list[gitrepo.Change] | None]:
    """Everything up to "is any op file in the diff?"; changes None means there is nothing to do."""
    repo, cfg = open_repo(opts)
    run_settings(opts, cfg)  # a wrong --gpus, --timeout... is an error even when nothing changed
    target = resolve(
        repo.root, all_files=opts.all_files, from_ref=opts.from_ref, to_ref=opts.to_ref, staged=opts.staged
    )
    if target.mode == "staged" and gitrepo.has_unmerged(repo.root):
        from benchop_hook.errors import GitError

        raise GitError(
            "the index has unmerged paths (a merge with conflicts): resolve them and `git add` "
            "them, then run bench-op again."
        )
    if target.mode == "all":
        from benchop_hook.commands.ci import warn_if_shallow

        warn_if_shallow(repo.root)
        return repo, cfg, target, []
    changes = changed_files(repo.root, target)
    if not needs_work(repo.root, cfg, target, changes):
        return repo, cfg, target, None
    return repo, cfg, target, changes


def needs_work(root: str, cfg: config_mod.Config, target: Target, changes: list[gitrepo.Change]) -> bool:
    """Did the diff touch an op file, or change the constructor of a class benchmarks may build?"""
    return op_files_touched(cfg, changes) or interface_ctor_changed(root, cfg, target, changes)


def interface_ctor_changed(
    root: str, cfg: config_mod.Config, target: Target, changes: list[gitrepo.Change]
) -> bool:
    """A workload or helper class's constructor changed: two blobs per touched file, read by one
    `git cat-file`, compared with `ast` (no libcst, no GitPython on this path)."""
    is_interface = Paths(cfg).interface
    touched = [c for c in changes if any(p and is_interface(p) for p in (c.old_path, c.new_path))]
    if not touched:
        return False
    from benchop_hook.analysis.interfaces import constructor_changed

    old_rev = "HEAD" if target.mode == "staged" else target.from_rev
    new_rev = "" if target.mode == "staged" else target.to_rev
    specs: list[str] = []
    for c in touched:
        specs.append(f"{old_rev}:{c.old_path}" if c.old_path else "")
        specs.append(f"{new_rev}:{c.new_path}" if c.new_path else "")
    asked = [s for s in specs if s]
    blobs = dict(zip(asked, gitrepo.cat_blobs(root, asked, keep_index=target.mode == "staged")))
    return any(
        constructor_changed(blobs.get(specs[2 * i]), blobs.get(specs[2 * i + 1])) for i in range(len(touched))
    )


def run_settings(
    opts: Options,
    cfg: config_mod.Config,
    *,
    affected: bool = False,
    no_run: bool = False,
    no_run_why: str = "--no-run",
    agent: Agent | None = None,
) -> RunSettings:
    """The run's settings, the command line over the config, checked: a bad value is a usage error whether
    or not there turns out to be work, so this is asked before anything decides there is none. `no_run_why`:
    what keeps the benchmarks from running, when the caller (not the flag) does."""
    from benchop_hook.run.job import settings

    split = None
    if opts.shard_spec is not None:
        from benchop_hook.run.shards import parse_shard

        split = parse_shard(opts.shard_spec)
    if opts.agent is not None or opts.no_agent:
        from benchop_hook.agent.settings import choose

        choose(cfg, given=opts.agent, off=opts.no_agent, configured=None)  # --agent '' or both: usage errors
    if opts.op is not None and (opts.all_files or not opts.op.isidentifier()):
        from benchop_hook.errors import UsageError

        raise UsageError(
            "--op takes an Op class name and works on a diff (staged changes or --from-ref/--to-ref), "
            "not on --all-files."
        )
    return settings(
        cfg,
        timeout=opts.timeout,
        max_iterations=opts.max_iterations,
        gpus=opts.gpus,
        repeats=opts.repeats if (opts.baseline or cfg.baseline) else None,
        python=opts.python,
        no_run=opts.no_run or no_run,
        no_commit=opts.no_commit or split is not None,  # the job that merges the shards commits, if anyone
        shard=opts.shard(),
        only=opts.only,
        baseline=opts.baseline,
        affected=affected,
        split=split,
        agent=agent,
        op=opts.op,
        no_run_why=no_run_why if no_run else "--no-run",
    )


def job_for(
    opts: Options,
    repo: gitrepo.RepoPaths,
    cfg: config_mod.Config,
    target: Target,
    changes: list[gitrepo.Change] | tuple[gitrepo.Change, ...],
    *,
    affected: bool = False,
    no_run: bool = False,
    no_run_why: str = "--no-run",
    agent: bool = False,
) -> Job:
    """What the run layer is asked to do: the command line over the config, checked (a bad value is a
    usage error), as one frozen value. The run layer never sees `Options`. `agent`: this stage may hand
    what bench-op could not fix to the person's coding agent (`bench-op run` and the follow-up stage; never
    the pre-commit stage)."""
    from benchop_hook.run.job import Job

    chosen = person_agent(opts, repo, cfg) if agent else None
    settings = run_settings(opts, cfg, affected=affected, no_run=no_run, no_run_why=no_run_why, agent=chosen)
    return Job(repo, cfg, target, tuple(changes), settings)


def person_agent(opts: Options, repo: gitrepo.RepoPaths, cfg: config_mod.Config) -> Agent | None:
    """The coding agent of the person running bench-op: `--agent`, else `git config bench-op.agent`."""
    from benchop_hook.agent.settings import INSIDE, choose

    configured = None if opts.agent or opts.no_agent else gitrepo.config_value(repo.root, "bench-op.agent")
    inside = bool(os.environ.get(INSIDE))
    return choose(cfg, given=opts.agent, off=opts.no_agent, configured=configured, inside=inside)
