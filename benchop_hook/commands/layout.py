"""What the config's globs find in the repository, and the warnings a wrong layout gets.

A glob that matches nothing, or op files without an Op class, would otherwise read as "every benchmark
call binds". Globbing lists the index, so it is done only by `doctor`, `check --all-files`, and a command or
hook stage that already has work: never on the no-op hook path.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from benchop_hook.config import Config
from benchop_hook.git import repo as gitrepo
from benchop_hook.globs import matches
from benchop_hook.paths import Paths

# Each glob key, and whether bench-op sees nothing without a match for it (test and interface files are
# evidence and extras: a repository may have none).
GLOB_KEYS = (("op-paths", True), ("benchmark-paths", True), ("test-paths", False), ("interface-paths", False))
DOCTOR = "`bench-op doctor` shows what each glob matches"


@dataclass(frozen=True)
class Glob:
    """One pattern of a glob key, and how many tracked files it matches."""

    key: str
    pattern: str
    files: int
    default: bool  # the key is not set in [tool.bench-op]


@dataclass(frozen=True)
class Layout:
    """The config's globs over the tracked files: each pattern's count, the op and benchmark files."""

    globs: tuple[Glob, ...]
    op_files: tuple[str, ...]
    bench_files: tuple[str, ...]


def _patterns(cfg: Config, key: str) -> tuple[str, ...] | None:
    value: tuple[str, ...] | None = getattr(cfg, key.replace("-", "_"))
    return value


def survey(root: str, cfg: Config) -> Layout:
    """The globs over the files of the index (what bench-op reads)."""
    files = sorted(p for p in gitrepo.ls_files(root, staged=True) if p.endswith(".py"))
    default = Config()
    globs = []
    for key, _ in GLOB_KEYS:
        patterns = _patterns(cfg, key)
        for pattern in patterns or ():
            n = sum(1 for f in files if matches(f, (pattern,)))
            globs.append(Glob(key, pattern, n, patterns == _patterns(default, key)))
    paths = Paths(cfg)
    return Layout(
        tuple(globs), tuple(f for f in files if paths.op(f)), tuple(f for f in files if paths.bench(f))
    )


_WHAT = {
    "op-paths": "your Op classes are",
    "benchmark-paths": "your benchmark files are",
    "test-paths": "your tests are",
    "interface-paths": "the other classes benchmarks build are",
}


def glob_problems(layout: Layout, *, each_pattern: bool = True) -> list[str]:
    """One sentence per glob that finds nothing: a key none of whose patterns matches, where bench-op then
    sees nothing; and (`each_pattern`, what `doctor` says) a pattern of the user's own that matches nothing,
    beside others that do."""
    out = []
    for key, needed in GLOB_KEYS:
        mine = [g for g in layout.globs if g.key == key]
        if not mine:
            continue
        if all(g.files == 0 for g in mine) and (needed or not mine[0].default):
            shown = "[" + ", ".join(repr(g.pattern) for g in mine) + "]"
            value = f"{key} (default {shown})" if mine[0].default else f"{key} = {shown}"
            out.append(
                f"{value} matches no tracked Python file: set {key} in [tool.bench-op] to where "
                f"{_WHAT[key]}"
            )
            continue
        if each_pattern and not mine[0].default:
            out.extend(
                f"{key} pattern {g.pattern!r} matches no tracked Python file: fix or remove it in "
                "[tool.bench-op]"
                for g in mine
                if g.files == 0
            )
    return out


def op_classes(root: str, cfg: Config, op_files: tuple[str, ...]) -> list[str]:
    """The Op classes the op files define (`op-bases`, followed through the repository), by qualified
    name. Reads and parses every op file: for `doctor`, and for a pass that found no Op to say why."""
    from benchop_hook.analysis.modules import ClassRef, ParseCache
    from benchop_hook.analysis.project import Project
    from benchop_hook.git.snapshots import WorkTree, list_tracked

    paths = Paths(cfg)
    project = Project(
        WorkTree(root, list_tracked(root)), ParseCache(), paths.op, cfg.op_bases, paths.interface
    )
    found: list[str] = []
    for path in op_files:
        mi = project.at(path)
        if mi is None:
            continue
        found.extend(f"{mi.module}.{name}" for name in mi.classes if project.is_op(ClassRef(mi.module, name)))
    return found


def no_op_class(cfg: Config, layout: Layout) -> str:
    bases = ", ".join(cfg.op_bases)
    return (
        f"no Op class (a class deriving from {bases}) in the {len(layout.op_files)} files op-paths matches: "
        "set op-bases in [tool.bench-op] to your Op base class, or op-paths to where the Ops are"
    )


_said: set[str] = set()


def warn(line: str) -> None:
    """A layout warning, said once per process (a hook stage asks at each step that finds nothing)."""
    if line not in _said:
        _said.add(line)
        print(f"bench-op: warning: {line}; {DOCTOR}.", file=sys.stderr)


def warn_if_wrong(root: str, cfg: Config, *, found_nothing: bool) -> bool:
    """Say what in the layout finds nothing; `found_nothing`: the pass saw no Op or no call, so the op files
    are read for an Op class too. True when something was said."""
    layout = survey(root, cfg)
    # Only a key that finds nothing at all: a config written for several layouts (a repository's eras, as
    # TileOPs' `top/` and `tileops/`) always has a pattern that matches nothing in one of them.
    problems = glob_problems(layout, each_pattern=False)
    if found_nothing and cfg.op_bases and layout.op_files and not op_classes(root, cfg, layout.op_files):
        problems.append(no_op_class(cfg, layout))
    for p in problems:
        warn(p)
    return bool(problems)
