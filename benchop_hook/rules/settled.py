"""Rules that answer one finding of the evidence each (`facts.Settled`): a class removed, a template that does
not fit, a signature bench-op can't read. What was found, and where, is the evidence's; what becomes of the
call is the rule's, and so is its id, its place in `decide.py` and its off switch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from benchop_hook.rules.facts import Found, Settled
from benchop_hook.rules.registry import rule
from benchop_hook.rules.verdicts import Hand, Keep, LeaveToRun, Pin, Rename, Verdict

Answer = Literal["hand", "run", "keep", "pin", "rename"]


def _verdict(rule_id: str, answer: Answer, f: Settled, says: str) -> Verdict:
    if answer == "hand":
        return Hand(rule_id, f.said or says)
    if answer == "run":
        return LeaveToRun(rule_id, f.said or says)
    if answer == "keep":
        return Keep(rule_id, f.said)
    if answer == "pin":
        return Pin(rule_id, f.param, f.value, f.said)
    return Rename(rule_id, f.param, f.value)


def answers(
    rule_id: str,
    name: str,
    found: Found,
    answer: Answer,
    *,
    summary: str,
    motivated_by: str,
    fires: str,
    quiet: str,
    says: str = "",
) -> Callable[[Settled], Verdict | None]:
    """Register rule `rule_id`: it answers `found`, and nothing else. A rule that reports ("hand") is a
    guard: turned off, the call is left to the run. `says`: the rule's own sentence, where what was found
    needs no words of its own (a class removed with nothing in its place)."""

    def check(f: Settled) -> Verdict | None:
        return _verdict(rule_id, answer, f, says) if f.found is found else None

    check.__name__ = name.replace("-", "_")
    return rule(
        rule_id,
        name,
        summary=summary,
        motivated_by=motivated_by,
        fires=fires,
        quiet=quiet,
        guard=answer == "hand",
    )(check)
