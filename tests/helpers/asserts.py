"""What the fault tests compare before and after bench-op ran, and how they read its one-line errors."""

from __future__ import annotations

import subprocess

from tests.helpers.repo import Repo, Result


def state(repo: Repo) -> tuple[dict[str, bytes], str, str, str]:
    """Working tree bytes, the index, every ref: what must not move."""
    return (
        repo.snapshot(),
        repo.git("ls-files", "-s", "--debug"),
        repo.git("for-each-ref"),
        repo.git("rev-parse", "HEAD"),
    )


def one_line_error(r: Result | subprocess.CompletedProcess[str]) -> str:
    """The one `bench-op:` line on stderr, with no traceback anywhere."""
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("bench-op:")]
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    return lines[0]
