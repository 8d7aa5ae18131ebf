"""One user-facing error type and the exit codes bench-op speaks.

Anything the user can act on is raised as `BenchOpError` (or a subclass) with a
one-sentence message that says what happened and what to do. Everything else is
a bug: the top-level handler in `cli.py` logs its traceback inside `.git/` and
exits with `EXIT_BUG`.
"""

from __future__ import annotations

EXIT_OK = 0  # done, or nothing to do
EXIT_BLOCKED = 1  # blocked, broken calls remain, or an environment problem
EXIT_USAGE = 2  # bad command line or configuration
EXIT_BUG = 3  # a bug in bench-op; traceback in the log
EXIT_INTERRUPTED = 130  # Ctrl-C


class BenchOpError(Exception):
    """An error the user can act on: printed as one line, no traceback."""

    exit_code = EXIT_BLOCKED

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code


class UsageError(BenchOpError):
    """Bad command line."""

    exit_code = EXIT_USAGE


class ConfigError(BenchOpError):
    """Bad `[tool.bench-op]` configuration."""

    exit_code = EXIT_USAGE


class GitError(BenchOpError):
    """git refused or the repository is in a state bench-op cannot work in."""

    exit_code = EXIT_BLOCKED
