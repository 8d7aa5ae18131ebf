"""Running the benchmarks at another commit, in a temporary worktree (`git worktree add --detach`).

The user's working tree, index and stash are never touched: the parent's files are checked out in a
directory of their own (hooks off), and the worktree is removed afterwards whatever happens (a
failure, a timeout, Ctrl-C). Also: which numbers a pytest session produced, per node id, and the
facts a record needs about the interpreter and the device.
"""

from __future__ import annotations

import ast
import json
import os
import platform
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from benchop_hook.git import repo as gitrepo
from benchop_hook.records.baseline import Key
from benchop_hook.run.measurements import for_case
from benchop_hook.run.runner import Interpreter, RunResult


@contextmanager
def temporary_worktree(root: str, git_dir: str, commit: str) -> Iterator[str]:
    """A detached checkout of `commit` in a temporary directory, removed on the way out."""
    path = tempfile.mkdtemp(prefix="bench-op-parent-")
    no_hooks = os.path.join(git_dir, "bench-op", "no-hooks")
    os.makedirs(no_hooks, exist_ok=True)  # a post-checkout hook must not run for bench-op's own checkout
    added = False
    try:
        gitrepo.add_worktree(root, path, commit, hooks=no_hooks)
        added = True
        yield path
    finally:
        if added:
            gitrepo.remove_worktree(root, path)
        shutil.rmtree(path, ignore_errors=True)


def samples_of(res: RunResult) -> dict[Key, tuple[float, str]]:
    """The numbers of every passed case of one session, by (node id, name)."""
    out: dict[Key, tuple[float, str]] = {}
    for t in res.tests:
        if t.outcome != "passed":
            continue
        path, _, case = t.nodeid.partition("::")
        for n in for_case(case, t.properties, t.stdout):
            out.setdefault((f"{path}::{case}", n.name), (n.value, n.unit))
    if res.benchmark_json:
        try:
            doc = json.loads(res.benchmark_json)
        except ValueError:
            doc = {}
        for b in doc.get("benchmarks", []):
            median = (b.get("stats") or {}).get("median")
            if isinstance(median, (int, float)) and b.get("fullname"):
                out.setdefault((str(b["fullname"]), "latency"), (median * 1e3, "ms"))
    return out


def top_level_names(source: bytes | None) -> set[str] | None:
    """Functions and classes at module level; None when the file is missing or does not parse."""
    if source is None:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def node_exists(nodeid: str, names: set[str] | None) -> bool:
    """Could `path::func[params]` (or `path::Class::test`) exist in a file defining `names`?"""
    if names is None:
        return False
    parts = nodeid.split("::")
    if len(parts) == 1:
        return True
    return parts[1].split("[", 1)[0] in names


def read_at(root: str, commit: str, path: str) -> bytes | None:
    return gitrepo.read_blob(root, commit, path)


def targets_at(root: str, commit: str, targets: Sequence[str]) -> list[str]:
    """The targets (files or node ids) that exist at `commit`."""
    names: dict[str, set[str] | None] = {}
    out = []
    for t in targets:
        path = t.split("::", 1)[0]
        if path not in names:
            names[path] = top_level_names(read_at(root, commit, path))
        if node_exists(t, names[path]) and t not in out:
            out.append(t)
    return out


def describe_interpreter(interp: Interpreter) -> tuple[str | None, str]:
    """(torch version, "path (Python x.y.z)") of the benchmark interpreter, without importing torch."""
    code = (
        "import sys, importlib.metadata as m\n"
        "try:\n    t = m.version('torch')\nexcept Exception:\n    t = ''\n"
        "print(t)\nprint(sys.version.split()[0])"
    )
    try:
        proc = subprocess.run(
            [interp.path, "-c", code],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
            env=gitrepo.clean_env(),
        )
        torch, version = [*proc.stdout.splitlines(), "", ""][:2]
    except (OSError, subprocess.TimeoutExpired):
        torch, version = "", ""
    return (torch or None), f"{interp.path} (Python {version or '?'})"


def device_model(device: str | None) -> str:
    """The GPU model as torch names it, or the CPU's model name: the key numbers are matched on."""
    if device and device.lower() != "cpu":
        return device
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"CPU ({model or platform.processor() or platform.machine()})"
