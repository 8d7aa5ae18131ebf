"""The follow-up commit's message (report/message.py) and the other renderings of the same result: `check`,
`fix --diff` and the message count the same calls and describe the same edit, on every fixture change
scenario; the message names only the Ops behind its files, stays short and says where the rest is."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers.changes import CHANGES, reduction_change
from tests.helpers.repo import Repo, make_repo
from tests.helpers.sources import EXTRA_BENCH

SCENARIOS = [[c] for c in CHANGES] + [CHANGES]


def _views(findings: list[dict]) -> list[tuple]:
    return sorted(
        (f["path"], f["line"], f["op"], f["status"], f["fix"], f["fixed"], f["why_not"]) for f in findings
    )


def _counts(text: str) -> tuple[int, int]:
    fixed = re.search(r"(?:can rewrite|rewrote) (\d+) calls?", text)
    hand = re.search(r"(\d+) calls? needs? a hand edit", text)
    return int(fixed.group(1)) if fixed else 0, int(hand.group(1)) if hand else 0


@pytest.mark.parametrize("changes", SCENARIOS, ids=lambda cs: "+".join(c.__name__[7:] for c in cs))
def test_check_fix_and_commit_message_agree(tmp_path: Path, changes: list) -> None:
    repo = make_repo(tmp_path / "r")
    repo.write("benchmarks/ops/bench_extra.py", EXTRA_BENCH)
    repo.commit("more benchmarks")
    for change in changes:
        change(repo)
    repo.git("add", "-A")
    check = repo.cli("check", "--json", str(tmp_path / "check.json"))
    fix = repo.cli("fix", "--diff", "--json", str(tmp_path / "fix.json"))
    checked = json.loads((tmp_path / "check.json").read_text())
    fixed = json.loads((tmp_path / "fix.json").read_text())
    assert _views(checked["findings"]) == _views(fixed["findings"])
    assert _counts(check.stdout) == _counts(fix.stderr), (check.stdout, fix.stderr)
    assert checked["rewritten"] == fixed["rewritten"]
    # the follow-up commit describes each rewrite in the words check used
    repo.commit("the Op change")
    r = repo.cli("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run")
    assert r.returncode in (0, 1), r.stderr
    message = repo.git("log", "-1", "--format=%B")
    if "Bench-Op: follow-up" not in message:
        assert not any(f["fixed"] for f in fixed["findings"]), r.stdout
        return
    assert len(message.splitlines()) <= 45
    committed = set(repo.git("show", "--format=", "--name-only", "HEAD").split())
    listed = [f for f in fixed["findings"] if f["fixed"] and f["fix"] and f["path"] in committed]
    shown = [f for f in listed if f"{f['path']}:{f['line']}:" in message]
    assert shown or "more lines" in message
    for f in shown:
        assert f"{f['call']}{f['fix']}" in message, (f, message)
        assert f"{f['call']}{f['fix']}" in check.stdout


def test_dict_fix_is_described_the_same_everywhere(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    repo.write("benchmarks/ops/bench_extra.py", EXTRA_BENCH)
    repo.commit("more benchmarks")
    reduction_change(repo)
    repo.git("add", "-A")
    check = repo.cli("check")
    fix = repo.cli("fix", "--diff")
    words = "MeanFwdOp(**params) with params edited: 'M' removed"
    assert words in check.stdout and words in fix.stderr, check.stdout
    assert '-    params = {"M": 64, "N": 256, "dtype": torch.float32}' in fix.stdout


def test_follow_up_message_names_only_the_ops_behind_its_files(repo: Repo) -> None:
    # two Op changes; only the reduction's reaches a benchmark file
    reduction_change(repo)
    repo.write(
        "src/minitile/ops/unused.py",
        "from minitile.ops.op import Op\n\n\nclass LonelyOp(Op):\n"
        "    def __init__(self, a, b):\n        pass\n",
    )
    repo.commit("add an Op no benchmark builds")
    repo.replace("src/minitile/ops/unused.py", "def __init__(self, a, b):", "def __init__(self, b):")
    repo.git("reset", "-q", "--soft", "HEAD~1")
    repo.commit("reduce: rows from the input; LonelyOp loses a")
    r = repo.cli("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run")
    assert r.returncode == 0, r.stdout + r.stderr
    message = repo.git("log", "-1", "--format=%B")
    assert message.splitlines()[0] == "bench-op: align bench_reduction.py with the new ReduceOp interface"
    assert "LonelyOp" not in message and "ReduceOp(M, N, dtype, tune=False)" in message
    assert "not run (not run" not in message and "Not run here (--no-run)" in message


def test_follow_up_message_is_bounded_and_says_where_the_rest_is(repo: Repo) -> None:
    calls = "".join(f"    SumFwdOp({i + 1}, 8, torch.float32)\n" for i in range(60))
    repo.write(
        "benchmarks/ops/bench_many.py",
        f"import torch\n\nfrom minitile.ops import SumFwdOp\n\n\ndef test_many():\n{calls}",
    )
    repo.commit("a benchmark with many calls")
    reduction_change(repo)
    repo.commit("reduce: rows from the input")
    r = repo.cli("run", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--no-run")
    assert r.returncode == 0, r.stdout + r.stderr
    message = repo.git("log", "-1", "--format=%B").strip().splitlines()
    assert len(message) <= 45, message
    more = next(line for line in message if "more lines" in line)
    report = more.rsplit(" in ", 1)[1]
    assert report.startswith(".git/bench-op/reports/") and (repo.path / report).exists(), more
    data = json.loads((repo.path / report).read_text())
    assert sum(len(b["fixes"]) for b in data["benchmarks"]) == 63  # 60 here, 3 in bench_reduction.py
