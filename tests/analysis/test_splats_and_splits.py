"""Two idioms of real op commits, each in a small repository written for the test.

A call that splats a dict bench-op can't see, `XOp(dtype=dtype, **params)`, once `dtype` left the
constructor: the explicit keyword fails whatever the dict holds, so it is dropped (the same evidence rules
as without the splat) and the rest is left to the run; nothing changes when the explicit arguments may
still bind. And an Op split on a choice, `ConvOp(..., bias=True)` -> `ConvFwdOp` / `ConvBiasFwdOp`: the
call that carries the choice goes to the class the commit built for it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.kern import fix, make
from tests.helpers.repo import Repo

# -- an explicit keyword next to an opaque splat -----------------------------------------------------

CUMSUM_OLD = (
    "from .op import Op\n\n\nclass CumsumOp(Op):\n"
    "    def __init__(self, dim=-1, reverse=False, dtype=None{extra}):\n        self.dim = dim\n"
)


# The new class reads the dtype from its input: dropping the old `dtype=` loses nothing (were nothing in the
# class to name it, the value would be a hand edit, with a splat beside it or not).
CUMSUM_NEW = (
    "from .op import Op\n\n\nclass CumsumOp(Op):\n"
    "    def __init__(self, dim=-1, reverse=False{extra}):\n        self.dim = dim\n\n"
    "    def forward(self, x):\n        return x.cumsum(self.dim, dtype=x.dtype)\n"
)


SPLAT_BENCH = (
    "import pytest\n\nfrom kern.ops.cumsum import CumsumOp\n\n\n"
    "@pytest.mark.parametrize('params', [{{'dim': 0}}, {{'reverse': True}}])\n"
    "def test_bench(params, dtype='f16'):\n    op = CumsumOp({args}**params)\n    assert op\n"
)


def _splat_repo(tmp_path: Path, args: str, *, new_extra: str = "", old_extra: str = "") -> Repo:
    repo = make(
        tmp_path,
        {
            "src/kern/ops/cumsum.py": CUMSUM_OLD.format(extra=old_extra),
            "benchmarks/bench_cumsum.py": SPLAT_BENCH.format(args=args),
        },
    )
    repo.write("src/kern/ops/cumsum.py", CUMSUM_NEW.format(extra=new_extra))
    repo.commit("read dtype from the input")
    return repo


def test_a_removed_keyword_next_to_an_opaque_splat_is_dropped_and_the_rest_left_to_the_run(
    tmp_path: Path,
) -> None:
    repo = _splat_repo(tmp_path, "dtype=dtype, ")
    rc, out, data = fix(repo)
    assert rc == 0, out
    assert "op = CumsumOp(**params)\n" in repo.read("benchmarks/bench_cumsum.py"), out
    (f,) = data["findings"]
    assert f["status"] == "broken" and f["fixed"]
    assert f["problem"] == "TypeError: got an unexpected keyword argument 'dtype', whatever **params holds"
    assert f["notes"] == ["dropped dtype ('dtype' was removed)"]
    assert any(
        "the rest is unknown: the run decides (**params: a parameter (from pytest parametrize))" in n
        for n in f["info"]
    )
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
    repo = make(
        tmp_path,
        {
            "src/kern/ops/cumsum.py": CUMSUM_OLD.format(extra=""),
            "benchmarks/bench_cumsum.py": SPLAT_BENCH.format(args="reverse=True, "),
        },
    )
    repo.write("src/kern/ops/cumsum.py", CUMSUM_OLD.format(extra="").replace("reverse=False, ", ""))
    repo.commit("reverse moved to a config")
    rc, out, data = fix(repo)
    assert rc == 1
    assert repo.read("benchmarks/bench_cumsum.py") == SPLAT_BENCH.format(args="reverse=True, ")
    (f,) = data["findings"]
    assert f["status"] == "broken" and not f["fixed"]
    assert "a choice the new signature has no 'reverse' for" in f["why_not"], out


NORM_BWD_OLD = (
    "from .op import Op\n\n\nclass NormBwdOp(Op):\n"
    "    def __init__(self, rows, cols, *extent, dtype='f16', tune=False):\n        self.tune = tune\n"
)


NORM_BWD_NEW = (
    "from .op import Op\n\n\nclass NormBwdOp(Op):\n"
    "    def __init__(self, *, tune=False):\n        self.tune = tune\n\n"
    "    def forward(self, x):\n        return x.to(x.dtype)\n"
)


NORM_BENCH = (
    "import pytest\n\nfrom kern.ops.norm import NormBwdOp\n\n\n"
    "@pytest.mark.parametrize('rows, cols, extent', [(2, 4, (8,)), (2, 4, (8, 8))])\n"
    "def test_bench(rows, cols, extent, dtype='f16'):\n    op = NormBwdOp({args})\n    assert op\n"
)


@pytest.mark.parametrize("args", ["rows, cols, *extent, dtype=dtype", "rows, cols, dtype=dtype, *extent"])
def test_a_star_splat_that_filled_a_removed_star_parameter_goes_with_it(tmp_path: Path, args: str) -> None:
    # Every item of *extent filled the old *extent (rows and cols took the positional slots): it is gone.
    # Written after the keyword too (legal Python): the edit finds each argument where the source has it.
    repo = make(
        tmp_path,
        {"src/kern/ops/norm.py": NORM_BWD_OLD, "benchmarks/bench_norm.py": NORM_BENCH.format(args=args)},
    )
    repo.write("src/kern/ops/norm.py", NORM_BWD_NEW)
    repo.commit("shapes from the inputs")
    rc, out, data = fix(repo)
    assert rc == 0, out
    assert "op = NormBwdOp()\n" in repo.read("benchmarks/bench_norm.py"), out
    (f,) = data["findings"]
    assert f["fixed"] and not f["info"]  # nothing is left to the run: the call has no splat any more


def test_a_star_splat_whose_slots_would_move_is_left_to_the_run(tmp_path: Path) -> None:
    # *dims fills `cols` and what follows; `cols` is gone, so what *dims reaches would change: the run
    # decides.
    repo = make(
        tmp_path,
        {
            "src/kern/ops/norm.py": NORM_BWD_OLD.replace("*extent, ", ""),
            "benchmarks/bench_norm.py": NORM_BENCH.format(args="rows, *extent, dtype=dtype"),
        },
    )
    repo.write("src/kern/ops/norm.py", NORM_BWD_OLD.replace("cols, *extent, ", ""))
    repo.commit("cols from the input")
    _, out, data = fix(repo)
    assert repo.read("benchmarks/bench_norm.py") == NORM_BENCH.format(args="rows, *extent, dtype=dtype")
    (f,) = data["findings"]
    assert f["status"] == "unknown" and not f["fixed"], out


# -- a block of parameters renamed slot for slot -------------------------------------------------------


def test_a_block_of_slot_for_slot_renames_is_not_an_insertion() -> None:
    from benchop_hook.analysis.edits import EditKind, diff
    from benchop_hook.analysis.signatures import Kind, Param, Signature

    def sig(*names: str) -> Signature:
        return Signature(tuple(Param(n, Kind.POSITIONAL_OR_KEYWORD) for n in names))

    renames = {
        e.name: e.new_name
        for e in diff(sig("n", "d_in", "h_in", "w_in", "c"), sig("n", "d", "h", "w", "c"))
        if e.kind is EditKind.RENAMED
    }
    assert renames == {"d_in": "d", "h_in": "h", "w_in": "w"}
    # One old parameter, two new ones before the next survivor: the slot can't say which is its rename.
    edits = diff(sig("numel", "e", "b"), sig("tokens", "top_k", "e", "b"))
    assert [e.contested for e in edits if e.kind is EditKind.REMOVED] == ["tokens"]


# -- an Op split on a choice ---------------------------------------------------------------------------

CONV_OLD = (
    "from .op import Op\n\n\nclass PatchOp(Op):\n"
    "    def __init__(self, n, c_in, d_in, c_out, k, bias=False, dtype='f16'):\n        self.bias = bias\n"
)


CONV_NEW = (
    "from .op import Op\n\n\nclass PatchFwdOp(Op):\n"
    "    def __init__(self, n, c_in, d, c_out, k, dtype='f16', _has_bias=False):\n        self.bias = "
    "_has_bias\n\n\n"
    "class PatchBiasFwdOp(PatchFwdOp):\n"
    "    def __init__(self, n, c_in, d, c_out, k, bias=True, dtype='f16'):\n"
    "        super().__init__(n, c_in, d, c_out, k, dtype, _has_bias=True)\n"
)


CONV_TESTS_OLD = (
    "from kern.ops.patch import PatchOp\n\n\ndef test_plain():\n    assert PatchOp(1, 2, 3, 4, 1)\n\n\n"
    "def test_bias():\n    assert PatchOp(1, 2, 3, 4, 1, bias=True)\n"
)


CONV_TESTS_NEW = (
    "from kern.ops.patch import PatchBiasFwdOp, PatchFwdOp\n\n\n"
    "def test_plain():\n    assert PatchFwdOp(1, 2, 3, 4, 1)\n\n\n"
    "def test_bias():\n    assert PatchBiasFwdOp(1, 2, 3, 4, 1)\n"
)


def _split_repo(tmp_path: Path, bench: str, *, new: str = CONV_NEW) -> Repo:
    repo = make(
        tmp_path,
        {
            "src/kern/ops/patch.py": CONV_OLD,
            "tests/test_patch.py": CONV_TESTS_OLD,
            "benchmarks/bench_patch.py": bench,
        },
    )
    repo.write("src/kern/ops/patch.py", new)
    repo.write("tests/test_patch.py", CONV_TESTS_NEW)
    repo.commit("split the bias variant off")
    return repo


def test_a_call_carrying_a_choice_goes_to_the_class_built_for_it(tmp_path: Path) -> None:
    bench = (
        "from kern.ops.patch import PatchOp\n\n\ndef test_bench(n=1, c=2, d_in=3):\n"
        "    op = PatchOp(n=n, c_in=c, d_in=d_in, c_out=4, k=1, bias=True, dtype='f16')\n    assert op\n"
    )
    repo = _split_repo(tmp_path, bench)
    rc, out, data = fix(repo)
    assert rc == 0, out
    text = repo.read("benchmarks/bench_patch.py")
    assert "from kern.ops.patch import PatchBiasFwdOp\n" in text, out
    assert "op = PatchBiasFwdOp(n=n, c_in=c, d=d_in, c_out=4, k=1, dtype='f16')" in text, out
    (f,) = data["findings"]
    assert f["route"] == "kern.ops.patch.PatchBiasFwdOp" and f["call_after"] == "PatchBiasFwdOp"
    assert "fixed: PatchBiasFwdOp(n=n, c_in=c, d=d_in, c_out=4, k=1, dtype='f16')" in out, (
        "the report names the new class"
    )
    assert f["notes"][:2] == [
        "PatchOp -> PatchBiasFwdOp: the class built for bias=True (PatchFwdOp has no 'bias')",
        "bias=True dropped: PatchBiasFwdOp has it as its default",
    ]


def test_a_call_without_the_choice_goes_to_the_successor(tmp_path: Path) -> None:
    bench = (
        "from kern.ops.patch import PatchOp\n\n\ndef test_bench():\n"
        "    op = PatchOp(1, 2, 3, 4, 1, bias=False)\n    assert op\n"
    )
    repo = _split_repo(tmp_path, bench)
    _, out, _ = fix(repo)
    text = repo.read("benchmarks/bench_patch.py")
    assert "from kern.ops.patch import PatchFwdOp\n" in text and "op = PatchFwdOp(1, 2, 3, 4, 1)" in text, out


def test_a_file_needing_both_classes_is_reported(tmp_path: Path) -> None:
    # One name, two destinations: renaming the import can't serve both; split by hand.
    bench = (
        "from kern.ops.patch import PatchOp\n\n\ndef test_bench():\n"
        "    assert PatchOp(1, 2, 3, 4, 1, bias=True)\n    assert PatchOp(1, 2, 3, 4, 1)\n"
    )
    repo = _split_repo(tmp_path, bench)
    rc, out, data = fix(repo)
    assert rc == 1
    assert "PatchBiasFwdOp" not in repo.read("benchmarks/bench_patch.py")
    f = next(f for f in data["findings"] if "bias=True" in f["text"])
    assert not f["fixed"] and "split it by hand" in f["why_not"], out


def test_two_classes_built_for_the_choice_are_reported_with_both(tmp_path: Path) -> None:
    bench = (
        "from kern.ops.patch import PatchOp\n\n\ndef test_bench():\n"
        "    assert PatchOp(1, 2, 3, 4, 1, bias=True)\n"
    )
    twin = CONV_NEW + (
        "\n\nclass PatchFwdBiasOp(PatchFwdOp):\n"
        "    def __init__(self, n, c_in, d, c_out, k, bias=True, dtype='f16'):\n"
        "        super().__init__(n, c_in, d, c_out, k, dtype, _has_bias=True)\n"
    )
    repo = _split_repo(tmp_path, bench, new=twin)
    rc, out, data = fix(repo)
    assert rc == 1
    text = repo.read("benchmarks/bench_patch.py")
    assert "(1, 2, 3, 4, 1, bias=True)" in text and "Bias" not in text
    (f,) = data["findings"]
    assert (
        "built several classes for it (PatchBiasFwdOp, PatchFwdBiasOp): pick one by hand" in f["why_not"]
    ), out
