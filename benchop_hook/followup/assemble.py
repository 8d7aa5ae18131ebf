"""The follow-up commit, assembled: run at HEAD, keep the user's unstaged edits, commit what passed.

A fix is made on the committed content and the user's unstaged edits are put back on top (a three-way
merge); where they overlap, or where pre-commit's stash of them would no longer apply, the file is left
alone and the fix saved as a patch. The commit itself is `commit.py`'s; its message is `report.py`'s.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from benchop_hook.agent.step import hand_over
from benchop_hook.errors import EXIT_BLOCKED, BenchOpError
from benchop_hook.fixing.results import FileResult
from benchop_hook.git import objects as gitobjects
from benchop_hook.git import repo as gitrepo
from benchop_hook.git.commit import follow_up_commit, merge3, patch_applies, pre_commit_stash, touches
from benchop_hook.git.repo import RepoPaths
from benchop_hook.git.target import Target
from benchop_hook.paths import Paths
from benchop_hook.program import command
from benchop_hook.records.versus_parent import after_run, before_commit
from benchop_hook.report.as_json import run_json
from benchop_hook.report.message import commit_message
from benchop_hook.report.out import write_json
from benchop_hook.run.execute import LeftAlone, Static, echo, execute
from benchop_hook.run.job import Job
from benchop_hook.run.outcome import Component, FileOutcome, RunOutcome, components
from benchop_hook.run.runner import Warm
from benchop_hook.run.tree_guard import TreeGuard, read_bytes, save_patch, tree_guard


def run_and_maybe_commit(
    job: Job, *, merge_done: bool = False, flow_done: frozenset[str] = frozenset(), warm: Warm | None = None
) -> RunOutcome:
    """The follow-up commit whenever the range ends at HEAD, unless --no-commit; else the working tree only.

    `merge_done`: called after a merge (post-merge), when git has not removed MERGE_HEAD yet.
    `flow_done`: git state files of a rebase or cherry-pick that has finished although they are still there.
    Either way the numbers are compared with the parent's (--baseline) inside the tree guard, and
    recorded in git notes on the commit they measured. `warm`: the benchmark interpreter, started early.
    """
    if job.target.mode == "range" and job.target.to_is_head and not job.settings.no_commit:
        run = _with_commit(job, merge_done=merge_done, flow_done=flow_done, warm=warm)
    else:
        with tree_guard(job.repo.root, job.repo.git_dir, Paths(job.cfg).bench) as guard:
            static = _static(job, "worktree")
            run = execute(job, static, guard, warm=warm)
            run = hand_over(job, static, run, guard, prepare=None, finalize=True)
            run = before_commit(job, run)
    return after_run(job, run)


def _static(job: Job, bench_from: str) -> Static:
    from benchop_hook.fixing.static import static_pass

    return static_pass(
        job.repo,
        job.cfg,
        job.target,
        job.changes,
        bench_from=bench_from,
        only=job.settings.only,
        op=job.settings.op,
    )


def _with_commit(job: Job, *, merge_done: bool, flow_done: frozenset[str], warm: Warm | None) -> RunOutcome:
    repo, target = job.repo, job.target
    root = repo.root
    assert target.to_rev is not None
    merge_done = merge_done or bool(os.environ.get("PRE_COMMIT_IS_SQUASH_MERGE"))
    what = gitrepo.in_progress_operation(repo.git_dir, merge_done=merge_done, done=flow_done)
    if what is not None or gitrepo.has_unmerged(root):
        raise BenchOpError(
            f"{what or 'a merge with conflicts'} is in progress: bench-op won't commit in the "
            "middle of it; finish it, or use --no-commit to fix the working tree only."
        )
    stash = pre_commit_stash()
    user = UserEdits(root, repo.git_dir, target.to_rev)
    is_bench = Paths(job.cfg).bench
    with tree_guard(root, repo.git_dir, is_bench) as guard:
        static = _static(job, "target")
        run = execute(job, static, guard, prepare=user.prepare, finalize=False, warm=warm)
        run = hand_over(job, static, run, guard, prepare=user.prepare, finalize=False)
        if not run.components and not run.excluded:
            return run  # nothing was written: nothing to commit
        run = before_commit(job, run)  # the commit's table gains "vs parent"
        run, files = assemble(run, guard, user, stash)
        if files:
            report = _report_path(repo, target)
            message = commit_message(run, files, full_report=os.path.relpath(report, root))
            try:
                res = follow_up_commit(root, repo.git_dir, target.to_rev, files, message, is_bench)
            except BenchOpError:
                write_json(report, run_json(run, target))
                raise
            guard.keep_all()  # the working tree matches the commit now: nothing to undo
            run = replace(run, commit=res.sha)
            write_json(report, run_json(run, target))  # with the commit it made
            echo(f"bench-op: committed {res.sha[:12]} {message.splitlines()[0]}")
            for w in res.warnings:
                echo(f"bench-op: {w}")
    return _blocked_late(run)


def _report_path(repo: RepoPaths, target: Target) -> str:
    """Where the whole report goes, for a commit message cut short: .git/bench-op/reports/<commit>.json."""
    name = f"{(target.to_rev or 'HEAD')[:12]}.json"
    return os.path.join(repo.git_dir, "bench-op", "reports", name)


@dataclass
class UserEdits:
    """The user's copy of each benchmark file, against the commit the fix is made on."""

    root: str
    git_dir: str
    head: str
    heads: dict[str, bytes] = field(default_factory=dict)  # path -> content at `head`
    crlf: set[str] = field(default_factory=set)  # checked out with CRLF (core.autocrlf): written back so

    def prepare(self, fr: FileResult) -> bytes | LeftAlone:
        """What goes on disk for a fixed file: the fix with the user's unstaged edits on top."""
        self.heads[fr.path] = fr.before or b""
        user = read_bytes(os.path.join(self.root, fr.path))
        entry = gitobjects.index_entries(self.root, staged=False).get(fr.path)
        head_blob = gitrepo.verify(self.root, f"{self.head}:{fr.path}") or ""
        if entry is None or entry[1] != head_blob:
            saved = ""
            if fr.changed:  # the fix is not dropped: it waits in a patch
                patch = save_patch(self.git_dir, fr.path, fr.before or b"", fr.after or b"")
                saved = f"; the fix is saved as {patch}"
            return LeftAlone(
                "it has staged changes that are not in HEAD (or is staged for removal); "
                f"commit or unstage them, then run `{command('run')}`{saved}"
            )
        fixed = fr.after if fr.changed else fr.before
        if user is None or fixed is None:
            return LeftAlone("it is not a regular file in the working tree")
        if user == fr.before:
            return fixed
        base = fr.before or b""
        if b"\r\n" in user and b"\r\n" not in base and user.replace(b"\r\n", b"\n") == base:
            self.crlf.add(fr.path)
            return fixed.replace(b"\n", b"\r\n")
        merged = merge3(self.root, fr.before or b"", user, fixed)
        if merged is None:
            path = save_patch(self.git_dir, fr.path, fr.before or b"", fixed)
            return LeftAlone(f"the fix overlaps your unstaged edits; the fix is saved as {path}")
        return merged

    def base(self, path: str) -> bytes:
        return self.heads.get(path) or gitrepo.read_blob(self.root, self.head, path) or b""


def assemble(
    run: RunOutcome, guard: TreeGuard, user: UserEdits, stash: bytes | None
) -> tuple[RunOutcome, dict[str, bytes]]:
    """What the follow-up commit holds: the files of every component that passed, as committed content
    (the user's edits taken back out). A component whose files can't be separated from the user's edits is
    blocked late and put back: the run comes back with those outcomes blocked."""
    files: dict[str, bytes] = {}
    late: dict[int, FileOutcome] = {}
    for comp in run.components:
        if comp.bad:
            continue
        contents = _committed_contents(comp, guard, user, stash)
        if isinstance(contents, _Overlap):
            for o in comp.members:
                why = (
                    contents.why
                    if o.path == contents.path
                    else f"{contents.path}, which it shares, was left alone: {contents.why}"
                )
                late[id(o)] = replace(o, status="blocked", late=True, patch=contents.patch, reason=why)
            for p in comp.paths:
                guard.restore(p)
            continue
        files.update(contents)
    if not late:
        return run, files
    outcomes = tuple(late.get(id(o), o) for o in run.outcomes)
    return replace(run, outcomes=outcomes, components=components(list(outcomes))), files


@dataclass(frozen=True)
class _Overlap:
    path: str
    why: str
    patch: str


def _committed_contents(
    comp: Component, guard: TreeGuard, user: UserEdits, stash: bytes | None
) -> dict[str, bytes] | _Overlap:
    contents: dict[str, bytes] = {}
    for path in sorted(p for p in comp.paths if p in guard.current):
        final, mine = guard.current[path], guard.originals[path]
        base = user.base(path)
        if path in user.crlf:
            content: bytes | None = final.replace(b"\r\n", b"\n")
        else:
            content = final if mine == base else merge3(user.root, mine, base, final)
        if content is None:
            return _Overlap(
                path, "the repair overlaps your unstaged edits", save_patch(user.git_dir, path, mine, final)
            )
        stash_breaks = (
            stash is not None
            and touches(stash, path)
            and not patch_applies(user.root, user.git_dir, user.head, path, final, stash)
        )
        if stash_breaks:
            return _Overlap(
                path,
                "the fix overlaps your unstaged edits (stashed by pre-commit), so it was not committed",
                save_patch(user.git_dir, path, base, content),
            )
        if content != base:
            contents[path] = content
    return contents


def _blocked_late(run: RunOutcome) -> RunOutcome:
    """Files blocked while the commit was assembled, and files left alone, make the run blocked."""
    for o in run.outcomes:
        if o.status == "blocked" and o.late:
            saved = f"; the fix is saved as {o.patch}" if o.patch else ""
            echo(f"bench-op: {o.path}: blocked: {o.reason}{saved}")
    bad = [o for o in run.outcomes if o.bad]
    if bad and run.status != "blocked":
        run = replace(
            run,
            status="blocked",
            exit_code=EXIT_BLOCKED,
            reason="; ".join(f"{o.path}: {o.reason}" for o in bad),
        )
    if run.excluded:
        run = replace(
            run,
            status="blocked",
            exit_code=EXIT_BLOCKED,
            reason="; ".join(f"{fr.path}: {why}" for fr, why in run.excluded),
        )
    return run


def commit_in_place(job: Job, run: RunOutcome) -> RunOutcome:
    """A run made elsewhere (a worktree at `job.target.to_rev`) landed in the user's repository: its files
    written into the working tree with the user's unstaged edits kept (or left alone, with a patch, where
    they overlap), and committed as the follow-up commit on HEAD, which must still be that commit."""
    repo, target = job.repo, job.target
    assert target.to_rev is not None
    user = UserEdits(repo.root, repo.git_dir, target.to_rev)
    is_bench = Paths(job.cfg).bench
    files: dict[str, bytes] = {}
    left: list[tuple[FileResult, str]] = []
    with tree_guard(repo.root, repo.git_dir, is_bench) as guard:
        for path, fixed in sorted(run.written.items()):
            before = gitrepo.read_blob(repo.root, target.to_rev, path) or b""
            fr = FileResult(path, before=before, after=fixed)
            prepared = user.prepare(fr)
            if isinstance(prepared, LeftAlone):
                left.append((fr, prepared.reason))
                echo(f"bench-op: {path}: left alone: {prepared.reason}")
                continue
            guard.write(path, prepared)
            files[path] = fixed
        if files:
            report = _report_path(repo, target)
            message = commit_message(run, files, full_report=os.path.relpath(report, repo.root))
            res = follow_up_commit(repo.root, repo.git_dir, target.to_rev, files, message, is_bench)
            guard.keep_all()
            run = replace(run, commit=res.sha)
            write_json(report, run_json(run, target))
            echo(f"bench-op: committed {res.sha[:12]} {message.splitlines()[0]}")
    if left:
        run = replace(run, excluded=run.excluded + tuple(left))
    return _blocked_late(after_run(job, run))
