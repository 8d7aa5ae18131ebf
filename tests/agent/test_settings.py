"""Which agent runs: the person's git config or the command line, never the repository; and the name the
report, the commit body and the trailer give it."""

from __future__ import annotations

import pytest

from benchop_hook.agent.settings import Agent, choose, command_name
from benchop_hook.config import Config
from benchop_hook.errors import UsageError


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ('claude -p "Do the task on stdin." --permission-mode acceptEdits', "claude"),
        ("codex exec --sandbox workspace-write -", "codex"),
        ('aider --yes-always --no-auto-commits --message-file "$BENCH_OP_TASK" "$BENCH_OP_FILE"', "aider"),
        ("/home/me/bin/my-agent --fast", "my-agent"),
        ("python3 /opt/agents/fix.py --model x", "fix.py"),
        ("python3.12 -m my_agent", "my_agent"),
        ("env ANTHROPIC_MODEL=opus claude -p", "claude"),
        ("FOO=1 codex exec -", "codex"),
        ("uv run aider --message-file t.md", "aider"),
        ("npx @anthropic-ai/claude-code -p", "claude-code"),
        ("'unbalanced", "'unbalanced"),
    ],
)
def test_the_agent_is_named_after_its_program_or_script(command: str, name: str) -> None:
    assert command_name(command) == name


def test_the_command_line_comes_before_git_config() -> None:
    cfg = Config(agent_timeout=30.0, agent_attempts=2)
    assert choose(cfg, given=None, off=False, configured="claude -p") == Agent("claude -p", 30.0, 2)
    assert choose(cfg, given="codex exec -", off=False, configured="claude -p") == Agent(
        "codex exec -", 30.0, 2
    )
    assert choose(cfg, given=None, off=True, configured="claude -p") is None
    assert choose(cfg, given=None, off=False, configured=None) is None
    assert choose(cfg, given=None, off=False, configured="   ") is None


def test_an_agent_bench_op_started_starts_no_other() -> None:
    assert choose(Config(), given="claude -p", off=False, configured="claude -p", inside=True) is None


@pytest.mark.parametrize(("given", "off"), [("x", True), ("", False), ("  ", False)])
def test_contradicting_options_are_usage_errors(given: str, off: bool) -> None:
    with pytest.raises(UsageError):
        choose(Config(), given=given, off=off, configured=None)
