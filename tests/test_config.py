"""`[tool.bench-op]`: defaults, every bad value named, unknown keys warned about, broken TOML explained."""

from __future__ import annotations

import pytest

from benchop_hook.config import Config, from_table, parse_gpus
from benchop_hook.errors import ConfigError
from benchop_hook.globs import matches
from tests.helpers.asserts import one_line_error
from tests.helpers.repo import Repo


def test_defaults_fit_a_tileops_layout() -> None:
    c = Config()
    assert matches("src/tileops/ops/reduction/argreduce.py", c.op_paths)
    assert matches("tileops/ops/gemm.py", c.op_paths)
    assert matches("benchmarks/ops/bench_gemm.py", c.benchmark_paths)
    assert matches("benchmarks/ops/attention/bench_gqa.py", c.benchmark_paths)
    assert matches("tests/ops/test_gemm.py", c.test_paths)
    assert c.op_bases == ("Op",) and c.max_iterations == 3 and c.pin_defaults


@pytest.mark.parametrize(
    "table, key",
    [
        ({"op-paths": 3}, "op-paths"),
        ({"op-bases": [1]}, "op-bases"),
        ({"benchmark-paths": [""]}, "benchmark-paths"),
        ({"test-paths": {"a": 1}}, "test-paths"),
        ({"python": 3}, "python"),
        ({"timeout": -1}, "timeout"),
        ({"timeout": "10"}, "timeout"),
        ({"max-iterations": 0}, "max-iterations"),
        ({"max-iterations": 2.5}, "max-iterations"),
        ({"agent-timeout": 0}, "agent-timeout"),
        ({"agent-attempts": 1.5}, "agent-attempts"),
        ({"pytest-args": "x"}, None),  # a single string is accepted as one argument
        ({"require-gpu": "yes"}, "require-gpu"),
        ({"pin-defaults": 1}, "pin-defaults"),
        ({"gpus": "some"}, "gpus"),
        ({"benchmark-paths": ["../other/**/*.py"]}, "benchmark-paths"),
        ({"op-paths": ["/etc/*.py"]}, "op-paths"),
    ],
)
def test_bad_values_name_the_key(table, key) -> None:
    if key is None:
        assert from_table(table).pytest_args == ("x",)
        return
    with pytest.raises(ConfigError) as e:
        from_table(table)
    assert key in e.value.message


def test_unknown_key_is_a_warning_with_a_suggestion() -> None:
    c = from_table({"benchmark-path": ["b/*.py"]})
    assert (
        c.warnings
        and "'benchmark-path'" in c.warnings[0]
        and "did you mean 'benchmark-paths'" in c.warnings[0]
    )


def test_the_agent_settings_and_the_agent_itself() -> None:
    c = from_table({"agent-timeout": 120, "agent-attempts": 2})
    assert (c.agent_timeout, c.agent_attempts) == (120.0, 2) and not c.warnings
    assert (Config().agent_timeout, Config().agent_attempts) == (600.0, 1)
    # Which agent runs is the person's to choose (git config), never the repository's.
    ignored = from_table({"agent": "claude -p"})
    assert ignored == Config() and len(ignored.warnings) == 1
    assert (
        "[tool.bench-op] agent is ignored" in ignored.warnings[0]
        and "git config bench-op.agent" in ignored.warnings[0]
    )


@pytest.mark.parametrize("value, out", [("all", "all"), (2, "2"), ([0, 2, 5], "0,2,5"), ("0, 2,5", "0,2,5")])
def test_gpus(value, out) -> None:
    assert parse_gpus(value) == out


def test_cli_config_errors_exit_2_without_traceback(repo: Repo) -> None:
    repo.replace("pyproject.toml", "timeout = 300", "timeout = 'soon'")
    r = repo.cli("check", "--all-files")
    assert r.returncode == 2
    assert "[tool.bench-op] timeout must be a positive number" in r.stderr and "Traceback" not in r.stderr
    repo.replace("pyproject.toml", "timeout = 'soon'", "timeout = [")
    r = repo.cli("check", "--all-files")
    assert r.returncode == 2 and "pyproject.toml is not valid TOML" in r.stderr
    repo.replace("pyproject.toml", "timeout = [", "timeout = 300\nbenchmark-path = ['x']")
    r = repo.cli("check", "--all-files")
    assert r.returncode == 0 and "unknown key [tool.bench-op] 'benchmark-path'" in r.stderr


def test_not_a_repository(tmp_path) -> None:
    r = Repo(tmp_path).cli("check")
    assert r.returncode == 2 and "not inside a git work tree" in r.stderr


@pytest.mark.parametrize("key", ["benchmark-paths", "op-paths", "test-paths"])
def test_globs_escaping_the_repository_are_refused(repo: Repo, key: str) -> None:
    repo.replace(
        "pyproject.toml", "[tool.bench-op]\n", f"[tool.bench-op]\n{key} = ['../elsewhere/**/*.py']\n"
    )
    text = repo.read("pyproject.toml")
    # the fixture already sets these keys: keep only the escaping one
    lines = [ln for ln in text.splitlines() if not (ln.startswith(f"{key} = [") and "elsewhere" not in ln)]
    repo.write("pyproject.toml", "\n".join(lines) + "\n")
    r = repo.cli("check", "--all-files")
    assert r.returncode == 2 and "points outside the repository" in one_line_error(r)


@pytest.mark.parametrize("key", ["op-paths", "benchmark-paths"])
def test_an_empty_list_where_bench_op_would_then_see_nothing_is_an_error(key: str) -> None:
    with pytest.raises(ConfigError) as e:
        from_table({key: []})
    assert (
        e.value.message.startswith(f"[tool.bench-op] {key} is empty") and "remove the key" in e.value.message
    )
    assert from_table({"test-paths": [], "interface-paths": []}).test_paths == ()
    assert from_table({"op-bases": []}).op_bases == ()  # every class judged by its own constructor


@pytest.mark.parametrize(
    "key, bad, good, accepted",
    [
        ("regression-threshold", 10, 0.5, "a fraction above 0 and at most 1 (0.10 is 10%)"),
        ("regression-threshold", 0, 1, "a fraction above 0 and at most 1 (0.10 is 10%)"),
        ("max-iterations", 100, 20, "an integer from 1 to 20"),
        ("baseline-repeats", 1000, 100, "an integer from 1 to 100"),
        ("agent-attempts", 11, 10, "an integer from 1 to 10"),
        ("timeout", 10**9, 3600, "a positive number of seconds, at most 604800"),
    ],
)
def test_numbers_have_a_range_the_error_states(key: str, bad: object, good: object, accepted: str) -> None:
    with pytest.raises(ConfigError) as e:
        from_table({key: bad})
    assert e.value.message == (
        f"[tool.bench-op] {key} must be {accepted}, got {bad!r}: fix it in pyproject.toml."
    )
    assert not from_table({key: good}).warnings


@pytest.mark.parametrize(
    "value, chosen", [("auto", "auto"), (True, "true"), (False, "false"), ("false", "false")]
)
def test_pre_commit_run_takes_auto_true_or_false(value: object, chosen: str) -> None:
    assert from_table({"pre-commit-run": value}).pre_commit_run == chosen


def test_a_bad_pre_commit_run_lists_every_accepted_value(repo: Repo) -> None:
    repo.replace("pyproject.toml", "timeout = 300", "timeout = 300\npre-commit-run = 'yes'")
    r = repo.cli("check")
    assert r.returncode == 2
    assert one_line_error(r) == (
        'bench-op: [tool.bench-op] pre-commit-run must be "auto", true or false (or "true", "false"), '
        "got 'yes': fix it in pyproject.toml."
    )


def test_an_empty_op_paths_stops_every_command(repo: Repo) -> None:
    repo.replace("pyproject.toml", 'op-paths = ["src/minitile/ops/**/*.py"]', "op-paths = []")
    for args in (("check",), ("hook", "pre-commit")):
        r = repo.cli(*args)
        assert r.returncode == 2 and "op-paths is empty" in one_line_error(r), args
