"""The questions rules answer, as frozen values built once by the path that asks (the judge, the splat path,
the run's dict fixer). What the evidence says (the tests, the cases, the class bodies) is in them as answers,
so a rule reads values and calls nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Protocol


class Moved(str, Enum):
    """Why a removed parameter's value can't just be dropped, as the class bodies and the tests show."""

    BUILT_FROM = "built_from"  # the old constructor built another parameter's default from it
    PART_OF = "part_of"  # the old constructor built a part from it that the new class no longer has
    FORGOTTEN = "forgotten"  # nothing in the new class names it any more
    ELSEWHERE = "elsewhere"  # the commit moved it: another call or parameter takes it now


@dataclass(frozen=True)
class MovedTo:
    kind: Moved
    where: str = ""  # the other parameter, the part, or the sentence that says where it went


@dataclass(frozen=True)
class MovedOut:
    """A value the call passes for a parameter that left this signature, and where the change put it (the
    first such value, in the call's order): `kind` is "to-constructor" (a method's parameter that the class's
    constructor takes now, with another default), "refused-now" (required before, refused now) or
    "required-elsewhere" (a required parameter of another class or method of the same change)."""

    kind: str
    reason: str  # the sentence that says where, and what to do


@dataclass(frozen=True)
class BoundBefore:
    """A call against the old signature: did it bind before the change?"""

    bound_before: bool
    error_now: str  # what binding the new signature says
    guard: str | None  # a condition around the call that bench-op can't evaluate


@dataclass(frozen=True)
class RemovedValue:
    """An argument a call passes for a parameter the change removed: can it be dropped?"""

    index: int  # the argument's position in the call
    param: str  # the removed parameter
    source: str | None  # the value as written; None when it can't be seen (a dict entry at run time)
    keyword: bool  # passed by keyword
    old_default: bool  # the value is what the parameter took anyway (None, or its old default)
    choice: bool  # the value picks something by its form: a flag, an enum member, a string, a strategy object
    varies: str | None  # why it is a choice across the benchmark's cases (its value differs between them)
    function: bool  # it passes a function other than the default: what the function does is measured
    tests_drop_it: bool  # the commit's updated tests drop the same parameter with the same value
    slot_taken_by: str | None  # a new parameter that took its slot, when the slot is contested
    by_position_only: bool  # the removed parameter was read off its slot alone, never by its name
    moved: MovedTo | None  # what the class bodies and the tests say became of the value
    namesake: str | None  # a new parameter that shares a word with it, when no rename was read
    # What the constructor's body says (analysis/flow.py): a constant now stands where the value was used; the
    # value is read from a config object now (its path); a new parameter takes its places through another
    # transform (the new parameter, the old and the new expression).
    replaced_by: str | None = None
    folded_into: str | None = None
    transformed: tuple[str, str, str] | None = None


@dataclass(frozen=True)
class RequiredNow:
    """A parameter the call leaves out that the new signature requires: is its old default the value?"""

    param: str
    old_default: str | None  # the old default under its old name, as written
    passed_before: bool  # the call passed it before (then the call passes it still)
    constant: bool  # the old default is a constant expression (no call, no state)
    names_in_scope: bool  # the names the old default reads are in the call's scope (True: scope unknown)
    variable_in_scope: bool  # a variable named like the parameter is at hand: it comes first
    introduced: str | None = None  # the literal the old body had where the new one reads this parameter


@dataclass(frozen=True)
class BodyRename:
    """A removed parameter and an added one that the constructor's body uses at the same places."""

    old: str
    new: str
    exact: bool  # every place of either has its counterpart
    same_default: bool  # both required, or both with the same default
    same_annotation: bool  # the annotations agree, or one side has none


@dataclass(frozen=True)
class RenamedValue:
    """A value the call passes for a parameter the change renamed: does it carry over as it is?"""

    param: str
    new: str
    source: str
    transformed: tuple[str, str] | None  # (old, new) expression between parameter and use, when they differ


@dataclass(frozen=True)
class TemplateValue:
    """A value the commit's template gives a new parameter at one call (rendered with the call's own
    arguments): does the call's scope hold the same thing more faithfully?"""

    param: str
    value: str  # the template's value at this call
    single: str | None  # the variable `v`, when the value is the one-element tuple `(v,)`
    counts: str | None  # the shape whose elements `v` multiplies in the call's function (`v = prod(shape)`)
    built_from: str | None  # the call that builds the inputs from that shape, and not from `v`


class DefaultEvidence(Protocol):
    """What the class bodies, the benchmark's imports and the tests say of one changed default. Asked lazily,
    at most once each, in the order the pin rules ask: most calls are settled by the first answer."""

    def meant_by_none(self) -> str | None: ...  # what the old constructor turned None into
    def same_meaning(self) -> bool: ...  # the new default is the old value respelled
    def not_pinnable(self) -> str | None: ...  # why the old default can't be written at the call
    def rejected_now(self) -> str | None: ...  # why the new code would refuse the old default
    def swapped(self) -> str | None: ...  # the commit's tests swap the two values: the meaning changed
    def adopted(self) -> str | None: ...  # the updated tests moved to the new default
    def by_hand(self) -> str | None: ...  # the pin to write, when bench-op can't write it itself


@dataclass(frozen=True)
class ChangedDefault:
    """A default the call relies on (it leaves the parameter out) that the change changed: pin the old one?"""

    param: str
    old_default: str
    new_default: str
    ask: DefaultEvidence = field(compare=False, repr=False)

    @cached_property
    def meant_by_none(self) -> str | None:
        return self.ask.meant_by_none()

    @cached_property
    def same_meaning(self) -> bool:
        return self.ask.same_meaning()

    @cached_property
    def not_pinnable(self) -> str | None:
        return self.ask.not_pinnable()

    @cached_property
    def rejected_now(self) -> str | None:
        return self.ask.rejected_now()

    @cached_property
    def swapped(self) -> str | None:
        return self.ask.swapped()

    @cached_property
    def adopted(self) -> str | None:
        return self.ask.adopted()

    @cached_property
    def by_hand(self) -> str | None:
        return self.ask.by_hand()

    @property
    def what(self) -> str:
        return (
            f"relies on the default of '{self.param}', which changed from {self.old_default} to "
            f"{self.new_default}"
        )


class Found(str, Enum):
    """What the evidence found of a call that is settled as a whole, or of one value beside the argument
    operations: each answer has one rule (`rules/settled.py`)."""

    # what the call binds
    OPAQUE_BINDING = "opaque-binding"  # what it binds depends on values bench-op can't see
    UNREADABLE = "unreadable"  # a signature bench-op can't read
    AUTHORED_BROKEN = "authored-broken"  # written in this range for the new signature, and it fails it
    PARTIAL_BROKEN = "partial-broken"  # a functools.partial that fails the new signature here
    CLASSES_DISAGREE = "classes-disagree"  # the classes that reach the call need different fixes
    NO_EDIT_BINDS = "no-edit-binds"  # no edit keeps every argument on its parameter
    THROUGH_VARARGS = "through-varargs"  # the value reaches the class through *args
    POSITIONAL_ONLY = "positional-only"  # the parameter can't take the value by keyword any more
    HISTORY_SILENT = "history-silent"  # broken now, and history does not say what the call meant
    NOT_WRITTEN = "not-written"  # the rewrite stage could not write the planned edit
    BY_KEYWORD = "by-keyword"  # a positional value whose slot moved, passed by keyword
    # values for parameters the call must pass
    NO_VALUE = "no-value"  # nothing says what a required parameter takes
    CONTESTED = "contested"  # the slot and the scope both offer a value
    FROM_TESTS = "from-tests"  # the tests, or a variable of the call's scope, give the value
    NAMED_BY_TESTS = "named-by-tests"  # the updated tests pass a variable named like the parameter
    # the commit's own edits
    TEMPLATE_ALSO_CHANGES = "template-also-changes"
    TEMPLATE_CODE = "template-code"
    CHOICE_NOT_SHOWN = "choice-not-shown"
    HALF_EDIT = "half-edit"
    FIELDS_OF_A_PARAMETER = "fields-of-a-parameter"
    RETYPED = "retyped"
    OVERWRITTEN = "overwritten"
    AS_THE_COMMIT_SHOWS = "as-the-commit-shows"
    # names
    SIGNATURE_RENAME = "signature-rename"  # a keyword renamed as the signatures pair it
    # classes
    CLASS_REMOVED = "class-removed"
    IMPORT_OF_REMOVED = "import-of-removed"
    CLASS_RENAMED = "class-renamed"  # the call binds its class's successor as it bound the class
    SUCCESSOR_UNREADABLE = "successor-unreadable"
    SUCCESSOR_SLOT = "successor-slot"  # only the slot pairs the successor's parameter with the old one
    MEMBER_GONE = "member-gone"
    IMPORT_FROM_MOVED = "import-from-moved"
    ROUTED = "routed"  # a choice the successor lost has a class of its own
    SEVERAL_ROUTES = "several-routes"
    BY_ELIMINATION = "by-elimination"  # the class's successor is the one class left where it stood


@dataclass(frozen=True)
class Settled:
    """One thing the evidence settled, in its own words: `said` is what it found (where, which values); the
    rule that answers `found` says what becomes of the call. `param` and `value`: the value found for a
    parameter, where there is one."""

    found: Found
    said: str = ""
    param: str = ""
    value: str = ""
