"""Analyzers for benchmark and test modules, resolving names against the new version (and the old one for
names that are gone)."""

from __future__ import annotations

from benchop_hook.analysis.callsites import Atom, Gone, ModuleAnalyzer
from benchop_hook.analysis.modules import ClassRef, ModuleInfo
from benchop_hook.analysis.project import Project


def analyze(path: str, data: bytes, new_p: Project, old_p: Project | None = None) -> ModuleAnalyzer:
    # Through the shared cache: all-files mode analyses a suspect file again with the old version.
    mi = new_p.parse(path, data)

    def or_gone(found: Atom | None, before: object) -> Atom | None:
        """A name that resolves to nothing now but to a class before: that class is gone (renamed, moved,
        removed)."""
        if found is None and isinstance(before, ClassRef):
            return Gone(before)
        return found

    def resolve(m: ModuleInfo, name: str) -> Atom | None:
        r = new_p.resolve_in(m, name)
        imp = m.imports.get(name)
        if (
            r is None
            and imp is not None
            and imp.kind == "attr"
            and new_p.bound_otherwise(imp.module, imp.name)
        ):
            return None
        return or_gone(r, old_p.resolve_in(m, name)) if r is None and old_p is not None else r

    def resolve_attr(module: str, attr: str) -> Atom | None:
        r = new_p.resolve_name(module, attr)
        if r is None and new_p.bound_otherwise(module, attr):
            return None
        return or_gone(r, old_p.resolve_name(module, attr)) if r is None and old_p is not None else r

    return ModuleAnalyzer(mi, data, resolve, resolve_attr, class_level=new_p.class_level)
