"""What a changed constructor's own body does with each parameter, before and after the change.

The old and new bodies are aligned statement by statement (alignment.py); what differs between aligned
statements says what became of a parameter: the same places under another name (`Renamed`), the same places
with another transform between the value and its use (`Transformed`), a new parameter where a literal was
(`Introduced`), a removed one whose places now hold a constant (`ReplacedByConstant`) or read a config
object (`FoldedInto`). Anything else, and every tie, is `Unknown`. Each parameter's places are recorded too:
the attributes that hold it, the call slots it reaches, the branches that test it, and whether it picks a
behaviour (a "choice").

Pure `ast`, nothing cached: it runs once per changed class.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from benchop_hook.analysis import alignment
from benchop_hook.analysis.alignment import Body, Pair


@dataclass(frozen=True)
class Renamed:
    """A parameter whose name changed but whose places did not; `exact=False` when some of its places on
    either side have no counterpart."""

    old: str
    new: str
    exact: bool


@dataclass(frozen=True)
class Transformed:
    """The same places, but what stood between the value and its use changed (`math.exp(log_scale)` ->
    `scale`): carrying the value across would change what is measured. `old == new` for a parameter that
    kept its name."""

    old: str
    new: str
    old_expr: str
    new_expr: str


@dataclass(frozen=True)
class Introduced:
    """A new parameter read where the old body had `literal` (source text): what callers got before."""

    new: str
    literal: str


@dataclass(frozen=True)
class ReplacedByConstant:
    """A removed parameter whose places now hold `constant` (source text)."""

    old: str
    constant: str


@dataclass(frozen=True)
class FoldedInto:
    """A removed parameter whose value the new body reads from a config object: `path` (`cfg.timeout`),
    held by the new body's parameter `holder` (`cfg`)."""

    old: str
    path: str
    holder: str


@dataclass(frozen=True)
class Kept:
    """A parameter of both versions whose places tell nothing new."""

    name: str


@dataclass(frozen=True)
class Unknown:
    """Anything else: the alignment does not say."""

    name: str


Entry = Renamed | Transformed | Introduced | ReplacedByConstant | FoldedInto | Kept | Unknown


@dataclass(frozen=True)
class Slot:
    """A call slot a parameter reaches: the callee's source and the keyword or positional index."""

    callee: str
    key: str | int


@dataclass(frozen=True)
class Places:
    """Where a body uses a parameter: the `self.` attributes that hold it, the call slots it reaches, the
    tests that read it (source: `if`, `while`, `assert`, ternary, `match`), and whether it is a choice: the
    body branches on it (a check that only raises is no branch), compares it with strings, or passes it to
    a mode-like keyword."""

    stored: tuple[str, ...] = ()
    slots: tuple[Slot, ...] = ()
    tests: tuple[str, ...] = ()
    choice: bool = False


@dataclass(frozen=True)
class ParamFlow:
    name: str
    entry: Entry
    places: Places


@dataclass(frozen=True)
class Flow:
    """Per parameter of the old and of the new signature, in signature order."""

    old: tuple[ParamFlow, ...] = field(default=())
    new: tuple[ParamFlow, ...] = field(default=())

    def of_old(self, name: str) -> ParamFlow | None:
        return next((p for p in self.old if p.name == name), None)

    def of_new(self, name: str) -> ParamFlow | None:
        return next((p for p in self.new if p.name == name), None)


def param_flow(
    old: Sequence[ast.ClassDef],
    new: Sequence[ast.ClassDef],
    old_params: Sequence[str],
    new_params: Sequence[str],
    method: str = "__init__",
) -> Flow:
    """What `method` of `old` and of `new` (each the class and its ancestors, nearest first) does with each
    parameter."""
    before = alignment.body(old, method, old_params)
    after = alignment.body(new, method, new_params)
    renames: dict[str, str] = {}
    verdicts: tuple[dict[str, Entry], dict[str, Entry]] = ({}, {})
    # Established renames let the next alignment pair `self.n = n` with `self.size = size`; twice is enough
    # for the renames one pass reveals to settle, and a third pass bounds any back and forth.
    for _ in range(3):
        attrs = _renamed_attributes(before, after, renames)
        pairs = alignment.align(before, after, renames, attrs)
        verdicts = _Judge(before, after, pairs).verdicts()
        found = {e.old: e.new for e in verdicts[0].values() if isinstance(e, Renamed)}
        if found == renames:
            break
        renames = found
    where = places(before), places(after)
    return Flow(
        tuple(ParamFlow(p, verdicts[0][p], where[0][p]) for p in _ordered(old_params)),
        tuple(ParamFlow(p, verdicts[1][p], where[1][p]) for p in _ordered(new_params)),
    )


def _ordered(params: Sequence[str]) -> list[str]:
    """The parameters in signature order, `self` and repeats left out."""
    return list(dict.fromkeys(p for p in params if p != "self"))


def _renamed_attributes(before: Body, after: Body, renames: Mapping[str, str]) -> dict[str, str]:
    """The `self.` attribute renames that follow from parameter renames: the old attribute that held the old
    name becomes the new one that holds the new name, where each side has one."""
    held_old = _holders(before.aliases)
    held_new = _holders(after.aliases)
    return {
        held_old[p][0]: held_new[q][0]
        for p, q in renames.items()
        if len(held_old.get(p, ())) == 1 and len(held_new.get(q, ())) == 1
    }


def _holders(aliases: Mapping[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for attr, p in aliases.items():
        out.setdefault(p, []).append(attr)
    return out


# ---- what one side of a difference is ----------------------------------------------------------------


@dataclass(frozen=True)
class _Term:
    """One side of a difference: a parameter, a path into one (`cfg.timeout`), a literal, nothing (a call
    without that argument) or any other expression, with the parameters it reads."""

    kind: Literal["param", "path", "literal", "absent", "expr"]
    params: frozenset[str] = frozenset()
    text: str = ""


def _term(node: ast.AST | None, side: Body) -> _Term:
    if node is None:
        return _Term("absent")
    chain = _chain(node)
    if chain is not None:
        root, rest = _root_param(chain, side)
        if root is not None:
            return _Term("param", frozenset({root})) if not rest else _Term("path", frozenset({root}), rest)
    if _is_literal(node, side):
        return _Term("literal", text=ast.unparse(node))
    return _Term("expr", frozenset(_reads(node, side)), ast.unparse(node))


def _chain(node: ast.AST) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"]; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return [node.id, *reversed(parts)] if isinstance(node, ast.Name) else None


def _root_param(chain: list[str], side: Body) -> tuple[str | None, str]:
    """The parameter a chain starts from (directly or through the attribute that holds it), and the path
    below it as `param.rest` (empty when the chain is the parameter itself)."""
    if chain[0] in side.params:
        root, rest = chain[0], chain[1:]
    elif chain[0] == "self" and len(chain) > 1 and chain[1] in side.aliases:
        root, rest = side.aliases[chain[1]], chain[2:]
    else:
        return None, ""
    return root, ".".join([root, *rest]) if rest else ""


def _is_literal(node: ast.AST, side: Body) -> bool:
    """A value fixed in the source: a constant, a signed one, a tuple or list of them, or a name or dotted
    name the body neither binds nor receives (`torch.float16`, a module constant)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_is_literal(e, side) for e in node.elts)
    chain = _chain(node)
    if chain is None or chain[0] == "self" or alignment.is_placeholder(chain[0]):
        return False
    return chain[0] not in side.params | side.bound


def _reads(node: ast.AST, side: Body) -> set[str]:
    """The parameters an expression reads, directly or through the attributes that hold them."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in side.params:
            out.add(n.id)
        elif (attr := alignment.self_attr(n)) is not None and attr in side.aliases:
            out.add(side.aliases[attr])
    return out


# ---- claims: what each difference says -----------------------------------------------------------------

_Kind = Literal["rename", "transform", "constant", "fold", "introduced", "conflict", "lost", "gained"]


@dataclass(frozen=True)
class _Claim:
    kind: _Kind
    old: str | None
    new: str | None
    detail: tuple[str, ...] = ()


class _Judge:
    """The claims the aligned statements' differences make about the parameters, and the verdicts they
    add up to."""

    def __init__(self, before: Body, after: Body, pairs: Sequence[Pair]) -> None:
        self.before, self.after, self.pairs = before, after, pairs
        self._reads: dict[bool, list[set[str]]] = {}
        self.strong: list[_Claim] = []
        self.weak: list[_Claim] = []
        for pair in pairs:
            diffs, _ = alignment.differences(before.units[pair.old], after.units[pair.new])
            for o, n, call in diffs:
                if call is not None and id(call) in before.inlined:
                    continue  # the slot's value is followed into the callee's body, compared there
                found = self._claims(_term(o, before), _term(n, after), o, n)
                if pair.strong:
                    self.strong += found
                else:
                    self.weak += [c for c in found if _kin(c)]

    def _claims(self, o: _Term, n: _Term, onode: ast.AST | None, nnode: ast.AST | None) -> list[_Claim]:
        p = next(iter(o.params)) if len(o.params) == 1 else ""
        q = next(iter(n.params)) if len(n.params) == 1 else ""
        kinds = (o.kind, n.kind)
        if kinds == ("param", "param"):
            return [] if p == q else [_Claim("rename", p, q)]
        if kinds == ("param", "literal"):
            return [_Claim("constant", p, None, (n.text,))]
        if kinds == ("param", "path") and p != q:
            return [_Claim("fold", p, None, (n.text, q))]
        if kinds == ("literal", "param"):
            return [_Claim("introduced", None, q, (o.text,))]
        # A transform sits between one parameter and its use on one side; an expression on both sides (a
        # call to another callee, say) is another place, even for the same parameter.
        if p and q and "param" in kinds and "expr" in kinds:
            return [_Claim("transform", p, q, (_source(onode), _source(nnode)))]
        if n.kind == "absent":
            return [_Claim("lost", x, None) for x in o.params]
        if o.kind == "absent":
            return [_Claim("gained", None, x) for x in n.params]
        return [_Claim("conflict", x, None) for x in o.params] + [
            _Claim("conflict", None, x) for x in n.params
        ]

    def verdicts(self) -> tuple[dict[str, Entry], dict[str, Entry]]:
        olds = {p: self._verdict(p, old=True) for p in self.before.params}
        news = {q: self._verdict(q, old=False) for q in self.after.params}
        return (
            {p: self._settle(e, p, news, old=True) for p, e in olds.items()},
            {q: self._settle(e, q, olds, old=False) for q, e in news.items()},
        )

    def _settle(self, entry: Entry, name: str, others: Mapping[str, Entry], old: bool) -> Entry:
        """A rename or transform stands only where the partner's own claims say the same; a rename is exact
        where all places of both names are paired."""
        if not isinstance(entry, (Renamed, Transformed)):
            return entry
        theirs = others.get(entry.new if old else entry.old)
        if not isinstance(theirs, (Renamed, Transformed)) or type(theirs) is not type(entry):
            return Unknown(name)
        if (theirs.old, theirs.new) != (entry.old, entry.new):
            return Unknown(name)
        if isinstance(entry, Renamed):
            return Renamed(entry.old, entry.new, self._complete(entry.old, entry.new))
        return entry

    def _mine(self, name: str, old: bool) -> list[_Claim]:
        """The claims about one parameter: the strong ones, or the weak ones where there are none."""
        for claims in (self.strong, self.weak):
            found = [
                c for c in claims if (c.old if old else c.new) == name and c.kind not in ("lost", "gained")
            ]
            if found:
                return found
        return []

    def _verdict(self, name: str, old: bool) -> Entry:
        claims = self._mine(name, old)
        kept = name in (self.after.params if old else self.before.params)
        relation = _relation(name, claims, old, self.before.params, self.after.params)
        if relation is not None:
            return relation
        if not claims:
            return Kept(name) if kept else Unknown(name)
        kinds = {c.kind for c in claims}
        if kept or len(kinds) != 1 or len({c.detail for c in claims}) != 1:
            return Unknown(name)
        kind, detail = kinds.pop(), claims[0].detail
        # A value now fixed, folded or introduced at some places says nothing of places that vanished.
        if not self._complete(name if old else "", "" if old else name, stores=False):
            return Unknown(name)
        if old and kind == "constant":
            return ReplacedByConstant(name, detail[0])
        if old and kind == "fold":
            return FoldedInto(name, detail[0], detail[1])
        if not old and kind == "introduced":
            return Introduced(name, detail[0])
        return Unknown(name)

    def _complete(self, p: str, q: str, stores: bool = True) -> bool:
        """Every statement that reads `p` (old) or `q` (new) is paired, and no call lost or gained one of
        their slots; `stores=False` lets a statement that only stores the parameter in an attribute go
        unpaired (the plumbing of a value, not a place where it is used)."""
        olds = {x.old for x in self.pairs}
        news = {x.new for x in self.pairs}
        for name, side, paired in ((p, self.before, olds), (q, self.after, news)):
            if (side is self.before) not in self._reads:
                self._reads[side is self.before] = [_reads(u, side) for u in side.units]
            reads = self._reads[side is self.before]
            for i, u in enumerate(side.units):
                if i not in paired and name in reads[i] and (stores or not _stores_only(u, name)):
                    return False
        return not any(
            (c.kind == "lost" and c.old == p) or (c.kind == "gained" and c.new == q)
            for c in (*self.strong, *self.weak)
        )


def _stores_only(stmt: ast.stmt, param: str) -> bool:
    """`self.x = param`, and nothing else."""
    pairs = alignment.assignments(stmt)
    return bool(pairs) and all(
        alignment.self_attr(t) is not None and isinstance(v, ast.Name) and v.id == param for t, v in pairs
    )


def _relation(
    name: str, claims: Sequence[_Claim], old: bool, olds: frozenset[str], news: frozenset[str]
) -> Renamed | Transformed | None:
    """Renamed or Transformed when every claim about `name` is a rename or transform with one partner (a
    transform wins over the places that merely renamed it): a removed parameter to an added one, or a
    parameter both versions take to itself, transformed in place."""
    if not claims or any(c.kind not in ("rename", "transform") for c in claims):
        return None
    partners = {c.new if old else c.old for c in claims}
    if len(partners) != 1:
        return None
    other = partners.pop() or ""
    p, q = (name, other) if old else (other, name)
    if p == q and not (p in olds and p in news and all(c.kind == "transform" for c in claims)):
        return None
    if p != q and (p in news or q in olds or not p or not q):
        return None
    transforms = [c for c in claims if c.kind == "transform"]
    if transforms:
        return Transformed(p, q, transforms[0].detail[0], transforms[0].detail[1])
    return Renamed(p, q, True)


def _source(node: ast.AST | None) -> str:
    return ast.unparse(node) if node is not None else ""


def _kin(claim: _Claim) -> bool:
    """A claim from statements only their position paired counts when it relates two parameters whose
    names share a word (`use_sync` and `sync`, `input` and `inputs`): position alone cannot tell a rename
    from a parameter folded into a config object stored where it was."""
    if claim.kind not in ("rename", "transform") or not claim.old or not claim.new:
        return False
    return bool(_words(claim.old) & _words(claim.new))


def _words(name: str) -> set[str]:
    parts = re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)
    return {w.lower()[:-1] if len(w) > 3 and w.lower().endswith("s") else w.lower() for w in parts}


# ---- places ---------------------------------------------------------------------------------------------

# Keyword words that name a choice of behaviour rather than a quantity; plain English, no library's API.
_CHOICE_WORDS = frozenset(
    {"mode", "backend", "strategy", "impl", "implementation", "method", "algorithm", "algo", "kind", "policy"}
    | {"variant", "engine", "provider", "dispatch", "schedule", "layout", "style", "type"}
)


def places(side: Body) -> dict[str, Places]:
    """Where `side` uses each of its parameters: one walk over its statements."""
    stored: dict[str, list[str]] = {p: [] for p in side.params}
    slots: dict[str, list[Slot]] = {p: [] for p in side.params}
    tests: dict[str, list[str]] = {p: [] for p in side.params}
    choices: set[str] = set()
    for u in side.units:
        for t, v in alignment.assignments(u):
            if (attr := alignment.self_attr(t)) is not None and isinstance(v, ast.Name) and v.id in stored:
                stored[v.id].append(attr)
        for node in ast.walk(u):
            if isinstance(node, ast.Call):
                _slots_of(node, side, slots, choices)
            test = _test_of(node)
            if test is not None:
                for p in _reads(test, side):
                    tests[p].append(ast.unparse(test))
                    # A check (`assert`, `if bad: raise`) refuses values; a branch picks a behaviour.
                    if not isinstance(node, ast.Assert) and not alignment.is_check(node):
                        choices.add(p)
            if isinstance(node, ast.Compare):
                choices |= _against_strings(node, side)
    return {
        p: Places(
            tuple(dict.fromkeys(stored[p])),
            tuple(dict.fromkeys(slots[p])),
            tuple(dict.fromkeys(tests[p])),
            p in choices,
        )
        for p in side.params
    }


def _slots_of(call: ast.Call, side: Body, slots: dict[str, list[Slot]], choices: set[str]) -> None:
    """Record the parameters `call` receives as an argument, unchanged, and the mode-like keywords."""
    callee = ast.unparse(call.func)
    keyed: Iterable[tuple[str | int, ast.expr]] = [
        *enumerate(call.args),
        *((k.arg, k.value) for k in call.keywords if k.arg),
    ]
    for key, arg in keyed:
        term = _term(arg, side)
        if term.kind == "param":
            (p,) = term.params
            slots[p].append(Slot(callee, key))
            if isinstance(key, str) and _words(key) & _CHOICE_WORDS:
                choices.add(p)


def _test_of(node: ast.AST) -> ast.expr | None:
    if isinstance(node, (ast.If, ast.While, ast.Assert, ast.IfExp)):
        return node.test
    return node.subject if isinstance(node, ast.Match) else None


def _against_strings(node: ast.Compare, side: Body) -> set[str]:
    """The parameters `node` compares with strings (`p == "a"`, `p in ("a", "b")`): each picks one of
    named behaviours."""
    values = [node.left, *node.comparators]
    strings = any(
        items and all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items)
        for items in (v.elts if isinstance(v, (ast.Tuple, ast.List, ast.Set)) else [v] for v in values)
    )
    if not strings:
        return set()
    return {p for v in values if alignment.is_ref(v) for p in _reads(v, side)}
