"""The rules judging shares with routing a choice: what a pass fixes for every call (`Judging`), which
changed defaults a call relies on (`pins_for`), and what the updated tests settle (`test_checks`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchop_hook.analysis.bodies import (
    accepted_values,
    asserted_equal,
    defaults_built_from,
    filled_when_missing,
    parts_built_from,
    refuses_a_value,
    switches_on_bool,
    unnamed,
)
from benchop_hook.analysis.callsites import Arg, CallSite
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.edits import (
    Edit,
    gained_elsewhere,
    public_callables,
    read_from_another,
    related_names,
)
from benchop_hook.analysis.evidence import TestEvidence
from benchop_hook.analysis.examples import bound_args
from benchop_hook.analysis.modules import ClassRef, ModuleRef
from benchop_hook.analysis.project import Project
from benchop_hook.analysis.signatures import Kind, Signature, free_names, is_constant_source, same_default
from benchop_hook.fixing.plan import BUILT_FROM, FORGOTTEN, PART_OF


@dataclass(frozen=True)
class Judging:
    """What judging a benchmark file needs, fixed for the whole pass."""

    new_p: Project
    old_p: Project  # the version the benchmark calls were written against
    evidence: TestEvidence
    changes: tuple[OpChange, ...]
    pin_defaults: bool = True
    # The range's old version: a choice is routed to a sibling class only when the commit built it (None in
    # --all-files mode, where no commit is at hand).
    commit_old_p: Project | None = None
    # Successors of every change known to the pass (a sibling class for a choice is no other's successor).
    successors: frozenset[ClassRef] = frozenset()
    by_new: Mapping[ClassRef, OpChange] = field(default_factory=dict, compare=False)
    by_old: Mapping[ClassRef, OpChange] = field(default_factory=dict, compare=False)
    # Which paths are benchmark files: their version where the hook runs is the working tree's, not the
    # commit's, so what the commit's version of one gives says nothing certain (None: unknown).
    bench_path: Callable[[str], bool] | None = field(default=None, compare=False)
    # The change edited the function around the call being judged (not the call itself): the engineer read it
    # against the new interface and left the call on the new defaults.
    edited_around: bool = False
    # What judging works out once per change for every call (keyed by the change's classes and signatures).
    memo: dict[object, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def of(
        cls,
        new_p: Project,
        old_p: Project,
        evidence: TestEvidence,
        changes: Sequence[OpChange],
        *,
        pin_defaults: bool,
        commit_old_p: Project | None,
        successors: frozenset[ClassRef],
        bench_path: Callable[[str], bool] | None = None,
    ) -> Judging:
        by_new = {c.new: c for c in changes if c.new is not None}
        by_old = {c.old: c for c in changes if c.old is not None}
        return cls(
            new_p,
            old_p,
            evidence,
            tuple(changes),
            pin_defaults,
            commit_old_p,
            successors,
            by_new,
            by_old,
            bench_path,
        )


@dataclass(frozen=True)
class DefaultPins:
    """What `pins_for` decided for one call."""

    info: tuple[str, ...] = ()  # notes: a changed default not pinned, and why
    hand: bool = False  # a default to pin that bench-op can't write
    hand_note: str = ""
    what: str = ""  # the last changed default the call relies on, as a sentence
    pins: tuple[tuple[str, str, str], ...] = ()  # (param, old value, note)


def pins_for(
    site: CallSite,
    ref: ClassRef | None,
    changed: list[Edit],
    new_sig: Signature,
    j: Judging,
    old_module: str | None = None,
) -> DefaultPins:
    """Defaults the call relies on that changed: pin the old value, note why not, or ask for a hand edit.
    `old_module`: where the old class was defined, whose imports say what an old default's names were."""
    info: list[str] = []
    pins: list[tuple[str, str, str]] = []
    hand, hand_note, what = False, "", ""
    for e in changed:
        old_ref = ClassRef(old_module, ref.name) if old_module and ref else ref
        meant = _meant_by_none(e, old_ref, j)
        if _no_change(e, old_ref, ref, j, meant):
            continue
        what = f"relies on the default of '{e.name}', which changed from {e.old_default} to {e.new_default}"
        why_not = (
            _why_not_pinned(e, new_sig, j, old_module, ref)
            or _rejected_now(e, ref, j, new_sig, site.method)
            or _swapped(e, old_ref, ref, site.method, new_sig, j)
        )
        # FBGEMM f592c6d: the updated tests moved to the new default, and the old one (`StepMode.USE_COUNTER`)
        # is not imported in the benchmark: the tests say the new default is meant, so no pin by hand either.
        adopted = (
            j.evidence.adopts_new_default(ref, e.name, e.old_default or "", e.new_default, new_sig)
            if ref and why_not is None
            else None
        )
        if why_not is not None:
            info.append(f"{what}; {why_not}")
        elif adopted:
            info.append(f"{what}; not pinned: the updated tests use the new default ({adopted})")
        elif meant is not None:
            # kornia 865de5d6: `device=None` stood for `torch.device("cuda")`; the new default is "cpu" and
            # None is no longer turned into anything. Pinned, None raised; it never was the value measured.
            hand_note = (
                f"not pinned: the old constructor turned None into {meant}; pin {e.name}={meant} by hand"
            )
            hand = True
        elif (note := _by_hand(e, old_ref, site, j)) is not None:
            hand_note, hand = note, True
        else:
            pins.append(
                (
                    e.name,
                    e.old_default or "",
                    f"{e.name}={e.old_default} pinned: the default changed to {e.new_default}, and "
                    f"the benchmark measured {e.old_default}",
                )
            )
    return DefaultPins(tuple(info), hand, hand_note, what, tuple(pins))


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


def _no_change(
    e: Edit, old_ref: ClassRef | None, ref: ClassRef | None, j: Judging, meant: str | None
) -> bool:
    """A changed default that changes nothing for a call relying on it."""
    if _same_object(e.old_default, old_ref, j.old_p, e.new_default, ref, j.new_p):
        # hqq 255c55e: `compute_dtype=torch.float16` became `float16` after `from torch import float16`: the
        # same object, spelled through another import.
        return True
    if _renamed_alongside(e.old_default, old_ref, e.new_default, ref, j):
        return (
            True  # kornia 8856d821: `kernel_function=Kernel.xu` became `MIKernel.xu` as the enum was renamed
        )
    if _member_renamed(e, old_ref, ref, j) or _enum_of_the_value(e, old_ref, ref, j):
        return True
    if _restored(e, ref, j):
        # pyg 45fb6530, kornia 52cee42a (ruff B006): `attrs=["x"]` became `attrs=None`, and `__init__` does
        # `if attrs is None: attrs = ["x"]`.
        return True
    return meant is not None and same_default(meant, e.new_default)  # what the old None stood for


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
    member = _class_member(chain[0], node.id, old_module or "", j)
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


def _class_member(
    member: str, head: str, old_module: str, j: Judging
) -> tuple[str, dict[str, str | None]] | None:
    """For `Head.member` where `Head` is a class of the repository that defined `member` (an enum's): the new
    version of that class, and what its body assigns, by name (the value's source; None for a function
    or class). None when `Head` is no such class, or the new version can't be read."""
    old = j.old_p.resolve_name(old_module, head) if old_module else None
    if not isinstance(old, ClassRef) or member not in _assigned(j.old_p, old):
        return None
    change = j.by_old.get(old)
    new = change.new if change is not None else old
    if new is None or j.new_p.class_info(new) is None:
        return None
    return f"{new.module}.{new.name}", _assigned(j.new_p, new)


def _assigned(project: Project, ref: ClassRef) -> dict[str, str | None]:
    """What the class and its ancestors found in the repository define in their bodies, by name."""
    out: dict[str, str | None] = {}
    for node in reversed(_class_nodes(project, ref)):
        for st in node.body:
            if isinstance(st, ast.Assign):
                for t in st.targets:
                    if isinstance(t, ast.Name):
                        out[t.id] = ast.unparse(st.value)
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                out[st.target.id] = ast.unparse(st.value) if st.value is not None else None
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out[st.name] = None
    return out


def _member_renamed(e: Edit, old_ref: ClassRef | None, ref: ClassRef | None, j: Judging) -> bool:
    """`Mode.PAROQUANT` -> `Mode.PARO`, the member renamed with its value as it was (GPTQModel 1104a00f):
    the same choice."""
    old, new = e.old_default or "", e.new_default or ""
    a_head, _, a = old.partition(".")
    b_head, _, b = new.partition(".")
    if old_ref is None or ref is None or a_head != b_head or not a.isidentifier() or not b.isidentifier():
        return False
    member = _class_member(a, a_head, old_ref.module, j)
    resolved = j.old_p.resolve_name(old_ref.module, a_head)
    if member is None or not isinstance(resolved, ClassRef):
        return False
    before = _assigned(j.old_p, resolved).get(a)
    _, after = member
    return a not in after and before is not None and after.get(b) == before


def _enum_of_the_value(e: Edit, old_ref: ClassRef | None, ref: ClassRef | None, j: Judging) -> bool:
    """`reduction="mean"` -> `reduction=LossReduction.MEAN` whose value is "mean", or back (MONAI 4f6ea9e0,
    b0c5ef4c), where the enum is a `str` one (equal to its value) or the new constructor turns the
    parameter into it (`LossReduction(reduction)`): the same choice."""
    for literal, member, project, where in (
        (e.old_default, e.new_default, j.new_p, ref),
        (e.new_default, e.old_default, j.old_p, old_ref),
    ):
        found = _member_of(member, where.module, project) if where is not None else None
        if not literal or found is None or where is None:
            continue
        cls, name = found
        if not same_default(_assigned(project, cls).get(name), literal):
            continue
        info = project.class_info(cls)
        bases = {b.split(".")[-1] for b in info.bases} if info is not None else set()
        if bases & {"str", "StrEnum"} or _converts(project, where, e.name, cls.name):
            return True
    return False


def _converted_to(e: Edit, ref: ClassRef, j: Judging) -> tuple[str, list[object]] | None:
    """The enum the new default is a member of, when the new `__init__` turns the parameter into it
    (`Mode(mode)`), and the literal values of its members."""
    found = _member_of(e.new_default, ref.module, j.new_p)
    if found is None or not _converts(j.new_p, ref, e.name, found[0].name):
        return None
    cls = found[0]
    members: list[object] = []
    for src in _assigned(j.new_p, cls).values():
        if src is None:
            continue  # a method of the enum
        try:
            members.append(ast.literal_eval(src))
        except (ValueError, SyntaxError):
            return None  # a member whose value can't be read: its values are not known
    return cls.name, members


def _member_of(default: str | None, module: str | None, project: Project) -> tuple[ClassRef, str] | None:
    """(the class, the name) for a default `Head.NAME` whose head is, where `module` reads it, a class of the
    repository (`LossReduction.MEAN`, `enums.Mode.FAST`)."""
    head, _, name = (default or "").rpartition(".")
    if (
        not head
        or module is None
        or not name.isidentifier()
        or not all(p.isidentifier() for p in head.split("."))
    ):
        return None
    cls = project.resolve_in_module(module, ast.parse(head, mode="eval").body)
    return (cls, name) if isinstance(cls, ClassRef) else None


def _converts(project: Project, ref: ClassRef, param: str, enum: str) -> bool:
    """The class's `__init__` turns `param` into the enum: `Enum(param)`."""
    return any(
        isinstance(n, ast.Call)
        and (ast.unparse(n.func).split(".")[-1] == enum)
        and [ast.unparse(a) for a in n.args] == [param]
        for node in _class_nodes(project, ref)[:1]
        for fn in node.body
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == "__init__"
        for n in ast.walk(fn)
    )


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
    if _respelled(e.old_default, e.new_default):
        # nanotron's SGDOptimizerArgs(name="SGD") -> "sgd", checked `== "sgd"` from then on: the same choice
        # spelled anew, and the old spelling is what the code stopped accepting.
        return "not pinned: the same choice, respelled"
    if e.old_default and e.new_default and _same_values(e.old_default, e.new_default):
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
    classes = _class_nodes(j.new_p, ref)
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
    enum = _converted_to(e, ref, j)
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
    filled = set(filled_when_missing(_class_nodes(j.old_p, old_ref), e.name))
    return filled.pop() if len(filled) == 1 else None


def _restored(e: Edit, ref: ClassRef | None, j: Judging) -> bool:
    """The new default is None, and the new constructor gives the parameter the old default when it is
    None (or the same values in another kind of sequence: `[a]` -> `(a,)`)."""
    if ref is None or e.new_default != "None" or e.old_default is None:
        return False
    return any(
        _same_values(v, e.old_default) for v in filled_when_missing(_class_nodes(j.new_p, ref), e.name)
    )


def _same_values(a: str, b: str) -> bool:
    """Two sources of the same value, or of lists or tuples of the same elements in the same order."""
    if same_default(a, b):
        return True
    try:
        x, y = ast.parse(a, mode="eval").body, ast.parse(b, mode="eval").body
    except SyntaxError:
        return False
    seqs = (ast.List, ast.Tuple)
    return (
        isinstance(x, seqs)
        and isinstance(y, seqs)
        and [ast.dump(e) for e in x.elts] == [ast.dump(e) for e in y.elts]
    )


def _same_object(
    old: str | None,
    old_ref: ClassRef | None,
    old_p: Project,
    new: str | None,
    new_ref: ClassRef | None,
    new_p: Project,
) -> bool:
    """Two defaults that name the same thing once each one's first name is read through the imports of the
    module that wrote it (the class's, or an ancestor's: a method is often inherited)."""
    if old is None or new is None or old == new or old_ref is None or new_ref is None:
        return False
    a, b = _expanded(old, old_ref, old_p), _expanded(new, new_ref, new_p)
    if a is None or b is None:
        return False
    # flax 983506b3: `nnx.Param` -> `Param` (from its own module), one class re-exported by the package.
    if a == b:
        return True
    cls = _class_at(a, old_p)
    return cls is not None and cls == _class_at(b, new_p)


def _class_at(dotted: str, project: Project) -> ClassRef | None:
    """The repository's class a full dotted name (`pkg.Param`, `pkg.variablelib.Param`) stands for."""
    parts = dotted.split(".")
    for k in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:k])
        if project.has_module(module):
            r = project.resolve_module_attr(module, ".".join(parts[k:]))
            return r if isinstance(r, ClassRef) else None
    return None


def _renamed_alongside(
    old: str | None, old_ref: ClassRef | None, new: str | None, new_ref: ClassRef | None, j: Judging
) -> bool:
    """`A.x` -> `B.x` where the commit renamed (or moved) the class A to B: the same member."""
    if old is None or new is None or old_ref is None or new_ref is None:
        return False
    a_head, _, a_rest = old.partition(".")
    b_head, _, b_rest = new.partition(".")
    if not a_rest or a_rest != b_rest or a_head == b_head or not re.fullmatch(r"[\w.]+", old + new):
        return False
    a = j.old_p.resolve_name(old_ref.module, a_head)
    b = j.new_p.resolve_name(new_ref.module, b_head)
    if not isinstance(a, ClassRef) or not isinstance(b, ClassRef):
        return False
    change = j.by_old.get(a)
    if change is not None:
        return change.new == b
    before, after = j.old_p.class_info(a), j.new_p.class_info(b)
    return (
        j.new_p.resolve_name(a.module, a.name) is None
        and j.old_p.resolve_name(b.module, b.name) is None
        and before is not None
        and after is not None
        and before.fingerprint == after.fingerprint
    )


def _expanded(default: str, ref: ClassRef, project: Project) -> str | None:
    """A dotted name's full spelling through the imports of the class's module or its ancestors' (`float16`
    after `from torch import float16`: `torch.float16`); None when a module defines that name itself."""
    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", default):
        return None
    head, dot, rest = default.partition(".")
    for module in dict.fromkeys([ref.module, *(a.module for a in project.ancestors(ref))]):
        mi = project.module(module)
        if mi is None:
            continue
        imp = mi.imports.get(head)
        if imp is not None:
            return (imp.module if imp.kind == "module" else f"{imp.module}.{imp.name}") + dot + rest
        if head in mi.names:
            return None
    return default


def _respelled(old: str | None, new: str | None) -> bool:
    """Two string literals that differ only in case: one choice, spelled two ways; or an empty string and
    None, one "none given" (timm 9214ca0's `device=''` -> `device=None`: `''` pinned, `.to('')` raised)."""
    try:
        a, b = (ast.literal_eval(x) if x is not None else None for x in (old, new))
    except (ValueError, SyntaxError):
        return False
    if old is not None and new is not None and ((a == "" and b is None) or (a is None and b == "")):
        return True
    return isinstance(a, str) and isinstance(b, str) and a != b and a.lower() == b.lower()


def test_checks(
    ev: TestEvidence,
    old_ref: ClassRef | None,
    new_ref: ClassRef | None,
    old_sig: Signature,
    new_sig: Signature,
    edits: Sequence[Edit],
) -> tuple[Callable[[str], bool] | None, Callable[[str, str], bool] | None]:
    """What the updated tests settle for `plan`: a contested slot (`own`) and a dropped choice (`drops`)."""
    if old_ref is None or new_ref is None:
        return None, None
    o, n = old_ref, new_ref

    def own(param: str) -> bool:
        return ev.passes_own_name(n, param, new_sig, old_sig, edits)

    def drops(param: str, value: str) -> bool:
        return ev.drops_same_way(o, n, param, value, old_sig, new_sig)

    return own, drops


_SPLATS = (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)


def moved_values(
    j: Judging,
    old_ref: ClassRef,
    new_ref: ClassRef,
    old_sig: Signature,
    new_sig: Signature,
    method: str | None = None,
) -> dict[str, str]:
    """Removed parameter -> where the commit moved its value: the new constructor reads it from another of
    its arguments; or, for one that had a default, another function or method of the class's module gained
    a parameter named like it, the same method of another class takes it, or the updated tests now pass it
    to one of them. Only the first for a required one: a required parameter removed is most often one the
    Op now reads from its inputs (`M` from the tensor's shape), and a kernel function that takes it now is
    no move of the caller's value."""
    added = [q.name for q in new_sig.params if old_sig.get(q.name) is None]
    gone = [p for p in old_sig.params if new_sig.get(p.name) is None and p.kind not in _SPLATS]
    # FBGEMM: `load_factor` renamed `pruning_hash_load_factor` in the constructor and in a method alike. A
    # parameter the constructor itself gained under a related name is no evidence the value went elsewhere.
    removed = [
        p.name for p in gone if p.default is not None and not any(related_names(p.name, q) for q in added)
    ]
    new_mi = j.new_p.module(new_ref.module) if gone else None
    if new_mi is None or new_mi.tree is None:
        return {}
    old_p = j.commit_old_p
    old_mi = old_p.module(new_ref.module) if old_p is not None and old_p.has_module(new_ref.module) else None
    old_tree = old_mi.tree if old_mi is not None else None
    if method is not None:
        if old_tree is None or not removed:
            return {}
        return gained_elsewhere(old_tree, new_mi.tree, new_ref.name, removed, method)
    read = read_from_another(new_mi.tree, new_ref.name, [p.name for p in gone])
    if not removed:
        return read
    callees = public_callables(new_mi.tree, new_ref.name)
    out = j.evidence.moved_values(old_ref, new_ref, removed, old_sig, new_sig, callees)
    if old_tree is None:
        return {**out, **read}
    # The commit's own interface first: it names where the value went.
    return {**out, **gained_elsewhere(old_tree, new_mi.tree, new_ref.name, removed), **read}


def defaults_lost(
    j: Judging,
    old_ref: ClassRef,
    new_ref: ClassRef,
    old_sig: Signature,
    new_sig: Signature,
    args: Sequence[Arg],
) -> dict[str, str]:
    """Removed parameter the call passes -> why dropping it loses a value: the old constructor built the
    default of another parameter from it, which the call leaves out (`defaults_built_from`), or a part the
    new class no longer has (`parts_built_from`); or, for an optional one, nothing in the new class names it
    any more (`unnamed`: what the value chose is gone with it, where an Op that reads it from its inputs
    still names it), unless the commit's tests drop it too. Only for a call with no splat: one whose
    `**kwargs` may pass that parameter is the run's to decide."""
    bv = bound_args(args, old_sig)
    old_p = j.commit_old_p
    if not bv or old_p is None:
        return {}
    key = (old_ref, new_ref, old_sig, new_sig)
    if key not in j.memo:
        # Every pair the change has, once: each call then keeps those it passes the one and leaves the other.
        removed = [p.name for p in old_sig.params if new_sig.get(p.name) is None]
        kept = [p.name for p in new_sig.params if old_sig.get(p.name) is not None]
        old_c, new_c = _class_nodes(old_p, old_ref), _class_nodes(j.new_p, new_ref)
        optional = _optional_removed(old_sig, new_sig)
        j.memo[key] = (
            defaults_built_from(old_c, new_c, removed, kept),
            parts_built_from(old_c, new_c, removed),
            unnamed(new_c, optional) if new_c else set(),
        )
    built, parts, forgotten = j.memo[key]
    out: dict[str, str] = {}
    for r, p in built:
        if r in bv and p not in bv:
            out.setdefault(r, BUILT_FROM + p)
    for r, part in parts:
        if r in bv:
            out.setdefault(r, PART_OF + part)
    for r in sorted(forgotten):
        # The commit's own tests dropping it is evidence enough that nothing was lost.
        if r in bv and r not in out and not j.evidence.drops_param(old_ref, new_ref, r, old_sig, new_sig):
            out[r] = FORGOTTEN
    return out


def forgotten_by_method(
    j: Judging, ref: ClassRef, old_sig: Signature, new_sig: Signature, args: Sequence[Arg]
) -> dict[str, str]:
    """A method's removed optional parameter the call passes, that nothing in the new class names any more
    (`unnamed`): as for a constructor's, dropping its value drops what it chose."""
    bv = bound_args(args, old_sig)
    if not bv:
        return {}
    optional = [p for p in _optional_removed(old_sig, new_sig) if p in bv]
    new_c = _class_nodes(j.new_p, ref) if optional else []
    return {r: FORGOTTEN for r in sorted(unnamed(new_c, optional))} if new_c else {}


def _optional_removed(old_sig: Signature, new_sig: Signature) -> list[str]:
    """The parameters with a default that the change removed, but for those a new parameter of a related
    name may have taken over (`load_factor` -> `pruning_hash_load_factor`)."""
    added = [p.name for p in new_sig.params if old_sig.get(p.name) is None]
    return [
        p.name
        for p in old_sig.params
        if new_sig.get(p.name) is None
        and p.default is not None
        and p.kind not in _SPLATS
        and not any(related_names(p.name, q) for q in added)
    ]


def _class_nodes(project: Project, ref: ClassRef) -> list[ast.ClassDef]:
    """The class's definition and its ancestors' found in the repository."""
    infos = (project.class_info(r) for r in (ref, *project.ancestors(ref)))
    return [ci.node for ci in infos if ci is not None and ci.node is not None]


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
    found = _member_of(default, old_module, j.old_p)
    if found is None or found[1] not in _assigned(j.old_p, found[0]):
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
