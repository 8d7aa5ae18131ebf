"""An idiom of real op commits, in a small repository written for the test.

A call that splats a dict bench-op can't see, `XOp(dtype=dtype, **params)`, once `dtype` left the
constructor: the explicit keyword fails whatever the dict holds, so it is dropped (the same evidence rules
as without the splat) and the rest is left to the run; nothing changes when the explicit arguments may
still bind.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_evidence_idioms import fix, make

from conftest import Repo

# -- an explicit keyword next to an opaque splat -----------------------------------------------------

CUMSUM_OLD = ("from .op import Op\n\n\nclass CumsumOp(Op):\n"
              "    def __init__(self, dim=-1, reverse=False, dtype=None{extra}):\n        self.dim = dim\n")
CUMSUM_NEW = ("from .op import Op\n\n\nclass CumsumOp(Op):\n"
              "    def __init__(self, dim=-1, reverse=False{extra}):\n        self.dim = dim\n")
SPLAT_BENCH = ("import pytest\n\nfrom kern.ops.cumsum import CumsumOp\n\n\n"
               "@pytest.mark.parametrize('params', [{{'dim': 0}}, {{'reverse': True}}])\n"
               "def test_bench(params, dtype='f16'):\n    op = CumsumOp({args}**params)\n    assert op\n")


def _splat_repo(tmp_path: Path, args: str, *, new_extra: str = "", old_extra: str = "") -> Repo:
    repo = make(tmp_path, {"src/kern/ops/cumsum.py": CUMSUM_OLD.format(extra=old_extra),
                           "benchmarks/bench_cumsum.py": SPLAT_BENCH.format(args=args)})
    repo.write("src/kern/ops/cumsum.py", CUMSUM_NEW.format(extra=new_extra))
    repo.commit("read dtype from the input")
    return repo


def test_a_removed_keyword_next_to_an_opaque_splat_is_dropped_and_the_rest_left_to_the_run(tmp_path: Path) -> None:
    repo = _splat_repo(tmp_path, "dtype=dtype, ")
    rc, out, data = fix(repo)
    assert rc == 0, out
    assert "op = CumsumOp(**params)\n" in repo.read("benchmarks/bench_cumsum.py"), out
    (f,) = data["findings"]
    assert f["status"] == "broken" and f["fixed"]
    assert f["problem"] == "TypeError: got an unexpected keyword argument 'dtype', whatever **params holds"
    assert f["notes"] == ["dropped dtype ('dtype' was removed)"]
    assert any("the rest is unknown: the run decides (**params: a parameter (from pytest parametrize))" in n
               for n in f["info"])
    assert "1 of them also pass *args/**kwargs: what those bind is unknown: the run decides" in out


def test_nothing_changes_when_the_explicit_arguments_may_still_bind(tmp_path: Path) -> None:
    # The constructor takes **kwargs now: `dtype=dtype` may bind, so only the run can tell.
    repo = _splat_repo(tmp_path, "dtype=dtype, ", new_extra=", **kwargs")
    _, out, data = fix(repo)
    assert repo.read("benchmarks/bench_cumsum.py") == SPLAT_BENCH.format(args="dtype=dtype, ")
    (f,) = data["findings"]
    assert f["status"] == "unknown" and not f["fixed"], out


def test_a_choice_next_to_an_opaque_splat_is_reported_not_dropped(tmp_path: Path) -> None:
    # `reverse` left the constructor with no home for `reverse=True`: a choice, never dropped silently.
    repo = make(tmp_path, {"src/kern/ops/cumsum.py": CUMSUM_OLD.format(extra=""),
                           "benchmarks/bench_cumsum.py": SPLAT_BENCH.format(args="reverse=True, ")})
    repo.write("src/kern/ops/cumsum.py", CUMSUM_OLD.format(extra="").replace("reverse=False, ", ""))
    repo.commit("reverse moved to a config")
    rc, out, data = fix(repo)
    assert rc == 1
    assert repo.read("benchmarks/bench_cumsum.py") == SPLAT_BENCH.format(args="reverse=True, ")
    (f,) = data["findings"]
    assert f["status"] == "broken" and not f["fixed"]
    assert "a choice the new signature has no 'reverse' for" in f["why_not"], out


NORM_BWD_OLD = ("from .op import Op\n\n\nclass NormBwdOp(Op):\n"
                "    def __init__(self, rows, cols, *extent, dtype='f16', tune=False):\n        self.tune = tune\n")
NORM_BWD_NEW = ("from .op import Op\n\n\nclass NormBwdOp(Op):\n"
                "    def __init__(self, *, tune=False):\n        self.tune = tune\n")
NORM_BENCH = ("import pytest\n\nfrom kern.ops.norm import NormBwdOp\n\n\n"
              "@pytest.mark.parametrize('rows, cols, extent', [(2, 4, (8,)), (2, 4, (8, 8))])\n"
              "def test_bench(rows, cols, extent, dtype='f16'):\n    op = NormBwdOp({args})\n    assert op\n")


@pytest.mark.parametrize("args", ["rows, cols, *extent, dtype=dtype", "rows, cols, dtype=dtype, *extent"])
def test_a_star_splat_that_filled_a_removed_star_parameter_goes_with_it(tmp_path: Path, args: str) -> None:
    # Every item of *extent filled the old *extent (rows and cols took the positional slots): it is gone.
    # Written after the keyword too (legal Python): the edit finds each argument where the source has it.
    repo = make(tmp_path, {"src/kern/ops/norm.py": NORM_BWD_OLD,
                           "benchmarks/bench_norm.py": NORM_BENCH.format(args=args)})
    repo.write("src/kern/ops/norm.py", NORM_BWD_NEW)
    repo.commit("shapes from the inputs")
    rc, out, data = fix(repo)
    assert rc == 0, out
    assert "op = NormBwdOp()\n" in repo.read("benchmarks/bench_norm.py"), out
    (f,) = data["findings"]
    assert f["fixed"] and not f["info"]  # nothing is left to the run: the call has no splat any more


def test_a_star_splat_whose_slots_would_move_is_left_to_the_run(tmp_path: Path) -> None:
    # *dims fills `cols` and what follows; `cols` is gone, so what *dims reaches would change: the run decides.
    repo = make(tmp_path, {"src/kern/ops/norm.py": NORM_BWD_OLD.replace("*extent, ", ""),
                           "benchmarks/bench_norm.py": NORM_BENCH.format(args="rows, *extent, dtype=dtype")})
    repo.write("src/kern/ops/norm.py", NORM_BWD_OLD.replace("cols, *extent, ", ""))
    repo.commit("cols from the input")
    _, out, data = fix(repo)
    assert repo.read("benchmarks/bench_norm.py") == NORM_BENCH.format(args="rows, *extent, dtype=dtype")
    (f,) = data["findings"]
    assert f["status"] == "unknown" and not f["fixed"], out


# -- a block of parameters renamed slot for slot -------------------------------------------------------

def test_a_block_of_slot_for_slot_renames_is_not_an_insertion() -> None:
    from benchop_hook.edits import EditKind, diff
    from benchop_hook.signatures import Kind, Param, Signature

    def sig(*names: str) -> Signature:
        return Signature(tuple(Param(n, Kind.POSITIONAL_OR_KEYWORD) for n in names))

    renames = {e.name: e.new_name for e in diff(sig("n", "d_in", "h_in", "w_in", "c"), sig("n", "d", "h", "w", "c"))
               if e.kind is EditKind.RENAMED}
    assert renames == {"d_in": "d", "h_in": "h", "w_in": "w"}
    # One old parameter, two new ones before the next survivor: the slot can't say which is its rename.
    edits = diff(sig("numel", "e", "b"), sig("tokens", "top_k", "e", "b"))
    assert [e.contested for e in edits if e.kind is EditKind.REMOVED] == ["tokens"]
