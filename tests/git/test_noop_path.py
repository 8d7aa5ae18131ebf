"""GitPython is imported only once there is work: a commit that changes no Op never loads it, at either hook
stage (each stage runs as the hook runs it, in a process of its own)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.helpers.kern import make
from tests.helpers.process import run
from tests.helpers.repo import Repo

OP = "from kern.ops.op import Op\n\n\nclass AddOp(Op):\n    def __init__(self, n, dtype):\n        pass\n"
BENCH = "from kern.ops.add import AddOp\n\n\ndef test_add():\n    AddOp(4, 'f32')\n"


def bench_op(repo: Repo, *args: str) -> tuple[int, list[str], str]:
    """Exit code, the heavy modules the process loaded, and its output."""
    code = (
        "import sys; from benchop_hook.cli import main; rc = main(sys.argv[1:]); "
        "print('LOADED', *[m for m in ('git', 'libcst', 'torch') if m in sys.modules]); sys.exit(rc)"
    )
    proc = run([sys.executable, "-c", code, *args], repo.path)
    loaded = next(ln for ln in proc.stdout.splitlines() if ln.startswith("LOADED"))
    return proc.returncode, loaded.split()[1:], proc.stdout + proc.stderr


def test_a_commit_that_changes_no_op_never_imports_gitpython(tmp_path: Path) -> None:
    repo = make(
        tmp_path, {"src/kern/ops/add.py": OP, "benchmarks/bench_add.py": BENCH, "README.md": "# kern\n"}
    )
    repo.write("README.md", "# kern\n\nMore words.\n")
    repo.git("add", "README.md")
    assert bench_op(repo, "hook", "pre-commit", "README.md")[:2] == (0, [])
    repo.git("commit", "-q", "-m", "docs")
    assert bench_op(repo, "hook", "follow-up")[:2] == (0, [])
    # The same process with an Op change does load it (the checks above can fail).
    repo.replace("src/kern/ops/add.py", "(self, n, dtype)", "(self, n, dtype, dim)")
    repo.git("add", "-A")
    rc, loaded, out = bench_op(repo, "fix", "--diff")
    assert rc == 1 and "git" in loaded and "AddOp(n, dtype) -> AddOp(n, dtype, dim)" in out, out
