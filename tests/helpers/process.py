"""The processes the tests start, and bench-op when a test runs it in this process: git isolated from the
machine's configuration, and nothing in their environment of the pytest session that runs the tests."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Kernel Dev",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "Kernel Dev",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TEMPLATE_DIR": "",
}

# Left by the session running the tests (pytest, pytest-xdist, pytest-cov), and read by the pytest sessions
# the tests start, directly or through bench-op, as their own: PYTEST_XDIST_WORKER makes a session think it
# is a worker (bench-op's plugin then writes its results to a file bench-op does not read), PYTEST_ADDOPTS
# and PYTEST_PLUGINS add the outer session's options and plugins, COV_* starts coverage in every child.
SESSION_PREFIXES = ("PYTEST_", "COV_")


def isolate_git(home: Path) -> None:
    """This process's git, and every child's: a fixed identity, an empty template, no system or user
    configuration but `home`'s, and none of a hook's variables."""
    os.environ.update(GIT_ENV)
    os.environ["HOME"] = str(home)
    os.environ["GIT_CONFIG_GLOBAL"] = str(home / ".gitconfig")
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n")
    for k in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"):
        os.environ.pop(k, None)


# The benchmark sessions the tests start share the machine's cores with the other xdist workers and their
# own sessions: one torch thread each (a pool of them contends, and its idle threads spin: about 0.4 s of
# CPU per session here), unless the environment or the test asks for more.
_ONE_THREAD = {"OMP_NUM_THREADS": "1"}


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without the test session's variables, plus `extra`. The interpreter's
    `bin` leads PATH, as in a shell where this bench-op is installed: its hints then say `bench-op`."""
    env = {**_ONE_THREAD, **{k: v for k, v in os.environ.items() if not k.startswith(SESSION_PREFIXES)}}
    env["PATH"] = os.pathsep.join((os.path.dirname(sys.executable), env.get("PATH", os.defpath)))
    env.update(extra or {})
    return env


def default_sigint() -> None:
    """For `preexec_fn`: a child that a test interrupts must see SIGINT even when the tests were started
    with it ignored (a background job of a shell does), since Python then never installs its handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextlib.contextmanager
def as_a_process(cwd: Path, extra: Mapping[str, str] | None = None) -> Iterator[None]:
    """In `cwd`, with the environment a child would get, and this process's state put back afterwards:
    the working directory, the environment, and the SIGTERM handler `bench-op` installs."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_term = signal.getsignal(signal.SIGTERM)
    os.chdir(cwd)
    env = child_env(extra)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
        signal.signal(signal.SIGTERM, saved_term)


def run(
    args: Sequence[str],
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    timeout: float | None = 900,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`args` as a real process in `cwd`, with `child_env(env)`, its output captured as text."""
    return subprocess.run(
        list(args), cwd=cwd, env=child_env(env), capture_output=True, text=True, timeout=timeout, check=check
    )


def popen(
    args: Sequence[str],
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    stderr: int | None = subprocess.PIPE,
) -> subprocess.Popen[str]:
    """`args` started in `cwd` with `child_env(env)`, its output piped as text, ready to be interrupted."""
    return subprocess.Popen(
        list(args),
        cwd=cwd,
        env=child_env(env),
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        preexec_fn=default_sigint,
    )


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie is dead for our purposes)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False
