"""The follow-up stage's run after `git commit` has returned (`background = true`).

The hook does the static pass, starts a detached bench-op (its own session: it survives the terminal) and
returns. That process runs the benchmarks of the commit in a temporary worktree at it, so the user's tree is
never written while they work; when the run ends it takes the repository's lock and makes the follow-up
commit on the user's branch if HEAD is still that commit, with the user's unstaged edits kept as the
foreground run keeps them. If HEAD moved meanwhile, the fix is saved as a patch and reported instead: never
a commit on top of the wrong HEAD.

Each run leaves a state file in `.git/bench-op/background/<commit>.json`: `bench-op status` reads them, and
the next bench-op command prints one line about a finished run the user has not seen.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace

from benchop_hook.git import repo as gitrepo
from benchop_hook.git.repo import RepoPaths
from benchop_hook.program import command, word
from benchop_hook.run.job import Job

DETACHED = "BENCH_OP_DETACHED"  # set in the detached process: it must not detach again


def folder(repo: RepoPaths) -> str:
    return os.path.join(repo.git_dir, "bench-op", "background")


@dataclass(frozen=True)
class State:
    """One background run, as its state file says."""

    commit: str
    base: str
    pid: int
    started: str
    log: str
    status: str = "running"  # running, then the run's status (done, blocked, ...), or "patch"
    reason: str | None = None
    follow_up: str | None = None  # the follow-up commit it made
    patch: str | None = None  # where the fix went when HEAD had moved: its patch files, one a line
    finished: str | None = None
    seen: bool = False

    def as_json(self) -> dict[str, object]:
        return dict(self.__dict__)


def _path(repo: RepoPaths, commit: str) -> str:
    return os.path.join(folder(repo), f"{commit}.json")


def read_state(repo: RepoPaths, commit: str) -> State | None:
    try:
        with open(_path(repo, commit), encoding="utf-8") as f:
            return State(**json.load(f))
    except (OSError, ValueError, TypeError):
        return None


def write_state(repo: RepoPaths, state: State) -> None:
    os.makedirs(folder(repo), exist_ok=True)
    tmp = _path(repo, state.commit) + f".{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state.as_json(), f, indent=2)
    os.replace(tmp, _path(repo, state.commit))


def states(repo: RepoPaths) -> list[State]:
    """Every background run's state, newest first."""
    try:
        names = [n for n in os.listdir(folder(repo)) if n.endswith(".json")]
    except OSError:
        return []
    found = [s for n in names if (s := read_state(repo, n[: -len(".json")])) is not None]
    return sorted(found, key=lambda s: s.started, reverse=True)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _now() -> str:
    return datetime.datetime.now().isoformat(timespec="seconds")


def start(repo: RepoPaths, base: str, commit: str, *, fixes: bool) -> str:
    """Start the detached run of `base..commit`; the one line the hook prints. A commit that already has a
    run (going on, or finished) is not run twice. `fixes`: the static pass rewrites benchmark calls, so a
    follow-up commit is to come (else the run only measures)."""
    old = read_state(repo, commit)
    if old is not None and (old.status != "running" or alive(old.pid)):
        return (
            f"bench-op: the benchmarks of {commit[:12]} already ran or are running: "
            f"`{command('status')}` says which."
        )
    os.makedirs(folder(repo), exist_ok=True)
    log = os.path.join(folder(repo), f"{commit}.log")
    env = gitrepo.clean_env(extra={DETACHED: "1"})
    argv = [
        sys.executable,
        "-m",
        "benchop_hook",
        "-C",
        repo.root,
        "hook",
        "follow-up",
        "--detached",
        base,
        commit,
    ]
    with open(log, "wb") as out:
        # Its own session: closing the terminal (SIGHUP to the foreground's group) does not end it.
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    write_state(repo, State(commit, base, proc.pid, _now(), log))
    then = (
        "when they pass, bench-op commits the fix as a follow-up commit"
        if fixes
        else "their numbers are recorded when they end"
    )
    return (
        f"bench-op: running the benchmarks of {commit[:12]} in the background "
        f"(log: {os.path.relpath(log, repo.root)}); {then}; `{command('status')}` shows how it goes."
    )


@contextlib.contextmanager
def _worktree_at(repo: RepoPaths, commit: str) -> Iterator[RepoPaths]:
    from benchop_hook.records.parent_run import temporary_worktree

    with temporary_worktree(repo.root, repo.git_dir, commit) as path:
        found = gitrepo.find_repo(path)
        yield found


def run_detached(job: Job) -> int:
    """The detached process: run in a worktree at the commit, then commit into the user's repository (or
    save a patch). `job` is the user's repository's job for base..commit."""
    from benchop_hook.errors import BenchOpError
    from benchop_hook.run.runner import resolve_python

    commit = job.target.to_rev or ""
    state = read_state(job.repo, commit) or State(commit, job.target.from_rev or "", os.getpid(), _now(), "")
    state = replace(state, pid=os.getpid())
    write_state(job.repo, state)
    try:
        # The interpreter is the user's (their .venv, their config), resolved against their repository.
        interp = resolve_python(job.repo.root, job.settings.python, job.cfg.python, job.settings.python_from)
        settings = replace(job.settings, python=interp.path, python_from=interp.source, no_commit=True)
        with _worktree_at(job.repo, commit) as wt:
            run = _run_in(job, replace(job, repo=wt, settings=settings))
        state = _land(job, run, state)
    except BenchOpError as exc:
        state = replace(state, status="blocked", reason=exc.message)
        print(f"bench-op: {exc.message}", flush=True)
    except BaseException as exc:
        state = replace(state, status="failed", reason=f"{type(exc).__name__}: {exc}")
        raise
    finally:
        write_state(job.repo, replace(state, finished=_now()))
    return 0 if state.status in ("done", "fixed-not-run", "nothing-to-do") else 1


def _run_in(user: Job, job: Job) -> object:
    """The run in the worktree, as the foreground would make it (benchmark files written there only)."""
    from benchop_hook.fixing.static import static_pass
    from benchop_hook.paths import Paths
    from benchop_hook.run.execute import execute
    from benchop_hook.run.tree_guard import tree_guard

    env = (
        ("BENCHOP_USER_ROOT", os.path.realpath(user.repo.root)),
        ("BENCHOP_WORKTREE", os.path.realpath(job.repo.root)),
    )
    job = replace(job, settings=replace(job.settings, env=env))
    static = static_pass(
        job.repo, job.cfg, job.target, job.changes, bench_from="target", only=job.settings.only
    )
    from benchop_hook.records.versus_parent import after_run, before_commit

    with tree_guard(job.repo.root, job.repo.git_dir, Paths(job.cfg).bench) as guard:
        run = before_commit(job, execute(job, static, guard, finalize=False))
        if not run.written:
            run = after_run(job, run)  # nothing to commit: the numbers measured the commit itself
        return run


def _land(user: Job, run: object, state: State) -> State:
    """The run's fix into the user's repository: the follow-up commit when HEAD is still the commit that ran,
    else a patch; the numbers recorded in git notes either way on the commit they measured."""
    from benchop_hook.followup.assemble import commit_in_place
    from benchop_hook.git.lock import repo_lock
    from benchop_hook.run.outcome import RunOutcome

    assert isinstance(run, RunOutcome)
    commit = state.commit
    with repo_lock(user.repo.git_dir, wait=3600.0):
        head = gitrepo.verify(user.repo.root, "HEAD") or ""
        if head != commit and run.written:
            patch = _save_patch(user.repo, commit, run)
            print(
                f"bench-op: HEAD moved to {head[:12]} while the benchmarks of {commit[:12]} ran: the fix is "
                f"saved as a patch; apply it with `{apply_command(patch)}`.",
                flush=True,
            )
            return replace(state, status="patch", patch=patch, reason=run.reason)
        done = commit_in_place(user, run) if head == commit else run
    return replace(state, status=done.status, reason=done.reason, follow_up=done.commit)


def _save_patch(repo: RepoPaths, commit: str, run: object) -> str:
    from benchop_hook.run.outcome import RunOutcome
    from benchop_hook.run.tree_guard import save_patch

    assert isinstance(run, RunOutcome)
    paths = []
    for path, content in sorted(run.written.items()):
        before = gitrepo.read_blob(repo.root, commit, path) or b""
        paths.append(save_patch(repo.git_dir, path, before, content))
    return "\n".join(paths)  # one a line: a path may hold spaces


def unseen_line(repo: RepoPaths) -> str | None:
    """One line about a finished background run the user has not been told of (then it is marked seen)."""
    for s in states(repo):
        if s.status == "running" or s.seen:
            continue
        write_state(repo, replace(s, seen=True))
        what = {
            "done": f"done{f', follow-up commit {s.follow_up[:12]}' if s.follow_up else ''}",
            "patch": f"HEAD had moved: apply its fix with `{apply_command(s.patch or '')}`",
        }.get(s.status, f"{s.status}: {s.reason or 'see the log'}")
        run = f"bench-op: the background run of {s.commit[:12]}"
        return f"{run} finished ({what}); `{command('status')}` has the log."
    return None


def apply_command(patch: str) -> str:
    """`git apply` of a saved fix (its patch files, one a line as a state file keeps them), run from the
    repository's top folder: the paths separated by spaces, each one word to the shell."""
    return "git apply " + " ".join(word(p) for p in patch.splitlines() if p)


def waiting_patch_line(repo: RepoPaths) -> str | None:
    """One line about the newest fix a background run saved as a patch that still applies to the working
    tree: not committed yet, and not outdated by what the user did since. (pre-commit runs the hook with
    unstaged edits stashed: there a patch applied and not committed still applies.)"""
    for s in states(repo):
        if s.status != "patch" or not s.patch:
            continue
        files = [p for p in s.patch.splitlines() if p]
        if all(os.path.isfile(p) for p in files) and gitrepo.patches_apply(repo.root, files):
            return (
                f"bench-op: the fix from the background run of {s.commit[:12]} waits in a patch: "
                f"apply it with `{apply_command(s.patch)}` and commit it."
            )
        return None  # the newest patch was applied or is outdated: older ones are older still
    return None


def mark_seen(repo: RepoPaths) -> None:
    for s in states(repo):
        if s.status != "running" and not s.seen:
            write_state(repo, replace(s, seen=True))
