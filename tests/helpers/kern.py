"""Small kernel libraries written for one test ("kern"), when the fixture library lacks the idiom."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.repo import Repo, git

PYPROJECT = """[project]
name = "kern"
version = "0"

[tool.bench-op]
op-paths = ["src/kern/ops/**/*.py"]
benchmark-paths = ["benchmarks/**/*.py"]
test-paths = ["tests/**/*.py"]
"""

OP_BASE = "class Op:\n    pass\n"


def make(tmp_path: Path, files: dict[str, str]) -> Repo:
    """A repository at tmp_path/kern: `files` (path -> text) beside the package's Op base, committed."""
    root = tmp_path / "kern"
    root.mkdir()
    repo = Repo(root)
    repo.write("pyproject.toml", PYPROJECT)
    repo.write("src/kern/__init__.py", "")
    repo.write("src/kern/ops/op.py", OP_BASE)
    for rel, text in files.items():
        repo.write(rel, text)
    git(root, "init", "-q", "-b", "main")
    repo.commit("initial")
    return repo


def fix(repo: Repo) -> tuple[int, str, dict]:
    """`bench-op fix` over the last commit: the exit code, the output and the JSON report."""
    out = repo.path / ".." / "fix.json"
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--json", str(out))
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return r.returncode, r.stdout + r.stderr, json.loads(out.read_text())
