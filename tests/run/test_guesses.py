"""A fix that rests on induction (the commit's tests as a template, a constant they pass) lands only once a
run gave numbers with it; where nothing runs it is a proposal: the file as it was, the fix in a patch."""

from __future__ import annotations

from pathlib import Path

from tests.fixing.test_never_wrong import BENCH_NORM, NORM_SHAPE
from tests.helpers.repo import Repo, run_json


def _template_change(repo: Repo) -> None:
    repo.replace("src/minitile/ops/norm.py", *NORM_SHAPE)
    repo.replace("src/minitile/ops/norm.py", "(self.M, self.hidden)", "(x.shape[0], self.hidden)")
    repo.replace(
        "tests/ops/test_norm.py",
        "RMSNormOp(4, 64, torch.float32, eps=1e-6)",
        "RMSNormOp((64,), torch.float32, eps=1e-6)",
    )
    repo.commit("norm: the shape, not M and hidden")


def test_a_guess_is_a_proposal_where_nothing_runs(repo: Repo, tmp_path: Path) -> None:
    _template_change(repo)
    before = repo.read(BENCH_NORM)
    r, data = run_json(repo, tmp_path, "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run", "--no-commit")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "a guess from the commit's tests" in r.stdout, r.stdout
    (norm,) = [b for b in data["benchmarks"] if b["path"] == BENCH_NORM]
    assert norm["status"] == "not-run" and "a proposal" in norm["reason"], norm
    assert repo.read(BENCH_NORM) == before, "a guess never lands without numbers"
    patch = Path(norm["patch"])
    assert "normalized_shape=(hidden,)" in patch.read_text()
    repo.git("apply", "--check", str(patch))


def test_a_guess_that_ran_with_numbers_lands(repo: Repo, tmp_path: Path) -> None:
    _template_change(repo)
    r, data = run_json(repo, tmp_path, "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-commit")
    (norm,) = [b for b in data["benchmarks"] if b["path"] == BENCH_NORM]
    assert r.returncode == 0, r.stdout + r.stderr
    assert norm["status"] == "passed" and norm["numbers"], norm
    assert "RMSNormOp(normalized_shape=(hidden,), dtype=torch.float32)" in repo.read(BENCH_NORM)
