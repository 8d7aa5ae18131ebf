"""What one run is asked to do, as frozen values the command layer builds once (the run layer never sees
the command line): where (`RepoPaths`, `Config`), what (`Target` and the changed paths), how
(`RunSettings`: the command line over the config, checked)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchop_hook.config import Config, parse_gpus
from benchop_hook.errors import UsageError
from benchop_hook.git.repo import Change, RepoPaths
from benchop_hook.git.target import Target

if TYPE_CHECKING:  # (the no-op hook builds RunSettings on every commit: no import it does not need)
    from benchop_hook.agent.settings import Agent


@dataclass(frozen=True)
class RunSettings:
    """How to run: limits, interpreter, which files, and what to do after."""

    timeout: float
    max_iterations: int
    gpus: str  # 'all', a count, or '0,2,5'
    python: str | None = None  # an interpreter named on the command line
    no_run: bool = False  # the static rewrite only
    no_commit: bool = False  # never make the follow-up commit
    shard: frozenset[str] = frozenset()  # benchmark files named on the command line; empty: all of them
    only: frozenset[str] | None = None  # all-files mode: just these benchmark files
    baseline: bool = False  # compare with the parent
    repeats: int = 3  # runs per side when both run now
    affected: bool = False  # run every benchmark function that builds a changed class, fixed or not
    env: tuple[tuple[str, str], ...] = ()  # more environment for the benchmark sessions
    split: tuple[int, int] | None = None  # (I, N): take shard I of N of the affected files (run/shards.py)
    agent: Agent | None = None  # the person's coding agent, for what bench-op could not fix
    op: str | None = None  # only the calls of this Op class (and its successor)
    # where `python` came from, for the user: a background run is handed the interpreter resolved before
    python_from: str = "--python"
    # Why nothing runs, as the report names it: the flag, or the stage or setting that leaves the run to
    # later (a user who passed no flag must not read "--no-run").
    no_run_why: str = "--no-run"


def settings(
    cfg: Config,
    *,
    timeout: float | None = None,
    max_iterations: int | None = None,
    gpus: str | None = None,
    repeats: int | None = None,
    python: str | None = None,
    no_run: bool = False,
    no_commit: bool = False,
    shard: frozenset[str] = frozenset(),
    only: frozenset[str] | None = None,
    baseline: bool = False,
    affected: bool = False,
    split: tuple[int, int] | None = None,
    agent: Agent | None = None,
    op: str | None = None,
    no_run_why: str = "--no-run",
) -> RunSettings:
    """The command line's values over the config's, checked: a bad value is a usage error whether or not
    there turns out to be work."""
    chosen_gpus = parse_gpus(gpus, where="--gpus") if gpus else cfg.gpus
    chosen_timeout = timeout if timeout else cfg.timeout
    max_it = max_iterations if max_iterations else cfg.max_iterations
    if chosen_timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds.")
    if max_it < 1:
        raise UsageError("--max-iterations must be at least 1.")
    if repeats is not None and repeats < 1:
        raise UsageError("--repeats must be at least 1.")
    n = cfg.baseline_repeats if repeats is None else int(repeats)
    return RunSettings(
        float(chosen_timeout),
        int(max_it),
        chosen_gpus,
        python,
        no_run,
        no_commit,
        shard,
        only,
        baseline,
        n,
        affected,
        split=split,
        agent=agent,
        op=op,
        no_run_why=no_run_why,
    )


@dataclass(frozen=True)
class Job:
    """One run: the repository, its configuration, what is compared, and how to run."""

    repo: RepoPaths
    cfg: Config
    target: Target
    changes: tuple[Change, ...]
    settings: RunSettings

    @property
    def baseline(self) -> bool:
        return self.settings.baseline or self.cfg.baseline
