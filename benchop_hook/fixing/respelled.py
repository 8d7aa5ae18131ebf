"""A changed default that changes nothing for a call relying on it: the same object through another import, an
enum member of the same value, a member renamed with its value, the old default restored by the new body, the
same values in another kind of sequence."""

from __future__ import annotations

import ast
import re

from benchop_hook.analysis.bodies import filled_when_missing
from benchop_hook.analysis.edits import Edit
from benchop_hook.analysis.modules import ClassRef
from benchop_hook.analysis.project import Project
from benchop_hook.analysis.signatures import same_default
from benchop_hook.fixing.judging import Judging, class_nodes


def no_change(e: Edit, old_ref: ClassRef | None, ref: ClassRef | None, j: Judging, meant: str | None) -> bool:
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
    if e.old_default and e.new_default and eta_equal(e.old_default, e.new_default):
        # ignite 7e5dd2ae8c: `batch_size=lambda x: len(x)` became `batch_size=len`: the same function.
        return True
    if _restored(e, ref, j):
        # pyg 45fb6530, kornia 52cee42a (ruff B006): `attrs=["x"]` became `attrs=None`, and `__init__` does
        # `if attrs is None: attrs = ["x"]`.
        return True
    return meant is not None and same_default(meant, e.new_default)  # what the old None stood for


def class_member(
    member: str, head: str, old_module: str, j: Judging
) -> tuple[str, dict[str, str | None]] | None:
    """For `Head.member` where `Head` is a class of the repository that defined `member` (an enum's): the new
    version of that class, and what its body assigns, by name (the value's source; None for a function
    or class). None when `Head` is no such class, or the new version can't be read."""
    old = j.old_p.resolve_name(old_module, head) if old_module else None
    if not isinstance(old, ClassRef) or member not in assigned(j.old_p, old):
        return None
    change = j.by_old.get(old)
    new = change.new if change is not None else old
    if new is None or j.new_p.class_info(new) is None:
        return None
    return f"{new.module}.{new.name}", assigned(j.new_p, new)


def assigned(project: Project, ref: ClassRef) -> dict[str, str | None]:
    """What the class and its ancestors found in the repository define in their bodies, by name."""
    out: dict[str, str | None] = {}
    for node in reversed(class_nodes(project, ref)):
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
    member = class_member(a, a_head, old_ref.module, j)
    resolved = j.old_p.resolve_name(old_ref.module, a_head)
    if member is None or not isinstance(resolved, ClassRef):
        return False
    before = assigned(j.old_p, resolved).get(a)
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
        found = member_of(member, where.module, project) if where is not None else None
        if not literal or found is None or where is None:
            continue
        cls, name = found
        if not same_default(assigned(project, cls).get(name), literal):
            continue
        info = project.class_info(cls)
        bases = {b.split(".")[-1] for b in info.bases} if info is not None else set()
        if bases & {"str", "StrEnum"} or _converts(project, where, e.name, cls.name):
            return True
    return False


def converted_to(e: Edit, ref: ClassRef, j: Judging) -> tuple[str, list[object]] | None:
    """The enum the new default is a member of, when the new `__init__` turns the parameter into it
    (`Mode(mode)`), and the literal values of its members."""
    found = member_of(e.new_default, ref.module, j.new_p)
    if found is None or not _converts(j.new_p, ref, e.name, found[0].name):
        return None
    cls = found[0]
    members: list[object] = []
    for src in assigned(j.new_p, cls).values():
        if src is None:
            continue  # a method of the enum
        try:
            members.append(ast.literal_eval(src))
        except (ValueError, SyntaxError):
            return None  # a member whose value can't be read: its values are not known
    return cls.name, members


def member_of(default: str | None, module: str | None, project: Project) -> tuple[ClassRef, str] | None:
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
        for node in class_nodes(project, ref)[:1]
        for fn in node.body
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == "__init__"
        for n in ast.walk(fn)
    )


def _restored(e: Edit, ref: ClassRef | None, j: Judging) -> bool:
    """The new default is None, and the new constructor gives the parameter the old default when it is
    None (or the same values in another kind of sequence: `[a]` -> `(a,)`)."""
    if ref is None or e.new_default != "None" or e.old_default is None:
        return False
    return any(same_values(v, e.old_default) for v in filled_when_missing(class_nodes(j.new_p, ref), e.name))


def same_values(a: str, b: str) -> bool:
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


def respelled(old: str | None, new: str | None) -> bool:
    """Two string literals that differ only in case: one choice, spelled two ways; or an empty string and
    None, one "none given" (timm 9214ca0's `device=''` -> `device=None`: `''` pinned, `.to('')` raised)."""
    try:
        a, b = (ast.literal_eval(x) if x is not None else None for x in (old, new))
    except (ValueError, SyntaxError):
        return False
    if old is not None and new is not None and ((a == "" and b is None) or (a is None and b == "")):
        return True
    return isinstance(a, str) and isinstance(b, str) and a != b and a.lower() == b.lower()


def eta_equal(a: str, b: str) -> bool:
    """`lambda x: f(x)` and `f` are one function: a lambda that only passes its parameters on, in order, to
    a name is that name (whatever the name is bound to, both sides call the same thing)."""

    def unwrapped(src: str) -> str | None:
        try:
            node = ast.parse(src.strip(), mode="eval").body
        except SyntaxError:
            return None
        if not isinstance(node, ast.Lambda):
            return ast.unparse(node)
        a = node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
            return None
        call = node.body
        names = [p.arg for p in a.args]
        passed = [x.id for x in call.args if isinstance(x, ast.Name)] if isinstance(call, ast.Call) else []
        if not isinstance(call, ast.Call) or call.keywords or passed != names or len(call.args) != len(names):
            return None
        if any(n in {x.id for x in ast.walk(call.func) if isinstance(x, ast.Name)} for n in names):
            return None
        return ast.unparse(call.func)

    ua, ub = unwrapped(a), unwrapped(b)
    return ua is not None and ua == ub and "lambda" in (a + b)
