"""bench-op used through pre-commit: this checkout as the hook repository, and pre-commit's environment for
it, each made once per test run and shared by every xdist worker."""

from __future__ import annotations

import contextlib
import fcntl
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.helpers.process import run
from tests.helpers.repo import PROJECT, Repo, git


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # released when the file closes
        yield


def once(done: Path, make: Callable[[], str]) -> str:
    """`make()`'s answer, made by the first process of the run to ask (the others wait for it, then read
    it back): `done` holds it once it is complete."""
    with _locked(done.with_name(done.name + ".lock")):
        if not done.exists():
            answer = make()
            done.write_text(answer)
        return done.read_text()


def snapshot(dest: Path) -> tuple[Path, str]:
    """This checkout as it is now (committed or not), as a git repository pre-commit can clone: its path
    and revision."""

    def make() -> str:
        dest.mkdir()
        files = git(PROJECT, "ls-files", "-co", "--exclude-standard", "-z").split("\0")
        for f in filter(None, files):
            src = PROJECT / f
            if src.is_file():
                (dest / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / f)
        git(dest, "init", "-q")
        git(dest, "add", "-A")
        git(dest, "commit", "-q", "-m", "snapshot")
        return git(dest, "rev-parse", "HEAD").strip()

    return dest, once(dest.with_name(dest.name + ".rev"), make)


def pre_commit(repo: Repo, *args: str, home: Path, check: bool = False) -> subprocess.CompletedProcess[str]:
    return run(
        [sys.executable, "-m", "pre_commit", *args],
        repo.path,
        env={"PRE_COMMIT_HOME": str(home)},
        check=check,
    )


def config(project_rev: tuple[Path, str]) -> str:
    src, rev = project_rev
    return f"""repos:
  - repo: {src}
    rev: {rev}
    hooks:
      - id: bench-op
      - id: bench-op-follow-up
"""


def environment(home: Path, project_rev: tuple[Path, str]) -> Path:
    """A PRE_COMMIT_HOME holding bench-op's hook environment, built (from the package index, the longest
    step of these tests) by the first worker that needs it."""

    def make() -> str:
        scratch = home.with_name(home.name + "-scratch")
        scratch.mkdir()
        git(scratch, "init", "-q")
        (scratch / ".pre-commit-config.yaml").write_text(config(project_rev))
        r = pre_commit(Repo(scratch), "install-hooks", home=home)
        assert r.returncode == 0, r.stdout + r.stderr
        return str(home)

    return Path(once(home.with_name(home.name + ".built"), make))


def with_pre_commit(
    repo: Repo,
    project_rev: tuple[Path, str],
    home: Path,
    hook_types: tuple[str, ...] = ("post-commit", "post-merge"),
) -> None:
    repo.write(".pre-commit-config.yaml", config(project_rev))
    repo.commit("use bench-op through pre-commit")
    r = pre_commit(repo, "install", *(a for t in hook_types for a in ("--hook-type", t)), home=home)
    assert r.returncode == 0, r.stdout + r.stderr
    r = pre_commit(repo, "install-hooks", home=home)
    assert r.returncode == 0, r.stdout + r.stderr
