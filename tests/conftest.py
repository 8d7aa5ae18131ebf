"""Real git repositories built from the fixture kernel library, in temporary directories.

No mocks: git, pytest and pre-commit run for real. Git is isolated from the
machine's configuration (empty template, fixed identity, no global config).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
FIXTURE = HERE / "fixtures" / "minitile"
PROJECT = HERE.parent

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Kernel Dev",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "Kernel Dev",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TEMPLATE_DIR": "",
}

collect_ignore = ["fixtures"]


@pytest.fixture(autouse=True, scope="session")
def _isolated_git(tmp_path_factory: pytest.TempPathFactory) -> None:
    home = tmp_path_factory.mktemp("home")
    os.environ.update(GIT_ENV)
    os.environ["HOME"] = str(home)
    os.environ["GIT_CONFIG_GLOBAL"] = str(home / ".gitconfig")
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n")
    for k in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"):
        os.environ.pop(k, None)


def git(cwd: Path, *args: str, check: bool = True, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout


class Repo:
    """A fixture op library in its own git repository."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self, rel: str) -> str:
        return (self.path / rel).read_text()

    def write(self, rel: str, text: str) -> None:
        p = self.path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)

    def replace(self, rel: str, old: str, new: str, count: int = 1) -> None:
        text = self.read(rel)
        assert old in text, f"{old!r} not in {rel}"
        self.write(rel, text.replace(old, new, count))

    def git(self, *args: str, check: bool = True, env: dict[str, str] | None = None) -> str:
        return git(self.path, *args, check=check, env=env)

    def commit(self, msg: str = "change", *paths: str) -> str:
        self.git("add", *(paths or ("-A",)))
        self.git("commit", "-q", "--no-verify", "-m", msg)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def log(self, fmt: str = "%s") -> list[str]:
        return self.git("log", f"--format={fmt}").splitlines()

    def bench_op(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        e = dict(os.environ)
        e.update(env or {})
        return subprocess.run(
            [sys.executable, "-m", "benchop_hook", *args],
            cwd=self.path,
            capture_output=True,
            text=True,
            env=e,
            timeout=timeout,
        )

    def snapshot(self) -> dict[str, bytes]:
        """Every file outside .git, byte for byte."""
        out = {}
        for p in sorted(self.path.rglob("*")):
            if (
                ".git" in p.relative_to(self.path).parts
                or "__pycache__" in p.parts
                or ".pytest_cache" in p.parts
            ):
                continue
            if p.is_file():
                out[str(p.relative_to(self.path))] = p.read_bytes()
        return out


def make_repo(dest: Path, *, python: str | None = sys.executable) -> Repo:
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    repo = Repo(dest)
    if python:
        text = repo.read("pyproject.toml").replace(
            "[tool.bench-op]\n", f"[tool.bench-op]\npython = {python!r}\n"
        )
        repo.write("pyproject.toml", text)
    (dest / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    repo.git("init", "-q", "-b", "main")
    repo.commit("minitile: initial")
    return repo


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return make_repo(tmp_path / "minitile")


# The Op changes the tests make, as whole-file replacements of the fixture's sources.

CHANGE = PROJECT / "examples" / "reduce-rows-from-input"  # the Op change the README's demo commits
REDUCTION_N_DIM = (CHANGE / "src/minitile/ops/reduction.py").read_text()


def reduction_change(repo: Repo, *, update_tests: bool = True) -> None:
    """ReduceOp(M, N, dtype, tune=False) -> ReduceOp(N, dtype,
    dim=-1, *, tune=False), for the whole family.
    """
    repo.write("src/minitile/ops/reduction.py", REDUCTION_N_DIM)
    if update_tests:
        repo.write("tests/ops/test_reduction.py", (CHANGE / "tests/ops/test_reduction.py").read_text())
