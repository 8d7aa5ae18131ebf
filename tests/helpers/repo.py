"""Real git repositories in temporary directories: the fixture kernel library (tests/fixtures/minitile), and
bench-op run on them, as a program or in this process."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tests.helpers.process import as_a_process, child_env

PROJECT = Path(__file__).resolve().parent.parent.parent
FIXTURE = PROJECT / "tests" / "fixtures" / "minitile"


def git(cwd: Path, *args: str, check: bool = True, env: Mapping[str, str] | None = None) -> str:
    """`git ARGS` in `cwd`; `env`: variables on top of the clean environment."""
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=child_env(env))
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout


@dataclass(frozen=True)
class Result:
    """What `bench-op` left behind, read as `subprocess.run(..., text=True)` reads a program's output."""

    returncode: int
    stdout: str
    stderr: str


class Repo:
    """A kernel library in its own git repository."""

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

    def git(self, *args: str, check: bool = True, env: Mapping[str, str] | None = None) -> str:
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
        self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """`bench-op ARGS` as a program (`python -m benchop_hook`): for what needs a process of its own (the
        benchmark sessions it starts, its exit, signals, locks held by another run)."""
        return subprocess.run(
            [sys.executable, "-m", "benchop_hook", *args],
            cwd=self.path,
            capture_output=True,
            text=True,
            env=child_env(env),
            timeout=timeout,
        )

    def cli(self, *args: str, env: Mapping[str, str] | None = None) -> Result:
        """`bench-op ARGS` in this process (`cli.main`), in this repository and with the environment a
        program would get: the static commands, whose answer is the same without a process start (about
        0.3 s of interpreter and imports each)."""
        from benchop_hook import cli

        out, err = _stream(sys.__stdout__), _stream(sys.__stderr__)
        with as_a_process(self.path, env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(list(args))
            except SystemExit as exc:  # argparse's usage errors and --help, as the interpreter ends them
                if exc.code is None or isinstance(exc.code, int):
                    code = exc.code or 0
                else:
                    print(exc.code, file=sys.stderr)
                    code = 1
        return Result(code, _text(out), _text(err))

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


def _stream(like: TextIO | None) -> io.TextIOWrapper:
    """A text stream over bytes that encodes as `like` (this interpreter's own stdout or stderr, set up as a
    child's would be) does: what bench-op prints reaches the test as it would through a pipe."""
    errors = getattr(like, "errors", None) or "strict"
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors=errors, write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    data = stream.buffer.getvalue()  # type: ignore[attr-defined]  # a BytesIO, made by _stream
    # decoded with universal newlines, as `subprocess.run(text=True)` decodes a program's output
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=None).read()


def run_json(
    repo: Repo, tmp_path: Path, *args: str, timeout: float = 300
) -> tuple[subprocess.CompletedProcess[str], dict]:
    """`bench-op run --json` as a program: its result and the JSON report ({} when it wrote none)."""
    out = tmp_path / "run.json"
    r = repo.bench_op("run", "--json", str(out), *args, timeout=timeout)
    return r, json.loads(out.read_text()) if out.exists() else {}


def make_repo(dest: Path, *, python: str | None = sys.executable) -> Repo:
    """The fixture library, committed in a new repository at `dest`; its benchmarks run with `python`."""
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


def files_repo(dest: Path, files: Mapping[str, str]) -> Repo:
    """A repository of just `files` (path -> text), committed: for the tests of the git layer itself."""
    dest.mkdir(parents=True)
    repo = Repo(dest)
    for rel, text in files.items():
        repo.write(rel, text)
    repo.git("init", "-q", "-b", "main")
    repo.commit("initial")
    return repo
