"""Idioms of real op libraries, each in a small repository written for the test: classes renamed in bulk,
a same-slot rename that conflicts with a variable in scope, an argument that carried a choice, and the
constructors of workload and test-helper classes that benchmarks build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Repo, git

PYPROJECT = """[project]
name = "kern"
version = "0"

[tool.bench-op]
op-paths = ["src/kern/ops/**/*.py"]
benchmark-paths = ["benchmarks/**/*.py"]
test-paths = ["tests/**/*.py"]
"""

OP_BASE = "class Op:\n    pass\n"


def make(tmp_path: Path, files: dict[str, str]) -> Repo:
    root = tmp_path / "kern"
    root.mkdir()
    repo = Repo(root)
    repo.write("pyproject.toml", PYPROJECT)
    repo.write("src/kern/__init__.py", "")
    repo.write("src/kern/ops/op.py", OP_BASE)
    for rel, text in files.items():
        repo.write(rel, text)
    git(root, "init", "-q", "-b", "main")
    repo.commit("initial")
    return repo


def fix(repo: Repo) -> tuple[int, str, dict]:
    out = repo.path / ".." / "fix.json"
    r = repo.bench_op("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--json", str(out))
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return r.returncode, r.stdout + r.stderr, json.loads(out.read_text())


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
            "'total_tokens' could be numel (the argument in its slot) or the variable total_tokens in scope"
            in out
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
        assert "'rows' could be n (the argument in its slot) or the variable rows in scope" in out
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


# -- interfaces beyond Ops: workloads and test helpers that benchmarks build ---------------------

WORKLOAD_OLD = (
    "class SoftmaxCase:\n    def __init__(self, m, n, dtype):\n        self.shape = (m, n)\n\n"
    "    def gen_inputs(self):\n        return self.shape\n"
)
WORKLOAD_NEW = (
    "class SoftmaxCase:\n    def __init__(self, n, dtype, dim=-1):\n        self.shape = (n,)\n\n"
    "    def gen_inputs(self):\n        return self.shape\n"
)
SOFTMAX_BENCH = (
    "from workloads.softmax import SoftmaxCase\n\n\ndef test_bench(m=4, n=8, dtype='f16'):\n"
    "    case = SoftmaxCase(m, n, dtype)\n    case.gen_inputs()\n"
)


def _with_workload(tmp_path: Path, extra_config: str = "") -> Repo:
    repo = make(
        tmp_path,
        {
            "workloads/__init__.py": "",
            "workloads/softmax.py": WORKLOAD_OLD,
            "benchmarks/bench_softmax.py": SOFTMAX_BENCH,
        },
    )
    if extra_config:
        repo.write("pyproject.toml", repo.read("pyproject.toml") + extra_config)
        repo.commit("config")
    return repo


def test_a_workload_constructor_change_is_fixed_like_an_op(tmp_path: Path) -> None:
    repo = _with_workload(tmp_path)
    repo.write("workloads/softmax.py", WORKLOAD_NEW)
    repo.commit("softmax workload: rows come from the inputs")
    rc, out, data = fix(repo)
    assert rc == 0, out
    assert "case = SoftmaxCase(n, dtype)" in repo.read("benchmarks/bench_softmax.py")
    assert [c["op"] for c in data["changes"]] == ["SoftmaxCase"]


def test_a_renamed_workload_is_followed(tmp_path: Path) -> None:
    repo = _with_workload(tmp_path)
    repo.write("tests/test_softmax.py", "from workloads.softmax import SoftmaxCase\n")
    repo.commit("a test")
    repo.write("workloads/softmax.py", WORKLOAD_OLD.replace("SoftmaxCase", "SoftmaxWorkload"))
    repo.write("tests/test_softmax.py", "from workloads.softmax import SoftmaxWorkload\n")
    repo.commit("workloads are called workloads")
    _, out, _ = fix(repo)
    text = repo.read("benchmarks/bench_softmax.py")
    assert (
        "from workloads.softmax import SoftmaxWorkload" in text and "SoftmaxWorkload(m, n, dtype)" in text
    ), out


def test_interface_paths_bound_where_interfaces_are_read(tmp_path: Path) -> None:
    repo = _with_workload(tmp_path, '\ninterface-paths = ["helpers/**/*.py"]\n')
    repo.write("workloads/softmax.py", WORKLOAD_NEW)
    repo.commit("softmax workload: rows come from the inputs")
    r = repo.bench_op("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0 and "nothing to check" in r.stdout, r.stdout + r.stderr
    assert repo.read("benchmarks/bench_softmax.py") == SOFTMAX_BENCH


def test_an_interface_edit_that_keeps_constructors_stays_on_the_no_op_path(tmp_path: Path) -> None:
    import subprocess
    import sys

    repo = _with_workload(tmp_path)
    repo.write("workloads/softmax.py", WORKLOAD_OLD.replace("return self.shape", "return tuple(self.shape)"))
    repo.write("tests/test_x.py", "def test_x():\n    assert True\n")
    repo.git("add", "-A")
    code = (
        "import sys; from benchop_hook.cli import main; rc = main(['check']); "
        "print('HEAVY', sorted(m for m in ('libcst', 'git', 'torch') if m in sys.modules)); sys.exit(rc)"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=repo.path, capture_output=True, text=True, check=False
    )
    assert r.returncode == 0, r.stderr
    assert "nothing to check" in r.stdout and "HEAVY []" in r.stdout
    # The same file with a constructor change does take the full path.
    repo.write("workloads/softmax.py", WORKLOAD_NEW)
    repo.git("add", "-A")
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=repo.path, capture_output=True, text=True, check=False
    )
    assert r.returncode == 1 and "SoftmaxCase(n, dtype)" in r.stdout, r.stdout + r.stderr


def test_interface_paths_is_validated() -> None:
    from benchop_hook.config import from_table
    from benchop_hook.errors import ConfigError

    assert from_table({"interface-paths": ["workloads/**/*.py"]}).interface_paths == ("workloads/**/*.py",)
    assert from_table({}).interface_paths is None
    with pytest.raises(ConfigError, match="interface-paths"):
        from_table({"interface-paths": ["../elsewhere/*.py"]})


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
    r = repo.bench_op("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "every benchmark call still binds with the same meaning" in r.stdout
    assert repo.read("benchmarks/bench_pool.py") == bench


def test_a_class_of_an_op_file_without_an_op_base_is_an_interface_too(tmp_path: Path) -> None:
    # A composite (no Op base) in an op file whose sizes now come from the inputs.
    old = (
        "class ScanPipeline:\n"
        "    def __init__(self, batch, seqlen, chunk_size=256, tune=False):\n        pass\n"
    )
    new = "class ScanPipeline:\n    def __init__(self, chunk_size=256, tune=False):\n        pass\n"
    bench = (
        "from kern.ops.scan import ScanPipeline\n\n\ndef test_bench(batch=2, seqlen=64, tune=False):\n"
        "    ScanPipeline(batch, seqlen, 128, tune=tune)\n"
    )
    repo = make(tmp_path, {"src/kern/ops/scan.py": old, "benchmarks/bench_scan.py": bench})
    repo.write("src/kern/ops/scan.py", new)
    repo.commit("scan: sizes from the inputs")
    rc, out, _ = fix(repo)
    assert rc == 0, out
    assert "    ScanPipeline(128, tune=tune)\n" in repo.read("benchmarks/bench_scan.py")
