"""A benchmark's imports of renamed, moved and removed classes: the import edits and name renames its
rewrite needs, and what the report says of each."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from benchop_hook.analysis.modules import ClassRef, ModuleInfo, resolve_relative, walk_list
from benchop_hook.fixing.judging import Judging
from benchop_hook.fixing.plan import ImportEdit
from benchop_hook.fixing.results import ImportNote


def import_fixes(
    mi: ModuleInfo, j: Judging, routes: Mapping[ClassRef, ClassRef] | None = None, local: bool = True
) -> tuple[list[ImportEdit], dict[str, str], list[ImportNote]]:
    """Imports of a renamed or moved Op -> import edits and name renames; a removed Op -> a note.
    `local`: also the imports inside functions (False when the text shows there are none)."""
    edits: list[ImportEdit] = []
    renames: dict[str, str] = {}
    notes: list[ImportNote] = []
    seen: set[tuple[str, str, str]] = set()
    for name_here, target in all_imports(mi, local):
        if target[0] != "attr" or (name_here, *target[1:]) in seen:
            continue
        _, module, name = target
        seen.add((name_here, module, name))
        if j.new_p.resolve_name(module, name) is not None or j.new_p.bound_otherwise(module, name):
            continue
        old_ref = j.old_p.resolve_name(module, name)
        if not isinstance(old_ref, ClassRef):
            continue
        ch = j.by_old.get(old_ref)
        if ch is None or ch.new is None:
            if ch is not None:
                text = (
                    f"imports {name} from {module}, which was removed with no successor: remove or "
                    "replace it by hand"
                )
                notes.append(ImportNote(name, text, module=module))
            continue
        succ = (routes or {}).get(old_ref, ch.new)
        via_same = j.new_p.resolve_name(module, succ.name)
        new_module = module
        if via_same != succ:
            new_module = _counterpart(module, old_ref, succ, j) or _spelled_as(module, succ, j)
        edits.append(ImportEdit(module, name, new_module, succ.name))
        if name_here == name and succ.name != name:
            renames[name] = succ.name
        notes.append(
            ImportNote(name, f"import of {name} from {module} -> {succ.name} from {new_module}", succ.name)
        )
    edits += _companions(mi, j, edits, local, seen_edits={(e.old_module, e.old_name) for e in edits})
    return edits, renames, notes


def _companions(
    mi: ModuleInfo, j: Judging, edits: list[ImportEdit], local: bool, seen_edits: set[tuple[str, str]]
) -> list[ImportEdit]:
    """The other names of an import whose module is gone and whose Ops all went to one module (a module
    renamed: `from quack.dense_gemm_sm90 import GemmSm90, TileSchedulerOptions`): each follows when that
    module gives the very class the old one gave, so the statement moves whole instead of being split by
    hand."""
    targets: dict[str, set[str]] = {}
    for e in edits:
        if e.new_module != e.old_module and not j.new_p.has_module(e.old_module):
            targets.setdefault(e.old_module, set()).add(e.new_module)
    out: list[ImportEdit] = []
    for _, target in all_imports(mi, local):
        if target[0] != "attr" or target[1] not in targets or len(targets[target[1]]) != 1:
            continue
        _, module, name = target
        if (module, name) in seen_edits:
            continue
        (new_module,) = targets[module]
        before = j.old_p.resolve_name(module, name)
        same = (
            j.new_p.resolve_name(new_module, name) == before
            if isinstance(before, ClassRef)
            else _same_definition(j, module, new_module, name)
        )
        if same:
            seen_edits.add((module, name))
            out.append(ImportEdit(module, name, new_module, name))
    return out


def _same_definition(j: Judging, old_module: str, new_module: str, name: str) -> bool:
    """A function or a module-level value the old module defined and the new one defines too (nanotron's
    sanity_check, litgpt's `prompt_styles = {...}`, moved with their module): a value word for word, a
    function with the same decorators and parameters (torchao 378e179: `hp_tensor_and_scale_to_float8`, its
    body now naming the class the same commit renamed)."""
    found = []
    for project, module in ((j.old_p, old_module), (j.new_p, new_module)):
        mi = project.module(module)
        body = mi.tree.body if mi is not None and mi.tree is not None else []
        defs = [n for n in body if name in _defined_by(n)]
        if len(defs) != 1 or mi is None or name in mi.imports:
            return False
        found.append(_interface(defs[0]))
    return found[0] == found[1]


def _interface(node: ast.stmt) -> str:
    """What an import of the name gets, as far as a caller can tell: a function's decorators and
    parameters (its body is its own business), a value's whole statement."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return "|".join([type(node).__name__, *map(ast.dump, node.decorator_list), ast.dump(node.args)])
    return ast.dump(node)


def _defined_by(node: ast.stmt) -> tuple[str, ...]:
    """The name a top-level `def` or a plain one-name assignment binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return (node.name,)
    targets = (
        node.targets
        if isinstance(node, ast.Assign)
        else [node.target]
        if isinstance(node, ast.AnnAssign)
        else []
    )
    return (targets[0].id,) if len(targets) == 1 and isinstance(targets[0], ast.Name) else ()


def _counterpart(module: str, old_ref: ClassRef, succ: ClassRef, j: Judging) -> str | None:
    """The module the benchmark imported from, moved the way the class's own module moved, when it still
    exports the class: a package renamed (`top.ops.gemm` -> `tileops.ops.gemm`) turns `from top.ops import
    GemmOp` into `from tileops.ops import GemmOp`, as engineers write it, not an import from the defining
    module."""
    old, new = old_ref.module.split("."), succ.module.split(".")
    same = 0
    while same < min(len(old), len(new)) and old[-1 - same] == new[-1 - same]:
        same += 1
    if same == 0:
        return None
    old_top, new_top, parts = old[: len(old) - same], new[: len(new) - same], module.split(".")
    if parts[: len(old_top)] != old_top:
        return None
    moved = ".".join(new_top + parts[len(old_top) :])
    return moved if moved != module and j.new_p.resolve_name(moved, succ.name) == succ else None


def _spelled_as(spelled: str, succ: ClassRef, j: Judging) -> str:
    """The successor's module, named the way the benchmark names its packages: below a directory without
    `__init__.py` (`megatron/core/...`) a module has two names, and the one that starts as the benchmark's
    own import (`megatron.core.x`, not `core.x`) is the one that imports from where it runs."""
    path = j.new_p.class_path(succ)
    names = j.new_p.module_names(path) if path is not None else ()
    top = spelled.split(".")[0]
    return next((n for n in names if n.split(".")[0] == top), succ.module)


def imports_in_functions(data: bytes) -> bool:
    """Whether the source may import inside a function: some line other than a top-level `import` or
    `from` statement's first one says `import` (a function's body is indented, or follows `def ...:` on
    its line; a string that says it costs only the walk)."""
    return any(
        b"import" in line and not line.startswith((b"import ", b"from ")) for line in data.splitlines()
    )


def all_imports(mi: ModuleInfo, local: bool = True) -> list[tuple[str, tuple[str, ...]]]:
    """Module-level imports, then `from m import X` inside functions (a benchmark may import its Op locally)
    unless `local` is False."""
    out: list[tuple[str, tuple[str, ...]]] = list(mi.imports.items())
    if not local:
        return out
    top = set(map(id, mi.tree.body)) if mi.tree is not None else set()
    if not any(isinstance(n, ast.ImportFrom) and id(n) not in top for n in mi.nodes()):
        return out  # no `from` import below the top level, so none in a function: no function to walk
    for node in mi.nodes():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in walk_list(node):
                if isinstance(sub, ast.ImportFrom):
                    base = resolve_relative(mi.module, mi.is_package, sub.level, sub.module)
                    out.extend(
                        (a.asname or a.name, ("attr", base, a.name)) for a in sub.names if a.name != "*"
                    )
    return out
