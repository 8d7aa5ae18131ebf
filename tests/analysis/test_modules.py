"""One module read with `ast` (`parse_source`), and one version of a repository resolving names across its
modules (`Project`): in process, on sources held in a dict."""

from __future__ import annotations

import ast

import pytest

from benchop_hook.analysis.modules import (
    ClassRef,
    ImportedModule,
    ImportedName,
    ModuleRef,
    ParseCache,
    child_nodes,
    dotted,
    parse_source,
    resolve_relative,
    walk_list,
)
from benchop_hook.analysis.project import Project, module_names_for
from benchop_hook.git.snapshots import Snapshot


class Files(Snapshot):
    """A repository version as a dict of path -> source."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.reads: list[str] = []

    def paths(self) -> list[str]:
        return sorted(self.files)

    def read(self, path: str) -> bytes | None:
        self.reads.append(path)
        text = self.files.get(path)
        return None if text is None else text.encode()


# -- one module


def test_parse_source_reads_classes_imports_aliases_and_names() -> None:
    src = (
        "import os.path\nimport numpy as np\nfrom . import sibling\nfrom .ops import SumOp as S, MeanOp\n"
        "from base import *\n__all__ = ['Alias', 'S']\nAlias = S\nTyped: type = np.ndarray\nTable = x[1]\n"
        "try:\n    from fast import Kernel\nexcept ImportError:\n    Kernel = None\n"
        "if TYPE_CHECKING:\n    from typing import Any\n\n\n"
        "class A(Base, metaclass=M):\n    def __init__(self, m, n=1):\n        pass\n\n"
        "    def run(self, x):\n        pass\n\n    def _private(self):\n        pass\n\n"
        "    def __call__(self, y):\n        pass\n\n    @property\n    def size(self):\n        return 1\n\n"
        "    @staticmethod\n    def make(a, b):\n        pass\n"
    )
    mi = parse_source(src.encode(), "pkg/mod.py", "pkg.mod")
    assert mi.error is None and not mi.is_package
    assert mi.imports == {
        "os": ("module", "os"),
        "np": ("module", "numpy"),
        "sibling": ("attr", "pkg", "sibling"),
        "S": ("attr", "pkg.ops", "SumOp"),
        "MeanOp": ("attr", "pkg.ops", "MeanOp"),
        "Kernel": ("attr", "fast", "Kernel"),
        "Any": ("attr", "typing", "Any"),
    }
    assert mi.imports["S"] == ImportedName("attr", "pkg.ops", "SumOp") and mi.imports["S"].name == "SumOp"
    assert isinstance(mi.imports["np"], ImportedModule) and mi.imports["np"].module == "numpy"
    assert mi.star_imports == ["base"]
    assert mi.all_names == ("Alias", "S")
    assert mi.aliases == {"Alias": "S", "Typed": "np.ndarray"}  # a subscript is no alias
    assert {"Alias", "Typed", "Table", "Kernel", "A", "os", "np"} <= mi.names
    a = mi.classes["A"]
    assert a.bases == ("Base",)
    assert a.init is not None and a.init.render() == "(m, n=1)"
    assert sorted(a.methods) == ["__call__", "make", "run"]  # no private name, no property
    assert a.methods["make"].render() == "(a, b)"  # a staticmethod keeps its first parameter


@pytest.mark.parametrize(
    "data, error",
    [
        pytest.param(b"def f(:\n", "line 1: invalid syntax", id="syntax"),
        pytest.param(b"x = 1\0\n", "binary content, not Python source", id="null-bytes"),
        pytest.param(b"x = '\xff'\n", "invalid or missing encoding declaration", id="not-utf-8"),
        pytest.param(b"# -*- coding: latin-1 -*-\nx = '\xff'\n", None, id="declared-latin-1"),
    ],
)
def test_parse_source_never_raises(data: bytes, error: str | None) -> None:
    mi = parse_source(data, "m.py", "m")
    assert mi.error == error
    assert (mi.tree is None) == (error is not None)


def test_a_package_init_resolves_relative_imports_from_itself() -> None:
    mi = parse_source(b"from .ops import SumOp\nfrom .. import top\n", "pkg/sub/__init__.py", "pkg.sub")
    assert mi.is_package
    assert mi.imports == {"SumOp": ("attr", "pkg.sub.ops", "SumOp"), "top": ("attr", "pkg", "top")}
    assert resolve_relative("pkg.sub.mod", False, 1, "x") == "pkg.sub.x"
    assert resolve_relative("pkg.sub.mod", False, 2, None) == "pkg"
    assert resolve_relative("pkg.sub.mod", False, 0, "abs") == "abs"


def test_the_ast_helpers_match_the_standard_library() -> None:
    tree = ast.parse("def f(a, b=1):\n    return [a.x.y(b), {1: 2}]\n")
    assert walk_list(tree) == list(ast.walk(tree))
    for node in ast.walk(tree):
        assert child_nodes(node) == list(ast.iter_child_nodes(node))
    assert dotted(ast.parse("a.b.C", mode="eval").body) == "a.b.C"
    assert dotted(ast.parse("Generic[T]", mode="eval").body) == "Generic"
    assert dotted(ast.parse("f().x", mode="eval").body) is None


def test_the_parse_cache_parses_the_same_bytes_once() -> None:
    cache = ParseCache()
    a = cache.get("m.py", "m", b"class A:\n    pass\n")
    assert cache.get("m.py", "m", b"class A:\n    pass\n") is a
    assert cache.get("m.py", "m", b"class B:\n    pass\n") is not a
    assert cache.parsed == 2


def test_a_class_fingerprint_ignores_its_name() -> None:
    body = "(Op):\n    def __init__(self, m):\n        self.m = m\n"
    a = parse_source(f"class A{body}".encode(), "a.py", "a").classes["A"]
    b = parse_source(f"class B{body}".encode(), "b.py", "b").classes["B"]
    c = parse_source(f"class C{body}    x = 1\n".encode(), "c.py", "c").classes["C"]
    assert a.fingerprint == b.fingerprint != c.fingerprint


# -- module names


@pytest.mark.parametrize(
    "path, inits, names",
    [
        pytest.param(
            "src/pkg/ops/sum.py",
            {"src/pkg/__init__.py", "src/pkg/ops/__init__.py"},
            ["pkg.ops.sum"],
            id="src-layout",
        ),
        pytest.param("pkg/__init__.py", {"pkg/__init__.py"}, ["pkg"], id="package"),
        pytest.param("tests/ops/test_x.py", set(), ["tests.ops.test_x", "test_x"], id="namespace-package"),
        pytest.param("pkg/ops/x.py", {"pkg/ops/__init__.py"}, ["ops.x", "pkg.ops.x"], id="chain-stops-below"),
        pytest.param(
            # sglang: `srt/` and `layers/` have no __init__.py, inside the regular package `sglang`
            "python/pkg/srt/layers/topk.py",
            {"python/pkg/__init__.py"},
            ["python.pkg.srt.layers.topk", "topk", "pkg.srt.layers.topk"],
            id="namespace-folders-inside-a-package",
        ),
        pytest.param(
            # mlx: `python/mlx/` has no __init__.py, `nn/` has: `import mlx.nn` names it through the folder
            "python/mlx/nn/layers/quantized.py",
            {"python/mlx/nn/__init__.py", "python/mlx/nn/layers/__init__.py"},
            ["nn.layers.quantized", "python.mlx.nn.layers.quantized", "mlx.nn.layers.quantized"],
            id="a-package-inside-a-namespace-folder",
        ),
        pytest.param(
            "python/mlx/nn/__init__.py",
            {"python/mlx/nn/__init__.py"},
            ["python.mlx.nn", "nn", "mlx.nn"],
            id="its-package-itself",
        ),
        pytest.param("README.md", set(), [], id="not-python"),
    ],
)
def test_module_names_for(path: str, inits: set[str], names: list[str]) -> None:
    assert module_names_for(path, inits) == names


# -- a whole version

LIB = {
    "lib/__init__.py": "from lib.ops import *\nfrom lib.ops.base import Op as BaseOp\nReduce = ReduceOp\n",
    "lib/ops/__init__.py": "from lib.ops.reduce import ReduceOp, SumOp\nfrom lib.ops.mlp import *\n",
    "lib/ops/base.py": "class Op:\n    pass\n",
    "lib/ops/reduce.py": (
        "from lib.ops.base import Op\n\n\n"
        "class ReduceOp(Op):\n    def __init__(self, m, n, dtype):\n        pass\n\n"
        "    def forward(self, x):\n        pass\n\n\n"
        "class SumOp(ReduceOp):\n    pass\n\n\n"
        "class WrapOp(ReduceOp):\n    def __init__(self, *args, **kwargs):\n"
        "        super().__init__(*args, **kwargs)\n"
    ),
    "lib/ops/mlp.py": (
        "import torch\nfrom lib.ops.base import Op\n\n__all__ = ['MlpOp']\n\n\n"
        "class MlpOp(Op):\n    def __init__(self, d, *, act='gelu'):\n        pass\n\n\n"
        "class Hidden(Op):\n    pass\n\n\n"
        "class Ext(torch.nn.Module):\n    pass\n\n\n"
        "class Foreign(SomeLibBase):\n    pass\n"
    ),
    "workloads/reduce.py": "class ReduceTest:\n    def __init__(self, m, n):\n        pass\n",
}


def project(files: dict[str, str] = LIB) -> Project:
    return Project(
        Files(files),
        ParseCache(),
        lambda p: p.startswith("lib/ops/"),
        ["Op"],
        lambda p: p.startswith("workloads/"),
    )


REDUCE = ClassRef("lib.ops.reduce", "ReduceOp")
SUM = ClassRef("lib.ops.reduce", "SumOp")
MLP = ClassRef("lib.ops.mlp", "MlpOp")


@pytest.mark.parametrize(
    "module, name, found",
    [
        pytest.param("lib.ops.reduce", "SumOp", SUM, id="defined-there"),
        pytest.param("lib.ops", "SumOp", SUM, id="re-exported"),
        pytest.param("lib", "SumOp", SUM, id="through-two-star-imports"),
        pytest.param("lib", "MlpOp", MLP, id="star-import-in-all"),
        pytest.param("lib", "Hidden", None, id="star-import-not-in-all"),
        pytest.param("lib", "Reduce", REDUCE, id="module-level-alias"),
        pytest.param("lib", "BaseOp", ClassRef("lib.ops.base", "Op"), id="imported-as"),
        pytest.param("lib", "ops", ModuleRef("lib.ops"), id="subpackage"),
        pytest.param("lib.ops", "mlp", ModuleRef("lib.ops.mlp"), id="submodule"),
        pytest.param("lib", "Missing", None, id="missing"),
    ],
)
def test_names_resolve_across_modules(module: str, name: str, found: ClassRef | ModuleRef | None) -> None:
    assert project().resolve_name(module, name) == found


def test_which_classes_are_ops_and_which_are_built() -> None:
    p = project()
    assert p.is_op(SUM) and p.is_op(REDUCE) and p.is_op(MLP)
    assert not p.is_op(ClassRef("lib.ops.mlp", "Ext"))
    assert not p.is_op(ClassRef("workloads.reduce", "ReduceTest"))
    assert p.builds(ClassRef("workloads.reduce", "ReduceTest"))  # an interface file's class
    assert p.ancestors(SUM) == [REDUCE, ClassRef("lib.ops.base", "Op")]
    assert p.bases(ClassRef("lib.ops.mlp", "Ext")) == ["torch.nn.Module"]


@pytest.mark.parametrize(
    "ref, signature",
    [
        pytest.param(REDUCE, "(m, n, dtype)", id="own"),
        pytest.param(SUM, "(m, n, dtype)", id="inherited"),
        pytest.param(ClassRef("lib.ops.reduce", "WrapOp"), "(m, n, dtype)", id="passthrough-init"),
        pytest.param(MLP, "(d, *, act='gelu')", id="keyword-only"),
        pytest.param(ClassRef("lib.ops.base", "Op"), "()", id="no-init"),
        pytest.param(ClassRef("lib.ops.mlp", "Ext"), "()", id="a-base-that-adds-no-arguments"),
        pytest.param(ClassRef("lib.ops.mlp", "Foreign"), None, id="base-outside-the-repository"),
        pytest.param(ClassRef("lib.ops.mlp", "Nope"), None, id="unknown-class"),
    ],
)
def test_constructors_are_inherited_across_files(ref: ClassRef, signature: str | None) -> None:
    sig = project().constructor(ref)
    assert (sig.render() if sig is not None else None) == signature


def test_methods_are_inherited() -> None:
    p = project()
    forward = p.method(SUM, "forward")
    assert forward is not None and forward.render() == "(x)"
    assert p.method(MLP, "forward") is None
    assert p.method_names(SUM) == {"forward"}


def test_recording_notes_the_files_an_answer_read_even_when_cached() -> None:
    p = project()
    assert p.is_op(SUM)  # cached now, without a record
    seen = p.record()
    assert p.is_op(SUM)
    p.stop_recording()
    assert seen == {"lib/ops/reduce.py", "lib/ops/base.py"}  # SumOp's file, and the one its Op base is in


def test_a_class_defined_for_the_type_checker_only_is_no_class() -> None:
    # tilelang: `Buffer` is a stub class under `if TYPE_CHECKING:`; at run time it is `BufferAnnot()`.
    src = (
        "from typing import TYPE_CHECKING\nimport typing\n\n\nclass BufferAnnot:\n    pass\n\n\n"
        "if TYPE_CHECKING:\n    class Buffer:\n        def __init__(self, shape, dtype='float32'):\n"
        "            pass\nelse:\n    Buffer = BufferAnnot()\n\n"
        "if typing.TYPE_CHECKING:\n    class Stub:\n        pass\n\n"
        "if True:\n    class Real:\n        pass\n"
    )
    mi = parse_source(src.encode(), "pkg/annot.py", "pkg.annot")
    assert set(mi.classes) == {"BufferAnnot", "Real"}
    assert {"Buffer", "Stub", "Real"} <= mi.names


# Script folders (no __init__.py) that each keep their own `common.py` and `utils.py`, and a top-level
# `utils.py`: what a bare import names depends on where the importing file is.
SCRIPTS = {
    **LIB,
    "bench/attn/common.py": "from lib.ops.reduce import SumOp as Kernel\n",
    "bench/attn/bench_attn.py": "from common import Kernel\nimport common\nfrom common import *\n",
    "bench/norm/common.py": "from lib.ops.mlp import MlpOp as Kernel\n",
    "bench/norm/bench_norm.py": "from common import Kernel\nimport common\nfrom common import *\n",
    "bench/pkg/__init__.py": "",
    "bench/pkg/bench_pkg.py": "from common import Kernel\nimport common\nfrom common import *\n",
    "bench/common.py": "from lib.ops.reduce import ReduceOp as Kernel\n",
    "tools/x/utils.py": "from lib.ops.mlp import MlpOp as Helper\n",
    "utils.py": "from lib.ops.reduce import SumOp as Helper\n",
    "tools/run.py": "from utils import Helper\n",
}


@pytest.mark.parametrize(
    "path, found",
    [
        pytest.param("bench/attn/bench_attn.py", SUM, id="its-folders-common"),
        pytest.param("bench/norm/bench_norm.py", MLP, id="the-other-folders-common"),
        pytest.param("bench/pkg/bench_pkg.py", REDUCE, id="a-package-file-looks-from-its-packages-folder"),
    ],
)
def test_a_bare_import_reads_the_module_beside_the_file(path: str, found: ClassRef) -> None:
    p = project(SCRIPTS)
    mi = p.at(path)
    assert mi is not None
    assert p.resolve_in(mi, "Kernel") == found
    module = mi.imports["common"]
    assert p.resolve_name(module.module, "Kernel") == found
    assert p.resolve_name(mi.star_imports[0], "Kernel") == found


def test_a_bare_name_is_the_top_level_module_before_a_script_folders() -> None:
    p = project(SCRIPTS)
    assert p.path_of("utils") == "utils.py"
    assert p.path_of("tools.x.utils") == "tools/x/utils.py"
    mi = p.at("tools/run.py")  # tools/ has no utils.py: the top-level one
    assert mi is not None
    assert p.resolve_in(mi, "Helper") == SUM


def test_a_file_with_no_import_from_its_folder_is_read_as_parsed() -> None:
    p = project(SCRIPTS)
    raw = p.cache.get("tools/run.py", p.module_name("tools/run.py"), SCRIPTS["tools/run.py"].encode())
    assert p.at("tools/run.py") is raw


def test_a_bare_name_several_script_folders_share_names_none_of_them() -> None:
    # bench/attn/common.py and bench/norm/common.py are both `common`: from anywhere else, which one an
    # import reads depends on sys.path, so neither is guessed.
    p = project({k: v for k, v in SCRIPTS.items() if k != "bench/common.py"})
    assert p.path_of("common") is None
    assert p.path_of("bench.attn.common") == "bench/attn/common.py"
    assert p.path_of("tools.x.utils") == "tools/x/utils.py"
    mi = p.at("bench/attn/bench_attn.py")  # from its own folder: its common.py
    assert mi is not None and p.resolve_in(mi, "Kernel") == SUM


def test_a_name_aliased_to_itself_resolves_to_nothing() -> None:
    # mmcv's utils/path.py: `FileNotFoundError = FileNotFoundError` (a builtin kept importable) sent the
    # resolution round the alias until RecursionError, exit 3.
    p = project(
        {"lib/__init__.py": "", "lib/path.py": "FileNotFoundError = FileNotFoundError\nA = B\nB = A\n"}
    )
    assert p.resolve_name("lib.path", "FileNotFoundError") is None
    assert p.resolve_name("lib.path", "A") is None


def test_a_stand_in_for_another_platform_is_not_the_class() -> None:
    # mmcv 7cfc839e: the real SyncBatchNorm under `if dist.is_available()`, a `(*args, **kwargs)` stand-in
    # that raises under `else`. Read as the class, the stand-in made `SyncBatchNorm(3, group=g)` "shift".
    src = (
        b"import os\nif os.name != 'nt':\n    class BN:\n        def __init__(self, n, group=None):\n"
        b"            self.n = n\nelse:\n    class BN:\n        def __init__(self, *args, **kwargs):\n"
        b"            raise NotImplementedError\n"
    )
    mi = parse_source(src, "lib/bn.py", "lib.bn")
    init = mi.classes["BN"].init
    assert init is not None and [p.name for p in init.params] == ["n", "group"]


def test_a_class_with_only_new_is_called_as_new_takes() -> None:
    # diffusers 18c8f10: a deprecation shim, `__new__(cls, *args, **kwargs)` returning another class's object.
    # Read as `object()`, taking nothing, every argument of a call that works was dropped.
    mi = parse_source(
        b"class Shim:\n    def __new__(cls, *args, **kwargs):\n        return Real(*args, **kwargs)\n",
        "lib/shim.py",
        "lib.shim",
    )
    init = mi.classes["Shim"].init
    assert init is not None and init.is_passthrough


@pytest.mark.parametrize(
    "init",
    [
        "def __getattr__(name):\n    if name == 'Output':\n        from .output import Output\n\n"
        "        return Output\n    raise AttributeError(name)\n",
        "import sys\n_import_structure = {'checker': []}\n_import_structure['output'] = ['Output']\n"
        "sys.modules[__name__] = _LazyModule(__name__, _import_structure)\n",
    ],
)
def test_a_lazy_module_provides_what_it_loads_on_access(init: str) -> None:
    # diffusers b6e0b01: classes moved to submodules that the package provides lazily (`_LazyModule`, or a
    # PEP 562 `__getattr__`). `from pkg.sd import Output` still works; read as gone, a multi-name import of
    # it was a hand edit.
    p = project(
        {"lib/__init__.py": "", "lib/sd/__init__.py": init, "lib/sd/output.py": "class Output:\n    pass\n"}
    )
    assert p.resolve_name("lib.sd", "Output") == ClassRef("lib.sd.output", "Output")
    assert p.resolve_name("lib.sd", "Missing") is None
