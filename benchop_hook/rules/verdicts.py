"""What a rule says of one question: a closed set of frozen values, each carrying the id of its rule."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Keep:
    """The argument stays as it is."""

    rule: str
    note: str = ""


@dataclass(frozen=True)
class Drop:
    """The argument goes: dropping it leaves what is measured as it was."""

    rule: str
    note: str = ""


@dataclass(frozen=True)
class Contest:
    """The argument's slot went to another parameter: which value that one takes is the fill's question."""

    rule: str
    param: str  # the new parameter that took the slot
    as_keyword: str | None = None  # the old parameter the value was passed as, by keyword


@dataclass(frozen=True)
class Rename:
    """The parameter is the old one under a new name: a call's value for it carries over."""

    rule: str
    old: str
    new: str


@dataclass(frozen=True)
class Pin:
    """A changed default the call relied on is passed explicitly, with its old value."""

    rule: str
    param: str
    value: str
    note: str


@dataclass(frozen=True)
class Prefer:
    """Ordered values for one parameter, all guesses: the first is written, the run tries the next ones."""

    rule: str
    param: str
    values: tuple[str, ...]
    note: str


@dataclass(frozen=True)
class Hand:
    """Only a person can say what the call becomes: the call is reported, and blocks."""

    rule: str
    reason: str
    choice: tuple[int, str, str] | None = None  # (argument index, parameter, value) a sibling class may take


@dataclass(frozen=True)
class Note:
    """Nothing to change, and something worth saying (a default not pinned, and why)."""

    rule: str
    text: str


@dataclass(frozen=True)
class LeaveToRun:
    """Nothing is provable either way: the call is not rewritten, and the run decides."""

    rule: str
    reason: str


Verdict = Keep | Drop | Contest | Rename | Pin | Prefer | Hand | Note | LeaveToRun
