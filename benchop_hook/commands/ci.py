"""What every command does for CI: the Markdown summary to a path or to the step's summary, and the
annotations of `--format github`. Light at import: the no-op path imports this module."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from benchop_hook.commands.options import Options

if TYPE_CHECKING:
    from benchop_hook.fixing.results import StaticResult
    from benchop_hook.git.target import Target
    from benchop_hook.report.reports import Kind
    from benchop_hook.run.outcome import RunOutcome


def warn_if_shallow(root: str) -> None:
    """`--all-files` reads each benchmark's last commit: in a shallow clone that is the boundary, and an
    older Op change that broke it is found only where the call no longer binds (and is not fixed)."""
    from benchop_hook.git.shallow import is_shallow

    if is_shallow(root):
        print(
            "bench-op: this clone is shallow, so each benchmark's history stops at its boundary: calls an "
            "older Op change broke are found only where they no longer bind, and are not fixed; fetch the "
            "history (`fetch-depth: 0`, or `git fetch --unshallow`) for the full check.",
            file=sys.stderr,
        )


def summary_target(opts: Options) -> tuple[str, bool] | None:
    """Where the summary goes, and whether it is appended: `--summary PATH` is written (`-`: standard
    output); GitHub's step summary, with `--format github`, is appended to (other steps write there too)."""
    if opts.summary:
        return opts.summary, False
    step = os.environ.get("GITHUB_STEP_SUMMARY")
    if opts.format == "github" and step:
        return step, True
    return None


def summarize(
    opts: Options,
    kind: Kind,
    data: Mapping[str, Any],
    *,
    label: str | None = None,
    diffs: Mapping[str, str] | None = None,
) -> None:
    """The Markdown summary of a report, where `--summary` or the step summary asks for it."""
    where = summary_target(opts)
    if where is None:
        return
    from benchop_hook.report.markdown import render_markdown
    from benchop_hook.report.reports import read_report

    write_text(
        where[0], render_markdown(read_report(data, kind=kind, label=label, diffs=diffs)), append=where[1]
    )


def write_text(path: str, text: str, *, append: bool = False) -> None:
    if path == "-":
        from benchop_hook.report import out

        stream = out.stdout or sys.stdout
        stream.write(text)
        stream.flush()
        return
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        f.write(text)


def annotate(opts: Options, kind: Kind, data: Mapping[str, Any]) -> None:
    """`--format github`: the report's annotations, on standard output where the runner reads them."""
    if opts.format != "github":
        return
    from benchop_hook.report.github import render
    from benchop_hook.report.reports import read_report

    text = render(read_report(data, kind=kind))
    if text:
        print(text, flush=True)


def static_diffs(result: StaticResult) -> dict[str, str]:
    """Each rewritten benchmark file's unified diff (a check makes the rewrite and writes nothing)."""
    from benchop_hook.report.text import unified_diff

    return {fr.path: unified_diff(fr.path, fr.before, fr.after) for fr in result.files if fr.changed}


def run_diffs(root: str, run: RunOutcome, target: Target) -> dict[str, str]:
    """Each file bench-op left changed (in the working tree, or in its follow-up commit), as a unified
    diff against what it started from: the static pass's copy, else the file at the range's end."""
    from benchop_hook.git.repo import cat_blobs
    from benchop_hook.report.text import unified_diff

    known = {fr.path: fr.before for fr in (run.result.files if run.result is not None else ())}
    rev = target.to_rev if target.mode == "range" else "HEAD"
    unknown = sorted(p for p in run.written if known.get(p) is None)
    known.update(zip(unknown, cat_blobs(root, [f"{rev}:{p}" for p in unknown])))
    out = {}
    for path, after in sorted(run.written.items()):
        if after != known.get(path):
            out[path] = unified_diff(path, known.get(path), after)
    return out
