"""Which Op and interface classes changed in a diff: `detect_changes(sources, paths, projects) -> ChangeSet`.

Op files are always read. An edited interface file (a workload, a test helper) is read only when its
constructors may matter: a cheap `ast` comparison first, and a file is left unparsed when none of its
classes can reach a benchmark (no benchmark file names them, and no Op inherits from its module). A large
commit's work is shared with a forked child (`forked.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from benchop_hook.analysis.changes import OpChange, detect
from benchop_hook.analysis.evidence import TestEvidence
from benchop_hook.analysis.project import Project
from benchop_hook.git.repo import Change
from benchop_hook.git.snapshots import Snapshot
from benchop_hook.paths import Paths

VOTES_FORK_WEIGHT = 300_000  # characters of the files the rename votes diff
ANCESTOR_CHECK_WEIGHT = 400_000  # bytes of interface files only op files name: worth parsing every op file


@dataclass(frozen=True)
class Sources:
    """The snapshots one static pass reads."""

    old: Snapshot | None
    new: Snapshot
    bench: Snapshot  # where benchmark files are read from (and rewritten for)
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class Projects:
    """The two versions, parsed lazily through one cache."""

    new: Project
    old: Project | None


@dataclass(frozen=True)
class ChangeSet:
    """What `detect_changes` found."""

    changes: tuple[OpChange, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()  # op or interface files that could not be read, and why
    op_files_changed: bool = False  # for the summary line: an Op file (or a constructor) changed at all
    evidence: TestEvidence | None = None


def evidence_for(src: Sources, paths: Paths, new_p: Project, old_p: Project | None) -> TestEvidence:
    """What the updated tests say: every test file of the new version, and the ones the diff touched."""
    tests = [p for p in src.new.paths() if paths.test(p)]
    changed_tests = [
        (c.old_path, c.new_path)
        for c in src.changes
        if (c.old_path and paths.test(c.old_path)) or (c.new_path and paths.test(c.new_path))
    ]
    # Where the commit's own edits of a call can show its fix: the tests, and the workloads and examples
    # (interface files) it changed; never the benchmarks (what is fixed) or the op files (the change).
    examples = [
        (c.old_path, c.new_path)
        for c in src.changes
        if c.old_path
        and c.new_path
        and c.new_path.endswith(".py")
        and (paths.test(c.new_path) or (paths.interface(c.new_path) and not paths.op(c.new_path)))
    ]
    return TestEvidence(new_p, old_p, tests, changed_tests, examples)


def detect_changes(src: Sources, paths: Paths, pr: Projects) -> ChangeSet:
    """The Op changes of a diff (and of the interface classes benchmarks build), the files that could not
    be read, and the tests' evidence."""
    return _Detector(src, paths, pr).run()


_WORD_RUN = re.compile(rb"[A-Za-z0-9_]+")
_CLASS = re.compile(rb"\nclass\s+(\w+)")  # a top-level class (one in a string only costs a parse)


def _word_runs(blobs: Iterable[bytes | None]) -> bytes:
    return b"\0".join(set(_WORD_RUN.findall(b"\0".join(b for b in blobs if b is not None))))


class _Detector:
    """One detection; holds only what it reads once (the corpora of names), never a result to share."""

    def __init__(self, src: Sources, paths: Paths, pr: Projects) -> None:
        self.src, self.paths, self.new_p, self.old_p = src, paths, pr.new, pr.old
        self._corpus: tuple[bytes, bytes] | None = None

    def _op(self, c: Change) -> bool:
        return bool((c.old_path and self.paths.op(c.old_path)) or (c.new_path and self.paths.op(c.new_path)))

    def _detected(self, p: str) -> bool:
        return self.paths.op(p) or self.paths.interface(p)

    def run(self) -> ChangeSet:
        src = self.src
        others = [c for c in src.changes if not self._op(c)]
        # Every changed Python file is read below (op files, the interface check, the rename votes).
        if src.old is not None:
            src.old.prefetch(c.old_path for c in src.changes if c.old_path and c.old_path.endswith(".py"))
        src.new.prefetch(c.new_path for c in src.changes if c.new_path and c.new_path.endswith(".py"))
        # The op files are parsed below whatever the interface check says: parse them while it runs.
        warm: list[tuple[Project, str]] = []
        if self.old_p is not None and src.old is not None:
            ops = [c for c in src.changes if self._op(c)]
            warm = [(self.old_p, c.old_path) for c in ops if c.old_path and self._detected(c.old_path)]
            warm += [(self.new_p, c.new_path) for c in ops if c.new_path and self._detected(c.new_path)]
        answers = self.interface_changed(others, lambda: [p.at(path) for p, path in warm])
        changed = {id(c) for c, yes in zip(others, answers) if yes}
        if changed or any(self._op(c) for c in src.changes):
            # A class that left one file may have gone to another (modules merged or split): a file that
            # gained classes is read too, or the class would look removed with no successor.
            changed |= {id(c) for c in others if id(c) not in changed and self._gains_classes(c)}
        op_changes = [c for c in src.changes if self._op(c) or id(c) in changed]
        op_files_changed = bool(op_changes) or self._unparsed_changed(others, answers)
        if not op_changes or self.old_p is None:
            return ChangeSet(op_files_changed=op_files_changed)
        old_paths = [c.old_path for c in op_changes if c.old_path and self._detected(c.old_path)]
        new_paths = [c.new_path for c in op_changes if c.new_path and self._detected(c.new_path)]
        skipped = _unreadable(self.old_p, old_paths, [])
        skipped = _unreadable(self.new_p, new_paths, skipped)
        # A file that can't be read on either side says nothing about its classes (they are not "removed").
        unreadable = {p for p, _ in skipped}
        drop = {
            (o, n)
            for o, n in ((c.old_path, c.new_path) for c in op_changes)
            if o in unreadable or n in unreadable
        }
        old_paths = [p for p in old_paths if not any(p == o for o, _ in drop)]
        new_paths = [p for p in new_paths if not any(p == n for _, n in drop)]
        ev = evidence_for(src, self.paths, self.new_p, self.old_p)
        found = detect(
            self.old_p, self.new_p, old_paths, new_paths, self.op_files, ev.rename_hints, self.rename_votes
        )
        return ChangeSet(tuple(self._built_by_benchmarks(found)), tuple(skipped), op_files_changed, ev)

    def _built_by_benchmarks(self, changes: list[OpChange]) -> list[OpChange]:
        """Interface classes (workloads, helpers) matter only where a benchmark names them; Ops always do."""

        def interface(c: OpChange) -> bool:
            return (c.old is None or not self.old_p or not self.old_p.is_op(c.old)) and (
                c.new is None or not self.new_p.is_op(c.new)
            )

        if not any(interface(c) for c in changes):
            return changes
        bench = self.src.bench
        blobs = [d for p in bench.paths() if self.paths.bench(p) and (d := bench.read(p)) is not None]
        return [
            c
            for c in changes
            if not interface(c)
            or any(n.encode() in d for n in {r.name for r in (c.old, c.new) if r} for d in blobs)
        ]

    def interface_changed(
        self, changes: list[Change], meanwhile: Callable[[], object] | None = None
    ) -> list[bool | None]:
        """For each change, whether it is of an interface file whose classes' constructors changed (most
        changes to such files don't); None for an edited file left unparsed because none of its classes
        can matter (`_unparsed`). A large commit's files are shared with a forked child, and `meanwhile`
        runs in this process while the child works."""
        from benchop_hook.analysis.interfaces import constructor_changed
        from benchop_hook.fixing import forked

        out: list[bool | None] = [False] * len(changes)
        asks: list[int] = []
        late: dict[
            int, str
        ] = {}  # named by op files only: asked once their module is known to be an ancestor
        blobs: dict[int, tuple[bytes | None, bytes | None]] = {}
        for i, c in enumerate(changes):
            pair = self._edited_interface(c)
            if pair is None:
                continue
            blobs[i] = pair
            why = self._unparsed(c, *pair)
            if why == "nowhere":
                out[i] = None
            elif why == "op files" and c.new_path:
                late[i] = c.new_path
            else:
                asks.append(i)

        def size(i: int) -> int:
            return len(blobs[i][0] or b"") + len(blobs[i][1] or b"")

        ancestors: set[str] = set()
        if sum(size(i) for i in late) < ANCESTOR_CHECK_WEIGHT:
            asks += sorted(late)
            late = {}

        def then() -> None:
            if meanwhile is not None:
                meanwhile()
            if late:
                ancestors.update(self._op_ancestor_modules())

        answers = forked.map_split(
            lambda i: constructor_changed(*blobs[i]), asks, [size(i) for i in asks], meanwhile=then
        )
        for i, yes in zip(asks, answers):
            out[i] = yes
        for i, path in late.items():
            # No op class inherits from a class of this module: its constructors reach no benchmark.
            out[i] = constructor_changed(*blobs[i]) if self.new_p.module_name(path) in ancestors else None
        return out

    def _gains_classes(self, c: Change) -> bool:
        """An interface file whose new version defines a top-level class its old version did not."""
        from benchop_hook.analysis.interfaces import at_line_starts

        if not c.new_path or not self.paths.interface(c.new_path):
            return False
        new = self.src.new.read(c.new_path)
        if new is None or b"class " not in new:
            return False
        old = self.src.old.read(c.old_path) if c.old_path and self.src.old is not None else None
        return bool(set(at_line_starts(_CLASS, new)) - set(at_line_starts(_CLASS, old or b"")))

    def _edited_interface(self, c: Change) -> tuple[bytes | None, bytes | None] | None:
        """Both sides of a change of an interface file whose bytes differ; None for any other change."""
        paths = [p for p in (c.old_path, c.new_path) if p]
        if not paths or not all(self.paths.interface(p) for p in paths) or self.src.old is None:
            return None
        old = self.src.old.read(c.old_path) if c.old_path else None
        new = self.src.new.read(c.new_path) if c.new_path else None
        return None if old == new else (old, new)

    def _unparsed(self, c: Change, old: bytes | None, new: bytes | None) -> str | None:
        """Whether an edited interface file can be left unparsed: "nowhere" when no benchmark file and no op
        file names any of its classes; "op files" when only op files do (then it depends on whether an Op
        inherits from one of them: a call of the class in an op file is not the Op's constructor); None:
        parse it. Only when its top-level classes are the same on both sides (none appears or disappears to
        pair as a rename): a class's change is dropped unless a benchmark file names it
        (`_built_by_benchmarks`), and reaches an Op only as an ancestor (`changes.detect`'s frontier, which
        looks in the op files that name it)."""
        from benchop_hook.analysis.interfaces import left_unparsed

        if old is None or new is None or c.old_path != c.new_path:
            return None
        bench, ops = self._corpora()
        return left_unparsed(old, new, bench.__contains__, ops.__contains__)

    def _op_ancestor_modules(self) -> set[str]:
        """The modules of every class an Op of the new version inherits from (each op file parsed)."""
        from benchop_hook.analysis.changes import classes_in

        out: set[str] = set()
        for path in self.op_files():
            for ref in classes_in(self.new_p, path):
                if self.new_p.is_op(ref):
                    out.update(a.module for a in self.new_p.ancestors(ref))
        return out

    def _unparsed_changed(self, changes: list[Change], answers: list[bool | None]) -> bool:
        """Whether a file the interface check left unparsed changed a constructor after all: asked only
        when nothing else changed, for the summary line (none of its classes matters to a benchmark)."""
        from benchop_hook.analysis.interfaces import constructor_changed

        old, new = self.src.old, self.src.new
        return old is not None and any(
            constructor_changed(old.read(c.old_path or ""), new.read(c.new_path or ""))
            for c, a in zip(changes, answers)
            if a is None
        )

    def _corpora(self) -> tuple[bytes, bytes]:
        """What can name a class of an interface file so that it matters: the benchmark files, and the op
        files. Both are searched for the name as a substring (as `_built_by_benchmarks` and `changes.detect`
        do); an ASCII name found in a text lies within one run of ASCII letters, digits and underscores, so
        the distinct runs, joined by NUL, answer the same, and are some 20 times shorter to search."""
        if self._corpus is None:
            bench, new = self.src.bench, self.src.new
            benches, ops = [p for p in bench.paths() if self.paths.bench(p)], self.op_files()
            bench.prefetch(benches)
            new.prefetch(ops)
            self._corpus = (_word_runs(bench.read(p) for p in benches), _word_runs(new.read(p) for p in ops))
        return self._corpus

    def rename_votes(self, olds: set[str], news: set[str]) -> dict[tuple[str, str], set[str]]:
        """Swaps of an old name for a new one in the other Python files of the diff (benchmarks excluded:
        they are what gets fixed)."""
        from benchop_hook.analysis import renames
        from benchop_hook.fixing import forked

        files: list[tuple[str, str, str]] = []
        for c in self.src.changes:
            if not (c.old_path and c.new_path and c.new_path.endswith(".py")) or self.paths.bench(c.new_path):
                continue
            if self.src.old is None:
                continue
            old, new = self.src.old.read(c.old_path), self.src.new.read(c.new_path)
            if old is None or new is None:
                continue
            files.append(
                (self._vote_kind(c.new_path), old.decode("utf-8", "replace"), new.decode("utf-8", "replace"))
            )

        def spread(
            f: Callable[[tuple[str, str, str]], list[tuple[str, str]]], xs: list[tuple[str, str, str]]
        ) -> list[list[tuple[str, str]]]:
            # A file with a swap is diffed and parsed on both sides: worth a fork from a few files on.
            return forked.map_split(f, xs, [len(a) + len(b) for _, a, b in xs], min_weight=VOTES_FORK_WEIGHT)

        return renames.votes_from(files, olds, news, spread)

    def _vote_kind(self, p: str) -> str:
        from benchop_hook.analysis import renames

        if p.endswith("__init__.py"):
            return renames.EXPORTS
        if self.paths.test(p):
            return renames.TESTS
        if self.paths.op(p):
            return renames.OPS
        return renames.WORKLOADS if "workload" in p else renames.OTHER

    def op_files(self) -> list[str]:
        return [p for p in self.src.new.paths() if self.paths.op(p)]


def _unreadable(
    project: Project, paths: Iterable[str], skipped: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """`skipped` with each of `paths` that does not parse in `project` added, once."""
    out = list(skipped)
    for p in paths:
        mi = project.at(p)
        if mi is not None and mi.error and (p, mi.error) not in out:
            out.append((p, mi.error))
    return out
