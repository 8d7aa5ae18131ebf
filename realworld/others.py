"""Replay real constructor breaks of OTHER Python libraries and grade bench-op's fixes against the engineers'
own.

    python realworld/others.py --clones DIR [--bench-op PATH] [--out FILE] [--only NAME ...] [--list]

DIR holds one clone per library, named after the library column of CORPUS below (`--list` prints them):

    mkdir -p DIR && cd DIR
    git clone https://github.com/NVIDIA/Megatron-LM megatron
    git clone https://github.com/pytorch/ao torchao
    git clone https://github.com/NVIDIA/TransformerEngine te
    git clone https://github.com/linkedin/Liger-Kernel liger
    git clone https://github.com/flashinfer-ai/flashinfer flashinfer
    git clone https://github.com/facebookresearch/xformers xformers
    git clone https://github.com/pytorch/torchtune torchtune
    git clone https://github.com/NVIDIA/apex apex
    git clone https://github.com/vllm-project/vllm vllm          (or a fork with its history)
    git clone https://github.com/triton-lang/triton triton       (or a fork with its history)

(`--no-checkout` clones are enough; the scratch copies check out only *.py, *.pyi, *.toml, *.cfg, *.ini and
*.md,
so a snapshot without its large data files works.) Run it with the Python bench-op is installed in (it imports
`benchop_hook.renames` and `benchop_hook.globs`); about 2.5 minutes for the whole corpus on 2 cores. bench-op
parses with the Python it runs on: files using Python 3.12 syntax are skipped by bench-op under 3.11 (the
output
says which).

The clones are only read: each library gets one scratch clone (`git clone --shared`) in a temporary directory.
For each corpus entry (a commit in which the engineers changed a class constructor AND edited a benchmark,
example or script call of it), two states are measured:

  replayed       the state the post-commit hook sees: the commit with its own edits of files under the
                 entry's benchmark-paths put back to the parent's version, committed on the parent and
                 checked out (realworld/hookstate.py: check and fix read a range's benchmarks at its last
                 commit), the entry's [tool.bench-op] appended to pyproject.toml (created when missing,
                 left uncommitted), then `bench-op fix --from-ref <parent> --to-ref <that commit> --json R`;
                 every call the engineers changed (and every call bench-op rewrote) is graded against the
                 engineers' edit in the original commit
  as committed   the commit checked out as the engineers left it (their benchmark edits kept), the same
                 configuration and command; any rewrite of a line the commit itself changed is a bug (bench-op
                 undoing the engineers' own fix), and every other rewrite or hand-edit request is listed

How a call is graded (the definitions of realworld/replay.py, with its helpers):

  same             bench-op rewrote the call and it binds the new constructor as the engineers' call does
                   (same class, same value on every parameter)
  different        bench-op rewrote it and the binding differs; "meaning differs" when a parameter gets
  another
                   value or one side drops a value the other passes
  reported         bench-op left it and reported it for a hand edit, with its reason
  left to the run  bench-op left it as "unknown: the run decides" (an opaque *args / **kwargs)
  missed           the engineers changed it; bench-op neither rewrote nor reported it
  unwanted         bench-op rewrote a call the engineers left alone
  false block      bench-op asks a hand edit for (or reports broken) a call the engineers left alone; VERDICTS
                   below says, from reading the code at that commit, whether the call really was broken

Only calls the engineers fixed mechanically count (replay.py's rule: every value their new call passes that
the old call did not is a name already in the file, no splat is added, every parameter both signatures have
keeps its value). One addition: a local variable the engineers renamed in the same function (the line that
assigns it differs only by the name) is read as the old variable. Calls the engineers changed beyond a fix
(new values, a restructured function) are listed with what bench-op did, and checked for a rewrite that puts
a value the engineers carried over onto another parameter, or drops it ("beyond a fix, meaning differs").

Standard library plus the installed bench-op (for `benchop_hook.renames.substitutions` and `globs`); imports
its grading helpers from realworld/replay.py. Not part of the test suite. Nothing of the libraries is copied
here: the corpus is a table of commits and configurations.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from hookstate import replay_commit  # noqa: E402  (realworld/hookstate.py: the hook's state as a commit)
from replay import (  # noqa: E402  (realworld/replay.py: the TileOPs replay's grading helpers)
    _IDENT,
    _code_names,
    _func_name,
    _norm,
    _sig_from,
    _values,
    binding,
    calls_in,
    git,
    show,
)

# -- the corpus
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    name: str  # short id: <library>-<sha prefix>
    library: str  # the clone's directory name under --clones
    repo: str  # owner/name on GitHub
    sha: str
    config: dict[str, list[str]]  # [tool.bench-op] for that library at that commit
    change: str  # one line: the constructor change


MEGATRON = "NVIDIA/Megatron-LM"
TORCHAO = "pytorch/ao"

CORPUS: list[Entry] = []  # filled below, after the helpers that print it


SPARSE = ["*.py", "*.pyi", "*.toml", "*.cfg", "*.ini", "*.md"]


def toml(config: dict[str, list[str]]) -> str:
    lines = ["", "", "[tool.bench-op]"]
    for k, v in config.items():
        lines.append(f"{k} = [{', '.join(json.dumps(x) for x in v)}]")
    return "\n".join(lines) + "\n"


# Verdicts from reading the code at the commit, on what the automatic grading can't judge: calls bench-op
# blocks
# or rewrites that the engineers left alone, its edits outside the graded calls, and the as-committed
# rewrites.
# (entry, state, path, line) -> (was the call/import really broken at that commit?, is bench-op's edit right?
# (None: it only reported), why). Lines: the parent's file for "replayed" (the engineers' edits put back), the
# commit's file for "committed".
OK, WRONG, REPORT = True, False, None
_NS = (
    "megatron/ has no __init__.py: modules.module_names_for names a module below megatron/core by its "
    "package chain only ('core....'), and the import rewrite uses that first name; the right one is "
    "'megatron.core....' (every other import of the file says so)"
)
_CMT = (
    "the commit's own call, already written for the new signature, judged against the OLD one: its arguments "
    "'shift' and the old binding is pinned back (fixes.classify/plan through pipeline._judge_one; nothing "
    "checks that this call changed in the range)"
)
_REFUSED = (
    "the old wrapper required inference_wrapper_config and built its inference context from it; the new "
    "one keeps the parameter only to raise TypeError when it is passed. Kept on inference_wrapper_config= "
    "(graded right before, wrong on reading the new constructor: it raises) or dropped (no context), the "
    "call fails: reported, right"
)
_MOVED_OUT = (
    "the caller's buffer (chosen by --caller-provides-dispatch-recv-tokens) moved from EpBuffer's "
    "constructor to ep_dispatch(recv_tokens=), which gained that parameter in the same commit; dropped, the "
    "example measures the pool-allocated path: reported, right"
)
VERDICTS: dict[tuple[str, str, str, int], tuple[bool, bool | None, str]] = {
    # te 622a3ee (engineers left the examples broken; fixed in 98524e5)
    ("te-622a3ee", "replayed", "examples/pytorch/ep/bench/ep_bench.py", 204): (True, REPORT, _MOVED_OUT),
    ("te-622a3ee", "replayed", "examples/pytorch/ep/ep_moe.py", 179): (True, REPORT, _MOVED_OUT),
    ("te-622a3ee", "committed", "examples/pytorch/ep/bench/ep_bench.py", 204): (True, REPORT, _MOVED_OUT),
    ("te-622a3ee", "committed", "examples/pytorch/ep/ep_moe.py", 179): (True, REPORT, _MOVED_OUT),
    # megatron 34ac1ad
    ("megatron-34ac1ad", "replayed", "tools/merge_datasets.py", 37): (
        True,
        REPORT,
        "IndexedDatasetBuilder was removed; the engineers deleted that branch",
    ),
    # megatron 67f3515
    (
        "megatron-67f3515",
        "committed",
        "examples/inference/gpt/gpt_dynamic_inference_with_coordinator.py",
        87,
    ): (
        False,
        REPORT,
        "InferenceClient(dp_addr) is the engineers' fix and binds the new "
        "inference_coordinator_address as meant; bench-op calls it 'shifted' because " + _CMT,
    ),
    # megatron afa7361
    ("megatron-afa7361", "replayed", "tools/run_inference_performance_test.py", 149): (
        True,
        REPORT,
        "termination_id=-1 is a sentinel with no home in the new signature (the engineers moved it to "
        "SamplingParams in ffbc43fa): reported, right. Before negative numbers counted as choices bench-op "
        "dropped it",
    ),
    ("megatron-afa7361", "committed", "tools/run_inference_performance_test.py", 151): (
        True,
        REPORT,
        "as in the replay: DynamicInferenceEngine(..., termination_id=-1, ...) really fails",
    ),
    # megatron ffbc43f, replayed
    ("megatron-ffbc43f", "replayed", "examples/inference/gpt/gpt_dynamic_inference.py", 35): (
        True,
        OK,
        "MambaInferenceStateConfig moved to megatron/core/inference/config.py: the import follows it, "
        "spelled megatron.core... as the file spells its imports (the engineers deleted the unused import). "
        "Before: 'from core.inference.config import (': " + _NS,
    ),
    ("megatron-ffbc43f", "replayed", "examples/inference/gpt/gpt_dynamic_inference.py", 163): (
        True,
        REPORT,
        "DynamicInferenceContext now takes (model_config, inference_config): reported, right",
    ),
    ("megatron-ffbc43f", "replayed", "examples/inference/gpt/gpt_dynamic_inference.py", 220): (
        True,
        REPORT,
        _REFUSED,
    ),
    (
        "megatron-ffbc43f",
        "replayed",
        "examples/inference/gpt/gpt_dynamic_inference_with_coordinator.py",
        233,
    ): (
        True,
        REPORT,
        "the engine options left DynamicInferenceEngine for the InferenceConfig that the (reported) context "
        "call needs; enable_chunked_prefill (a flag, default True) is passed a value: reported, right",
    ),
    ("megatron-ffbc43f", "replayed", "tools/run_dynamic_text_generation_server.py", 101): (
        True,
        REPORT,
        "as gpt_dynamic_inference_with_coordinator.py:233",
    ),
    ("megatron-ffbc43f", "replayed", "examples/inference/gpt/gpt_static_inference.py", 86): (
        True,
        REPORT,
        "InferenceWrapperConfig was removed",
    ),
    ("megatron-ffbc43f", "replayed", "tools/run_inference_performance_test.py", 79): (
        True,
        REPORT,
        "InferenceWrapperConfig was removed",
    ),
    ("megatron-ffbc43f", "replayed", "tools/run_text_generation_server.py", 66): (
        True,
        REPORT,
        "InferenceWrapperConfig was removed",
    ),
    ("megatron-ffbc43f", "replayed", "tools/run_inference_performance_test.py", 94): (
        True,
        REPORT,
        _REFUSED,
    ),
    ("megatron-ffbc43f", "replayed", "tools/run_inference_performance_test.py", 133): (
        True,
        REPORT,
        _REFUSED,
    ),
    ("megatron-ffbc43f", "replayed", "tools/run_inference_performance_test.py", 103): (
        True,
        REPORT,
        "did not bind the parent's signature either (buffer_guaranteed_fraction): stale, right",
    ),
    ("megatron-ffbc43f", "replayed", "tools/run_inference_performance_test.py", 142): (
        True,
        REPORT,
        "did not bind the parent's signature either (termination_id): stale, right",
    ),
    ("megatron-ffbc43f", "replayed", "examples/inference/t5/simple_t5_batch_inference.py", 85): (
        True,
        REPORT,
        "InferenceWrapperConfig's module was deleted: the example fails at import; the engineers "
        "missed this file",
    ),
    ("megatron-ffbc43f", "replayed", "examples/multimodal/run_text_generation.py", 192): (
        True,
        REPORT,
        "as the t5 example: InferenceWrapperConfig was deleted",
    ),
    ("megatron-ffbc43f", "replayed", "examples/inference/t5/simple_t5_batch_inference.py", 93): (
        True,
        REPORT,
        "T5InferenceWrapper(model, inference_wrapper_config) would now pass the config as "
        "inference_context; dropped (graded right before), the wrapper gets no context at all, where the old "
        "one built it from that config (`if inference_context is None: ... from_config(...)`), and the new "
        "base stores None and fails on first use: reported, right",
    ),
    ("megatron-ffbc43f", "replayed", "examples/multimodal/run_text_generation.py", 199): (
        True,
        REPORT,
        _REFUSED,
    ),
    # megatron ffbc43f, as committed
    ("megatron-ffbc43f", "committed", "examples/inference/gpt/gpt_dynamic_inference.py", 293): (
        False,
        WRONG,
        "GPTInferenceWrapper(model, context) -> (model, inference_wrapper_config=context): the "
        "context moved onto the config parameter; " + _CMT,
    ),
    ("megatron-ffbc43f", "committed", "examples/inference/gpt/gpt_static_inference.py", 74): (
        False,
        WRONG,
        "as gpt_dynamic_inference.py:293 (inference_context -> inference_wrapper_config)",
    ),
    ("megatron-ffbc43f", "committed", "tools/run_inference_performance_test.py", 80): (
        False,
        WRONG,
        "as gpt_dynamic_inference.py:293",
    ),
    ("megatron-ffbc43f", "committed", "tools/run_text_generation_server.py", 65): (
        False,
        WRONG,
        "as gpt_dynamic_inference.py:293",
    ),
    ("megatron-ffbc43f", "committed", "examples/inference/t5/simple_t5_batch_inference.py", 93): (
        True,
        REPORT,
        "as in the replay: the old constructor built the context from the config; reported, right",
    ),
    ("megatron-ffbc43f", "committed", "examples/multimodal/run_text_generation.py", 199): (
        True,
        REPORT,
        _REFUSED,
    ),
    ("megatron-ffbc43f", "committed", "examples/inference/t5/simple_t5_batch_inference.py", 85): (
        True,
        REPORT,
        "InferenceWrapperConfig was deleted; the engineers missed this file",
    ),
    ("megatron-ffbc43f", "committed", "examples/multimodal/run_text_generation.py", 192): (
        True,
        REPORT,
        "InferenceWrapperConfig was deleted; the engineers missed this file",
    ),
    # megatron 0fe3232 (the revert), replayed
    ("megatron-0fe3232", "replayed", "examples/inference/gpt/gpt_dynamic_inference.py", 292): (
        True,
        REPORT,
        "DynamicInferenceContext is keyword-only again: reported, right",
    ),
    ("megatron-0fe3232", "replayed", "examples/inference/gpt/gpt_dynamic_inference.py", 293): (
        True,
        REPORT,
        "GPTInferenceWrapper(model, context): inference_wrapper_config is required again and the constructor "
        "reads inference_wrapper_config.fp32_residual_connection: reported, right (bench-op used to pin "
        "inference_wrapper_config=None, its old default, which binds and fails at run time where the "
        "engineers pass a real config)",
    ),
    ("megatron-0fe3232", "replayed", "tools/run_inference_performance_test.py", 80): (
        True,
        REPORT,
        "as gpt_dynamic_inference.py:293",
    ),
    ("megatron-0fe3232", "replayed", "examples/inference/t5/simple_t5_batch_inference.py", 93): (
        False,
        WRONG,
        "T5InferenceWrapper(model, inference_wrapper_config), which ffbc43fa left passing the config "
        "as inference_context, binds as meant again after the revert (the config reaches "
        "inference_wrapper_config); "
        "bench-op keeps the accident: inference_context=inference_wrapper_config plus "
        "inference_wrapper_config=inference_wrapper_config (the shifted-argument rule pins the old binding "
        "even "
        "when the argument is a bare name equal to the parameter it now reaches)",
    ),
    ("megatron-0fe3232", "replayed", "examples/multimodal/run_text_generation.py", 199): (
        False,
        WRONG,
        "as the t5 call: VLMInferenceWrapper(model, inference_context=inference_wrapper_config, "
        "inference_wrapper_config=None): the config moved off its own parameter and None pinned on it",
    ),
    # megatron 0fe3232, as committed
    ("megatron-0fe3232", "committed", "examples/inference/gpt/gpt_dynamic_inference.py", 220): (
        False,
        WRONG,
        "GPTInferenceWrapper(model, args, context) -> (model, inference_context=args, "
        "pg_collection=context, inference_wrapper_config=None): every argument moved; " + _CMT,
    ),
    ("megatron-0fe3232", "committed", "examples/inference/gpt/gpt_static_inference.py", 102): (
        False,
        WRONG,
        "as gpt_dynamic_inference.py:220",
    ),
    ("megatron-0fe3232", "committed", "tools/run_inference_performance_test.py", 94): (
        False,
        WRONG,
        "GPTInferenceWrapper(model, inference_wrapper_config) -> (model, "
        "inference_context=inference_wrapper_config, inference_wrapper_config=None); " + _CMT,
    ),
    ("megatron-0fe3232", "committed", "tools/run_text_generation_server.py", 79): (
        False,
        WRONG,
        "as gpt_dynamic_inference.py:220",
    ),
    ("megatron-0fe3232", "committed", "examples/inference/t5/simple_t5_batch_inference.py", 93): (
        False,
        WRONG,
        "as in the replay",
    ),
    ("megatron-0fe3232", "committed", "examples/multimodal/run_text_generation.py", 199): (
        False,
        WRONG,
        "as in the replay",
    ),
    ("megatron-0fe3232", "committed", "tools/run_inference_performance_test.py", 103): (
        True,
        REPORT,
        "the revert restored a DynamicInferenceContext(...) call that passes "
        "buffer_guaranteed_fraction, which no signature takes: really broken",
    ),
    ("megatron-0fe3232", "committed", "tools/run_inference_performance_test.py", 142): (
        True,
        REPORT,
        "the revert restored DynamicInferenceEngine(..., termination_id=-1, ...): really broken",
    ),
    # megatron 4d51353
    ("megatron-4d51353", "replayed", "tools/run_text_generation_server.py", 40): (
        True,
        OK,
        "megatron/inference/ was deleted, MegatronServer moved: bench-op imports it from its module "
        "megatron.core.inference.text_generation_server.text_generation_server (the engineers from the "
        "package, which re-exports it). Before: 'from core.inference...': " + _NS,
    ),
    ("megatron-4d51353", "replayed", "tools/run_text_generation_server.py", 79): (
        True,
        REPORT,
        "ModelInferenceWrapperServer was removed",
    ),
    ("megatron-4d51353", "replayed", "examples/post_training/modelopt/generation_server.py", 35): (
        True,
        OK,
        "the same import, in a file the engineers left broken",
    ),
    ("megatron-4d51353", "replayed", "examples/post_training/modelopt/generation_server.py", 73): (
        True,
        REPORT,
        "ModelInferenceWrapperServer was removed: the file fails at import; the engineers missed it",
    ),
    ("megatron-4d51353", "committed", "examples/post_training/modelopt/generation_server.py", 35): (
        True,
        OK,
        "as in the replay",
    ),
    ("megatron-4d51353", "committed", "examples/post_training/modelopt/generation_server.py", 73): (
        True,
        REPORT,
        "as in the replay",
    ),
    # torchao
    ("torchao-8d4a921", "replayed", "benchmarks/float8/float8_inference_roofline.py", 43): (
        True,
        WRONG,
        "the import of the NVFP4MMConfig enum is rewritten to NVFP4WeightOnlyConfig, an unrelated new "
        "config class: renames.py pairs the removed enum with it on 'the package exports swap the names' "
        "(the export lists changed both), though NVFP4MMConfig has no constructor to compare (signature "
        "'?'). "
        "Harmless here only because the call's NVFP4MMConfig.DYNAMIC was dropped (the old default); the "
        "engineers deleted the import",
    ),
    ("torchao-d370196", "replayed", "benchmarks/float8/bench_linear_float8.py", 126): (
        True,
        REPORT,
        "static_scale=torch.tensor(...): dropping it would have been right (it only served the static "
        "scaling type this commit deletes; the engineers deleted the static cases); reported since the "
        "seventh session, as the new class names no static_scale: such a drop was wrong in torchrec, MONAI, "
        "composer, mmengine and flax",
    ),
    ("torchao-d370196", "replayed", "benchmarks/float8/bench_linear_float8.py", 137): (
        True,
        REPORT,
        "as line 126",
    ),
    ("torchao-d370196", "replayed", "benchmarks/float8/bench_linear_float8.py", 148): (
        True,
        REPORT,
        "as line 126",
    ),
    ("torchao-d370196", "replayed", "benchmarks/float8/float8_roofline.py", 338): (
        True,
        REPORT,
        "enable_amax_init=False, a choice with no home: reported, right",
    ),
    ("torchao-bdd0fcc", "replayed", "benchmarks/microbenchmarks/utils.py", 208): (
        True,
        REPORT,
        "use_hqq=use_hqq passes a flag (default False) the new signature has no place for: reported, right "
        "('int4wo-128-hqq' would otherwise measure the default algorithm). Before a flag's argument counted "
        "as a choice whatever its text, bench-op dropped it",
    ),
    ("torchao-70aef5d", "replayed", "benchmarks/benchmark_fp6_llm.py", 12): (
        True,
        REPORT,
        "Fp6LlmLinear was removed (QuantLlmLinearWeight takes other arguments)",
    ),
    ("torchao-4a42d32", "replayed", "benchmarks/prototype/moe_training/bench_moe_layer.py", 110): (
        True,
        REPORT,
        "MoETrainingConfig was removed",
    ),
    ("torchao-4a42d32", "replayed", "benchmarks/prototype/moe_training/benchmark_moe_layer_fsdp.py", 105): (
        True,
        REPORT,
        "MoETrainingConfig was removed",
    ),
    ("torchao-3c2030b", "replayed", "benchmarks/microbenchmarks/utils.py", 234): (
        True,
        REPORT,
        "FPXWeightOnlyConfig was removed",
    ),
    ("torchao-436b2e9", "replayed", "benchmarks/microbenchmarks/utils.py", 187): (
        True,
        REPORT,
        "SemiSparseLayout was removed",
    ),
    # flashinfer ce40d25
    ("flashinfer-ce40d25", "replayed", "benchmarks/bench_moe_ep.py", 249): (
        True,
        WRONG,
        "the import of MoEEpLayer is rewritten to MoEEpSplitLayer: renames.py pairs the class "
        "MoEEpLayer with MoEEpSplitLayer although the name MoEEpLayer is still there, a factory function in "
        "the "
        "same module and the package exports (changes.py looks at classes only); the call goes to "
        "MoEEpSplitLayer, bypassing the factory's dispatch (a MegaConfig backend would break; this benchmark "
        "passes a SplitConfig, so it binds)",
    ),
    ("flashinfer-ce40d25", "committed", "benchmarks/bench_moe_ep.py", 213): (
        False,
        WRONG,
        "the engineers' import of the MoEEpLayer factory rewritten to MoEEpSplitLayer (as in the replay)",
    ),
    ("flashinfer-ce40d25", "committed", "benchmarks/bench_moe_ep.py", 311): (
        False,
        WRONG,
        "the engineers' MoEEpLayer(bootstrap, fleet_params, weights=..., backend=...) call, right for "
        "the factory, sent to MoEEpSplitLayer",
    ),
    # xformers
    ("xformers-8367685", "replayed", "xformers/benchmarks/benchmark_swiglu.py", 71): (
        True,
        REPORT,
        "_SwiGLUModule is gone; the engineers moved to SwiGLU and dropped pack_weights=True "
        "(reported as removed with no successor: SwiGLU is not paired, its name is not _SwiGLUModule's)",
    ),
    ("xformers-8367685", "replayed", "xformers/benchmarks/benchmark_swiglu.py", 119): (
        True,
        REPORT,
        "as line 71",
    ),
    ("xformers-76cd62d", "replayed", "xformers/benchmarks/benchmark_mem_eff_attention.py", 152): (
        True,
        REPORT,
        "AttentionOpDispatch now takes only op: reported with the has_dropout=False choice, right",
    ),
    ("xformers-76cd62d", "replayed", "xformers/benchmarks/benchmark_mem_eff_attention.py", 236): (
        True,
        REPORT,
        "as line 152",
    ),
    # torchtune
    ("torchtune-5670109", "replayed", "recipes/finetune_llm.py", 112): (
        True,
        REPORT,
        "ReproducibleDataLoader was removed",
    ),
    ("torchtune-86c2318", "replayed", "recipes/finetune_llm.py", 22): (
        True,
        OK,
        "TransformerDecoderLayer moved to torchtune/modules/transformer.py: the import follows it (the "
        "engineers import the package re-export torchtune.modules: the same class)",
    ),
    ("torchtune-86c2318", "replayed", "scripts/llama2_checkpoint/convert_llama2_to_native.py", 20): (
        True,
        OK,
        "the import follows TransformerDecoder to torchtune.modules.transformer",
    ),
    ("torchtune-86c2318", "replayed", "scripts/llama2_inference/inference.py", 16): (
        True,
        OK,
        "the imports follow Tokenizer and TransformerDecoder to torchtune.modules",
    ),
    ("torchtune-86c2318", "replayed", "scripts/llama2_checkpoint/convert_llama2_to_native.py", 148): (
        True,
        REPORT,
        "TransformerDecoder now takes built modules: reported, right",
    ),
    ("torchtune-86c2318", "replayed", "scripts/llama2_inference/inference.py", 100): (
        True,
        REPORT,
        "as above",
    ),
    ("torchtune-86c2318", "replayed", "scripts/llama2_inference/inference.py", 139): (
        True,
        REPORT,
        "as above",
    ),
    ("torchtune-86c2318", "replayed", "scripts/llama2_inference/inference.py", 118): (
        True,
        OK,
        "decoder(tokens, 0): TransformerDecoder.forward(tokens, curr_pos=0) became (tokens, mask=None, "
        "curr_pos=0), so the 0 reached mask; curr_pos=0 keeps it where it was (the engineers left this "
        "script behind in that commit)",
    ),
    ("torchtune-86c2318", "replayed", "scripts/llama2_inference/inference.py", 156): (
        True,
        OK,
        "as inference.py:118, on the kv-cache decoder",
    ),
    ("torchao-8236a87", "replayed", "benchmarks/benchmark_fp6.py", 5): (
        True,
        OK,
        "torchao.dtypes.fpx is gone; bench-op imports the renamed classes from torchao.dtypes.floatx.floatx, "
        "which defines them, the engineers from the package torchao.dtypes.floatx, which re-exports them: "
        "the same classes",
    ),
    ("liger-24a7efc", "replayed", "benchmark/scripts/benchmark_fused_linear_jsd.py", 93): (
        True,
        REPORT,
        "self.fused_jsd(...) on the LigerFusedLinearJSD the wrapper keeps: forward gained a required "
        "shift_labels, so the call raises TypeError at that commit; reported, right (the engineers left it)",
    ),
    # apex
    **{
        ("apex-312acb4", "committed", p, ln): (
            False,
            WRONG,
            "nccl_mem(pool) -> nccl_mem(enabled=pool, pool=pool): "
            "the engineers' call moved onto the old first parameter 'enabled' and "
            "the new 'pool' filled from the same-named variable; " + _CMT,
        )
        for p, ln in (
            ("apex/contrib/examples/nccl_allocator/allreduce.py", 17),
            ("apex/contrib/examples/nccl_allocator/cache.py", 25),
            ("apex/contrib/examples/nccl_allocator/cache.py", 46),
            ("apex/contrib/examples/nccl_allocator/change_cuda_allocator.py", 7),
            ("apex/contrib/examples/nccl_allocator/toy_ddp.py", 40),
        )
    },
    ("torchao-8d4a921", "replayed", "benchmarks/float8/float8_inference_roofline.py", 41): (
        True,
        REPORT,
        "the import keeps NVFP4MMConfig, which the commit removed everywhere (the engineers dropped it from "
        "this import): an ImportError; reported as a hand edit on the statement, right",
    ),
    # An import statement bench-op reports (a class removed with no successor, or moved where the import
    # can't follow): each import fails at that commit (the module gone, or no longer defining the name),
    # read in the code of each.
    **{
        key: (
            True,
            REPORT,
            "the import fails at that commit (the module is gone or no longer defines the name): a hand "
            "edit on the statement, right",
        )
        for key in (
            ("megatron-23f3f55", "replayed", "tools/merge_datasets.py", 10),
            ("megatron-23f3f55", "replayed", "tools/preprocess_mmdata.py", 25),
            ("megatron-4d51353", "committed", "examples/multimodal/run_text_generation.py", 27),
            ("megatron-4d51353", "committed", "examples/post_training/modelopt/generation_server.py", 31),
            ("megatron-4d51353", "committed", "tools/run_vlm_text_generation.py", 20),
            ("megatron-4d51353", "replayed", "examples/multimodal/run_text_generation.py", 27),
            ("megatron-4d51353", "replayed", "examples/post_training/modelopt/generation_server.py", 31),
            ("megatron-4d51353", "replayed", "tools/run_text_generation_server.py", 36),
            ("megatron-4d51353", "replayed", "tools/run_vlm_text_generation.py", 20),
            ("megatron-a0e190c", "replayed", "examples/detxoify_lm/finetune_gpt.py", 18),
            ("megatron-ffbc43f", "committed", "examples/inference/t5/simple_t5_batch_inference.py", 10),
            ("megatron-ffbc43f", "committed", "examples/multimodal/run_text_generation.py", 35),
            ("megatron-ffbc43f", "replayed", "examples/inference/gpt/gpt_static_inference.py", 4),
            ("megatron-ffbc43f", "replayed", "examples/inference/t5/simple_t5_batch_inference.py", 10),
            ("megatron-ffbc43f", "replayed", "examples/multimodal/run_text_generation.py", 35),
            ("megatron-ffbc43f", "replayed", "tools/run_inference_performance_test.py", 20),
            ("megatron-ffbc43f", "replayed", "tools/run_text_generation_server.py", 25),
            ("torchao-3c2030b", "replayed", "benchmarks/microbenchmarks/utils.py", 16),
            ("torchao-436b2e9", "replayed", "benchmarks/microbenchmarks/utils.py", 185),
            ("torchao-4a42d32", "replayed", "benchmarks/prototype/moe_training/bench_moe_layer.py", 18),
            (
                "torchao-4a42d32",
                "replayed",
                "benchmarks/prototype/moe_training/benchmark_moe_layer_fsdp.py",
                27,
            ),
            (
                "torchao-4a42d32",
                "replayed",
                "benchmarks/prototype/moe_training/benchmark_scaled_grouped_mm_dq.py",
                23,
            ),
            ("torchao-70aef5d", "replayed", "benchmarks/benchmark_fp6_llm.py", 3),
            ("torchtune-5670109", "replayed", "recipes/finetune_llm.py", 23),
            ("triton-d8119d51", "replayed", "python/triton_kernels/bench/distributed.py", 13),
        )
    },
    # vllm 97995f6: MoEPrepareAndFinalizeNoEP renamed MoEPrepareAndFinalizeNoDPEPModular (the same
    # constructor, re-exported from prepare_finalize/__init__): the engineers replaced the call by
    # maybe_make_prepare_finalize(...), which returns that class for no DP/EP; bench-op's rename is right.
    **{
        ("vllm-97995f6", "replayed", p, ln): (
            True,
            OK,
            "MoEPrepareAndFinalizeNoEP() -> MoEPrepareAndFinalizeNoDPEPModular(): the class renamed, its "
            "constructor the same; the engineers restructured the call around maybe_make_prepare_finalize",
        )
        for p, ln in (
            ("benchmarks/kernels/benchmark_cutlass_moe_fp8.py", 141),
            ("benchmarks/kernels/benchmark_cutlass_moe_fp8.py", 19),
            ("benchmarks/kernels/benchmark_cutlass_moe_nvfp4.py", 200),
            ("benchmarks/kernels/benchmark_cutlass_moe_nvfp4.py", 245),
            ("benchmarks/kernels/benchmark_cutlass_moe_nvfp4.py", 27),
            ("benchmarks/kernels/benchmark_grouped_gemm_cutlass.py", 136),
            ("benchmarks/kernels/benchmark_grouped_gemm_cutlass.py", 168),
            ("benchmarks/kernels/benchmark_grouped_gemm_cutlass.py", 19),
        )
    },
    # triton d8119d51: triton_kernels.matmul_ogs deleted (matmul_ogs the function renamed matmul): every
    # replayed call in these files fails at the import, and the import can't follow (a function renamed).
    **{
        ("triton-d8119d51", "replayed", p, ln): (
            True,
            REPORT,
            "`from triton_kernels.matmul_ogs import matmul_ogs, PrecisionConfig, ...`: the module is gone, "
            "and the function matmul_ogs became matmul; the file fails at import; reported, right",
        )
        for p, ln in (
            ("python/triton_kernels/bench/bench_mlp.py", 60),
            ("python/triton_kernels/bench/bench_mlp.py", 61),
            ("python/triton_kernels/bench/bench_mlp.py", 63),
            ("python/triton_kernels/bench/bench_mlp.py", 64),
            ("python/triton_kernels/bench/distributed.py", 174),
            ("python/triton_kernels/bench/distributed.py", 191),
            ("python/triton_kernels/bench/distributed.py", 193),
            ("python/triton_kernels/bench/distributed.py", 194),
            ("python/triton_kernels/bench/distributed.py", 279),
            ("python/triton_kernels/bench/distributed.py", 280),
            ("python/triton_kernels/bench/distributed.py", 282),
            ("python/triton_kernels/bench/distributed.py", 283),
            ("python/triton_kernels/bench/distributed.py", 285),
            ("python/triton_kernels/bench/distributed.py", 286),
        )
    },
    **{
        ("triton-d8119d51", "committed", "python/triton_kernels/bench/bench_mlp.py", ln): (
            True,
            OK,
            "PrecisionConfig(..., weight_scale=x) -> b_mx_scale=x: the weight is operand b of matmul(a, b); "
            "the engineers made the same edit in distributed.py and missed this file (a TypeError at C)",
        )
        for ln in (60, 63)
    },
}


# -- helpers
# -----------------------------------------------------------------------------------------------------


def matches(path: str, patterns: Iterable[str]) -> bool:
    from benchop_hook.globs import matches as m

    return m(path, list(patterns))


def name_status(repo: str, a: str, b: str) -> list[list[str]]:
    return [
        ln.split("\t") for ln in git(repo, "diff", "--name-status", "-M", a, b).splitlines() if ln.strip()
    ]


def library_classes(repo: str, rev: str, bench: list[str]) -> set[str]:
    """Names of the classes defined outside the benchmark paths at `rev`."""
    excludes = [f":(exclude,glob){p}" for p in bench]
    out = git(
        repo,
        "grep",
        "-h",
        "-o",
        "-E",
        r"^\s*class [A-Za-z_][A-Za-z0-9_]*",
        rev,
        "--",
        "*.py",
        *excludes,
        check=False,
    )
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def bench_classes(repo: str, rev: str, bench: list[str]) -> set[str]:
    """Names of the classes the benchmark paths define themselves at `rev`."""
    out = git(
        repo,
        "grep",
        "-h",
        "-o",
        "-E",
        r"^\s*class [A-Za-z_][A-Za-z0-9_]*",
        rev,
        "--",
        *[f":(glob){p}" for p in bench],
        check=False,
    )
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def ast_sig(repo: str, rev: str, name: str, bench: list[str]) -> inspect.Signature | None:
    """The constructor of class `name` at `rev` read with ast: its own `__init__` (without self), or the
    fields
    of a dataclass; None when neither (an inherited constructor)."""
    excludes = [f":(exclude,glob){p}" for p in bench]
    hits = git(
        repo, "grep", "-l", "-E", rf"^\s*(class|def) {name}\b", rev, "--", "*.py", *excludes, check=False
    ).split()
    for hit in hits:
        text = show(repo, rev, hit.split(":", 1)[1])
        try:
            tree = ast.parse(text or "")
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == name and node in tree.body:
                return _sig_from(f"({ast.unparse(node.args)})")
            if not (isinstance(node, ast.ClassDef) and node.name == name):
                continue
            init = next(
                (b for b in node.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None
            )
            if init is not None:
                full = _sig_from(f"({ast.unparse(init.args)})")
                return None if full is None else full.replace(parameters=list(full.parameters.values())[1:])
            if any("dataclass" in ast.unparse(d) for d in node.decorator_list):
                fields_ = [
                    b
                    for b in node.body
                    if isinstance(b, ast.AnnAssign)
                    and isinstance(b.target, ast.Name)
                    and "ClassVar" not in ast.unparse(b.annotation)
                ]
                try:
                    return inspect.Signature(
                        [
                            inspect.Parameter(
                                b.target.id,
                                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                default=inspect.Parameter.empty if b.value is None else ast.unparse(b.value),
                            )
                            for b in fields_
                        ]
                    )
                except ValueError:
                    return None
            return None
    return None


def still_defined(repo: str, rev: str, name: str, bench: list[str], tests: list[str]) -> bool:
    """The old name is still defined in the library at `rev`: a class, a function, an alias import
    (`X as Old`) or an assignment (`Old = ...`), outside the benchmarks and tests."""
    excludes = [f":(exclude,glob){p}" for p in (*bench, *tests)]
    pattern = rf"^\s*(class|def) {name}\b|\bas {name}\b|^\s*{name}\s*(:[^=]*)?="
    return bool(git(repo, "grep", "-l", "-E", pattern, rev, "--", "*.py", *excludes, check=False).strip())


def import_source(text: str | None, name: str) -> str | None:
    """The module a file imports `name` from (`from m import name`), anywhere in the file; None when it
    does not."""
    try:
        tree = ast.parse(text or "")
    except SyntaxError:
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and any((a.asname or a.name) == name for a in n.names):
            return "." * n.level + (n.module or "")
    return None


def var_renames(before: str | None, after: str | None) -> dict[str, str]:
    """new local name -> old, for lowercase names the engineers renamed (a line that differs only by it)."""
    if before is None or after is None:
        return {}
    from benchop_hook.analysis.renames import substitutions

    wb, wa = _code_names(before), _code_names(after)
    return {
        n: o
        for o, n in substitutions(before, after)
        if o[:1].islower() and n[:1].islower() and o not in wa and n not in wb
    }


def renamed_classes(before: str | None, after: str | None) -> dict[str, str]:
    if before is None or after is None:
        return {}
    from benchop_hook.analysis.renames import substitutions

    wb, wa = _code_names(before), _code_names(after)
    return {
        o: n
        for o, n in substitutions(before, after)
        if o[:1].isupper() and n[:1].isupper() and o not in wa and n not in wb
    }


class _Unrename(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(self.names.get(node.id, node.id), node.ctx), node)


def unrename(call: ast.Call, names: dict[str, str]) -> ast.Call:
    """The call with the engineers' renamed locals read back as the old names (arguments only)."""
    if not names:
        return call
    import copy

    c = copy.deepcopy(call)
    c.args = [_Unrename(names).visit(a) for a in c.args]
    for k in c.keywords:
        k.value = _Unrename(names).visit(k.value)
    return c


def changed_lines(repo: str, a: str, b: str | None, paths: list[str]) -> dict[str, set[int]]:
    """path -> line numbers on the NEW side that the diff a..b (b None: the working tree) adds or changes;
    with `old=True`-like use through `old_side_lines`."""
    args = ["diff", "-U0", a] + ([b] if b else []) + ["--", *paths]
    out: dict[str, set[int]] = {}
    path = None
    for line in git(repo, *args).splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@") and path:
            m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
            if m:
                start, count = int(m.group(3)), int(m.group(4) or 1)
                out.setdefault(path, set()).update(range(start, start + count))
    return out


def old_side_hunks(repo: str, paths: list[str]) -> dict[str, list[tuple[int, int, list[str], list[str]]]]:
    """Working-tree diff against HEAD: path -> (first old line, old count, old lines, new lines) per hunk."""
    out: dict[str, list[tuple[int, int, list[str], list[str]]]] = {}
    path = None
    cur: tuple[int, int, list[str], list[str]] | None = None
    for line in git(repo, "diff", "-U0", "HEAD", "--", *paths).splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
            continue
        if line.startswith("--- ") or line.startswith("diff ") or line.startswith("index "):
            continue
        if line.startswith("@@") and path:
            m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
            if m:
                cur = (int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1), [], [])
                out.setdefault(path, []).append(cur)
            continue
        if cur is not None and line[:1] == "-":
            cur[2].append(line[1:])
        elif cur is not None and line[:1] == "+":
            cur[3].append(line[1:])
    return out


# -- grading -------------------------------------------------------------------------------------------------


@dataclass
class Tally:
    same: int = 0
    different: int = 0
    meaning: int = 0
    reported: int = 0
    to_run: int = 0
    missed: int = 0
    unwanted: int = 0
    false_blocks: int = 0
    false_blocks_really_broken: int = 0
    beyond: int = 0  # changed by the engineers beyond a fix (not counted in the denominator)
    beyond_meaning: int = 0  # ... and bench-op's rewrite moves or drops a value the engineers carried
    optional: int = 0
    needless: int = 0  # rewrites of calls that still bound the same, keeping that binding
    unpaired: int = 0  # calls of functions the engineers restructured (no call-by-call pairing)
    other_rewrites: int = 0  # rewrites in files (or functions) the engineers did not edit
    wrong_edits: int = 0  # replayed: edits outside the graded calls that VERDICTS calls wrong
    committed_wrong: int = 0  # as committed: rewrites VERDICTS calls wrong
    own_line_rewrites: int = 0  # as committed: rewrites of lines the commit itself changed
    committed_rewrites: int = 0  # as committed: every rewrite
    committed_blocks: int = 0  # as committed: calls reported for a hand edit
    committed_false_blocks: int = 0  # ... of them, calls that are not broken (VERDICTS)
    lines: list[str] = field(default_factory=list)

    KEYS = (
        "same",
        "different",
        "meaning",
        "reported",
        "to_run",
        "missed",
        "unwanted",
        "false_blocks",
        "false_blocks_really_broken",
        "beyond",
        "beyond_meaning",
        "optional",
        "needless",
        "unpaired",
        "other_rewrites",
        "own_line_rewrites",
        "committed_rewrites",
        "committed_blocks",
        "wrong_edits",
        "committed_wrong",
        "committed_false_blocks",
    )

    def add(self, other: Tally) -> None:
        for k in self.KEYS:
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def counted(self) -> int:
        return self.same + self.different + self.reported + self.to_run + self.missed

    def summary(self) -> str:
        return (
            f"same {self.same}, different {self.different} (meaning differs {self.meaning}), reported "
            f"{self.reported}, left to the run {self.to_run}, missed {self.missed}, unwanted "
            f"{self.unwanted}, "
            f"false blocks {self.false_blocks} (really broken {self.false_blocks_really_broken}); beyond a "
            "fix "
            f"{self.beyond} (meaning differs {self.beyond_meaning}), tidied {self.optional} (needless "
            "rewrites "
            f"{self.needless}), restructured {self.unpaired}, other edits {self.other_rewrites} (wrong "
            f"{self.wrong_edits}); as committed: rewrites {self.committed_rewrites} (of the commit's own "
            "lines "
            f"{self.own_line_rewrites}; wrong {self.committed_wrong}), hand-edit requests "
            f"{self.committed_blocks} (on "
            f"calls not broken {self.committed_false_blocks})"
        )


def _blocked(f: dict) -> bool:
    return not f.get("fixed") and f.get("status") not in ("ok", "default", "unknown")


def _finding_for(findings: list[dict], path: str, node: ast.Call) -> dict | None:
    lo, hi = node.lineno, node.end_lineno or node.lineno
    hits = [f for f in findings if f["path"] == path and lo <= f["line"] <= hi]
    # the finding of the call itself first (its name), then any on its lines (an argument's own call)
    name = _func_name(node.func)
    return next((f for f in hits if f.get("call") == name or f.get("op") == name), hits[0] if hits else None)


def _why(f: dict | None) -> str:
    if f is None:
        return "no finding"
    parts = [f.get("status", "?")]
    if f.get("problem"):
        parts.append(f["problem"])
    if f.get("why_not"):
        parts.append(f["why_not"])
    return "; ".join(parts)


def _verdict(
    entry: str,
    state: str,
    path: str,
    line: int,
    t: Tally | None = None,
    committed: bool = False,
    edited: bool | None = None,
) -> str:
    v = VERDICTS.get((entry, state, path, line))
    if v is None:
        return f"verdict: not yet read {(entry, state, path, line)!r}"
    if edited is not None and (v[1] is not None) != edited:
        # The verdict judged another action (an edit where bench-op now reports, or the reverse): read again.
        now = "edits" if edited else "reports"
        return f"verdict: not yet read (bench-op now {now} here) {(entry, state, path, line)!r}"
    if t is not None and v[1] is False:
        if committed:
            t.committed_wrong += 1
        else:
            t.wrong_edits += 1
    edit = {True: "bench-op's edit is right", False: "bench-op's edit is WRONG", None: "reported"}[v[1]]
    return f"verdict: {'really broken' if v[0] else 'NOT broken'}; {edit}: {v[2]}"


def run_bench_op(
    clone: str, bench_op: str, parent: str, to: str, timeout: float
) -> tuple[int, float, dict, str]:
    """`bench-op fix --from-ref parent --to-ref to` in `clone`, `to` checked out (fix writes there)."""
    report = os.path.join(tempfile.mkdtemp(prefix="others-"), "fix.json")
    start = time.monotonic()
    try:
        p = subprocess.run(
            [bench_op, "fix", "--from-ref", parent, "--to-ref", to, "--json", report],
            cwd=clone,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return (
            -1,
            time.monotonic() - start,
            {"changes": [], "findings": []},
            f"timed out after {timeout:.0f} s",
        )
    took = time.monotonic() - start
    data: dict = {"changes": [], "findings": []}
    if os.path.exists(report):
        with open(report) as f:
            data = json.load(f)
    return p.returncode, took, data, (p.stdout + p.stderr)


def checkout(clone: str, sha: str, config: dict[str, list[str]]) -> None:
    git(clone, "checkout", "-q", "-f", "--detach", sha)
    git(clone, "clean", "-q", "-fdx")
    with open(os.path.join(clone, "pyproject.toml"), "a", encoding="utf-8") as f:
        f.write(toml(config))


def replayed(e: Entry, clone: str, parent: str, bench_op: str, timeout: float) -> Tally:
    t = Tally()
    bench = e.config["benchmark-paths"]
    checkout(clone, e.sha, e.config)
    # (path at parent, path at commit) of benchmark files the engineers edited, put back and committed; its
    # sha (not HEAD) names the state, so that record_diff.py's files for it and for the commit differ
    state = replay_commit(clone, e.sha, lambda p: matches(p, bench))
    pairs = state.pairs
    rc, took, data, out = run_bench_op(clone, bench_op, parent, state.head, timeout)
    findings = data.get("findings", [])
    t.lines.append(
        f"  replayed: bench-op fix exit {rc}, {took:.1f} s, {len(data.get('changes', []))} changes, "
        f"{len(findings)} findings, rewrote {len(data.get('rewritten', []))} files"
    )
    if rc in (-1, 3) or (rc == 2):
        t.lines.append("    " + (out.strip().splitlines() or ["?"])[-1])
    for sk in data.get("skipped", []):
        t.lines.append(f"    skipped by bench-op: {sk.get('path')}: {sk.get('reason')}")
    for c in data.get("changes", []):
        if c.get("status") != "changed" or c.get("edits"):
            t.lines.append(
                f"    change: {c.get('op')} {c.get('status')}: {c.get('old_signature')} -> "
                f"{c.get('new_signature')}"
                + (
                    f"  [{(c.get('old') or '-').rsplit('.', 1)[-1]} -> "
                    f"{(c.get('new') or '-').rsplit('.', 1)[-1]}]"
                    if c.get("old") != c.get("new")
                    else ""
                )
            )
    sigs: dict[str, inspect.Signature | None] = {}
    old_sigs: dict[str, inspect.Signature | None] = {}
    ours_rename: dict[str, str] = {}
    names: set[str] = set()
    for c in data.get("changes", []):
        old = (c.get("old") or "").rsplit(".", 1)[-1]
        new = (c.get("new") or "").rsplit(".", 1)[-1]
        names.update(n for n in (old, new) if n)
        if new:
            sigs[new] = _sig_from(c.get("new_signature"))
        if old:
            old_sigs[old] = _sig_from(c.get("old_signature"))
        if old and new and old != new:
            ours_rename[old] = new
    lib_before, lib_after = library_classes(clone, parent, bench), library_classes(clone, e.sha, bench)
    bench_before, bench_after = bench_classes(clone, parent, bench), bench_classes(clone, e.sha, bench)
    graded: set[tuple[str, int, int]] = set()  # (path, first line, last line) of old calls accounted for
    for old_path, new_path in pairs:
        before = show(clone, parent, old_path)
        eng = show(clone, e.sha, new_path)
        with open(os.path.join(clone, new_path), encoding="utf-8") as f:
            ours = f.read()
        eng_rename = {
            o: n
            for o, n in renamed_classes(before, eng).items()
            if o in lib_before and n in lib_after and n not in lib_before
        }
        locals_back = var_renames(before, eng)
        lib_names = {
            n for n in (_code_names(before or "") | _code_names(eng or "")) if n in lib_before | lib_after
        }
        # the benchmarks' own classes (a helper `Request` in examples/) are the engineers' business, not
        # bench-op's
        all_names = (names | {n for n in lib_names if n[:1].isupper()}) - (bench_before | bench_after)
        before_names = _code_names(before or "")
        cb, ce, co = calls_in(before, all_names), calls_in(eng, all_names), calls_in(ours, all_names)
        for (fn, name), olds in sorted(cb.items(), key=lambda kv: kv[1][0].node.lineno):
            eng_calls = (
                ce.get((fn, eng_rename.get(name, name)))
                or ce.get((fn, name))
                or ce.get((fn, ours_rename.get(name, name)))
                or []
            )
            our_calls = (
                co.get((fn, ours_rename.get(name, name)))
                or co.get((fn, name))
                or co.get((fn, eng_rename.get(name, name)))
                or []
            )
            if len(eng_calls) != len(olds) or len(our_calls) != len(olds):
                touched = [o for o in olds if _finding_for(findings, new_path, o.node) is not None]
                eng_any = any(
                    _norm(ast.unparse(o.node)) not in {_norm(ast.unparse(x.node)) for x in eng_calls}
                    for o in olds
                )
                if touched or eng_any:
                    t.unpaired += len(olds)
                    t.lines.append(
                        f"  restructured by the engineers (not graded): {new_path} {fn or '<module>'}: "
                        f"{len(olds)} {name}(...) before, {len(eng_calls)} after"
                    )
                    for i, o in enumerate(olds):
                        graded.add((new_path, o.node.lineno, o.node.end_lineno or o.node.lineno))
                        f = _finding_for(findings, new_path, o.node)
                        if f is not None:
                            after = (
                                our_calls[i].text if len(our_calls) == len(olds) else f"fix {f.get('fix')}"
                            )
                            said = _verdict(
                                e.name, "replayed", new_path, o.node.lineno, t, edited=bool(f.get("fixed"))
                            )
                            t.lines.append(
                                f"      {new_path}:{o.node.lineno} {o.text[:160]}\n        bench-op "
                                + (f"rewrote it: {after[:200]}" if f.get("fixed") else "said " + _why(f))
                                + f"\n        {said}"
                            )
                continue
            eng_new_name = eng_calls[0].name
            src_before, src_eng = import_source(before, name), import_source(eng, eng_new_name)
            switched = (
                src_before is not None
                and src_eng is not None
                and src_before != src_eng
                and eng_new_name == name
                and not any(
                    c.get("old", "").endswith("." + name)
                    for c in data.get("changes", [])
                    if c.get("status") == "moved"
                )
            )
            for o, e_, u in zip(olds, eng_calls, our_calls):
                if switched and _norm(ast.unparse(o.node)) != _norm(ast.unparse(e_.node)):
                    graded.add((new_path, o.node.lineno, o.node.end_lineno or o.node.lineno))
                    t.beyond += 1
                    f_ = _finding_for(findings, new_path, o.node)
                    t.lines.append(
                        f"  beyond a fix (the engineers switched to another class of the same name, "
                        f"imported from {src_eng} instead of {src_before}): {new_path}:{o.node.lineno} "
                        f"{o.text}\n      engineers: {e_.text}\n      bench-op:  "
                        + (
                            f"rewrote it: {u.text}"
                            if _norm(ast.unparse(o.node)) != _norm(ast.unparse(u.node))
                            else f"{_why(f_)}"
                        )
                    )
                    continue
                graded.add((new_path, o.node.lineno, o.node.end_lineno or o.node.lineno))
                t.lines.extend(
                    grade_call(
                        e,
                        t,
                        clone,
                        parent,
                        new_path,
                        o,
                        e_,
                        u,
                        eng_new_name,
                        name,
                        sigs,
                        old_sigs,
                        findings,
                        before_names,
                        locals_back,
                        bench,
                    )
                )
        t.lines.extend(
            other_edits(
                e,
                t,
                new_path,
                before or "",
                eng or "",
                ours,
                [(lo, hi) for p, lo, hi in graded if p == new_path],
            )
        )
    # Files bench-op rewrote that the engineers did not edit in this commit.
    for path in data.get("rewritten", []):
        if path in {p for _, p in pairs}:
            continue
        before = show(clone, e.sha, path) or ""
        with open(os.path.join(clone, path), encoding="utf-8") as f:
            ours = f.read()
        t.lines.extend(
            other_edits(
                e,
                t,
                path,
                before,
                before,
                ours,
                [(lo, hi) for p, lo, hi in graded if p == path],
                untouched=True,
            )
        )
    # Findings not accounted for above: calls in files (or functions) the engineers left alone.
    for f in findings:
        key = (f["path"], f["line"])
        if any(p == f["path"] and lo <= f["line"] <= hi for p, lo, hi in graded):
            continue
        if f.get("fixed"):
            t.lines.append(
                f"  finding fixed on a call the engineers left alone (its edit is listed under 'other "
                f"edit'): {f['path']}:{f['line']} {f.get('text')}: {_why(f)} -> fix {f.get('fix')}"
            )
        elif _blocked(f):
            t.false_blocks += 1
            v = VERDICTS.get((e.name, "replayed", *key))
            if v and v[0]:
                t.false_blocks_really_broken += 1
            t.lines.append(
                f"  false block: {f['path']}:{f['line']} {f.get('text')}: {_why(f)}\n"
                f"      {_verdict(e.name, 'replayed', *key, edited=False)}"
            )
    return t


def other_edits(
    e: Entry,
    t: Tally,
    path: str,
    before: str,
    eng: str,
    ours: str,
    calls: list[tuple[int, int]],
    untouched: bool = False,
) -> list[str]:
    """bench-op's edits of a file outside the graded calls (imports, method calls, dicts), each compared with
    the engineers' file: an edit whose new lines the engineers' file does not hold is listed as differing."""
    import difflib

    a, b = before.splitlines(), ours.splitlines()
    eng_flat = re.sub(r"\s+", "", eng)
    out: list[str] = []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        lo, hi = i1 + 1, max(i1 + 1, i2)
        if any(c_lo <= lo and hi <= c_hi for c_lo, c_hi in calls):
            continue  # inside a graded call
        new_lines = [ln.strip() for ln in b[j1:j2] if ln.strip()]
        old_lines = [ln.strip() for ln in a[i1:i2] if ln.strip()]
        flat_new = re.sub(r"\s+", "", "".join(new_lines)).rstrip(",")
        flat_old = re.sub(r"\s+", "", "".join(old_lines)).rstrip(",")
        if not untouched and flat_new in eng_flat and (not flat_old or flat_old not in eng_flat):
            out.append(
                f"  other edit, as the engineers': {path}:{lo} {' / '.join(old_lines)[:120] or '(insertion)'}"
                f" -> {' / '.join(new_lines)[:120] or '(deletion)'}"
            )
            continue
        t.other_rewrites += 1
        where = "in a file the engineers did not edit" if untouched else "not as the engineers'"
        out.append(
            f"  other edit, {where}: {path}:{lo} {' / '.join(old_lines)[:140] or '(insertion)'}\n"
            f"      -> {' / '.join(new_lines)[:140] or '(deletion)'}\n      "
            f"{_verdict(e.name, 'replayed', path, lo, t, edited=True)}"
        )
    return out


def grade_call(
    e: Entry,
    t: Tally,
    clone: str,
    parent: str,
    path: str,
    o,
    e_,
    u,
    eng_new_name: str,
    name: str,
    sigs: dict,
    old_sigs: dict,
    findings: list[dict],
    before_names: set[str],
    locals_back: dict[str, str],
    bench: list[str],
) -> list[str]:
    out: list[str] = []
    en = unrename(e_.node, locals_back)
    renamed_locals = _norm(ast.unparse(en)) != _norm(ast.unparse(e_.node))
    eng_changed = _norm(ast.unparse(o.node)) != _norm(ast.unparse(e_.node))
    ours_changed = _norm(ast.unparse(o.node)) != _norm(ast.unparse(u.node))
    f = _finding_for(findings, path, o.node)
    if not eng_changed:
        if ours_changed:
            t.unwanted += 1
            out.append(
                f"  unwanted: {path}:{o.node.lineno} {o.text}\n      bench-op:  {u.text}\n      "
                f"{_verdict(e.name, 'replayed', path, o.node.lineno, edited=True)}"
            )
        elif f is not None and _blocked(f):
            t.false_blocks += 1
            v = VERDICTS.get((e.name, "replayed", path, f["line"]))
            if v and v[0]:
                t.false_blocks_really_broken += 1
            out.append(
                f"  false block: {path}:{o.node.lineno} {o.text}: {_why(f)}\n"
                f"      {_verdict(e.name, 'replayed', path, f['line'], edited=False)}"
            )
        return out
    sig = sigs.get(eng_new_name) or sigs.get(name) or ast_sig(clone, e.sha, e_.name, bench)
    sig_old = old_sigs.get(o.name) or ast_sig(clone, parent, o.name, bench)
    bo, bo_new, be = binding(o.node, sig_old), binding(o.node, sig), binding(en, sig)

    def _sig_for(cls: str) -> inspect.Signature | None:
        """The signature bench-op's call binds: its class's (bench-op's successor may not be the
        engineers')."""
        if cls == e_.name:
            return sig
        return sigs.get(cls) or ast_sig(clone, e.sha, cls, bench)

    shared = set(sig_old.parameters) & set(sig.parameters) if sig_old and sig else set()
    splats = sum(isinstance(a, ast.Starred) for a in en.args) + sum(k.arg is None for k in en.keywords)
    old_splats = sum(isinstance(a, ast.Starred) for a in o.node.args) + sum(
        k.arg is None for k in o.node.keywords
    )
    new_values = _values(en) - _values(o.node)
    loc = f"{path}:{o.node.lineno}"
    eng_text = ast.unparse(e_.node) + (
        "  (their locals renamed: "
        + ", ".join(f"{n} was {v}" for n, v in locals_back.items() if n in ast.unparse(e_.node))
        + ")"
        if renamed_locals
        else ""
    )
    if e_.name == o.name and bo is not None and bo == bo_new and not new_values and not splats > old_splats:
        t.optional += 1
        out.append(
            f"  tidied (the old call still bound the same): {loc} {o.text}\n      engineers: {eng_text}"
        )
        if ours_changed:
            if binding(u.node, sig) == bo_new and u.name == o.name:
                t.needless += 1
                out.append(f"      bench-op rewrote it with the same binding (a needless rewrite): {u.text}")
            else:
                t.unwanted += 1
                out.append(
                    f"      UNWANTED: bench-op rewrote a call that still bound the same, and its binding "
                    f"differs: {u.text}"
                )
        return out
    if (
        e_.name != o.name
        and not ours_changed
        and (f is None or f.get("status") in ("ok", "default"))
        and still_defined(clone, e.sha, o.name, bench, e.config.get("test-paths", []))
    ):
        t.optional += 1
        out.append(
            f"  tidied (the old name {o.name} is still defined at the commit, an alias or a deprecated "
            f"wrapper; bench-op left it): {loc} {o.text}\n      engineers: {eng_text}"
        )
        return out
    beyond = (
        splats > old_splats
        or any(
            not _IDENT.fullmatch(v) or v in ("True", "False", "None") or v not in before_names
            for v in new_values
        )
        or (bo is not None and be is not None and any(bo.get(k) != be.get(k) for k in shared))
    )
    if beyond:
        t.beyond += 1
        what = (
            ("rewrote it: " + u.text)
            if ours_changed
            else ("said " + _why(f))
            if f is not None
            else "did nothing"
        )
        line = f"  beyond a fix: {loc} {o.text}\n      engineers: {eng_text}\n      bench-op:  {what}"
        if ours_changed:
            bu = binding(u.node, _sig_for(u.name))
            carried = {k: v for k, v in (be or {}).items() if v in {_norm(x) for x in _values(o.node)}}
            bad = [k for k, v in carried.items() if bu is not None and bu.get(k) not in (None, v)]
            dropped = [
                k
                for k, v in carried.items()
                if bu is not None and k not in bu and v not in (bu or {}).values()
            ]
            moved = [k for k, v in (bu or {}).items() if v in carried.values() and carried.get(k) != v]
            if bu is None or bad or moved or (dropped and u.name == e_.name):
                t.beyond_meaning += 1
                line += (
                    f"\n      MEANING DIFFERS on what the engineers carried over: "
                    f"{', '.join(sorted(set(bad + moved + dropped))) or 'bench-op call does not bind'}"
                )
        out.append(line)
        return out
    if not ours_changed:
        if f is not None and f.get("status") == "unknown":
            t.to_run += 1
            out.append(f"  left to the run: {loc} {o.text} (engineers: {eng_text})")
        elif f is not None and _blocked(f):
            t.reported += 1
            out.append(f"  reported: {loc} {o.text}\n      engineers: {eng_text}\n      bench-op:  {_why(f)}")
        else:
            t.missed += 1
            out.append(f"  missed: {loc} {o.text}\n      engineers: {eng_text}\n      bench-op:  {_why(f)}")
        return out
    bu = binding(u.node, _sig_for(u.name))
    if (be is not None and be == bu and e_.name == u.name) or _norm(ast.unparse(en)) == _norm(
        ast.unparse(u.node)
    ):
        t.same += 1
        out.append(
            f"  same: {loc} {o.text}\n      -> {u.text}"
            + (f"  (engineers renamed a local: {eng_text})" if renamed_locals else "")
        )
        return out
    t.different += 1
    differs = (
        be is None or bu is None or any(be.get(k) != v for k, v in bu.items()) or any(k not in bu for k in be)
    )
    if differs and e_.name == u.name:
        t.meaning += 1
    out.append(
        f"  different{' (MEANING DIFFERS)' if differs and e_.name == u.name else ''}: {loc} {o.text}\n"
        f"      engineers: {eng_text}\n      bench-op:  {u.text}"
    )
    return out


def _statements(text: str | None) -> list[tuple[int, int]]:
    try:
        tree = ast.parse(text or "")
    except SyntaxError:
        return []
    return [(n.lineno, n.end_lineno or n.lineno) for n in ast.walk(tree) if isinstance(n, ast.stmt)]


def as_committed(e: Entry, clone: str, parent: str, bench_op: str, timeout: float, t: Tally) -> None:
    bench = e.config["benchmark-paths"]
    checkout(clone, e.sha, e.config)
    rc, took, data, out = run_bench_op(clone, bench_op, parent, e.sha, timeout)
    findings = data.get("findings", [])
    t.lines.append(
        f"  as committed: bench-op fix exit {rc}, {took:.1f} s, {len(findings)} findings, rewrote "
        f"{len(data.get('rewritten', []))} files"
    )
    if rc in (-1, 2, 3):
        t.lines.append("    " + (out.strip().splitlines() or ["?"])[-1])
    for sk in data.get("skipped", []):
        t.lines.append(f"    skipped by bench-op: {sk.get('path')}: {sk.get('reason')}")
    files = [
        r[-1] for r in name_status(clone, parent, e.sha) if r[-1].endswith(".py") and matches(r[-1], bench)
    ]
    own = changed_lines(clone, parent, e.sha, files) if files else {}
    bench_files = sorted({f["path"] for f in findings} | set(data.get("rewritten", [])))
    hunks = old_side_hunks(clone, bench_files) if bench_files else {}
    for path, hs in sorted(hunks.items()):
        stmts = _statements(show(clone, e.sha, path))
        for start, count, old_lines, new_lines in hs:
            span = set(range(start, start + count)) if count else {start}
            # the commit's own when the smallest statement holding the rewritten lines has a line it changed
            lo, hi = min(span), max(span)
            holder = min(
                (st for st in stmts if st[0] <= lo and hi <= st[1]),
                key=lambda st: st[1] - st[0],
                default=(lo, hi),
            )
            mine = bool(set(range(holder[0], holder[1] + 1)) & own.get(path, set()))
            t.committed_rewrites += 1
            if mine:
                t.own_line_rewrites += 1
            head = "REWRITE OF THE COMMIT'S OWN LINE" if mine else "rewrite of a line the commit left alone"
            body = " / ".join(s.strip() for s in old_lines)[:160] or "(insertion)"
            after = " / ".join(s.strip() for s in new_lines)[:160] or "(deletion)"
            t.lines.append(
                f"  as committed, {head}: {path}:{start}: {body}\n      -> {after}\n      "
                f"{_verdict(e.name, 'committed', path, start, t, committed=True, edited=True)}"
            )
    for f in findings:
        if _blocked(f):
            t.committed_blocks += 1
            v = VERDICTS.get((e.name, "committed", f["path"], f["line"]))
            if v is not None and not v[0]:
                t.committed_false_blocks += 1
            stmts = _statements(show(clone, e.sha, f["path"]))
            holder = min(
                (st for st in stmts if st[0] <= f["line"] <= st[1]),
                key=lambda st: st[1] - st[0],
                default=(f["line"], f["line"]),
            )
            mine = bool(set(range(holder[0], holder[1] + 1)) & own.get(f["path"], set()))
            t.lines.append(
                f"  as committed, hand edit asked{' on a line the commit changed' if mine else ''}: "
                f"{f['path']}:{f['line']} {f.get('text')}: {_why(f)}\n      "
                f"{_verdict(e.name, 'committed', f['path'], f['line'], edited=False)}"
            )


# -- main ---------------------------------------------------------------------------------------------------


def list_corpus() -> str:
    rows = [f"{'entry':20} {'clone dir':11} {'repository':28} commit      change"]
    for e in CORPUS:
        rows.append(f"{e.name:20} {e.library:11} {e.repo:28} {e.sha[:10]}  {e.change}")
        rows.append(f"{'':20}   [tool.bench-op] " + "; ".join(f"{k} = {v}" for k, v in e.config.items()))
    rows += [
        "",
        "clones: git clone https://github.com/<repository> <clone dir>, one per library, in one DIR",
        "",
        "surveyed and left out:",
    ]
    rows += [f"  {what}: {why}" for what, why in REJECTED]
    return "\n".join(rows)


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clones", help="a directory with one clone per library, named after the library column")
    ap.add_argument(
        "--bench-op",
        default=shutil.which("bench-op") or os.path.join(os.path.dirname(sys.executable), "bench-op"),
    )
    ap.add_argument("--out", default=os.path.join(HERE, "results", "others.txt"))
    ap.add_argument("--only", nargs="*", help="entry names (or library names) to run")
    ap.add_argument("--list", action="store_true", help="print the corpus table and exit")
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args(list(argv) if argv is not None else None)
    if args.list:
        print(list_corpus())
        return 0
    if not args.clones:
        ap.error("--clones DIR is required (see --list for the libraries it must hold)")
    todo = [e for e in CORPUS if not args.only or e.name in args.only or e.library in args.only]
    scratch = tempfile.mkdtemp(prefix="others-clones-")
    total = Tally()
    per_lib: dict[str, Tally] = {}
    version = subprocess.run([args.bench_op, "--version"], capture_output=True, text=True).stdout.strip()
    lines = [
        f"bench-op replay of {len(todo)} commits of {len({e.library for e in todo})} other libraries "
        f"({version})",
        "",
    ]
    lines += [
        ln[2:] if ln.startswith("  ") else ln
        for ln in __doc__.split("How a call is graded")[1].split("Only calls")[0].splitlines()[1:]
    ]
    lines.append("")
    for e in todo:
        src = os.path.join(args.clones, e.library)
        clone = os.path.join(scratch, e.library)
        if not os.path.isdir(clone):
            subprocess.run(["git", "clone", "-q", "--no-checkout", "--shared", src, clone], check=True)
            # Only the text bench-op reads: a snapshot may lack its largest data files.
            git(clone, "sparse-checkout", "set", "--no-cone", *SPARSE)
        sha = git(clone, "rev-parse", e.sha).strip()
        parent = git(clone, "rev-parse", f"{sha}^1").strip()
        subject = git(clone, "log", "-1", "--format=%s", sha).strip()
        t = replayed(e, clone, parent, args.bench_op, args.timeout)
        as_committed(e, clone, parent, args.bench_op, args.timeout, t)
        total.add(t)
        per_lib.setdefault(e.library, Tally()).add(t)
        block = [
            f"{e.name} {e.repo}@{sha[:10]} {subject[:90]}",
            f"  change: {e.change}",
            "  " + t.summary(),
            *t.lines,
            "",
        ]
        lines.extend(block)
        print("\n".join(block), flush=True)
    lines.append("per library:")
    for lib, t in per_lib.items():
        lines.append(f"  {lib}: {t.summary()}")
    n = total.counted()
    lines += [
        "",
        "totals:",
        f"  calls the engineers fixed mechanically: {n}; same {total.same}"
        + (f" ({100.0 * total.same / n:.1f}%)" if n else ""),
        f"  different {total.different} (meaning differs {total.meaning}); reported {total.reported}; "
        f"left to the run {total.to_run}; missed {total.missed}; unwanted {total.unwanted}",
        f"  false blocks (hand edits asked on calls the engineers left alone): {total.false_blocks} "
        f"(really broken at that commit: {total.false_blocks_really_broken})",
        f"  calls the engineers changed beyond a fix (not counted): {total.beyond} (bench-op's rewrite "
        "moves or "
        f"drops a value they carried: {total.beyond_meaning}); tidied: {total.optional} (bench-op rewrote "
        f"{total.needless} of them keeping their binding); in functions they "
        f"restructured: {total.unpaired}",
        f"  edits outside the graded calls (imports, method calls, calls in functions or files the engineers "
        f"restructured or left alone) that differ from the engineers': {total.other_rewrites}; wrong on "
        f"reading the code (VERDICTS): {total.wrong_edits} (rewrites in functions they restructured "
        "included)",
        f"  as committed: {total.committed_rewrites} rewrites, of the commit's own lines: "
        f"{total.own_line_rewrites}; wrong on reading the code: {total.committed_wrong}; hand edits asked: "
        f"{total.committed_blocks}, on calls that are not broken: {total.committed_false_blocks}",
    ]
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[-8:]))
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _cfg(ops: list[str], bases: list[str], bench: list[str], tests: list[str]) -> dict[str, list[str]]:
    return {"op-paths": ops, "op-bases": bases, "benchmark-paths": bench, "test-paths": tests}


# Megatron-LM: the changed classes live in megatron/core (inference engines and wrappers, datasets); its
# examples/ and tools/ scripts build them. megatron/ itself has no __init__.py (a namespace directory).
_MEG_INF = _cfg(
    ["megatron/core/inference/**/*.py"],
    ["AbstractEngine", "AbstractModelInferenceWrapper"],
    ["examples/**/*.py", "tools/**/*.py"],
    ["tests/**/*.py"],
)
_MEG_DATA = _cfg(
    ["megatron/core/datasets/**/*.py", "megatron/data/**/*.py"],
    ["Dataset"],
    ["examples/**/*.py", "tools/**/*.py"],
    ["tests/**/*.py"],
)


def _ao(ops: list[str]) -> dict[str, list[str]]:
    """torchao: quantization configs are dataclasses deriving AOBaseConfig; layouts derive Layout (LayoutType
    before #1049)."""
    return _cfg(ops, ["AOBaseConfig", "Layout", "LayoutType"], ["benchmarks/**/*.py"], ["test/**/*.py"])


_TE = _cfg(
    ["transformer_engine/jax/**/*.py"],
    ["Module", "TransformerEngineBase"],
    ["examples/**/*.py"],
    ["tests/**/*.py"],
)
VLLM = "vllm-project/vllm"
_VLLM = _cfg(["vllm/model_executor/layers/**/*.py"], ["object"], ["benchmarks/**/*.py"], ["tests/**/*.py"])
_LIGER = _cfg(["src/liger_kernel/transformers/**/*.py"], ["Module"], ["benchmark/**/*.py"], ["test/**/*.py"])
_XF = _cfg(["xformers/ops/**/*.py"], ["Module"], ["xformers/benchmarks/**/*.py"], ["tests/**/*.py"])
_TT = _cfg(
    ["torchtune/**/*.py"],
    ["Module"],
    ["recipes/*.py", "scripts/**/*.py"],
    ["tests/**/*.py", "recipes/tests/**/*.py"],
)

CORPUS += [
    Entry(
        "megatron-7a23ccd",
        "megatron",
        MEGATRON,
        "7a23ccde913fbd9ba631e200dbcdc521de9d3954",
        _MEG_INF,
        "MCoreEngine(text_generation_strategy, max_batch_size, ...) -> (text_generation_controller, ...) "
        "(its "
        "annotation class renamed too); SimpleTextGenerationStrategy renamed SimpleTextGenerationController, "
        "module moved",
    ),
    Entry(
        "megatron-23f3f55",
        "megatron",
        MEGATRON,
        "23f3f55b894f6a290590cc49c04b53d9540a7e59",
        _MEG_DATA,
        "MMapIndexedDataset renamed IndexedDataset (mmap=False added) and MMapIndexedDatasetBuilder renamed "
        "IndexedDatasetBuilder (same constructor)",
    ),
    Entry(
        "megatron-a0e190c",
        "megatron",
        MEGATRON,
        "a0e190ca4cfb6a9cb567f22801043a83159e8bd4",
        _MEG_DATA,
        "megatron/data/indexed_dataset.py moved to megatron/core/datasets; MMapIndexedDataset(path, "
        "skip_warmup=False, multimodal=False) -> (path_prefix, multimodal=False): skip_warmup removed",
    ),
    Entry(
        "megatron-34ac1ad",
        "megatron",
        MEGATRON,
        "34ac1ad05e1f48a4d70a906a187a0e75b27c5119",
        _MEG_DATA,
        "MMapIndexedDatasetBuilder(out_file, dtype=np.int64, ...) -> (bin_path, dtype=np.int32, ...); "
        "IndexedDataset, IndexedCachedDataset and IndexedDatasetBuilder removed",
    ),
    Entry(
        "megatron-67f3515",
        "megatron",
        MEGATRON,
        "67f3515c8a0539d38c23f59dd8b85efdcbb3af3d",
        _MEG_INF,
        "InferenceClient(inference_coordinator_port) -> InferenceClient(inference_coordinator_address)",
    ),
    Entry(
        "megatron-afa7361",
        "megatron",
        MEGATRON,
        "afa73619c57da263e01b1f9c4af8e527400f1672",
        _MEG_INF,
        "DynamicInferenceEngine(controller, context, termination_id, ...) -> (controller, context, ...): "
        "termination_id moves to SamplingParams(termination_id=None); engine methods lose sampling_params",
    ),
    Entry(
        "megatron-ffbc43f",
        "megatron",
        MEGATRON,
        "ffbc43fa352ec29ccb02436e0249de3bb979e2f3",
        _MEG_INF,
        "GPT/VLMInferenceWrapper(model, inference_wrapper_config, inference_context=None, ...) -> (model, "
        "inference_context=None, pg_collection=None, inference_wrapper_config=None); T5InferenceWrapper "
        "loses "
        "inference_wrapper_config; InferenceWrapperConfig removed; DynamicInferenceContext(*, params_dtype, "
        "...) -> (model_config, inference_config); DynamicInferenceEngine options folded into that config",
    ),
    Entry(
        "megatron-0fe3232",
        "megatron",
        MEGATRON,
        "0fe323267fdbb698cd8c435390e5d1fc5b9383ab",
        _MEG_INF,
        "the revert of ffbc43fa: every change above backwards (inference_wrapper_config required again, "
        "second)",
    ),
    Entry(
        "megatron-94197e2",
        "megatron",
        MEGATRON,
        "94197e2bcb1f43e66e621b95a4ee03fdab857151",
        _MEG_INF,
        "GPTInferenceWrapperServer renamed ModelInferenceWrapperServer (same constructor)",
    ),
    Entry(
        "megatron-4d51353",
        "megatron",
        MEGATRON,
        "4d5135359ddec4a0e44783702bbfaf0a7e807108",
        _MEG_INF,
        "legacy inference deleted: megatron/inference/ removed, MegatronServer now in "
        "megatron.core.inference.text_generation_server, ModelInferenceWrapperServer removed",
    ),
    Entry(
        "torchao-4a06771",
        "torchao",
        TORCHAO,
        "4a067713b8908874d051f3654db6c527a5885d44",
        _ao(["torchao/prototype/mx_formats/**/*.py"]),
        "MXFPInferenceConfig renamed MXDynamicActivationMXWeightConfig (dataclass, same fields)",
    ),
    Entry(
        "torchao-8d4a921",
        "torchao",
        TORCHAO,
        "8d4a921cd9ddd7bdeeec300e899773087fe5c052",
        _ao(["torchao/prototype/mx_formats/**/*.py"]),
        "NVFP4InferenceConfig renamed NVFP4DynamicActivationNVFP4WeightConfig and its mm_config field "
        "removed; "
        "the NVFP4MMConfig enum removed; NVFP4WeightOnlyConfig added",
    ),
    Entry(
        "torchao-7038f8b",
        "torchao",
        TORCHAO,
        "7038f8b54e3cbca1c3128bba6a2a5e99700dc36f",
        _ao(["torchao/dtypes/**/*.py"]),
        "every XLayoutType renamed XLayout (FloatxTensorCoreLayoutType -> FloatxTensorCoreLayout, ...)",
    ),
    Entry(
        "torchao-8236a87",
        "torchao",
        TORCHAO,
        "8236a874479a9a9168e584c81dda8707f4c41006",
        _ao(["torchao/dtypes/**/*.py"]),
        "fpx -> floatx: FpxTensorCoreLayoutType renamed "
        "FloatxTensorCoreLayoutType, module torchao.dtypes.fpx moved to torchao.dtypes.floatx",
    ),
    Entry(
        "torchao-d370196",
        "torchao",
        TORCHAO,
        "d370196369e1b1b6424cabaff6627d242dff2268",
        _ao(["torchao/float8/**/*.py"]),
        "delayed scaling deleted: CastConfig loses static_scale, "
        "Float8LinearConfig loses enable_amax_init, enable_pre_and_post_forward and the delayed-scaling "
        "fields",
    ),
    Entry(
        "torchao-70aef5d",
        "torchao",
        TORCHAO,
        "70aef5d13f98bf8830548b14bc303b4adbeb0cb5",
        _ao(["torchao/prototype/**/*.py"]),
        "Fp6LlmLinear removed (QuantLlmLinearWeight, a tensor subclass with "
        "another constructor, takes its place)",
    ),
    Entry(
        "torchao-1472872",
        "torchao",
        TORCHAO,
        "1472872b3f23bebf6c23d78a300c6dd4990b189b",
        _cfg(
            ["torchao/prototype/moe_training/**/*.py"],
            ["AOBaseConfig"],
            ["torchao/prototype/moe_training/examples/**/*.py", "benchmarks/**/*.py"],
            ["test/**/*.py"],
        ),
        "a revert: MoETrainingConfig loses its keyword-only float8_dtype field",
    ),
    Entry(
        "torchao-bdd0fcc",
        "torchao",
        TORCHAO,
        "bdd0fcc4b896606c76ea4faae607585a8c95338f",
        _ao(["torchao/quantization/**/*.py"]),
        "Int4WeightOnlyConfig version 1 deprecated: layout, use_hqq, "
        "zero_point_domain and preserve_zero removed",
    ),
    Entry(
        "torchao-4a42d32",
        "torchao",
        TORCHAO,
        "4a42d3227e85e3b0303d85767ecbb19c511eefb3",
        _ao(["torchao/prototype/moe_training/**/*.py"]),
        "MoETrainingConfig and MoEScalingType removed (per-recipe configs instead)",
    ),
    Entry(
        "torchao-3c2030b",
        "torchao",
        TORCHAO,
        "3c2030bbb3554042c924fa78812b93ce3494f08a",
        _ao(["torchao/quantization/**/*.py", "torchao/dtypes/**/*.py"]),
        "FPXWeightOnlyConfig removed",
    ),
    Entry(
        "torchao-436b2e9",
        "torchao",
        TORCHAO,
        "436b2e9aeb01843e0241c38c4f9a69182b7693d9",
        _ao(["torchao/quantization/**/*.py", "torchao/dtypes/**/*.py"]),
        "SemiSparseLayout removed",
    ),
    Entry(
        "te-d770886",
        "te",
        "NVIDIA/TransformerEngine",
        "d770886f02b6c43da1afb65d19487a44cbb8cc88",
        _TE,
        "MeshResource (a dataclass): tpsp_resource inserted third, fsdp/pp/cp_resource shift by one",
    ),
    Entry(
        "te-622a3ee",
        "te",
        "NVIDIA/TransformerEngine",
        "622a3eea14042a38bad2b2b64bb32a788eacfec1",
        _cfg(["transformer_engine/pytorch/**/*.py"], ["object"], ["examples/**/*.py"], ["tests/**/*.py"]),
        "EpBuffer loses dispatch_recv_tokens / combine_grad_expert_out: the buffers moved to "
        "ep_dispatch(recv_tokens=) / ep_combine(grad_out=); the engineers fixed the examples later",
    ),
    Entry(
        "te-71e51ea",
        "te",
        "NVIDIA/TransformerEngine",
        "71e51eae79d37da0495a82a8fa66a4d2928e120f",
        _TE,
        "flax modules (DenseGeneral, ...) lose their sharding_type field; ShardingResource renamed "
        "MeshResource (a deprecated alias kept)",
    ),
    Entry(
        "liger-24a7efc",
        "liger",
        "linkedin/Liger-Kernel",
        "24a7efca81c7e4cd7558c539fdfd5e380e9f2f58",
        _LIGER,
        "LigerFusedLinearJSD(jsd_beta=0.5, temperature=1.0) -> (jsd_beta, ignore_index=-100, temperature): "
        "ignore_index inserted before temperature",
    ),
    Entry(
        "liger-b828275",
        "liger",
        "linkedin/Liger-Kernel",
        "b828275a56a7b91e8ad0038cfdc389f568fe212a",
        _LIGER,
        "LigerKernelSoftmax renamed LigerSoftmax",
    ),
    Entry(
        "flashinfer-fbaaed3",
        "flashinfer",
        "flashinfer-ai/flashinfer",
        "fbaaed376c1e7f2ca8d30b2ca3db4e79f269a623",
        _cfg(["flashinfer/**/*.py"], ["object"], ["benchmarks/**/*.py"], ["tests/**/*.py"]),
        "BatchMLAPageAttentionWrapper renamed BatchMLAPagedAttentionWrapper (same constructor)",
    ),
    Entry(
        "flashinfer-ce40d25",
        "flashinfer",
        "flashinfer-ai/flashinfer",
        "ce40d25a4cd05b2f28c935b99c9ea5091b4e64d2",
        _cfg(["flashinfer/moe_ep/**/*.py"], ["Module"], ["benchmarks/**/*.py"], ["tests/**/*.py"]),
        "class MoEEpLayer moved to modes/split_layer.py as MoEEpSplitLayer (compute_config removed, weights "
        "required third); the name MoEEpLayer becomes a factory function with the new parameters",
    ),
    Entry(
        "xformers-8367685",
        "xformers",
        "facebookresearch/xformers",
        "836768506d990fa3985dafd69a0b4518b3ae12bd",
        _XF,
        "xformers/ops/swiglu.py renamed swiglu_op.py; _SwiGLUModule(in_features, hidden_features, "
        "out_features=None, pack_weights=False, bias=True) gone, SwiGLU (no pack_weights) in its place",
    ),
    Entry(
        "xformers-76cd62d",
        "xformers",
        "facebookresearch/xformers",
        "76cd62d5a5ee77acf78e940d8f703db46202f7a4",
        _XF,
        "AttentionOpDispatch(dtype, device, k, has_dropout, attn_bias_type, kv_len, q_len, ...) -> "
        "AttentionOpDispatch(op)",
    ),
    Entry(
        "torchtune-5670109",
        "torchtune",
        "pytorch/torchtune",
        "567010903d9335e2dae32aafc38c7be8f7a90ad8",
        _TT,
        "ReproducibleDataLoader removed (a torch DataLoader with a seeded DistributedSampler instead)",
    ),
    Entry(
        "torchtune-86c2318",
        "torchtune",
        "pytorch/torchtune",
        "86c23185f3b1c68d957b08355faceb3562daf784",
        _TT,
        "Llama2 modularised: TransformerDecoder(vocab_size, embed_dim, num_layers, num_heads, ...) -> "
        "TransformerDecoder(tok_embeddings, layer, num_layers, norm, output), moved to torchtune.modules",
    ),
    Entry(
        "apex-312acb4",
        "apex",
        "NVIDIA/apex",
        "312acb44f9fe05cab8c67bba6daa0e64d3737863",
        _cfg(
            ["apex/contrib/nccl_allocator/**/*.py"],
            ["object"],
            ["apex/contrib/examples/**/*.py"],
            ["apex/contrib/test/**/*.py", "tests/**/*.py"],
        ),
        "nccl_mem(enabled=True, device=None, group=None) -> nccl_mem(pool, enabled=True, ...): a new "
        "required "
        "first parameter",
    ),
    # Found by scanning libraries outside the corpus (docs/real-world.md): one wrong rewrite each.
    Entry(
        "torchtitan-73aed7f",
        "torchtitan",
        "pytorch/torchtitan",
        "73aed7f6c09c04041dae2d2c185bb4c6384ebb3f",
        _cfg(
            [
                "torchtitan/models/**/*.py",
                "torchtitan/components/**/*.py",
                "torchtitan/config/**/*.py",
                "torchtitan/*.py",
            ],
            [],
            ["scripts/**/*.py"],
            ["tests/**/*.py"],
        ),
        "TrainingConfig(*, local_batch_size=8, seq_len=2048, ...) -> (*, "
        "num_tokens_per_microbatch_per_dp_rank=16384, max_context_length=2048, ...): sequences became tokens "
        "in the same slot",
    ),
    Entry(
        "flashattn-156137b",
        "flashattn",
        "Dao-AILab/flash-attention",
        "156137b153ceaf2d0b078a505804f3626f7b395a",
        _cfg(
            ["flash_attn/cute/flash_*.py"],
            [],
            ["flash_attn/cute/interface.py"],  # the one module that builds the kernels, as a benchmark
            ["tests/cute/**/*.py"],
        ),
        "FlashAttentionBackwardPreprocess(dtype, head_dim, arch, ...) -> (dtype, head_dim, head_dim_v, arch, "
        "...): a required parameter inserted; the old call passed head_dim_v to head_dim",
    ),
    # torchao and xformers, from the fourth session's broad scan of both (`/tmp/scan_k` of that session).
    Entry(
        "torchao-378e179",
        "torchao",
        TORCHAO,
        "378e17907e12e6a64e2b753de0211b949604f3df",
        _cfg(["torchao/float8/**/*.py"], ["object"], ["benchmarks/**/*.py"], ["test/**/*.py"]),
        "torchao/float8/float8_tensor.py renamed float8_training_tensor.py and Float8Tensor renamed "
        "Float8TrainingTensor; the module's functions moved with it, their bodies naming the new class",
    ),
    Entry(
        "xformers-44b0d07",
        "xformers",
        "facebookresearch/xformers",
        "44b0d075db02affa7eb006c2980fa509d821f91a",
        _cfg(["xformers/ops/**/*.py"], ["object"], ["xformers/benchmarks/**/*.py"], ["tests/**/*.py"]),
        "the Triton backward op (fmha.triton.BwOp) deleted from a module that stays; an unrelated CK backend "
        "added with a BwOp of its own",
    ),
    # vllm (the fourth session's scan; its history through a full-history fork, local-inference-lab/vllm):
    # layers under model_executor, benchmarks under benchmarks/kernels.
    Entry(
        "vllm-97995f6",
        "vllm",
        VLLM,
        "97995f6376fd3dae7a67624055ddf038233e181e",
        _VLLM,
        "FusedMoEModularKernel renamed FusedMoEKernel in modular_kernel.py, which the benchmarks call as "
        "mk.FusedMoEModularKernel(...); MoEPrepareAndFinalizeNoEP renamed MoEPrepareAndFinalizeNoDPEPModular",
    ),
    Entry(
        "vllm-5a93b91",
        "vllm",
        VLLM,
        "5a93b9162bfef6be6714ba70d3191e1e7ab7d3e4",
        _VLLM,
        "MoEPrepareAndFinalizeNoEP(defer_input_quant=False) -> (): the choice moved to .prepare()",
    ),
    Entry(
        "vllm-e1e318a",
        "vllm",
        VLLM,
        "e1e318af010b4f92d39324d03231cfd409766bf9",
        _VLLM,
        "FusedMoEConfig.max_num_tokens default envs.VLLM_MOE_DP_CHUNK_SIZE -> "
        "SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS_FOR_BATCHED_DP, the setting deleted from envs",
    ),
    # triton's triton_kernels (through a fork with its history, Triton-to-tile-IR): the package below
    # python/triton_kernels/, its tests a package of their own.
    Entry(
        "triton-d8119d51",
        "triton",
        "triton-lang/triton",
        "d8119d51f39a25313e295a7b8ba5940283a08d37",
        _cfg(
            ["python/triton_kernels/triton_kernels/**/*.py"],
            ["object"],
            ["python/triton_kernels/bench/**/*.py"],
            ["python/triton_kernels/tests/**/*.py"],
        ),
        "PrecisionConfig(act_scale, weight_scale, out_scale, ...) -> (a_mx_scale, b_mx_scale, c_mx_scale, "
        "...); matmul_ogs renamed matmul, RoutingData and the gather/scatter indices removed",
    ),
]

# Surveyed and left out (library, commit: why). The survey: every non-merge commit of each clone that changed
# a class constructor (own __init__ or dataclass fields) non-additively in library code and edited a
# benchmark-like file (benchmarks/, examples/, scripts/, tools/, recipes/) that names the class.
REJECTED: list[tuple[str, str]] = [
    (
        "megatron a1dc1d93b2",
        "the example's MCoreBackend(model=..., tokenizer=..., ...) did not bind the parent's "
        "signature either (a work-in-progress branch commit); the engineers rewrote the function",
    ),
    (
        "megatron 281cbe61b1",
        "CommonInferenceParams -> SamplingParams and SimpleTextGenerationController -> "
        "TextGenerationController keep the old names as aliases: nothing broke",
    ),
    (
        "megatron c2de3a2a2e",
        "MCoreEngine -> StaticInferenceEngine keeps MCoreEngine as an alias; the wrapper "
        "changes are additive",
    ),
    ("megatron 43db8c1cf9", "the re-landing of ffbc43fa (already in the corpus, with its revert)"),
    (
        "megatron 39ec5ebeb4, 3257093930, fc6969fbb3",
        "legacy code deleted: the engineers rewrote or deleted the scripts (no call to compare)",
    ),
    (
        "megatron before 2023",
        "no commit changed a constructor non-additively together with a benchmark-like file",
    ),
    ("flashinfer d1fff568ea", "Sm90PullFp8MegaMoeConfig renamed, the old name kept as an alias"),
    (
        "xformers 51c9861b95",
        "_SwiGLUModule lost align_as, which no benchmark passed; the engineers added "
        "pack_weights=True by choice",
    ),
    (
        "torchao 920c502f68, fe986580ea, 9b9d55843a, 985d970b5e, ab80e9388f",
        "more deletions of deprecated configs "
        "and layouts like 3c2030bb and 436b2e9a (two are kept as representatives)",
    ),
    (
        "DeepSpeed, bitsandbytes, fla (flash-linear-attention), flash-attention",
        "no commit with a non-additive "
        "constructor change and a benchmark/example edit of its call (their benchmarks call functions, or "
        "the "
        "constructors only grew)",
    ),
    (
        "torchtitan (but 73aed7f)",
        "its example configs are nested `X.Config` dataclasses built in one registry file; the "
        "changes are field additions",
    ),
    ("vLLM, SGLang", "snapshots over the 500 MiB limit (1.1 and 1.2 GB)"),
]


if __name__ == "__main__":
    sys.exit(main())
