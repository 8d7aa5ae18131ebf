"""Invariants over generated repositories: several Op changes, several benchmark files, random unstaged
edits and untracked files around them, bench-op in each mode.

- no byte of the user's unstaged or untracked content changes (untracked files stay byte-identical and in
  no commit; non-benchmark files stay byte-identical; every line the user added to a benchmark file is
  still there);
- commits made by bench-op touch only benchmark files;
- every call bench-op rewrote binds the new signature (a second check finds nothing left to fix there).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.helpers.changes import CHANGES, change_attention_shift, change_reduction
from tests.helpers.process import run
from tests.helpers.repo import Repo, make_repo
from tests.helpers.sources import EXTRA_BENCH

SEEDS = 24


MODES = ["check", "fix", "run-no-run", "follow-up-no-run", "hook-commit", "run"]


def tracked(repo: Repo) -> list[str]:
    return [p for p in repo.git("ls-files").splitlines() if p.endswith(".py") or p.endswith(".toml")]


def user_work(repo: Repo, rng: random.Random) -> tuple[dict[str, list[str]], dict[str, bytes]]:
    """Unstaged edits (lines added at the top or bottom of random tracked files) and untracked files."""
    added: dict[str, list[str]] = {}
    for path in rng.sample([p for p in tracked(repo) if p.endswith(".py")], 6):
        text = repo.read(path)
        line = f"# user edit {rng.randrange(10**6)} in {path}"
        text = (
            (line + "\n" + text)
            if rng.random() < 0.5
            else (text + ("" if text.endswith("\n") or not text else "\n") + line + "\n")
        )
        repo.write(path, text)
        added[path] = [line]
    untracked: dict[str, bytes] = {}
    for i in range(rng.randrange(1, 4)):
        where = rng.choice(
            ["notes/idea_{}.txt", "benchmarks/ops/bench_wip_{}.py", "src/minitile/ops/wip_{}.py"]
        ).format(i)
        data = (
            "from minitile.ops import SumFwdOp\nimport torch\nSumFwdOp(4, 8, torch.float32)  # "
            f"{rng.random()}\n"
        ).encode()
        repo.write(where, data.decode())
        untracked[where] = data
    return added, untracked


def commits_since(repo: Repo, rev: str) -> list[str]:
    return repo.git("rev-list", f"{rev}..HEAD").split()


@pytest.mark.parametrize("seed", range(SEEDS))
def test_invariants(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    mode = MODES[seed % len(MODES)]
    repo = make_repo(tmp_path / "r")
    repo.write("benchmarks/ops/bench_extra.py", EXTRA_BENCH)
    repo.commit("more benchmarks")
    if mode == "hook-commit":
        assert repo.cli("install").returncode == 0
    changes = rng.sample(CHANGES, rng.randrange(1, 4))
    if mode in ("run", "hook-commit"):
        changes = [c for c in changes if c is not change_attention_shift] or [
            change_reduction
        ]  # keep runs short
    for c in changes:
        c(repo)
    base = repo.head()
    if mode == "follow-up-no-run":
        repo.git("add", "-A")
        repo.git("commit", "-q", "-m", "ops change", env={"BENCH_OP_FOLLOW_UP": "1"})
    else:
        repo.git("add", "-A")
    index_before = repo.git("ls-files", "-s")
    added, untracked = user_work(repo, rng)
    before = repo.snapshot()
    is_bench = lambda p: p.startswith("benchmarks/") and p.endswith(".py")  # noqa: E731 - a one-line predicate, read where it is used
    out = tmp_path / "first.json"

    if mode == "check":
        r = repo.cli("check", "--json", str(out))
    elif mode == "fix":
        r = repo.cli("fix", "--json", str(out))
    elif mode == "run-no-run":
        r = repo.cli("run", "--no-run", "--json", str(out))
    elif mode == "follow-up-no-run":
        r = repo.cli("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run", "--json", str(out))
    elif mode == "run":
        r = repo.bench_op("run", "--json", str(out))
    else:
        r = run(["git", "commit", "-q", "-m", "ops change"], repo.path)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr

    after = repo.snapshot()
    # 1. untracked content: byte for byte, and in no commit
    for p, data in untracked.items():
        assert after[p] == data, p
    every = repo.git("log", "--all", "--format=", "--name-only").split()
    assert not set(untracked) & set(every)
    # 2. non-benchmark files: byte for byte
    for p in before:
        if not is_bench(p):
            assert after.get(p) == before[p], p
    # the user's added lines survive in benchmark files too, and were committed nowhere
    for p, lines in added.items():
        for line in lines:
            assert line in after[p].decode(), (p, line)
    assert "# user edit" not in repo.git("log", "--all", "-p", "--format=")
    # check writes nothing at all; the staging area holds what it held
    if mode == "check":
        assert after == before
    if mode in ("check", "fix", "run-no-run", "run"):
        assert repo.git("ls-files", "-s") == index_before
    # 3. commits made by bench-op touch only benchmark files
    for sha in commits_since(repo, base):
        msg = repo.git("log", "-1", "--format=%B", sha)
        if "Bench-Op: follow-up" in msg:
            files = repo.git("show", "--format=", "--name-only", sha).split()
            assert files and all(is_bench(f) for f in files), files
    # 4. every rewritten call binds the new signature: a second check has nothing left to fix
    if mode == "check":
        return
    if mode in ("fix", "run-no-run", "run"):
        again = repo.cli("check", "--json", str(tmp_path / "second.json"))
    else:
        again = repo.cli(
            "check", "--from-ref", base, "--to-ref", "HEAD", "--json", str(tmp_path / "second.json")
        )
    second = json.loads((tmp_path / "second.json").read_text())
    fixable = [f for f in second["findings"] if f["fix"] and f["status"] not in ("ok", "default")]
    assert not fixable, (again.stdout, fixable)
    if mode != "hook-commit":  # every other mode wrote its report
        first = json.loads(out.read_text())
        fixed = {
            (f["path"], f["line"])
            for f in first["findings"]
            if f.get("fixed") and f["status"] not in ("default",)
        }
        still = {(f["path"], f["line"]) for f in second["findings"] if f["status"] in ("broken", "shifted")}
        # a rewritten call sits on the same line or a nearby one; none of them may still be broken there
        assert not fixed & still, (fixed & still, again.stdout)
