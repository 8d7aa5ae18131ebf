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
    from benchop_hook.fixing.context import StaticContext
    from benchop_hook.fixing.static_pass import StaticResult
    from benchop_hook.run.runner import Warm


def open_repo(opts: Options) -> tuple[gitrepo.RepoPaths, config_mod.Config]:
    repo = gitrepo.find_repo(opts.directory)
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


# The static passes of this process, kept until it ends when `bench-op` runs as a program: it then leaves
# with a hard exit (`cli.entry`), and their trees go with the process instead of object by object (about
# 0.07 s on a large commit). None: freed as usual (tests call `cli.main` in one process, many times).
kept_until_exit: list[object] | None = None


def static(
    repo: gitrepo.RepoPaths,
    cfg: config_mod.Config,
    target: Target,
    changes: list[gitrepo.Change],
    *,
    bench_from: str = "worktree",
    only: frozenset[str] | None = None,
    rewrite: bool = True,
) -> tuple[StaticResult, StaticContext]:
    """The static pass, and what it learned for the repair loop. Imports the heavy modules: call it only
    when there is work."""
    import dataclasses

    from benchop_hook.fixing.static_pass import Sources, StaticPass
    from benchop_hook.git.last_commit import History
    from benchop_hook.rewrite.wrap import project_line_length

    root = repo.root
    cfg = dataclasses.replace(cfg, line_length=project_line_length(root))  # a rewritten call fits it
    links: list[str] = []
    tracked = gitrepo.list_tracked(root, links=links)
    if target.mode == "all":
        new: gitrepo.Snapshot = gitrepo.WorkTree(root, tracked, links)
        sp = StaticPass(
            cfg,
            Sources(None, new, new, []),
            target,
            history=History(root),
            only=set(only) if only is not None else None,
            rewrite=rewrite,
            cache_dir=os.path.join(repo.git_dir, "bench-op"),
        )
        if kept_until_exit is not None:
            kept_until_exit.append(sp)
        return sp.run(), sp.context()
    if target.mode == "staged":
        old: gitrepo.Snapshot = gitrepo.GitSnapshot(root, "HEAD")
        new = gitrepo.GitSnapshot(root, None)
    else:
        assert target.from_rev and target.to_rev
        old = gitrepo.GitSnapshot(root, target.from_rev)
        new = gitrepo.GitSnapshot(root, target.to_rev)
    bench = new if bench_from == "target" else gitrepo.WorkTree(root, tracked, links)
    sp = StaticPass(cfg, Sources(old, new, bench, changes), target, rewrite=rewrite)
    if kept_until_exit is not None:
        kept_until_exit.append(sp)
    return sp.run(), sp.context()


def restrict(result: StaticResult, shard: frozenset[str]) -> StaticResult:
    """Benchmark files named on the command line restrict check and fix as they restrict run."""
    if not shard:
        return result
    import dataclasses

    return dataclasses.replace(
        result,
        files=[fr for fr in result.files if fr.path in shard],
        skipped=[(p, w) for p, w in result.skipped if p in shard],
    )


def quick(opts: Options) -> tuple[gitrepo.RepoPaths, config_mod.Config, Target, list[gitrepo.Change] | None]:
    """Everything up to "is any op file in the diff?"; changes None means there is nothing to do."""
    repo, cfg = open_repo(opts)
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
