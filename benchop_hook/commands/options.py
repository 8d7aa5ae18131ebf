"""The command line as one frozen value, built once in `cli.py` and passed explicitly to the commands.

Every command sees every field (with its default where its parser has no such option), so nothing reads
the argparse namespace after this, and nothing is set on it. A hook stage derives its own view with
`dataclasses.replace` (a new frozen value) instead of editing it.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from dataclasses import dataclass
from typing import Literal

Stage = Literal["pre-commit", "post-commit", "post-merge", "post-rewrite", "follow-up"]


@dataclass(frozen=True)
class Options:
    """The parsed command line (a docstring also spares `@dataclass` an `inspect.signature` at import)."""

    command: str | None = None
    directory: str | None = None  # -C DIR
    # what to compare
    staged: bool = False  # --staged: HEAD vs the index, whatever pre-commit's range says
    from_ref: str | None = None
    to_ref: str | None = None
    all_files: bool = False
    files: tuple[str, ...] = ()  # benchmark files named on the command line: a shard
    only: frozenset[str] | None = None  # all-files mode: just these benchmark files (pre-commit --all-files)
    # output
    json: str | None = None
    format: Literal["text", "github"] = "text"  # github: findings as GitHub Actions workflow commands
    summary: str | None = None  # a Markdown report to PATH (with --format github: $GITHUB_STEP_SUMMARY)
    quiet: bool = False
    diff: bool = False  # fix: print the diff instead of writing
    # run
    no_run: bool = False
    no_commit: bool = False
    python: str | None = None
    timeout: float | None = None
    max_iterations: int | None = None
    gpus: str | None = None
    baseline: bool = False  # compare with the parent
    shard_spec: str | None = None  # --shard I/N: this runner's share of the affected benchmark files
    repeats: int | None = None  # runs per side when both run now (default: config baseline-repeats)
    agent: str | None = None  # --agent CMD: this run's coding agent, over `git config bench-op.agent`
    no_agent: bool = False
    op: str | None = None  # --op NAME: only the calls of this Op class (and its successor)
    # history
    what: str | None = None  # a benchmark file or a node id
    plot: str | None = None  # PNG path
    device: str | None = None  # only this device's numbers
    max_count: int = 50
    # merge
    reports: tuple[str, ...] = ()  # the shards' JSON reports
    patch: str | None = None  # the combined diff of every shard's fixes
    # hook
    stage: Stage | None = None
    rewrite_command: str | None = None  # post-rewrite's argument: rebase or amend
    detached: tuple[str, str] | None = None  # (base, commit): this process is a background run

    @classmethod
    def defaults(cls) -> dict[str, object]:
        """Every field's default, for the parser: then every namespace has every field."""
        return {f.name: f.default for f in dataclasses.fields(cls)}

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> Options:
        given = {f.name: vars(ns)[f.name] for f in dataclasses.fields(cls)}
        given["files"] = tuple(given["files"] or ())
        given["reports"] = tuple(given["reports"] or ())
        given["detached"] = tuple(given["detached"]) if given["detached"] else None
        return cls(**given)

    def shard(self) -> frozenset[str]:
        """The benchmark files named on the command line, normalised; empty means all of them."""
        return frozenset(os.path.normpath(f) for f in self.files)
