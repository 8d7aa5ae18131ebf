"""The follow-up commit (followup/): its message names only the Ops behind its files, stays short and says
where the rest is, and a CRLF checkout is committed with a clean tree."""

from __future__ import annotations

import json

from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def test_follow_up_message_names_only_the_ops_behind_its_files(repo: Repo) -> None:
    # two Op changes; only the reduction's reaches a benchmark file
    reduction_change(repo)
    repo.write(
        "src/minitile/ops/unused.py",
        "from minitile.ops.op import Op\n\n\nclass LonelyOp(Op):\n"
        "    def __init__(self, a, b):\n        pass\n",
    )
    repo.commit("add an Op no benchmark builds")
    repo.replace("src/minitile/ops/unused.py", "def __init__(self, a, b):", "def __init__(self, b):")
    repo.git("reset", "-q", "--soft", "HEAD~1")
    repo.commit("reduce: rows from the input; LonelyOp loses a")
    r = repo.cli("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run")
    assert r.returncode == 0, r.stdout + r.stderr
    message = repo.git("log", "-1", "--format=%B")
    assert message.splitlines()[0] == "bench-op: align bench_reduction.py with the new ReduceOp interface"
    assert "LonelyOp" not in message and "ReduceOp(M, N, dtype, tune=False)" in message
    assert "not run (not run" not in message and "Not run here (--no-run)" in message


def test_follow_up_message_is_bounded_and_says_where_the_rest_is(repo: Repo) -> None:
    calls = "".join(f"    SumFwdOp({i + 1}, 8, torch.float32)\n" for i in range(60))
    repo.write(
        "benchmarks/ops/bench_many.py",
        f"import torch\n\nfrom minitile.ops import SumFwdOp\n\n\ndef test_many():\n{calls}",
    )
    repo.commit("a benchmark with many calls")
    reduction_change(repo)
    repo.commit("reduce: rows from the input")
    r = repo.cli("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run")
    assert r.returncode == 0, r.stdout + r.stderr
    message = repo.git("log", "-1", "--format=%B").strip().splitlines()
    assert len(message) <= 45, message
    more = next(line for line in message if "more lines" in line)
    report = more.rsplit(" in ", 1)[1]
    assert report.startswith(".git/bench-op/reports/") and (repo.path / report).exists(), more
    data = json.loads((repo.path / report).read_text())
    assert sum(len(b["fixes"]) for b in data["benchmarks"]) == 63  # 60 here, 3 in bench_reduction.py


def _commit_change(repo: Repo) -> None:
    reduction_change(repo)
    repo.commit("reduce: rows come from the input")


def test_crlf_checkout_is_committed_with_a_clean_tree(repo: Repo) -> None:
    repo.git("config", "core.autocrlf", "true")
    repo.git("rm", "-q", "-r", "--cached", ".")
    repo.git("reset", "-q", "--hard")  # check everything out again, with CRLF
    assert b"\r\n" in (repo.path / BENCH_RED).read_bytes()
    _commit_change(repo)
    r = repo.cli("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run")
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.log()[0].startswith("bench-op: align")
    assert b"\r\n" not in repo.git("show", f"HEAD:{BENCH_RED}").encode()
    assert repo.git("status", "--porcelain") == ""
