"""Fixtures of every test: git isolated from the machine (empty template, fixed identity, no global
config), the fixture library in a new repository, and what the pre-commit tests share.

No mocks: git, pytest and pre-commit run for real. The helpers the tests import live in tests/helpers.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import precommit
from tests.helpers.process import SESSION_PREFIXES, isolate_git
from tests.helpers.repo import Repo, make_repo

collect_ignore = ["fixtures"]


@pytest.fixture(autouse=True, scope="session")
def _isolated_git(tmp_path_factory: pytest.TempPathFactory) -> None:
    isolate_git(tmp_path_factory.mktemp("home"))


@pytest.fixture
def without_session_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """For a test that calls bench-op's functions directly: this process's environment as a program's would
    be, without what the test session put there (bench-op passes its environment on to the benchmark
    sessions it starts, and PYTEST_XDIST_WORKER from an xdist worker makes such a session look for its
    results under another name). pytest sets PYTEST_CURRENT_TEST again for the call; every session
    overwrites it with its own."""
    for key in list(os.environ):
        if key.startswith(SESSION_PREFIXES):
            monkeypatch.delenv(key)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return make_repo(tmp_path / "minitile")


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """A folder shared by every process of this test run: under xdist each worker's base temporary folder
    is a sub-folder of the run's."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if hasattr(request.config, "workerinput") else base


@pytest.fixture(scope="session")
def project_rev(run_dir: Path) -> tuple[Path, str]:
    """This checkout as a git repository pre-commit can clone, and its revision."""
    return precommit.snapshot(run_dir / "bench-op-src")


@pytest.fixture(scope="session")
def pre_commit_home(run_dir: Path, project_rev: tuple[Path, str]) -> Path:
    """pre-commit's home, with bench-op's hook environment built."""
    return precommit.environment(run_dir / "pre-commit-home", project_rev)
