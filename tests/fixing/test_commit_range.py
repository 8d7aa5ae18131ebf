"""The static pass over a diff (fixing/commit_range.py): benchmark files judged in two processes give the
serial answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.forks import without_and_with_fork
from tests.helpers.kern import fix, make


def test_benchmark_files_judged_in_two_processes_give_the_serial_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchop_hook.fixing import commit_range as pipeline
    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    old = "class Case{k}:\n    def __init__(self, m, n, dtype):\n        self.m = m\n"
    files = {f"workloads/w{k}.py": old.format(k=k) for k in range(8)}
    files["workloads/__init__.py"] = ""
    for k in range(8):  # each benchmark imports its own workload through an unchanged re-export: the child
        # reads blobs the parent has not read
        files[f"workloads/all{k}.py"] = f"from workloads.w{k} import Case{k}\n"
        files[f"benchmarks/bench_w{k}.py"] = (
            f"from workloads.all{k} import Case{k}\n\n\n"
            f"def test_bench(m=1, n=2, dtype='f32'):\n    Case{k}(m, n, dtype)\n"
            f"    Case{k}(m, n, dtype=dtype)\n"
        )
    repo = make(tmp_path, files)
    for k in range(8):  # half the constructors lose m; the other half only gain a defaulted flag
        new = old.format(k=k)
        repo.write(
            f"workloads/w{k}.py",
            new.replace("(self, m, n, dtype)", "(self, n, dtype)")
            if k % 2
            else new.replace("dtype)", "dtype, flag=False)"),
        )
    repo.commit("workloads: rows from the inputs")
    monkeypatch.chdir(repo.path)
    forks, outs = without_and_with_fork(
        monkeypatch,
        capsys,
        pipeline,
        ("JUDGE_FORK_WEIGHT", "REWRITE_FORK_WEIGHT"),
        ["fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD"],
    )
    assert forks == 1  # the second run forked, the first did not
    assert outs[0] == outs[1]
    out = outs[0][1].out + outs[0][1].err
    assert all(f"Case{k}(n, dtype)" in out for k in (1, 3, 5, 7)), out
    assert not any(f"Case{k}(n" in out for k in (0, 2, 4, 6)), out


def test_a_likely_rewrite_is_judged_in_a_child_while_libcst_is_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below the weight that shares the judging, a likely rewrite still forks: the child judges while this
    process imports libcst."""
    import os

    from benchop_hook import cli
    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    repo = make(
        tmp_path,
        {
            "workloads/__init__.py": "",
            "workloads/w.py": "class Case:\n    def __init__(self, m, n, dtype):\n        self.m = m\n",
            "benchmarks/bench_a.py": (
                "from workloads.w import Case\n\n\ndef test_a(m=1, n=2):\n    Case(m=m, n=n, dtype=1)\n"
            ),
            "benchmarks/bench_b.py": "from workloads.w import Case\n\n\ndef test_b():\n    Case(1, 2, 3)\n",
        },
    )
    repo.replace("workloads/w.py", "(self, m, n, dtype)", "(self, n, dtype)")
    repo.commit("workloads: rows from the inputs")
    monkeypatch.chdir(repo.path)
    forks: list[int] = []
    real_fork = os.fork

    def counted() -> int:
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", counted)
    assert cli.main(["fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD"]) == 0
    assert forks == [1]


def test_the_tests_two_judging_processes_read_are_analysed_once_before_they_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The changed tests are analysed by two processes ahead of the judging (each judging process would
    otherwise analyse the ones its files need): the same answers, the commit's own edit still learned."""
    from benchop_hook.analysis.evidence import TestEvidence
    from benchop_hook.fixing import commit_range as pipeline
    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    old = "class Norm{k}:\n    def __init__(self, M, hidden, dtype):\n        self.h = hidden\n"
    files = {f"workloads/n{k}.py": old.format(k=k) for k in range(4)}
    files["workloads/__init__.py"] = ""
    for k in range(4):
        files[f"benchmarks/bench_n{k}.py"] = (
            f"from workloads.n{k} import Norm{k}\n\n\n"
            f"def test_bench(M=1, hidden=2, dtype='f32'):\n    Norm{k}(M, hidden, dtype)\n"
        )
        files[f"tests/test_n{k}.py"] = (
            f"from workloads.n{k} import Norm{k}\n\n\ndef test_n():\n    Norm{k}(4, 64, 'f32')\n"
        )
    repo = make(tmp_path, files)
    for k in range(4):
        repo.replace(f"workloads/n{k}.py", "(self, M, hidden, dtype)", "(self, normalized_shape, dtype)")
        repo.replace(f"tests/test_n{k}.py", f"Norm{k}(4, 64, 'f32')", f"Norm{k}((64,), 'f32')")
    repo.commit("norms take the normalized shape")
    monkeypatch.chdir(repo.path)
    adopted: list[int] = []
    real_adopt = TestEvidence.adopt

    def adopt(self: TestEvidence, found: dict) -> None:  # type: ignore[type-arg]  # as the real one
        adopted.append(len(found))
        real_adopt(self, found)

    monkeypatch.setattr(TestEvidence, "adopt", adopt)
    forks, outs = without_and_with_fork(
        monkeypatch,
        capsys,
        pipeline,
        ("JUDGE_FORK_WEIGHT", "REWRITE_FORK_WEIGHT", "EVIDENCE_FORK_WEIGHT"),
        ["fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD"],
    )
    assert forks == 2  # the tests' analysis, then the judging
    assert adopted == [8]  # both sides of the four tests
    assert outs[0] == outs[1]
    out = outs[0][1].out + outs[0][1].err
    assert all(f"Norm{k}(normalized_shape=(hidden,), dtype=dtype)" in out for k in range(4)), out


def test_a_method_of_an_object_of_a_renamed_class_follows_its_change(tmp_path: Path) -> None:
    # lightllm 8d04a257: SplitFuseReq became ChunkedPrefillReq, and its init's splitfuse_block_size became
    # chunked_prefill_size. `r = SplitFuseReq()` names a class that is gone: `r.init(...)` is a call of the
    # old class's method, which the change says how to make now; in one pass, not "every call still binds".
    repo = make(
        tmp_path,
        {
            "src/kern/ops/req.py": "from kern.ops.op import Op\n\n\nclass Req(Op):\n"
            "    def init(self, request_id, splitfuse_block_size=0):\n"
            "        self.block = splitfuse_block_size\n\n\nclass SplitFuseReq(Req):\n    pass\n",
            "benchmarks/bench_req.py": "from kern.ops.req import SplitFuseReq\n\n\ndef test_req():\n"
            "    r = SplitFuseReq()\n    r.init(1, splitfuse_block_size=256)\n",
        },
    )
    repo.replace("src/kern/ops/req.py", "splitfuse_block_size", "chunked_prefill_size", count=2)
    repo.replace("src/kern/ops/req.py", "class SplitFuseReq(Req)", "class ChunkedPrefillReq(Req)")
    repo.write("src/kern/user.py", "from kern.ops.req import ChunkedPrefillReq\n\nREQ = ChunkedPrefillReq\n")
    repo.commit("rename")
    code, out, _ = fix(repo)
    assert code == 0, out
    text = repo.read("benchmarks/bench_req.py")
    assert "r = ChunkedPrefillReq()\n    r.init(1, chunked_prefill_size=256)\n" in text, out


SMEM = (
    "from typing import NamedTuple\n\n\nclass SmemBytes(NamedTuple):\n    unstaged: int = 0\n"
    "    d_stage: int = 0\n"
)


@pytest.mark.parametrize("body_changed", [False, True], ids=["as-it-was", "body-changed"])
def test_a_class_bench_op_cant_read_moved_needs_no_hand_edit(tmp_path: Path, body_changed: bool) -> None:
    # quack 84ef91df: a NamedTuple (its constructor unreadable) moved to another module. The import follows
    # it; moved as it was, the calls are as they were; with its body changed, the run decides. Never a hand
    # edit.
    repo = make(
        tmp_path,
        {
            "src/kern/ops/old.py": SMEM,
            "benchmarks/bench_smem.py": "from kern.ops.old import SmemBytes\n\n\ndef test_smem():\n"
            "    assert SmemBytes(unstaged=64) is not None\n",
        },
    )
    repo.git("rm", "-q", "src/kern/ops/old.py")
    repo.write("src/kern/ops/epi.py", SMEM + ("    c_stage: int = 0\n" if body_changed else ""))
    repo.commit("move")
    code, out, _ = fix(repo)
    assert "from kern.ops.epi import SmemBytes" in repo.read("benchmarks/bench_smem.py"), out
    assert "hand edit" not in out
    assert "SmemBytes is now kern.ops.epi.SmemBytes" in out
    if body_changed:
        assert code == 0 and "1 call can only be judged by running" in out, out  # no block: the run decides
    else:
        assert code == 0, out
        assert "rewrote the imports of 1 benchmark file; every call binds with the same meaning." in out


def test_a_renamed_modules_import_moves_whole_when_its_other_names_come_along(tmp_path: Path) -> None:
    # quack 09b030fd: dense_gemm_sm90.py became gemm_sm90.py. `from ...dense_gemm_sm90 import GemmSm90,
    # TileSchedulerOptions`: the second name is imported there from the scheduler, in both versions, so the
    # new module gives the same class; the statement moves whole (it was "split that import by hand").
    gemm = (
        "from kern.ops.op import Op\nfrom kern.ops.sched import Options\n\n\n"
        "class GemmOp(Op):\n    def __init__(self, m, n):\n        pass\n\n\n"
        "def check(x):\n    return x\n"  # nanotron's sanity_check: a function that moved with its module
        "\n\nSTYLES = {'a': 1}\n"  # litgpt's prompt_styles: a module-level value that moved with it
    )
    repo = make(
        tmp_path,
        {
            "src/kern/ops/sched.py": "class Options:\n    pass\n",
            "src/kern/ops/dense_gemm.py": gemm,
            "benchmarks/bench_gemm.py": "from kern.ops.dense_gemm import GemmOp, Options, STYLES, check\n\n\n"
            "def test_gemm():\n    check(GemmOp(1, 2))\n    Options()\n",
        },
    )
    repo.git("mv", "src/kern/ops/dense_gemm.py", "src/kern/ops/gemm.py")
    repo.commit("rename the module")
    code, out, _ = fix(repo)
    assert code == 0, out
    text = repo.read("benchmarks/bench_gemm.py")
    assert "from kern.ops.gemm import GemmOp, Options, STYLES, check\n" in text, out


@pytest.mark.parametrize(
    "old, new, pinned",
    [
        pytest.param('"SGD"', '"sgd"', False, id="respelled"),
        pytest.param('"adam"', '"sgd"', True, id="another-choice"),
    ],
)
def test_a_default_respelled_is_the_same_choice_and_not_pinned(
    tmp_path: Path, old: str, new: str, pinned: bool
) -> None:
    # nanotron 2abd667: SGDOptimizerArgs' name "SGD" -> "sgd", and the new code accepts "sgd" only; pinning
    # name="SGD" made a working benchmark raise ValueError.
    repo = make(
        tmp_path,
        {
            "src/kern/ops/opt.py": "from kern.ops.op import Op\n\n\nclass OptArgs(Op):\n"
            f"    def __init__(self, lr=0.1, name={old}):\n        self.name = name\n",
            "benchmarks/bench_opt.py": "from kern.ops.opt import OptArgs\n\n\ndef test_opt():\n"
            "    OptArgs(lr=0.01)\n",
        },
    )
    repo.replace("src/kern/ops/opt.py", f"name={old}", f"name={new}")
    repo.commit("the default name")
    code, out, _ = fix(repo)
    assert code == 0, out
    assert (f"OptArgs(lr=0.01, name={old})" in repo.read("benchmarks/bench_opt.py")) is pinned, out


@pytest.mark.parametrize("added, unknown", [("rope=False", False), (None, True)], ids=["added", "removed"])
def test_a_keyword_splat_the_change_cannot_reach_is_no_finding(
    tmp_path: Path, added: str | None, unknown: bool
) -> None:
    # litgpt's Config(**config): ten commits added fields with defaults, and each call was "left to the run".
    # Whatever the dict holds bound the old signature by name and binds the new one the same way. A removed
    # field is another matter: the dict may hold it.
    repo = make(
        tmp_path,
        {
            "src/kern/ops/cfg.py": "from kern.ops.op import Op\n\n\nclass Config(Op):\n"
            "    def __init__(self, n_layer=16, n_embd=4096, bias=True):\n        pass\n",
            "benchmarks/bench_cfg.py": "from kern.ops.cfg import Config\n\n\ndef test_cfg(cfg):\n"
            "    Config(n_layer=2, **cfg)\n",
        },
    )
    new = f"n_embd=4096, bias=True, {added}" if added else "n_embd=4096"
    repo.replace("src/kern/ops/cfg.py", "n_embd=4096, bias=True", new)
    repo.commit("a field")
    code, out, _ = fix(repo)
    assert ("left to the run" in out) is unknown and code == 0, out  # the run decides: no block
