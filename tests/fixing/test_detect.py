"""Detecting the changes (fixing/detect.py) the short way gives the long way's answer: the interface check
shared with a forked child reports what the serial one does, and a class op files only call is left
unparsed while one they inherit from is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.forks import without_and_with_fork
from tests.helpers.kern import make


def test_the_forked_interface_check_reports_what_the_serial_one_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    old = "class Case{k}:\n    def __init__(self, m, n):\n        self.m = m\n"
    files = {f"workloads/w{k}.py": old.format(k=k) for k in range(6)}
    files["workloads/__init__.py"] = ""
    files["benchmarks/bench_w.py"] = (
        "".join(f"from workloads.w{k} import Case{k}\n" for k in range(6))
        + "\n\ndef test_bench(m=1, n=2):\n"
        + "".join(f"    Case{k}(m, n)\n" for k in range(6))
    )
    repo = make(tmp_path, files)
    for k in range(6):  # three constructors change, three files change elsewhere
        new = old.format(k=k)
        new = new.replace("(self, m, n)", "(self, n)") if k % 2 else new + "\n\ndef helper():\n    return 1\n"
        repo.write(f"workloads/w{k}.py", new)
    repo.commit("workloads: some rows come from the inputs")
    monkeypatch.chdir(repo.path)
    forks, runs = without_and_with_fork(
        monkeypatch, capsys, forked, "MIN_WEIGHT", ["check", "--from-ref", "HEAD~1", "--to-ref", "HEAD"]
    )
    outs = [(rc, out.out) for rc, out in runs]
    assert forks == 1  # the second run forked, the first did not
    assert outs[0] == outs[1]
    assert outs[0][0] == 1 and all(f"Case{k}" in outs[0][1] for k in (1, 3, 5)), outs[0]
    assert not any(f"Case{k}(" in outs[0][1] for k in (0, 2, 4)), outs[0]


def test_a_class_op_files_only_call_is_left_unparsed_one_they_inherit_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchop_hook import cli
    from benchop_hook.fixing import detect as pipeline

    mixin = "class ShapeMixin:\n    def __init__(self, m, n, dtype):\n        self.m = m\n"
    kernel = "class SumKernel:\n    def __init__(self, m, n):\n        self.m = m\n"
    op = (
        "from kern.kernels.mixin import ShapeMixin\nfrom kern.kernels.sum import SumKernel\n"
        "from kern.ops.op import Op\n\n\nclass SumOp(ShapeMixin, Op):\n"
        "    def forward(self, x):\n        return SumKernel(self.m, 2)(x)\n"
    )
    repo = make(
        tmp_path,
        {
            "src/kern/kernels/__init__.py": "",
            "src/kern/kernels/mixin.py": mixin,
            "src/kern/kernels/sum.py": kernel,
            "src/kern/ops/sum.py": op,
            "benchmarks/bench_sum.py": "from kern.ops.sum import SumOp\n\n\n"
            "def test_sum(m=1, n=2, dtype='f32'):\n"
            "    SumOp(m, n, dtype)\n",
        },
    )
    # The inherited constructor loses m; the kernel the op only calls is left half written.
    repo.write("src/kern/kernels/mixin.py", mixin.replace("(self, m, n, dtype)", "(self, n, dtype)"))
    repo.write("src/kern/kernels/sum.py", kernel + "def broken(:\n")
    repo.commit("kernels: rows from the input")
    monkeypatch.chdir(repo.path)
    outs = []
    for weight in (0, 10**12):  # every op file parsed for its ancestors, or the kernel file parsed
        monkeypatch.setattr(pipeline, "ANCESTOR_CHECK_WEIGHT", weight)
        rc = cli.main(["check", "--from-ref", "HEAD~1", "--to-ref", "HEAD"])
        outs.append((rc, capsys.readouterr().out))
    for rc, out in outs:
        assert rc == 1 and "SumOp(m, n, dtype)" in out and "through base class ShapeMixin" in out, out
    assert "src/kern/kernels/sum.py" not in outs[0][1] and "src/kern/kernels/sum.py" in outs[1][1], outs
