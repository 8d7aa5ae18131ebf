"""Waiting for a background run (`background = true`) that a test started through a commit."""

from __future__ import annotations

import json
import time

from tests.helpers.repo import Repo


def finished(repo: Repo, commit: str, timeout: float = 240) -> dict[str, object]:
    """The state file of the background run of `commit`, once it says the run ended."""
    state = repo.path / ".git" / "bench-op" / "background" / f"{commit}.json"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if state.exists():
            data = json.loads(state.read_text())
            if data["status"] != "running":
                return data
        time.sleep(0.5)
    raise AssertionError(f"the background run of {commit} did not finish: {state.read_text()}")
