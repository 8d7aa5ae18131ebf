"""Two runners, each with its own clone, run their shards of the same change at the same time; the job
that merges their reports gets the statuses, the numbers and the fixes a single run gets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers.changes import change_gelu_default, change_norm_rename, reduction_change
from tests.helpers.process import popen
from tests.helpers.repo import Repo, git, make_repo

# Builds a changed Op, then fails for a reason no rewrite can fix: a file of the run that blocks.
CRASH = """import torch
from minitile.ops import SumFwdOp


def test_sum_then_crash():
    SumFwdOp(4, 8, torch.float32)
    raise RuntimeError("CUDA error: an illegal memory access was encountered")
"""


def _clone(origin: Repo, dest: Path) -> Repo:
    git(dest.parent, "clone", "-q", str(origin.path), dest.name)
    return Repo(dest)


def _statuses(report: dict) -> dict[str, str]:
    return {b["path"]: b["status"] for b in report["benchmarks"]}


def _cases(report: dict) -> list[tuple[str, str, str]]:
    return sorted((b["path"], n["case"], n["name"]) for b in report["benchmarks"] for n in b["numbers"])


def test_two_shards_in_parallel_merge_into_the_single_run(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin")
    origin.write("benchmarks/ops/bench_crash.py", CRASH)
    origin.commit("a benchmark that crashes")
    reduction_change(origin)
    change_norm_rename(origin)
    change_gelu_default(origin)
    origin.commit("the Op changes")
    rng = ("--from-ref", "HEAD~1", "--to-ref", "HEAD")

    shards = [_clone(origin, tmp_path / f"runner-{i}") for i in (1, 2)]
    procs = [
        popen(
            [
                sys.executable,
                "-m",
                "benchop_hook",
                "run",
                *rng,
                "--shard",
                f"{i}/2",
                "--json",
                str(tmp_path / f"r{i}.json"),
            ],
            clone.path,
            stderr=subprocess.STDOUT,
        )
        for i, clone in enumerate(shards, 1)
    ]
    outs = [p.communicate(timeout=600)[0] for p in procs]
    reports = [json.loads((tmp_path / f"r{i}.json").read_text()) for i in (1, 2)]
    taken = [set(r["shard"]["files"]) for r in reports]
    assert taken[0] and taken[1] and not taken[0] & taken[1], outs
    assert reports[0]["shard"]["split"] == reports[1]["shard"]["split"], "the same split on both runners"
    for clone, out in zip(shards, outs):
        assert "bench-op: committed" not in out, "a shard never commits"
        assert clone.log()[0] == "the Op changes"

    merger = _clone(origin, tmp_path / "merger")
    merged_json, patch = tmp_path / "merged.json", tmp_path / "fixes.patch"
    r = merger.cli(
        "merge",
        str(tmp_path / "r1.json"),
        str(tmp_path / "r2.json"),
        "--json",
        str(merged_json),
        "--patch",
        str(patch),
    )
    merged = json.loads(merged_json.read_text())

    single_clone = _clone(origin, tmp_path / "single")
    single = single_clone.bench_op(
        "run", *rng, "--no-commit", "--json", str(tmp_path / "single.json"), timeout=600
    )
    one = json.loads((tmp_path / "single.json").read_text())
    assert r.returncode == single.returncode == 1, r.stdout + single.stdout + single.stderr
    assert merged["status"] == one["status"] == "blocked"
    assert (
        _statuses(merged)
        == _statuses(one)
        == {
            "benchmarks/ops/bench_crash.py": "blocked",
            "benchmarks/ops/bench_elementwise.py": "passed",
            "benchmarks/ops/bench_norm.py": "passed",
            "benchmarks/ops/bench_reduction.py": "passed",
        }
    )
    assert _cases(merged) == _cases(one)
    assert sorted(f["path"] + str(f["line"]) for f in merged["findings"]) == sorted(
        f["path"] + str(f["line"]) for f in one["findings"]
    )
    # what a run records in git notes holds each file's duration: the next split is balanced by them
    note = json.loads(single_clone.git("notes", "--ref=bench-op", "show", "HEAD"))
    assert set(note["runs"][-1]["seconds"]) == {p for p, s in _statuses(one).items() if s == "passed"}
    # the merged patch is the single run's fix, file for file
    merger.git("apply", str(patch))
    for path in one["diffs"]:
        assert merger.read(path) == single_clone.read(path), path
    assert (
        set(merged["diffs"])
        == set(one["diffs"])
        == {
            "benchmarks/ops/bench_elementwise.py",
            "benchmarks/ops/bench_norm.py",
            "benchmarks/ops/bench_reduction.py",
        }
    )


def test_a_shard_with_no_file_to_take_reports_its_share(repo: Repo, tmp_path: Path) -> None:
    change_norm_rename(repo)  # one affected file, three runners
    repo.commit("the Op change")
    out = tmp_path / "r3.json"
    r = repo.bench_op("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--shard", "3/3", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "bench-op: shard 3/3: 0 of 1 affected benchmark files (balanced by count): none" in r.stdout
    report = json.loads(out.read_text())
    assert report["status"] == "nothing-to-do" and report["benchmarks"] == []
    assert report["shard"]["split"] == [["benchmarks/ops/bench_norm.py"], [], []]
    assert repo.git("status", "--porcelain") == "", "nothing written by a shard with nothing to do"
    r = repo.cli("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--shard", "4/3")
    assert r.returncode == 2 and "--shard takes I/N with 1 <= I <= N" in r.stderr
