"""The static pass's shortcuts give the long way's answer (fixing/static_pass.py): the interface check and the
judging of benchmark files split over two processes, a class op files only call left unparsed, functions
walked for imports only when their text can hold one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.kern import make
from tests.helpers.repo import PROJECT


def _without_and_with_fork(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    module: object,
    threshold: str,
    argv: list[str],
) -> tuple[int, list[tuple[int, pytest.CaptureResult[str]]]]:
    """`cli.main(argv)` with `module.threshold` out of reach, then at 0: the forks counted, each run's exit
    code and captured output."""
    import os

    from benchop_hook import cli

    forks: list[int] = []
    real_fork = os.fork

    def counted() -> int:
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", counted)
    runs: list[tuple[int, pytest.CaptureResult[str]]] = []
    for value in (10**12, 0):
        monkeypatch.setattr(module, threshold, value)
        rc = cli.main(argv)
        runs.append((rc, capsys.readouterr()))
    return len(forks), runs


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
    forks, runs = _without_and_with_fork(
        monkeypatch, capsys, forked, "MIN_WEIGHT", ["check", "--from-ref", "HEAD~1", "--to-ref", "HEAD"]
    )
    outs = [(rc, out.out) for rc, out in runs]
    assert forks == 1  # the second run forked, the first did not
    assert outs[0] == outs[1]
    assert outs[0][0] == 1 and all(f"Case{k}" in outs[0][1] for k in (1, 3, 5)), outs[0]
    assert not any(f"Case{k}(" in outs[0][1] for k in (0, 2, 4)), outs[0]


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
    forks, outs = _without_and_with_fork(
        monkeypatch,
        capsys,
        pipeline,
        "JUDGE_FORK_WEIGHT",
        ["fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD"],
    )
    assert forks == 1  # the second run forked, the first did not
    assert outs[0] == outs[1]
    out = outs[0][1].out + outs[0][1].err
    assert all(f"Case{k}(n, dtype)" in out for k in (1, 3, 5, 7)), out
    assert not any(f"Case{k}(n" in out for k in (0, 2, 4, 6)), out


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


def test_functions_are_walked_for_imports_unless_the_text_rules_them_out() -> None:
    from benchop_hook.analysis.modules import parse_source
    from benchop_hook.fixing import imports as pipeline

    here = PROJECT
    sources = [
        p.read_bytes() for p in sorted([*here.glob("benchop_hook/**/*.py"), *here.glob("tests/**/*.py")])
    ]
    sources += [
        b"import os\n\n\ndef f():\n    from x import Y\n    return Y\n",
        b"def f(): from x import Y\n",
        b"from a import (\n    B,\n    C,\n)\n\n\ndef g():\n    return B(C)\n",
    ]
    ruled_out = found_in_functions = 0
    for data in sources:
        mi = parse_source(data, "m.py", "m")
        if mi.error:
            continue
        walked = pipeline.all_imports(mi, True)
        if not pipeline.imports_in_functions(data):
            ruled_out += 1
            assert pipeline.all_imports(mi, False) == walked
        elif walked != pipeline.all_imports(mi, False):
            # the walk found more: a `from ... import` really sits in a function (the long way: every node)
            found_in_functions += 1
            assert _from_import_in_a_function(data), data[:200]
    assert ruled_out >= 2  # the last example, and the files that import only at the top
    assert found_in_functions >= 2  # the first two examples, and this project's own local imports
    assert pipeline.imports_in_functions(sources[-3]) and pipeline.imports_in_functions(sources[-2])


def _from_import_in_a_function(data: bytes) -> bool:
    import ast

    return any(
        isinstance(sub, ast.ImportFrom)
        for node in ast.walk(ast.parse(data))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for sub in ast.walk(node)
    )
