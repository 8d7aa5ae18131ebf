"""Rules learned from other libraries' constructor breaks (Megatron-LM, torchao, flashinfer): each one a
wrong edit bench-op made there, replayed on a small class of the fixture library through `check` / `fix`."""

from __future__ import annotations

import pytest

from tests.helpers.repo import Repo

BENCH = "benchmarks/ops/bench_other.py"
OPS = "src/minitile/ops/other.py"


def _start(repo: Repo, ops: str, bench: str) -> None:
    repo.write(OPS, ops)
    repo.write(BENCH, "import torch\n\n" + bench)
    repo.commit("the class and its benchmark")


def test_an_argument_named_after_the_parameter_it_now_reaches_is_left_to_the_run(repo: Repo) -> None:
    # Megatron's revert: `Wrapper(model, config)` passed its config as `context` for one commit; when the
    # signature goes back it reaches `config` again. Pinning the old binding would keep the accident.
    _start(
        repo,
        "class Wrapper:\n    def __init__(self, model, context=None):\n        self.model = model\n",
        "from minitile.ops.other import Wrapper\n\n\ndef test_wrap(model=1, config=2):\n"
        "    Wrapper(model, config)\n",
    )
    repo.replace(OPS, "(self, model, context=None)", "(self, model, config, context=None)")
    repo.git("add", "-A")
    before = repo.read(BENCH)
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.read(BENCH) == before, repo.read(BENCH)
    assert (
        "unknown: the run decides (argument config now reaches 'config', the parameter it is named after"
        in (r.stdout)
    ), r.stdout


def test_the_same_shift_of_another_name_is_still_fixed(repo: Repo) -> None:
    _start(
        repo,
        "class Wrapper:\n    def __init__(self, model, context=None):\n        self.model = model\n",
        "from minitile.ops.other import Wrapper\n\n\ndef test_wrap(model=1, ctx=2, config=3):\n"
        "    Wrapper(model, ctx)\n",
    )
    repo.replace(OPS, "(self, model, context=None)", "(self, model, config, context=None)")
    repo.git("add", "-A")
    repo.cli("fix")
    assert "Wrapper(model, context=ctx, config=config)" in repo.read(BENCH), repo.read(BENCH)


def test_a_flag_passed_as_a_variable_is_a_choice(repo: Repo) -> None:
    # torchao: `Int4Config(group_size=g, use_hqq=use_hqq)` once `use_hqq: bool = False` is gone. Dropping
    # it would measure the default algorithm for the hqq case.
    _start(
        repo,
        "class Quant:\n    def __init__(self, group_size=128, use_hqq=False):\n        self.g = group_size\n",
        "from minitile.ops.other import Quant\n\n\ndef test_quant(name='int4-hqq'):\n"
        "    use_hqq = 'hqq' in name\n    Quant(group_size=64, use_hqq=use_hqq)\n",
    )
    repo.replace(OPS, "(self, group_size=128, use_hqq=False)", "(self, group_size=128)")
    repo.git("add", "-A")
    before = repo.read(BENCH)
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read(BENCH) == before, repo.read(BENCH)
    assert "use_hqq=use_hqq, a choice" in r.stdout, r.stdout


def test_a_negative_number_is_a_choice_not_a_size(repo: Repo) -> None:
    # Megatron: `Engine(controller, context, termination_id=-1)` once termination_id left the engine. No
    # size is negative; -1 is a sentinel.
    _start(
        repo,
        "class Engine:\n    def __init__(self, controller, termination_id):\n        self.c = controller\n",
        "from minitile.ops.other import Engine\n\n\ndef test_engine(controller=1):\n"
        "    Engine(controller, termination_id=-1)\n",
    )
    repo.replace(OPS, "(self, controller, termination_id)", "(self, controller)")
    repo.git("add", "-A")
    before = repo.read(BENCH)
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read(BENCH) == before, repo.read(BENCH)
    assert "termination_id=-1, a choice" in r.stdout, r.stdout


def test_a_positive_size_of_a_removed_parameter_is_still_dropped(repo: Repo) -> None:
    _start(
        repo,
        "class Engine:\n    def __init__(self, controller, rows):\n        self.c = controller\n",
        "from minitile.ops.other import Engine\n\n\ndef test_engine(controller=1):\n"
        "    Engine(controller, rows=1024)\n",
    )
    repo.replace(OPS, "(self, controller, rows)", "(self, controller)")
    repo.git("add", "-A")
    repo.cli("fix")
    assert "Engine(controller)" in repo.read(BENCH), repo.read(BENCH)


def test_a_class_whose_name_lives_on_as_a_factory_is_not_renamed(repo: Repo) -> None:
    # flashinfer: `MoEEpLayer` moved to `MoEEpSplitLayer`, and `MoEEpLayer` became a function that picks the
    # class from its arguments. Sending the calls to the one class would bypass that choice.
    _start(
        repo,
        "class Layer:\n    def __init__(self, a, b):\n        self.a = a\n",
        "from minitile.ops.other import Layer\n\n\ndef test_layer():\n    Layer(1, 2)\n",
    )
    repo.write(
        OPS,
        "class SplitLayer:\n    def __init__(self, a, b, weights):\n        self.a = a\n\n\n"
        "def Layer(a, b, weights=None):\n    return SplitLayer(a, b, weights)\n",
    )
    repo.git("add", "-A")
    before = repo.read(BENCH)
    r = repo.cli("fix")
    assert repo.read(BENCH) == before, repo.read(BENCH)
    assert "SplitLayer" not in r.stdout and "removed" not in r.stdout, r.stdout
    assert r.returncode == 0, r.stdout


def test_an_enum_is_no_successor_of_a_class_or_the_reverse(repo: Repo) -> None:
    # torchao: the enum `NVFP4MMConfig` went, a config class with a close name came; the import was
    # rewritten to the class, and any `NVFP4MMConfig.X` would have failed.
    _start(
        repo,
        "import enum\n\n\nclass MMConfig(enum.Enum):\n    DYNAMIC = 1\n\n\n"
        "class Gemm:\n    def __init__(self, n, mode=MMConfig.DYNAMIC):\n        self.n = n\n",
        "from minitile.ops.other import Gemm, MMConfig\n\n\ndef test_gemm():\n"
        "    Gemm(4, mode=MMConfig.DYNAMIC)\n",
    )
    repo.write(
        OPS,
        "class MmConfig:\n    def __init__(self, scale=True):\n        self.scale = scale\n\n\n"
        "class Gemm:\n    def __init__(self, n):\n        self.n = n\n",
    )
    repo.git("add", "-A")
    r = repo.cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "MMConfig -> MmConfig" not in r.stdout and "is now MmConfig" not in r.stdout, r.stdout
    repo.cli("fix")
    assert "import Gemm, MMConfig" in repo.read(BENCH), repo.read(BENCH)


def test_a_moved_class_below_a_namespace_directory_keeps_the_benchmarks_spelling(repo: Repo) -> None:
    # Megatron: `megatron/` has no __init__.py, so `megatron/core/x.py` is both `megatron.core.x` and
    # `core.x`. The benchmark imports `megatron.core...`; the rewritten import must too.
    repo.replace("pyproject.toml", 'op-paths = ["src/minitile/ops/**/*.py"]', 'op-paths = ["nslib/**/*.py"]')
    repo.write("nslib/core/__init__.py", "")
    repo.write("nslib/core/old.py", "class Case:\n    def __init__(self, m, n):\n        self.m = m\n")
    repo.write(BENCH, "from nslib.core.old import Case\n\n\ndef test_case():\n    Case(4, 64)\n")
    repo.commit("a library below a namespace directory")
    repo.git("rm", "-q", "nslib/core/old.py")
    repo.write("nslib/core/new.py", "class Case:\n    def __init__(self, m, n):\n        self.m = m\n")
    repo.git("add", "-A")
    repo.cli("fix")
    assert "from nslib.core.new import Case" in repo.read(BENCH), repo.read(BENCH)


# As TileOPs' Ops: the dtype, once passed, now read from the input (so the new class still names it).
_EXPERTS = (
    "class Experts:\n    def __init__(self, tokens, hidden, dtype=None):\n        self.tokens = tokens\n\n"
    "    def forward(self, x):\n        return x.to(x.dtype)\n"
)


def test_a_splatted_dict_call_is_edited_in_place(repo: Repo) -> None:
    # TileOPs 82535c3d: `kwargs = dict(..., dtype=dtype)` splatted into a constructor that lost `dtype`; the
    # engineers later dropped the keyword from the dict (5fb7c6ac).
    _start(
        repo,
        _EXPERTS,
        "from minitile.ops.other import Experts\n\n\ndef test_experts(tokens=8, hidden=16, dtype=None):\n"
        "    kwargs = dict(\n        tokens=tokens, hidden=hidden, dtype=dtype,\n    )\n"
        "    Experts(**kwargs)\n",
    )
    repo.replace(OPS, "(self, tokens, hidden, dtype=None)", "(self, tokens, hidden)")
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "    kwargs = dict(\n        tokens=tokens, hidden=hidden,\n    )\n" in repo.read(BENCH), r.stdout


def test_a_dict_the_function_also_reads_elsewhere_is_left_with_the_reason(repo: Repo) -> None:
    # The same dict also feeds the baseline: dropping `dtype` from it would change what the baseline runs.
    _start(
        repo,
        _EXPERTS,
        "from minitile.ops.other import Experts\n\n\n"
        "def reference(tokens, hidden, dtype):\n    return tokens\n\n\n"
        "def test_experts(tokens=8, hidden=16, dtype=None):\n"
        "    kwargs = dict(tokens=tokens, hidden=hidden, dtype=dtype)\n"
        "    Experts(**kwargs)\n    reference(**kwargs)\n",
    )
    repo.replace(OPS, "(self, tokens, hidden, dtype=None)", "(self, tokens, hidden)")
    repo.git("add", "-A")
    before = repo.read(BENCH)
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read(BENCH) == before
    assert "its splatted dict is also used elsewhere in the function" in r.stdout, r.stdout


def test_an_import_from_a_renamed_package_follows_the_package(repo: Repo) -> None:
    # TileOPs 5a9e54d6 renamed `top` to `tileops`: `from top.ops import GemmOp` became `from tileops.ops
    # import GemmOp`, not an import from the module that defines the class.
    impl = "class Thing:\n    def __init__(self, n, dtype=None):\n        self.n = n\n"
    repo.write("src/minitile/ops/legacy/__init__.py", "from minitile.ops.legacy.impl import Thing\n")
    repo.write("src/minitile/ops/legacy/impl.py", impl)
    repo.write(
        BENCH, "from minitile.ops.legacy import Thing\n\n\ndef test_thing():\n    Thing(4, dtype=None)\n"
    )
    repo.commit("a package and its benchmark")
    repo.git("mv", "src/minitile/ops/legacy", "src/minitile/ops/modern")
    repo.write("src/minitile/ops/modern/__init__.py", "from minitile.ops.modern.impl import Thing\n")
    repo.git("add", "-A")
    r = repo.cli("fix")
    assert r.returncode == 0, r.stdout + r.stderr
    assert repo.read(BENCH).startswith("from minitile.ops.modern import Thing\n"), r.stdout + repo.read(BENCH)


def test_a_keyword_in_the_same_slot_with_another_default_is_no_rename(repo: Repo) -> None:
    # torchtitan: `TrainingConfig(*, local_batch_size=8, seq_len=2048)` became `(*,
    # num_tokens_per_microbatch_per_dp_rank=16384, max_context_length=2048)`: the first counts tokens now, not
    # sequences, and carrying a call's 1 over would ask for one token. The second kept its default: a rename.
    _start(
        repo,
        "class Train:\n    def __init__(self, *, local_batch_size=8, seq_len=2048):\n        self.b = 1\n",
        "from minitile.ops.other import Train\n\n\ndef test_train():\n"
        "    Train(local_batch_size=1, seq_len=128)\n",
    )
    repo.replace(
        OPS,
        "(self, *, local_batch_size=8, seq_len=2048)",
        "(self, *, num_tokens_per_microbatch=16384, max_context_length=2048)",
    )
    repo.git("add", "-A")
    before = repo.read(BENCH)
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read(BENCH) == before, repo.read(BENCH)
    assert "'local_batch_size' removed; 'seq_len' renamed to 'max_context_length'" in r.stdout, r.stdout
    assert "it passes local_batch_size=1, a choice" in r.stdout, r.stdout


def test_a_variable_already_passed_elsewhere_does_not_fill_its_namesake_too(repo: Repo) -> None:
    # flash-attention: `Preprocess(dtype, head_dim_v, arch)` once `head_dim_v` is inserted after `head_dim`.
    # The variable reaches head_dim; passing it to head_dim_v as well gives both dims one value (192/128
    # measured as 128/128). Which one it was meant for, the call can't say.
    _start(
        repo,
        "class Pre:\n    def __init__(self, dtype, head_dim, arch):\n        self.d = head_dim\n",
        "from minitile.ops.other import Pre\n\n\n"
        "def test_pre(dtype=1, head_dim=192, head_dim_v=128, arch=90):\n"
        "    Pre(dtype, head_dim_v, arch)\n",
    )
    repo.replace(OPS, "(self, dtype, head_dim, arch)", "(self, dtype, head_dim, head_dim_v, arch)")
    repo.git("add", "-A")
    before = repo.read(BENCH)
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read(BENCH) == before, repo.read(BENCH)
    assert "the call already passes the variable 'head_dim_v' to another parameter" in r.stdout, r.stdout


def test_a_variable_named_after_a_new_parameter_and_passed_nowhere_else_still_fills_it(repo: Repo) -> None:
    _start(
        repo,
        "class Pre:\n    def __init__(self, dtype, head_dim, arch):\n        self.d = head_dim\n",
        "from minitile.ops.other import Pre\n\n\n"
        "def test_pre(dtype=1, head_dim=192, head_dim_v=128, arch=90):\n"
        "    Pre(dtype, head_dim, arch)\n",
    )
    repo.replace(OPS, "(self, dtype, head_dim, arch)", "(self, dtype, head_dim, head_dim_v, arch)")
    repo.git("add", "-A")
    repo.cli("fix")
    assert "head_dim_v=head_dim_v" in repo.read(BENCH), repo.read(BENCH)


def test_a_required_slot_that_became_optional_keeps_its_value(repo: Repo) -> None:
    # BitBLAS: `Copy(weight, res)` -> `Copy(inp, out=None)`. The call's buffer still reaches `out`, the new
    # name of res in all likelihood; dropping it ("res was removed") would write into a fresh buffer.
    _start(
        repo,
        "class Copy:\n    def __init__(self, weight, res):\n        res[:] = weight\n",
        "from minitile.ops.other import Copy\n\n\ndef test_copy():\n    w, buf = [1, 2], [0, 0]\n"
        "    Copy(w, buf)\n",
    )
    repo.replace(OPS, "(self, weight, res):\n        res[:] = weight", "(self, inp, out=None):\n        pass")
    repo.git("add", "-A")
    before = repo.read(BENCH)
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read(BENCH) == before, repo.read(BENCH)
    assert "leaves 'out' open: it could be buf (the argument in its slot)" in r.stdout, r.stdout


def test_a_keyword_whose_slot_another_parameter_took_is_not_dropped(repo: Repo) -> None:
    # Not a choice (a plain variable), passed by keyword for a parameter whose slot a new one with another
    # default took: renamed, or gone? Dropping it could lose what the benchmark measured.
    _start(
        repo,
        "class Train:\n    def __init__(self, *, local_batch_size=8, seq_len=2048):\n        self.b = 1\n",
        "from minitile.ops.other import Train\n\n\ndef test_train(bs=4):\n"
        "    Train(local_batch_size=bs, seq_len=128)\n",
    )
    repo.replace(
        OPS,
        "(self, *, local_batch_size=8, seq_len=2048)",
        "(self, *, num_tokens_per_microbatch=16384, max_context_length=2048)",
    )
    repo.git("add", "-A")
    before = repo.read(BENCH)
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert repo.read(BENCH) == before, repo.read(BENCH)
    said = "leaves 'num_tokens_per_microbatch' open: it could be bs (passed as local_batch_size="
    assert said in r.stdout, r.stdout


def test_a_keyword_of_a_required_slot_an_optional_parameter_took_goes_with_its_parameter(repo: Repo) -> None:
    # TileOPs 37e84cf7: `LerpOp(*, input, end, weight)` -> `LerpOp(*, target=None)`. `input=shape` names its
    # parameter, which is gone: it is dropped, as the engineers did (a positional value would be contested).
    _start(
        repo,
        "class Lerp:\n    def __init__(self, *, input, end, weight):\n        self.x = 1\n",
        "from minitile.ops.other import Lerp\n\n\ndef test_lerp(shape=(4,)):\n"
        "    Lerp(input=shape, end=shape, weight=shape)\n",
    )
    repo.replace(OPS, "(self, *, input, end, weight)", "(self, *, target=None)")
    repo.git("add", "-A")
    repo.cli("fix")
    assert "    Lerp()\n" in repo.read(BENCH), repo.read(BENCH)


GEN = (
    "class Gen:\n    def __init__(self, model, do_sample=False):\n        self.model = model\n\n"
    "    def generate(self, prompt, max_new_tokens=1000, print_tokens=False):\n        return prompt\n"
)
GEN_MOVED = (
    "class Gen:\n    def __init__(self, model, max_new_tokens={default}, do_sample=False):\n"
    "        self.model = model\n\n"
    "    def generate(self, prompt, print_tokens=False):\n        return prompt\n"
)


@pytest.mark.parametrize("default, dropped", [("256", False), ("1000", True)])
def test_a_method_parameter_that_moved_to_the_constructor_is_not_dropped_for_another_default(
    repo: Repo, default: str, dropped: bool
) -> None:
    # hqq: `generate(prompt, max_new_tokens=1000)` once max_new_tokens is the constructor's. With the
    # constructor's default 256, dropping the call's 1000 would generate 256 tokens; with 1000 it changes
    # nothing (hqq 804a46e, where the engineers' examples were left broken and dropping is right).
    _start(
        repo,
        GEN,
        "from minitile.ops.other import Gen\n\n\ndef test_gen():\n    gen = Gen('m', do_sample=True)\n"
        "    gen.generate('hello', max_new_tokens=1000, print_tokens=True)\n",
    )
    repo.write(OPS, GEN_MOVED.replace("{default}", default))
    repo.git("add", "-A")
    before = repo.read(BENCH)
    r = repo.cli("fix")
    if dropped:
        assert "gen.generate('hello', print_tokens=True)" in repo.read(BENCH), repo.read(BENCH)
    else:
        assert repo.read(BENCH) == before, repo.read(BENCH)
        said = "'max_new_tokens' moved from this method to Gen's constructor (default 256)"
        assert said in r.stdout, r.stdout
