"""The hook stages, and the follow-up commit."""

from __future__ import annotations

import argparse

from benchop_hook.commands.run import RunOutcome, execute


def run_and_maybe_commit(args: argparse.Namespace, repo, cfg, target, changes) -> RunOutcome:  # noqa: ANN001
    return execute(args, repo, cfg, target, changes)


def main(args: argparse.Namespace) -> int:  # pragma: no cover - filled in with the hook
    raise NotImplementedError
