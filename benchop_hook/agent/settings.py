"""Which coding agent a person runs, if any: `git config bench-op.agent`, or `--agent CMD` / `--no-agent` for
one run; never the repository's pyproject.toml (`config.AGENT_IGNORED`)."""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from benchop_hook.config import Config
from benchop_hook.errors import UsageError

# Set in the agent's environment: a bench-op the agent runs (the skill asks it to) never starts an agent.
INSIDE = "BENCH_OP_AGENT"

# A program that runs the agent rather than being it: the agent's name is its script's.
_RUNNERS = {"python", "python3", "sh", "bash", "zsh", "node", "env", "uv", "uvx", "npx", "pipx"}


@dataclass(frozen=True)
class Agent:
    """The agent command, as the person wrote it (a shell command line), and how it is run."""

    command: str
    timeout: float = 600.0
    attempts: int = 1

    @property
    def name(self) -> str:
        return command_name(self.command)


def command_name(command: str) -> str:
    """What the report, the commit body and the trailer call the agent: its program's name (`claude`,
    `codex`, `aider`), or its script's when the program only runs it (`python3 fix.py` -> `fix.py`)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    words = [w for w in words if not ("=" in w and not w.startswith("-") and "/" not in w.split("=")[0])]
    if not words:
        return "agent"
    first = os.path.basename(words[0])
    if re.sub(r"[\d.]+$", "", first) in _RUNNERS:
        rest = [w for w in words[1:] if not w.startswith("-") and w not in ("run", "exec", "-m")]
        if rest:
            return os.path.basename(rest[0])
    return first or "agent"


def choose(
    cfg: Config, *, given: str | None, off: bool, configured: str | None, inside: bool = False
) -> Agent | None:
    """The agent for this run: `--agent CMD` over `git config bench-op.agent`; none with `--no-agent`, none
    when nothing is set, and none inside an agent bench-op started. Pure."""
    if given is not None and off:
        raise UsageError("--agent and --no-agent contradict each other: use one of them.")
    if given is not None and not given.strip():
        raise UsageError("--agent needs a command, e.g. --agent 'claude -p': or use --no-agent.")
    if off or inside:
        return None
    command = given if given is not None else (configured or "").strip()
    if not command:
        return None
    return Agent(command, cfg.agent_timeout, cfg.agent_attempts)
