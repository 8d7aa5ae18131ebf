"""The agent step, after bench-op's own rewrites and runs: each file still blocked on an interface reason goes
to the person's coding agent in a sandbox; its edit is checked like bench-op's own (`check.py`), then written
through the tree guard and run as bench-op runs its fixes. Numbers mean done; anything else leaves the file
blocked, with the agent's edit saved as a patch and its log under `.git/bench-op/agent/`.

Called by the follow-up commit's assembly (`bench-op run`, the follow-up stage); never at the pre-commit
stage (its `Job` has no agent).
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from benchop_hook.agent.check import check_file, counted, judging, outside, too_few
from benchop_hook.agent.check_run import run_one
from benchop_hook.agent.residue import Blocked, residue
from benchop_hook.agent.sandbox import Sandbox, run_agent, sandbox
from benchop_hook.agent.settings import INSIDE, Agent
from benchop_hook.agent.task import evidence_lines, relevant, task_text
from benchop_hook.errors import EXIT_OK
from benchop_hook.fixing.context import StaticContext
from benchop_hook.fixing.results import FileResult
from benchop_hook.git import repo as gitrepo
from benchop_hook.git import sandbox as gitsandbox
from benchop_hook.report.run import outcome_lines
from benchop_hook.report.text import unified_diff
from benchop_hook.run.execute import LeftAlone, Prepare, Static, echo, finish, settle
from benchop_hook.run.gpus import visible_gpus
from benchop_hook.run.job import Job
from benchop_hook.run.outcome import ByAgent, FileOutcome, RunOutcome, components
from benchop_hook.run.repair import node_targets
from benchop_hook.run.runner import Interpreter, Warm, resolve_python, start_warm
from benchop_hook.run.tree_guard import TreeGuard, read_bytes, save_patch


@dataclass(frozen=True)
class Attempt:
    """One try of the agent on one file, up to its edit being accepted or not (the run comes after)."""

    edited: Mapping[str, bytes] = field(default_factory=dict)  # path -> content, when accepted
    refused: str | None = None  # why nothing of it is used
    final: bool = False  # the agent said BLOCKED: asking again would not help
    agent: ByAgent | None = None


def hand_over(
    job: Job, static: Static, run: RunOutcome, guard: TreeGuard, *, prepare: Prepare | None, finalize: bool
) -> RunOutcome:
    """`run` with each file still blocked on an interface reason handed to the person's agent, when one is
    set; the run's status follows from its files' again."""
    agent = job.settings.agent
    if agent is None or run.result is None or run.status == "nothing-to-do":
        return run
    _, ctx = static
    heads = {fr.path: fr.before for fr in run.result.files}

    def user_edited(path: str) -> bool:  # commit mode: the repairs were made on top of the user's edits
        return prepare is not None and read_bytes(os.path.join(job.repo.root, path)) != heads.get(path)

    todo = residue(run, user_edited)
    if not todo:
        return run
    why_not = _cannot(job, ctx)
    if why_not:
        echo(
            f"bench-op: the agent ({agent.name}) was not asked about {len(todo)} blocked file(s): {why_not}."
        )
        return run
    interp = resolve_python(job.repo.root, job.settings.python, job.cfg.python, job.settings.python_from)
    outcomes, hand = list(run.outcomes), list(run.blocked_static)
    written = dict(run.written)
    for b in todo:
        o = _one(job, ctx, agent, b, guard, prepare, finalize, interp)
        for line in outcome_lines(o):
            echo(line)
        if b.outcome is not None:
            outcomes = [o if x is b.outcome else x for x in outcomes]
        else:
            hand = [fr for fr in hand if fr.path != b.path]
            outcomes.append(o)
        if o.status == "passed" and o.content is not None:
            written[o.path] = o.content
    done = replace(
        run,
        status="done",
        exit_code=EXIT_OK,
        reason=None,
        outcomes=tuple(outcomes),
        blocked_static=tuple(hand),
        written=written,
        components=components(outcomes),
    )
    return finish(done, job.cfg)


def _cannot(job: Job, ctx: StaticContext) -> str | None:
    """Why the agent can't be asked in this run (None: it can)."""
    if job.settings.no_run:
        return "its edit is kept only once a run shows numbers, and this run runs no benchmark"
    if job.target.mode == "all" or ctx.old_p is None:
        return "it works on a diff (staged changes or a range), not on --all-files"
    return None


def _one(
    job: Job,
    ctx: StaticContext,
    agent: Agent,
    b: Blocked,
    guard: TreeGuard,
    prepare: Prepare | None,
    finalize: bool,
    interp: Interpreter,
) -> FileOutcome:
    """The agent's tries on one file, each in a fresh sandbox, until one is kept or none is left."""
    # The benchmark interpreter starts now: its start and imports (pytest, torch) overlap with the agent's
    # work, and the run of an accepted edit takes it.
    warm = start_warm(job.repo.root, job.settings.python, job.cfg)
    try:
        return _tries(job, ctx, agent, b, guard, prepare, finalize, interp, warm)
    finally:
        if warm is not None:
            warm.close()


def _tries(
    job: Job,
    ctx: StaticContext,
    agent: Agent,
    b: Blocked,
    guard: TreeGuard,
    prepare: Prepare | None,
    finalize: bool,
    interp: Interpreter,
    warm: Warm | None,
) -> FileOutcome:
    previous: str | None = None
    last: Attempt | None = None
    for n in range(1, agent.attempts + 1):
        if n > 1:
            echo(f"bench-op: asking the agent ({agent.name}) again about {b.path} ({n} of {agent.attempts})")
        last = _attempt(job, ctx, agent, b, interp, previous, n)
        if last.refused is None:
            out = _run_edit(job, ctx, b, last, guard, prepare, finalize, interp, warm)
            if out.status == "passed" or n == agent.attempts:
                return out
            previous = out.reason
        else:
            echo(f"bench-op: {b.path}: the agent ({agent.name}) {last.refused}")
            previous = last.refused
            if last.final:
                break
    assert last is not None
    reason = f"{b.why}; then the agent ({agent.name}) {previous}"
    base = b.outcome or FileOutcome(b.path, fixes=tuple(b.result.fix_lines()))
    return replace(base, status="blocked", reason=reason, agent=last.agent)


def _attempt(
    job: Job, ctx: StaticContext, agent: Agent, b: Blocked, interp: Interpreter, previous: str | None, n: int
) -> Attempt:
    """Try `n`: the task, the sandbox, the agent, then the checks of its edit."""
    started = time.monotonic()
    folder = os.path.join(job.repo.git_dir, "bench-op", "agent")
    name = time.strftime("%Y%m%d-%H%M%S-") + b.path.replace("/", "__") + (f".{n}" if n > 1 else "")
    stem = os.path.join(folder, name)
    changes = relevant(b, ctx.changes)
    command = _run_command(interp, b)
    task = task_text(b, changes, evidence_lines(b, changes, ctx), command, previous)
    os.makedirs(folder, exist_ok=True)
    with open(stem + ".task.md", "w", encoding="utf-8") as f:
        f.write(task)
    log = stem + ".log"
    echo(
        f"bench-op: {b.path}: handing it to the agent ({agent.name}), timeout {agent.timeout:.0f} s; "
        f"task {os.path.relpath(stem + '.task.md', job.repo.root)}, log {os.path.relpath(log, job.repo.root)}"
    )
    commit, tree = _base(job)
    with sandbox(job.repo, commit, tree, {b.path: b.start}) as sb:
        env = _environment(job, b, interp, stem + ".task.md", command)
        ran = run_agent(agent.command, sb.path, task, env, agent.timeout, log)
        by = ByAgent(agent.name, log=log, seconds=ran.seconds)
        verdict: dict[str, bytes] | str
        final = ran.blocked is not None
        if ran.timed_out:
            verdict = f"did not finish within {agent.timeout:.0f} s: its whole process group was killed"
        elif ran.code != 0:
            verdict = f"exited with {ran.code}" + (f" ({ran.answer})" if ran.answer else "") + f"; see {log}"
        elif ran.blocked is not None:
            verdict = f"answered BLOCKED: {ran.blocked}"
        else:
            verdict = _checked(job, ctx, b, sb, interp, env, _also(log))
    by = replace(by, step_seconds=time.monotonic() - started)
    if isinstance(verdict, str):
        return Attempt(refused=verdict, final=final, agent=by)
    return Attempt(edited=verdict, agent=replace(by, diff=unified_diff(b.path, b.start, verdict[b.path])))


def _checked(
    job: Job,
    ctx: StaticContext,
    b: Blocked,
    sb: Sandbox,
    interp: Interpreter,
    env: Mapping[str, str],
    also: Mapping[str, str],
) -> dict[str, bytes] | str:
    """The agent's edit (path -> content) when it passes the checks; else why not, its edit saved as a
    patch."""
    changed = gitsandbox.changed_since(sb.path, sb.base)
    edited = {
        p: read_bytes(os.path.join(sb.path, p)) or b""
        for c in changed
        for p in (c.new_path,)
        if p is not None
    }
    saved = _saved(job, b, edited)
    bad = outside(changed, b.path, also, ctx.paths.bench)
    if bad:
        return f"changed {', '.join(bad)}, outside {b.path}: its edit was refused whole{saved}"
    if b.path not in edited or any(c.new_path is None for c in changed):
        return f"did not change {b.path} (or deleted a file): its edit was refused{saved}"
    j = judging(ctx, job.cfg)
    problems: list[str] = []
    to_collect: dict[str, int] = {}
    for path, content in sorted(edited.items()):
        start = b.start if path == b.path else (ctx.new_p.snapshot.read(path) or b"")
        before = ctx.old_p.snapshot.read(path) if ctx.old_p is not None else None
        verdict = check_file(path, before, start, content, j, ctx.paths.bench)
        problems += verdict.problems
        if path == b.path:
            to_collect.update(verdict.to_collect)
    if not problems and to_collect:
        collected = _collect(interp, sb.path, b.path, env, job.settings.timeout)
        if isinstance(collected, str):
            problems.append(f"its cases could not be counted: {collected}")
        else:
            problems += too_few(to_collect, collected)
    if problems:
        return "wrote an edit bench-op's checks refuse: " + "; ".join(problems) + saved
    echo(
        f"bench-op: {b.path}: the agent's edit passed bench-op's checks (only benchmark files, every changed "
        "call binds, no choice dropped, no case removed):"
    )
    echo(unified_diff(b.path, b.start, edited[b.path]).rstrip("\n"))
    return edited


def _saved(job: Job, b: Blocked, edited: Mapping[str, bytes]) -> str:
    if b.path not in edited:
        return ""
    return f"; its edit is saved as {save_patch(job.repo.git_dir, b.path, b.start, edited[b.path])}"


def _also(log: str) -> dict[str, str]:
    """`ALSO <path>: <reason>` lines of the agent's answer: another benchmark file it had to change."""
    out: dict[str, str] = {}
    text = (read_bytes(log) or b"").decode("utf-8", "replace")
    for line in text.splitlines():
        words = line.strip().strip("*`").split(None, 1)
        if len(words) == 2 and words[0] == "ALSO" and ":" in words[1]:
            path, reason = words[1].split(":", 1)
            if reason.strip():
                out[path.strip().strip("`")] = reason.strip()
    return out


def _base(job: Job) -> tuple[str, str | None]:
    """What the sandbox is checked out at: the range's commit, or HEAD with the staged tree on top."""
    if job.target.mode == "range" and job.target.to_rev:
        return gitrepo.resolve_commit(job.repo.root, job.target.to_rev), None
    head = gitrepo.resolve_commit(job.repo.root, "HEAD")
    return head, gitsandbox.staged_tree(job.repo)


def _run_command(interp: Interpreter, b: Blocked) -> str:
    targets = node_targets(b.result)
    return f"{shlex.quote(interp.path)} -m pytest {' '.join(shlex.quote(t) for t in targets)} -v"


def _environment(job: Job, b: Blocked, interp: Interpreter, task: str, command: str) -> dict[str, str]:
    """The user's environment (without what a git hook exports), the benchmark interpreter first on PATH, the
    GPUs this run may use, and where the task is."""
    env = gitrepo.clean_env()
    if "LC_ALL" not in os.environ:
        env.pop("LC_ALL", None)
    env["PATH"] = os.pathsep.join([os.path.dirname(interp.path), env.get("PATH", "")])
    env.update(
        {
            INSIDE: "1",
            "BENCH_OP_TASK": task,
            "BENCH_OP_FILE": b.path,
            "BENCH_OP_PYTHON": interp.path,
            "BENCH_OP_RUN": command,
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    if job.settings.gpus != "all":
        env["CUDA_VISIBLE_DEVICES"] = ",".join(visible_gpus(job.settings.gpus))
    return env


def _collect(
    interp: Interpreter, where: str, path: str, env: Mapping[str, str], timeout: float
) -> dict[str, int] | str:
    """How many cases each test function of `path` collects in the sandbox; or why collection failed."""
    import subprocess

    cmd = [interp.path, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", path]
    try:
        proc = subprocess.run(cmd, cwd=where, env=dict(env), capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"pytest --collect-only did not finish ({exc})"
    if proc.returncode not in (0, 5):
        lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
        return f"pytest --collect-only failed: {lines[-1] if lines else f'exit {proc.returncode}'}"
    return counted([line.strip() for line in proc.stdout.splitlines() if "::" in line], path)


def _run_edit(
    job: Job,
    ctx: StaticContext,
    b: Blocked,
    tried: Attempt,
    guard: TreeGuard,
    prepare: Prepare | None,
    finalize: bool,
    interp: Interpreter,
    warm: Warm | None,
) -> FileOutcome:
    """The accepted edit written through the tree guard and run as bench-op runs its own fixes."""
    by = tried.agent
    assert by is not None
    fr = FileResult(b.path, b.result.findings, b.head, tried.edited[b.path], reaches=b.result.reaches)
    for path, content in sorted(tried.edited.items()):
        item = fr if path == b.path else FileResult(path, before=ctx.new_p.snapshot.read(path), after=content)
        on_disk = prepare(item) if prepare is not None else content
        if isinstance(on_disk, LeftAlone):
            patch = save_patch(job.repo.git_dir, b.path, b.start, fr.after or b"")
            return FileOutcome(
                b.path, status="blocked", reason=f"{path}: {on_disk.reason}", patch=patch, agent=by
            )
        guard.write(path, on_disk)
    out = run_one(job, ctx, guard, interp, fr, warm)
    out = replace(out, agent=by, written=out.written | (frozenset(tried.edited) - {b.path}))
    if out.status != "passed":
        why = f"the agent's edit ({by.name}) passed the checks, but " + {
            "blocked": f"its run failed: {out.reason}",
            "failed": f"its run printed no numbers: {out.reason}",
        }.get(out.status, f"it could not run here ({out.reason}), and only numbers keep an agent's edit")
        out = replace(out, status="blocked", reason=why, agent=replace(by, diff=""))  # nothing of it kept
    settled, _, _ = settle([out], guard, job.repo.git_dir, finalize=finalize)
    return settled[0]
