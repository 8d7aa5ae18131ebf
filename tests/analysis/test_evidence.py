"""Evidence from the commit (analysis/evidence.py, analysis/renames.py), each idiom in a small repository
written for the test: classes renamed in bulk, a same-slot rename that conflicts with a variable in scope,
an argument that carried a choice, a moved Op still exported under its name; and the text check that rules
a file out of the rename hints."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.kern import fix, make

# -- renames from evidence ---------------------------------------------------------------------


def _reduce_module(names: list[str], doc: str) -> str:
    body = "from .op import Op\n\n"
    for n in names:
        body += (
            f'\nclass {n}(Op):\n    """{doc} {n}."""\n\n'
            "    def __init__(self, rows, cols, dtype):\n        self.rows = rows\n\n"
        )
    return body


def _exports(names: list[str]) -> str:
    return (
        f"from .reduce import {', '.join(names)}\n\n__all__ = [\n"
        + "".join(f'    "{n}",\n' for n in names)
        + "]\n"
    )


def test_classes_renamed_together_each_get_their_own_successor(tmp_path: Path) -> None:
    # Same constructor for all three, docstrings rewritten: only the commit's evidence tells them apart.
    old, new = ["SumOp", "MaxOp", "ProdOp"], ["SumFwdOp", "MaxFwdOp", "ProductFwdOp"]
    bench = (
        "from kern.ops import MaxOp, ProdOp, SumOp\n\n\ndef test_bench():\n"
        "    SumOp(4, 8, 'f16')\n    MaxOp(4, 8, 'f16')\n    ProdOp(4, 8, 'f16')\n"
    )
    repo = make(
        tmp_path,
        {
            "src/kern/ops/reduce.py": _reduce_module(old, "Reduce with"),
            "src/kern/ops/__init__.py": _exports(old),
            "tests/test_reduce.py": "from kern.ops import MaxOp, ProdOp, SumOp\n\n\ndef test_it():\n    "
            "assert ProdOp(1, 2, 'f16')\n",
            "benchmarks/bench_reduce.py": bench,
        },
    )
    repo.write("src/kern/ops/reduce.py", _reduce_module(new, "Forward reduction"))
    repo.write("src/kern/ops/__init__.py", _exports(new))
    repo.write(
        "tests/test_reduce.py",
        "from kern.ops import MaxFwdOp, ProductFwdOp, SumFwdOp\n\n\ndef test_it():\n    assert "
        "ProductFwdOp(1, 2, 'f16')\n",
    )
    repo.commit("rename the reductions")
    _, out, data = fix(repo)
    text = repo.read("benchmarks/bench_reduce.py")
    assert "from kern.ops import MaxFwdOp, ProductFwdOp, SumFwdOp" in text, out
    assert (
        "SumFwdOp(4, 8, 'f16')" in text
        and "MaxFwdOp(4, 8, 'f16')" in text
        and "ProductFwdOp(4, 8, 'f16')" in text
    )
    by_old = {c["old"].rsplit(".", 1)[-1]: c for c in data["changes"]}
    assert by_old["ProdOp"]["new"].endswith(".ProductFwdOp")
    assert by_old["ProdOp"]["status"] == "renamed"
    assert "the package exports swap the names" in by_old["ProdOp"]["evidence"]
    assert "evidence: the package exports swap the names" in out


def test_an_abbreviation_the_commit_makes_elsewhere_pairs_the_rest(tmp_path: Path) -> None:
    # GroupQueryAttentionBwdOp -> GqaBwdOp is shown by the tests; GroupQueryAttentionFwdOp -> GqaFwdOp only by
    # its name.
    old, new = ["GroupQueryAttentionFwdOp", "GroupQueryAttentionBwdOp"], ["GqaFwdOp", "GqaBwdOp"]
    repo = make(
        tmp_path,
        {
            "src/kern/ops/reduce.py": _reduce_module(old, "Attention"),
            "tests/test_gqa.py": "from kern.ops.reduce import GroupQueryAttentionBwdOp\n",
            "benchmarks/bench_gqa.py": (
                "from kern.ops.reduce import GroupQueryAttentionFwdOp\n\n\ndef test_bench():\n"
                "    GroupQueryAttentionFwdOp(1, 2, 'f16')\n"
            ),
        },
    )
    repo.write("src/kern/ops/reduce.py", _reduce_module(new, "GQA"))
    repo.write("tests/test_gqa.py", "from kern.ops.reduce import GqaBwdOp\n")
    repo.commit("shorter names")
    _, out, data = fix(repo)
    assert "GqaFwdOp(1, 2, 'f16')" in repo.read("benchmarks/bench_gqa.py"), out
    fwd = next(c for c in data["changes"] if c["old"].endswith("GroupQueryAttentionFwdOp"))
    assert fwd["evidence"] == [
        "the names match apart from case, direction suffix and the commit's abbreviations"
    ]


def test_ambiguous_successors_are_reported_with_the_candidates(tmp_path: Path) -> None:
    bench = "from kern.ops.reduce import NormOp\n\n\ndef test_bench():\n    NormOp(1, 2, 'f16')\n"
    repo = make(
        tmp_path,
        {"src/kern/ops/reduce.py": _reduce_module(["NormOp"], "Norm"), "benchmarks/bench_norm.py": bench},
    )
    repo.write("src/kern/ops/reduce.py", _reduce_module(["NormFwdOp", "NormForwardOp"], "Two norms"))
    repo.commit("two candidates")
    rc, out, data = fix(repo)
    assert rc == 1
    assert repo.read("benchmarks/bench_norm.py") == bench
    (ch,) = data["changes"]
    assert ch["status"] == "removed"
    assert sorted(c.rsplit(".", 1)[-1] for c in ch["candidates"]) == ["NormForwardOp", "NormFwdOp"]
    assert "renamed to one of NormForwardOp, NormFwdOp" in out


@pytest.mark.parametrize("case", ["incompatible-constructor", "no-evidence"])
def test_a_removed_class_is_not_paired_without_evidence_and_a_compatible_constructor(
    tmp_path: Path, case: str
) -> None:
    bench = "from kern.ops.reduce import OldOp\n\n\ndef test_bench():\n    OldOp(1, 2, 'f16')\n"
    repo = make(
        tmp_path,
        {
            "src/kern/ops/reduce.py": _reduce_module(["OldOp"], "Old"),
            "tests/test_r.py": "from kern.ops.reduce import OldOp\n",
            "benchmarks/bench_r.py": bench,
        },
    )
    if case == "incompatible-constructor":
        repo.write(
            "src/kern/ops/reduce.py",
            "from .op import Op\n\n\nclass NewOp(Op):\n    def __init__(self, shape, dtype, block):\n       "
            " pass\n",
        )
        repo.write("tests/test_r.py", "from kern.ops.reduce import NewOp\n")
    else:
        repo.write("src/kern/ops/reduce.py", _reduce_module(["UnrelatedOp"], "Other"))
    repo.commit("replace")
    rc, _, data = fix(repo)
    assert rc == 1
    assert repo.read("benchmarks/bench_r.py") == bench
    assert [c["status"] for c in data["changes"]] == ["removed"]


# -- conflicting evidence for a same-slot rename -----------------------------------------------

ALIGN_OLD = (
    "from .op import Op\n\n\nclass AlignOp(Op):\n"
    "    def __init__(self, numel, num_experts, block_size, kernel_map=None):\n        self.numel = numel\n"
)


ALIGN_NEW = (
    "from .op import Op\n\n\nclass AlignOp(Op):\n"
    "    def __init__(self, total_tokens, top_k, num_experts, block_size, kernel_map=None):\n        "
    "self.numel = total_tokens * top_k\n"
)


ALIGN_BENCH = (
    "from kern.ops.align import AlignOp\n\n\ndef test_bench(total_tokens=64, top_k=2):\n"
    "    numel = total_tokens * top_k\n    num_experts, block_size = 8, 16\n"
    "    AlignOp(numel, num_experts, block_size)\n"
)


@pytest.mark.parametrize("tests_pass", ["variables", "literals"])
def test_a_new_parameter_inserted_after_the_slot_makes_the_slot_no_evidence(
    tmp_path: Path, tests_pass: str
) -> None:
    # The updated test call binds the old signature too (kernel_map takes the 4th argument): it is still
    # evidence.
    repo = make(
        tmp_path,
        {
            "src/kern/ops/align.py": ALIGN_OLD,
            "benchmarks/bench_align.py": ALIGN_BENCH,
            "tests/test_align.py": "from kern.ops.align import AlignOp\n\n\ndef test_a():\n    AlignOp(128, "
            "8, 16)\n",
        },
    )
    repo.write("src/kern/ops/align.py", ALIGN_NEW)
    call = (
        "    total_tokens, top_k = 64, 2\n    AlignOp(total_tokens, top_k, 8, 16)\n"
        if tests_pass == "variables"
        else "    AlignOp(64, 2, 8, 16)\n"
    )
    repo.write("tests/test_align.py", "from kern.ops.align import AlignOp\n\n\ndef test_a():\n" + call)
    repo.commit("align: tokens and top_k instead of numel")
    rc, out, _ = fix(repo)
    text = repo.read("benchmarks/bench_align.py")
    if tests_pass == "variables":
        assert rc == 0, out
        assert "total_tokens=total_tokens" in text and "top_k=top_k" in text and "AlignOp(numel" not in text
        assert "total_tokens=numel" not in text
    else:
        assert rc == 1
        assert text == ALIGN_BENCH, "never total_tokens=numel"
        assert (
            "leaves 'total_tokens' open: it could be numel (the argument in its slot) or the variable "
            "total_tokens in scope" in out
        )


SCALE_OLD = "from .op import Op\n\n\nclass ScaleOp(Op):\n    def __init__(self, n, dtype):\n        pass\n"


SCALE_NEW = "from .op import Op\n\n\nclass ScaleOp(Op):\n    def __init__(self, rows, dtype):\n        pass\n"


@pytest.mark.parametrize("scope", ["conflicting-variable", "nothing-in-scope"])
def test_a_same_slot_rename_yields_to_a_variable_named_like_the_new_parameter(
    tmp_path: Path, scope: str
) -> None:
    extra = "    rows = n // 2\n" if scope == "conflicting-variable" else ""
    bench = (
        "from kern.ops.scale import ScaleOp\n\n\ndef test_bench(n=64, dtype='f16'):\n"
        + extra
        + "    ScaleOp(n=n, dtype=dtype)\n"
    )
    repo = make(tmp_path, {"src/kern/ops/scale.py": SCALE_OLD, "benchmarks/bench_scale.py": bench})
    repo.write("src/kern/ops/scale.py", SCALE_NEW)
    repo.commit("scale: rows")
    rc, out, _ = fix(repo)
    if scope == "conflicting-variable":
        assert rc == 1 and repo.read("benchmarks/bench_scale.py") == bench
        shown = "leaves 'rows' open: it could be n (the argument in its slot) or the variable rows in scope"
        assert shown in out
    else:
        assert rc == 0, out
        assert "ScaleOp(rows=n, dtype=dtype)" in repo.read("benchmarks/bench_scale.py")


# -- an argument that carried a choice -----------------------------------------------------------

CONV_OLD = (
    "from .op import Op\n\n\nclass ConvOp(Op):\n    def __init__(self, n, dtype, bias=False, "
    "backend='thread'):\n"
    "        pass\n"
)


CONV_NEW = (
    "from .op import Op\n\n\nclass ConvOp(Op):\n    def __init__(self, n):\n        pass\n\n\n"
    "class ConvBiasOp(ConvOp):\n    pass\n"
)


@pytest.mark.parametrize("tests", ["moved-to-another-class", "dropped-the-same-way"])
def test_a_dropped_choice_needs_the_tests_to_drop_it_too(tmp_path: Path, tests: str) -> None:
    bench = (
        "from kern.ops.conv import ConvOp\n\n\ndef test_bench(n=64, dtype='f16'):\n"
        "    ConvOp(n, dtype, bias=True)\n    ConvOp(n, dtype=dtype, bias=False)\n"
    )
    repo = make(
        tmp_path,
        {
            "src/kern/ops/conv.py": CONV_OLD,
            "benchmarks/bench_conv.py": bench,
            "tests/test_conv.py": "from kern.ops.conv import ConvOp\n\n\ndef test_c():\n    ConvOp(4, "
            "'f16', bias=True)\n",
        },
    )
    repo.write("src/kern/ops/conv.py", CONV_NEW)
    if tests == "moved-to-another-class":
        repo.write(
            "tests/test_conv.py",
            "from kern.ops.conv import ConvBiasOp\n\n\ndef test_c():\n    ConvBiasOp(4)\n",
        )
    else:
        repo.write(
            "tests/test_conv.py", "from kern.ops.conv import ConvOp\n\n\ndef test_c():\n    ConvOp(4)\n"
        )
    repo.commit("conv: bias is a class of its own")
    rc, out, _ = fix(repo)
    text = repo.read("benchmarks/bench_conv.py")
    # Dropping dtype=dtype (read from the inputs now) and bias=False (the old default) is always right.
    assert "    ConvOp(n)\n" in text, out
    if tests == "moved-to-another-class":
        assert rc == 1
        assert "ConvOp(n, dtype, bias=True)" in text
        assert "passes bias=True, a choice the new signature has no 'bias' for" in out
    else:
        assert rc == 0, out
        assert "ConvOp(n, dtype, bias=True)" not in text and text.count("    ConvOp(n)\n") == 2


def test_a_removed_enum_choice_is_reported(tmp_path: Path) -> None:
    old = "from .op import Op\n\n\nclass RunOp(Op):\n    def __init__(self, n, style=None):\n        pass\n"
    new = "from .op import Op\n\n\nclass RunOp(Op):\n    def __init__(self, n):\n        pass\n"
    bench = (
        "from kern.ops.run import RunOp\nfrom kern.sched import AsyncSchedule, Mode\n\n\ndef "
        "test_bench(n=1):\n"
        "    RunOp(n, style=AsyncSchedule)\n    RunOp(n, Mode.FAST)\n    RunOp(n, style=None)\n"
    )
    repo = make(
        tmp_path,
        {
            "src/kern/ops/run.py": old,
            "src/kern/sched.py": "class AsyncSchedule: ...\nclass Mode: FAST = 1\n",
            "benchmarks/bench_run.py": bench,
        },
    )
    repo.write("src/kern/ops/run.py", new)
    repo.commit("run: schedule chosen elsewhere")
    rc, out, _ = fix(repo)
    text = repo.read("benchmarks/bench_run.py")
    assert rc == 1
    assert "RunOp(n, style=AsyncSchedule)" in text and "RunOp(n, Mode.FAST)" in text
    assert "    RunOp(n)\n" in text  # style=None was the old default
    assert "passes style=AsyncSchedule" in out and "passes style=Mode.FAST" in out


def test_a_moved_op_still_exported_under_its_name_needs_nothing(tmp_path: Path) -> None:
    bench = (
        "from kern.ops import PoolOp\n\n\ndef test_bench():\n    params = dict(n=1, dtype='f16')\n"
        "    PoolOp(**params)\n    PoolOp(2, 'f16')\n"
    )
    repo = make(
        tmp_path,
        {
            "src/kern/ops/attention.py": "from .op import Op\n\n\nclass PoolOp(Op):\n    def __init__(self, "
            "n, dtype):\n        pass\n",
            "src/kern/ops/__init__.py": "from .attention import PoolOp\n",
            "benchmarks/bench_pool.py": bench,
        },
    )
    repo.write("src/kern/ops/attention.py", "")
    repo.write(
        "src/kern/ops/pool.py",
        "from .op import Op\n\n\nclass PoolOp(Op):\n    def __init__(self, n, dtype):\n        pass\n",
    )
    repo.write("src/kern/ops/__init__.py", "from .pool import PoolOp\n")
    repo.commit("pooling has a family of its own")
    r = repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "every benchmark call still binds with the same meaning" in r.stdout
    assert repo.read("benchmarks/bench_pool.py") == bench


# -- rename hints analyse a changed test file only when a call in it can spell a keyword-only parameter


def _passes_by_keyword(source: str | bytes, names: tuple[str, ...]) -> bool:
    """The long way: a call in the parsed module passes one of `names` as a keyword (Python normalizes it)."""
    import ast

    return any(isinstance(n, ast.keyword) and n.arg in names for n in ast.walk(ast.parse(source)))


def test_keyword_only_parameters_are_the_only_ones_a_file_can_be_ruled_out_for():
    from benchop_hook.analysis.evidence import names_a_call_must_spell
    from benchop_hook.analysis.signatures import Kind, Param, Signature

    def sig(*ps: tuple[str, Kind]) -> Signature:
        return Signature(tuple(Param(n, k, "None") for n, k in ps))

    kw, pk, vk = Kind.KEYWORD_ONLY, Kind.POSITIONAL_OR_KEYWORD, Kind.VAR_KEYWORD
    old = sig(("N_total", pk), ("kernel_map", kw))
    assert names_a_call_must_spell(sig(("target", kw), ("kernel_map", kw)), old) == ("target",)
    # a new positional parameter can be bound without its name; so can anything through **kwargs
    assert names_a_call_must_spell(sig(("x", pk), ("target", kw)), old) is None
    assert names_a_call_must_spell(sig(("target", kw), ("kw", vk)), old) is None
    assert names_a_call_must_spell(old, sig(("target", kw))) is None


def test_a_file_is_ruled_out_only_when_no_call_in_it_can_pass_the_names():
    from benchop_hook.analysis.evidence import may_spell

    names = ("target", "decimals")
    passing = [
        "Op(x, target=1)",
        "Op(x, target = 1)",
        "Op(\n    x,\n    target\n    = 1,\n)",
        "Op(x, target  # the device\n    = 1)",
        "Op(x, target \\\n= 1)",
        "Op(x, decimals=2)",
        "Op(x, \uff54arget=1)",  # fullwidth t: Python reads the keyword `target`
    ]
    for src in passing:
        assert _passes_by_keyword(src, names) and may_spell(src.encode(), names), src
    # A Cyrillic a is not a Latin one, but any identifier character beyond ASCII keeps the file.
    assert may_spell("Op(x, t\u0430rget=1)".encode(), names)
    not_passing = [
        "Op(x)\nif target == 1:\n    pass\n",
        "# target=1 in a comment is still text\nOp(x)\n",
        "Op(x, target_shape=1)",
        "Op(x, my_target=1)",
        "# \u2192 arrows, \u00d7 signs and \u2014 dashes are not names\nOp(x)\n",
    ]
    ruled_out = {src for src in not_passing if not may_spell(src.encode(), names)}
    for src in not_passing:
        assert not _passes_by_keyword(src, names), src
    # A mention in a comment can't be told from a keyword by the text: kept (analysed), never wrong.
    assert ruled_out == {not_passing[0], not_passing[2], not_passing[3], not_passing[4]}
    # Files Python may not read as UTF-8, or with identifier characters beyond ASCII, are kept.
    latin = "# -*- coding: latin-1 -*-\nOp(x, t\u00aarget=1)\n".encode("latin-1")  # \u00aa: NFKC "a"
    assert _passes_by_keyword(latin, names) and may_spell(latin, names)
    assert may_spell("caf\u00e9 = 1\nOp(x)\n".encode(), names)
    assert may_spell(b"Op(x)\n", None)
