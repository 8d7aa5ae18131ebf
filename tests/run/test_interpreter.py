"""Which Python runs the benchmarks (run/interpreter.py): the project's environments that have pytest, never
pre-commit's own, and one line with the config fix when none can run them.

Real interpreters: a virtualenv without pytest, and scripts that run this interpreter (which has pytest)
standing in for a project's virtualenv, a conda environment and a pre-commit hook environment.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from benchop_hook.run.interpreter import in_hook_env, resolve_python
from tests.helpers.changes import reduction_change
from tests.helpers.interpreters import bare_python, linked_python
from tests.helpers.repo import Repo, make_repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"


@pytest.fixture
def looking_around(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No interpreter named, no environment active, nothing on PATH, pre-commit's home in tmp_path."""
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    home = tmp_path / "pre-commit-home"
    monkeypatch.setenv("PRE_COMMIT_HOME", str(home))
    return home


def test_an_active_virtualenv_with_pytest_comes_before_a_repository_venv_without(
    looking_around: Path, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    bare = bare_python(root, ".venv")
    active = linked_python(tmp_path / "env", sys.executable)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VIRTUAL_ENV", str(tmp_path / "env"))
        chosen = resolve_python(str(root), None, None)
    assert (chosen.path, chosen.source) == (active, "the active virtualenv ($VIRTUAL_ENV)")
    assert chosen.passed_over == (bare,)


def test_a_conda_environment_is_looked_at_too(looking_around: Path, tmp_path: Path) -> None:
    conda = linked_python(tmp_path / "conda", sys.executable)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CONDA_PREFIX", str(tmp_path / "conda"))
        chosen = resolve_python(str(tmp_path), None, None)
    assert (chosen.path, chosen.source) == (conda, "the active conda env ($CONDA_PREFIX)")


def test_pre_commits_hook_environment_is_never_chosen(looking_around: Path, tmp_path: Path) -> None:
    # pre-commit sets VIRTUAL_ENV to the hook's environment and puts it first on PATH
    hook_env = looking_around / "repoabc" / "py_env-python3"
    hook_python = linked_python(hook_env, sys.executable)
    assert in_hook_env(hook_python) and in_hook_env(str(hook_env))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VIRTUAL_ENV", str(hook_env))
        mp.setenv("PATH", str(hook_env / "bin"))
        chosen = resolve_python(str(tmp_path), None, None)
    assert chosen.path == sys.executable and chosen.source == "the interpreter bench-op runs in"


def test_a_named_interpreter_is_used_as_it_is_and_says_where_it_came_from(tmp_path: Path) -> None:
    bare = bare_python(tmp_path)
    assert resolve_python(str(tmp_path), None, bare).source == "[tool.bench-op] python"
    assert resolve_python(str(tmp_path), bare, None).source == "--python"
    # a value resolved before (a background run) keeps the source it was resolved from
    handed = resolve_python(str(tmp_path), bare, None, "the repository's .venv")
    assert (handed.path, handed.source) == (bare, "the repository's .venv")


def test_no_interpreter_with_pytest_is_said_once_with_the_config_fix(tmp_path: Path) -> None:
    """bench-op runs in a pre-commit hook environment (PRE_COMMIT_HOME holds this interpreter), and the only
    other Python on PATH has no pytest: that one is the best guess, and the run says once what to set."""
    repo = make_repo(tmp_path / "minitile", python=None)
    reduction_change(repo)
    repo.commit("reduce: rows come from the input")
    bare = bare_python(tmp_path)
    bin_dir = Path(linked_python(tmp_path / "path", bare)).parent  # a script: a link would leave the venv
    (bin_dir / "python").rename(bin_dir / "python3")
    git = shutil.which("git")
    assert git is not None
    (bin_dir / "git").symlink_to(git)
    env = {"PATH": str(bin_dir), "PRE_COMMIT_HOME": sys.prefix, "VIRTUAL_ENV": "", "CONDA_PREFIX": ""}
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", env=env)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    said = [ln for ln in out.splitlines() if "cannot import pytest" in ln]
    py = bin_dir / "python3"
    assert said == [
        f"bench-op: not running the benchmarks: {py} (from PATH) cannot import pytest: install pytest there "
        f'(`{py} -m pip install pytest`), or set `python = "path/to/python"` in [tool.bench-op] to the '
        "project's interpreter"
    ], out
    assert f"running benchmarks with {bin_dir / 'python3'} (from PATH)" in out
    message = repo.git("log", "-1", "--format=%B")
    assert [ln for ln in message.splitlines() if "pytest" in ln] == [
        f"Not run here (no pytest in {bin_dir / 'python3'}): {BENCH_RED}"
    ], message


def test_a_repository_without_any_python_is_one_line(looking_around: Path, tmp_path: Path) -> None:
    from benchop_hook.errors import BenchOpError

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PRE_COMMIT_HOME", sys.prefix)  # this interpreter is pre-commit's: not a candidate
        with pytest.raises(BenchOpError) as e:
            resolve_python(str(tmp_path), None, None)
    assert e.value.message == (
        'no Python found to run the benchmarks: set `python = "<your project\'s python>"` in [tool.bench-op].'
    )


def test_the_log_says_the_config_named_the_interpreter(repo: Repo, tmp_path: Path) -> None:
    reduction_change(repo)
    repo.commit("reduce: rows come from the input")
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-commit")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"running benchmarks with {sys.executable} (from [tool.bench-op] python)" in r.stdout, r.stdout
