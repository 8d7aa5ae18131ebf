"""`[tool.bench-op]` in the repository's pyproject.toml -> a frozen `Config`.

Every key is optional; the defaults fit a TileOPs-like layout. A wrong type or
value is a `ConfigError` naming the key (exit 2); an unknown key is a warning
naming it, so a newer config still works with an older bench-op.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, fields
from typing import Any

from benchop_hook.errors import ConfigError
from benchop_hook.globs import escapes_repo

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


@dataclass(frozen=True)
class Config:
    """`[tool.bench-op]`, with its defaults."""

    op_paths: tuple[str, ...] = ("src/*/ops/**/*.py", "*/ops/**/*.py")
    op_bases: tuple[str, ...] = ("Op",)
    benchmark_paths: tuple[str, ...] = ("benchmarks/**/*.py",)
    test_paths: tuple[str, ...] = ("tests/**/*.py",)
    interface_paths: tuple[str, ...] | None = None  # None: every Python file outside benchmark-paths
    python: str | None = None
    timeout: float = 1800.0
    max_iterations: int = 3
    pytest_args: tuple[str, ...] = ()
    require_run: bool = False  # a file that could not run here (no GPU, a module missing) counts as blocked
    pin_defaults: bool = True
    gpus: str = "all"  # spread over every visible GPU when there are several (needs pytest-xdist)
    # compare with the parent (baseline.py, versus_parent.py)
    baseline: bool = False
    baseline_repeats: int = 3  # runs per side when both run in one session: enough to know the spread
    regression_threshold: float = 0.10
    fail_on_regression: bool = False
    # After a commit that changed an Op: run every benchmark function that builds one ("affected"), only
    # the files bench-op fixed ("fixed"), or none ("never").
    run_after_commit: str = "affected"
    # Whether the pre-commit stage runs the benchmarks too: "auto" runs them only when no follow-up stage is
    # installed (else the run happens once, after the commit).
    pre_commit_run: str = "auto"
    background: bool = False  # the follow-up stage's run goes on after git commit returns
    # The person's coding agent (`git config bench-op.agent`, never this file): how long it may work on one
    # file, and how many times it is asked.
    agent_timeout: float = 600.0
    agent_attempts: int = 1
    # Rule ids turned off (`BO209`), as ruff's `ignore`: docs/rules.md lists them. A rule that guards
    # against a wrong rewrite, turned off, leaves its calls to the run; it never lets them be rewritten.
    ignore: tuple[str, ...] = ()
    line_length: int = 88  # not a [tool.bench-op] key: the project's ruff / black line-length (wrap.py)
    warnings: tuple[str, ...] = field(default=(), compare=False)


# Which agent runs on a person's machine, with which permissions, is theirs to choose: a repository must not
# be able to start one on `git commit`.
AGENT_IGNORED = (
    "bench-op: warning: [tool.bench-op] agent is ignored: the coding agent is chosen per person, not per "
    'repository; set it with `git config bench-op.agent "<command>"`'
)


def _key(name: str) -> str:
    return name.replace("_", "-")


_KEYS = {_key(f.name): f.name for f in fields(Config) if f.name not in ("warnings", "line_length")}
_KEYS["require-gpu"] = "require_run"  # its older name


# An empty list here would make bench-op silently see nothing: no Op, or no benchmark to fix. (An empty
# op-bases is a choice: every class of the op files is judged by its own constructor, none through a base.)
_NOT_EMPTY = ("op-paths", "benchmark-paths")


def _str_list(key: str, value: Any, *, globs: bool = False) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(
            f"[tool.bench-op] {key} must be a list of non-empty strings, got {value!r}: fix it in "
            "pyproject.toml."
        )
    if not value and key in _NOT_EMPTY:
        raise ConfigError(
            f"[tool.bench-op] {key} is empty, so bench-op would find nothing: list at least one glob, "
            "or remove the key for its default."
        )
    if globs:
        for v in value:
            if escapes_repo(v):
                raise ConfigError(
                    f"[tool.bench-op] {key} pattern {v!r} points outside the repository: "
                    "use a path relative to the repository root without '..'."
                )
    return tuple(value)


# The upper bounds catch a slip (an extra zero, seconds taken for minutes...), not a taste: each is well past
# what any run needs.
_MOST = {
    "timeout": 7 * 24 * 3600.0,
    "agent-timeout": 24 * 3600.0,
    "max-iterations": 20,
    "agent-attempts": 10,
    "baseline-repeats": 100,
}


def _positive_number(key: str, value: Any, *, integer: bool) -> Any:
    ok_type = int if integer else (int, float)
    most = _MOST[key]
    if isinstance(value, bool) or not isinstance(value, ok_type) or not 0 < value <= most:
        kind = (
            f"an integer from 1 to {most}" if integer else f"a positive number of seconds, at most {most:.0f}"
        )
        raise ConfigError(f"[tool.bench-op] {key} must be {kind}, got {value!r}: fix it in pyproject.toml.")
    return value


def _choice(key: str, value: Any, allowed: tuple[str, ...], spelled: str | None = None) -> str:
    """`value` when it is one of `allowed`; `spelled`: how the error lists them, when not as strings."""
    if not isinstance(value, str) or value not in allowed:
        options = spelled or "one of " + ", ".join(f'"{a}"' for a in allowed)
        raise ConfigError(
            f"[tool.bench-op] {key} must be {options}, got {value!r}: fix it in pyproject.toml."
        )
    return value


def parse_gpus(value: Any, *, where: str = "[tool.bench-op] gpus") -> str:
    """Normalise a GPU selection: 'all', a count 'N', or an explicit list '0,2,5'."""
    if isinstance(value, bool):
        value = None
    if isinstance(value, int) and value >= 0:
        return str(value)
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        if len(set(value)) != len(value):
            value = None
        else:
            return ",".join(str(v) for v in value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "all" or text.isdigit():
            return text
        parts = [p.strip() for p in text.split(",")]
        if all(p.isdigit() for p in parts) and len(set(parts)) == len(parts) and len(parts) > 0:
            return ",".join(parts)
    raise ConfigError(
        f"{where} must be 'all', a number of GPUs, or a list of GPU indices like '0,2,5', got {value!r}."
    )


def _rule_ids(key: str, value: Any) -> tuple[str, ...]:
    ids = _str_list(key, value) if value != [] else ()
    bad = [i for i in ids if len(i) != 5 or not i.startswith("BO") or not i[2:].isdigit()]
    if bad:
        raise ConfigError(
            f"[tool.bench-op] {key} takes rule ids like \"BO209\" (docs/rules.md lists them), got "
            f"{bad[0]!r}: "
            "fix it in pyproject.toml."
        )
    return ids


def from_table(table: dict[str, Any]) -> Config:
    """Validate a `[tool.bench-op]` table. Pure: no I/O."""
    if not isinstance(table, dict):
        raise ConfigError("[tool.bench-op] must be a table: fix it in pyproject.toml.")
    values: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in table.items():
        if key == "agent":
            warnings.append(AGENT_IGNORED)
            continue
        if key not in _KEYS:
            import difflib

            close = difflib.get_close_matches(key, list(_KEYS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            warnings.append(f"bench-op: warning: unknown key [tool.bench-op] {key!r} ignored{hint}")
            continue
        name = _KEYS[key]
        if name in ("op_paths", "benchmark_paths", "test_paths", "interface_paths"):
            values[name] = _str_list(key, value, globs=True)
        elif name == "op_bases":
            values[name] = _str_list(key, value)
        elif name == "ignore":
            values[name] = _rule_ids(key, value)
        elif name == "pytest_args":
            values[name] = _str_list(key, value) if value != [] else ()
        elif name == "python":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"[tool.bench-op] python must be a path to an interpreter, got {value!r}.")
            values[name] = value
        elif name in ("timeout", "agent_timeout"):
            values[name] = float(_positive_number(key, value, integer=False))
        elif name in ("max_iterations", "agent_attempts"):
            values[name] = _positive_number(key, value, integer=True)
        elif name == "run_after_commit":
            values[name] = _choice(key, value, ("affected", "fixed", "never"))
        elif name == "pre_commit_run":
            values[name] = (
                {True: "true", False: "false"}.get(value, value) if isinstance(value, bool) else value
            )
            values[name] = _choice(
                key, values[name], ("auto", "true", "false"), '"auto", true or false (or "true", "false")'
            )
        elif name in ("require_run", "pin_defaults", "baseline", "fail_on_regression", "background"):
            if not isinstance(value, bool):
                raise ConfigError(f"[tool.bench-op] {key} must be true or false, got {value!r}.")
            values[name] = value
        elif name == "gpus":
            values[name] = parse_gpus(value)
        elif name == "baseline_repeats":
            values[name] = _positive_number(key, value, integer=True)
        elif name == "regression_threshold":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
                raise ConfigError(
                    f"[tool.bench-op] {key} must be a fraction above 0 and at most 1 (0.10 is 10%), "
                    f"got {value!r}: fix it in pyproject.toml."
                )
            values[name] = float(value)
    return Config(**values, warnings=tuple(warnings))


def load(root: str) -> Config:
    """Read `[tool.bench-op]` from `<root>/pyproject.toml`; defaults when absent."""
    path = os.path.join(root, "pyproject.toml")
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise ConfigError(f"cannot read pyproject.toml ({exc.strerror}): check its permissions.") from None
    if b"bench-op" not in raw:
        return Config()
    try:
        data = tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ConfigError("pyproject.toml is not UTF-8 text: save it as UTF-8.") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"pyproject.toml is not valid TOML ({exc}): fix it, then run bench-op again."
        ) from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        return Config()
    table = tool.get("bench-op")
    if table is None:
        return Config()
    return from_table(table)
