"""An Op change's edits in words: one phrase per kind of edit, not one per parameter."""

from __future__ import annotations

import ast

from benchop_hook.analysis.edits import diff
from benchop_hook.analysis.signatures import Signature, from_function
from benchop_hook.report.phrases import edit_phrases, edits_text
from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo


def _sig(params: str) -> Signature:
    fn = ast.parse(f"def f(self, {params}): pass").body[0]
    assert isinstance(fn, ast.FunctionDef)
    return from_function(fn)


def _said(old: str, new: str) -> str:
    return edits_text(e.as_json() for e in diff(_sig(old), _sig(new)))


def test_parameters_made_keyword_only_are_one_phrase() -> None:
    said = _said("M, N, dtype, tune=False", "*, M, N, dtype, tune=False")
    assert said == "'M', 'N', 'dtype' and 'tune' are now keyword-only (were positional-or-keyword)"


def test_one_parameter_keeps_its_own_phrase() -> None:
    said = _said("M, N, tune=False", "N, *, tune=False")
    assert said == "'M' removed; 'tune' is now keyword-only (was positional-or-keyword)"


def test_removed_parameters_are_one_phrase_and_other_edits_keep_their_place() -> None:
    said = _said("M, K, N, dtype", "N, dtype, dim=-1")
    assert said == "'M' and 'K' removed; 'dim' added (default -1)"


def test_kinds_changed_in_different_ways_are_not_joined() -> None:
    def kind(name: str, new: str) -> dict[str, object]:
        was = "positional-or-keyword"
        return {
            "kind": "kind_changed",
            "name": name,
            "old_kind": was,
            "new_kind": new,
            "text": f"'{name}' is now {new} (was {was})",
        }

    edits = [kind("a", "keyword-only"), kind("b", "positional-only"), kind("c", "keyword-only")]
    assert edit_phrases(edits) == [
        "'a' and 'c' are now keyword-only (were positional-or-keyword)",
        "'b' is now positional-only (was positional-or-keyword)",
    ]


def test_check_says_each_op_change_on_one_line(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/gemm.py",
        "def __init__(self, M, N, K, dtype, trans_b=False):",
        "def __init__(self, M, *, N, K, dtype, trans_b=False):",
    )
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.count("keyword-only") == 2, r.stdout
    assert "'N', 'K', 'dtype' and 'trans_b' are now keyword-only (were positional-or-keyword)" in r.stdout


def test_values_added_for_one_reason_say_it_once() -> None:
    from benchop_hook.report.text import one_reason_each

    notes = (
        "dropped n (x)",
        "a=(n,) added: as T changed it",
        "b=(n,) added: as T changed it",
        "c=1 added: d",
    )
    assert one_reason_each(notes) == [
        "dropped n (x)",
        "a=(n,), b=(n,) added: as T changed it",
        "c=1 added: d",
    ]
