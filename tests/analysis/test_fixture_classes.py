"""Parameters from fixture classes (`@SomeFixture` whose class holds `PARAMS = [(names, rows)]`) and from
module-level helpers that return the parametrize list: Op classes reach `op_cls(...)` through them.

The change is the fixture library's `ReduceOp(M, N, dtype, tune=False)` -> `ReduceOp(N, dtype, dim=-1, *,
tune=False)`.
"""

from __future__ import annotations

import pytest

from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo

HEAD = (
    "import pytest\nimport torch\nfrom minitile.ops import SumFwdOp, MeanFwdOp, AmaxFwdOp\n\n\n"
    "class FixtureBase:\n    PARAMS = []\n\n\n"
)


CALL = "def test_x(kind, m, n, op_cls):\n    op = op_cls(M=m, N=n, dtype=torch.float32)\n"


# (id, benchmark source): each must find `op_cls(M=m, ...)` reached by the reductions and rewrite it.
FOUND = [
    (
        "params-of-pytest-param-rows",
        HEAD + 'class RedFixture(FixtureBase):\n    PARAMS = [("kind, m, n, op_cls", [\n'
        "        pytest.param('sum', 8, 16, SumFwdOp, marks=pytest.mark.smoke),\n"
        "        pytest.param('mean', 8, 16, MeanFwdOp),\n    ])]\n\n\n@RedFixture\n" + CALL,
    ),
    (
        "params-of-tuples-in-a-subclass",
        HEAD + "class RedFixture(FixtureBase):\n    PARAMS = [(\"kind, m, n, op_cls\", [('sum', 8, 16, "
        "SumFwdOp), ('amax', 8, 16, AmaxFwdOp)])]\n\n\n"
        "class SmallRedFixture(RedFixture):\n    pass\n\n\n@SmallRedFixture\n" + CALL,
    ),
    (
        "get-params-classmethod",
        HEAD + "class RedFixture(FixtureBase):\n    @classmethod\n    def get_params(cls):\n"
        "        rows = [('sum', 8, 16, SumFwdOp)]\n        return [(\"kind, m, n, op_cls\", "
        "rows)]\n\n\n@RedFixture\n" + CALL,
    ),
    (
        "helper-returns-an-appended-list",
        HEAD + "def _rows():\n    out = []\n    for cls in (SumFwdOp, MeanFwdOp):\n        pass\n"
        "    out.append(pytest.param('sum', 8, 16, SumFwdOp, marks=pytest.mark.smoke))\n"
        "    out += [('mean', 8, 16, MeanFwdOp)]\n    return out\n\n\n"
        '@pytest.mark.parametrize("kind, m, n, op_cls", _rows())\n' + CALL,
    ),
    (
        "fixture-over-a-helper",
        HEAD + "def _rows():\n    return [('sum', 8, 16, SumFwdOp), ('mean', 8, 16, MeanFwdOp)]\n\n\n"
        'class RedFixture(FixtureBase):\n    PARAMS = [("kind, m, n, op_cls", _rows())]\n\n\n@RedFixture\n'
        + CALL,
    ),
]


# (id, benchmark source): nothing can be claimed about these calls.
UNTOUCHED = [
    (
        "star-in-a-row-hides-later-positions",
        HEAD + 'SHAPE = (8, 16)\n\n\nclass RedFixture(FixtureBase):\n    PARAMS = [("kind, m, n, op_cls", '
        "[pytest.param('sum', *SHAPE, SumFwdOp)])]\n\n\n"
        "@RedFixture\n" + CALL,
    ),
    (
        "imported-fixture-class-is-not-read",
        "import torch\nfrom benchmarks.fixtures import RedFixture\n\n\n@RedFixture\n" + CALL,
    ),
    ("a-decorator-that-is-no-fixture", HEAD + "def plain(fn):\n    return fn\n\n\n@plain\n" + CALL),
]


@pytest.mark.parametrize("source", [s for _, s in FOUND], ids=[i for i, _ in FOUND])
def test_classes_reach_op_cls_through_fixtures(repo: Repo, source: str) -> None:
    repo.write("benchmarks/ops/bench_fixture.py", source)
    repo.commit("a fixture benchmark")
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "benchmarks/ops/bench_fixture.py:" in r.stdout, r.stdout
    assert "fix: op_cls(N=n, dtype=torch.float32)" in r.stdout, r.stdout
    assert "[reached through parametrize]" in r.stdout


@pytest.mark.parametrize("source", [s for _, s in UNTOUCHED], ids=[i for i, _ in UNTOUCHED])
def test_what_fixtures_do_not_show_is_left_alone(repo: Repo, source: str) -> None:
    repo.write("benchmarks/fixtures.py", "class RedFixture:\n    PARAMS = []\n")
    repo.write("benchmarks/ops/bench_fixture.py", source)
    repo.commit("a fixture benchmark")
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("check")
    # the check ran and saw the change (an empty or failed report would leave any file alone)
    assert r.returncode == 1 and "fix: SumFwdOp(N, dtype)" in r.stdout, r.stdout + r.stderr
    assert "benchmarks/ops/bench_fixture.py:" not in r.stdout or "fix: op_cls" not in r.stdout, r.stdout


def test_all_files_finds_a_wrong_call_through_a_fixture(repo: Repo) -> None:
    repo.write("benchmarks/ops/bench_fixture.py", FOUND[0][1].replace("M=m, N=n", "M=m, N=n, K=4"))
    repo.commit("a broken fixture benchmark")
    r = repo.cli("check", "--all-files")
    assert r.returncode == 1
    assert (
        "bench_fixture.py:19: op_cls(M=m, N=n, K=4, dtype=torch.float32): TypeError: got an unexpected "
        "keyword argument 'K'" in r.stdout
    )
