"""No choice dropped: what a call passes that picks a behaviour (`trans_b=True`, `backend="process"`, a case
value that varies across the cases) must still be passed after the agent's edit, or be carried by a class
named for it (`Conv1dFwdOp(..., bias=True)` -> `Conv1dBiasFwdOp(...)`), unless the updated tests drop it the
same way. The rules bench-op's own rewrites follow (`fixing/plan.py`), applied to an edit it did not make.

Calls are compared within their function: an agent may restructure a call (a branch per class) but not lose
what it chose. Pure over its inputs.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchop_hook.analysis.callsites import Arg, CallSite
from benchop_hook.analysis.cases import Cases
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.locate import analyze
from benchop_hook.analysis.meaning import targets_of
from benchop_hook.analysis.renames import name_words
from benchop_hook.analysis.signatures import Signature, expr_key
from benchop_hook.fixing.choices import choice_words, is_choice
from benchop_hook.fixing.commit_range import authored_lines
from benchop_hook.fixing.context import change_signatures
from benchop_hook.fixing.judge import changes_reaching
from benchop_hook.fixing.judging import Judging
from benchop_hook.fixing.results import shown_call


@dataclass(frozen=True)
class Choice:
    site: CallSite  # the call in the file bench-op handed the agent
    param: str
    value: str
    change: OpChange
    old_sig: Signature
    new_sig: Signature
    case_value: bool  # a name whose value varies across the cases, not a literal


def choices(path: str, head: bytes, start: bytes, j: Judging) -> list[Choice]:
    """Every choice the calls of changed classes pass in `start` (the file with bench-op's own fixes; the
    calls it fixed are read against the new signature, the others against the old)."""
    fixed = authored_lines(head, start)
    cases = Cases(start)
    out: list[Choice] = []
    for site in analyze(path, start, j.new_p, j.old_p).calls():
        changed, _ = changes_reaching(site, j)
        if not changed:
            continue
        c = changed[0]
        old_sig, new_sig, _edits = change_signatures(c, site.method, j.new_p)
        if old_sig is None or new_sig is None:
            continue
        mine = any(n in fixed for n in range(site.lineno, site.end_lineno + 1))
        args = [a for a in (site.expanded_args or site.args) if a.kind in ("pos", "kw")]
        for sig in (new_sig, old_sig) if mine else (old_sig, new_sig):
            targets = targets_of(args, sig)
            if targets is not None:
                break
        if targets is None:
            continue
        for a, p in zip(args, targets):
            literal = is_choice(a.source, sig.get(p))
            varies = not literal and cases.is_choice(a.source, (site.lineno, site.end_lineno))
            if literal or varies:
                out.append(Choice(site, p, a.source, c, old_sig, new_sig, varies))
    return out


def dropped(
    found: Sequence[Choice], path: str, edited: bytes, columns: Mapping[str, frozenset[str]], j: Judging
) -> list[str]:
    """The choices the edit drops, as sentences. `columns`: the case values each test function of the edited
    file takes (a case value whose column the edit removed is the case check's business, not this one's)."""
    sites: dict[str | None, list[CallSite]] = {}
    for s in analyze(path, edited, j.new_p, j.old_p).calls():
        sites.setdefault(s.qualfunction, []).append(s)
    every = [s for ss in sites.values() for s in ss]
    out = []
    for ch in found:
        fn = ch.site.qualfunction
        if ch.case_value and fn is not None and ch.value not in columns.get(fn, frozenset()):
            continue
        near = sites.get(fn) or every
        if any(_keeps(e, ch, j) for e in near) or _tests_drop(ch, j):
            continue
        out.append(
            f"{ch.site.path}:{ch.site.lineno}: {shown_call(ch.site, ch.site.method)} passes "
            f"{ch.param}={ch.value}, a choice, and the edit drops it: carry it over, or build the class made "
            "for it"
        )
    return out


def _tests_drop(ch: Choice, j: Judging) -> bool:
    old, new = ch.change.old, ch.change.new
    if old is None or new is None:
        return False
    return j.evidence.drops_same_way(old, new, ch.param, ch.value, ch.old_sig, ch.new_sig)


def _keeps(e: CallSite, ch: Choice, j: Judging) -> bool:
    """Whether call `e` of the edited file still carries the choice."""
    want = expr_key(ch.value)
    if want is None:
        return True  # nothing to compare: not this check's to refuse
    flag = isinstance(ast.parse(ch.value.strip(), mode="eval").body, ast.Constant) and ch.value.strip() in (
        "True",
        "False",
        "None",
    )
    args = [a for a in (e.expanded_args or e.args) if a.kind in ("pos", "kw")]
    if any(a.kind == "kw" and a.keyword == ch.param and expr_key(a.source) == want for a in args):
        return True
    if any(_bound(args, j.new_p.constructor(cls), ch.param) == want for cls in e.classes if e.method is None):
        return True
    if not flag and any(_contains(a, want) for a in args):
        return True  # a distinctive value (or a case value) carried over under another name or inside another
    succ = ch.change.new or ch.change.old
    return succ is not None and any(named_for(cls.name, succ.name, ch.param, ch.value) for cls in e.classes)


def _bound(args: Sequence[Arg], sig: Signature | None, param: str) -> str | None:
    targets = targets_of(args, sig) if sig is not None else None
    if targets is None:
        return None
    return next((expr_key(a.source) for a, p in zip(args, targets) if p == param), None)


def _contains(a: Arg, want: str) -> bool:
    try:
        tree = ast.parse(a.source.strip(), mode="eval")
    except SyntaxError:
        return False
    return any(ast.dump(n) == want for n in ast.walk(tree.body))


def named_for(name: str, base: str, param: str, value: str) -> bool:
    """`name` is `base` with the words of the choice `param=value` added (`Conv1dFwdOp` + `bias=True` ->
    `Conv1dBiasFwdOp`): the class carries the choice."""
    token = choice_words(param, value)
    words, base_w = name_words(name), name_words(base)
    extra = len(words) - len(base_w)
    if not token or extra <= 0:
        return False
    return any(
        words[:k] == base_w[:k]
        and words[k + extra :] == base_w[k:]
        and "".join(words[k : k + extra]) in token
        for k in range(len(base_w) + 1)
    )
