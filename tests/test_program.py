"""How a hint names bench-op: `bench-op` where the person's PATH finds this installation, else its path
(pre-commit's environment, whose `bin` only the hook's PATH has)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from benchop_hook.program import command, word

HERE = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "bench-op")


@pytest.fixture
def no_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.setattr(sys, "argv", ["-c"])


def test_on_path_it_is_bench_op(monkeypatch: pytest.MonkeyPatch, no_hook: None) -> None:
    monkeypatch.setenv("PATH", os.path.dirname(HERE))
    assert command("status") == "bench-op status"


def test_off_path_it_is_the_running_installation(monkeypatch: pytest.MonkeyPatch, no_hook: None) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("HOME", "/nonexistent-home")
    assert command("status") == f"{HERE} status"


def test_another_bench_op_on_path_is_not_this_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_hook: None
) -> None:
    other = tmp_path / "bench-op"
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("HOME", "/nonexistent-home")
    assert command("run") == f"{HERE} run"


def test_pre_commit_s_environment_is_not_the_person_s_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """pre-commit puts its environment's `bin` first on the hook's PATH: the person's shell has none of it."""
    env = Path(os.path.dirname(os.path.dirname(HERE)))
    monkeypatch.setattr(sys, "argv", [HERE, "hook", "follow-up"])
    monkeypatch.setenv("PRE_COMMIT", "1")
    monkeypatch.setenv("VIRTUAL_ENV", str(env))
    monkeypatch.setenv("PATH", f"{env / 'bin'}{os.pathsep}/nonexistent")
    monkeypatch.setenv("HOME", str(env.parent))
    assert command("status") == f"~/{env.name}/bin/bench-op status"


def test_words_are_quoted_only_where_the_shell_needs_it() -> None:
    assert word("HEAD~1") == "HEAD~1" and word("main..topic") == "main..topic"
    assert word("a b") == "'a b'" and word("~x") == "'~x'" and word("HEAD^") == "'HEAD^'"
