"""Constructors `ast` can still read: `@dataclass` classes, PEP 420 namespace packages, and imports bench-op
cannot resolve (reported, never taken for "every call binds")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchop_hook.analysis.modules import ClassRef, ParseCache
from benchop_hook.analysis.project import Project
from benchop_hook.git.snapshots import Snapshot
from tests.helpers.repo import Repo


class Files(Snapshot):
    """A repository version as a dict of path -> source: the Project reads it like a git tree."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def paths(self) -> list[str]:
        return sorted(self.files)

    def read(self, path: str) -> bytes | None:
        text = self.files.get(path)
        return None if text is None else text.encode()


DC = (
    "from dataclasses import dataclass, field, InitVar, KW_ONLY\nfrom typing import ClassVar\n"
    "import dataclasses\n\n\n"
)


# (id, module source, class name, the signature its synthesized __init__ has, or None when unknowable)
CASES = [
    (
        "fields-and-defaults",
        DC + "@dataclass\nclass A:\n    m: int\n    n: int = 4\n    name: str = 'x'\n",
        "A",
        "(m, n=4, name='x')",
    ),
    (
        "field-default-and-factory",
        DC + "@dataclass\nclass A:\n    m: int\n    s: list = field(default_factory=list)\n"
        "    d: int = field(default=3)\n",
        "A",
        "(m, s=list(), d=3)",
    ),
    (
        "factory-lambda-called-in-brackets",
        DC + "@dataclass\nclass A:\n    s: list = field(default_factory=lambda: [1, 2])\n",
        "A",
        "(s=(lambda: [1, 2])())",
    ),
    (
        "classvar-and-init-false-excluded",
        DC + "@dataclass\nclass A:\n    K: ClassVar[int] = 3\n    m: int\n"
        "    cache: dict = field(init=False, default_factory=dict)\n    plain = 5\n",
        "A",
        "(m)",
    ),
    (
        "initvar-kept",
        DC + "@dataclass\nclass A:\n    m: int\n    seed: InitVar[int] = 0\n",
        "A",
        "(m, seed=0)",
    ),
    (
        "kw-only-decorator",
        DC + "@dataclasses.dataclass(kw_only=True)\nclass A:\n    m: int\n    n: int = 1\n",
        "A",
        "(*, m, n=1)",
    ),
    (
        "kw-only-marker-and-field",
        DC + "@dataclass\nclass A:\n    m: int\n    t: int = field(default=0, kw_only=True)\n"
        "    _: KW_ONLY\n    tune: bool = False\n",
        "A",
        "(m, *, t=0, tune=False)",
    ),
    (
        "inherited-fields-base-first",
        DC + "@dataclass\nclass Base:\n    m: int\n    dtype: str = 'f16'\n\n\n"
        "@dataclass\nclass A(Base):\n    n: int = 2\n    dtype: str = 'f32'\n",
        "A",
        "(m, dtype='f32', n=2)",
    ),
    (
        "explicit-init-wins",
        DC + "@dataclass\nclass A:\n    m: int\n\n    def __init__(self, x):\n        self.m = x\n",
        "A",
        "(x)",
    ),
    (
        "init-false-inherits",
        DC + "class Base:\n    def __init__(self, q):\n        pass\n\n\n"
        "@dataclass(init=False)\nclass A(Base):\n    m: int = 0\n",
        "A",
        "(q)",
    ),
    (
        "unknown-external-base",
        DC + "from somewhere import Thing\n\n\n@dataclass\nclass A(Thing):\n    m: int\n",
        "A",
        None,
    ),
    (
        # A plain class of the repository between the dataclass and a base outside it (flashinfer's
        # resources over cutlass's MemoryResource): that base's fields are the dataclass's too.
        "external-base-above-a-plain-base",
        DC + "from somewhere import Thing\n\n\nclass Mid(Thing):\n    pass\n\n\n"
        "@dataclass(kw_only=True)\nclass A(Mid):\n    m: int = 0\n",
        "A",
        None,
    ),
    (
        "dataclass-above-a-plain-base",
        DC + "@dataclass\nclass Top:\n    q: int = 1\n\n\nclass Mid(Top):\n    pass\n\n\n"
        "@dataclass\nclass A(Mid):\n    m: int = 0\n",
        "A",
        None,
    ),
    (
        # lmdeploy's TurbomindEngineConfig: a pydantic dataclass under another name makes __init__ the same
        # way (read as `()`, every keyword a benchmark passes was "unexpected").
        "a-dataclass-maker-imported-under-another-name",
        "from pydantic.dataclasses import dataclass as pydantic_dataclass\n\n\n"
        "@pydantic_dataclass\nclass A:\n    m: int\n    n: int = 4\n",
        "A",
        "(m, n=4)",
    ),
    (
        "an-attrs-maker-imported-under-another-name",
        "from attrs import define as attrs_define\n\n\n@attrs_define\nclass A:\n    m: int\n",
        "A",
        None,
    ),
    (
        "plain-bases-only",
        DC + "class Top:\n    pass\n\n\nclass Mid(Top):\n    pass\n\n\n"
        "@dataclass\nclass A(Mid):\n    m: int = 0\n",
        "A",
        "(m=0)",
    ),
]


@pytest.mark.parametrize("source, name, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_dataclass_constructor(source: str, name: str, expected: str | None) -> None:
    p = Project(Files({"pkg/__init__.py": "", "pkg/m.py": source}), ParseCache(), lambda _: True, {"Op"})
    sig = p.constructor(ClassRef("pkg.m", name))
    assert (sig.render() if sig is not None else None) == expected


def test_namespace_packages_resolve_like_others() -> None:
    files = {
        "src/nsl/ops/reduce.py": "class Op:\n    pass\n\n\nclass SumOp(Op):\n    def __init__(self, n):\n   "
        "     pass\n",
        "bench/b.py": "",
    }
    p = Project(Files(files), ParseCache(), lambda _: True, {"Op"})
    assert p.resolve_name("nsl.ops.reduce", "SumOp") == ClassRef("nsl.ops.reduce", "SumOp")
    assert p.resolve_name("nsl.ops", "reduce") is not None  # a module of a package with no __init__.py
    assert p.resolve_name("nsl", "ops") is not None


def test_dataclass_op_and_namespace_package_end_to_end(repo: Repo, tmp_path: Path) -> None:
    """A dataclass Op in a namespace package: its calls are checked, a wrong one is found, an unresolved
    import is named and the summary does not say every call binds."""
    repo.replace(
        "pyproject.toml",
        'op-paths = ["src/minitile/ops/**/*.py"]',
        'op-paths = ["src/minitile/ops/**/*.py", "src/nsops/**/*.py"]',
    )
    repo.write(
        "src/nsops/scan/cumsum.py",
        (
            "from dataclasses import dataclass\n\nfrom minitile.ops import Op\n\n\n"
            "@dataclass\nclass CumsumOp(Op):\n    n: int\n    dim: int = -1\n"
        ),
    )
    repo.write(
        "benchmarks/ops/bench_scan.py",
        (
            "import nsops.scan.cumsum as cs\nfrom nsops.scan import cumsum\nfrom nsops.scan.cumsum import "
            "CumsumOp\n\n\n"
            "def test_scan():\n    CumsumOp(16, dim=0)\n    cumsum.CumsumOp(n=16)\n    cs.CumsumOp(16, 0, "
            "True)\n"
        ),
    )
    repo.commit("a dataclass op")
    out = tmp_path / "r.json"
    r = repo.cli("check", "--all-files", "--json", str(out))
    assert r.returncode == 1, r.stdout + r.stderr
    data = json.loads(out.read_text())
    broken = [
        (f["line"], f["problem"]) for f in data["findings"] if f["path"] == "benchmarks/ops/bench_scan.py"
    ]
    assert broken == [(9, "TypeError: takes 2 positional arguments but 3 were given")]

    repo.replace("benchmarks/ops/bench_scan.py", "cs.CumsumOp(16, 0, True)", "cs.CumsumOp(16, 0)")
    repo.replace(
        "benchmarks/ops/bench_scan.py",
        "from nsops.scan.cumsum import CumsumOp\n",
        "from nsops.scan.cumsum import CumsumOp\nfrom minitile.ops.reduction import ProdFwdOp\n",
    )
    repo.commit("an import of a class that does not exist")
    r = repo.cli("check", "--all-files")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "from minitile.ops.reduction import ProdFwdOp" in r.stdout and "unresolved" in r.stdout
    assert "every benchmark call binds" not in r.stdout and "1 import bench-op could not resolve" in r.stdout


BASE = "class Base:\n    def __init__(self, n, eps=1e-5, *, causal=False, **extra):\n        pass\n\n\n"


@pytest.mark.parametrize(
    ("sub", "expected"),
    [
        # Its own parameters, then the base's that only `**kwargs` can carry, keyword-only.
        (
            "    def __init__(self, n, act='relu', **kwargs):\n        super().__init__(n, **kwargs)\n",
            "(n, act='relu', *, eps=1e-5, causal=False, **kwargs)",
        ),
        # What the call gives the base itself is no parameter of the subclass.
        (
            "    def __init__(self, n, **kw):\n        super(Sub, self).__init__(n, causal=True, **kw)\n",
            "(n, *, eps=1e-5, **kw)",
        ),
        # A `kwargs` the body reads first, a `*args` of unknown length: its own signature, as before.
        (
            "    def __init__(self, n, **kw):\n        kw.pop('eps', None)\n"
            "        super().__init__(n, **kw)\n",
            "(n, **kw)",
        ),
        ("    def __init__(self, *a, k=1, **kw):\n        super().__init__(*a, **kw)\n", "(*a, k=1, **kw)"),
    ],
)
def test_a_constructor_passing_its_kwargs_on_takes_the_bases_keywords(sub: str, expected: str) -> None:
    source = BASE + "class Sub(Base):\n" + sub
    p = Project(Files({"pkg/__init__.py": "", "pkg/m.py": source}), ParseCache(), lambda _: True, {"Op"})
    sig = p.constructor(ClassRef("pkg.m", "Sub"))
    assert sig is not None and sig.render() == expected


MADE = [
    # GPTQModel: a plain subclass of a dataclass is built by the dataclass's `__init__` (it read `Cfg()`).
    (
        "inherits-a-dataclass-init",
        DC + "@dataclass\nclass Base:\n    bits: int = 4\n\n\nclass Cfg(Base):\n    '''Same fields.'''\n",
        "Cfg",
        "(bits=4)",
    ),
    # flax's struct.PyTreeNode: the base's `__init_subclass__` makes every subclass a dataclass.
    (
        "made-a-dataclass-by-its-base",
        "import dataclasses\n\n\nclass Node:\n    def __init_subclass__(cls, **kw):\n"
        "        dataclasses.dataclass(cls)\n\n\nclass Stop(Node):\n    patience: int = 0\n",
        "Stop",
        None,
    ),
    # TileOPs' Op registers its subclasses in `__init_subclass__`; their own `__init__` is what is called.
    (
        "a-registering-hook-changes-nothing",
        "class Op:\n    REG = []\n\n    def __init_subclass__(cls, **kw):\n        Op.REG.append(cls)\n\n\n"
        "class SumOp(Op):\n    def __init__(self, n):\n        pass\n",
        "SumOp",
        "(n)",
    ),
    # GPTQModel's QuantizeConfigMeta: a metaclass `__call__` builds whatever class it picks.
    (
        "a-metaclass-that-picks-the-class",
        "class Meta(type):\n    def __call__(cls, *a, **kw):\n        return super().__call__(*a, **kw)\n\n\n"
        "class Cfg(metaclass=Meta):\n    def __init__(self, bits=4):\n        pass\n",
        "Cfg",
        None,
    ),
]


@pytest.mark.parametrize("source, name, expected", [c[1:] for c in MADE], ids=[c[0] for c in MADE])
def test_constructors_made_elsewhere(source: str, name: str, expected: str | None) -> None:
    p = Project(Files({"pkg/__init__.py": "", "pkg/m.py": source}), ParseCache(), lambda _: True, {"Op"})
    sig = p.constructor(ClassRef("pkg.m", name))
    assert (sig.render() if sig is not None else None) == expected
