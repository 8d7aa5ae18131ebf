"""Learn a call's fix from the commit's own edits: pairs of an old call and its new call in the tests,
workloads and examples the commit changed, read as templates over the old call's arguments.

    -    op = LayerNormFwdOp(M=m, N=n, dtype=dtype)
    +    op = LayerNormFwdOp(normalized_shape=(n,), dtype=dtype)

says `normalized_shape = (OLD[N],)`, `dtype = OLD[dtype]`, and `M` goes. A template is used only when every
pair of that class agrees on it, and only when each of its expressions is made of the old call's own values,
literals and module-level names: a name that only the new test has (a new parametrize column) means nothing
in a benchmark. Pure: sources and signatures in, values out.
"""

from __future__ import annotations

import ast
import difflib
import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from benchop_hook.analysis import trees
from benchop_hook.analysis.binding import CallShape, bind
from benchop_hook.analysis.callsites import Arg, CallSite
from benchop_hook.analysis.signatures import Signature, expr_key

OLD = "OLD"  # how a template names the old call's value of a parameter: OLD[N]


@dataclass(frozen=True)
class Pair:
    """An old call and the call that replaced it, in one file the commit changed."""

    old: CallSite
    new: CallSite

    @property
    def where(self) -> str:
        return f"{self.new.path}:{self.new.lineno}"


@dataclass(frozen=True)
class Expr:
    """One argument's expression in terms of the old call's values: literal text and old parameters, in
    order (`(OLD[N],)` is '(' N ',)')."""

    pieces: tuple[tuple[str, bool], ...]  # (text, is an old parameter's name)
    free: frozenset[str]  # names its literal text uses (module-level names of the test)

    def render(self, values: Mapping[str, str]) -> str | None:
        """The expression with a call's own values; None when the call passes no value for one of them."""
        out = []
        for text, is_param in self.pieces:
            if is_param:
                if text not in values:
                    return None
                out.append(values[text])
            else:
                out.append(text)
        return "".join(out)

    @property
    def params(self) -> frozenset[str]:
        return frozenset(t for t, p in self.pieces if p)

    def shown(self) -> str:
        return "".join(f"{OLD}[{t}]" if p else t for t, p in self.pieces)


@dataclass(frozen=True)
class Template:
    """What a pair says: each new parameter's expression, and the old parameters it drops."""

    sets: tuple[tuple[str, Expr], ...]  # (new parameter, expression), identity pass-throughs left out
    dropped: frozenset[str]

    def shown(self) -> str:
        parts = [f"{p} = {e.shown()}" for p, e in self.sets] + [f"{d} dropped" for d in sorted(self.dropped)]
        return ", ".join(parts) or "no change"


@dataclass(frozen=True)
class Learned:
    """The template every pair of a class agrees on, or why there is none, with the pairs."""

    template: Template | None
    pairs: tuple[Pair, ...]
    why_not: str | None = None

    @property
    def cited(self) -> str:
        return self.pairs[0].where if self.pairs else ""


def pair_calls(
    old_data: bytes, new_data: bytes, old_sites: Sequence[CallSite], new_sites: Sequence[CallSite]
) -> list[Pair]:
    """One removed call to one added call: within a hunk of the line diff, else within a function."""
    gone: list[tuple[int, CallSite]] = []
    came: list[tuple[int, CallSite]] = []
    for k, (tag, i1, i2, j1, j2) in enumerate(_line_diff(old_data, new_data)):
        if tag == "equal":
            continue
        gone += [(k, s) for s in old_sites if i1 < s.lineno and s.end_lineno <= i2]
        came += [(k, s) for s in new_sites if j1 < s.lineno and s.end_lineno <= j2]
    pairs: list[Pair] = []
    used: set[int] = set()
    for key in (lambda h, s: h, lambda h, s: s.qualfunction):  # a hunk first, then a function
        olds = _one_each(gone, used, key)
        news = _one_each(came, used, key)
        for k, o in olds.items():
            n = news.get(k)
            if n is not None and k is not None:
                pairs.append(Pair(o, n))
                used |= {id(o), id(n)}
    return sorted(pairs, key=lambda p: (p.new.lineno, p.new.col))


# A test file the commit changed is diffed for each class it calls (a family's tests hold dozens): the diff
# of the same two texts is the same, so it is made once.
@functools.lru_cache(maxsize=64)
def _line_diff(old_data: bytes, new_data: bytes) -> tuple[tuple[str, int, int, int, int], ...]:
    matcher = difflib.SequenceMatcher(None, old_data.splitlines(), new_data.splitlines(), autojunk=False)
    return tuple(matcher.get_opcodes())


def _one_each(items: list[tuple[int, CallSite]], used: set[int], key: object) -> dict[object, CallSite]:
    """The calls that are alone in their group (by `key`), among those not paired yet."""
    groups: dict[object, list[CallSite]] = {}
    for h, s in items:
        if id(s) not in used:
            groups.setdefault(key(h, s), []).append(s)  # type: ignore[operator]  # key is one of two lambdas
    return {k: ss[0] for k, ss in groups.items() if len(ss) == 1}


def bound(site: CallSite, sig: Signature) -> dict[str, str] | None:
    """parameter -> the argument's source text, for a call with no splat that binds `sig`."""
    return bound_args(site.args, sig)


def bound_args(args: Sequence[Arg], sig: Signature) -> dict[str, str] | None:
    """parameter -> the argument's source text, for arguments with no splat that bind `sig`."""
    if any(a.kind in ("star", "dstar") for a in args):
        return None
    pos = [a for a in args if a.kind == "pos"]
    b = bind(sig, CallShape(len(pos), tuple(a.keyword for a in args if a.kind == "kw" and a.keyword)))
    if not b.ok:
        return None
    out = {p: pos[i].source for i, p in enumerate(b.positional)}
    kws = {a.keyword: a.source for a in args if a.kind == "kw"}
    out.update((p, kws[k]) for k, p in b.keywords)
    return out


def template_of(
    pair: Pair, old_sig: Signature, new_sig: Signature, module_names: frozenset[str]
) -> Template | str:
    """The template a pair shows, or why it shows none."""
    ov, nv = bound(pair.old, old_sig), bound(pair.new, new_sig)
    if ov is None or nv is None:
        return f"{pair.where}: the calls do not bind their signatures"
    olds = {q: expr_key(v) for q, v in ov.items()}
    if None in olds.values():
        return f"{pair.where}: an old value does not parse"
    sets: list[tuple[str, Expr]] = []
    used: set[str] = set()
    for p, text in nv.items():
        if p in ov and old_sig.get(p) is not None and olds[p] == expr_key(text):
            used.add(p)
            continue  # the same parameter keeps its value (a literal True too): nothing to learn
        expr = _express(text, {q: d for q, d in olds.items() if d is not None})
        if isinstance(expr, str):
            return f"{pair.where}: {p}={text}: {expr}"
        local = expr.free - module_names
        if local:
            return f"{pair.where}: {p}={text} uses {', '.join(sorted(local))}, which only the new test has"
        used |= expr.params
        if expr.pieces == ((p, True),) and old_sig.get(p) is not None:
            continue  # the same parameter, the same value: nothing to learn
        sets.append((p, expr))
    dropped = frozenset(q for q in ov if q not in used and new_sig.get(q) is None)
    kept = [q for q in ov if q not in used and q not in dropped]
    if any(q not in nv for q in kept):
        return f"{pair.where}: the new call leaves out {', '.join(q for q in kept if q not in nv)}"
    return Template(tuple(sorted(sets, key=lambda s: s[0])), dropped)


def _express(text: str, olds: Mapping[str, str]) -> Expr | str:
    """`text` with every largest sub-expression that equals an old value replaced by that old parameter."""
    src = text.strip()
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError:
        return "it does not parse"
    by_dump: dict[str, list[str]] = {}
    for q, d in olds.items():
        by_dump.setdefault(d, []).append(q)
    starts = _line_starts(src)
    spans: list[tuple[int, int, str]] = []
    free: set[str] = set()

    def visit(node: ast.AST) -> str | None:
        d = ast.dump(node) if isinstance(node, ast.expr) else None
        if d is not None and d in by_dump and not _trivial(node):
            qs = by_dump[d]
            if len(qs) > 1:
                return f"its value {ast.unparse(node)} was several old arguments ({', '.join(sorted(qs))})"
            a = starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]  # an expr has positions
            b = starts[(node.end_lineno or node.lineno) - 1] + (node.end_col_offset or 0)  # type: ignore[attr-defined]
            spans.append((a, b, qs[0]))
            return None
        if isinstance(node, ast.Name):
            free.add(node.id)
        for child in ast.iter_child_nodes(node):
            why = visit(child)
            if why:
                return why
        return None

    why = visit(tree.body)
    if why:
        return why
    pieces: list[tuple[str, bool]] = []
    pos = 0
    for a, b, q in sorted(spans):
        if a > pos:
            pieces.append((src[pos:a], False))
        pieces.append((q, True))
        pos = b
    if pos < len(src):
        pieces.append((src[pos:], False))
    return Expr(tuple(pieces), frozenset(free))


def _trivial(node: ast.AST) -> bool:
    """A constant that ties nothing to an old argument: True, False, None (a new call's True is no evidence
    that it is the old call's True)."""
    return isinstance(node, ast.Constant) and (isinstance(node.value, bool) or node.value is None)


def _line_starts(src: str) -> list[int]:
    out, pos = [0], 0
    for line in src.splitlines(keepends=True):
        pos += len(line)
        out.append(pos)
    return out


@functools.lru_cache(maxsize=64)  # asked for each class a changed test file calls, as `_line_diff`
def module_level_names(data: bytes) -> frozenset[str]:
    """The names a module binds at its top level (imports, assignments, functions, classes)."""
    try:
        tree = trees.parse(data)
    except (SyntaxError, ValueError):
        return frozenset()
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return frozenset(out)


def agree(pairs: Iterable[tuple[Pair, Template | str]]) -> Learned:
    """The one template all pairs show, or the disagreement (or why a pair shows none) as the reason."""
    items = list(pairs)
    found = tuple(p for p, _ in items)
    if not items:
        return Learned(None, (), "no test or workload the commit changed shows the old and the new call")
    bad = next((t for _, t in items if isinstance(t, str)), None)
    if bad is not None:
        return Learned(None, found, bad)
    templates = {t for _, t in items if isinstance(t, Template)}
    if len(templates) > 1:
        first: dict[Template, Pair] = {}
        for p, t in items:
            if isinstance(t, Template):
                first.setdefault(t, p)
        shown = "; ".join(f"{t.shown()} at {p.where}" for t, p in list(first.items())[:3])
        return Learned(None, found, f"the commit's pairs disagree ({shown})")
    return Learned(templates.pop(), found)


def from_old_calls(src: str, pairs: Iterable[Pair]) -> str | None:
    """Where `src` (a value the updated tests pass) is, whole or inside a tuple, list or arithmetic, a value
    the same tests' old calls passed: it is derived from their own arguments, not a constant of the API."""
    try:
        tree = ast.parse(src.strip(), mode="eval").body
    except SyntaxError:
        return None
    inside = {ast.dump(n) for n in ast.walk(tree) if isinstance(n, ast.expr) and not _trivial(n)}
    for p in pairs:
        for a in p.old.args:
            d = expr_key(a.source)
            if d is not None and d in inside:
                return p.where
    return None


def pair_free_names(pair: Pair) -> set[str]:
    """Every name the new call of a pair uses: a pair read only to see what its edit did (not to repeat
    it) needs no module-level check."""
    out: set[str] = set()
    for a in pair.new.args:
        try:
            out.update(
                n.id for n in ast.walk(ast.parse(a.source.strip(), mode="eval")) if isinstance(n, ast.Name)
            )
        except SyntaxError:
            continue
    return out
