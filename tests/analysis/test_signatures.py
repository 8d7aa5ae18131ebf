"""Signatures read from `ast`: parameters, their kinds, defaults as written, and what a dataclass's
synthesized `__init__` takes."""

from __future__ import annotations

import ast

import pytest

from benchop_hook.analysis.signatures import (
    Kind,
    Param,
    Segments,
    dataclass_info,
    dataclass_signature,
    free_names,
    from_function,
    same_default,
)


def function(src: str) -> ast.FunctionDef:
    fn = ast.parse(src).body[0]
    assert isinstance(fn, ast.FunctionDef)
    return fn


def test_from_function_reads_kinds_defaults_and_annotations() -> None:
    src = "def __init__(self, a, /, b: int = 1e-6, *args, c, d=(1, 2), **kw: str): pass\n"
    sig = from_function(function(src), segments=Segments(src.encode()))
    assert sig.params == (
        Param("a", Kind.POSITIONAL_ONLY),
        Param("b", Kind.POSITIONAL_OR_KEYWORD, "1e-6", "int"),  # as written, not ast.unparse's 1e-06
        Param("args", Kind.VAR_POSITIONAL),
        Param("c", Kind.KEYWORD_ONLY),
        Param("d", Kind.KEYWORD_ONLY, "(1, 2)"),
        Param("kw", Kind.VAR_KEYWORD, None, "str"),
    )
    assert sig.render() == "(a, /, b=1e-6, *args, c, d=(1, 2), **kw)"
    assert [p.name for p in sig.positional] == ["a", "b"]
    assert sig.get("args") is None and sig.get("c") is not None  # variadics are not looked up by name
    assert from_function(function(src)).get("b") == Param("b", Kind.POSITIONAL_OR_KEYWORD, "1e-06", "int")


def test_self_is_dropped_only_when_asked() -> None:
    fn = function("def run(self, x): pass\n")
    assert from_function(fn).render() == "(x)"
    assert from_function(fn, drop_first=False).render() == "(self, x)"
    assert from_function(function("def __init__(self, *args, **kwargs): pass\n")).is_passthrough


def test_a_multi_line_default_is_normalised() -> None:
    src = "def f(self, x=(1,\n        2)): pass\n"
    assert Segments(src.encode()).of(function(src).args.defaults[0]) is None
    assert from_function(function(src), segments=Segments(src.encode())).render() == "(x=(1, 2))"


def test_dataclass_fields_and_their_synthesized_init() -> None:
    src = (
        "@dataclass(kw_only=False)\nclass A:\n    m: int\n    n: 'ClassVar[int]' = 3\n"
        "    k: int = field(default=2, kw_only=True)\n    s: list = field(default_factory=list)\n"
    )
    node = ast.parse(src).body[0]
    assert isinstance(node, ast.ClassDef)
    info = dataclass_info(node)
    assert info is not None and info.init
    assert [p.render() for p in info.fields] == ["m", "k=2", "s=list()"]
    assert dataclass_signature([info.fields]).render() == "(m, s=list(), *, k=2)"
    plain = ast.parse("class B:\n    m: int\n").body[0]
    assert isinstance(plain, ast.ClassDef) and dataclass_info(plain) is None


@pytest.mark.parametrize(
    "a, b, same",
    [
        ("(1, 2)", "(1,2)", True),
        ("1e-6", "1e-06", True),
        ("None", None, False),
        (None, None, True),
        ("x", "y", False),
    ],
)
def test_same_default_compares_meaning(a: str | None, b: str | None, same: bool) -> None:
    assert same_default(a, b) is same


def test_free_names() -> None:
    assert free_names("torch.float16") == {"torch"}
    assert free_names("f(a, b=c)") == {"f", "a", "c"}
    assert free_names("(") == {"?"}


@pytest.mark.parametrize(
    "source",
    [
        # The old name kept last as a None placeholder, mapped by the decorator (MONAI 7cfc8ea3c).
        "@deprecated_arg(name='dimensions', new_name='spatial_dims')\n"
        "def f(self, spatial_dims, k=1, dimensions=None):\n    pass\n",
        # No new_name: the body hands the value over first thing (MONAI NCCLoss).
        "@deprecated_arg(name='dimensions', since='0.6')\n"
        "def f(self, spatial_dims, k=1, dimensions=None):\n    if dimensions is not None:\n"
        "        spatial_dims = dimensions\n",
    ],
)
def test_a_deprecated_placeholder_is_an_alias_of_its_successor(source: str) -> None:
    sig = from_function(ast.parse(source).body[0])  # type: ignore[arg-type]
    assert sig.render() == "(spatial_dims, k=1)"
    assert sig.aliases == (("dimensions", "spatial_dims"),)


def test_a_trailing_none_parameter_no_decorator_names_stays() -> None:
    src = "def f(self, spatial_dims, k=1, dimensions=None):\n    pass\n"
    assert from_function(ast.parse(src).body[0]).render() == "(spatial_dims, k=1, dimensions=None)"  # type: ignore[arg-type]
