"""The agent's edit, checked as bench-op checks its own rewrites, before anything of it is run or kept:

- it touches the blocked benchmark file only (or another benchmark file, with a stated reason);
- every call it wrote or changed binds the new signature (the judge's rule for calls written for the new
  interface), and the calls it left still bind as they should;
- no choice is dropped (`choices.py`), no test and no case removed, no case value left unread (`cases.py`).

Pure: sources and the static pass's `Judging` in, the reasons to refuse (none: accepted) out.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from benchop_hook.agent.cases import bench_functions, removed_cases
from benchop_hook.agent.choices import choices, dropped
from benchop_hook.analysis.locate import analyze
from benchop_hook.config import Config
from benchop_hook.fixing.commit_range import authored_lines, successors
from benchop_hook.fixing.context import StaticContext
from benchop_hook.fixing.judge import changes_reaching, judge_file
from benchop_hook.fixing.judging import Judging
from benchop_hook.fixing.plan import Status, judge_now
from benchop_hook.fixing.results import shown_call
from benchop_hook.git.repo import Change


@dataclass(frozen=True)
class Checked:
    """What the static checks say about one edited file."""

    problems: tuple[str, ...] = ()  # why it is refused; none: accepted
    # Test functions whose cases the source computes: collection must show at least this many.
    to_collect: Mapping[str, int] = field(default_factory=dict)


def judging(ctx: StaticContext, cfg: Config) -> Judging:
    """The rules bench-op judged its own rewrites by in this pass, for judging the agent's edit."""
    return Judging.of(
        ctx.new_p,
        ctx.old_p or ctx.new_p,
        ctx.evidence,
        ctx.changes,
        pin_defaults=cfg.pin_defaults,
        commit_old_p=ctx.old_p,
        successors=successors(ctx.changes),
        bench_path=ctx.paths.bench,
        off=ctx.off,
    )


def outside(
    changes: Sequence[Change], path: str, also: Mapping[str, str], is_bench: Callable[[str], bool]
) -> list[str]:
    """The paths the edit may not touch: anything but the blocked file, except another benchmark file the
    agent named with a reason (`ALSO <path>: <reason>`)."""
    touched = sorted({p for c in changes for p in (c.old_path, c.new_path) if p})
    return [p for p in touched if p != path and not (p in also and is_bench(p))]


def check_file(
    path: str,
    range_start: bytes | None,
    start: bytes,
    edited: bytes,
    j: Judging,
    is_bench: Callable[[str], bool],
) -> Checked:
    """`edited` (the agent's version of `path`) against `start` (the file bench-op handed it, its own fixes
    in) and `range_start` (the file before the change bench-op works on; None when the change added it)."""
    try:
        ast.parse(edited)
    except (SyntaxError, ValueError) as exc:
        return Checked((f"{path} does not parse after the edit: {exc}",))
    if edited == start:
        return Checked((f"the agent left {path} as it was",))
    authored = authored_lines(range_start, edited)
    problems = _not_binding(path, edited, j, authored) + _other_classes(path, edited, j, authored, is_bench)
    after = bench_functions(edited) or {}
    columns = {name: fn.columns for name, fn in after.items()}
    problems += dropped(choices(path, range_start or b"", start, j), path, edited, columns, j)
    removed, to_collect = removed_cases(bench_functions(start) or {}, after)
    return Checked(tuple(problems + removed), to_collect)


def _not_binding(path: str, edited: bytes, j: Judging, authored: frozenset[int]) -> list[str]:
    """Calls of the changed classes that need a fix still (what bench-op would have reported)."""
    verdict = judge_file(path, edited, j, authored)
    if verdict is None:
        return []
    if verdict.error:
        return [f"{path}: {verdict.error}"]
    return [
        f"{f.site.path}:{f.site.lineno}: {shown_call(f.site, f.method)}: {f.problem}"
        for f in verdict.findings
        if f.needs_action and not f.runtime_candidate
    ]


def _other_classes(
    path: str, edited: bytes, j: Judging, authored: frozenset[int], is_bench: Callable[[str], bool]
) -> list[str]:
    """A call the edit wrote of a class that did not change (the class made for a choice, another Op):
    it binds that class's constructor too. Classes of the benchmark files are left to the run: their
    constructors may be part of the edit."""
    out = []
    for site in analyze(path, edited, j.new_p, j.old_p).calls():
        if site.method is not None or len(site.classes) != 1 or site.classes != site.atoms:
            continue
        if not any(n in authored for n in range(site.lineno, site.end_lineno + 1)):
            continue
        if changes_reaching(site, j)[0]:
            continue  # the judge's
        (cls,) = site.classes
        where = j.new_p.class_path(cls)
        sig = j.new_p.constructor(cls) if where is not None and not is_bench(where) else None
        if sig is None:
            continue
        status, why = judge_now(site.args, site.expanded_args, sig, site.opaque)
        if status is Status.BROKEN:
            out.append(f"{site.path}:{site.lineno}: {shown_call(site, None)}: {why}")
    return out


def counted(names: Sequence[str], path: str) -> dict[str, int]:
    """Collected node ids (`path::test_x[case]`, `path::TestX::test_y[case]`) per test function."""
    out: dict[str, int] = {}
    for nodeid in names:
        file, _, rest = nodeid.partition("::")
        if file != path or not rest:
            continue
        fn = rest.split("[", 1)[0]
        out[fn] = out.get(fn, 0) + 1
    return out


def too_few(to_collect: Mapping[str, int], collected: Mapping[str, int]) -> list[str]:
    return [
        f"{fn} had {n} cases and collects {collected.get(fn, 0)} after the edit"
        for fn, n in sorted(to_collect.items())
        if collected.get(fn, 0) < n
    ]
