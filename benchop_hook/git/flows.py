"""Which git operation fired the follow-up hook, and what range bench-op should handle for it.

A rebase, a pull --rebase and a multi-commit cherry-pick or revert make several commits, and git
fires post-commit for each of them. bench-op handles such an operation once, at its end, over
everything it brought in:

- rebase: every replayed commit's post-commit stays quiet; post-rewrite ("rebase") fires once at the
  end (also after a rebase that stopped on a conflict and was continued) and compares the trees of
  the pre-rebase tip and HEAD. post-rewrite "amend" does nothing: post-commit already handled it.
- multi-commit cherry-pick / revert (git's sequencer, .git/sequencer/): each commit but the last is
  deferred; the last one handles sequencer/head..HEAD. sequencer/todo still lists the command being
  committed, so one line left means this is the last. When the last pick stopped on a conflict, the
  `git commit` that `--continue` runs removes the sequencer state before post-commit fires, so the
  start point is remembered in .git/bench-op/sequence at each deferral, with the HEAD it was made
  at: the commit whose parent is that HEAD ends the sequence.
- a single cherry-pick: an ordinary commit. git fires post-commit while CHERRY_PICK_HEAD still
  exists; it only means "in progress" when a commit is still to come, which it is not then.

`decide` is pure; `read_state` and `remember` are the I/O around it.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

from benchop_hook.git import repo as gitrepo
from benchop_hook.program import command

REBASE_DIRS = ("rebase-merge", "rebase-apply")
RECORD = os.path.join("bench-op", "sequence")


@dataclass(frozen=True)
class Sequence:
    """bench-op's note of a multi-commit cherry-pick or revert it deferred."""

    start: str  # HEAD before the sequence's first commit
    head: str  # HEAD after the last commit bench-op deferred


@dataclass(frozen=True)
class GitState:
    stage: str  # post-commit, post-merge or post-rewrite
    rewrite_command: str | None  # post-rewrite's argument: "rebase" or "amend"
    rebase_dir: str | None  # rebase-merge or rebase-apply, when present
    rebase_orig_head: str | None  # the tip before the rebase (the rebase dir's orig-head, else ORIG_HEAD)
    cherry_pick_head: bool
    todo: tuple[str, ...] | None  # the command lines of .git/sequencer/todo; None: no sequence
    sequence_start: str | None  # .git/sequencer/head
    recorded: Sequence | None
    head: str | None  # only read when a sequence or a record is there
    parent: str | None
    continuing: bool = False  # this commit is the one `git cherry-pick/revert --continue` makes


@dataclass(frozen=True)
class Decision:
    action: str  # "default": as for any commit; "quiet"/"defer": nothing now; "range": handle from_rev..HEAD
    from_rev: str | None = None
    done: frozenset[str] = frozenset()  # git state files that no longer mean "in progress"
    record: Sequence | None = None  # what .git/bench-op/sequence holds afterwards
    why: str = ""
    say: str = ""  # a line for the user, when there is something they should do


def decide(s: GitState) -> Decision:
    if s.stage == "post-rewrite":
        if s.rewrite_command != "rebase":
            return Decision("quiet", record=s.recorded, why="an amend: post-commit handled it")
        if not s.rebase_orig_head:
            return Decision("quiet", record=s.recorded, why="no pre-rebase tip to compare with")
        # The range is the pre-rebase tip's tree vs HEAD's tree. The user's own commits are on both
        # sides, so only what arrived underneath them (upstream's change, plus conflict resolutions)
        # is compared, and nothing of theirs is counted twice (their follow-ups were made when they
        # committed and were replayed with them). The old signatures come from the tip, which is what
        # the benchmarks there were written against: comparing old-base..new-base instead would take
        # them from the old base and be wrong wherever the user's own commits changed the same Op.
        # git runs post-rewrite before it removes the rebase's state: the rebase is done by then.
        return Decision(
            "range", s.rebase_orig_head, frozenset(REBASE_DIRS), s.recorded, "the rebase finished"
        )
    if s.rebase_dir is not None:
        return Decision(
            "quiet", record=s.recorded, why="a rebase replays commits; post-rewrite handles it at its end"
        )
    if s.todo is not None and s.sequence_start:
        if len(s.todo) > 1:
            return Decision(
                "defer",
                record=Sequence(s.sequence_start, s.head or ""),
                why="a cherry-pick or revert sequence: handled after its last commit",
            )
        return Decision(
            "range", s.sequence_start, frozenset({"CHERRY_PICK_HEAD"}), None, "the sequence's last commit"
        )
    if s.recorded is not None:
        if s.parent and s.parent == s.recorded.head:
            if s.continuing and s.head:
                # `--continue` reads the index before its `git commit` (this hook) and then checks that it
                # still matches HEAD: a follow-up commit now would make the finished pick fail.
                return Decision(
                    "defer",
                    record=Sequence(s.recorded.start, s.head),
                    why="--continue checks HEAD after this",
                    say="bench-op: the cherry-pick is done, but git checks HEAD right after its last commit, "
                    "so bench-op cannot commit now: run "
                    f"`{command(f'run --from-ref {s.recorded.start[:12]} --to-ref HEAD')}` "
                    "(or it runs with your next commit).",
                )
            # The sequence's last commit, committed after a conflict (`--continue`), or the first commit
            # after a sequence that ended without one (--skip, --quit): what it applied is still unhandled.
            return Decision(
                "range", s.recorded.start, frozenset({"CHERRY_PICK_HEAD"}), None, "the sequence ended"
            )
        return Decision("default", done=frozenset({"CHERRY_PICK_HEAD"}), record=None, why="a stale record")
    if s.cherry_pick_head:
        return Decision(
            "default", done=frozenset({"CHERRY_PICK_HEAD"}), why="a single cherry-pick that completed"
        )
    return Decision("default")


# -- I/O around it


def detect_stage(git_dir: str) -> str:
    """Which hook a `follow-up` call stands for: pre-commit says so for post-rewrite and a squash merge;
    otherwise HEAD's last move in the reflog tells a merge or a pull from a commit."""
    if "PRE_COMMIT_REWRITE_COMMAND" in os.environ:
        return "post-rewrite"
    if "PRE_COMMIT_IS_SQUASH_MERGE" in os.environ:
        return "post-merge"
    if gitrepo.last_head_move(git_dir).startswith(("merge ", "merge:", "pull")):
        return "post-merge"
    return "post-commit"


def _read_line(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.readline().strip() or None
    except OSError:
        return None


def _todo(git_dir: str) -> tuple[str, ...] | None:
    try:
        with open(os.path.join(git_dir, "sequencer", "todo"), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    return tuple(ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#"))


def _recorded(git_dir: str) -> Sequence | None:
    line = _read_line(os.path.join(git_dir, RECORD))
    parts = (line or "").split()
    return Sequence(parts[0], parts[1]) if len(parts) == 2 else None


def read_state(root: str, git_dir: str, stage: str, rewrite_command: str | None) -> GitState:
    """The little of the repository's state `decide` needs: file reads, and git only where a sequence is."""
    rebase_dir = next((d for d in REBASE_DIRS if os.path.isdir(os.path.join(git_dir, d))), None)
    orig = None
    if stage == "post-rewrite":
        orig = _read_line(os.path.join(git_dir, rebase_dir, "orig-head")) if rebase_dir else None
        if not orig:
            orig = gitrepo.verify(root, "ORIG_HEAD^{commit}")
    todo = _todo(git_dir)
    recorded = _recorded(git_dir)
    head = parent = None
    if todo is not None or recorded is not None:
        head = gitrepo.verify(root, "HEAD")
        parent = gitrepo.verify(root, "HEAD^1")
    continuing = stage == "post-commit" and todo is None and recorded is not None and _under_continue()
    return GitState(
        stage=stage,
        rewrite_command=rewrite_command,
        rebase_dir=rebase_dir,
        rebase_orig_head=orig or None,
        cherry_pick_head=os.path.exists(os.path.join(git_dir, "CHERRY_PICK_HEAD")),
        todo=todo,
        sequence_start=_read_line(os.path.join(git_dir, "sequencer", "head")) if todo is not None else None,
        recorded=recorded,
        head=head,
        parent=parent,
        continuing=continuing,
    )


def _under_continue(pid: int | None = None, depth: int = 8) -> bool:
    """Whether an ancestor process is `git cherry-pick --continue` or `git revert --continue` (Linux /proc;
    elsewhere False, and git then reports the moved HEAD after a follow-up it could not foresee)."""
    pid = os.getppid() if pid is None else pid
    for _ in range(depth):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            return False
        if b"--continue" in argv and (b"cherry-pick" in argv or b"revert" in argv):
            return True
        fields = stat[stat.rfind(b")") + 2 :].split()
        pid = int(fields[1]) if len(fields) > 1 else 0
        if pid <= 1:
            return False
    return False


def remember(git_dir: str, before: Sequence | None, decision: Decision) -> None:
    """Write or remove .git/bench-op/sequence as the decision says (never touching git's own state)."""
    if decision.record == before:
        return
    path = os.path.join(git_dir, RECORD)
    if decision.record is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"{decision.record.start} {decision.record.head}\n")
    os.replace(tmp, path)


def decide_here(root: str, git_dir: str, stage: str, rewrite_command: str | None) -> Decision:
    """read_state -> decide -> remember: the one call the hook makes."""
    state = read_state(root, git_dir, stage, rewrite_command)
    decision = decide(state)
    remember(git_dir, state.recorded, decision)
    return decision
