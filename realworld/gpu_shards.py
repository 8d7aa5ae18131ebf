"""Shards against a single run, on a real change: N shards of one commit's affected benchmark files running at
the same time (on one GPU, or one GPU each), merged with `bench-op merge`, compared with one `bench-op run`.

For TileOPs 32f62408 (17 reduction ops onto the spec interface; four benchmark files) on the GPU machine:

    python realworld/gpu_shards.py --bundle tileops.bundle --commit 32f62408 --shards 2 --out "$OUT"

Each shard and the single run work in a clone of their own (as CI's runners do) of the state the hook sees
(`gpu_tileops.replay`: the commit without its benchmark edits, on its parent with the configuration). The
shards start together; the single run goes after them (`--single-first` for the other order: the first
to compile TileOPs' kernels pays for it, the later ones find them cached). `--gpu-each` gives shard I the
GPU I-1 (CUDA_VISIBLE_DEVICES), for a machine with N GPUs; by default they share the one visible GPU.

It passes when the merged report's status, each file's status, the cases with numbers and the fixes are the
single run's; `summary.txt` says what matched, with each side's wall time. `--demo` does the same on the
bundled example library (three changed Ops, three benchmark files: its logic, checked on a CPU machine).
Nothing here is imported by bench-op or its tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_tileops import ENV, ROOT, git, replay  # a script beside this one

RANGE = ("--from-ref", "HEAD~1", "--to-ref", "HEAD")


def demo_tree(work: Path) -> Path:
    """The bundled example library with three Op changes committed on top: the state a hook would see."""
    tree = work / "demo"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(
        ROOT / "tests" / "fixtures" / "minitile", tree, ignore=shutil.ignore_patterns("__pycache__")
    )
    (tree / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    env = {**os.environ, **ENV}
    run = lambda *a: subprocess.run(["git", *a], cwd=tree, env=env, check=True, capture_output=True)  # noqa: E731
    run("init", "-q", "-b", "main")
    run("add", "-A")
    run("commit", "-q", "-m", "minitile: initial")
    shutil.copytree(ROOT / "examples" / "reduce-rows-from-input", tree, dirs_exist_ok=True)
    norm = tree / "src/minitile/ops/norm.py"
    norm.write_text(
        norm.read_text()
        .replace(
            "def __init__(self, M, hidden, dtype, eps=1e-6):", "def __init__(self, M, dim, dtype, eps=1e-6):"
        )
        .replace("self.hidden = hidden", "self.hidden = dim")
    )
    gelu = tree / "src/minitile/ops/elementwise.py"
    gelu.write_text(gelu.read_text().replace('approximate="none"', 'approximate="tanh"'))
    run("commit", "-q", "-am", "reduce rows from the input; norm's hidden is dim; gelu's tanh default")
    return tree


def start(
    clone: Path, out: Path, name: str, args: list[str], timeout: int, gpu: str | None
) -> subprocess.Popen[str]:
    env = {**os.environ, **ENV}
    # bench-op itself must be importable (its pytest plugin loads in the benchmark interpreter)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = gpu
    cmd = [
        sys.executable,
        "-m",
        "benchop_hook",
        "run",
        *RANGE,
        *args,
        "--python",
        sys.executable,
        "--timeout",
        str(timeout),
        "--json",
        str(out / f"{name}.json"),
    ]
    log = open(out / f"{name}.log", "w")  # noqa: SIM115  (closed with the process, below)
    log.write(f"$ {' '.join(cmd)}\n")
    log.flush()
    proc = subprocess.Popen(cmd, cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    proc.log = log  # type: ignore[attr-defined]
    return proc


def finish(procs: list[subprocess.Popen[str]]) -> list[int]:
    codes = [p.wait() for p in procs]
    for p in procs:
        p.log.close()  # type: ignore[attr-defined]
    return codes


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {b["path"]: b["status"] for b in report.get("benchmarks", [])}


def cases(report: dict[str, Any]) -> set[tuple[str, str]]:
    return {(b["path"], n["case"]) for b in report.get("benchmarks", []) for n in b.get("numbers", [])}


def compare(merged: dict[str, Any], single: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """(what, matched, detail) for each thing a merged report must share with the single run."""
    sm, ss = statuses(merged), statuses(single)
    cm, cs = cases(merged), cases(single)
    return [
        (
            "status",
            merged.get("status") == single.get("status"),
            f"{merged.get('status')} / {single.get('status')}",
        ),
        (
            "file statuses",
            sm == ss,
            f"{sm} / {ss}" if sm != ss else ", ".join(f"{p}: {s}" for p, s in sorted(sm.items())),
        ),
        (
            "cases with numbers",
            cm == cs,
            f"{len(cm)} / {len(cs)}"
            + ("" if cm == cs else f"; only merged {sorted(cm - cs)[:5]}, only single {sorted(cs - cm)[:5]}"),
        ),
        (
            "fixes (diffs)",
            merged.get("diffs", {}) == single.get("diffs", {}),
            f"{sorted(merged.get('diffs', {}))} / {sorted(single.get('diffs', {}))}",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundle", type=Path, help="TileOPs as a git bundle or a clone")
    ap.add_argument("--commit", default="32f62408")
    ap.add_argument("--demo", action="store_true", help="the bundled example library instead of TileOPs")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--gpu-each", action="store_true", help="shard I on GPU I-1 (a machine with N GPUs)")
    ap.add_argument("--single-first", action="store_true", help="the single run before the shards")
    ap.add_argument("--timeout", type=int, default=400, help="per benchmark file")
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "gpu-shards-out")))
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "bench-op-shards")
    args = ap.parse_args(argv)
    if not args.demo and args.bundle is None:
        ap.error("give --bundle (TileOPs) or --demo")
    args.out.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    tree = demo_tree(args.work) if args.demo else replay(args.bundle.resolve(), args.commit, args.work)
    clones = []
    for name in [*(f"shard-{i}" for i in range(1, args.shards + 1)), "single"]:
        shutil.rmtree(args.work / name, ignore_errors=True)
        git(args.work, "clone", "-q", str(tree), name)  # a runner's own checkout
        clones.append(args.work / name)

    def shards() -> tuple[list[int], float]:
        t0 = time.monotonic()
        procs = [
            start(
                clones[i],
                args.out,
                f"shard-{i + 1}",
                ["--shard", f"{i + 1}/{args.shards}"],
                args.timeout,
                str(i) if args.gpu_each else None,
            )
            for i in range(args.shards)
        ]
        return finish(procs), time.monotonic() - t0

    def single() -> tuple[int, float]:
        t0 = time.monotonic()
        (code,) = finish(
            [
                start(
                    clones[-1],
                    args.out,
                    "single",
                    ["--no-commit"],
                    args.timeout,
                    "0" if args.gpu_each else None,
                )
            ]
        )
        return code, time.monotonic() - t0

    if args.single_first:
        single_code, single_s = single()
        shard_codes, shards_s = shards()
    else:
        shard_codes, shards_s = shards()
        single_code, single_s = single()
    reports = [str(args.out / f"shard-{i}.json") for i in range(1, args.shards + 1)]
    merge = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchop_hook",
            "merge",
            *reports,
            "--json",
            str(args.out / "merged.json"),
            "--summary",
            str(args.out / "merged.md"),
            "--patch",
            str(args.out / "fixes.patch"),
        ],
        cwd=clones[0],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    (args.out / "merge.log").write_text(merge.stdout + merge.stderr)
    merged = json.loads((args.out / "merged.json").read_text()) if (args.out / "merged.json").exists() else {}
    one = json.loads((args.out / "single.json").read_text()) if (args.out / "single.json").exists() else {}
    what = "demo" if args.demo else args.commit
    lines = [
        f"{what}: {args.shards} shards at once ({'one GPU each' if args.gpu_each else 'sharing the GPU'}) "
        f"against a single run ({'single run first' if args.single_first else 'shards first'})",
        f"  shards: exit {shard_codes}, {shards_s:.0f} s wall for all of them",
    ]
    for i in range(1, args.shards + 1):
        rep = json.loads(Path(reports[i - 1]).read_text()) if Path(reports[i - 1]).exists() else {}
        share = rep.get("shard", {})
        how = share.get("balanced_by")
        lines.append(f"    shard {i}: {rep.get('status')}, files {share.get('files')} (balanced by {how})")
    lines.append(f"  single run: exit {single_code}, {single_s:.0f} s wall")
    said = merge.stdout.strip().splitlines()[-1] if merge.stdout.strip() else merge.stderr.strip()
    lines.append(f"  merge: exit {merge.returncode}: {said}")
    results = compare(merged, one)
    for name, ok, detail in results:
        lines.append(f"  {name}: {'same' if ok else 'DIFFERENT'} ({detail})")
    ok = all(r[1] for r in results) and merge.returncode == single_code
    lines.append(
        "the merged shards match the single run" if ok else "the merged shards do NOT match the single run"
    )
    (args.out / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
