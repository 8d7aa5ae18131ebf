"""The pin rules' evidence (rules/pin.py): for each changed default a call relies on, what the class bodies,
the benchmark's own names and the commit's tests say; and `pins_for`, which asks the rules and gathers what
they decided for one call."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchop_hook.analysis.bodies import (
    accepted_values,
    asserted_equal,
    filled_when_missing,
    refuses_a_value,
    switches_on_bool,
)
from benchop_hook.analysis.callsites import CallSite
from benchop_hook.analysis.edits import (
    Edit,
)
from benchop_hook.analysis.modules import ClassRef, ModuleRef
from benchop_hook.analysis.project import Project
from benchop_hook.analysis.signatures import Signature, free_names, is_constant_source, same_default
from benchop_hook.fixing.judging import Judging, class_nodes
from benchop_hook.fixing.respelled import (
    assigned,
    class_member,
    converted_to,
    member_of,
    no_change,
    respelled,
    same_values,
)
from benchop_hook.rules import decide
from benchop_hook.rules.facts import ChangedDefault
from benchop_hook.rules.verdicts import Hand, Keep, LeaveToRun, Note, Pin


@dataclass(frozen=True)
class DefaultPins:
    """What the pin rules decided for one call."""

    info: tuple[str, ...] = ()  # notes: a changed default not pinned, and why
    hands: tuple[str, ...] = ()  # the pins bench-op can't write, each as the sentence to act on
    what: str = ""  # the last changed default the call relies on, as a sentence
    pins: tuple[tuple[str, str, str], ...] = ()  # (param, old value, note)
    trace: tuple[str, ...] = ()  # the rules that decided, in order
    hand_rule: str | None = None  # the rule of the first hand pin

    @property
    def hand(self) -> bool:
        return bool(self.hands)

    @property
    def hand_note(self) -> str:
        return "; ".join(self.hands)


@dataclass
class _AskDefault:
    """`DefaultEvidence` for one changed default of one call: the class bodies, the benchmark, the tests."""

    e: Edit
    site: CallSite
    ref: ClassRef | None
    old_ref: ClassRef | None
    new_sig: Signature
    j: Judging
    old_module: str | None
    _meant: tuple[str | None] | None = None  # asked by two rules: worked out once

    def meant_by_none(self) -> str | None:
        if self._meant is None:
            self._meant = (_meant_by_none(self.e, self.old_ref, self.j),)
        return self._meant[0]

    def same_meaning(self) -> bool:
        return no_change(self.e, self.old_ref, self.ref, self.j, self.meant_by_none())

    def not_pinnable(self) -> str | None:
        return _why_not_pinned(self.e, self.new_sig, self.j, self.old_module, self.ref)

    def rejected_now(self) -> str | None:
        return _rejected_now(self.e, self.ref, self.j, self.new_sig, self.site.method)

    def swapped(self) -> str | None:
        return _swapped(self.e, self.old_ref, self.ref, self.site.method, self.new_sig, self.j)

    def adopted(self) -> str | None:
        e = self.e
        if self.ref is None:
            return None
        found = self.j.evidence.adopts_new_default(
            self.ref, e.name, e.old_default or "", e.new_default, self.new_sig
        )
        return found or None

    def by_hand(self) -> str | None:
        return _by_hand(self.e, self.old_ref, self.site, self.j)


def pins_for(
    site: CallSite,
    ref: ClassRef | None,
    changed: list[Edit],
    new_sig: Signature,
    j: Judging,
    old_module: str | None = None,
) -> DefaultPins:
    """Defaults the call relies on that changed, each decided by the pin rules (rules/pin.py): pin the old
    value, note why not, or ask for a hand edit. `old_module`: where the old class was defined, whose imports
    say what an old default's names were."""
    info: list[str] = []
    pins: list[tuple[str, str, str]] = []
    hands: list[str] = []
    trace: list[str] = []
    what, hand_rule = "", None
    old_ref = ClassRef(old_module, ref.name) if old_module and ref else ref
    for e in changed:
        ask = _AskDefault(e, site, ref, old_ref, new_sig, j, old_module)
        q = ChangedDefault(e.name, e.old_default or "", e.new_default or "", ask)
        v = decide.changed_default(q, j.off).verdict
        trace.append(v.rule)
        if isinstance(v, Keep):
            continue
        what = q.what
        if isinstance(v, Note):
            info.append(v.text)
        elif isinstance(v, LeaveToRun):
            info.append(f"{q.what}; {v.reason}")
        elif isinstance(v, Hand):
            hands.append(v.reason)
            hand_rule = hand_rule or v.rule
        elif isinstance(v, Pin):
            pins.append((v.param, v.value, v.note))
    return DefaultPins(tuple(info), tuple(hands), what, tuple(pins), tuple(trace), hand_rule)


def _swapped(
    e: Edit,
    old_ref: ClassRef | None,
    ref: ClassRef | None,
    method: str | None,
    new_sig: Signature,
    j: Judging,
) -> str | None:
    """Why not pinned: the commit's tests swap the values they pass for the parameter (MONAI 38d73e83e)."""
    old_sig = j.old_p.constructor(old_ref) if old_ref is not None and method is None else None
    if ref is None or old_ref is None or old_sig is None:
        return None
    swapped = j.evidence.swaps_values(old_ref, ref, e.name, old_sig, new_sig, (e.old_default, e.new_default))
    if not swapped:
        return None
    return (
        f"not pinned: the commit's tests now pass another value for '{e.name}' where they passed one "
        f"({swapped}): what {e.old_default} means there changed"
    )


def _by_hand(e: Edit, old_ref: ClassRef | None, site: CallSite, j: Judging) -> str | None:
    """Why the old default can't be written into the benchmark as it is: a name of it means another thing
    there, or is not there at all."""
    other = _named_otherwise(e.old_default or "", old_ref, site, j)
    if other is not None:
        # flax 2d32f287: `init_fn=initializers.zeros` meant the library's `initializers`; the benchmark's
        # own `initializers` is jax.nn's. The pin would bind, and build something else.
        name, have, meant = other
        return (
            f"not pinned: {name} in the benchmark is {have}, not the {meant} the old default named; "
            f"pin {e.name}={e.old_default} with {meant} by hand"
        )
    missing = free_names(e.old_default or "") - site.scope_names
    if missing:
        return (
            f"not pinned: {', '.join(sorted(missing))} is not imported in the benchmark; "
            f"pin {e.name}={e.old_default} by hand"
        )
    return None


def _named_otherwise(
    default: str, old_ref: ClassRef | None, site: CallSite, j: Judging
) -> tuple[str, str, str] | None:
    """(name, what the benchmark binds it to, what the old default's module did) for a name of the old default
    that the benchmark's module binds to something else; None when every name it binds is the same thing, or
    can't be told (the name is a builtin, or neither side imports it)."""
    bmi = j.new_p.at(site.path) if old_ref is not None else None
    if bmi is None or old_ref is None:
        return None
    for name in sorted(free_names(default) & site.scope_names):
        meant = _bound_to(j.old_p, [old_ref.module, *(a.module for a in j.old_p.ancestors(old_ref))], name)
        have = _bound_to(j.new_p, [bmi.module], name)
        if meant is not None and have is not None and meant != have:
            return name, have, meant
    return None


def _bound_to(project: Project, modules: Sequence[str], name: str) -> str | None:
    """The full name a module-level `name` stands for in the first of `modules` that binds it: the class or
    module it resolves to, its import's target, or the module's own definition."""
    for module in dict.fromkeys(modules):
        mi = project.module(module)
        if mi is None:
            continue
        r = project.resolve_name(module, name)
        if isinstance(r, ClassRef):
            return f"{r.module}.{r.name}"
        if isinstance(r, ModuleRef):
            return r.module
        imp = mi.imports.get(name)
        if imp is not None:
            return imp.module if imp.kind == "module" else f"{imp.module}.{imp.name}"
        if name in mi.names:
            return f"{module}.{name}"
    return None


def _gone(default: str, old_module: str | None, j: Judging) -> str | None:
    """Why an old default that names a value of the repository (`envs.CHUNK_SIZE`, with `pkg.envs` imported
    as `envs` where the old class was defined) can't be pinned: the new version no longer has that module,
    or that module no longer defines the name. None when it can, or when its names are not the
    repository's (`torch.float16`)."""
    mi = j.old_p.module(old_module) if old_module else None
    try:
        node = ast.parse(default, mode="eval").body
    except SyntaxError:
        return None
    chain: list[str] = []
    while isinstance(node, ast.Attribute):
        chain.insert(0, node.attr)
        node = node.value
    if mi is None or not chain or not isinstance(node, ast.Name):
        return None
    member = class_member(chain[0], node.id, old_module or "", j)
    if member is not None:
        cls, values = member
        if chain[0] not in values:
            return f"{default} is gone from the new version ({cls} no longer defines {chain[0]})"
        return None
    if node.id not in mi.imports:
        return None
    t = mi.imports[node.id]
    module = t.module if t.kind == "module" else f"{t.module}.{t.name}"
    if not j.old_p.has_module(module):
        return None  # not a module of the repository (or a class: its attributes are read as they are)
    if not j.new_p.has_module(module):
        return f"{module}, which {default} reads, is gone from the new version"
    new_mi = j.new_p.module(module)
    if new_mi is None or new_mi.error or new_mi.star_imports:
        return None
    name = chain[0]
    if (
        name in new_mi.names
        or name in new_mi.imports
        or name in new_mi.classes
        or j.new_p.has_module(f"{module}.{name}")
    ):
        return None
    return f"{default} is gone from the new version ({module} no longer defines {name})"


def _why_not_pinned(
    e: Edit, new_sig: Signature, j: Judging, old_module: str | None, ref: ClassRef | None = None
) -> str | None:
    """Why a changed default the call relies on is not pinned, where nothing needs doing by hand."""
    gone = _gone(e.old_default or "", old_module, j)
    if not j.pin_defaults:
        return "not pinned (pin-defaults = false)"
    if j.edited_around:
        # mmcv b8d78336, as committed: `HSigmoid()` left as it was, and the assertion beside it updated for
        # the new default; pinned, the test checked the new formula against the old defaults.
        return "not pinned: this change edited the code around the call and left it so"
    if gone:
        # vllm e1e318a: `max_num_tokens=envs.VLLM_MOE_DP_CHUNK_SIZE` once the commit deleted that setting: the
        # old value is no longer there to pin, and the commit chose the new default in its place.
        return f"not pinned: {gone}"
    if respelled(e.old_default, e.new_default):
        # nanotron's SGDOptimizerArgs(name="SGD") -> "sgd", checked `== "sgd"` from then on: the same choice
        # spelled anew, and the old spelling is what the code stopped accepting.
        return "not pinned: the same choice, respelled"
    if e.old_default and e.new_default and same_values(e.old_default, e.new_default):
        # kornia 52cee42a (ruff B006): `data_keys=[DataKey.INPUT]` became `(DataKey.INPUT,)`.
        return "not pinned: the same values, in another kind of sequence"
    if not is_constant_source(e.old_default or ""):
        return "not pinned: the old default is not a constant"
    ann = _annotation(new_sig, e.name)
    old_value = _as_literal_type(e.old_default or "", old_module, j)
    if ann and _fits(old_value, ann, _plain_classes(ref, j)) is False:
        # lmdeploy 80cb84c: `stop: Optional[bool] = False` (end the session) became `stop: Optional[Union[str,
        # List[str]]] = None` (stop words). Pinned, a flag went into the stop words.
        return f"not pinned: '{e.name}' takes {ann} now, which {e.old_default} is not"
    return None


def _rejected_now(
    e: Edit, ref: ClassRef | None, j: Judging, new_sig: Signature, method: str | None = None
) -> str | None:
    """Why an old default is not pinned: the new constructor would not take it. It checks the parameter
    against a list of values the old default is not among (pyg 3e0e5a4: `return_type='log_proba'` became
    'log_prob', and `assert return_type in ['log_prob', 'prob', 'raw']`), or asserts it equals something
    else (FBGEMM: `assert cache_assoc == ASSOC`, 64 on ROCm), or refuses any value but None (kornia
    074f1053: `if return_transform is not None: raise`); or the old None is no value of the classes the new
    annotation names (kornia: `Union[str, int, Resample]`). Pinned, each failed at once."""
    if ref is None or not j.pin_defaults or not is_constant_source(e.old_default or ""):
        return None
    classes = class_nodes(j.new_p, ref)
    old = e.old_default or ""
    # Calling the object runs `__call__`, which is `forward` for a torch module (or by `__call__ = forward`).
    functions = (
        ["__init__"] if method is None else ["__call__", "forward"] if method == "__call__" else [method]
    )
    if (
        old in ("True", "False")
        and e.new_default == "None"
        and any(switches_on_bool(classes, f, e.name) for f in functions)
    ):
        return f"not pinned: the new code takes any bool for '{e.name}' as a request (isinstance(..., bool))"
    if e.new_default == "None" and old != "None" and refuses_a_value(classes, e.name):
        return f"not pinned: the new constructor takes '{e.name}' only as None now (else it raises or warns)"
    equal = asserted_equal(classes, e.name)
    if equal is not None and not same_default(equal, old):
        return f"not pinned: the new constructor asserts {e.name} == {equal}"
    if old == "None" and _no_none(_annotation(new_sig, e.name), ref, j):
        return f"not pinned: '{e.name}' takes {_annotation(new_sig, e.name)} now, which None is not"
    allowed = accepted_values(classes, e.name)
    try:
        value = ast.literal_eval(old)
    except (ValueError, SyntaxError):
        return None
    enum = converted_to(e, ref, j)
    if enum is not None and allowed is None:
        name, members = enum
        if value not in members:
            # MONAI: `upsample_mode="trilinear"` -> `upsample_mode=UpsampleMode.NONTRAINABLE`, then
            # `UpsampleMode(upsample_mode)`, whose values are deconv, nontrainable and pixelshuffle.
            return f"not pinned: the new constructor turns '{e.name}' into {name}, which has no {old}"
    if allowed is None or value in allowed:
        return None
    values = ", ".join(map(repr, allowed))
    return f"not pinned: the new constructor accepts only {values} for '{e.name}', which {old} is not"


def _no_none(ann: str | None, ref: ClassRef, j: Judging) -> bool:
    """The annotation admits no None: each type it names is a known type other than None, or a class of the
    repository (a class's instances are never None; an alias could be Optional, so names that resolve to no
    class leave it unknown)."""
    if ann is None:
        return False
    try:
        names = _top_level_types(ast.parse(ann, mode="eval").body)
    except SyntaxError:
        return False
    if not names or names & {"None", "NoneType", "Optional", "Any", "object"}:
        return False
    return all(n in _KNOWN or isinstance(j.new_p.resolve_name(ref.module, n), ClassRef) for n in names)


def _meant_by_none(e: Edit, old_ref: ClassRef | None, j: Judging) -> str | None:
    """What an old default None stood for: the one value the old constructor put in its place."""
    if old_ref is None or e.old_default != "None":
        return None
    filled = set(filled_when_missing(class_nodes(j.old_p, old_ref), e.name))
    return filled.pop() if len(filled) == 1 else None


def _annotation(sig: Signature, name: str) -> str | None:
    p = sig.get(name)
    return p.annotation if p is not None else None


# What a literal of each type may be passed as, by the names an annotation spells its types with.
_TAKES: dict[type, frozenset[str]] = {
    bool: frozenset({"bool", "int", "float", "complex"}),
    int: frozenset({"int", "float", "complex"}),
    float: frozenset({"float", "complex"}),
    str: frozenset({"str", "AnyStr"}),
    type(None): frozenset({"None", "NoneType", "Optional"}),
}
# Annotation names that say what a value is not, when none of them takes it: anything else (a class of the
# library, a protocol, `Any`, a type variable) may take anything.
_KNOWN = frozenset().union(*_TAKES.values()) | {
    "bytes", "list", "List", "tuple", "Tuple", "dict", "Dict", "set", "Set", "frozenset", "FrozenSet",
    "Sequence", "MutableSequence", "Mapping", "MutableMapping", "Callable", "Iterable", "Iterator",
    "torch.Tensor", "Tensor", "torch.dtype", "dtype",
}  # fmt: skip


def _fits(value: str | type, annotation: str, plain: Callable[[str], bool] | None = None) -> bool | None:
    """Whether the literal `value` (or a value of the type given) is of a type `annotation` names; None when
    it can't be told (the value is no plain literal, or the annotation names a type this does not know).
    `plain(name)`: a class of the repository that is no enum: no literal is one of its instances (GPTQModel
    3982e63a: `gptaq: bool = False` -> `Optional[GPTAQConfig] = None`; False pinned, and refused)."""
    try:
        kind = value if isinstance(value, type) else type(ast.literal_eval(value))
        node = ast.parse(annotation, mode="eval").body
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    takes = _TAKES.get(kind)
    names = _top_level_types(node)
    if takes is None or names is None or not all(n in _KNOWN or (plain and plain(n)) for n in names):
        return None
    return bool(names & takes)


def _plain_classes(ref: ClassRef | None, j: Judging) -> Callable[[str], bool] | None:
    """Names the class's module resolves to a class of the repository that is no enum (and no subclass of a
    builtin type a literal could be)."""
    if ref is None:
        return None

    def plain(name: str) -> bool:
        r = j.new_p.resolve_name(ref.module, name)
        if not isinstance(r, ClassRef):
            return False
        bases = {b.split(".")[-1] for a in (r, *j.new_p.ancestors(r)) for b in _bases_of(j.new_p, a)}
        return not bases & {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "str", "int", "float", "bool"}

    return plain


def _bases_of(project: Project, ref: ClassRef) -> tuple[str, ...]:
    info = project.class_info(ref)
    return info.bases if info is not None else ()


def _as_literal_type(default: str, old_module: str | None, j: Judging) -> str | type:
    """The default, or for an enum member (`InterpolationCode.SPLINE3`, `class InterpolationCode(IntEnum)`)
    the builtin type its enum is a subtype of, where that says what it is (MONAI: pinned where the new
    annotation is `str`)."""
    found = member_of(default, old_module, j.old_p)
    if found is None or found[1] not in assigned(j.old_p, found[0]):
        return default
    cls = found[0]
    bases = {b.split(".")[-1] for b in _bases_of(j.old_p, cls)}
    for base, kind in (("IntEnum", int), ("int", int), ("StrEnum", str), ("str", str), ("float", float)):
        if base in bases:
            return kind
    return default


def _top_level_types(node: ast.expr) -> set[str] | None:
    """The types an annotation admits at its top: `Optional[Union[str, List[str]]]` -> {None, str, List}."""
    if isinstance(node, ast.Constant) and node.value is None:
        return {"None"}
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _top_level_types(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        a, b = _top_level_types(node.left), _top_level_types(node.right)
        return None if a is None or b is None else a | b
    if isinstance(node, ast.Subscript):
        base = ast.unparse(node.value).rsplit(".", 1)[-1]
        if base in ("Optional", "Union"):
            inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            out: set[str] = {"None"} if base == "Optional" else set()
            for x in inner:
                t = _top_level_types(x)
                if t is None:
                    return None
                out |= t
            return out
        return {base}
    if isinstance(node, (ast.Name, ast.Attribute)):
        text = ast.unparse(node)
        return {text if text in _KNOWN else text.rsplit(".", 1)[-1]}
    return None
