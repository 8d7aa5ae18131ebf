"""The follow-up commit (followup/): a CRLF checkout is committed with a clean tree."""

from __future__ import annotations

from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo

BENCH_RED = "benchmarks/ops/bench_reduction.py"


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
