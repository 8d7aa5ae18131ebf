"""What the interpreter finds: the values a name can hold (atoms) and the call sites it reports."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final, Literal

from benchop_hook.analysis.modules import ClassRef, ModuleRef


class Unknown(Enum):
    """What the interpreter could not follow: a call it may reach is reported, never guessed at."""

    UNKNOWN = "?"


UNKNOWN: Final = Unknown.UNKNOWN


class Constant(Enum):
    """A literal value: known, and no class."""

    CONSTANT = "const"


CONSTANT: Final = Constant.CONSTANT


@dataclass(frozen=True)
class Instance:
    """An object built from an Op class: calls on it reach its methods."""

    cls: ClassRef


@dataclass(frozen=True)
class Gone:
    """A name that resolved to this class in the old version and resolves to nothing now."""

    old: ClassRef


Atom = ClassRef | ModuleRef | Instance | Gone | Unknown | Constant

# A positional argument, a keyword argument, `*value` or `**value`.
ArgKind = Literal["pos", "kw", "star", "dstar"]

# How the callee reaches the call: its imported name (direct), another name bound to it (alias),
# `module.Op` (module), a method of an Op instance (instance), a value taken from a dict, a loop,
# `pytest.mark.parametrize` or a helper's parameter, or `functools.partial(Op, ...)` (partial: the site is
# the partial, and the rest of the arguments come where it is called).
# "import": not a call but an import statement a refused import edit is reported on (`apply`).
Via = Literal[
    "direct", "alias", "module", "instance", "dict", "loop", "parametrize", "helper", "partial", "import"
]

# What stands for the arguments a `functools.partial` gets where it is called: splats nobody can see into.
PARTIAL_LATER = "functools.partial(...): the rest of its arguments come where it is called"


@dataclass(frozen=True)
class Arg:
    kind: ArgKind
    keyword: str | None
    source: str


@dataclass(frozen=True)
class CallSite:
    path: str
    lineno: int
    col: int  # character column where the call expression starts
    end_lineno: int
    end_col: int
    func_source: str
    args: tuple[Arg, ...]
    atoms: frozenset[Atom]  # what the callee can be
    method: str | None  # None: a constructor call; else the method called on an instance
    function: str | None  # enclosing top-level function (pytest test) name
    qualfunction: str | None  # Class.method or function, for node ids
    scope_names: frozenset[str]  # names visible at the call: evidence for new parameters
    via: Via
    splat_dict: tuple[tuple[str, str], ...] | None = None  # literal `**d` expanded: (key, value source)
    splat_name: str | None = None  # the name splatted with `**name`, when it is a plain name
    splat_star: tuple[str, ...] | None = None  # literal `*t` expanded: the sources of its items
    opaque: str | None = None  # why a splat's contents can't be seen, e.g. "*inputs (the result of a call)"
    guard: str | None = (
        None  # a condition bench-op can't evaluate that may keep some classes away from the call
    )
    conditional: bool = False  # the call runs under some `if`

    @property
    def expanded_args(self) -> tuple[Arg, ...] | None:
        """The arguments with literal splats replaced by what they hold; None when a splat is opaque."""
        out: list[Arg] = []
        for a in self.args:
            if a.kind == "star":
                if self.splat_star is None:
                    return None
                out.extend(Arg("pos", None, src) for src in self.splat_star)
            elif a.kind == "dstar":
                if self.splat_dict is None:
                    return None
            else:
                out.append(a)
        if self.splat_dict is not None:
            out.extend(Arg("kw", k, v) for k, v in self.splat_dict)
        # Python binds every positional before any keyword, whatever the written order.
        return tuple([a for a in out if a.kind == "pos"] + [a for a in out if a.kind != "pos"])

    @property
    def classes(self) -> frozenset[ClassRef]:
        return frozenset(a for a in self.atoms if isinstance(a, ClassRef))

    @property
    def where(self) -> str:
        return f"{self.path}:{self.lineno}"
