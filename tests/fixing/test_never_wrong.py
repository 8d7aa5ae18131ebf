"""The rules that keep a rewrite from measuring something else, and a report from blocking what binds:
each on a change of the fixture library, through `bench-op check` / `fix`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.repo import PROJECT, Repo

NORM_SHAPE = (
    "    def __init__(self, M, hidden, dtype, eps=1e-6):\n        self.M = M\n        self.hidden = hidden\n",
    "    def __init__(self, normalized_shape, dtype, eps=1e-6):\n        self.M = None\n"
    "        self.hidden = normalized_shape[-1]\n",
)
NORM_NO_M = (
    "    def __init__(self, M, hidden, dtype, eps=1e-6):\n        self.M = M\n",
    "    def __init__(self, hidden, dtype, eps=1e-6):\n        self.M = None\n",
)
BENCH_NORM = "benchmarks/ops/bench_norm.py"


def test_a_call_the_change_itself_fixed_is_judged_against_the_new_signature_only(repo: Repo) -> None:
    # The engineer changed the Op and fixed the benchmark in the same commit: `RMSNormOp(hidden=..., dtype)`
    # is theirs, written for the new signature. Read against the old one it would look shifted.
    repo.replace("src/minitile/ops/norm.py", *NORM_NO_M)
    repo.replace(
        BENCH_NORM, "RMSNormOp(M, hidden=hidden, dtype=torch.float32)", "RMSNormOp(hidden, torch.float32)"
    )
    repo.git("add", "-A")
    before = repo.read(BENCH_NORM)
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.read(BENCH_NORM) == before, "the engineer's own line must not be rewritten"
    assert "every benchmark call still binds" in r.stdout, r.stdout


def test_the_same_call_not_touched_by_the_change_is_fixed(repo: Repo) -> None:
    repo.replace("src/minitile/ops/norm.py", *NORM_NO_M)
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "RMSNormOp(hidden=hidden, dtype=torch.float32)" in repo.read(BENCH_NORM)


def test_a_tests_value_is_no_constant_the_template_of_their_edit_is_used(repo: Repo) -> None:
    # The tests went from RMSNormOp(4, 64, f32) to RMSNormOp((64,), f32): their (64,) is their own hidden,
    # so the benchmark gets (hidden,), never (64,).
    repo.replace("src/minitile/ops/norm.py", *NORM_SHAPE)
    repo.replace(
        "tests/ops/test_norm.py",
        "RMSNormOp(4, 64, torch.float32, eps=1e-6)",
        "RMSNormOp((64,), torch.float32, eps=1e-6)",
    )
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    text = repo.read(BENCH_NORM)
    assert "RMSNormOp(normalized_shape=(hidden,), dtype=torch.float32)" in text, text
    assert "(64,)" not in text
    assert "as tests/ops/test_norm.py:10 changed it (1 pair" in r.stdout, r.stdout


def test_a_tests_value_with_no_pair_is_no_constant_either(repo: Repo) -> None:
    # A new test of the new signature (no old call to pair it with) passes (64,) where its rows are 64:
    # the one constant every updated test passes, and not the value of a pair's old call.
    repo.replace("src/minitile/ops/norm.py", *NORM_SHAPE)
    repo.replace(
        "tests/ops/test_norm.py",
        "RMSNormOp(4, 64, torch.float32, eps=1e-6)",
        "RMSNormOp((64,), torch.float32, eps=1e-6)",
    )
    repo.replace("tests/ops/test_norm.py", "    x = randn(4, 64)\n", "    x = randn(4, 64)  # rows\n")
    repo.write(
        "tests/ops/test_norm_more.py",
        "import torch\nfrom minitile.ops import RMSNormOp\n\n\ndef test_more():\n    RMSNormOp((64,), "
        "torch.float32)\n",
    )
    repo.git("add", "-A")
    r = repo.cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "normalized_shape=(64,)" not in r.stdout, r.stdout


STRATEGY_OP = (
    "    def __init__(self, M, hidden, dtype, eps=1e-6):\n",
    "    def __init__(self, M, hidden, dtype, eps=1e-6, strategy=None):\n",
)
STRATEGY_BENCH = """import pytest
import torch

from minitile.ops import RMSNormOp
from workloads import randn


@pytest.mark.parametrize("strategy", ["direct", "split"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_rmsnorm_strategy(strategy, dtype, record_property):
    x = randn(4, 64).to(dtype)
    op = RMSNormOp(4, 64, dtype=dtype, strategy=strategy)
    record_property("tag", f"rmsnorm-{strategy}")
"""


def test_a_value_that_varies_across_cases_is_a_choice(repo: Repo) -> None:
    repo.replace("src/minitile/ops/norm.py", *STRATEGY_OP)
    repo.write("benchmarks/ops/bench_norm_strategy.py", STRATEGY_BENCH)
    repo.commit("a strategy benchmark")
    # the strategy goes; dtype too (the Op reads it from its input now)
    repo.replace(
        "src/minitile/ops/norm.py",
        "    def __init__(self, M, hidden, dtype, eps=1e-6, strategy=None):\n",
        "    def __init__(self, M, hidden, eps=1e-6):\n        dtype = None\n",
    )
    repo.git("add", "-A")
    before = repo.read("benchmarks/ops/bench_norm_strategy.py")
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout
    assert "strategy=strategy, a choice (its value varies across the benchmark's cases" in r.stdout, r.stdout
    assert repo.read("benchmarks/ops/bench_norm_strategy.py") == before
    # dtype=dtype also varies, but the inputs are built with it: dropping it from the Op changes nothing
    # the cases differ by, and elsewhere it is dropped
    assert "dtype=dtype, a choice" not in r.stdout


def test_a_choice_the_updated_tests_drop_the_same_way_is_dropped(repo: Repo) -> None:
    repo.replace("src/minitile/ops/norm.py", *STRATEGY_OP)
    repo.write("benchmarks/ops/bench_norm_strategy.py", STRATEGY_BENCH)
    repo.write("tests/ops/test_norm_strategy.py", STRATEGY_BENCH.replace("bench", "test"))
    repo.commit("a strategy benchmark and test")
    repo.replace("src/minitile/ops/norm.py", "dtype, eps=1e-6, strategy=None):\n", "dtype, eps=1e-6):\n")
    repo.replace("tests/ops/test_norm_strategy.py", ", strategy=strategy)", ")")
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout
    assert "op = RMSNormOp(4, 64, dtype=dtype)\n" in repo.read("benchmarks/ops/bench_norm_strategy.py")


KIND_OP = """import enum

import torch

from .op import Op


class KernelChoice(enum.Enum):
    FAST = 1
    SAFE = 2


class Preference(enum.Enum):
    SPEED = 1
    MEMORY = 2


class ScaleOp(Op):
    def __init__(self, n, dtype, kernel_choice=KernelChoice.SAFE):
        self.n = n

    def forward(self, x):
        return x * 2
"""
KIND_BENCH = """import torch

from minitile.ops.scale import KernelChoice, ScaleOp


def test_scale():
    op = ScaleOp(64, torch.float32, kernel_choice=KernelChoice.FAST)
"""


def test_a_renamed_keyword_of_another_type_is_reported(repo: Repo) -> None:
    repo.write("src/minitile/ops/scale.py", KIND_OP)
    repo.write("benchmarks/ops/bench_scale.py", KIND_BENCH)
    repo.commit("a scale op")
    repo.replace(
        "src/minitile/ops/scale.py",
        "kernel_choice=KernelChoice.SAFE",
        "preference=Preference.MEMORY",
    )
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout
    # the same slot, but another default: no rename (a KernelChoice does not become a Preference by moving
    # slots), and the choice is not dropped either
    said = "it passes kernel_choice=KernelChoice.FAST, a choice the new signature has no 'kernel_choice' for"
    assert said in r.stdout, r.stdout
    assert "kernel_choice=KernelChoice.FAST" in repo.read("benchmarks/ops/bench_scale.py")


COLLECT_OP = """from dataclasses import dataclass

from .op import Op


@dataclass
class ServerConfig:
    backend: str = "thread"
    max_batch: int = 1
    timeout: float = 1.0


class CollectOp(Op):
    def __init__(self, n, backend="thread", max_batch=1, timeout=1.0):
        self.n = n

    def forward(self, x):
        return x
"""
COLLECT_BENCH = """from minitile.ops.collect import CollectOp


def test_collect():
    op = CollectOp(64, backend="process", max_batch=8, timeout=0.5)
"""


def test_keywords_folded_into_a_config_object_are_reported(repo: Repo) -> None:
    repo.write("src/minitile/ops/collect.py", COLLECT_OP)
    repo.write("benchmarks/ops/bench_collect.py", COLLECT_BENCH)
    repo.commit("a collect op")
    repo.replace(
        "src/minitile/ops/collect.py",
        'def __init__(self, n, backend="thread", max_batch=1, timeout=1.0):',
        "def __init__(self, n, server: ServerConfig | None = None):",
    )
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout
    assert "moved into ServerConfig, which the new parameter 'server' takes" in r.stdout, r.stdout
    assert 'backend="process"' in repo.read("benchmarks/ops/bench_collect.py")


def test_the_tests_whole_edit_is_repeated_not_half_of_it(repo: Repo) -> None:
    # The tests dropped device=... and added offload=True in the same edit: both, or nothing.
    op = COLLECT_OP.replace(
        'def __init__(self, n, backend="thread", max_batch=1, timeout=1.0):',
        "def __init__(self, n, device, policy):",
    )
    repo.write("src/minitile/ops/collect.py", op)
    repo.write(
        "benchmarks/ops/bench_collect.py",
        "from minitile.ops.collect import CollectOp\n\n\ndef test_collect():\n    op = CollectOp(64, "
        'device="cuda", policy="cpu")\n',
    )
    repo.write(
        "tests/ops/test_collect.py",
        "from minitile.ops.collect import CollectOp\n\n\ndef test_collect():\n    op = CollectOp(8, "
        'device="cuda", policy="cpu")\n',
    )
    repo.commit("a collect op")
    repo.replace(
        "src/minitile/ops/collect.py",
        "def __init__(self, n, device, policy):",
        "def __init__(self, n, policy, offload=False):",
    )
    repo.replace(
        "tests/ops/test_collect.py",
        'CollectOp(8, device="cuda", policy="cpu")',
        'CollectOp(8, policy="cpu", offload=True)',
    )
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    text = repo.read("benchmarks/ops/bench_collect.py")
    assert 'CollectOp(64, policy="cpu", offload=True)' in text, r.stdout + text


def test_a_call_that_binds_for_every_class_that_reaches_it_needs_nothing(repo: Repo) -> None:
    # Every class the parametrize list can pass binds the call as it stands: the changed one gained an
    # optional parameter, the others did not change.
    repo.write(
        "benchmarks/ops/bench_mixed.py",
        "import pytest\nimport torch\n\nfrom minitile.ops import GemmOp, RMSNormOp\n\n\n"
        '@pytest.mark.parametrize("op_cls", [GemmOp, RMSNormOp])\n'
        "def test_mixed(op_cls):\n    op = op_cls(4, 64, torch.float32)\n",
    )
    repo.commit("a mixed benchmark")
    repo.replace("src/minitile/ops/norm.py", "dtype, eps=1e-6):", "dtype, eps=1e-6, *, fused=False):")
    repo.git("add", "-A")
    r = repo.cli("check")
    assert "bench_mixed.py" not in r.stdout, r.stdout
    assert r.returncode == 0, r.stdout


MERGED_BEFORE = {
    "workloads/norms.py": "class NormCase:\n    def __init__(self, m, n):\n        self.m = m\n",
    "workloads/sums.py": "class SumCase:\n    def __init__(self, m, n):\n        self.m = m\n",
}


def test_classes_moved_into_a_merged_module_are_followed(repo: Repo) -> None:
    for path, text in MERGED_BEFORE.items():
        repo.write(path, text)
    repo.write(
        "benchmarks/ops/bench_cases.py",
        "from workloads.norms import NormCase\nfrom workloads.sums import SumCase\n\n\n"
        "def test_cases():\n    NormCase(4, 64)\n    SumCase(4, 64)\n",
    )
    repo.commit("workload cases")
    repo.git("rm", "-q", "workloads/norms.py", "workloads/sums.py")
    repo.write("workloads/cases.py", "".join(MERGED_BEFORE.values()))
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "removed with no successor" not in r.stdout, r.stdout
    text = repo.read("benchmarks/ops/bench_cases.py")
    assert "from workloads.cases import NormCase" in text and "from workloads.cases import SumCase" in text, (
        text
    )


GUARDED = """import inspect

import torch

from minitile.ops import MeanFwdOp, SumFwdOp

OPS = {"sum": SumFwdOp, "mean": MeanFwdOp}


def _make(kind, M, N):
    cls = OPS[kind]
    if "M" in inspect.signature(cls.__init__).parameters:
        return cls(M=M, N=N, dtype=torch.float32)
    return cls(N=N, dtype=torch.float32)


def test_guarded():
    _make("sum", 4, 64)
"""


def test_a_guarded_call_is_left_to_the_run_in_a_range_as_in_all_files(repo: Repo) -> None:
    # Under a guard bench-op can't evaluate, a call that did not bind the old signature either (no class
    # ever took `rows`) may never run: as in --all-files, only the run can tell.
    repo.write(
        "benchmarks/ops/bench_guarded.py",
        GUARDED.replace('if "M" in', 'if "rows" in').replace("cls(M=M, N=N", "cls(rows=M, N=N"),
    )
    repo.commit("a guarded benchmark")
    from tests.helpers.changes import reduction_change

    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    line = next((ln for ln in r.stdout.splitlines() if "bench_guarded.py:13" in ln), "")
    assert "unknown: the run decides" in line and 'only under `if "rows" in inspect' in line, r.stdout
    assert "fix it by hand" not in "\n".join(ln for ln in r.stdout.splitlines() if "bench_guarded" in ln)


GEMM_NT = """

@pytest.mark.parametrize("M, N, K", SHAPES)
def test_gemm_nt_bench(M, N, K, record_property):
    a, b = randn(M, K, dtype=DTYPE), randn(N, K, dtype=DTYPE)
    op = ops.GemmOp(M, N, K, DTYPE, trans_b=True)
    ms = time_ms(op, a, b)
    report(record_property, "gemm_nt", ms, flops=2 * M * N * K)
"""


def test_a_template_learned_without_a_choice_is_not_used_with_it(repo: Repo) -> None:
    # The tests show GemmOp(8, 4, 16, f32) -> GemmOp((8, 16), (16, 4), f32): shape_b = (K, N). With
    # trans_b=True the second input is (N, K): the same template would build the wrong shape, and the run
    # would measure another problem (or pass on square shapes and record it).
    repo.write("benchmarks/ops/bench_gemm.py", repo.read("benchmarks/ops/bench_gemm.py") + GEMM_NT)
    repo.commit("a transposed case")
    shapes = PROJECT / "examples" / "gemm-from-input-shapes"
    repo.write("src/minitile/ops/gemm.py", (shapes / "src/minitile/ops/gemm.py").read_text())
    repo.replace(
        "tests/ops/test_gemm.py", "GemmOp(8, 4, 16, torch.float32)", "GemmOp((8, 16), (16, 4), torch.float32)"
    )
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    text = repo.read("benchmarks/ops/bench_gemm.py")
    assert "ops.GemmOp(shape_a=(M, K), shape_b=(K, N), dtype=DTYPE)" in text, text
    assert "ops.GemmOp(M, N, K, DTYPE, trans_b=True)" in text, text
    assert "it passes trans_b=True, and the commit's own edits" in r.stdout, r.stdout


def test_a_functools_partial_of_a_changed_op_is_left_to_the_run_or_reported_never_rewritten(
    repo: Repo,
) -> None:
    # `partial(RMSNormOp, M)` binds M here and the rest where it is called: bench-op sees only half of the
    # call. With M gone, dropping it here would be right only if every later call is right too; it is not
    # rewritten. `partial(RMSNormOp, M=M)` fails whatever comes later: reported.
    repo.replace(
        BENCH_NORM,
        "    op = RMSNormOp(M, hidden=hidden, dtype=torch.float32)\n",
        "    make = functools.partial(RMSNormOp, M)\n    op = make(hidden=hidden, dtype=torch.float32)\n"
        "    make_kw = partial(RMSNormOp, M=M)\n",
    )
    imports = "import functools\nfrom functools import partial\n\nimport pytest\n"
    repo.replace(BENCH_NORM, "import pytest\n", imports)
    repo.commit("the benchmark builds its op through functools.partial")
    repo.replace("src/minitile/ops/norm.py", *NORM_NO_M)
    repo.git("add", "-A")
    before = repo.read(BENCH_NORM)
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read(BENCH_NORM) == before
    assert "partial(RMSNormOp, M): unknown: the run decides (functools.partial(...)" in r.stdout, r.stdout
    assert "partial(RMSNormOp, M=M): TypeError: got an unexpected keyword argument 'M'" in r.stdout
    assert "not rewritten: a functools.partial binds these arguments here" in r.stdout


def _layout(tmp_path: Path, config: str, files: dict[str, str]) -> Repo:
    """A repository of its own layout at tmp_path/lib, `files` committed."""
    from tests.helpers.repo import git

    root = tmp_path / "lib"
    root.mkdir()
    repo = Repo(root)
    repo.write("pyproject.toml", "[tool.bench-op]\n" + config)
    for rel, text in files.items():
        repo.write(rel, text)
    git(root, "init", "-q", "-b", "main")
    repo.commit("initial")
    return repo


def test_an_import_below_a_folder_without_init_follows_its_module_as_written(tmp_path: Path) -> None:
    # triton's layout: the package at python/tk/tk/, its tests a package (tests/__init__.py). Pytest puts
    # python/tk on sys.path, so `tk.matmul_ogs` is python/tk/tk/matmul_ogs.py. The import edit was made for
    # `python.tk.tk.matmul_ogs`, found no such statement, and the call alone was rewritten: the file kept
    # importing from a module the commit renamed.
    ctx = "from dataclasses import dataclass\n\n\n@dataclass\nclass FlexCtx:\n    lhs_scale: float = 1.0\n"
    repo = _layout(
        tmp_path,
        'op-paths = ["python/tk/tk/**/*.py"]\nop-bases = ["object"]\n'
        'benchmark-paths = ["python/tk/tests/**/*.py"]\n',
        {
            "python/tk/pyproject.toml": '[project]\nname = "tk"\n',
            "python/tk/tk/__init__.py": "",
            "python/tk/tests/__init__.py": "",
            "python/tk/tk/matmul_ogs.py": ctx,
            "python/tk/tests/test_mm.py": (
                "from tk.matmul_ogs import FlexCtx\n\n\ndef test_mm():\n    FlexCtx(lhs_scale=2.0)\n"
            ),
        },
    )
    repo.git("mv", "python/tk/tk/matmul_ogs.py", "python/tk/tk/matmul.py")
    repo.replace("python/tk/tk/matmul.py", "lhs_scale", "a_scale")
    repo.commit("rename the module and the field")
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.read("python/tk/tests/test_mm.py") == (
        "from tk.matmul import FlexCtx\n\n\ndef test_mm():\n    FlexCtx(a_scale=2.0)\n"
    )
    assert "import of FlexCtx from tk.matmul_ogs -> FlexCtx from tk.matmul" in r.stdout


def test_an_import_edit_the_rewrite_cannot_place_leaves_the_file_unwritten(tmp_path: Path) -> None:
    # `from ..ops import SumOp` is relative: the rewrite edits absolute imports only. Renaming the calls
    # without the import was half of the edit (a NameError at the first call).
    repo = _layout(
        tmp_path,
        'op-paths = ["pkg/ops/**/*.py"]\nop-bases = ["object"]\nbenchmark-paths = ["pkg/bench/**/*.py"]\n',
        {
            "pkg/__init__.py": "",
            "pkg/bench/__init__.py": "",
            "pkg/ops/__init__.py": "class SumOp:\n    def __init__(self, M, N):\n        self.M = M\n",
            "pkg/bench/bench_sum.py": "from ..ops import SumOp\n\n\ndef test_x():\n    SumOp(8, 16)\n",
        },
    )
    repo.replace("pkg/ops/__init__.py", "class SumOp", "class SumFwdOp")
    repo.commit("rename")
    before = repo.read("pkg/bench/bench_sum.py")
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read("pkg/bench/bench_sum.py") == before
    assert "`from pkg.ops import SumOp` is not written that way here (a relative import" in r.stdout


@pytest.mark.parametrize("moved", [False, True], ids=["renamed-in-place", "moved-elsewhere"])
def test_a_renamed_class_called_through_its_module(tmp_path: Path, moved: bool) -> None:
    # vllm 97995f6: `mk.FusedMoEModularKernel(...)` after `import ... as mk`, the class renamed in place.
    # Import edits follow imported names only: "every call binds" left mk.ModularKernel (AttributeError).
    # Renamed in the module `mk` is, the call's attribute follows; moved elsewhere, it is a hand edit.
    kernel = (
        "class {}:\n    def __init__(self, prepare, experts, inplace=False):\n"
        "        self.inplace = inplace\n"
    )
    bench = "import pkg.kernel as mk\n\n\ndef run():\n    return mk.ModularKernel(1, 2, inplace=True)\n"
    repo = _layout(
        tmp_path,
        'op-paths = ["pkg/**/*.py"]\nop-bases = ["object"]\nbenchmark-paths = ["benchmarks/**/*.py"]\n',
        {
            "pkg/__init__.py": "",
            "pkg/kernel.py": kernel.format("ModularKernel"),
            "benchmarks/bench_k.py": bench,
        },
    )
    if moved:
        repo.git("rm", "-q", "pkg/kernel.py")
        repo.write("pkg/fused.py", kernel.format("ModularFwdKernel"))
    else:
        repo.write("pkg/kernel.py", kernel.format("ModularFwdKernel"))
    repo.commit("rename")
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if moved:
        assert r.returncode == 1, r.stdout + r.stderr
        assert repo.read("benchmarks/bench_k.py") == bench
        assert (
            "through an attribute" in r.stdout and "write pkg.fused.ModularFwdKernel (imported)" in r.stdout
        )
    else:
        assert r.returncode == 0, r.stdout + r.stderr
        assert repo.read("benchmarks/bench_k.py") == bench.replace("mk.ModularKernel", "mk.ModularFwdKernel")


def test_an_old_default_the_commit_deleted_is_not_pinned(tmp_path: Path) -> None:
    # vllm e1e318a: `max_num_tokens=envs.VLLM_MOE_DP_CHUNK_SIZE` became a SchedulerConfig default and the
    # commit deleted the setting. Pinned, `envs.CHUNK_SIZE` raised AttributeError; asked of the user, it
    # named a value that no longer exists.
    op = "{imp}\n\n\nclass MoEConfig:\n    def __init__(self, n, max_tokens={default}):\n        self.n = n\n"
    repo = _layout(
        tmp_path,
        'op-paths = ["pkg/**/*.py"]\nop-bases = ["object"]\nbenchmark-paths = ["benchmarks/**/*.py"]\n',
        {
            "pkg/__init__.py": "",
            "pkg/envs.py": "CHUNK_SIZE = 256\nOTHER = 1\n",
            "pkg/ops.py": op.format(imp="import pkg.envs as envs", default="envs.CHUNK_SIZE"),
            "benchmarks/bench_a.py": (
                "from pkg.ops import MoEConfig\n\n\ndef run():\n    return MoEConfig(8)\n"
            ),
            "benchmarks/bench_b.py": (
                "import pkg.envs as envs\nfrom pkg.ops import MoEConfig\n\n\n"
                "def run():\n    return MoEConfig(envs.OTHER)\n"
            ),
        },
    )
    repo.write("pkg/envs.py", "OTHER = 1\n")
    repo.write("pkg/ops.py", op.format(imp="DEFAULT_TOKENS = 512", default="DEFAULT_TOKENS"))
    repo.commit("remove chunking")
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "envs.CHUNK_SIZE is gone from the new version (pkg.envs no longer defines CHUNK_SIZE)" in r.stdout
    assert "CHUNK_SIZE" not in repo.read("benchmarks/bench_b.py")


def test_a_refused_import_no_call_carries_is_a_hand_edit(tmp_path: Path) -> None:
    # vllm 400d483: `from pkg.v1 import V1Meta, v1_shrink`, the module deleted, V1Meta moved and renamed,
    # v1_shrink gone, and only `V1Meta.make(...)` called. The import edit was refused with no call to say so:
    # "every call still binds", exit 0, and the benchmark died with ImportError.
    meta = (
        "class {}:\n    def __init__(self, ids):\n        self.ids = ids\n\n"
        "    @staticmethod\n    def make(n):\n"
    )
    repo = _layout(
        tmp_path,
        'op-paths = ["pkg/**/*.py"]\nop-bases = ["object"]\nbenchmark-paths = ["benchmarks/**/*.py"]\n'
        'test-paths = ["tests/**/*.py"]\n',
        {
            "pkg/__init__.py": "",
            "pkg/v1.py": meta.format("V1Meta") + "        return V1Meta([0] * n)\n\n\ndef v1_shrink(x):\n"
            "    return x\n",
            "tests/test_meta.py": "from pkg.v1 import V1Meta\n\n\ndef test_meta():\n    V1Meta([0])\n",
            "benchmarks/bench_lora.py": (
                "from pkg.v1 import V1Meta, v1_shrink\n\n\n"
                "def run(x):\n    return v1_shrink(V1Meta.make(4))\n"
            ),
        },
    )
    repo.git("rm", "-q", "pkg/v1.py")
    repo.write("pkg/meta.py", meta.format("LoRAMeta") + "        return LoRAMeta([0] * n)\n")
    repo.write(
        "tests/test_meta.py", "from pkg.meta import LoRAMeta\n\n\ndef test_meta():\n    LoRAMeta([0])\n"
    )
    repo.commit("retire v1")
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "bench_lora.py:1: from pkg.v1 import V1Meta, v1_shrink: imports V1Meta, which moved" in r.stdout
    assert "also imports names that did not move to pkg.meta: split that import by hand" in r.stdout
    assert "every benchmark call still binds" not in r.stdout


def test_an_import_from_a_benchmark_module_is_not_judged_by_the_commits_version_of_it(tmp_path: Path) -> None:
    # torchao bdd0fcc, replayed: the commit's benchmarks/utils.py stopped re-exporting a class that moved;
    # the working tree's utils.py (what the hook sees, before the benchmarks are fixed) still gives it.
    # `from benchmarks.utils import Int4Config, clean` was reported as an import that fails.
    repo = _layout(
        tmp_path,
        'op-paths = ["pkg/**/*.py"]\nop-bases = ["object"]\nbenchmark-paths = ["benchmarks/**/*.py"]\n',
        {
            "pkg/__init__.py": "",
            "pkg/ops.py": "class Int4Config:\n    def __init__(self, group=128):\n"
            "        self.group = group\n",
            "benchmarks/__init__.py": "",
            "benchmarks/utils.py": "from pkg.ops import Int4Config\n\n\ndef clean():\n    pass\n",
            "benchmarks/test_utils.py": (
                "from benchmarks.utils import Int4Config, clean\n\n\ndef test_x():\n    clean()\n"
            ),
        },
    )
    old_utils = repo.read("benchmarks/utils.py")
    repo.git("mv", "pkg/ops.py", "pkg/quant.py")
    repo.write("benchmarks/utils.py", "def clean():\n    pass\n")
    repo.git("add", "-A")  # the commit to be made: its utils.py stops re-exporting the class
    repo.write("benchmarks/utils.py", old_utils)  # the tree the benchmarks run in still has the old one
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "test_utils.py:1" not in r.stdout, r.stdout
    assert (
        repo.read("benchmarks/utils.py") == "from pkg.quant import Int4Config\n\n\ndef clean():\n    pass\n"
    )


OBJ_OPS = 'op-paths = ["pkg/**/*.py"]\nop-bases = ["object"]\nbenchmark-paths = ["benchmarks/**/*.py"]\n'


def test_an_import_of_a_removed_class_left_beside_rewritten_names_is_a_hand_edit(tmp_path: Path) -> None:
    # torchao 8d4a921: NVFP4InferenceConfig renamed (its mm_config dropped) and the NVFP4MMConfig enum
    # removed. The import was rewritten for the first name and kept the second: "can rewrite 1 call", exit 0,
    # and the file failed at import.
    cfg = "class {}:\n    def __init__(self, {}scale=True):\n        self.scale = scale\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "from pkg.workflow import InferenceConfig, MMConfig\n",
            "pkg/workflow.py": "class MMConfig:\n    pass\n\n\n" + cfg.format("InferenceConfig", "mm=None, "),
            "benchmarks/bench_r.py": (
                "from pkg.workflow import InferenceConfig, MMConfig\n\n\n"
                "def run():\n    return InferenceConfig(mm=MMConfig(), scale=False)\n"
            ),
        },
    )
    repo.write("pkg/__init__.py", "from pkg.workflow import InferenceFwdConfig\n")
    repo.write("pkg/workflow.py", cfg.format("InferenceFwdConfig", ""))
    repo.commit("rename the config, remove the mm config")
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "bench_r.py:1: from pkg.workflow import InferenceConfig, MMConfig: imports MMConfig" in r.stdout


def test_a_class_of_the_same_name_in_another_module_is_no_move_by_its_name_alone(tmp_path: Path) -> None:
    # xformers 44b0d07: the Triton BwOp deleted from a module that stays, an unrelated CK backend's BwOp
    # added: the import was switched to the CK kernel, exit 0.
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/triton.py": "class FwOp:\n    pass\n\n\nclass BwOp:\n    name = 'triton'\n",
            "benchmarks/bench_bw.py": "from pkg.triton import BwOp\n\n\ndef run():\n    return BwOp()\n",
        },
    )
    repo.write("pkg/triton.py", "class FwOp:\n    pass\n")
    repo.write("pkg/ck.py", "class BwOp:\n    name = 'ck'\n\n    def launch(self):\n        pass\n")
    repo.commit("drop the triton backward, add a CK backend")
    before = repo.read("benchmarks/bench_bw.py")
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read("benchmarks/bench_bw.py") == before
    assert "BwOp() -> removed, or moved to pkg.ck.BwOp (a class of that name appeared there" in r.stdout


def test_a_function_of_a_renamed_module_follows_with_its_body_changed(tmp_path: Path) -> None:
    # torchao 378e179: f8_tensor.py renamed f8_training_tensor.py; `to_f8` kept its parameters, and its body
    # now names the class the commit renamed. "did not move", exit 1, over an import the engineers only
    # re-pointed.
    mod = "class {0}:\n    def __init__(self, emulate=False):\n        self.emulate = emulate\n\n\n"
    mod += "def to_f8(x, cfg):\n    return {0}(emulate=cfg)\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/f8_tensor.py": mod.format("F8Tensor"),
            "benchmarks/bench_pad.py": (
                "from pkg.f8_tensor import F8Tensor, to_f8\n\n\n"
                "def run():\n    return to_f8(F8Tensor(), False)\n"
            ),
        },
    )
    repo.git("rm", "-q", "pkg/f8_tensor.py")
    repo.write("pkg/f8_training_tensor.py", mod.format("F8TrainingTensor"))
    repo.commit("rename the module and its class")
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.read("benchmarks/bench_pad.py").startswith(
        "from pkg.f8_training_tensor import F8TrainingTensor, to_f8\n"
    )


def test_a_value_that_moved_to_another_class_or_a_tests_lambda_is_a_hand_edit(tmp_path: Path) -> None:
    # Megatron 9475bab: `is_built_on_rank` left the dataset config for the builder (required there); the
    # tests pass `lambda: True`. The config call dropped the benchmark's rank-aware function, and the
    # builder call got the tests' stub: every rank would build.
    data = (
        "class Config:\n    def __init__(self, seed{0}):\n        self.seed = seed\n\n\n"
        "class Builder:\n    def __init__(self, cls{1}, config):\n        self.config = config\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS + 'test-paths = ["tests/**/*.py"]\n',
        {
            "pkg/__init__.py": "",
            "pkg/data.py": data.format(", is_built_on_rank=None", ""),
            "tests/test_data.py": (
                "from pkg.data import Builder, Config\n\n\ndef test_b():\n"
                "    Builder(list, Config(1, is_built_on_rank=lambda: True))\n"
            ),
            "benchmarks/bench_data.py": (
                "from pkg.data import Builder, Config\n\n\ndef run(rank_fn):\n"
                "    return Builder(list, Config(1, is_built_on_rank=rank_fn))\n"
            ),
        },
    )
    repo.write("pkg/data.py", data.format("", ", is_built_on_rank"))
    repo.write(
        "tests/test_data.py",
        "from pkg.data import Builder, Config\n\n\ndef test_b():\n"
        "    Builder(list, is_built_on_rank=lambda: True, config=Config(1))\n",
    )
    repo.commit("the builder decides where to build")
    before = repo.read("benchmarks/bench_data.py")
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read("benchmarks/bench_data.py") == before
    assert "'is_built_on_rank' is now a required parameter of Builder's constructor" in r.stdout, r.stdout


def test_a_required_parameter_the_constructor_now_refuses_is_a_hand_edit(tmp_path: Path) -> None:
    # Megatron ffbc43f: `inference_wrapper_config` was required (the old wrapper built its inference context
    # from it); the new constructor keeps it only to raise. Passed by keyword it raised; dropped, the wrapper
    # would run with no context.
    wrap = "class Wrapper:\n    def __init__(self, model, {}context=None):\n{}        self.model = model\n"
    refuse = "        if config is not None:\n            raise TypeError('config is deprecated')\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/wrap.py": wrap.format("config, ", ""),
            "benchmarks/bench_w.py": (
                "from pkg.wrap import Wrapper\n\n\ndef run(cfg):\n    return Wrapper('m', cfg)\n"
            ),
        },
    )
    repo.write(
        "pkg/wrap.py",
        "class Wrapper:\n    def __init__(self, model, context=None, config=None):\n"
        + refuse
        + "        self.model = model\n",
    )
    repo.commit("the wrapper takes a context")
    before = repo.read("benchmarks/bench_w.py")
    r = repo.cli("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read("benchmarks/bench_w.py") == before
    assert "the constructor now refuses 'config', which it required before" in r.stdout, r.stdout


_EP = (
    "class EpBuffer:\n    def __init__(self, top_k, hidden{extra}):\n        self.top_k = top_k\n\n\n"
    "def dispatch(buf, x{kw}):\n    return x\n"
)


@pytest.mark.parametrize("where", ["module", "tests"])
def test_a_value_the_commit_moved_to_another_call_is_not_dropped(tmp_path: Path, where: str) -> None:
    # TransformerEngine 622a3ee: `EpBuffer(dispatch_recv_tokens=...)` left the constructor for
    # `ep_dispatch(..., recv_tokens=...)`. Dropped from the benchmark's call, its flag-chosen buffer was lost
    # and the benchmark measured the default path, exit 0.
    head = "from pkg.ep import EpBuffer, dispatch\n\n\ndef test_ep():\n    rt = [0]\n"
    tests_old = head + "    buf = EpBuffer(2, 8, dispatch_recv_tokens=rt)\n    dispatch(buf, [1])\n"
    # Through the module, `dispatch` gains `recv_tokens` (the tests only drop the keyword); through the
    # tests, `dispatch` takes **kw before and after, and the tests now pass the buffer to it.
    moved = "    dispatch(buf, [1], recv_tokens=rt)\n" if where == "tests" else "    dispatch(buf, [1])\n"
    kw_old, kw_new = ("", ", recv_tokens=None") if where == "module" else (", **kw", ", **kw")
    repo = _layout(
        tmp_path,
        OBJ_OPS + 'test-paths = ["tests/**/*.py"]\n',
        {
            "pkg/__init__.py": "",
            "pkg/ep.py": _EP.format(extra=", dispatch_recv_tokens=None", kw=kw_old),
            "tests/test_ep.py": tests_old,
            "benchmarks/bench_ep.py": "from pkg.ep import EpBuffer, dispatch\n\n\ndef run(buf_in):\n"
            "    buf = EpBuffer(top_k=2, hidden=8, dispatch_recv_tokens=buf_in)\n"
            "    return dispatch(buf, [1])\n",
        },
    )
    repo.write("pkg/ep.py", _EP.format(extra="", kw=kw_new))
    repo.write("tests/test_ep.py", head + "    buf = EpBuffer(2, 8)\n" + moved)
    repo.commit("recv_tokens moves to dispatch")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "dispatch_recv_tokens=buf_in, a value the commit moved elsewhere" in r.stderr
    assert (
        "dispatch gained 'recv_tokens'" if where == "module" else "passes rt to dispatch(recv_tokens=) now"
    ) in r.stderr
    assert r.stdout == ""


def test_a_required_parameter_a_kernel_function_now_takes_is_still_dropped(tmp_path: Path) -> None:
    # The TileOPs way: `Op(M, N)` becomes `Op(N)` and M is read from the input, which the kernel function
    # now takes. Not a value moved by the caller: the call is rewritten.
    op = (
        "class SumOp:\n    def __init__(self, {params}):\n        self.n = N\n\n\n"
        "def kernel({kparams}):\n    return N\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/ops.py": op.format(params="M, N", kparams="N"),
            "benchmarks/bench_sum.py": "from pkg.ops import SumOp\n\n\ndef run(m, n):\n"
            "    return SumOp(m, n)\n",
        },
    )
    repo.write("pkg/ops.py", op.format(params="N", kparams="M, N"))
    repo.commit("M from the input")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "+    return SumOp(n)" in r.stdout


@pytest.mark.parametrize("verbatim", [True, False])
def test_a_moved_class_is_the_same_body_not_the_first_of_its_name(tmp_path: Path, verbatim: bool) -> None:
    # lmdeploy 344e126: decode.py moved verbatim to legacy/, and a profiling script added by the same commit
    # has its own `Engine`. Taking the first by path order, the import went to the profiling class, exit 0.
    engine = (
        "class Engine:\n    def __init__(self, model_path, tokenizer=None):\n        self.m = model_path\n\n"
        "    def decode(self, ids):\n        return [i * 2 for i in ids]\n"
    )
    other = (
        "class Engine:\n    def __init__(self, model_path, tokenizer=None, **kw):\n        self.m = None\n"
    )
    repo = _layout(
        tmp_path,
        'op-paths = ["pkg/**/*.py"]\nop-bases = ["object"]\nbenchmark-paths = ["benchmarks/**/*.py"]\n',
        {
            "pkg/__init__.py": "",
            "pkg/decode.py": engine,
            "benchmarks/bench_decode.py": "from pkg.decode import Engine\n\n\ndef run():\n"
            '    return Engine("m", tokenizer="t")\n',
        },
    )
    repo.git("rm", "-q", "pkg/decode.py")
    repo.write("pkg/legacy/__init__.py", "")
    repo.write("pkg/legacy/decode.py", engine if verbatim else engine.replace("i * 2", "i * 3"))
    repo.write("aaa/profile.py", other)
    repo.commit("move the decode engine to legacy; add a profiling script")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if verbatim:
        assert r.returncode == 0, r.stdout + r.stderr
        assert "+from pkg.legacy.decode import Engine" in r.stdout
    else:
        assert r.returncode == 1, r.stdout + r.stderr
        assert r.stdout == ""
        assert "removed, or moved to one of aaa.profile.Engine, pkg.legacy.decode.Engine" in r.stderr
    assert "aaa.profile import" not in r.stdout


@pytest.mark.parametrize(
    ("annotation", "pinned"), [("Optional[Union[str, List[str]]]", False), ("Optional[bool]", True)]
)
def test_an_old_default_the_new_type_does_not_take_is_not_pinned(
    tmp_path: Path, annotation: str, pinned: bool
) -> None:
    # lmdeploy 80cb84c: `stop: Optional[bool] = False` (end the session) became stop words, `stop:
    # Optional[Union[str, List[str]]] = None`. Pinned, the flag went into the stop words, exit 0.
    client = (
        "from typing import List, Optional, Union\n\n\nclass Client:\n"
        "    def __init__(self, url, stop: {} = {}):\n        self.stop = stop\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/client.py": client.format("Optional[bool]", "False"),
            "benchmarks/bench_api.py": "from pkg.client import Client\n\n\n"
            'def run():\n    return Client("u")\n',
        },
    )
    repo.write("pkg/client.py", client.format(annotation, "None"))
    repo.commit("stop words")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    if pinned:
        assert '+    return Client("u", stop=False)' in r.stdout
    else:
        assert r.stdout == ""
        assert f"not pinned: 'stop' takes {annotation} now, which False is not" in r.stderr


@pytest.mark.parametrize("kwonly", [False, True])
def test_a_positional_splat_is_unharmed_when_only_the_kwargs_went(tmp_path: Path, kwonly: bool) -> None:
    # BitBLAS b952851: `__call__(*args, **kwds)` became `__call__(*args)`, and `self.mm(*args)` binds
    # whatever args holds as before; "only a run can tell" was exit 1 on a call nothing touched. A changed
    # keyword-only default the call relies on is another matter.
    op = (
        "class Matmul:\n    def __init__(self, n):\n        self.n = n\n\n"
        "    def __call__(self, *args{}):\n        return args\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/ops.py": op.format(", flag=False, **kwds" if kwonly else ", **kwds"),
            "benchmarks/bench_mm.py": "from pkg.ops import Matmul\n\n\ndef run(*args):\n"
            "    mm = Matmul(4)\n    return mm(*args)\n",
        },
    )
    repo.write("pkg/ops.py", op.format(", flag=True" if kwonly else ""))
    repo.commit("no keywords")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr  # left to the run, no block
    assert ("only a run can tell" in r.stderr) == kwonly


def test_a_value_is_not_carried_into_the_plural_of_its_parameter(tmp_path: Path) -> None:
    # FlagGems c4d0e604: `Benchmark(dtype=dtype)` became `Benchmark(dtypes=...)`, a list `run()` loops over.
    # Carried by its slot as `dtypes=dtype`, the call bound and then raised "not iterable", exit 0.
    op = (
        "class Benchmark:\n    def __init__(self, op_name, {}, sizes=None):\n        self.op_name = op_name\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/bench.py": op.format("dtype=None"),
            "benchmarks/bench_abs.py": "from pkg.bench import Benchmark\n\n\ndef run(dtype):\n"
            '    return Benchmark("abs", dtype=dtype, sizes=[1])\n',
        },
    )
    repo.write("pkg/bench.py", op.format("dtypes=None"))
    repo.commit("many dtypes")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout == ""
    assert "it leaves 'dtypes' open" in r.stderr


@pytest.mark.parametrize("value", ["mm_args", "lambda d, s: (s,)", "size"])
def test_a_function_the_benchmark_passes_is_a_choice_never_dropped(tmp_path: Path, value: str) -> None:
    # FlagGems 4e6cb3b2: `Benchmark(arg_func=mm_args, sizes=...)` became `Benchmark(dtypes=None)` (the inputs
    # moved to another class's `input_fn`). Dropped, 118 calls bound and then measured nothing. Data (a
    # size) is still dropped, as TileOPs's `M`.
    op = "class Benchmark:\n    def __init__(self, op_name{}):\n        self.op_name = op_name\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/perf.py": op.format(", size" if value == "size" else ", arg_func"),
            "benchmarks/bench_mm.py": "from pkg.perf import Benchmark\n\n\ndef run(size):\n"
            "    def mm_args(dtype, s):\n        return (s,)\n\n"
            f'    return Benchmark("mm", {value})\n',
        },
    )
    repo.write("pkg/perf.py", op.format(""))
    repo.commit("inputs elsewhere")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if value == "size":
        assert r.returncode == 0, r.stdout + r.stderr
        assert '+    return Benchmark("mm")' in r.stdout
    else:
        assert r.returncode == 1, r.stdout + r.stderr
        assert "a function the benchmark defines" in r.stderr
        assert r.stdout == ""


@pytest.mark.parametrize("value", ["level", "logging.INFO"])
def test_a_level_picked_from_a_module_constant_is_a_choice(tmp_path: Path, value: str) -> None:
    # mmcv 35ba1528: `Runner(..., log_level=cfg.log_level)` with `log_level=logging.INFO` gone (for a
    # `logger` built from it). Dropped, the runner stored no logger and crashed at its first message, exit 0.
    # The old default itself is still dropped.
    op = "import logging\n\n\nclass Runner:\n    def __init__(self, model{}):\n        self.model = model\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/runner.py": op.format(", log_level=logging.INFO"),
            "benchmarks/bench_train.py": "import logging\n\nfrom pkg.runner import Runner\n\n\n"
            f'def run():\n    level = logging.DEBUG\n    return Runner("m", log_level={value})\n',
        },
    )
    repo.write("pkg/runner.py", op.format(""))
    repo.commit("the runner logs elsewhere")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if value == "logging.INFO":
        assert r.returncode == 0, r.stdout + r.stderr
        assert '+    return Runner("m")' in r.stdout
    else:
        assert r.returncode == 1, r.stdout + r.stderr
        assert "it passes log_level=level, a choice" in r.stderr


@pytest.mark.parametrize(
    "decorator",
    [
        "@deprecated_api_warning({'out_size': 'output_size'}, cls_name='RoI')",
        "@deprecate_kwarg('out_size', new_name='output_size')",
        "@deprecated_arg(name='out_size', new_name='output_size')",  # MONAI's, by keyword
        "",
    ],
)
def test_an_old_keyword_a_decorator_still_maps_binds(tmp_path: Path, decorator: str) -> None:
    # mmcv b83bdb0c: `RoIAlignRotated(out_size=...)` after `out_size` became `output_size` under
    # `@deprecated_api_warning({'out_size': 'output_size'})`, which passes the old name on: the call binds,
    # and bench-op blocked it. Without the decorator, the keyword is renamed.
    deco = "def deprecated_api_warning(d, cls_name=None):\n    return lambda f: f\n\n\n"
    deco += "def deprecate_kwarg(old, new_name=None):\n    return lambda f: f\n\n\n"
    deco += "def deprecated_arg(name=None, new_name=None):\n    return lambda f: f\n\n\n"
    op = "class RoI:\n    {}\n    def __init__(self, {}, scale):\n        self.scale = scale\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/roi.py": deco + op.format("", "out_size"),
            "benchmarks/bench_roi.py": "from pkg.roi import RoI\n\n\ndef run():\n"
            "    return RoI(out_size=7, scale=0.5)\n",
        },
    )
    repo.write("pkg/roi.py", deco + op.format(decorator, "output_size"))
    repo.commit("output_size")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    if decorator:
        assert r.stdout == ""
        assert "every benchmark call still binds" in r.stderr
    else:
        assert "+    return RoI(output_size=7, scale=0.5)" in r.stdout


@pytest.mark.parametrize("edit", ["around", "elsewhere"])
def test_a_default_is_not_pinned_where_the_change_edited_the_code_around_the_call(
    tmp_path: Path, edit: str
) -> None:
    # mmcv b8d78336, as committed: HSigmoid's defaults changed, and the engineer updated the assertion next to
    # `HSigmoid()` for the new ones. Pinned, the old defaults failed that assertion. An edit in another
    # function says nothing about this call: the default is pinned there.
    op = "class HSigmoid:\n    def __init__(self, bias={}):\n        self.bias = bias\n"
    bench = (
        "from pkg.act import HSigmoid\n\n\ndef test_act():\n    act = HSigmoid()\n"
        "    assert act.bias == {}\n\n\ndef test_other():\n    assert {}\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/act.py": op.format("1.0"),
            "benchmarks/bench_act.py": bench.format("1.0", "True"),
        },
    )
    repo.write("pkg/act.py", op.format("3.0"))
    repo.write("benchmarks/bench_act.py", bench.format("3.0" if edit == "around" else "1.0", "1"))
    repo.commit("new defaults")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    if edit == "around":
        assert r.stdout == ""
        assert "not pinned: this change edited the code around the call and left it so" in r.stderr
    else:
        assert "+    act = HSigmoid(bias=1.0)" in r.stdout


def test_a_function_passed_to_a_function_parameter_is_a_choice(tmp_path: Path) -> None:
    # FlagGems 4e6cb3b2: `arg_func=unary_arg`, a helper module's input generator, dropped with the parameter.
    op = "class Benchmark:\n    def __init__(self, op_name{}):\n        self.op_name = op_name\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/perf.py": op.format(", arg_func=None"),
            "benchmarks/bench_abs.py": "from pkg.perf import Benchmark\nfrom helpers import unary_arg\n\n\n"
            'def run():\n    return Benchmark("abs", arg_func=unary_arg)\n',
        },
    )
    repo.write("pkg/perf.py", op.format(""))
    repo.commit("inputs elsewhere")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "arg_func=unary_arg, a choice (a function: what it does is what is measured)" in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("read", ['peft_config["quant_param"]', 'peft_config.get("quant_param")', "None"])
def test_a_value_the_new_constructor_reads_from_another_argument_is_not_dropped(
    tmp_path: Path, read: str
) -> None:
    # hqq 5d1a8e1: `LoRA(layer, peft_config, quant_param)` became `LoRA(layer, peft_config)`, which reads
    # `peft_config["quant_param"]`. Dropped, the quantization setting was lost, exit 0. A parameter nothing
    # reads any more is still dropped, required or not.
    op = "class LoRA:\n    def __init__(self, layer, peft_config{}):\n        self.q = {}\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/peft.py": op.format(", quant_param", "quant_param"),
            "benchmarks/bench_lora.py": "from pkg.peft import LoRA\n\n\ndef run(q):\n"
            '    return LoRA("layer", {"r": 8}, q)\n',
        },
    )
    repo.write("pkg/peft.py", op.format("", read))
    repo.commit("quant_param in the config")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if read == "None":
        assert r.returncode == 0, r.stdout + r.stderr
        assert '+    return LoRA("layer", {"r": 8})' in r.stdout
    else:
        assert r.returncode == 1, r.stdout + r.stderr
        assert "the new constructor reads peft_config['quant_param']" in r.stderr
        assert r.stdout == ""


@pytest.mark.parametrize("other", [True, False])
def test_a_value_the_same_method_of_another_class_takes_now_is_not_dropped(
    tmp_path: Path, other: bool
) -> None:
    # diffusers a2071a1: `save_lora_weights(transformer_lora_layers=)` moved to the same method of a new
    # `AmusedLoraLoaderMixin`. Dropped, the transformer weights were no longer saved, exit 0. Without such a
    # class nothing reads a `tr` any more: a hand edit too, with that reason (flax 32ad6c57).
    mixin = "class {}:\n    @classmethod\n    def save(cls, out, te=None{}):\n        return out\n\n\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/lora.py": mixin.format("Mixin", ", tr=None"),
            "benchmarks/bench_save.py": "from pkg.lora import Mixin\n\n\ndef run(tr, te):\n"
            '    return Mixin.save("d", tr=tr, te=te)\n',
        },
    )
    repo.write(
        "pkg/lora.py", mixin.format("Mixin", "") + (mixin.format("TrMixin", ", tr=None") if other else "")
    )
    repo.commit("tr moves to its own mixin")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if other:
        assert r.returncode == 1, r.stdout + r.stderr
        assert "a value the commit moved elsewhere (TrMixin.save takes 'tr')" in r.stderr
        assert r.stdout == ""
    else:
        assert r.returncode == 1 and r.stdout == "", r.stdout + r.stderr
        assert "it passes tr=tr, which nothing in the new class reads any more" in r.stderr


def test_an_option_off_by_an_empty_string_is_a_choice_and_its_none_is_no_change(tmp_path: Path) -> None:
    # timm 9214ca0: `ModelEma(model, decay, device='', resume='')` became `(model, decay, device=None)`.
    # `resume=args.resume` was dropped (the EMA weights no longer restored), and `device=''` pinned where the
    # new class reads None as "no device" and raises on ''.
    op = "class Ema:\n    def __init__(self, model, {}):\n        self.model = model\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/ema.py": op.format("device='', resume=''"),
            "benchmarks/bench_ema.py": "from pkg.ema import Ema\n\n\ndef run(args):\n"
            '    return Ema("m", resume=args.resume), Ema("m")\n',
        },
    )
    repo.write("pkg/ema.py", op.format("device=None"))
    repo.commit("simpler ema")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "it passes resume=args.resume, a choice" in r.stderr
    assert "not pinned: the same choice, respelled" in r.stderr
    assert "device=''" not in r.stdout


def test_a_default_spelled_through_another_import_is_no_change(tmp_path: Path) -> None:
    # hqq 255c55e: `compute_dtype=torch.float16` became `compute_dtype: dtype = float16` after `from torch
    # import float16`: the same object. "pin it by hand" blocked calls nothing had changed.
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/torchy.py": "float16 = object()\n",
            "pkg/engine.py": "import pkg.torchy as torch\n\n\nclass W:\n"
            "    def __init__(self, m, dt=torch.float16):\n        self.m = m\n",
            "benchmarks/bench_w.py": 'from pkg.engine import W\n\n\ndef run():\n    return W("m")\n',
        },
    )
    repo.write(
        "pkg/engine.py",
        "from pkg.torchy import float16\n\n\nclass W:\n"
        "    def __init__(self, m, dt=float16):\n        self.m = m\n",
    )
    repo.commit("typing")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == ""
    assert "pin" not in r.stderr


@pytest.mark.parametrize(
    ("call", "new_body", "hand_edit"),
    [
        ('Wrapper("model", cfg)', "        self.ctx = ctx\n", True),
        ('Wrapper("model", cfg, Context(cfg))', "        self.ctx = ctx\n", False),
        ('Wrapper("model", cfg)', "        self.ctx = ctx if ctx is not None else Context(None)\n", False),
    ],
)
def test_a_value_the_old_constructor_built_another_default_from_is_not_dropped(
    tmp_path: Path, call: str, new_body: str, hand_edit: bool
) -> None:
    # Megatron 43db8c1: the base `__init__(self, model, config, ctx=None)` did `if ctx is None: ctx =
    # Context.from_config(config)`; `config` went, and the new code keeps ctx=None as it is. Dropping
    # `config` from `Wrapper(model, config)` built no context at all (a crash on first use, the sizes lost).
    # A call that passes its own context, or a new class that still fills a missing one, loses nothing.
    base = (
        "class Context:\n    def __init__(self, cfg):\n        self.cfg = cfg\n\n\n"
        "class Base:\n    def __init__(self, model, {}ctx=None):\n{}"
        "\n\nclass Wrapper(Base):\n    pass\n"
    )
    old_body = (
        "        if ctx is None:\n            ctx = Context.from_config(config)\n        self.ctx = ctx\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/wrap.py": base.format("config, ", old_body),
            "benchmarks/bench_w.py": "from pkg.wrap import Context, Wrapper\n\n\ndef run(cfg):\n"
            f"    return {call}\n",
        },
    )
    repo.write("pkg/wrap.py", base.format("", new_body))
    repo.commit("the context is the caller's to build")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if hand_edit:
        assert r.returncode == 1, r.stdout + r.stderr
        assert (
            "from which the old constructor built the default of 'ctx', left at its bare default now: "
            "pass ctx by hand" in r.stderr
        ), r.stderr
        assert r.stdout == ""
    else:
        assert r.returncode == 0, r.stdout + r.stderr
        assert "-    return " + call in r.stdout, r.stdout


def test_a_class_renamed_in_its_module_is_no_successor_of_a_deleted_namesake(tmp_path: Path) -> None:
    # Megatron 3a51832: the new tokenizer package deleted, and in the same commit the legacy base class
    # renamed back to the deleted factory's name in its own module. The import of the factory was pointed at
    # the unrelated base ("every call binds"), though the renamed class is the base's own successor.
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/newtok.py": 'class Tok:\n    """A factory."""\n\n    def __init__(self):\n'
            '        raise TypeError("use from_pretrained")\n',
            "pkg/legacy.py": 'class LegacyTok:\n    """A base."""\n\n    def __init__(self, *paths):\n'
            "        self.paths = paths\n",
            "benchmarks/bench_tok.py": "from pkg.newtok import Tok\n\n\ndef run():\n    return Tok()\n",
        },
    )
    repo.git("rm", "-q", "pkg/newtok.py")
    repo.replace("pkg/legacy.py", "class LegacyTok:", "class Tok:")
    repo.commit("revert the new tokenizers")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "pkg.legacy.Tok" not in r.stdout, r.stdout
    assert "Tok() -> removed, or moved to pkg.legacy.Tok" in r.stdout + r.stderr, r.stdout + r.stderr
    assert (r.stdout + r.stderr).count("imports Tok from pkg.newtok") == 1, r.stdout + r.stderr


def test_arguments_that_go_into_a_new_star_args_are_never_dropped(tmp_path: Path) -> None:
    # pyg d99fc69e: `forward(inputs, conv_layer=None, norm_layer=None)` became `forward(*args, **kwargs)`.
    # Every argument was "removed" and dropped, the inputs too: `layer()`, exit 0.
    layer = "class Layer:\n    def __init__(self, block='res'):\n        self.block = block\n\n    {}\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/layer.py": layer.format(
                "def forward(self, inputs, conv=None):\n        return conv(inputs)"
            ),
            "benchmarks/bench_l.py": "from pkg.layer import Layer\n\n\ndef run(x, conv):\n"
            "    return Layer().forward((x, 1), conv)\n",
        },
    )
    repo.write("pkg/layer.py", layer.format("def forward(self, *args, **kwargs):\n        return args"))
    repo.commit("forward takes anything")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == "", r.stdout
    assert "unknown: the run decides (argument (x, 1) now goes into *args instead of 'inputs')" in r.stderr
    assert "'*args' added; '**kwargs' added" in r.stderr, r.stderr


def test_a_renamed_keyword_a_new_star_star_kwargs_would_swallow_is_renamed(tmp_path: Path) -> None:
    # pyg c75e80d9: `dropout_att` renamed `dropout` in a constructor that takes `**kwargs` (forwarded to an
    # inner layer). `dropout_att=0.3` still bound, into the kwargs, and was reported "binds with the same
    # meaning", exit 0: the pooling ran without its dropout.
    pool = "class Pool:\n    def __init__(self, n, {}=0.0, **kwargs):\n        self.kw = kwargs\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/pool.py": pool.format("dropout_att"),
            "benchmarks/bench_p.py": "from pkg.pool import Pool\n\n\ndef run():\n"
            "    return Pool(16, dropout_att=0.3)\n",
        },
    )
    repo.write("pkg/pool.py", pool.format("dropout"))
    repo.commit("rename dropout_att")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "+    return Pool(16, dropout=0.3)" in r.stdout, r.stdout + r.stderr


def test_an_old_default_the_new_constructor_rejects_is_not_pinned(tmp_path: Path) -> None:
    # pyg 3e0e5a4: `return_type='log_proba'` became 'log_prob', and the constructor asserts `return_type in
    # ['log_prob', 'prob', 'raw']`. 'log_proba' was pinned, exit 0, and the benchmark failed the assertion.
    op = "class Explainer:\n    def __init__(self, model, kind='{}'):\n        assert kind in [{}]\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/ex.py": op.format("log_proba", "'log_proba', 'raw'"),
            "benchmarks/bench_e.py": "from pkg.ex import Explainer\n\n\ndef run():\n"
            "    return Explainer(None)\n",
        },
    )
    repo.write("pkg/ex.py", op.format("log_prob", "'log_prob', 'raw'"))
    repo.commit("respell the kinds")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == "", r.stdout
    assert "not pinned: the new constructor accepts only 'log_prob', 'raw' for 'kind'" in r.stderr, r.stderr


@pytest.mark.parametrize("tests", [1, 2])
def test_a_constant_one_updated_test_gives_a_new_required_parameter_is_its_own(
    tmp_path: Path, tests: int
) -> None:
    # pyg c4c787ba: `GraphUNet(channels, depth)` -> `(in_channels, hidden_channels, out_channels, depth)`, and
    # the one test updated went from `GraphUNet(16, depth=3)` to `GraphUNet(16, 32, 8, depth=3)`. Its 32 and 8
    # were copied into the benchmark, whose 32 channels then came out as 8. Two tests of different sizes that
    # both add the same constant show it is the commit's choice.
    op = "class UNet:\n    def __init__(self, {}, depth):\n        self.depth = depth\n"
    calls = [
        ("UNet(16, depth=3)", "UNet(16, 32, 8, depth=3)"),
        ("UNet(64, depth=2)", "UNet(64, 32, 8, depth=2)"),
    ]
    test = "from pkg.unet import UNet\n\n\n" + "".join(
        f"def test_{k}():\n    assert {{{k}}}\n\n\n" for k in range(tests)
    )
    repo = _layout(
        tmp_path,
        'op-paths = ["pkg/**/*.py"]\nop-bases = ["object"]\nbenchmark-paths = ["benchmarks/**/*.py"]\n'
        'test-paths = ["tests/**/*.py"]\n',
        {
            "pkg/__init__.py": "",
            "pkg/unet.py": op.format("channels"),
            "tests/test_unet.py": test.format(*(old for old, _ in calls[:tests])),
            "benchmarks/bench_u.py": "from pkg.unet import UNet\n\n\ndef run():\n"
            "    return UNet(32, depth=3)\n",
        },
    )
    repo.write("pkg/unet.py", op.format("in_channels, hidden_channels, out_channels"))
    repo.write("tests/test_unet.py", test.format(*(new for _, new in calls[:tests])))
    repo.commit("separate channels")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if tests == 1:
        assert r.returncode == 1, r.stdout + r.stderr
        assert "only one test call passes 'hidden_channels=32' (tests/test_unet.py:5)" in r.stderr, r.stderr
        assert r.stdout == ""
    else:
        assert r.returncode == 0, r.stdout + r.stderr
        assert "hidden_channels=32, out_channels=8" in r.stdout, r.stdout


@pytest.mark.parametrize(
    "new",
    [
        "keys=None):\n        if keys is None:\n            keys = [Key.X]\n        self.keys = keys\n",
        "keys=None):\n        self.keys = keys or [Key.X]\n",
        "keys=(Key.X,)):\n        self.keys = keys\n",
    ],
)
def test_a_mutable_default_made_safe_is_no_change_to_pin(tmp_path: Path, new: str) -> None:
    # kornia 52cee42a, pyg 45fb6530 (ruff B006): `keys=[Key.X]` became `keys=None` restored in the body, or
    # the same values as a tuple. A pin was asked for by hand (Key not imported in the benchmark), exit 1.
    op = "from pkg.keys import Key\n\n\nclass Mix:\n    def __init__(self, p=0.5, {}"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/keys.py": "import enum\n\n\nclass Key(enum.Enum):\n    X = 0\n",
            "pkg/mix.py": op.format("keys=[Key.X]):\n        self.keys = keys\n"),
            "benchmarks/bench_m.py": "from pkg.mix import Mix\n\n\ndef run():\n    return Mix(p=1.0)\n",
        },
    )
    repo.write("pkg/mix.py", op.format(new))
    repo.commit("no mutable defaults")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == "", r.stdout
    assert "by hand" not in r.stderr, r.stderr


def test_a_default_that_follows_its_enums_rename_is_no_change(tmp_path: Path) -> None:
    # kornia 8856d821: the enum `Kernel` renamed `MIKernel`, and the default `Kernel.xu` with it. A pin of
    # `Kernel.xu` (a name gone) was asked for by hand, exit 1.
    op = (
        "import enum\n\n\nclass {0}(enum.Enum):\n    xu = 1\n\n\n"
        "class Loss:\n    def __init__(self, k={0}.xu):\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/mi.py": op.format("Kernel") + "        self.k = k\n",
            "benchmarks/bench_mi.py": "from pkg.mi import Loss\n\n\ndef run():\n    return Loss()\n",
        },
    )
    repo.write("pkg/mi.py", op.format("MIKernel") + "        self.k = k\n")
    repo.commit("rename the kernel enum")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == "", r.stdout
    assert "every benchmark call still binds with the same meaning" in r.stderr, r.stderr


@pytest.mark.parametrize(
    ("bench", "rewritten"),
    [
        # kornia 9aa8c7f6: a literal tuple splat, and the constructor only gained an optional parameter last.
        ("def run():\n    params = (0.5, 0.5)\n    return Loss(*params)\n", None),
        # pyg 77f357e2: a module-level dict splat whose keys none of the change touches.
        ("KW = {'alpha': 0.5}\n\n\ndef run():\n    return Loss(beta=0.5, **KW)\n", None),
        # FBGEMM 042cf198: one key written in two exclusive branches ("got multiple values", exit 1).
        (
            "def run(opt, e):\n    kw = {'alpha': 0.5}\n    if opt:\n        kw['eps'] = e\n    else:\n"
            "        kw['eps'] = e\n    return Loss(beta=0.5, **kw)\n",
            None,
        ),
        # The same dict, where the change renamed one of its keys: the module's dict is edited.
        ("KW = {'eps': 1e-6}\n\n\ndef run():\n    return Loss(0.5, 0.5, **KW)\n", "KW = {'epsilon': 1e-6}"),
        # And annotated, in a function (FBGEMM's `kwargs: Dict[str, Any] = {...}`, unread before).
        (
            "def run():\n    kw: dict = {'eps': 1e-6}\n    return Loss(0.5, 0.5, **kw)\n",
            "    kw: dict = {'epsilon': 1e-6}",
        ),
    ],
)
def test_splats_the_change_cannot_reach_bind_as_before(
    tmp_path: Path, bench: str, rewritten: str | None
) -> None:
    # Each was "passes *args/**kwargs, so only a run can tell", exit 1.
    op = "class Loss:\n    def __init__(self, alpha, beta, {}):\n        self.alpha = alpha\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/loss.py": op.format("eps=1e-8"),
            "benchmarks/bench_l.py": "from pkg.loss import Loss\n\n" + bench,
        },
    )
    repo.write("pkg/loss.py", op.format("epsilon=1e-8" if rewritten else "eps=1e-8, ignore_index=-100"))
    repo.commit("change the loss")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    if rewritten is None:
        assert r.stdout == "", r.stdout
        assert "every benchmark call still binds with the same meaning" in r.stderr, r.stderr
    else:
        assert "+" + rewritten in r.stdout, r.stdout + r.stderr


def test_a_default_respelled_as_the_same_number_is_no_change(tmp_path: Path) -> None:
    # pyg 5d768659: `dropout=0` -> `dropout=0.0`, `multiplier=1` -> `1.`; the old ints were pinned into
    # every call that relied on them.
    op = "class Pool:\n    def __init__(self, n, dropout={}, multiplier={}, flag={}):\n        self.n = n\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/pool.py": op.format("0", "1", "1"),
            "benchmarks/bench_p.py": "from pkg.pool import Pool\n\n\ndef run():\n    return Pool(16)\n",
        },
    )
    repo.write("pkg/pool.py", op.format("0.0", "1.", "True"))
    repo.commit("float defaults")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "'flag' default 1 -> True" in r.stderr, r.stderr  # a bool is no number here
    assert "'dropout' default" not in r.stderr and "'multiplier' default" not in r.stderr, r.stderr
    assert "dropout=0" not in r.stdout and "flag=1" in r.stdout, r.stdout


def test_a_default_the_updated_tests_adopt_needs_no_pin_by_hand(tmp_path: Path) -> None:
    # FBGEMM f592c6d: `step_mode=StepMode.USE_COUNTER` -> `USE_ITER`, the updated test moved to the new value,
    # and the benchmark, which does not import StepMode, got "pin step_mode=StepMode.USE_COUNTER by hand",
    # exit 1.
    op = (
        "from pkg.modes import Mode\n\n\nclass TBE:\n    def __init__(self, n, mode=Mode.{}):\n"
        "        self.n = n\n"
    )
    test = (
        "from pkg.modes import Mode\nfrom pkg.tbe import TBE\n\n\ndef test_t():\n    TBE(4, mode=Mode.{})\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS + 'test-paths = ["tests/**/*.py"]\n',
        {
            "pkg/__init__.py": "",
            "pkg/modes.py": "import enum\n\n\nclass Mode(enum.Enum):\n    COUNTER = 1\n    ITER = 2\n",
            "pkg/tbe.py": op.format("COUNTER"),
            "tests/test_tbe.py": test.format("COUNTER"),
            "benchmarks/bench_t.py": "from pkg.tbe import TBE\n\n\ndef run():\n    return TBE(8)\n",
        },
    )
    repo.write("pkg/tbe.py", op.format("ITER"))
    repo.write("tests/test_tbe.py", test.format("ITER"))
    repo.commit("count by iteration")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "not pinned: the updated tests use the new default (tests/test_tbe.py:6)" in r.stderr, r.stderr


@pytest.mark.parametrize("kept", [False, True])
def test_a_member_the_renamed_class_lost_is_a_hand_edit(tmp_path: Path, kept: bool) -> None:
    # pyg 1acbf5dd: `DiffNorm` became `DiffGroupNorm`, and its static `groupDistanceRatio` became
    # `group_distance_ratio`. The import followed the rename, "every call binds", exit 0, and the benchmark's
    # `DiffNorm.groupDistanceRatio` raised AttributeError.
    member = "ratio" if kept else "group_ratio"
    op = (
        "class {}:\n    def __init__(self, n):\n        self.n = n\n\n"
        "    @staticmethod\n    def {}(h):\n        return h\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "from pkg.norm import Norm\n",
            "pkg/norm.py": op.format("Norm", "ratio"),
            "benchmarks/bench_n.py": "from pkg import Norm\n\n\ndef run():\n"
            "    Norm(4)\n    return Norm.ratio\n",
        },
    )
    repo.write("pkg/__init__.py", "from pkg.norm import GroupNorm\n")
    repo.write("pkg/norm.py", op.format("GroupNorm", member))
    repo.commit("rename the norm")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if kept:
        assert r.returncode == 0, r.stdout + r.stderr
        assert "+    return GroupNorm.ratio" in r.stdout, r.stdout
    else:
        assert r.returncode == 1, r.stdout + r.stderr
        assert "return Norm.ratio: GroupNorm has no 'ratio' (the commit removed or renamed it)" in r.stderr


def test_a_removed_class_s_import_is_the_one_of_its_module(tmp_path: Path) -> None:
    # peft 64a9867: `ia3` and `vera` each had a `Linear8bitLt`, both imported under aliases; `vera`'s was
    # removed, and the hand edit quoted `ia3`'s import, which still works.
    layer = "class Linear8bitLt:\n    def __init__(self, base):\n        self.base = base\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/ia3.py": layer,
            "pkg/vera.py": layer,
            "benchmarks/bench_l.py": "from pkg.ia3 import Linear8bitLt as A\n"
            "from pkg.vera import Linear8bitLt as B\n\n\ndef run():\n    return A(1), B(2)\n",
        },
    )
    repo.git("rm", "-q", "pkg/vera.py")
    repo.commit("drop vera's layer")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert (
        "bench_l.py:2: from pkg.vera import Linear8bitLt as B: imports Linear8bitLt from pkg.vera" in r.stderr
    )
    assert "bench_l.py:1:" not in r.stderr, r.stderr


def test_a_name_its_module_still_binds_is_not_taken_for_a_moved_class(tmp_path: Path) -> None:
    # pyg 744fceea: `GNNExplainer` moved to `explain/` with a new interface, and `models` kept the old one as
    # `GNNExplainer = deprecated(...)(GNNExplainer_)`. The benchmark's import was pointed at the new class
    # and its call blocked, though it still worked as written.
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/models/__init__.py": "from pkg.models.ex import Explainer\n",
            "pkg/models/ex.py": "class Explainer:\n    def __init__(self, model, epochs=100):\n"
            "        self.m = model\n",
            "pkg/explain.py": "",
            "benchmarks/bench_e.py": "from pkg.models import Explainer\n\n\ndef run():\n"
            "    return Explainer(None, epochs=200)\n",
        },
    )
    repo.git("rm", "-q", "pkg/models/ex.py")
    repo.write(
        "pkg/explain.py",
        "class Explainer:\n    def __init__(self, epochs=100):\n        self.e = epochs\n\n\n"
        "class Explainer_:\n    def __init__(self, model, epochs=100):\n        self.m = model\n",
    )
    repo.write(
        "pkg/models/__init__.py",
        "from pkg.explain import Explainer_\n\n\ndef deprecated(cls):\n    return cls\n\n\n"
        "Explainer = deprecated(Explainer_)\n",
    )
    repo.commit("move the explainer; keep the old one")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == "", r.stdout


def test_a_renamed_keyword_beside_a_literal_dict_splat_is_renamed_in_the_call(tmp_path: Path) -> None:
    # pyg 3c2ef09: `AddMask(split, num_mask=M, **kw)`, `num_mask` renamed `num_splits`, and `kw =
    # dict(num_val=..)` untouched. It was refused: "the splatted dict is not a literal bench-op can edit in
    # place".
    op = "class AddMask:\n    def __init__(self, split, {}=1, num_val=500):\n        self.split = split\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/mask.py": op.format("num_mask"),
            "benchmarks/bench_m.py": "from pkg.mask import AddMask\n\n\ndef run(m):\n"
            "    kw = dict(num_val=320)\n    return AddMask('train', num_mask=m, **kw)\n",
        },
    )
    repo.write("pkg/mask.py", op.format("num_splits"))
    repo.commit("rename num_mask")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "+    return AddMask('train', num_splits=m, **kw)" in r.stdout, r.stdout
    assert "fix: AddMask('train', num_splits=m, **kw)" in r.stderr, r.stderr


@pytest.mark.parametrize(("new_default", "hand"), [('"cpu"', True), ('"cuda"', False)])
def test_an_old_none_is_what_the_old_constructor_made_of_it(
    tmp_path: Path, new_default: str, hand: bool
) -> None:
    # kornia 865de5d6: `device=None` meant `if device is None: device = "cuda"`; the new default is "cpu" and
    # None is taken as it is. `device=None` was pinned ("the benchmark measured None"), and raised.
    old = "class Glue:\n    def __init__(self, name, device=None):\n        if device is None:\n"
    old += '            device = "cuda"\n        self.device = device\n'
    new = f"class Glue:\n    def __init__(self, name, device={new_default}):\n        self.device = device\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/glue.py": old,
            "benchmarks/bench_g.py": "from pkg.glue import Glue\n\n\ndef run():\n    return Glue('disk')\n",
        },
    )
    repo.write("pkg/glue.py", new)
    repo.commit("an explicit device")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.stdout == "", r.stdout
    if hand:
        assert r.returncode == 1, r.stdout + r.stderr
        assert "the old constructor turned None into 'cuda'; pin device='cuda' by hand" in r.stderr, r.stderr
    else:
        assert r.returncode == 0, r.stdout + r.stderr
        assert "every benchmark call still binds with the same meaning" in r.stderr, r.stderr


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        # kornia 074f1053, 8c4cedca: deprecated by a None default that raises (246 pins raised), or warns, on
        # anything else.
        (
            "flag=False):\n        self.flag = flag\n",
            "flag=None):\n        if flag is not None:\n            warnings.warn('deprecated')\n",
            "takes 'flag' only as None now",
        ),
        # FBGEMM: `cache_assoc=32` became the platform's `ASSOC` (64 on ROCm), asserted.
        (
            "flag=32):\n        self.flag = flag\n",
            "flag=ASSOC):\n        assert flag == ASSOC\n",
            "asserts flag == ASSOC",
        ),
        # kornia: `interpolation=None` became `Union[str, Mode] = Mode.X.name`, and None raises.
        (
            "flag=None):\n        self.flag = flag\n",
            "flag: Union[str, Mode] = Mode.X.name):\n        self.flag = Mode[flag]\n",
            "takes Union[str, Mode] now, which None is not",
        ),
    ],
)
def test_an_old_default_the_new_constructor_would_not_take_is_not_pinned(
    tmp_path: Path, old: str, new: str, why: str
) -> None:
    head = (
        "import enum\nimport warnings\nfrom typing import Union\n\nASSOC = 32\n\n\n"
        "class Mode(enum.Enum):\n    X = 1\n\n\n"
    )
    op = head + "class Op:\n    def __init__(self, n, "
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/op.py": op + old,
            "benchmarks/bench_o.py": "from pkg.op import Op\n\n\ndef run():\n    return Op(4)\n",
        },
    )
    repo.write("pkg/op.py", op + new)
    repo.commit("change the default")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == "", r.stdout
    assert why in r.stderr, r.stderr


def test_a_rename_the_constructor_and_a_method_share_is_no_move_to_the_method(tmp_path: Path) -> None:
    # FBGEMM: `load_factor` became `pruning_hash_load_factor` in the constructor and in
    # `set_index_remappings` alike. The hand edit said the value moved to the method, where the constructor
    # takes it under its new name.
    op = (
        "class TBE:\n    def __init__(self, specs, {0}=0.5):\n        self.specs = specs\n\n"
        "    def remap(self, index, {0}=0.5):\n        return index\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/tbe.py": op.format("load_factor"),
            "benchmarks/bench_t.py": "from pkg.tbe import TBE\n\n\ndef run(f):\n"
            "    return TBE([], load_factor=f)\n",
        },
    )
    repo.write("pkg/tbe.py", op.format("pruning_hash_load_factor"))
    repo.commit("a clearer name")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "moved elsewhere" not in r.stderr, r.stderr
    assert "'load_factor' was removed and 'pruning_hash_load_factor' added" in r.stderr, r.stderr


def test_a_value_for_a_removed_parameter_a_namesake_replaced_is_not_dropped(tmp_path: Path) -> None:
    # pyg aa2c5985: `forward(x, ei, size=None, edge_feature=None)` -> `forward(x, ei, edge_attr=None,
    # size=None)`. The slot moved, so no rename was read: `edge_feature=e1` was dropped, and the layer
    # skipped its edge path, exit 0.
    op = "class Conv:\n    def __init__(self, n):\n        self.n = n\n\n    def forward(self, x, ei, {}):\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/conv.py": op.format("size=None, edge_feature=None") + "        return x\n",
            "benchmarks/bench_c.py": "from pkg.conv import Conv\n\n\ndef run(x, ei, e1):\n"
            "    return Conv(4).forward(x, ei, edge_feature=e1)\n",
        },
    )
    repo.write("pkg/conv.py", op.format("edge_attr=None, size=None") + "        return x\n")
    repo.commit("edge_attr")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout == "", r.stdout
    assert "'edge_feature' was removed and 'edge_attr' added" in r.stderr, r.stderr


def test_a_bool_default_the_new_code_takes_as_a_request_is_not_pinned(tmp_path: Path) -> None:
    # pyg f3d0dfcb: `forward(x, return_attention_weights=False)` became `=None`, and the body `if
    # isinstance(return_attention_weights, bool): return out, alpha`. The pinned False returned a tuple where
    # the benchmark measured a tensor.
    op = (
        "class Conv:\n    def __init__(self, n):\n        self.n = n\n\n"
        "    def forward(self, x, weights={}):\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/conv.py": op.format("False") + "        return (x, 1) if weights else x\n",
            "benchmarks/bench_c.py": "from pkg.conv import Conv\n\n\ndef run(x):\n"
            "    return Conv(4).forward(x)\n",
        },
    )
    repo.write(
        "pkg/conv.py", op.format("None") + "        return (x, 1) if isinstance(weights, bool) else x\n"
    )
    repo.commit("weights on request")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == "", r.stdout
    assert "not pinned: the new code takes any bool for 'weights' as a request" in r.stderr, r.stderr


@pytest.mark.parametrize(
    ("new_body", "hand_edit"),
    [
        # The linear part gone with its sizes: the model measured is another one.
        ("        self.k = k\n\n    def forward(self, x):\n        return x * self.k\n", True),
        # The Op reads the size from its input now (the TileOPs pattern): the value is not lost.
        (
            "        self.k = k\n\n    def forward(self, x):\n        c_in = x.shape[-1]\n"
            "        return x[:, :c_in] * self.k\n",
            False,
        ),
        # The part is still built, from something else.
        ("        self.k = k\n        self.lin = Linear(k, k)\n", False),
    ],
)
def test_a_size_that_built_a_part_the_new_class_dropped_is_not_dropped(
    tmp_path: Path, new_body: str, hand_edit: bool
) -> None:
    # pyg df2113b4: `APPNP(in_channels, out_channels, K, alpha)` -> `APPNP(K, alpha)`, its `self.lin =
    # Linear(in_channels, out_channels)` removed. The sizes were dropped as if the layer now read them from
    # its input: `APPNP(K, alpha)`, exit 0, and the benchmark's model lost both linear layers.
    old = (
        "class Linear:\n    def __init__(self, a, b):\n        self.shape = (a, b)\n\n\n"
        "class Conv:\n    def __init__(self, c_in, c_out, k):\n        self.k = k\n"
        "        self.lin = Linear(c_in, c_out)\n"
    )
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/conv.py": old,
            "benchmarks/bench_conv.py": "from pkg.conv import Conv\n\n\ndef run(f, h):\n"
            "    return Conv(f, h, 10)\n",
        },
    )
    head = old.split("class Conv")[0]
    repo.write("pkg/conv.py", head + "class Conv:\n    def __init__(self, k):\n" + new_body)
    repo.commit("Conv: propagation only")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if hand_edit:
        assert r.returncode == 1, r.stdout + r.stderr
        assert (
            "passes c_in=f, from which the old constructor built self.lin, a part the new class no longer "
            "has: dropping it changes what is measured; rewrite the call by hand" in r.stderr
        ), r.stderr
        assert r.stdout == ""
    else:
        assert r.returncode == 0, r.stdout + r.stderr
        assert "+    return Conv(10)" in r.stdout, r.stdout


@pytest.mark.parametrize(
    ("call", "rewritten"),
    [
        ("Op(4, eps=e)", None),  # the call's own value: neither theirs nor carried over
        ("Op(4, eps=1e-3)", None),
        ("Op(4, eps=1e-5)", "Op(4, epsilon=1e-6)"),  # the old default: their edit, whole
    ],
)
def test_a_slot_the_tests_set_to_a_constant_of_their_own_is_not_filled_for_the_call(
    tmp_path: Path, call: str, rewritten: str | None
) -> None:
    # The tests' edit `Op(4, eps=1e-5)` -> `Op(4, epsilon=1e-6)`: a rename read off the slot, undone by
    # the tests, which set the new parameter to a constant of theirs. `Op(4, eps=e)` became
    # `Op(4, epsilon=1e-6)`: the benchmark's own value dropped and the tests' put in its place, exit 0.
    op = "class Op:\n    def __init__(self, n, {}=1e-5):\n        self.n = n\n"
    test = "from pkg.op import Op\n\n\ndef test():\n    Op(4, {})\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS + 'test-paths = ["tests/**/*.py"]\n',
        {
            "pkg/__init__.py": "",
            "pkg/op.py": op.format("eps"),
            "tests/test_op.py": test.format("eps=1e-5"),
            "benchmarks/bench_op.py": f"from pkg.op import Op\n\n\ndef run(e):\n    return {call}\n",
        },
    )
    repo.write("pkg/op.py", op.format("epsilon"))
    repo.write("tests/test_op.py", test.format("epsilon=1e-6"))
    repo.commit("epsilon")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if rewritten is None:
        assert r.returncode == 1, r.stdout + r.stderr
        assert (
            "the commit's own edits set 'epsilon' to 1e-6 of their own where they passed 'eps', so nothing "
            "says what this value becomes: pass epsilon by hand" in r.stderr
        ), r.stderr
        assert r.stdout == ""
    else:
        assert r.returncode == 0, r.stdout + r.stderr
        assert "+    return " + rewritten in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize(
    ("new_op", "rewritten"),
    [
        # `m` removed: the subclass's own call of the Op's constructor breaks like any other.
        (
            "class Op:\n    def __init__(self, n, dtype):\n        self.n = n\n",
            '        super().__init__(n, "f16")',
        ),
        # The Op renamed with its constructor as it was: the base's import follows, the call stays.
        ("class NewOp:\n    def __init__(self, m, n, dtype):\n        self.n = n\n", None),
    ],
)
def test_a_benchmark_subclass_building_its_op_through_super_is_a_call_of_the_op(
    tmp_path: Path, new_op: str, rewritten: str | None
) -> None:
    # `class MyOp(Op): def __init__(...): super().__init__(m, n, "f16")` in a benchmark: no call site was
    # seen there, so `Op(m, n, dtype)` -> `Op(n, dtype)` left "every benchmark call still binds", and the
    # benchmark failed at its first case.
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/op.py": "class Op:\n    def __init__(self, m, n, dtype):\n        self.n = n\n",
            "benchmarks/bench_op.py": "from pkg.op import Op\n\n\nclass MyOp(Op):\n"
            '    def __init__(self, m, n):\n        super().__init__(m, n, "f16")\n\n\nMyOp(4, 8)\n',
        },
    )
    repo.write("pkg/op.py", new_op)
    repo.commit("change the Op")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    if rewritten is not None:
        assert "+" + rewritten in r.stdout, r.stdout + r.stderr
    else:
        assert "+from pkg.op import NewOp\n" in r.stdout and "+class MyOp(NewOp):\n" in r.stdout, r.stdout
        assert "+        super()" not in r.stdout, r.stdout


@pytest.mark.parametrize(
    ("new_op", "test_edit", "dropped"),
    [
        # Nothing in the new class reads a `stride` any more: the benchmark's own value would just vanish.
        ("class Jagged:\n    def __init__(self, values):\n        self.values = values\n", None, False),
        # The Op reads it from its input now, and says so.
        (
            "class Jagged:\n    def __init__(self, values):\n        self.values = values\n"
            "        self.stride = len(values)\n",
            None,
            True,
        ),
        # The commit's own tests drop it the same way.
        (
            "class Jagged:\n    def __init__(self, values):\n        self.values = values\n",
            ("Jagged([1], stride=2)", "Jagged([1])"),
            True,
        ),
    ],
)
def test_a_value_for_an_optional_parameter_nothing_reads_any_more_is_not_dropped(
    tmp_path: Path, new_op: str, test_edit: tuple[str, str] | None, dropped: bool
) -> None:
    # torchrec `KeyedJaggedTensor(..., stride_per_key_per_rank=spk)`, MONAI `StatsHandler(logger_handler=h)`,
    # composer `Trainer(grad_accum=grad_accum)`: an optional parameter removed, and the benchmark's own value
    # for it dropped ("not a choice": a variable), exit 0. Each call then measured something else.
    test = "from pkg.op import Jagged\n\n\ndef test():\n    {}\n"
    files = {
        "pkg/__init__.py": "",
        "pkg/op.py": "class Jagged:\n    def __init__(self, values, stride=None):\n"
        "        self.stride = stride\n",
        "benchmarks/bench_op.py": "from pkg.op import Jagged\n\n\ndef run(s):\n"
        "    return Jagged([1, 2], stride=s)\n",
    }
    if test_edit:
        files["tests/test_op.py"] = test.format(test_edit[0])
    repo = _layout(tmp_path, OBJ_OPS + 'test-paths = ["tests/**/*.py"]\n', files)
    repo.write("pkg/op.py", new_op)
    if test_edit:
        repo.write("tests/test_op.py", test.format(test_edit[1]))
    repo.commit("no stride")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if dropped:
        assert r.returncode == 0, r.stdout + r.stderr
        assert "+    return Jagged([1, 2])" in r.stdout, r.stdout + r.stderr
    else:
        assert r.returncode == 1, r.stdout + r.stderr
        assert (
            "passes stride=s, which nothing in the new class reads any more: dropping it changes what is "
            "measured; rewrite the call by hand" in r.stderr
        ), r.stderr


@pytest.mark.parametrize(("bench_import", "pinned"), [("other", False), ("pkg", True)])
def test_an_old_default_is_pinned_only_where_its_names_mean_the_same(
    tmp_path: Path, bench_import: str, pinned: bool
) -> None:
    # flax 2d32f287: `init_fn=initializers.zeros` (flax's) pinned into a benchmark whose `initializers` is
    # jax.nn's: it bound, and measured another initializer.
    op = "from pkg import initializers\n\n\nclass Cell:\n    def __init__(self, n, init={}):\n"
    op += "        self.n = n\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "other/__init__.py": "",
            "pkg/initializers.py": "def zeros():\n    return 0\n\n\ndef ones():\n    return 1\n",
            "other/initializers.py": "def zeros():\n    return 'other'\n",
            "pkg/op.py": op.format("initializers.zeros"),
            "benchmarks/bench_op.py": f"from {bench_import} import initializers\nfrom pkg.op import Cell\n\n"
            "Cell(4)\n",
        },
    )
    repo.write("pkg/op.py", op.format("initializers.ones"))
    repo.commit("ones")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if pinned:
        assert r.returncode == 0 and "+Cell(4, init=initializers.zeros)" in r.stdout, r.stdout + r.stderr
    else:
        assert r.returncode == 1 and r.stdout == "", r.stdout + r.stderr
        assert (
            "not pinned: initializers in the benchmark is other.initializers, not the pkg.initializers the "
            "old default named; pin init=initializers.zeros with pkg.initializers by hand" in r.stderr
        ), r.stderr


@pytest.mark.parametrize(
    ("new_members", "new_default", "said"),
    [
        # The member renamed, its value as it was: the same choice, nothing to pin.
        ('    GPTQ = "gptq"\n    PARO = "paroquant"\n', "Method.PARO", "every benchmark call still binds"),
        # The member gone: pinning it would raise AttributeError.
        (
            '    GPTQ = "gptq"\n',
            "Method.GPTQ",
            "not pinned: Method.PAROQUANT is gone from the new version (pkg.config.Method no longer defines "
            "PAROQUANT)",
        ),
    ],
)
def test_an_old_default_naming_a_member_the_class_no_longer_has_is_not_pinned(
    tmp_path: Path, new_members: str, new_default: str, said: str
) -> None:
    # GPTQModel 1104a00f: `METHOD.PAROQUANT` -> `METHOD.PARO` (same value). `method=METHOD.PAROQUANT` was
    # pinned into every call that relied on the default, and each raised AttributeError.
    cfg = "from enum import Enum\n\n\nclass Method(str, Enum):\n{}\n\nclass Config:\n"
    cfg += "    def __init__(self, bits=4, method={}):\n        self.bits = bits\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": cfg.format(
                '    GPTQ = "gptq"\n    PAROQUANT = "paroquant"\n', "Method.PAROQUANT"
            ),
            "benchmarks/bench_c.py": "from pkg.config import Config, Method\n\nConfig(bits=3)\n",
        },
    )
    repo.write("pkg/config.py", cfg.format(new_members, new_default))
    repo.commit("the method enum")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr
    assert said in r.stderr, r.stderr


def test_a_default_respelled_through_a_reexport_is_no_change(tmp_path: Path) -> None:
    # flax 983506b3: `wrt=nnx.Param` -> `wrt=Param`, imported from its own module now; the package re-exports
    # it. `wrt=nnx.Param` was pinned into every call that relied on the default.
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "from pkg.variablelib import Param\n",
            "pkg/variablelib.py": "class Param:\n    pass\n",
            "pkg/op.py": "import pkg as nnx\n\n\nclass Opt:\n"
            "    def __init__(self, model, *, wrt=nnx.Param):\n        self.wrt = wrt\n",
            "benchmarks/bench_op.py": "import pkg as nnx\nfrom pkg.op import Opt\n\nOpt(None)\n",
        },
    )
    repo.write(
        "pkg/op.py",
        "from pkg.variablelib import Param\n\n\nclass Opt:\n    def __init__(self, model, *, wrt=Param):\n"
        "        self.wrt = wrt\n",
    )
    repo.commit("import Param")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr
    assert "every benchmark call still binds with the same meaning" in r.stderr, r.stderr


@pytest.mark.parametrize(
    ("enum_bases", "old", "new", "init", "no_change"),
    [
        # MONAI: the literal became the enum member of that value, and the constructor converts.
        ("Enum", '"mean"', "Reduction.MEAN", "Reduction(reduction)", True),
        # And back, for a str enum (equal to its value).
        ("str, Enum", "Reduction.MEAN", '"mean"', "reduction", True),
        # A plain enum the constructor does not convert to: "mean" is not Reduction.MEAN there.
        ("Enum", '"mean"', "Reduction.MEAN", "reduction", False),
    ],
)
def test_a_default_respelled_as_the_enum_member_of_its_value_is_no_change(
    tmp_path: Path, enum_bases: str, old: str, new: str, init: str, no_change: bool
) -> None:
    # MONAI 4f6ea9e0: `reduction="mean"` -> `reduction=LossReduction.MEAN` ("mean"), normalized by
    # `LossReduction(reduction)`: `reduction="mean"` was pinned into 86 calls that were not broken.
    enum = f'from enum import Enum\n\n\nclass Reduction({enum_bases}):\n    MEAN = "mean"\n    SUM = "sum"\n'
    op = "from pkg.enums import Reduction\n\n\nclass Loss:\n    def __init__(self, reduction={}):\n"
    op += "        self.reduction = {}\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/enums.py": enum,
            "pkg/loss.py": op.format(old, "reduction"),
            "benchmarks/bench_l.py": "from pkg.enums import Reduction\nfrom pkg.loss import Loss\n\nLoss()\n",
        },
    )
    repo.write("pkg/loss.py", op.format(new, init))
    repo.commit("the reduction enum")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (r.stdout == "") is no_change, r.stdout + r.stderr


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        # GPTQModel 3982e63a: a flag became an optional config object; False is no GPTAQConfig.
        ("gptaq=False", "gptaq: Optional[Cfg] = None", "'gptaq' takes Optional[Cfg] now, which False is not"),
        # MONAI: an IntEnum member's default became a string mode; the member is an int.
        ("order=Code.SPLINE3", "order: str = 'area'", "'order' takes str now, which Code.SPLINE3 is not"),
    ],
)
def test_an_old_default_of_another_type_than_the_new_annotation_is_not_pinned(
    tmp_path: Path, old: str, new: str, reason: str
) -> None:
    head = "from enum import IntEnum\nfrom typing import Optional\n\n\n"
    head += "class Code(IntEnum):\n    SPLINE3 = 3\n\n\n"
    head += "class Cfg:\n    pass\n\n\nclass Op:\n    def __init__(self, n, {}):\n        self.n = n\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/op.py": head.format(old),
            "benchmarks/bench_op.py": "from pkg.op import Code, Op\n\nOp(4)\n",
        },
    )
    repo.write("pkg/op.py", head.format(new))
    repo.commit("new type")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr
    assert f"not pinned: {reason}" in r.stderr, r.stderr
    assert "1 call now runs with a changed default bench-op did not pin (the reasons are above)" in r.stderr


def test_a_pin_beside_a_keyword_that_goes_into_kwargs(tmp_path: Path) -> None:
    # GPTQModel, MONAI, mmengine: `Model("m", revision="main")` with `revision` into `**kwargs`, before and
    # after; the default it relies on changed. It was "passes ... through **kwargs, which bench-op does not
    # rewrite", and the same call without `revision=` was pinned.
    op = "class Model:\n    def __init__(self, name, exllama={}, **kwargs):\n        self.kw = kwargs\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/op.py": op.format("False"),
            "benchmarks/bench_m.py": 'from pkg.op import Model\n\nModel("m", revision="main")\n',
        },
    )
    repo.write("pkg/op.py", op.format("None"))
    repo.commit("exllama")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    assert '+Model("m", revision="main", exllama=False)' in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize(("old", "pinned"), [('"trilinear"', False), ('"deconv"', True)])
def test_an_old_default_the_new_enum_conversion_has_no_member_for_is_not_pinned(
    tmp_path: Path, old: str, pinned: bool
) -> None:
    # MONAI: `upsample_mode="trilinear"` -> `UpsampleMode.NONTRAINABLE`, then `UpsampleMode(upsample_mode)`:
    # "trilinear" was pinned, and raised ValueError.
    enum = 'from enum import Enum\n\n\nclass Mode(Enum):\n    DECONV = "deconv"\n'
    enum += '    NONTRAINABLE = "nontrainable"\n'
    op = "from pkg.enums import Mode\n\n\nclass Net:\n    def __init__(self, n, mode={}):\n"
    op += "        self.mode = {}\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/enums.py": enum,
            "pkg/net.py": op.format(old, "mode"),
            "benchmarks/bench_n.py": "from pkg.net import Net\n\nNet(2)\n",
        },
    )
    repo.write("pkg/net.py", op.format("Mode.NONTRAINABLE", "Mode(mode)"))
    repo.commit("an enum")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    if pinned:
        assert f"+Net(2, mode={old})" in r.stdout, r.stdout + r.stderr
    else:
        assert r.stdout == "", r.stdout
        assert f"not pinned: the new constructor turns 'mode' into Mode, which has no {old}" in r.stderr


def test_a_method_keyword_nothing_reads_any_more_is_not_dropped(tmp_path: Path) -> None:
    # flax: `mha(q, k, attention_bias=bias)` after `attention_bias` left `__call__` with nothing in its
    # place: `mha(q, k)`, and the benchmark measured attention without its bias.
    op = "class MHA:\n    def __init__(self, heads):\n        self.heads = heads\n\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/op.py": op + "    def __call__(self, q, k, attention_bias=None):\n        return q\n",
            "benchmarks/bench_op.py": "from pkg.op import MHA\n\n\ndef run(b):\n    mha = MHA(4)\n"
            "    return mha(1, 2, attention_bias=b)\n",
        },
    )
    repo.write("pkg/op.py", op + "    def __call__(self, q, k):\n        return q\n")
    repo.commit("no bias")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1 and r.stdout == "", r.stdout + r.stderr
    assert "passes attention_bias=b, which nothing in the new class reads any more" in r.stderr, r.stderr


@pytest.mark.parametrize(
    ("new_param", "followed"),
    [
        ("model", False),  # flax: `PytreeOptimizer(params, tx)` -> `ModelAndOptimizer(model, tx)`
        ("d", True),  # TileOPs a15dd9c8: `Conv3dOp(x, d_in)` -> `Conv3dFwdOp(x, d)`, one name shortened
    ],
)
def test_a_successor_class_whose_slot_has_an_unrelated_name_is_not_followed_blindly(
    tmp_path: Path, new_param: str, followed: bool
) -> None:
    # The package exports swapped the names, and the benchmark's pytree went into the new class's `model`.
    old = "class PytreeOptimizer:\n    def __init__(self, x, d_in, tx=0.1):\n        self.tx = tx\n"
    old = old.replace("d_in", "params") if not followed else old
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "from pkg.op import Keep as Keep\n"
            "from pkg.op import PytreeOptimizer as PytreeOptimizer\n",
            "pkg/op.py": "class Keep:\n    pass\n\n\n" + old,
            "benchmarks/bench_op.py": "from pkg import PytreeOptimizer\n\n\ndef run(p):\n"
            "    return PytreeOptimizer(1, p)\n",
        },
    )
    repo.write(
        "pkg/__init__.py",
        "from pkg.op import Keep as Keep\nfrom pkg.op import ModelAndOptimizer as ModelAndOptimizer\n",
    )
    new = f"class ModelAndOptimizer:\n    def __init__(self, x, {new_param}, tx=0.1):\n        self.tx = tx\n"
    repo.write("pkg/op.py", "class Keep:\n    pass\n\n\n" + new)
    repo.commit("rename")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    if followed:
        assert r.returncode == 0 and "+from pkg import ModelAndOptimizer" in r.stdout, r.stdout + r.stderr
    else:
        # The class's new name follows its import, as for any hand edit; what goes in its slot is the user's.
        assert r.returncode == 1, r.stdout + r.stderr
        assert (
            "ModelAndOptimizer takes 'model' where PytreeOptimizer took 'params', and only the slot pairs "
            "them: pass what 'model' wants by hand" in r.stderr
        ), r.stderr


@pytest.mark.parametrize(("test_new", "pinned"), [("False", False), ("True", True)])
def test_a_default_whose_values_the_tests_swap_is_not_pinned(
    tmp_path: Path, test_new: str, pinned: bool
) -> None:
    # MONAI 38d73e83e: `allow_smaller=False` + `if not allow_smaller:` became `allow_smaller=True` + `if
    # allow_smaller:`, and the tests flipped the values they pass. Pinning False inverted what was measured.
    op = "class Crop:\n    def __init__(self, margin=0, allow_smaller={}):\n        self.a = allow_smaller\n"
    test = "from pkg.op import Crop\n\n\ndef test():\n    Crop(1, allow_smaller={})\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS + 'test-paths = ["tests/**/*.py"]\n',
        {
            "pkg/__init__.py": "",
            "pkg/op.py": op.format("False"),
            "tests/test_op.py": test.format("True"),
            "benchmarks/bench_op.py": "from pkg.op import Crop\n\nCrop(2)\n",
        },
    )
    repo.write("pkg/op.py", op.format("True"))
    repo.write("tests/test_op.py", test.format(test_new))
    repo.commit("invert allow_smaller")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0, r.stdout + r.stderr
    if pinned:
        assert "+Crop(2, allow_smaller=False)" in r.stdout, r.stdout + r.stderr
    else:
        assert r.stdout == "", r.stdout
        assert "not pinned: the commit's tests now pass another value for 'allow_smaller'" in r.stderr, (
            r.stderr
        )


def test_arguments_an_old_star_args_took_are_left_to_the_run_when_named_parameters_take_them(
    tmp_path: Path,
) -> None:
    # mmengine 7e246b6f: `get(self, *args)` -> `get(self, key, default=None)`; `e.get("bboxes", None)` binds
    # both, and was "passes 'bboxes' through *args, which bench-op does not rewrite": a hand edit, exit 1.
    op = "class Element:\n    def __init__(self):\n        self.d = {{}}\n\n"
    op += "    def get(self, {}):\n        return 1\n"
    repo = _layout(
        tmp_path,
        OBJ_OPS,
        {
            "pkg/__init__.py": "",
            "pkg/op.py": op.format("*args"),
            "benchmarks/bench_op.py": "from pkg.op import Element\n\ne = Element()\ne.get('bboxes', None)\n",
        },
    )
    repo.write("pkg/op.py", op.format("key, default=None"))
    repo.commit("get by key")
    r = repo.cli("fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr
    assert (
        "unknown: the run decides (argument 'bboxes' went into *args before and reaches 'key' now)"
        in r.stderr
    )
