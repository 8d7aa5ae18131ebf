"""BO713 end to end on the fixture library: a class renamed to a name that shares no word with the old one,
beside a twin whose rename the package's exports prove. The successor is taken by elimination only when it
is the one class left in the module, with the same constructor, in the removed class's place in `__all__`;
else the call stays reported as today."""

from __future__ import annotations

import json

import pytest

from tests.helpers.repo import Repo

PKG = "src/minitile/ops/losses/__init__.py"
MOD = "src/minitile/ops/losses/criteria.py"
BENCH = "benchmarks/ops/bench_losses.py"
BAR = "    def __init__(self, reduction='mean', eps=1e-6):\n        self.reduction = reduction\n"


def _package(foo: str, bar: str, exports: str | None = None) -> str:
    names = exports or f'"{foo}", "{bar}"'
    return f"from .criteria import {bar}, {foo}\n\n__all__ = [{names}]\n"


def _module(foo: str, bar: str, bar_init: str = BAR, more: str = "") -> str:
    return (
        "from ..op import Op\n\n\n"
        f"class {foo}(Op):\n    def __init__(self, reduction='mean'):\n        self.foo = reduction\n\n\n"
        f"class {bar}(Op):\n{bar_init}        self.{bar.lower()}_eps = eps\n{more}"
    )


def _run(repo: Repo, exports: str | None = None, bar_init: str = BAR, more: str = "") -> tuple[int, str, str]:
    repo.write(PKG, _package("FooLoss", "BarLoss"))
    repo.write(MOD, _module("FooLoss", "BarLoss"))
    repo.write(
        BENCH,
        "from minitile.ops.losses import BarLoss\n\n\ndef test_bench():\n"
        "    op = BarLoss(reduction='sum')\n    assert op\n",
    )
    repo.commit("losses")
    repo.write(PKG, _package("FooCriterion", "BazCriterion", exports))
    repo.write(MOD, _module("FooCriterion", "BazCriterion", bar_init, more))
    repo.git("add", "-A")
    r = repo.cli("fix", "--json", str(repo.path / "fix.json"))
    return r.returncode, r.stdout, repo.read(BENCH)


def _rules(repo: Repo) -> list[str]:
    return [f["rule"] for f in json.loads((repo.path / "fix.json").read_text())["findings"]]


def test_the_one_class_left_in_its_place_is_the_successor(repo: Repo) -> None:
    rc, out, text = _run(repo)
    assert rc == 0, out
    assert "from minitile.ops.losses import BazCriterion" in text, out
    assert "BazCriterion(reduction='sum')" in text, out
    (finding,) = json.loads((repo.path / "fix.json").read_text())["findings"]
    # Rewritten by the rule, not left to the run (the import alone would follow the class).
    assert (finding["rule"], finding["status"], finding["why_not"]) == ("BO713", "gone", None), out


ANOTHER_DEFAULT = "    def __init__(self, reduction='sum', eps=1e-6):\n        self.reduction = reduction\n"
HELPER = "\n\nclass Helper:\n    pass\n"


@pytest.mark.parametrize(
    "exports, bar_init, more",
    [
        pytest.param(None, ANOTHER_DEFAULT, "", id="signature-differs"),
        pytest.param(None, BAR, HELPER, id="two-classes-left"),
        pytest.param('"BazCriterion", "FooCriterion"', BAR, "", id="another-place-in-all"),
    ],
)
def test_without_all_three_the_call_stays_reported(
    repo: Repo, exports: str | None, bar_init: str, more: str
) -> None:
    rc, out, text = _run(repo, exports, bar_init, more)
    assert rc == 1, out
    assert "BarLoss(reduction='sum')" in text, out
    assert "[BO704]" in out, out
    assert _rules(repo) == ["BO704", "BO705"], out
