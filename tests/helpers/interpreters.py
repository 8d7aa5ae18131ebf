"""Interpreters for the tests of which Python runs the benchmarks: a real one without pytest, and a fake
pre-commit hook environment."""

from __future__ import annotations

import venv
from pathlib import Path


def bare_python(tmp_path: Path, name: str = "bare") -> str:
    """An interpreter without pytest (and without pip: quick to make), in its own virtualenv."""
    env_dir = tmp_path / name
    venv.EnvBuilder(with_pip=False).create(env_dir)
    return str(env_dir / "bin" / "python")


def linked_python(env_dir: Path, target: str) -> str:
    """`env_dir/bin/python`, a script that runs `target`: an environment that has what `target` has."""
    (env_dir / "bin").mkdir(parents=True, exist_ok=True)
    path = env_dir / "bin" / "python"
    path.write_text(f'#!/bin/sh\nexec "{target}" "$@"\n')
    path.chmod(0o755)
    return str(path)
