"""What the updated tests say about how an Op is built now.

The tests are updated to the new interface before the benchmarks, so they are
the evidence for values of new required parameters, for renames that position
alone can't tell, and for whether a changed default is meant.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence

from benchop_hook.analysis.callsites import CallSite
from benchop_hook.analysis.edits import Edit, related_names
from benchop_hook.analysis.examples import (
    Learned,
    Pair,
    Template,
    agree,
    bound,
    module_level_names,
    pair_calls,
    template_of,
)
from benchop_hook.analysis.locate import analyze
from benchop_hook.analysis.meaning import Status, Value, classify
from benchop_hook.analysis.modules import ClassRef, ModuleInfo
from benchop_hook.analysis.project import Project
from benchop_hook.analysis.signatures import Kind, Signature, a_size, is_constant_source, same_default


def bound_values(site: CallSite, sig: Signature) -> dict[str, str] | None:
    """parameter -> source text of the argument reaching it; None when the call doesn't bind."""
    return bound(site, sig)


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def names_a_call_must_spell(sig: Signature, other: Signature) -> tuple[str, ...] | None:
    """The parameters of `sig` that `other` lacks, when a call can bind any of them only by naming it
    (all keyword-only, and `sig` takes no *args/**kwargs); None when a positional argument could bind one."""
    if sig.var_positional is not None or sig.var_keyword is not None:
        return None
    only = [p for p in sig.params if other.get(p.name) is None]
    if any(p.kind is not Kind.KEYWORD_ONLY for p in only):
        return None
    return tuple(p.name for p in only)


def may_spell(data: bytes, names: tuple[str, ...] | None) -> bool:
    """Whether a call in `data` could pass one of `names` as a keyword argument (always, when `names` is
    None).

    A keyword argument is the parameter's name in the source, or a non-ASCII spelling of it that Python
    normalizes (NFKC, e.g. fullwidth letters): a file whose non-ASCII characters could be part of an
    identifier, or that may not be UTF-8, is never ruled out. Comments and strings in other scripts'
    punctuation (arrows, dashes, symbols) can't be."""
    if names is None:
        return True
    # `name = value` in a call, with anything the tokenizer skips between the two (spaces, newlines
    # inside brackets, a line continuation, a comment); `==` is a comparison.
    keyword = rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in names) + rb")(?:\s|\\\r?\n|#[^\n]*)*=(?!=)"
    if re.search(keyword, data):
        return True
    if data.isascii():
        return False
    if b"coding" in b"\n".join(data.split(b"\n", 2)[:2]):
        return True  # an encoding declaration: bytes may not mean what UTF-8 says
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return any(("a" + c).isidentifier() for c in set(_NON_ASCII.findall(text)))


_KEYWORD = re.compile(rb"(?<![\w.])(\w+)[ \t]*=(?!=)")


def _spells_keyword(data: bytes, value: str, param: str) -> bool:
    """Whether `data` has a keyword argument `k=value`, `k` named like `param` (spaces, newlines or
    comments after `=` allowed): where no such text is, no call passes it so, and the file is not parsed."""
    spelled = re.compile(
        rb"(?<![\w.])(\w+)[ \t]*=(?!=)(?:\s|#[^\n]*)*" + re.escape(value.encode()) + rb"(?![\w.\[(])"
    )
    return any(related_names(m.group(1).decode("ascii", "replace"), param) for m in spelled.finditer(data))


def _gained_keyword(
    old: ModuleInfo, new: ModuleInfo, value: str, param: str, callees: frozenset[str]
) -> str | None:
    """A call of one of `callees` (what the Op's module offers callers besides the Op) to which `new`
    passes `value` as a keyword named like `param` more often than `old` did: `dispatch(buf, x,
    recv_tokens=rt)`. Input builders (`torch.randn(..., dtype=dtype)`) are not the module's."""
    try:
        want = ast.unparse(ast.parse(value, mode="eval"))
    except (SyntaxError, ValueError):
        return None

    def counts(mi: ModuleInfo) -> dict[str, int] | None:
        if mi.tree is None:
            return None
        out: dict[str, int] = {}
        for node in mi.nodes():
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name not in callees:
                continue
            for kw in node.keywords:
                if kw.arg and related_names(kw.arg, param) and ast.unparse(kw.value) == want:
                    key = f"{name}({kw.arg}=)"
                    out[key] = out.get(key, 0) + 1
        return out

    before, after = counts(old), counts(new)
    if before is None or after is None:
        return None
    return next((k for k, n in after.items() if n > before.get(k, 0)), None)


class TestEvidence:
    def __init__(
        self,
        new_p: Project,
        old_p: Project | None,
        test_files: Iterable[str],
        changed_tests: Iterable[tuple[str | None, str | None]],
        examples: Iterable[tuple[str | None, str | None]] = (),
    ) -> None:
        self.new_p = new_p
        self.old_p = old_p
        self.test_files = list(test_files)
        self.changed = list(changed_tests)
        # The changed files whose edits of a call can show how to fix it: tests, workloads, examples.
        self.examples = list(examples) or list(self.changed)
        self._sites: dict[tuple[str, str], list[CallSite]] = {}
        self._learned: dict[tuple[ClassRef, ClassRef], Learned] = {}
        self._moved: dict[
            tuple[ClassRef, ClassRef, tuple[str, ...], Signature, Signature, frozenset[str]], dict[str, str]
        ] = {}

    def _calls(self, project: Project, path: str, name: str, ref: ClassRef, side: str) -> list[CallSite]:
        key = (side, path)
        if key not in self._sites:
            self._sites[key] = self.sites_of(key)
        return [s for s in self._sites[key] if s.classes == {ref}]

    def sites_of(self, key: tuple[str, str]) -> list[CallSite]:
        """Every constructor call in one side ("old" or "new") of a file: what `_calls` keeps of it."""
        project, data = self._side(key)
        if data is None or project is None:
            return []
        # A functools.partial shows half of a call: no example of how one is written.
        return [s for s in analyze(key[1], data, project).calls() if s.method is None and s.via != "partial"]

    def size_of(self, key: tuple[str, str]) -> int:
        """The bytes `sites_of(key)` analyses: what sharing it between processes weighs."""
        return len(self._side(key)[1] or b"")

    def _side(self, key: tuple[str, str]) -> tuple[Project | None, bytes | None]:
        side, path = key
        project = self.new_p if side == "new" else self.old_p
        return project, project.snapshot.read(path) if project is not None else None

    def likely_read(self, names: Iterable[tuple[bytes, bytes]]) -> list[tuple[str, str]]:
        """The sides of the changed tests and examples that the evidence for calls of the named classes
        (old name, new name) reads, and that are not analysed yet: a side that names one of them, of a file
        whose new side does. A guess for the order of work only: a file is analysed the same whenever it
        is."""
        if self.old_p is None:
            return []
        pairs = list(names)
        olds, news = [o for o, _ in pairs], [n for _, n in pairs]
        out: list[tuple[str, str]] = []
        for old_path, new_path in dict.fromkeys([*self.examples, *self.changed]):
            new_data = self.new_p.snapshot.read(new_path) if new_path else None
            if new_path is None or new_data is None or not any(n in new_data for n in news):
                continue
            keys = [("new", new_path)]
            old_data = self.old_p.snapshot.read(old_path) if old_path else None
            if old_path is not None and old_data is not None and any(o in old_data for o in olds):
                keys.append(("old", old_path))
            out += [k for k in keys if k not in self._sites and k not in out]
        return out

    def adopt(self, found: Mapping[tuple[str, str], list[CallSite]]) -> None:
        """Call sites `sites_of` answered elsewhere (a forked child), kept as if found here."""
        for key, sites in found.items():
            self._sites.setdefault(key, sites)

    def _new_calls(self, ref: ClassRef, paths: Iterable[str]) -> list[CallSite]:
        out: list[CallSite] = []
        for path in paths:
            data = self.new_p.snapshot.read(path)
            if data is None or ref.name.encode() not in data:
                continue
            out.extend(self._calls(self.new_p, path, ref.name, ref, "new"))
        return out

    def value_for(
        self,
        ref: ClassRef,
        param: str,
        sig: Signature,
        old_sig: Signature | None = None,
        edits: Sequence[Edit] = (),
    ) -> Value:
        """The one constant value every test call written for the new signature passes for `param`, if they
        agree.

        A test call that also binds the old signature, but with its arguments on other parameters,
        was not updated: it is no evidence.
        """
        values: dict[str, list[str]] = {}
        for site in self._new_calls(ref, self.test_files):
            if old_sig is not None and classify(site.args, old_sig, sig, edits)[0] is not Status.OK:
                continue
            bv = bound_values(site, sig)
            if bv is None or param not in bv:
                continue
            values.setdefault(bv[param], []).append(site.where)
        if not values:
            return Value(None, f"no test builds {ref.name} with '{param}'")
        if len(values) > 1:
            shown = "; ".join(f"{param}={v} at {w[0]}" for v, w in list(values.items())[:3])
            return Value(None, f"the tests disagree on '{param}' ({shown})")
        ((src, where),) = values.items()
        if not is_constant_source(src):
            return Value(
                None, f"the tests pass '{param}={src}', which only means something in their own scope"
            )
        if len(where) < 2 and a_size(src):
            # pyg c4c787ba: the one test updated passes `out_channels=8`, its own size; the benchmark's
            # network is 32 channels wide. One call's constant is no agreement.
            return Value(
                None, f"only one test call passes '{param}={src}' ({where[0]}), maybe a value of its own"
            )
        return Value(
            src,
            f"every test call passes {param}={src} ({len(where)} call{'s' if len(where) != 1 else ''}, e.g. "
            f"{where[0]})",
        )

    def passes_own_name(
        self,
        ref: ClassRef,
        param: str,
        sig: Signature,
        old_sig: Signature | None = None,
        edits: Sequence[Edit] = (),
    ) -> bool:
        """Every test call written for the new signature that sets `param` passes a variable named `param`
        (and one does)."""
        seen = False
        updated = {n for _, n in self.changed if n is not None}
        for site in self._new_calls(ref, self.test_files):
            # A call in a test file this diff changed was written for the new signature even when it
            # happens to bind the old one too ((total_tokens, top_k, E, B) against (numel, E, B, kernel_map)).
            if (
                old_sig is not None
                and site.path not in updated
                and classify(site.args, old_sig, sig, edits)[0] is not Status.OK
            ):
                continue
            bv = bound_values(site, sig)
            if bv is None or param not in bv:
                continue
            if bv[param].strip() != param:
                return False
            seen = True
        return seen

    def swaps_values(
        self,
        old_ref: ClassRef,
        new_ref: ClassRef,
        param: str,
        old_sig: Signature,
        new_sig: Signature,
        defaults: tuple[str | None, str | None] = (None, None),
    ) -> str | None:
        """Where an updated test call of the same Op passes another value for `param` than it did, the rest
        of it as it was (MONAI 38d73e83e: `allow_smaller=True` -> `allow_smaller=False` as the flag's sense
        was inverted with its default): what a value of it means changed. None when no test shows that."""
        for site, ov, nv in self._pairs_passing(old_ref, new_ref, param, old_sig, new_sig):
            if param not in nv or same_default(ov[param], nv[param]):
                continue
            old_default, new_default = defaults
            if (
                old_default
                and new_default
                and same_default(ov[param], old_default)
                and same_default(nv[param], new_default)
            ):
                continue  # the old default for the new one: the tests adopt it (`adopts_new_default`)
            if all(nv.get(p) == v for p, v in ov.items() if p != param):
                return f"{site.where}: {ov[param].strip()} -> {nv[param].strip()}"
        return None

    def drops_param(
        self, old_ref: ClassRef, new_ref: ClassRef, param: str, old_sig: Signature, new_sig: Signature
    ) -> bool:
        """An updated test call of the same Op that passed `param` now leaves it out, whatever it passed."""
        return any(
            param not in nv for _, _, nv in self._pairs_passing(old_ref, new_ref, param, old_sig, new_sig)
        )

    def _pairs_passing(
        self, old_ref: ClassRef, new_ref: ClassRef, param: str, old_sig: Signature, new_sig: Signature
    ) -> Iterator[tuple[CallSite, dict[str, str], dict[str, str]]]:
        """The Op's updated test calls, old and new, whose old call passed `param`."""
        if self.old_p is None:
            return
        for old_path, new_path in self.changed:
            if old_path is None or new_path is None:
                continue
            old_data = self.old_p.snapshot.read(old_path)
            if old_data is None or param.encode() not in old_data or old_ref.name.encode() not in old_data:
                continue
            for site, ov, nv in self._bound_pairs(old_path, new_path, old_ref, new_ref, old_sig, new_sig):
                if param in ov:
                    yield site, ov, nv

    def drops_same_way(
        self,
        old_ref: ClassRef,
        new_ref: ClassRef,
        param: str,
        value: str,
        old_sig: Signature,
        new_sig: Signature,
    ) -> bool:
        """An updated test call of the same Op that passed `param=value` now leaves it out, and keeps its
        other arguments."""
        if self.old_p is None:
            return False
        for old_path, new_path in self.changed:
            if old_path is None or new_path is None:
                continue
            old_data = self.old_p.snapshot.read(old_path)
            if old_data is None or old_ref.name.encode() not in old_data:
                continue
            for _, ov, nv in self._bound_pairs(old_path, new_path, old_ref, new_ref, old_sig, new_sig):
                if param not in ov or not same_default(ov[param], value):
                    continue
                if value not in nv.values() and all(
                    v in nv.values() for p, v in ov.items() if p != param and new_sig.get(p)
                ):
                    return True
        return False

    def _bound_pairs(
        self,
        old_path: str,
        new_path: str,
        old_ref: ClassRef,
        new_ref: ClassRef,
        old_sig: Signature,
        new_sig: Signature,
    ) -> list[tuple[CallSite, dict[str, str], dict[str, str]]]:
        """The Op's calls in one changed test file, old paired with new by order (none when their numbers
        differ: calls were added, removed or moved to another class), with what each binds."""
        assert self.old_p is not None
        old_sites = self._calls(self.old_p, old_path, old_ref.name, old_ref, "old")
        new_sites = self._new_calls(new_ref, [new_path])
        if len(old_sites) != len(new_sites):
            return []
        out: list[tuple[CallSite, dict[str, str], dict[str, str]]] = []
        for o, n in zip(old_sites, new_sites):
            ov, nv = bound_values(o, old_sig), bound_values(n, new_sig)
            if ov is not None and nv is not None:
                out.append((o, ov, nv))
        return out

    def moved_values(
        self,
        old_ref: ClassRef,
        new_ref: ClassRef,
        removed: Sequence[str],
        old_sig: Signature,
        new_sig: Signature,
        callees: frozenset[str],
    ) -> dict[str, str]:
        """Each of `removed` -> where the updated tests pass its value now: a test call of the Op that
        passed `p=v` (v a variable) leaves it out, and the same file passes `v` to a keyword named like `p`
        of one of `callees` (the functions and methods the Op's module offers) more often than before:
        `recv_tokens=rt` on the constructor, then on `dispatch(...)`. The value moved to another call, and
        dropping it from a benchmark's call would lose it."""
        gone = list(removed)
        if self.old_p is None or not gone or not callees:
            return {}
        key = (old_ref, new_ref, tuple(gone), old_sig, new_sig, callees)
        if key not in self._moved:
            self._moved[key] = self._moved_values(old_ref, new_ref, gone, new_sig, old_sig, callees)
        return self._moved[key]

    def _moved_values(
        self,
        old_ref: ClassRef,
        new_ref: ClassRef,
        gone: list[str],
        new_sig: Signature,
        old_sig: Signature,
        callees: frozenset[str],
    ) -> dict[str, str]:
        assert self.old_p is not None
        out: dict[str, str] = {}
        for old_path, new_path in self.changed:
            if old_path is None or new_path is None:
                continue
            old_data = self.old_p.snapshot.read(old_path)
            new_data = self.new_p.snapshot.read(new_path)
            if old_data is None or new_data is None or old_ref.name.encode() not in old_data:
                continue
            if not any(p.encode() in old_data for p in gone):
                continue
            # The value moved shows as a keyword named like the parameter in the new text: a file without one
            # is not analysed (its old side may not be, otherwise).
            keywords = {k.decode("ascii", "replace") for k in _KEYWORD.findall(new_data)}
            if not any(related_names(k, p) for k in keywords for p in gone):
                continue
            for _, ov, nv in self._bound_pairs(old_path, new_path, old_ref, new_ref, old_sig, new_sig):
                for p in gone:
                    v = ov.get(p)
                    if v is None or p in out or is_constant_source(v) or v in nv.values():
                        continue
                    if not _spells_keyword(new_data, v, p):
                        continue
                    where = _gained_keyword(
                        self.old_p.parse(old_path, old_data),
                        self.new_p.parse(new_path, new_data),
                        v,
                        p,
                        callees,
                    )
                    if where is not None:
                        out[p] = f"{new_path} passes {v} to {where} now"
        return out

    def rename_hints(self, ref: ClassRef, old_sig: Signature, new_sig: Signature) -> dict[str, str]:
        """old -> new parameter names, from test calls that changed the keyword but kept the value."""
        if self.old_p is None:
            return {}
        # A hint pairs a parameter only the old signature has with one only the new one has: without
        # both there is none, and the test files need not be analysed (most changes only drop or add).
        if not any(new_sig.get(p.name) is None for p in old_sig.params) or not any(
            old_sig.get(p.name) is None for p in new_sig.params
        ):
            return {}
        # A hint needs an old call that binds a parameter only the old signature has and a new call that
        # binds one only the new signature has: when such parameters are keyword-only, the call spells
        # one out, and a file that names none of them is not analysed.
        spelled_old, spelled_new = (
            names_a_call_must_spell(old_sig, new_sig),
            names_a_call_must_spell(new_sig, old_sig),
        )
        hints: dict[str, str] = {}
        for old_path, new_path in self.changed:
            if old_path is None or new_path is None:
                continue
            old_data = self.old_p.snapshot.read(old_path)
            if old_data is None or ref.name.encode() not in old_data or not may_spell(old_data, spelled_old):
                continue
            new_data = self.new_p.snapshot.read(new_path)
            if new_data is None or ref.name.encode() not in new_data or not may_spell(new_data, spelled_new):
                continue  # (without the name, `_new_calls` finds no call there)
            for _, ov, nv in self._bound_pairs(old_path, new_path, ref, ref, old_sig, new_sig):
                gone = {p: v for p, v in ov.items() if new_sig.get(p) is None}
                fresh = {p: v for p, v in nv.items() if old_sig.get(p) is None}
                for p, v in gone.items():
                    match = [q for q, w in fresh.items() if w == v]
                    if len(match) == 1:
                        hints[p] = match[0]
        return hints

    def adopts_new_default(
        self, ref: ClassRef, param: str, old_default: str, new_default: str | None, new_sig: Signature
    ) -> str | None:
        """Where the updated tests show the new default is meant; None when they don't."""
        changed_new = [n for _, n in self.changed if n is not None]
        adopted: str | None = None
        for site in self._new_calls(ref, changed_new):
            bv = bound_values(site, new_sig)
            if bv is None:
                continue
            if param in bv and same_default(bv[param], old_default):
                return None  # a test still pins the old value
            if param not in bv or (new_default is not None and same_default(bv[param], new_default)):
                adopted = adopted or site.where
        return adopted

    def learned(
        self, old_ref: ClassRef, new_ref: ClassRef, old_sig: Signature, new_sig: Signature
    ) -> Learned:
        """The fix the commit's own edits show for calls of `old_ref` (now `new_ref`): every pair of an old
        call and its new call in the changed tests and workloads, and the template they agree on."""
        key = (old_ref, new_ref)
        if key in self._learned:
            return self._learned[key]
        items: list[tuple[Pair, Template | str]] = []
        for old_path, new_path in self.examples if self.old_p is not None else ():
            if old_path is None or new_path is None or self.old_p is None:
                continue
            old_data = self.old_p.snapshot.read(old_path)
            new_data = self.new_p.snapshot.read(new_path)
            if old_data is None or new_data is None or old_data == new_data:
                continue
            if old_ref.name.encode() not in old_data or new_ref.name.encode() not in new_data:
                continue
            old_sites = self._calls(self.old_p, old_path, old_ref.name, old_ref, "old")
            new_sites = self._calls(self.new_p, new_path, new_ref.name, new_ref, "new")
            names = module_level_names(new_data)
            for pair in pair_calls(old_data, new_data, old_sites, new_sites):
                items.append((pair, template_of(pair, old_sig, new_sig, names)))
        self._learned[key] = found = agree(items)
        return found
