"""flows.decide: which range a hook call handles for a rebase, a cherry-pick or revert sequence, an amend.

The git states are the ones git 2.39 was seen to leave at each hook (tests/e2e/test_hook.py drives the real
thing).
"""

from __future__ import annotations

from dataclasses import replace

from benchop_hook.git.flows import Decision, GitState, Sequence, decide

A, B, C, D = "a" * 40, "b" * 40, "c" * 40, "d" * 40


PLAIN = GitState(
    stage="post-commit",
    rewrite_command=None,
    rebase_dir=None,
    rebase_orig_head=None,
    cherry_pick_head=False,
    todo=None,
    sequence_start=None,
    recorded=None,
    head=None,
    parent=None,
)


def test_an_ordinary_commit_or_merge_is_left_to_the_default() -> None:
    assert decide(PLAIN) == Decision("default")
    assert decide(replace(PLAIN, stage="post-merge")) == Decision("default")


def test_post_rewrite_after_a_rebase_compares_the_pre_rebase_tip_with_head() -> None:
    d = decide(
        replace(
            PLAIN,
            stage="post-rewrite",
            rewrite_command="rebase",
            rebase_dir="rebase-merge",
            rebase_orig_head=A,
        )
    )
    assert d.action == "range" and d.from_rev == A
    assert {"rebase-merge", "rebase-apply"} <= d.done  # git removes them only after the hook


def test_post_rewrite_after_an_amend_does_nothing() -> None:
    assert (
        decide(replace(PLAIN, stage="post-rewrite", rewrite_command="amend", rebase_orig_head=A)).action
        == "quiet"
    )
    # an amend while a rebase is stopped: the rebase's own post-rewrite covers it
    s = replace(
        PLAIN, stage="post-rewrite", rewrite_command="amend", rebase_dir="rebase-merge", rebase_orig_head=A
    )
    assert decide(s).action == "quiet"


def test_post_rewrite_without_a_tip_to_compare_with_does_nothing() -> None:
    assert decide(replace(PLAIN, stage="post-rewrite", rewrite_command="rebase")).action == "quiet"


def test_commits_replayed_by_a_rebase_are_quiet() -> None:
    for stage in (
        "post-commit",
        "post-merge",
    ):  # pre-commit's reflog guess reads "pull --rebase (pick)" as a merge
        s = replace(PLAIN, stage=stage, rebase_dir="rebase-merge", cherry_pick_head=True)
        assert decide(s).action == "quiet"


def test_a_single_cherry_pick_is_an_ordinary_commit() -> None:
    d = decide(replace(PLAIN, cherry_pick_head=True))
    assert d.action == "default" and "CHERRY_PICK_HEAD" in d.done


def test_a_sequence_defers_until_its_last_commit_then_covers_everything() -> None:
    first = replace(
        PLAIN,
        cherry_pick_head=True,
        todo=("pick 1 x", "pick 2 y", "pick 3 z"),
        sequence_start=A,
        head=B,
        parent=A,
    )
    d = decide(first)
    assert d.action == "defer" and d.record == Sequence(A, B)
    last = replace(first, todo=("pick 3 z",), recorded=Sequence(A, C), head=D, parent=C)
    d = decide(last)
    assert d.action == "range" and d.from_rev == A and d.record is None and "CHERRY_PICK_HEAD" in d.done


def test_a_sequence_whose_last_pick_conflicted_ends_at_the_commit_after_the_recorded_head() -> None:
    s = replace(PLAIN, recorded=Sequence(A, B), head=C, parent=B)  # `git commit` removed the sequencer state
    d = decide(s)
    assert d.action == "range" and d.from_rev == A and d.record is None
    # ... but when `--continue` made that commit, it checks HEAD afterwards: say so, and wait for the next
    # commit
    d = decide(replace(s, continuing=True))
    assert (
        d.action == "defer" and d.record == Sequence(A, C) and "bench-op run --from-ref aaaaaaaaaaaa" in d.say
    )


def test_a_stale_record_is_dropped() -> None:
    d = decide(replace(PLAIN, recorded=Sequence(A, B), head=D, parent=C))  # aborted: HEAD went elsewhere
    assert d.action == "default" and d.record is None


def test_a_replay_keeps_the_record_of_a_sequence() -> None:
    s = replace(PLAIN, rebase_dir="rebase-merge", recorded=Sequence(A, B))
    assert decide(s).record == Sequence(A, B)
