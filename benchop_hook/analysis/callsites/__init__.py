"""Which calls in a benchmark (or test) module build or call which Op, read with `ast`.

A small abstract interpreter follows an Op class from its import through
local names, dict/list/tuple literals and subscripts of them, for-loops,
`pytest.mark.parametrize` values and one level of local helper functions whose
parameter is called. The result for each call is the set of classes (or Op
instances, for method calls) that can reach it; anything it cannot follow is
`UNKNOWN`, and the caller reports such calls instead of guessing.

The parts, each depending only on those listed before it:
  model       the values: atoms (what a name can hold), Arg, CallSite
  scopes      one walk over the module: its scopes, what each binds, every node's parent
  evaluation  what an expression can hold, over those scopes
  splats      what `*args` / `**kwargs` hold, or why that can't be seen
  sites       ModuleAnalyzer: every call that may reach an Op, as a CallSite, with its guards

`ModuleAnalyzer` is composed of a `ScopeTree`, an `Evaluator` and a `SplatReader` rather than built
from mixins: each part takes what it reads in its constructor, so its dependencies are visible in its
signature and it can be built and tested on its own, where mixins would share one `self` whose
attributes any method may read or set.
"""

from __future__ import annotations

from benchop_hook.analysis.callsites.model import (
    UNKNOWN,
    Arg,
    ArgKind,
    Atom,
    CallSite,
    Gone,
    Instance,
    Unknown,
    Via,
)
from benchop_hook.analysis.callsites.scopes import local_binding
from benchop_hook.analysis.callsites.sites import ModuleAnalyzer, char_col

__all__ = [
    "UNKNOWN",
    "Arg",
    "ArgKind",
    "Atom",
    "CallSite",
    "Gone",
    "Instance",
    "ModuleAnalyzer",
    "Unknown",
    "Via",
    "char_col",
    "local_binding",
]
