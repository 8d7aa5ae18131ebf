"""The task the agent reads (Markdown, on its stdin and in the file `BENCH_OP_TASK` names): the blocked calls,
the interface change, the evidence bench-op saw and why it did not rewrite, the traceback of a run, the
command that runs the benchmark, and the rules its edit is checked against. Short enough to read in a minute:
the calls and the evidence are cut to the first few."""

from __future__ import annotations

from collections.abc import Sequence

from benchop_hook.agent.residue import Blocked
from benchop_hook.analysis.changes import OpChange
from benchop_hook.analysis.locate import analyze
from benchop_hook.fixing.context import StaticContext
from benchop_hook.fixing.results import Finding, shown_call

CALLS = 6  # blocked calls listed; the rest are counted
TEST_CALLS = 4  # updated test calls shown per Op
TRACE_LINES = 12


def task_text(
    b: Blocked,
    changes: Sequence[OpChange],
    evidence: Sequence[str],
    run_command: str,
    previous: str | None = None,
) -> str:
    """The task, as Markdown. Pure."""
    lines = [
        f"# bench-op: finish `{b.path}` for the new interface",
        "",
        "bench-op rewrote what the evidence allowed and stopped here. Fix what is left. Your edit is then "
        "checked as bench-op checks its own (only this file, every changed call binds the new signature, "
        "no choice dropped, no case removed) and the benchmark is run: numbers mean done.",
        *(["", f"bench-op's reason: {b.why}"] if b.traceback else []),
        "",
        "## Calls to fix" if b.traceback is None else "## Calls bench-op judged",
        *_calls(b.calls),
        "",
        "## The interface change",
        *_changes(changes),
    ]
    if evidence:
        lines += ["", "## Evidence bench-op saw", *(f"- {e}" for e in evidence)]
    if b.traceback:
        trace = b.traceback.splitlines()[-TRACE_LINES:]
        lines += ["", "## The run ended in", "```", *trace, "```"]
    lines += ["", "## Run it", "```", run_command, "```", "", "## Rules", *rules(b.path)]
    if previous:
        lines += ["", "## Your last attempt was not kept", previous, "Start again from the file as it is."]
    return "\n".join(lines) + "\n"


def rules(path: str) -> list[str]:
    return [
        f"- Change only `{path}`, and in it only the code that builds or calls the changed classes (their "
        "arguments, their imports, the values they need). bench-op's own fixes are already in it: keep them.",
        "- Keep what each case measures: every choice a call passes (a flag, a mode, a backend: carry it "
        "over, or build the class made for it), every test, every parametrized case.",
        "- Another file under the benchmark paths only if this one cannot work without it, with a line "
        "`ALSO <path>: <reason>` in your answer. Nothing outside them.",
        "- If the failure is not an interface change (a kernel crash, a CUDA error, wrong numbers), change "
        "nothing and end your answer with the line `BLOCKED: <reason>`.",
        "- Otherwise end your answer with the line `SUCCESS`.",
    ]


def _calls(findings: Sequence[Finding]) -> list[str]:
    out = []
    for f in findings[:CALLS]:
        out.append(f"- `{f.site.path}:{f.site.lineno}` `{shown_call(f.site, f.method, 100)}`: {f.problem}")
        if f.why_not:
            out.append(f"  - bench-op: {f.why_not}")
        elif f.fixed and f.plan is not None:
            out.append(f"  - bench-op rewrote it to `{f.func_after}{f.plan.preview}`")
    if len(findings) > CALLS:
        out.append(f"- ... and {len(findings) - CALLS} more calls like these")
    return out or ["- (none found statically: the run below shows where)"]


def _changes(changes: Sequence[OpChange]) -> list[str]:
    out = []
    for c in changes:
        out.append(f"- `{c.headline()}`" + (f" ({c.path})" if c.path else ""))
        if c.edits:
            out.append("  - " + "; ".join(e.explain() for e in c.edits))
        for m in c.methods:
            out.append(f"  - .{m.name}: " + "; ".join(e.explain() for e in m.edits))
    return out or ["- (see the traceback)"]


def relevant(b: Blocked, changes: Sequence[OpChange]) -> list[OpChange]:
    """The changes the file's calls reach (by the Op names its findings carry); all of them if none does."""
    names = {n for f in b.result.findings for n in f.op.split("/")}
    mine = [c for c in changes if c.name in names or (c.old is not None and c.old.name in names)]
    return mine or list(changes)


def evidence_lines(b: Blocked, changes: Sequence[OpChange], ctx: StaticContext) -> list[str]:
    """What bench-op saw, briefly: the commit's own edits of such calls, the successors it could not
    choose between, and how the updated tests build each changed class now."""
    out: list[str] = []
    for f in b.calls:
        if f.example is not None:
            e = f.example
            line = f"the commit's own edit at {e.path}:{e.line}: `{e.old}` -> `{e.new}`"
            if line not in out:
                out.append(line + (f" ({e.agreeing} agreeing)" if e.agreeing > 1 else ""))
    for c in changes:
        if c.candidates:
            out.append(
                f"{c.name} was removed; its successor is one of " + ", ".join(x.name for x in c.candidates)
            )
        out += _test_calls(c, ctx)
    return out


def _test_calls(c: OpChange, ctx: StaticContext) -> list[str]:
    if c.new is None:
        return []
    out: list[str] = []
    name = c.new.name.encode()
    for path in ctx.evidence.test_files:
        data = ctx.new_p.snapshot.read(path)
        if data is None or name not in data:
            continue
        for site in analyze(path, data, ctx.new_p).calls():
            if site.method is None and site.via != "partial" and site.classes == {c.new}:
                out.append(f"a test builds it as `{shown_call(site, None, 100)}` ({path}:{site.lineno})")
                if len(out) >= TEST_CALLS:
                    return out
    return out
