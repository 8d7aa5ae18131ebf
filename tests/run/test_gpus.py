"""Spreading benchmark files over GPUs: the sharding logic on the CPU with a fake device list
(CUDA_VISIBLE_DEVICES), through real pytest-xdist workers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchop_hook.config import parse_gpus
from benchop_hook.errors import ConfigError
from benchop_hook.run.gpus import visible_gpus
from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo
from tests.helpers.sources import SPLAT_BENCH


@pytest.mark.parametrize(
    "visible, selection, expected",
    [
        ("0,1,2,3", "all", ["0", "1", "2", "3"]),
        ("0,1,2,3", "2", ["0", "1"]),
        ("4,5,6", "0,2", ["4", "6"]),  # indices into what is visible, as CUDA numbers them
        ("", "all", []),
        ("-1", "all", []),
    ],
)
def test_visible_gpus(
    monkeypatch: pytest.MonkeyPatch, visible: str, selection: str, expected: list[str]
) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    assert visible_gpus(selection) == expected


def test_bad_gpu_selection_is_a_usage_error(repo: Repo) -> None:
    with pytest.raises(ConfigError):
        parse_gpus("many")
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("run", "--gpus", "lots", "--no-run")
    assert r.returncode == 2 and "--gpus must be 'all'" in r.stderr


def test_files_spread_over_gpus_one_file_per_gpu(repo: Repo, tmp_path: Path) -> None:
    repo.write("benchmarks/ops/bench_splat.py", SPLAT_BENCH)
    repo.commit("a benchmark built from workload dicts")
    reduction_change(repo)
    repo.replace(
        "src/minitile/ops/norm.py",
        "def __init__(self, M, hidden, dtype, eps=1e-6):",
        "def __init__(self, M, dim, dtype, eps=1e-6):",
    )
    repo.replace("src/minitile/ops/norm.py", "self.hidden = hidden", "self.hidden = dim")
    repo.git("add", "-A")
    out = tmp_path / "r.json"
    r = repo.bench_op("run", "--gpus", "all", "--json", str(out), env={"CUDA_VISIBLE_DEVICES": "0,1"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "spreading 3 benchmark files over GPUs 0, 1" in r.stdout
    data = json.loads(out.read_text())
    benches = {b["path"]: b for b in data["benchmarks"]}
    assert set(benches) == {
        "benchmarks/ops/bench_reduction.py",
        "benchmarks/ops/bench_norm.py",
        "benchmarks/ops/bench_splat.py",
    }
    for b in benches.values():
        assert b["status"] == "passed" and b["numbers"], b
        assert len(b["gpus"]) == 1 and b["gpus"][0] in {"0", "1"}, b  # one file, one GPU
    # The repair loop works per file as with one GPU: the splatted call was fixed from its traceback.
    assert benches["benchmarks/ops/bench_splat.py"]["iterations"] == 3
    assert "op_params.pop('M', None)" in repo.read("benchmarks/ops/bench_splat.py")
    assert "(GPU 0)" in r.stdout or "(GPU 1)" in r.stdout
    assert " on 2 GPUs (0, 1)" in r.stdout


def test_one_gpu_changes_nothing(repo: Repo, tmp_path: Path) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    out = tmp_path / "r.json"
    r = repo.bench_op("run", "--gpus", "all", "--json", str(out), env={"CUDA_VISIBLE_DEVICES": "0"})
    # (" GPUs (" ends the line of a session spread over GPUs: "running ... on 2 GPUs (0, 1)")
    assert r.returncode == 0 and "spreading" not in r.stdout and " GPUs (" not in r.stdout, r.stdout


def test_a_shard_runs_only_its_files(repo: Repo, tmp_path: Path) -> None:
    reduction_change(repo)
    repo.replace(
        "src/minitile/ops/norm.py",
        "def __init__(self, M, hidden, dtype, eps=1e-6):",
        "def __init__(self, M, dim, dtype, eps=1e-6):",
    )
    repo.replace("src/minitile/ops/norm.py", "self.hidden = hidden", "self.hidden = dim")
    repo.commit("two changes")
    out = tmp_path / "r.json"
    r = repo.bench_op(
        "run",
        "--from-ref",
        "HEAD~1",
        "--to-ref",
        "HEAD",
        "--no-commit",
        "--json",
        str(out),
        "benchmarks/ops/bench_norm.py",
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert [b["path"] for b in json.loads(out.read_text())["benchmarks"]] == ["benchmarks/ops/bench_norm.py"]
    assert "SumFwdOp(M, N, dtype)" in repo.read("benchmarks/ops/bench_reduction.py"), "not in this shard"
