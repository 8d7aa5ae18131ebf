"""Paths that used to decide the same question differently: a splat beside the call, a hand pin beside another
edit, the run's dict fixer. Each asks the one decision core now; each case here once rewrote a call into one
that measures something else."""

from __future__ import annotations

import json
from pathlib import Path

from benchop_hook.rules.registry import REGISTRY
from tests.helpers.repo import Repo, run_json
from tests.helpers.sources import SPLAT_BENCH

NORM = "src/minitile/ops/norm.py"
BENCH = "benchmarks/ops/bench_norm.py"
EPS_GONE = (
    "    def __init__(self, M, hidden, dtype, eps=1e-6):\n        self.M = M\n        self.hidden = hidden\n"
    "        self.dtype = dtype\n        self.eps = eps\n",
    "    def __init__(self, M, hidden, dtype):\n        self.M = M\n        self.hidden = hidden\n"
    "        self.dtype = dtype\n",
)


def _eps_call(repo: Repo, splat: str) -> None:
    repo.replace(NORM, "(var + self.eps)", "(var + 1e-6)")
    repo.commit("eps read once")
    repo.replace(
        BENCH,
        "    op = RMSNormOp(M, hidden=hidden, dtype=torch.float32)\n",
        f"    eps = 1e-5\n    op = RMSNormOp(M, hidden=hidden, dtype=torch.float32, eps=eps{splat})\n",
    )
    if splat:
        repo.replace(BENCH, "SHAPES = [", "def opts():\n    return {}\n\n\nSHAPES = [")
    repo.commit("eps from the benchmark")
    repo.replace(NORM, *EPS_GONE)
    repo.git("add", "-A")


def test_a_value_nothing_reads_any_more_is_refused_without_a_splat(repo: Repo) -> None:
    _eps_call(repo, "")
    before = repo.read(BENCH)
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "nothing in the new class reads any more" in r.stdout, r.stdout
    assert repo.read(BENCH) == before


def test_a_splat_beside_the_call_does_not_turn_the_drop_guard_off(repo: Repo) -> None:
    _eps_call(repo, ", **opts()")
    before = repo.read(BENCH)
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "nothing in the new class reads any more" in r.stdout, r.stdout
    assert "dropped eps" not in r.stdout, r.stdout
    assert repo.read(BENCH) == before


MODE_OP = """from enum import Enum


class Mode(Enum):
    FAST = "fast"
    SLOW = "slow"


class ModeOp:
    def __init__(self, M, N, mode=Mode.FAST):
        self.N = N
        self.mode = mode
"""
MODE_BENCH = """from minitile.ops.mode import ModeOp


def test_mode_bench():
    ModeOp(4, 64)
"""


def _mode_change(repo: Repo, *, drop_m: bool) -> None:
    repo.write("src/minitile/ops/mode.py", MODE_OP)
    repo.write("benchmarks/ops/bench_mode.py", MODE_BENCH)
    repo.commit("a mode op")
    new = MODE_OP.replace("mode=Mode.FAST", "mode=Mode.SLOW")
    if drop_m:
        new = new.replace("(self, M, N,", "(self, N,")
    repo.write("src/minitile/ops/mode.py", new)
    repo.git("add", "-A")


def test_a_changed_default_alone_asks_for_a_hand_pin(repo: Repo) -> None:
    _mode_change(repo, drop_m=False)
    r = repo.cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "pin mode=Mode.FAST by hand" in r.stdout, r.stdout


def test_a_hand_pin_is_not_lost_when_another_edit_is_planned(repo: Repo) -> None:
    _mode_change(repo, drop_m=True)
    before = repo.read("benchmarks/ops/bench_mode.py")
    r = repo.cli("fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "pin mode=Mode.FAST by hand" in r.stdout, r.stdout
    assert "can rewrite" not in r.stdout, r.stdout
    assert repo.read("benchmarks/ops/bench_mode.py") == before


SCALE_OLD = (
    "    def __init__(self, M, N, dtype, tune=False):\n        self.M = M\n",
    "    def __init__(self, M, N, dtype, tune=False, scale=None):\n        self.scale = scale\n        "
    "self.M = M\n",
)
SCALE_NEW = (
    "    def __init__(self, M, N, dtype, tune=False, scale=None):\n        self.scale = scale\n        "
    "self.M = M\n",
    "    def __init__(self, N, dtype, scale, tune=False):\n        self.scale = scale\n        self.M = "
    "None\n",
)


def test_the_dict_fixer_pins_no_none_the_planner_refuses(repo: Repo, tmp_path: Path) -> None:
    # `scale=None` became a required `scale`: None is what the class stopped taking, so neither a written-out
    # call nor the run's fix of a splatted dict gets `scale=None` put back.
    repo.write("benchmarks/ops/bench_splat.py", SPLAT_BENCH)
    repo.replace("src/minitile/ops/reduction.py", *SCALE_OLD)
    repo.replace("src/minitile/ops/reduction.py", "        self.check(x, (self.M, self.N), self.dtype)\n", "")
    repo.commit("a scale, and a benchmark built from workload dicts")
    repo.replace("src/minitile/ops/reduction.py", *SCALE_NEW)
    repo.git("add", "-A")
    r, data = run_json(repo, tmp_path, "--no-commit")
    splat = next(b for b in data["benchmarks"] if b["path"] == "benchmarks/ops/bench_splat.py")
    assert r.returncode == 1, r.stdout + r.stderr
    assert splat["status"] == "blocked", splat
    assert "needs a value for 'scale'" in splat["reason"], splat["reason"]
    assert "setdefault('scale', None)" not in repo.read("benchmarks/ops/bench_splat.py")


def test_a_guard_turned_off_leaves_the_call_to_the_run(repo: Repo, tmp_path: Path) -> None:
    _eps_call(repo, "")
    repo.replace("pyproject.toml", "[tool.bench-op]\n", '[tool.bench-op]\nignore = ["BO209"]\n')
    repo.git("add", "-A")
    before = repo.read(BENCH)
    out = tmp_path / "check.json"
    r = repo.cli("fix", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "rule BO209, nothing-reads-it, is turned off" in r.stdout, r.stdout
    assert repo.read(BENCH) == before
    (f,) = json.loads(out.read_text())["findings"]
    assert f["status"] == "unknown" and f["rule"] == "BO209" and not f["fixed"], f


def test_every_rule_a_finding_names_is_registered(repo: Repo, tmp_path: Path) -> None:
    _eps_call(repo, "")
    out = tmp_path / "check.json"
    r = repo.cli("check", "--json", str(out))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "[BO209]" in r.stdout, r.stdout
    findings = json.loads(out.read_text())["findings"]
    named = {i for f in findings for i in (f["rule"], *f["trace"]) if i}
    assert named and named <= set(REGISTRY), named
