"""The static pass over a diff (staged changes, or a range of commits):
detect the changes -> find the benchmark files that name them -> judge each -> rewrite each.

`range_pass(config, sources, target)` returns the `StaticResult` and the `StaticContext` the repair loop
works from. Each file is judged on its own, so with enough of them a forked child takes some.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.edits import EditKind
from benchop_hook.analysis.modules import ClassRef, ParseCache
from benchop_hook.analysis.project import Project
from benchop_hook.config import Config
from benchop_hook.fixing.apply import apply
from benchop_hook.fixing.context import StaticContext
from benchop_hook.fixing.detect import Projects, Sources, detect_changes, evidence_for
from benchop_hook.fixing.judge import judge_file
from benchop_hook.fixing.judging import Judging
from benchop_hook.fixing.results import FileResult, FileVerdict, StaticResult
from benchop_hook.fixing.rewriter import Rewriter
from benchop_hook.git.snapshots import Snapshot, WorkTree
from benchop_hook.git.target import Target
from benchop_hook.paths import Paths
from benchop_hook.rules.decide import turned_off

JUDGE_FORK_WEIGHT = 200_000  # bytes of the benchmark files judged (each costs its imports' parses too)
EVIDENCE_FORK_WEIGHT = 100_000  # bytes of changed tests to analyse first: about 0.2 s of one core
REWRITE_FORK_WEIGHT = 1  # the same when a rewrite is likely: libcst's import then overlaps the judging
_SYMLINK = "a symlink; bench-op never writes through one, so fix the file it points to by hand"


def projects(cfg: Config, paths: Paths, src: Sources) -> Projects:
    """The two versions of the repository, parsed lazily through one cache."""
    cache = ParseCache()
    new_p = Project(src.new, cache, paths.op, cfg.op_bases, paths.interface)
    old_p = Project(src.old, cache, paths.op, cfg.op_bases, paths.interface) if src.old is not None else None
    return Projects(new_p, old_p)


def range_pass(
    cfg: Config, src: Sources, target: Target, *, rewrite: bool, op: str | None = None
) -> tuple[StaticResult, StaticContext]:
    """The changes of the diff, and every benchmark file they concern, judged and (unless `rewrite` is
    False, as for `check`) rewritten. `op`: only the changes of that Op class (`--op`)."""
    paths = Paths(cfg)
    # libcst's import starts now on the second core when a rewrite may follow: the diff changes an op file.
    ahead = rewrite and any(
        p is not None and paths.op(p) for c in src.changes for p in (c.old_path, c.new_path)
    )
    rewriter = Rewriter.ahead() if ahead else Rewriter()
    try:
        return _range_pass(cfg, src, target, paths, rewriter, rewrite=rewrite, op=op)
    finally:
        rewriter.close()


def _range_pass(
    cfg: Config,
    src: Sources,
    target: Target,
    paths: Paths,
    rewriter: Rewriter,
    *,
    rewrite: bool,
    op: str | None,
) -> tuple[StaticResult, StaticContext]:
    pr = projects(cfg, paths, src)
    cs = detect_changes(src, paths, pr)
    outside: frozenset[str] = frozenset()
    if op is not None:
        from benchop_hook.fixing.one_op import of_op

        kept = of_op(cs.changes, op)
        outside = frozenset(
            r.name for c in cs.changes if c not in kept for r in (c.old, c.new) if r is not None
        )
        cs = replace(cs, changes=kept)
    ev = cs.evidence if cs.evidence is not None else evidence_for(src, paths, pr.new, pr.old)
    ctx = StaticContext(paths, pr.new, pr.old, src.bench, ev, cs.changes, turned_off(cfg.ignore), outside)
    result = StaticResult(target, cs.changes, skipped=cs.skipped, op_files_changed=cs.op_files_changed)
    if not cs.changes or pr.old is None:
        return result, ctx
    names = class_names(cs.changes)
    skipped = symlinks_naming(src.bench, paths, names, cs.skipped)
    j = Judging.of(
        pr.new,
        pr.old,
        ev,
        cs.changes,
        pin_defaults=cfg.pin_defaults,
        commit_old_p=pr.old,
        successors=successors(cs.changes),
        bench_path=paths.bench,
        off=ctx.off,
    )
    files_ = candidates(src.bench, paths, names)
    mine = {p: authored_lines(_before(src, p), src.bench.read(p)) for p in files_}
    files = judge_files(
        src.bench, files_, j, rewrite=rewrite, line_length=cfg.line_length, authored=mine, rewriter=rewriter
    )
    skipped += tuple((fr.path, fr.error) for fr in files if fr.error)
    return StaticResult(target, cs.changes, tuple(files), skipped, cs.op_files_changed), ctx


def _before(src: Sources, path: str) -> bytes | None:
    """A benchmark file as it was at the start of the range (through a rename); None when it is new."""
    if src.old is None:
        return None
    old_path = next((c.old_path for c in src.changes if c.new_path == path and c.old_path), path)
    return src.old.read(old_path)


def authored_lines(before: bytes | None, after: bytes | None) -> frozenset[int]:
    """The lines of `after` (1-based) that the range wrote or changed: every line of a new file, else the
    lines a line diff against `before` inserts or replaces. A call on them was written for the new
    signature."""
    if after is None:
        return frozenset()
    new = after.splitlines()
    if before is None:
        return frozenset(range(1, len(new) + 1))
    if before == after:
        return frozenset()
    out: set[int] = set()
    matcher = difflib.SequenceMatcher(None, before.splitlines(), new, autojunk=False)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            out.update(range(j1 + 1, j2 + 1))
    return frozenset(out)


def successors(changes: Iterable[OpChange]) -> frozenset[ClassRef]:
    return frozenset(c.new for c in changes if c.new is not None and c.old is not None)


def class_names(changes: Iterable[OpChange]) -> set[bytes]:
    return {ref.name.encode() for c in changes for ref in (c.old, c.new) if ref is not None}


def symlinks_naming(
    bench: Snapshot, paths: Paths, names: set[bytes] | None, skipped: tuple[tuple[str, str], ...]
) -> tuple[tuple[str, str], ...]:
    """`skipped`, with the symlinks under benchmark-paths that name a changed class (any, for None) added:
    bench-op never writes through one, and says so when it matters."""
    if not isinstance(bench, WorkTree):
        return skipped  # only a working tree has symlinks bench-op could be asked to write through
    out = list(skipped)
    for p in bench.links:
        if not paths.bench(p):
            continue
        try:
            with open(os.path.join(bench.root, p), "rb") as f:
                data = f.read(2_000_000)
        except OSError:
            data = b""
        if (names is None or any(n in data for n in names)) and (p, _SYMLINK) not in out:
            out.append((p, _SYMLINK))
    return tuple(out)


def candidates(bench: Snapshot, paths: Paths, names: set[bytes]) -> list[str]:
    """The benchmark files whose text names a changed class."""
    out = []
    for p in bench.paths():
        if not paths.bench(p):
            continue
        data = bench.read(p)
        if data is not None and any(n in data for n in names):
            out.append(p)
    return sorted(out)


def judge_files(
    bench: Snapshot,
    paths: list[str],
    j: Judging,
    *,
    rewrite: bool,
    line_length: int,
    authored: Mapping[str, frozenset[int]] | None = None,
    rewriter: Rewriter | None = None,
) -> list[FileResult]:
    """Each file judged (on its own: with enough of them, or a rewrite likely, a forked child takes some, and
    they come back in this order), then rewritten here. When a file is likely to be rewritten and no child
    imported libcst ahead (`rewriter`), it is imported here first, while the child judges."""
    from benchop_hook.fixing import forked

    rewriter = rewriter or Rewriter()
    bench.prefetch(paths)
    blobs = [bench.read(p) for p in paths]
    weights = [len(b or b"") for b in blobs]
    likely = [b is not None and likely_rewritten(b, j.changes) for b in blobs]
    # When a rewrite is likely a child judges from the start, however few the files: libcst's import (a
    # sixth of a large commit's static pass) is made here meanwhile, or was made ahead by the rewriter
    # child, and then both processes judge.
    rewriting = rewrite and any(likely)
    importing = rewriting and not rewriter.is_ahead
    threshold = REWRITE_FORK_WEIGHT if rewriting else JUDGE_FORK_WEIGHT
    shared = sum(weights) >= threshold and forked.can_fork()
    warmed = shared and warm_evidence(j, blobs, meanwhile=_import_rewriter if importing else None)
    # With libcst imported here, a forked child has it too: each process rewrites the files it judged, and
    # no rewrite is left for this process alone at the end. (The rewriter child answers this process only.)
    rewrites_too = warmed and importing

    def judged(k: int) -> FileVerdict | FileResult | None:
        v = judge_file(paths[k], blobs[k], j, (authored or {}).get(paths[k], frozenset()))
        if v is None or not rewrites_too:
            return v
        return apply(v, rewrite=rewrite, line_length=line_length)

    done = forked.map_split(
        judged,
        range(len(paths)),
        weights,
        min_weight=threshold,
        first=likely,
        meanwhile=_import_rewriter if importing and shared and not warmed else None,
    )
    return [
        v
        if isinstance(v, FileResult)
        else apply(v, rewrite=rewrite, line_length=line_length, rewriter=rewriter)
        for v in done
        if v is not None
    ]


def warm_evidence(
    j: Judging, blobs: Sequence[bytes | None], meanwhile: Callable[[], object] | None = None
) -> bool:
    """The changed tests and examples the judging is likely to read, analysed by two processes before it
    starts: the judging reads them for the calls of a class it can't settle from the signatures alone, and
    two processes judging files of one family would each analyse them. The classes are those whose
    signature changed and that a judged file names. `meanwhile` runs here while the child works. Whether it
    ran: it runs only when the files are worth a fork."""
    from benchop_hook.fixing import forked

    ev = j.evidence
    names = [
        (c.old.name.encode(), c.new.name.encode())
        for c in j.changes
        if c.old is not None and c.new is not None and c.edits
    ]
    named = [(o, n) for o, n in names if any(b is not None and (o in b or n in b) for b in blobs)]
    keys = ev.likely_read(named)
    weights = [ev.size_of(k) for k in keys]
    if sum(weights) < EVIDENCE_FORK_WEIGHT or not forked.can_fork():
        return False  # each is analysed when first asked, as before
    found = forked.map_split(ev.sites_of, keys, weights, min_weight=EVIDENCE_FORK_WEIGHT, meanwhile=meanwhile)
    ev.adopt(dict(zip(keys, found)))
    return True


def _import_rewriter() -> None:
    import benchop_hook.rewrite.edit  # noqa: F401 - libcst, ahead of the rewrites


def likely_rewritten(data: bytes, changes: Sequence[OpChange]) -> bool:
    """A guess, for the order of work only: the file names a class gone from its old name or module (an
    import to rewrite), or names a changed class and passes by keyword a parameter it lost or renamed. Such
    files are queued first, and libcst is imported while the child judges."""
    for c in changes:
        if c.old is None:
            continue
        if (c.new is None or c.new.name != c.old.name) and c.old.name.encode() in data:
            return True
        if c.new is not None and c.new.module != c.old.module and c.old.module.encode() in data:
            return True
        lost = [e.name for e in c.edits if e.kind in (EditKind.REMOVED, EditKind.RENAMED)]
        if lost and c.old.name.encode() in data and any(f"{p}=".encode() in data for p in lost):
            return True
    return False
