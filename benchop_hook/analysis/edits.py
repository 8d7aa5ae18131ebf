"""The difference between an old and a new signature, as typed edits.

Each edit kind's value is the sentence users read (griffe's habit); `explain`
renders one edit as a short phrase for terminal lines and commit bodies.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Literal, NamedTuple

from benchop_hook.analysis.signatures import Kind, Param, Signature, same_default


class EditKind(str, Enum):
    REMOVED = "parameter removed"
    ADDED_REQUIRED = "required parameter added"
    ADDED_OPTIONAL = "parameter with default added"
    RENAMED = "parameter renamed"
    MOVED = "parameter moved"
    KIND_CHANGED = "parameter kind changed"
    DEFAULT_CHANGED = "default changed"


# What shows a parameter was renamed: the updated tests pass the old value under the new name, the new
# parameter takes the old one's slot with the same kind, or the constructor's body uses the new one where it
# used the old one (analysis/flow.py).
RenamedBy = Literal["tests", "position", "body"]


@dataclass(frozen=True)
class Edit:
    kind: EditKind
    name: str  # the parameter's old name (new name for additions)
    new_name: str | None = None  # RENAMED
    old_index: int | None = None
    new_index: int | None = None
    old_kind: Kind | None = None
    new_kind: Kind | None = None
    old_default: str | None = None
    new_default: str | None = None
    by: RenamedBy | None = None  # RENAMED: what shows it
    contested: str | None = None  # REMOVED: the new parameter in its slot, not taken as its rename (see diff)
    # REMOVED: contested only for a value passed by position (which the new parameter would take); one passed
    # by keyword goes with its parameter
    by_position_only: bool = False

    def explain(self) -> str:
        k = self.kind
        if k is EditKind.REMOVED:
            return f"'{self.name}' removed"
        if k is EditKind.ADDED_REQUIRED:
            return f"'{self.name}' added (required)"
        if k is EditKind.ADDED_OPTIONAL and self.new_kind in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD):
            return f"'{'*' if self.new_kind is Kind.VAR_POSITIONAL else '**'}{self.name}' added"
        if k is EditKind.ADDED_OPTIONAL:
            return f"'{self.name}' added (default {self.new_default})"
        if k is EditKind.RENAMED:
            return f"'{self.name}' renamed to '{self.new_name}'"
        if k is EditKind.MOVED:
            return f"'{self.name}' moved from position {self.old_index} to {self.new_index}"
        if k is EditKind.KIND_CHANGED:
            now = self.new_kind.value if self.new_kind else "?"
            was = self.old_kind.value if self.old_kind else "?"
            return f"'{self.name}' is now {now} (was {was})"
        if k is EditKind.DEFAULT_CHANGED:
            if self.new_default is None:
                return f"'{self.name}' is now required (default {self.old_default} before)"
            return f"'{self.name}' default {self.old_default} -> {self.new_default}"
        return k.value  # pragma: no cover

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind.name.lower(), "name": self.name, "text": self.explain()}
        for key in ("new_name", "old_index", "new_index", "old_default", "new_default", "by", "contested"):
            v = getattr(self, key)
            if v is not None:
                out[key] = v
        if self.old_kind is not None:
            out["old_kind"] = self.old_kind.value
        if self.new_kind is not None:
            out["new_kind"] = self.new_kind.value
        return out


def _named(sig: Signature) -> list[Param]:
    return [p for p in sig.params if p.kind not in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)]


Slot = tuple[str | None, int]  # the nearest parameter before it that both versions have, and how far after


def _slots(named: list[Param], survivors: set[str]) -> dict[str, Slot]:
    """Each parameter's place among those both versions have: `(M, N, dtypeAB, dtypeC)` and `(N, in_dtype,
    out_dtype)` put dtypeAB and in_dtype both first after N, whatever went before (`M` removed shifts every
    index by one: by index, dtypeAB would pair with out_dtype)."""
    out: dict[str, Slot] = {}
    prev: str | None = None
    offset = 0
    for p in named:
        out[p.name] = (prev, offset)
        if p.name in survivors:
            prev, offset = p.name, 0
        else:
            offset += 1
    return out


def _same_slot(old: Param, new: Param, old_slot: Slot, new_slot: Slot) -> bool:
    return old_slot == new_slot and old.kind is new.kind


def _could_be_rename(old: Param, new: Param, old_slot: Slot, new_slot: Slot) -> bool:
    """Same place, same kind, and what it takes unchanged (`_takes_the_same`)."""
    return _same_slot(old, new, old_slot, new_slot) and _takes_the_same(old, new)


def _takes_the_same(old: Param, new: Param) -> bool:
    """Same kind and required-ness, and nothing that contradicts it: another annotation, or another default
    (`local_batch_size=8` -> `num_tokens_per_microbatch=16384` counts something else: carrying a call's 1
    over would ask for one token instead of one sequence)."""
    if old.kind is not new.kind or old.required != new.required:
        return False
    if old.default is not None and new.default is not None and not same_default(old.default, new.default):
        return False
    return not (old.annotation and new.annotation and old.annotation != new.annotation)


def _qualified(old: str, new: str) -> bool:
    """The new name is the old one with a word added (`dp_pg` -> `dp_cp_pg`, `block_size` ->
    `kv_block_size`): a narrower or another thing, not the same thing renamed. nanotron's data-parallel
    group carried into a data-and-context-parallel one reduced gradients over the wrong ranks."""
    a, b = old.lower().split("_"), new.lower().split("_")
    it = iter(b)
    return len(b) > len(a) and all(w in it for w in a)  # the old words, in order, among the new ones


def _one_and_many(old: str, new: str) -> bool:
    """One name the plural of the other (`dtype` -> `dtypes`, `size` -> `sizes`): one value became a list of
    them, or the reverse. FlagGems c4d0e604: `dtype=dtype` carried into `dtypes=`, which `run()` loops
    over."""
    a, b = old.lower(), new.lower()
    return a != b and any(x in (y + "s", y + "es") for x, y in ((a, b), (b, a)))


def _inserts_before_next(
    old: Param, new: Param, old_named: list[Param], new_names: list[str], added: list[Param]
) -> bool:
    """Another new parameter sits between `new` and the next parameter that survived the change, or the end
    (composer b16caab5: `max_epochs=None` last -> `samples_per_epoch=None, dataset_num_tokens=None,
    max_training_duration=None`: the slot can't say which of three it became)."""
    i = [p.name for p in old_named].index(old.name)
    nxt = next((p.name for p in old_named[i + 1 :] if p.name in new_names), None)
    if nxt is None and new.required:
        return False  # `forward(x)` -> `forward(input, decimals=0)`: the one required slot, options after it
    lo = new_names.index(new.name)
    hi = new_names.index(nxt) if nxt is not None else len(new_names)
    between = sorted(
        (p for p in added if p is not new and lo < new_names.index(p.name) < hi),
        key=lambda p: new_names.index(p.name),
    )
    if not between:
        return False
    # (d_in, h_in, w_in) -> (d, h, w): as many new parameters as old ones gone, each in its slot, is a
    # block of renames, not an insertion (an insertion makes the new run longer than the old one).
    olds = old_named[i + 1 : [p.name for p in old_named].index(nxt) if nxt is not None else len(old_named)]
    return not (
        len(olds) == len(between)
        and all(_takes_the_same(o, n) for o, n in zip(olds, between))  # each in its slot by construction
    )


def _folds(old: Param, old_named: list[Param], new_named: list[Param]) -> bool:
    """More parameters went than came in `old`'s run between two surviving ones: (M, hidden, eps) ->
    (normalized_shape, eps) may fold both into one, so the slot can't say that M became normalized_shape."""
    new_names = {p.name for p in new_named}
    old_names = {p.name for p in old_named}
    i = [p.name for p in old_named].index(old.name)
    lo = i
    while lo > 0 and old_named[lo - 1].name not in new_names:
        lo -= 1
    hi = i
    while hi + 1 < len(old_named) and old_named[hi + 1].name not in new_names:
        hi += 1
    before = old_named[lo - 1].name if lo > 0 else None
    after = old_named[hi + 1].name if hi + 1 < len(old_named) else None
    names = [p.name for p in new_named]
    start = names.index(before) + 1 if before is not None else 0
    end = names.index(after) if after is not None else len(names)
    came = [n for n in names[start:end] if n not in old_names]
    return hi - lo + 1 > len(came)


class _Pairing(NamedTuple):
    """The parameters only one side has, after pairing removed ones with added ones as renames."""

    renames: dict[str, str]  # old name -> new name
    by_tests: set[str]  # the old names the tests' hints paired
    contested: dict[str, str]  # removed -> the new parameter in its slot, not taken as its rename
    by_position_only: set[str]  # the contested ones that only a positional value contests
    removed: list[Param]
    added: list[Param]


def diff(old: Signature, new: Signature, rename_hints: dict[str, str] | None = None) -> list[Edit]:
    """Typed edits turning `old` into `new`. `rename_hints` (old -> new) come from the updated tests."""
    old_named, new_named = _named(old), _named(new)
    old_names = [p.name for p in old_named]
    new_names = [p.name for p in new_named]
    pairing = _pair_renames(old_named, new_named, dict(rename_hints or {}))
    edits: list[Edit] = [
        Edit(
            EditKind.REMOVED,
            p.name,
            old_index=old_names.index(p.name),
            old_kind=p.kind,
            contested=pairing.contested.get(p.name),
            by_position_only=p.name in pairing.by_position_only,
        )
        for p in pairing.removed
    ]
    for o, n in pairing.renames.items():
        edits.append(
            Edit(
                EditKind.RENAMED,
                o,
                new_name=n,
                old_index=old_names.index(o),
                new_index=new_names.index(n),
                by="tests" if o in pairing.by_tests else "position",
            )
        )
    for p in pairing.added:
        kind = EditKind.ADDED_REQUIRED if p.required else EditKind.ADDED_OPTIONAL
        edits.append(
            Edit(kind, p.name, new_index=new_names.index(p.name), new_kind=p.kind, new_default=p.default)
        )
    edits.extend(_kept_edits(old, new, old_named, pairing))
    edits.extend(_variadic_edits(old, new))
    return edits


def _pair_renames(old_named: list[Param], new_named: list[Param], hints: dict[str, str]) -> _Pairing:
    """Evidence from the tests first, then same position, kind and required-ness."""
    old_names = [p.name for p in old_named]
    new_names = [p.name for p in new_named]
    removed = [p for p in old_named if p.name not in new_names]
    added = [p for p in new_named if p.name not in old_names]
    renames: dict[str, str] = {}
    for r in list(removed):
        a = next((p for p in added if p.name == hints.get(r.name)), None)
        if a is not None:
            renames[r.name] = a.name
            removed.remove(r)
            added.remove(a)
    by_tests = set(renames)
    contested: dict[str, str] = {}
    by_position_only: set[str] = set()
    survivors = set(old_names) & set(new_names)
    old_slots, new_slots = _slots(old_named, survivors), _slots(new_named, survivors)
    for r in list(removed):
        near = next((p for p in added if _same_slot(r, p, old_slots[r.name], new_slots[p.name])), None)
        narrower = near is not None and (_qualified(r.name, near.name) or _one_and_many(r.name, near.name))
        a = near if near is not None and _takes_the_same(r, near) and not narrower else None
        if a is None and near is not None:
            # `forward(weight, res)` -> `forward(inp, out=None)`: a positional value for res now reaches out,
            # which is optional; `local_batch_size=8` -> `num_tokens=16384`. Neither a rename nor a removal
            # the slot can tell apart: a value passed for it is not dropped. By keyword, `input=shape` goes
            # with `input` when only required-ness or the annotation differs (`(*, input, end)` -> `(*,
            # target=None)`: the engineers drop it); another default says the slot counts something else.
            contested[r.name] = near.name
            if not narrower and (
                r.default is None or near.default is None or same_default(r.default, near.default)
            ):
                by_position_only.add(r.name)
            continue
        if a is not None and (
            _inserts_before_next(r, a, old_named, new_names, added) or _folds(r, old_named, new_named)
        ):
            # (numel, E, B) -> (tokens, top_k, E, B): the slot alone can't say whether numel became tokens.
            contested[r.name] = a.name
            continue
        if a is not None:
            renames[r.name] = a.name
            removed.remove(r)
            added.remove(a)
    return _Pairing(renames, by_tests, contested, by_position_only, removed, added)


def _kept_edits(old: Signature, new: Signature, old_named: list[Param], pairing: _Pairing) -> list[Edit]:
    """What changed about each parameter both versions have (under its new name when renamed): its kind,
    its place among the shared positional parameters, its default."""
    edits: list[Edit] = []
    renames = pairing.renames
    # A parameter "moved" only when its order relative to the parameters both versions share changed:
    # shifts caused by removals and insertions ahead of it are those edits' business.
    removed_names = {r.name for r in pairing.removed}
    old_pos = [renames.get(p.name, p.name) for p in old.positional if p.name not in removed_names]
    new_pos = [p.name for p in new.positional if p.name in set(old_pos)]
    for p in old_named:
        if p.name in removed_names:
            continue
        new_name = renames.get(p.name, p.name)
        q = new.get(new_name)
        if q is None:
            continue
        if p.kind is not q.kind:
            edits.append(Edit(EditKind.KIND_CHANGED, p.name, old_kind=p.kind, new_kind=q.kind))
        if p.positional and q.positional and new_name in old_pos and new_name in new_pos:
            oi, ni = old_pos.index(new_name), new_pos.index(new_name)
            if oi != ni:
                edits.append(
                    Edit(
                        EditKind.MOVED,
                        p.name,
                        old_index=[x.name for x in old.positional].index(p.name),
                        new_index=[x.name for x in new.positional].index(new_name),
                    )
                )
        if not same_default(p.default, q.default):
            if p.default is not None and q.default is not None:
                edits.append(
                    Edit(EditKind.DEFAULT_CHANGED, p.name, old_default=p.default, new_default=q.default)
                )
            elif p.default is not None and q.default is None:
                edits.append(Edit(EditKind.DEFAULT_CHANGED, p.name, old_default=p.default, new_default=None))
    return edits


def _variadic_edits(old: Signature, new: Signature) -> list[Edit]:
    """Variadic parameters appearing or disappearing change what binds, too."""
    edits: list[Edit] = []
    for var_kind in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD):
        o = next((p for p in old.params if p.kind is var_kind), None)
        n = next((p for p in new.params if p.kind is var_kind), None)
        if o is not None and n is None:
            edits.append(Edit(EditKind.REMOVED, o.name, old_kind=var_kind))
        elif o is None and n is not None:
            edits.append(Edit(EditKind.ADDED_OPTIONAL, n.name, new_kind=var_kind))
    return edits


def param_map(edits: list[Edit], old: Signature) -> dict[str, str | None]:
    """old parameter name -> new name, or None when removed."""
    out: dict[str, str | None] = {p.name: p.name for p in old.params}
    for e in edits:
        if e.kind is EditKind.REMOVED:
            out[e.name] = None
        elif e.kind is EditKind.RENAMED:
            out[e.name] = e.new_name
    return out


def related_names(a: str, b: str) -> bool:
    """Two parameter names for one thing: equal, or one is the other with words before or after it
    (`dispatch_recv_tokens` and `recv_tokens`)."""
    return a == b or any(x.startswith(y + "_") or x.endswith("_" + y) for x, y in ((a, b), (b, a)))


def _functions(tree: ast.Module, skip: str) -> dict[str, set[str]]:
    """Qualified name -> parameter names of every public top-level function and method (a caller's value
    can move only to what callers call; a private `_get_kernel(has_bias)` is the Op reading it from its
    inputs), but `skip`'s constructors."""
    out: dict[str, set[str]] = {}

    def names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
        a = fn.args
        return {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)}

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            out[node.name] = names(node)
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not (
                    item.name.startswith("_") and item.name != "__call__"
                ):
                    out[f"{node.name}.{item.name}"] = names(item)
    return out


def public_callables(tree: ast.Module, cls: str) -> frozenset[str]:
    """The names a caller calls in the module: its public functions, and the methods of its classes
    (`dispatch`, `buf.combine`), `cls`'s constructor not among them."""
    return frozenset(q.rsplit(".", 1)[-1] for q in _functions(tree, cls))


def gained_elsewhere(
    old: ast.Module, new: ast.Module, cls: str, removed: Iterable[str], method: str | None = None
) -> dict[str, str]:
    """Removed constructor parameter -> the function or method of the same module that gained a parameter
    named like it in the same commit (`EpBuffer(dispatch_recv_tokens=)` gone, `ep_dispatch(...,
    recv_tokens=None)` new): the value moved there, and a call that drops it loses it."""
    before, after = _functions(old, cls), _functions(new, cls)
    out: dict[str, str] = {}
    if method is not None:
        # A method that lost a parameter: the same method of another class of the module that takes it now
        # (diffusers a2071a1: `save_lora_weights(transformer_lora_layers=)` went to a new
        # `AmusedLoraLoaderMixin.save_lora_weights`). The value belongs with that class.
        for p in removed:
            for fn, params in after.items():
                owner, _, name = fn.rpartition(".")
                if name != method or owner in ("", cls) or params == before.get(fn):
                    continue
                k = next((k for k in sorted(params - before.get(fn, set())) if related_names(k, p)), None)
                if k is not None:
                    out[p] = f"{fn} takes '{k}'"
                    break
        return out
    for p in removed:
        for fn, params in after.items():
            if fn not in before:
                continue  # a new function is no evidence of where an old value went
            k = next((k for k in sorted(params - before[fn]) if related_names(k, p)), None)
            if k is not None:
                out[p] = f"{fn} gained '{k}'"
                break
    return out


def read_from_another(new: ast.Module, cls: str, removed: Iterable[str]) -> dict[str, str]:
    """Removed constructor parameter -> where the new constructor reads a value of that name from another
    of its parameters (`peft_config["quant_param"]`, `cfg.get("quant_param")`, `getattr(cfg,
    "quant_param")`): the value moved into that argument (hqq 5d1a8e1), and a call that drops it loses it."""
    init = next(
        (
            item
            for node in new.body
            if isinstance(node, ast.ClassDef) and node.name == cls
            for item in node.body
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__init__"
        ),
        None,
    )
    if init is None:
        return {}
    a = init.args
    params = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    reads: list[tuple[str, str]] = []  # (parameter read from, key)
    for node in ast.walk(init):
        base, key = _keyed_read(node)
        if base in params and key is not None:
            reads.append((base, key))
    out: dict[str, str] = {}
    for p in removed:
        hit = next(((b, k) for b, k in reads if related_names(k, p)), None)
        if hit is not None:
            out[p] = f"the new constructor reads {hit[0]}[{hit[1]!r}]"
    return out


def _keyed_read(node: ast.AST) -> tuple[str | None, str | None]:
    """(name, key) of `name["key"]`, `name.get("key", ...)` (or pop, setdefault) and `getattr(name, "key",
    ...)`."""

    def text(x: ast.expr) -> str | None:
        return x.value if isinstance(x, ast.Constant) and isinstance(x.value, str) else None

    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return node.value.id, text(node.slice)
    if not isinstance(node, ast.Call) or not node.args:
        return None, None
    f = node.func
    if (
        isinstance(f, ast.Attribute)
        and f.attr in ("get", "pop", "setdefault")
        and isinstance(f.value, ast.Name)
    ):
        return f.value.id, text(node.args[0])
    if (
        isinstance(f, ast.Name)
        and f.id == "getattr"
        and len(node.args) >= 2
        and isinstance(node.args[0], ast.Name)
    ):
        return node.args[0].id, text(node.args[1])
    return None, None
