"""Idioms of real op libraries, each in a small repository written for the test: classes renamed in bulk,
a same-slot rename that conflicts with a variable in scope, an argument that carried a choice, and the
constructors of workload and test-helper classes that benchmarks build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Repo, git

PYPROJECT = """[project]
name = "kern"
version = "0"

[tool.bench-op]
op-paths = ["src/kern/ops/**/*.py"]
benchmark-paths = ["benchmarks/**/*.py"]
test-paths = ["tests/**/*.py"]
"""

OP_BASE = "class Op:\n    pass\n"


def make(tmp_path: Path, files: dict[str, str]) -> Repo:
    root = tmp_path / "kern"
    root.mkdir()
    repo = Repo(root)
    repo.write("pyproject.toml", PYPROJECT)
    repo.write("src/kern/__init__.py", "")
    repo.write("src/kern/ops/op.py", OP_BASE)
    for rel, text in files.items():
        repo.write(rel, text)
    git(root, "init", "-q", "-b", "main")
    repo.commit("initial")
    return repo


def fix(repo: Repo) -> tuple[int, str, dict]:
    out = repo.path / ".." / "fix.json"
    r = repo.bench_op("fix", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--json", str(out))
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return r.returncode, r.stdout + r.stderr, json.loads(out.read_text())


# -- renames from evidence ---------------------------------------------------------------------

def _reduce_module(names: list[str], doc: str) -> str:
    body = "from .op import Op\n\n"
    for n in names:
        body += f"\nclass {n}(Op):\n    \"\"\"{doc} {n}.\"\"\"\n\n    def __init__(self, rows, cols, dtype):\n        self.rows = rows\n\n"
    return body


def _exports(names: list[str]) -> str:
    return (f"from .reduce import {', '.join(names)}\n\n__all__ = [\n"
            + "".join(f'    "{n}",\n' for n in names) + "]\n")


def test_classes_renamed_together_each_get_their_own_successor(tmp_path: Path) -> None:
    # Same constructor for all three, docstrings rewritten: only the commit's evidence tells them apart.
    old, new = ["SumOp", "MaxOp", "ProdOp"], ["SumFwdOp", "MaxFwdOp", "ProductFwdOp"]
    bench = ("from kern.ops import MaxOp, ProdOp, SumOp\n\n\ndef test_bench():\n"
             "    SumOp(4, 8, 'f16')\n    MaxOp(4, 8, 'f16')\n    ProdOp(4, 8, 'f16')\n")
    repo = make(tmp_path, {
        "src/kern/ops/reduce.py": _reduce_module(old, "Reduce with"),
        "src/kern/ops/__init__.py": _exports(old),
        "tests/test_reduce.py": "from kern.ops import MaxOp, ProdOp, SumOp\n\n\ndef test_it():\n    assert ProdOp(1, 2, 'f16')\n",
        "benchmarks/bench_reduce.py": bench,
    })
    repo.write("src/kern/ops/reduce.py", _reduce_module(new, "Forward reduction"))
    repo.write("src/kern/ops/__init__.py", _exports(new))
    repo.write("tests/test_reduce.py", "from kern.ops import MaxFwdOp, ProductFwdOp, SumFwdOp\n\n\ndef test_it():\n    assert ProductFwdOp(1, 2, 'f16')\n")
    repo.commit("rename the reductions")
    rc, out, data = fix(repo)
    text = repo.read("benchmarks/bench_reduce.py")
    assert "from kern.ops import MaxFwdOp, ProductFwdOp, SumFwdOp" in text, out
    assert "SumFwdOp(4, 8, 'f16')" in text and "MaxFwdOp(4, 8, 'f16')" in text and "ProductFwdOp(4, 8, 'f16')" in text
    by_old = {c["old"].rsplit(".", 1)[-1]: c for c in data["changes"]}
    assert by_old["ProdOp"]["new"].endswith(".ProductFwdOp")
    assert by_old["ProdOp"]["status"] == "renamed"
    assert "the package exports swap the names" in by_old["ProdOp"]["evidence"]
    assert "evidence: the package exports swap the names" in out


def test_an_abbreviation_the_commit_makes_elsewhere_pairs_the_rest(tmp_path: Path) -> None:
    # GroupQueryAttentionBwdOp -> GqaBwdOp is shown by the tests; GroupQueryAttentionFwdOp -> GqaFwdOp only by its name.
    old, new = ["GroupQueryAttentionFwdOp", "GroupQueryAttentionBwdOp"], ["GqaFwdOp", "GqaBwdOp"]
    repo = make(tmp_path, {
        "src/kern/ops/reduce.py": _reduce_module(old, "Attention"),
        "tests/test_gqa.py": "from kern.ops.reduce import GroupQueryAttentionBwdOp\n",
        "benchmarks/bench_gqa.py": ("from kern.ops.reduce import GroupQueryAttentionFwdOp\n\n\ndef test_bench():\n"
                                   "    GroupQueryAttentionFwdOp(1, 2, 'f16')\n"),
    })
    repo.write("src/kern/ops/reduce.py", _reduce_module(new, "GQA"))
    repo.write("tests/test_gqa.py", "from kern.ops.reduce import GqaBwdOp\n")
    repo.commit("shorter names")
    _, out, data = fix(repo)
    assert "GqaFwdOp(1, 2, 'f16')" in repo.read("benchmarks/bench_gqa.py"), out
    fwd = next(c for c in data["changes"] if c["old"].endswith("GroupQueryAttentionFwdOp"))
    assert fwd["evidence"] == ["the names match apart from case, direction suffix and the commit's abbreviations"]


def test_ambiguous_successors_are_reported_with_the_candidates(tmp_path: Path) -> None:
    bench = "from kern.ops.reduce import NormOp\n\n\ndef test_bench():\n    NormOp(1, 2, 'f16')\n"
    repo = make(tmp_path, {"src/kern/ops/reduce.py": _reduce_module(["NormOp"], "Norm"),
                           "benchmarks/bench_norm.py": bench})
    repo.write("src/kern/ops/reduce.py", _reduce_module(["NormFwdOp", "NormForwardOp"], "Two norms"))
    repo.commit("two candidates")
    rc, out, data = fix(repo)
    assert rc == 1
    assert repo.read("benchmarks/bench_norm.py") == bench
    (ch,) = data["changes"]
    assert ch["status"] == "removed"
    assert sorted(c.rsplit(".", 1)[-1] for c in ch["candidates"]) == ["NormForwardOp", "NormFwdOp"]
    assert "renamed to one of NormForwardOp, NormFwdOp" in out


@pytest.mark.parametrize("case", ["incompatible-constructor", "no-evidence"])
def test_a_removed_class_is_not_paired_without_evidence_and_a_compatible_constructor(tmp_path: Path, case: str) -> None:
    bench = "from kern.ops.reduce import OldOp\n\n\ndef test_bench():\n    OldOp(1, 2, 'f16')\n"
    repo = make(tmp_path, {"src/kern/ops/reduce.py": _reduce_module(["OldOp"], "Old"),
                           "tests/test_r.py": "from kern.ops.reduce import OldOp\n",
                           "benchmarks/bench_r.py": bench})
    if case == "incompatible-constructor":
        repo.write("src/kern/ops/reduce.py", "from .op import Op\n\n\nclass NewOp(Op):\n    def __init__(self, shape, dtype, block):\n        pass\n")
        repo.write("tests/test_r.py", "from kern.ops.reduce import NewOp\n")
    else:
        repo.write("src/kern/ops/reduce.py", _reduce_module(["UnrelatedOp"], "Other"))
    repo.commit("replace")
    rc, out, data = fix(repo)
    assert rc == 1
    assert repo.read("benchmarks/bench_r.py") == bench
    assert [c["status"] for c in data["changes"]] == ["removed"]
