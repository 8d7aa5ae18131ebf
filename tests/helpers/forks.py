"""The static pass run twice in this process, first with no fork possible, then with every fork taken: the
tests that compare a forked answer with the serial one."""

from __future__ import annotations

import pytest


def without_and_with_fork(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    module: object,
    threshold: str | tuple[str, ...],
    argv: list[str],
) -> tuple[int, list[tuple[int, pytest.CaptureResult[str]]]]:
    """`cli.main(argv)` with `module.threshold` (or each of several) out of reach, then at 0: the forks
    counted, each run's exit code and captured output."""
    import os

    from benchop_hook import cli

    forks: list[int] = []
    real_fork = os.fork

    def counted() -> int:
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", counted)
    runs: list[tuple[int, pytest.CaptureResult[str]]] = []
    for value in (10**12, 0):
        for name in (threshold,) if isinstance(threshold, str) else threshold:
            monkeypatch.setattr(module, name, value)
        rc = cli.main(argv)
        runs.append((rc, capsys.readouterr()))
    return len(forks), runs
