"""The static pass's one entry: open the snapshots a target names, and run the driver for its mode.

Kept light at import: the heavy modules (ast-based analysis, libcst) are imported when there is work.
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING

from benchop_hook.config import Config
from benchop_hook.git import repo as gitrepo
from benchop_hook.git.target import Target

if TYPE_CHECKING:
    from benchop_hook.fixing.context import StaticContext
    from benchop_hook.fixing.results import StaticResult

# The static passes of this process, kept until it ends when `bench-op` runs as a program: it then leaves
# with a hard exit (`cli.entry`), and their trees go with the process instead of object by object (about
# 0.07 s on a large commit). None: freed as usual (tests call `cli.main` in one process, many times).
kept_until_exit: list[object] | None = None


def static_pass(
    repo: gitrepo.RepoPaths,
    cfg: Config,
    target: Target,
    changes: list[gitrepo.Change] | tuple[gitrepo.Change, ...],
    *,
    bench_from: str = "worktree",
    only: frozenset[str] | None = None,
    rewrite: bool = True,
    op: str | None = None,
) -> tuple[StaticResult, StaticContext]:
    """The static pass, and what it learned for the repair loop. Benchmark files are read from the working
    tree, or from the target's commit (`bench_from="target"`: the follow-up commit is made on it). `op`:
    only the calls of that Op class (`run --op`)."""
    from benchop_hook.fixing.all_files import AllFiles, all_files_pass
    from benchop_hook.fixing.commit_range import range_pass
    from benchop_hook.fixing.detect import Sources
    from benchop_hook.git import snapshots
    from benchop_hook.git.last_commit import LastCommits
    from benchop_hook.rewrite.wrap import project_line_length

    root = repo.root
    cfg = dataclasses.replace(cfg, line_length=project_line_length(root))  # a rewritten call fits it
    links: list[str] = []
    tracked = snapshots.list_tracked(root, links=links)
    if target.mode == "all":
        new: snapshots.Snapshot = snapshots.WorkTree(root, tracked, links)
        opts = AllFiles(LastCommits(root), only, os.path.join(repo.git_dir, "bench-op"))
        out = all_files_pass(cfg, Sources(None, new, new, ()), target, opts, rewrite=rewrite)
    else:
        if target.mode == "staged":
            old: snapshots.Snapshot = snapshots.GitSnapshot(root, "HEAD")
            new = snapshots.GitSnapshot(root, None)
        else:
            assert target.from_rev and target.to_rev
            old = snapshots.GitSnapshot(root, target.from_rev)
            new = snapshots.GitSnapshot(root, target.to_rev)
        bench = new if bench_from == "target" else snapshots.WorkTree(root, tracked, links)
        out = range_pass(cfg, Sources(old, new, bench, tuple(changes)), target, rewrite=rewrite, op=op)
    if kept_until_exit is not None:
        kept_until_exit.append(out)
    return out


def bench_source(target: Target) -> str:
    """Where `check` and `fix` read the benchmarks: a range's own last commit (`--to-ref B` asks about the
    benchmarks as they are at B, whatever is checked out), else the working tree."""
    return "target" if target.mode == "range" else "worktree"


def restrict(result: StaticResult, shard: frozenset[str]) -> StaticResult:
    """Benchmark files named on the command line restrict check and fix as they restrict run."""
    if not shard:
        return result
    return dataclasses.replace(
        result,
        files=tuple(fr for fr in result.files if fr.path in shard),
        skipped=tuple((p, w) for p, w in result.skipped if p in shard),
    )
