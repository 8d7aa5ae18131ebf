"""How a call's arguments bind to a signature: Python's rules, simulated.

Pure: a call is described by its shape (how many positional arguments, which
keywords, whether anything is splatted), a signature by its parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchop_hook.analysis.signatures import Kind, Signature


@dataclass(frozen=True)
class CallShape:
    n_positional: int
    keywords: tuple[str, ...]
    star: bool = False  # *args somewhere in the call
    double_star: bool = False  # **kwargs somewhere in the call

    @property
    def splatted(self) -> bool:
        return self.star or self.double_star


@dataclass(frozen=True)
class Binding:
    ok: bool
    positional: tuple[str, ...] = ()  # parameter each positional argument reaches ("*args" for the overflow)
    keywords: tuple[tuple[str, str], ...] = ()  # (keyword, parameter it reaches)
    error: str | None = None  # a TypeError-like sentence when not ok
    missing: tuple[str, ...] = ()
    unexpected: tuple[str, ...] = ()

    def target_of_positional(self, i: int) -> str:
        return self.positional[i]

    def as_dict(self) -> dict[str, str]:
        """parameter -> where its value comes from ('#i' positional, 'kw' keyword)."""
        out = {p: f"#{i}" for i, p in enumerate(self.positional)}
        out.update({p: f"kw:{k}" for k, p in self.keywords})
        return out


def bind(sig: Signature, call: CallShape) -> Binding:
    """Bind a non-splatted call. Callers check `call.splatted` first."""
    positional_params = [p for p in sig.params if p.positional]
    var_pos = sig.var_positional
    var_kw = sig.var_keyword
    targets: list[str] = []
    filled: set[str] = set()
    for i in range(call.n_positional):
        if i < len(positional_params):
            targets.append(positional_params[i].name)
            filled.add(positional_params[i].name)
        elif var_pos is not None:
            targets.append("*" + var_pos.name)
        else:
            takes = len(positional_params)
            return Binding(
                False,
                error=f"takes {takes} positional argument{'s' if takes != 1 else ''} but "
                f"{call.n_positional} were given",
            )
    kw_targets: list[tuple[str, str]] = []
    unexpected: list[str] = []
    aliases = dict(sig.aliases)
    for kw in call.keywords:
        p = sig.get(kw)
        if p is None and kw in aliases:
            p = sig.get(aliases[kw])  # an old name a decorator still maps to its parameter
        if p is not None and p.keyword:
            if p.name in filled:
                return Binding(False, error=f"got multiple values for argument '{kw}'")
            filled.add(p.name)
            kw_targets.append((kw, p.name))
        elif var_kw is not None:
            kw_targets.append((kw, "**" + var_kw.name))
        else:
            unexpected.append(kw)
    if unexpected:
        return Binding(
            False, error=f"got an unexpected keyword argument '{unexpected[0]}'", unexpected=tuple(unexpected)
        )
    missing = tuple(p.name for p in sig.params if p.required and p.name not in filled)
    if missing:
        names = " and ".join(f"'{m}'" for m in missing)
        return Binding(
            False,
            error=f"missing {len(missing)} required argument{'s' if len(missing) > 1 else ''}: {names}",
            missing=missing,
        )
    return Binding(True, tuple(targets), tuple(kw_targets))


def binds(sig: Signature, call: CallShape) -> bool:
    return not call.splatted and bind(sig, call).ok


def kinds_allow_keyword(sig: Signature, name: str) -> bool:
    p = sig.get(name)
    return p is not None and p.kind in (Kind.POSITIONAL_OR_KEYWORD, Kind.KEYWORD_ONLY)
