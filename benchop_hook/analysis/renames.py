"""Which class that disappeared became which class that appeared, from the evidence a commit gives.

Identity of the class body is not enough: a rename commit rewrites docstrings and
kernel names too. The evidence is what the rest of the same diff does with the
names: a test, workload or op file whose line `... SumOp ...` became `... SumFwdOp ...`
(the rest of the line unchanged), a package `__init__` whose export list swaps one
name for the other, or two names that match once case, a direction suffix
(`Fwd`, `Bwd`, `Forward`, `Backward`) and abbreviations the same commit makes
elsewhere are set aside. Pairs are one-to-one across the whole commit; a name
with several equally good candidates is reported with them, never guessed. A name
no evidence pairs may still have a successor by elimination (`changes.py`): the one
class left, with the same constructor, where it stood in the export list
(`takes_its_place`).

Pure: texts and names in, pairs out.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ast

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DIRECTION = re.compile(r"(fwd|bwd|forward|backward)$")

# Evidence kinds, strongest first; the value is what the report says.
EXPORTS = "the package exports swap the names"
TESTS = "the tests updated in the same commit use the new name"
WORKLOADS = "the workloads updated in the same commit use the new name"
OPS = "the op modules updated in the same commit use the new name"
OTHER = "other modules updated in the same commit use the new name"
NAMES = "the names match apart from case, direction suffix and the commit's abbreviations"
# Not a vote: what `changes.py` concludes once the proven pairs are taken (`takes_its_place`).
ELIMINATION = (
    "the only class left in its module once the proven renames are taken, with the same constructor, in its "
    "place in the export list"
)
FileMap = Callable[
    [Callable[[tuple[str, str, str]], list[tuple[str, str]]], list[tuple[str, str, str]]],
    list[list[tuple[str, str]]],
]

_RANK = {EXPORTS: 0, TESTS: 1, WORKLOADS: 2, OPS: 3, OTHER: 3, NAMES: 4}


@dataclass(frozen=True)
class Pairing:
    pairs: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)  # old -> (new, evidence)
    ambiguous: dict[str, tuple[str, ...]] = field(default_factory=dict)  # old -> candidate new names


def votes_from(
    files: Iterable[tuple[str, str, str]],
    olds: Collection[str] | None = None,
    news: Collection[str] | None = None,
    map_files: FileMap | None = None,
) -> dict[tuple[str, str], set[str]]:
    """(old name, new name) -> evidence kinds, from (kind, old text, new text) of the files a commit
    changed; only pairs of an old name in `olds` and a new one in `news` when those are given.
    `map_files(f, files)` is `[f(x) for x in files]` (the caller may spread it over processes)."""
    out: dict[tuple[str, str], set[str]] = {}
    wanted = None if olds is None or news is None else _pairs_of(set(olds), set(news))
    kept: list[tuple[str, str, str]] = []
    for kind, old_text, new_text in files:
        # A swap of o for n needs o on an old line and n on a new one: a file that has neither says
        # nothing, and diffing it (difflib and two parses) was most of a large commit's static pass.
        if olds is not None and not any(o in old_text for o in olds):
            continue
        if news is not None and not any(n in new_text for n in news):
            continue
        kept.append((kind, old_text, new_text))

    def swaps(f: tuple[str, str, str]) -> list[tuple[str, str]]:
        return substitutions(f[1], f[2], wanted)

    found = map_files(swaps, kept) if map_files is not None else [swaps(f) for f in kept]
    for (kind, _, _), pairs in zip(kept, found):
        for pair in pairs:
            out.setdefault(pair, set()).add(kind)
    return out


def _pairs_of(olds: set[str], news: set[str]) -> Callable[[str, str], bool]:
    return lambda o, n: o in olds and n in news


def _words(line: str) -> list[str]:
    return _IDENT.findall(line)


def substitutions(
    old_text: str, new_text: str, wanted: Callable[[str, str], bool] | None = None
) -> list[tuple[str, str]]:
    """(old identifier, new identifier) for each aligned line pair that differs only by identifiers swapped
    (only the pairs `wanted` accepts, when given).

    A line counts when, token for token, it is the old line with some identifiers replaced;
    only then does the swap say "this name is now that name".
    """
    a, b = old_text.splitlines(), new_text.splitlines()
    # Comment and docstring lines are found (a parse of each side) only once a line swaps a name.
    prose: list[set[int]] = []
    out: list[tuple[str, str]] = []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag != "replace" or (i2 - i1) != (j2 - j1):
            continue
        for i, j in zip(range(i1, i2), range(j1, j2)):
            swaps = _line_swaps(a[i], b[j])
            if wanted is not None:
                swaps = [(p, q) for p, q in swaps if wanted(p, q)]
            if not swaps:
                continue
            if not prose:
                prose = [_prose_lines(old_text, a), _prose_lines(new_text, b)]
            if i not in prose[0] and j not in prose[1]:
                out.extend(swaps)
    return out


def _prose_lines(text: str, lines: list[str]) -> set[int]:
    """0-based numbers of comment lines and docstring lines: a name mentioned in prose is not a use of it."""
    import ast

    from benchop_hook.analysis import trees

    out = {i for i, line in enumerate(lines) if line.lstrip().startswith("#")}
    try:
        tree = trees.parse_text(text)
    except (SyntaxError, ValueError):
        return out
    for node in _statements(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            out.update(range(node.lineno - 1, (node.end_lineno or node.lineno)))
    return out


def _statements(tree: ast.Module) -> list[ast.AST]:
    """Every statement of the tree (and the handlers and match cases that hold statements), without
    descending into expressions: an `Expr` statement is only ever in a list of statements, and no
    expression holds one (a lambda's body is an expression). `ast.walk` visited every node of the 86 files
    a large rename commit parses here (~0.15 s)."""
    import ast

    holders = (ast.stmt, ast.excepthandler, ast.match_case)
    out: list[ast.AST] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        for name in node._fields:
            v = getattr(node, name, None)
            if isinstance(v, list):
                todo.extend(item for item in v if isinstance(item, holders))
    return out


def _line_swaps(x: str, y: str) -> list[tuple[str, str]]:
    # Same text apart from identifiers, and the same number of identifiers: swaps pair by position.
    # A definition line is no evidence: a class replaced by another at the same place swaps it too.
    if x.lstrip().startswith(("class ", "def ")):
        return []
    if _IDENT.sub("_", x).strip() != _IDENT.sub("_", y).strip():
        return []
    wx, wy = _words(x), _words(y)
    if len(wx) != len(wy):
        return []
    return [(p, q) for p, q in zip(wx, wy) if p != q]


def _split_words(name: str) -> list[str]:
    """`GroupQueryAttentionFwdOp` -> ['group', 'query', 'attention', 'fwd', 'op']; acronyms kept whole."""
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)
    return [p.lower() for p in parts]


def name_words(name: str) -> list[str]:
    """The words of a class name, lower case: `Conv2dBiasFwdOp` -> ['conv', '2', 'd', 'bias', 'fwd', 'op']."""
    return _split_words(name)


def normalise(name: str, abbreviations: dict[str, str] | None = None) -> str:
    """Lower case, without a trailing `Op`, direction suffix or underscores; known abbreviations applied."""
    n = name.lower().replace("_", "")
    n = n.removesuffix("op")
    n = _DIRECTION.sub("", n)
    for long, short in sorted((abbreviations or {}).items(), key=lambda kv: -len(kv[0])):
        n = n.replace(long, short)
    return n


def abbreviations_of(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Word-run abbreviations a set of known renames makes (`groupqueryattention` -> `gqa`)."""
    out: dict[str, str] = {}
    for old, new in pairs:
        ow, nw = _split_words(old), _split_words(new)
        sm = difflib.SequenceMatcher(None, ow, nw, autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag != "replace":
                continue
            long, short = "".join(ow[i1:i2]), "".join(nw[j1:j2])
            # An abbreviation keeps the initials of the words it stands for.
            if len(short) < len(long) and short == "".join(w[0] for w in ow[i1:i2])[: len(short)]:
                out[long] = short
    return out


def _candidates(
    olds: set[str],
    news: set[str],
    votes: dict[tuple[str, str], set[str]],
    compatible: Callable[[str, str], bool],
) -> dict[str, dict[str, set[str]]]:
    """old -> {candidate new name -> evidence kinds}: the votes, then names that match."""
    cand: dict[str, dict[str, set[str]]] = {o: {} for o in olds}
    for (o, n), kinds in votes.items():
        if kinds == {EXPORTS} and not _share_a_word(o, n):
            # A sorted export list where one class left and an unrelated one came in at the same place
            # (peft's "BoneConfig" and "CartridgeConfig") reads as a swap: alone, no evidence of a rename.
            continue
        if o in olds and n in news and compatible(o, n):
            cand[o].setdefault(n, set()).update(kinds)
    # Names: first with case and direction only, then with the abbreviations the evidence shows.
    known = [(o, n) for o in cand for n in cand[o]]
    abbr = abbreviations_of(known)
    for abbreviations in ({}, abbr):
        by_norm: dict[str, list[str]] = {}
        for n in news:
            by_norm.setdefault(normalise(n, abbreviations), []).append(n)
        for o in olds:
            for n in by_norm.get(normalise(o, abbreviations), []):
                if compatible(o, n):
                    cand[o].setdefault(n, set()).add(NAMES)
    return cand


# Words of class names that say what kind of class it is, not which one.
_KIND_WORDS = frozenset(
    {"op", "fwd", "bwd", "forward", "backward", "config", "layer", "module", "kernel", "args"}
)


def _share_a_word(a: str, b: str) -> bool:
    """Two class names with a word in common besides the words of their kind (`SumOp`, `SumFwdOp`)."""
    return bool((set(_split_words(a)) & set(_split_words(b))) - _KIND_WORDS)


def pair_names(
    disappeared: Sequence[str],
    appeared: Sequence[str],
    votes: dict[tuple[str, str], set[str]],
    compatible: Callable[[str, str], bool],
) -> Pairing:
    """One successor per disappeared name, from `votes` ((old, new) -> evidence kinds) and name matching.

    A pair is taken only when it is the best-supported candidate on both sides; the rest is
    either ambiguous (reported with its candidates) or has no successor.
    """
    cand = _candidates(set(disappeared), set(appeared), votes, compatible)

    def score(kinds: set[str]) -> tuple[int, int]:
        return (-min(_RANK[k] for k in kinds), len(kinds))

    pairs: dict[str, tuple[str, tuple[str, ...]]] = {}
    ambiguous: dict[str, tuple[str, ...]] = {}
    taken: set[str] = set()
    changed = True
    while changed:
        changed = False
        for o in sorted(cand):
            if o in pairs:
                continue
            options = {n: k for n, k in cand[o].items() if n not in taken}
            if not options:
                continue
            best = max(score(k) for k in options.values())
            top = sorted(n for n, k in options.items() if score(k) == best)
            if len(top) != 1:
                continue
            n = top[0]
            # The successor must not be at least as well supported as the successor of another name.
            rivals = [
                o2
                for o2 in cand
                if o2 != o and o2 not in pairs and n in cand[o2] and score(cand[o2][n]) >= best
            ]
            if rivals:
                continue
            pairs[o] = (n, tuple(sorted(cand[o][n], key=lambda k: _RANK[k])))
            taken.add(n)
            changed = True
    for o in sorted(cand):
        if o in pairs:
            continue
        left = sorted(n for n in cand[o] if n not in taken)
        if left:
            ambiguous[o] = tuple(left)
    return Pairing(pairs, ambiguous)


def takes_its_place(
    old: str,
    new: str,
    old_exports: Sequence[str],
    new_exports: Sequence[str],
    proven: Mapping[str, str],
) -> bool:
    """Whether `new` stands where `old` stood in an export list, and nothing else in it moved: the same
    length, `new` at `old`'s index, every other entry the same or a proven rename of it (`proven`: old ->
    new). A list that also gained, lost or reordered a name says nothing of which class took which place."""
    if len(old_exports) != len(new_exports) or old_exports.count(old) != 1:
        return False
    i = old_exports.index(old)
    if new_exports[i] != new:
        return False
    return all(
        a == b or proven.get(a) == b for k, (a, b) in enumerate(zip(old_exports, new_exports)) if k != i
    )
