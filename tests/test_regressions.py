"""Cases a review found, kept as tests: helpers under benchmarks/, the user's staged work, names that only
look in scope, defaults that need an import, two calls on a line, comments in multi-line calls, CRLF
checkouts."""

from __future__ import annotations

import pytest

from conftest import Repo, reduction_change

BENCH_RED = "benchmarks/ops/bench_reduction.py"


def _commit_change(repo: Repo) -> None:
    reduction_change(repo)
    repo.commit("reduce: rows come from the input")


HELPER_SPLAT = (
    "from minitile.ops import MeanFwdOp\n\n\ndef build_mean(**params):\n    return MeanFwdOp(**params)\n"
)


@pytest.mark.parametrize("numbers", [True, False])
def test_a_helper_fixed_from_a_traceback_stands_or_falls_with_its_benchmark(
    repo: Repo, numbers: bool
) -> None:
    repo.write("benchmarks/common.py", HELPER_SPLAT)
    repo.write(
        "benchmarks/ops/bench_helper.py",
        (
            "import torch\nfrom benchmarks.benchmark import report\nfrom benchmarks.common import "
            "build_mean\n\n\n"
            "from minitile.ops import SumFwdOp\n\n\ndef test_helper(record_property):\n"
            "    SumFwdOp(64, 256, torch.float32)\n    build_mean(M=64, N=256, dtype=torch.float32)\n"
            + ("    report(record_property, 'x', 0.5)\n" if numbers else "    pass\n")
        ),
    )
    repo.commit("a helper")
    _commit_change(repo)
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "benchmarks/ops/bench_helper.py")
    if numbers:
        assert r.returncode == 0, r.stdout + r.stderr
        assert sorted(repo.git("show", "--format=", "--name-only", "HEAD").split()) == [
            "benchmarks/common.py",
            "benchmarks/ops/bench_helper.py",
        ]
        assert repo.git("status", "--porcelain") == ""
    else:
        assert r.returncode == 1
        assert repo.log()[0] == "reduce: rows come from the input"
        assert repo.git("status", "--porcelain") == "", (
            "the helper was put back along with the blocked benchmark"
        )


def test_a_helper_without_tests_is_checked_through_its_importers(repo: Repo) -> None:
    repo.write(
        "benchmarks/factories.py",
        "import torch\nfrom minitile.ops import SumFwdOp\n\n\ndef make_sum(M, N):\n    return SumFwdOp(M, "
        "N, torch.float32)\n",
    )
    repo.write(
        "benchmarks/ops/bench_factory.py",
        (
            "from benchmarks.benchmark import report\nfrom benchmarks.factories import make_sum\n\n\n"
            "def test_factory(record_property):\n    make_sum(64, 256)\n    report(record_property, 'x', "
            "0.5)\n"
        ),
    )
    repo.commit("a factory")
    _commit_change(repo)
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "benchmarks/factories.py: fixed; checked through benchmarks/ops/bench_factory.py" in r.stdout
    assert "benchmarks/factories.py" in repo.git("show", "--format=", "--name-only", "HEAD").split()
    assert "return SumFwdOp(N, torch.float32)" in repo.git("show", "HEAD:benchmarks/factories.py")


def test_a_benchmark_staged_for_removal_is_left_alone(repo: Repo) -> None:
    _commit_change(repo)
    repo.git("rm", "-q", "--cached", BENCH_RED)
    status = repo.git("status", "--porcelain")
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run")
    assert r.returncode == 1 and "staged for removal" in r.stdout
    assert repo.log()[0] == "reduce: rows come from the input"
    assert repo.git("status", "--porcelain") == status
    assert "Traceback" not in r.stderr


SCOPES = """import torch
from minitile.ops import SumFwdOp


class TestSum:
    dim = -1

    def test_class_attr(self):
        SumFwdOp(64, 256, torch.float32)


def test_comprehension():
    dims = [dim for dim in (0, 1)]
    SumFwdOp(64, 256, torch.float32)


def test_later_loop():
    SumFwdOp(64, 256, torch.float32)
    for dim in (0, 1):
        pass


def test_later_unpack():
    SumFwdOp(64, 256, torch.float32)
    dim, k = divmod(7, 2)


def test_earlier_loop():
    for dim in (0, 1):
        SumFwdOp(64, 256, torch.float32)
"""


def test_only_names_really_in_scope_are_evidence(repo: Repo) -> None:
    repo.write("benchmarks/ops/bench_scope.py", SCOPES)
    repo.commit("scopes")
    repo.replace(
        "src/minitile/ops/reduction.py",
        "def __init__(self, M, N, dtype, tune=False):",
        "def __init__(self, M, N, dtype, dim, tune=False):",
    )
    repo.git("add", "-A")
    repo.bench_op("fix")
    text = repo.read("benchmarks/ops/bench_scope.py")
    assert text.count("dim=dim") == 1 and "        SumFwdOp(64, 256, torch.float32, dim=dim)\n" in text


def test_a_default_that_needs_an_import_is_not_pinned(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/reduction.py",
        "import torch\n",
        "import enum\n\nimport torch\n\n\nclass Layout(enum.Enum):\n    ROW = 0\n    COL = 1\n",
    )
    repo.replace(
        "src/minitile/ops/reduction.py",
        "def __init__(self, M, N, dtype, tune=False):",
        "def __init__(self, M, N, dtype, tune=False, layout=Layout.ROW):",
    )
    repo.commit("layouts")
    repo.replace("src/minitile/ops/reduction.py", "layout=Layout.ROW):", "layout=Layout.COL):")
    repo.git("add", "-A")
    before = repo.read(BENCH_RED)
    r = repo.bench_op("fix")
    assert r.returncode == 1
    assert "not pinned: Layout is not imported in the benchmark; pin layout=Layout.ROW by hand" in r.stdout
    assert repo.read(BENCH_RED) == before


def test_the_splatted_dict_of_the_right_call_is_edited(repo: Repo) -> None:
    repo.write(
        "benchmarks/ops/bench_dicts.py",
        (
            "import torch\nfrom benchmarks.benchmark import time_ms\nfrom minitile.ops import SumFwdOp\n\n\n"
            "def test_two_calls_one_line():\n    x = torch.randn(64, 256)\n    timing = {'iters': 5}\n"
            "    cfg = {'M': 64, 'N': 256, 'dtype': torch.float32}\n    ms = time_ms(SumFwdOp(**cfg), x, "
            "**timing)\n"
        ),
    )
    repo.commit("dicts")
    repo.replace(
        "src/minitile/ops/reduction.py",
        "def __init__(self, M, N, dtype, tune=False):",
        "def __init__(self, M, N, dtype, tune=True):",
    )
    repo.git("add", "-A")
    repo.bench_op("fix")
    text = repo.read("benchmarks/ops/bench_dicts.py")
    assert "timing = {'iters': 5}\n" in text
    assert "cfg = {'M': 64, 'N': 256, 'dtype': torch.float32, 'tune': False}" in text


MULTI = """import torch
from minitile.ops import SumFwdOp


def test_multi():
    op = SumFwdOp(
        64,  # M: rows
        256,  # N: columns
        torch.float32,  # dtype
    )
"""


def test_comments_stay_with_their_arguments(repo: Repo) -> None:
    repo.write("benchmarks/ops/bench_multi.py", MULTI)
    repo.commit("multi-line")
    reduction_change(repo)
    repo.git("add", "-A")
    repo.bench_op("fix")
    assert repo.read("benchmarks/ops/bench_multi.py") == MULTI.replace("        64,  # M: rows\n", "")


def test_crlf_checkout_is_committed_with_a_clean_tree(repo: Repo) -> None:
    repo.git("config", "core.autocrlf", "true")
    repo.git("rm", "-q", "-r", "--cached", ".")
    repo.git("reset", "-q", "--hard")  # check everything out again, with CRLF
    assert b"\r\n" in (repo.path / BENCH_RED).read_bytes()
    _commit_change(repo)
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run")
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.log()[0].startswith("bench-op: align")
    assert b"\r\n" not in repo.git("show", f"HEAD:{BENCH_RED}").encode()
    assert repo.git("status", "--porcelain") == ""
