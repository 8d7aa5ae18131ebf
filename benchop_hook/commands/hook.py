"""The hook stages, and the follow-up commit.

pre-commit stage: a commit can't be made inside a commit, so bench-op fixes the
benchmark files in the working tree and fails with a message (pre-commit's
`--fix` convention: the staging area is never touched; the user reviews and adds).

post-commit / post-merge: compare HEAD~1..HEAD (ORIG_HEAD..HEAD after a merge),
repair and run the benchmarks the change broke, and commit them as a follow-up
commit of their own, or say why that was blocked.
"""

from __future__ import annotations

import argparse
import os
import sys

from benchop_hook import config as config_mod
from benchop_hook import gitrepo
from benchop_hook.commands.common import op_files_touched
from benchop_hook.commands.run import RunOutcome, echo, execute, run_json, summary_line
from benchop_hook.commit import ENV_GUARD, is_follow_up
from benchop_hook.errors import EXIT_BLOCKED, EXIT_OK, BenchOpError
from benchop_hook.target import Target


def run_and_maybe_commit(args: argparse.Namespace, repo, cfg, target, changes) -> RunOutcome:  # noqa: ANN001
    """The follow-up commit whenever the range ends at HEAD, unless --no-commit; else the working tree only."""
    from benchop_hook.commands import compare  # issue 14: baseline, git notes

    if target.mode == "range" and target.to_is_head and not getattr(args, "no_commit", False):
        run = _with_commit(args, repo, cfg, target, changes)
    else:
        run = execute(args, repo, cfg, target, changes)
        compare.before_commit(args, repo, cfg, target, run)
    compare.after_run(args, repo, cfg, target, run)
    return run


def _with_commit(args, repo, cfg, target, changes) -> RunOutcome:  # noqa: ANN001
    from benchop_hook.commit import follow_up_commit, merge3, patch_applies, pre_commit_stash, touches
    from benchop_hook.files import save_patch, read_bytes
    from benchop_hook.pipeline import Paths

    root, head = repo.root, target.to_rev
    what = gitrepo.in_progress_operation(repo.git_dir, merge_done=bool(os.environ.get("PRE_COMMIT_IS_SQUASH_MERGE")) or _stage_is_merge(args))
    if what is not None or gitrepo.has_unmerged(root):
        raise BenchOpError(f"{what or 'a merge with conflicts'} is in progress: bench-op won't commit in the middle of it; "
                           "finish it, or use --no-commit to fix the working tree only.")
    stash = pre_commit_stash()
    heads: dict[str, bytes] = {}
    crlf: set[str] = set()  # checked out with CRLF line endings (core.autocrlf): written back the same way

    def prepare(fr):  # noqa: ANN001, ANN202 - the content to put on disk, or why to leave the file alone
        heads[fr.path] = fr.before or b""
        user = read_bytes(os.path.join(root, fr.path))
        entry = gitrepo.index_entry(root, fr.path)
        head_blob = gitrepo.git(root, "rev-parse", "-q", "--verify", f"{head}:{fr.path}", check=False).stdout.decode().strip()
        if entry is None or entry[1] != head_blob:
            return "it has staged changes that are not in HEAD (or is staged for removal); commit or unstage them, then run `bench-op run`"
        fixed = fr.after if fr.changed else fr.before
        if user is None or fixed is None:
            return "it is not a regular file in the working tree"
        if user == fr.before:
            return fixed
        base = fr.before or b""
        if b"\r\n" in user and b"\r\n" not in base and user.replace(b"\r\n", b"\n") == base:
            crlf.add(fr.path)
            return fixed.replace(b"\n", b"\r\n")
        merged = merge3(root, fr.before or b"", user, fixed)
        if merged is None:
            path = save_patch(repo.git_dir, fr.path, fr.before or b"", fixed)
            return f"the fix overlaps your unstaged edits; the fix is saved as {path}"
        return merged

    run = execute(args, repo, cfg, target, changes, bench_from="target", prepare=prepare, finalize=False)
    guard = getattr(run, "guard", None)
    if guard is None:
        return run  # nothing was written: nothing to commit
    paths = Paths(cfg)
    committed = False
    try:
        from benchop_hook.commands import compare  # issue 14: the comparison goes into the commit's table

        compare.before_commit(args, repo, cfg, target, run)
        commit_files: dict[str, bytes] = {}
        for comp_paths, members in getattr(run, "components", []):
            if any(o.status in ("blocked", "failed") for o in members):
                continue
            contents: dict[str, bytes] = {}
            problem = None
            for path in sorted(p for p in comp_paths if p in guard.current):
                final = guard.current[path]
                user = guard.originals[path]
                base = heads.get(path) or gitrepo.git(root, "show", f"{head}:{path}", check=False).stdout
                if path in crlf:
                    content: bytes | None = final.replace(b"\r\n", b"\n")
                else:
                    content = final if user == base else merge3(root, user, base, final)
                if content is None:
                    problem = (path, "the repair overlaps your unstaged edits", save_patch(repo.git_dir, path, user, final))
                    break
                if stash is not None and touches(stash, path) and not patch_applies(root, repo.git_dir, head, path, final, stash):
                    problem = (path, "the fix overlaps your unstaged edits (stashed by pre-commit), so it was not committed",
                               save_patch(repo.git_dir, path, base, content))
                    break
                if content != base:
                    contents[path] = content
            if problem is not None:
                path, why, patch = problem
                for o in members:
                    o.status, o.late, o.patch = "blocked", True, patch
                    o.reason = why if o.path == path else f"{path}, which it shares, was left alone: {why}"
                for p in comp_paths:
                    guard.restore(p)
                continue
            commit_files.update(contents)
        if commit_files and not getattr(args, "no_commit", False):
            message = commit_message(run, commit_files)
            res = follow_up_commit(root, repo.git_dir, head, commit_files, message, paths.bench)
            committed = True
            run.commit = res.sha  # type: ignore[attr-defined]
            echo(f"bench-op: committed {res.sha[:12]} {message.splitlines()[0]}")
            for w in res.warnings:
                echo(f"bench-op: {w}")
        for path in list(guard.originals):
            guard.keep(path)
    except BaseException:
        if not committed:  # once the commit exists, the working tree matches it: nothing to undo
            guard.restore_all()
        raise
    for o in run.outcomes:
        if o.status == "blocked" and getattr(o, "late", False):
            echo(f"bench-op: {o.path}: blocked: {o.reason}" + (f"; the fix is saved as {o.patch}" if o.patch else ""))
    bad = [o for o in run.outcomes if o.status in ("blocked", "failed")]
    if bad and run.status != "blocked":
        run.status, run.exit_code = "blocked", EXIT_BLOCKED
        run.reason = "; ".join(f"{o.path}: {o.reason}" for o in bad)
    if getattr(run, "excluded", None):
        run.status, run.exit_code = "blocked", EXIT_BLOCKED
        run.reason = "; ".join(f"{fr.path}: {why}" for fr, why in run.excluded)  # type: ignore[attr-defined]
    return run


def _stage_is_merge(args: argparse.Namespace) -> bool:
    return getattr(args, "stage", None) == "post-merge" or getattr(args, "detected_stage", None) == "post-merge"


def commit_message(run: RunOutcome, files: dict[str, bytes]) -> str:
    from benchop_hook.numbers import table
    from benchop_hook.report import _grouped

    result = run.result
    names = [os.path.basename(p) for p in sorted(files)]
    subject_files = ", ".join(names) if len(names) <= 2 else f"{len(names)} benchmark files"
    groups = _grouped(result)  # type: ignore[arg-type]
    ops = []
    for c, kids in groups:
        ops.append(c.name)
    subject_ops = ", ".join(ops[:2]) + (f" and {len(ops) - 2} more" if len(ops) > 2 else "")
    lines = [f"bench-op: align {subject_files} with the new {subject_ops} interface{'s' if len(ops) > 1 else ''}", ""]
    for c, kids in groups:
        lines.append(c.headline())
        if kids:
            lines.append("  inherited by " + ", ".join(k.name for k in kids))
    lines.append("")
    lines.append("Rewrites:")
    for o in run.outcomes:
        if o.path in files:
            lines.extend(f"- {fx}" for fx in o.fixes)
    numbered = [o for o in run.outcomes if o.path in files and o.numbers]
    if numbered:
        lines.append("")
        for o in numbered:
            lines.append(f"Numbers for {o.path}" + (f" on {o.device}" if o.device else "") + ":")
            rows = table(o.numbers)
            if run.comparison is not None:  # issue 14
                from benchop_hook.baseline import vs_parent_column

                cases = list(dict.fromkeys(n.case for n in o.numbers))
                rows = vs_parent_column(rows, cases, o.path, run.comparison)  # type: ignore[arg-type]
            lines.extend("  " + r for r in rows[:12])
            if len(rows) > 12:
                lines.append(f"  ... {len(rows) - 12} more cases")
    not_run = [o for o in run.outcomes if o.path in files and o.status == "skipped"]
    for o in not_run:
        lines.append(f"{o.path}: not run ({o.reason})")
    lines += ["", "Bench-Op: follow-up", ""]
    return "\n".join(lines)


# -- the hook entry points


def _detect_stage(git_dir: str) -> str:
    if "PRE_COMMIT_IS_SQUASH_MERGE" in os.environ:
        return "post-merge"
    try:
        with open(os.path.join(git_dir, "logs", "HEAD"), "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 4096))
            last = f.read().splitlines()[-1].decode("utf-8", "replace")
        msg = last.split("\t", 1)[1] if "\t" in last else ""
        if msg.startswith(("merge ", "pull")) or msg.startswith("merge:"):
            return "post-merge"
    except (OSError, IndexError):
        pass
    return "post-commit"


def _pre_commit(args: argparse.Namespace, repo, cfg) -> int:  # noqa: ANN001
    if not gitrepo.has_commits(repo.root):
        return EXIT_OK  # the first commit: nothing to compare it with
    changes = gitrepo.staged_changes(repo.root)
    staged = {p for c in changes for p in (c.old_path, c.new_path) if p}
    explicit = [f for f in args.files if f not in staged]
    if op_files_touched(cfg, changes):
        target = Target("staged")
    elif explicit:
        # `pre-commit run bench-op --all-files` (or --files): check those benchmarks as they are now.
        from benchop_hook.globs import matches

        benches = [f for f in explicit if matches(f, cfg.benchmark_paths)]
        if not benches:
            return EXIT_OK
        target = Target("all")
        args.only = set(benches)
    else:
        return EXIT_OK
    from benchop_hook.lock import repo_lock

    args.no_commit = True
    args.files = []  # what pre-commit passed chose the mode; it is no shard
    with repo_lock(repo.git_dir):
        run = execute(args, repo, cfg, target, changes)
    echo(summary_line(run))
    if run.written:
        n = len(run.written)
        print(f"bench-op: rewrote {n} benchmark file{'s' if n != 1 else ''} for the new Op interface "
              f"({', '.join(sorted(run.written))}): review them (git diff), git add them, and commit again.")
        return EXIT_BLOCKED
    return run.exit_code


def _follow_up(args: argparse.Namespace, repo, cfg, stage: str) -> int:  # noqa: ANN001
    root = repo.root
    if stage == "follow-up":
        stage = _detect_stage(repo.git_dir)
    args.detected_stage = stage
    if os.environ.get("PRE_COMMIT_IS_SQUASH_MERGE") == "1":
        return EXIT_OK  # a squash merge commits nothing: the commit that follows gets the hook
    if stage == "post-merge":
        frm = gitrepo.git(root, "rev-parse", "-q", "--verify", "ORIG_HEAD^{commit}", check=False).stdout.decode().strip()
    else:
        frm = gitrepo.git(root, "rev-parse", "-q", "--verify", "HEAD^1", check=False).stdout.decode().strip()
    if not frm:
        return EXIT_OK  # the first commit, or no ORIG_HEAD: nothing to compare with
    changes = gitrepo.range_changes(root, frm, "HEAD")
    if not op_files_touched(cfg, changes):
        return EXIT_OK
    if is_follow_up(gitrepo.commit_message(root)):
        return EXIT_OK
    hint = f"bench-op run --from-ref {frm[:12]} --to-ref HEAD"
    what = gitrepo.in_progress_operation(repo.git_dir, merge_done=(stage == "post-merge"))
    if what is not None or gitrepo.has_unmerged(root):
        print(f"bench-op: {what or 'a merge with conflicts'} is in progress: skipped; run `{hint}` once it is done.")
        return EXIT_OK
    head = gitrepo.git(root, "rev-parse", "HEAD").stdout.decode().strip()
    target = Target("range", frm[:12], "HEAD", frm, head, to_is_head=True)
    args.from_ref, args.to_ref, args.all_files = target.from_ref, "HEAD", False
    from benchop_hook.lock import repo_lock

    with repo_lock(repo.git_dir):
        run = run_and_maybe_commit(args, repo, cfg, target, changes)
    echo(summary_line(run))
    if run.status == "blocked":
        print(f"bench-op: no follow-up commit for the blocked files; your commit stays as it is. "
              f"Fix the reason above, then run `{hint}`.")
    if getattr(args, "json", None):
        from benchop_hook.report import write_json

        write_json(args.json, run_json(run, target))
    return run.exit_code


def main(args: argparse.Namespace) -> int:
    if os.environ.get(ENV_GUARD):
        return EXIT_OK  # bench-op's own follow-up commit
    repo = gitrepo.find_repo(getattr(args, "directory", None))
    cfg = config_mod.load(repo.root)
    for w in cfg.warnings:
        print(w, file=sys.stderr)
    args.all_files = False
    args.quiet = True
    if not hasattr(args, "only"):
        args.only = None
    if args.stage == "pre-commit":
        return _pre_commit(args, repo, cfg)
    return _follow_up(args, repo, cfg, args.stage)
