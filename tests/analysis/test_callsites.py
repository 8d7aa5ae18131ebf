"""The call-site interpreter on small sources, in process: which Op classes reach which call, how, under
which guard, with which splats; and its parts (scopes, evaluation, splats) on their own."""

from __future__ import annotations

import ast

import pytest

from benchop_hook.analysis.callsites import (
    UNKNOWN,
    Arg,
    ArgKind,
    CallSite,
    Gone,
    Instance,
    ModuleAnalyzer,
    char_col,
)
from benchop_hook.analysis.callsites.evaluation import Evaluator
from benchop_hook.analysis.callsites.model import CONSTANT, Atom, Unknown
from benchop_hook.analysis.callsites.scopes import ScopeTree, local_binding
from benchop_hook.analysis.callsites.splats import SplatReader
from benchop_hook.analysis.locate import analyze
from benchop_hook.analysis.modules import ClassRef, ModuleInfo, ModuleRef, ParseCache, parse_source
from benchop_hook.analysis.project import Project
from benchop_hook.git.snapshots import Snapshot


class Files(Snapshot):
    """A repository version as a dict of path -> source."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def paths(self) -> list[str]:
        return sorted(self.files)

    def read(self, path: str) -> bytes | None:
        text = self.files.get(path)
        return None if text is None else text.encode()


OPS = (
    "class Op:\n    pass\n\n\n"
    "class SumOp(Op):\n    def __init__(self, m, n, dtype):\n        pass\n\n"
    "    def forward(self, x):\n        pass\n\n\n"
    "class MeanOp(Op):\n    def __init__(self, m, n, dtype):\n        pass\n"
)
LIB = {"lib/__init__.py": "from lib.ops import SumOp, MeanOp\n", "lib/ops.py": OPS}
BENCH = "benchmarks/bench_x.py"
HEAD = "import pytest\nfrom lib.ops import SumOp, MeanOp\n\n"
SUM = ClassRef("lib.ops", "SumOp")
MEAN = ClassRef("lib.ops", "MeanOp")


def project(files: dict[str, str]) -> Project:
    return Project(Files(files), ParseCache(), lambda p: p.startswith("lib/"), ["Op"])


def sites(src: str, old_lib: dict[str, str] | None = None) -> list[CallSite]:
    """Every call site the analyzer reports in `src` as the benchmark file of a repository with LIB (and,
    when given, `old_lib` as the previous version)."""
    new_p = project({**LIB, BENCH: src})
    old_p = project({**old_lib, BENCH: src}) if old_lib is not None else None
    return list(analyze(BENCH, src.encode(), new_p, old_p).calls())


def only(src: str) -> CallSite:
    found = sites(src)
    assert len(found) == 1, found
    return found[0]


def names(site: CallSite) -> set[str]:
    return {a.name for a in site.classes}


# (id, source, the one call site's via, the classes that reach it)
REACH = [
    ("direct", HEAD + "SumOp(1, 2, 'f')\n", "direct", {"SumOp"}),
    ("imported-under-another-name", "from lib.ops import SumOp as S\nS(1, 2, 'f')\n", "alias", {"SumOp"}),
    ("re-exported-by-the-package", "from lib import MeanOp\nMeanOp(1, 2, 'f')\n", "direct", {"MeanOp"}),
    ("module-attribute", "import lib.ops\nlib.ops.SumOp(1, 2, 'f')\n", "module", {"SumOp"}),
    ("module-imported-from-package", "from lib import ops\nops.MeanOp(1, 2, 'f')\n", "module", {"MeanOp"}),
    ("local-alias", HEAD + "def test():\n    cls = SumOp\n    cls(1, 2, 'f')\n", "alias", {"SumOp"}),
    (
        "dict-literal-and-subscript",
        HEAD + "TABLE = {'sum': SumOp, 'mean': MeanOp}\n\n\ndef test(kind):\n    cls = TABLE[kind]\n"
        "    cls(1, 2, 'f')\n",
        "dict",
        {"SumOp", "MeanOp"},
    ),
    (
        "dict-subscript-with-a-constant-key",
        HEAD + "TABLE = {'sum': SumOp, 'mean': MeanOp}\n\n\ndef test():\n    cls = TABLE['mean']\n"
        "    cls(1, 2, 'f')\n",
        "dict",
        {"MeanOp"},
    ),
    (
        "list-literal-index",
        HEAD + "CLASSES = [SumOp, MeanOp]\n\n\ndef test():\n    cls = CLASSES[1]\n    cls(1, 2, 'f')\n",
        "dict",
        {"MeanOp"},
    ),
    ("for-loop", HEAD + "for cls in [SumOp, MeanOp]:\n    cls(1, 2, 'f')\n", "loop", {"SumOp", "MeanOp"}),
    (
        "for-loop-over-rows",
        HEAD + "def test():\n    for m, cls in [(1, SumOp), (2, MeanOp)]:\n        cls(m, 2, 'f')\n",
        "loop",
        {"SumOp", "MeanOp"},
    ),
    (
        "for-loop-over-dict-values",
        HEAD
        + "TABLE = {'sum': SumOp}\n\n\ndef test():\n    for cls in TABLE.values():\n        cls(1, 2, 'f')\n",
        "loop",
        {"SumOp"},
    ),
    (
        "parametrize-one-name",
        HEAD + "@pytest.mark.parametrize('cls', [SumOp, MeanOp])\ndef test(cls):\n    cls(1, 2, 'f')\n",
        "parametrize",
        {"SumOp", "MeanOp"},
    ),
    (
        "parametrize-rows-and-pytest-param",
        HEAD + "@pytest.mark.parametrize('m, cls', [(1, SumOp), pytest.param(2, MeanOp, id='mean')])\n"
        "def test(m, cls):\n    cls(m, 2, 'f')\n",
        "parametrize",
        {"SumOp", "MeanOp"},
    ),
    (
        "fixture-class-params",
        HEAD + "class Fix:\n    PARAMS = [('m, cls', [(1, SumOp)])]\n\n\n@Fix\ndef test(m, cls):\n"
        "    cls(m, 2, 'f')\n",
        "parametrize",
        {"SumOp"},
    ),
    (
        "fixture-subclass-get-params",
        HEAD + "class Base:\n    @classmethod\n    def get_params(cls):\n        rows = [(1, MeanOp)]\n"
        "        return [('m, op_cls', rows)]\n\n\nclass Fix(Base):\n    pass\n\n\n@Fix\n"
        "def test(m, op_cls):\n    op_cls(m, 2, 'f')\n",
        "parametrize",
        {"MeanOp"},
    ),
    (
        "helper-parameter-one-level",
        HEAD + "def build(cls, m):\n    return cls(m, 2, 'f')\n\n\ndef test():\n    build(SumOp, 1)\n"
        "    build(m=2, cls=MeanOp)\n",
        "helper",
        {"SumOp", "MeanOp"},
    ),
    (
        "helper-returning-a-built-list",
        HEAD + "def rows():\n    out = [SumOp]\n    out.append(MeanOp)\n    return out\n\n\n"
        "@pytest.mark.parametrize('cls', rows())\ndef test(cls):\n    cls(1, 2, 'f')\n",
        "parametrize",
        {"SumOp", "MeanOp"},
    ),
    (
        "import-inside-the-function",
        "def test():\n    from lib.ops import SumOp as S\n    S(1, 2, 'f')\n",
        "alias",
        {"SumOp"},
    ),
    (
        "if-expression",
        HEAD + "def test(flag):\n    cls = SumOp if flag else MeanOp\n    cls(1, 2, 'f')\n",
        "alias",
        {"SumOp", "MeanOp"},
    ),
    (
        "a-benchmark-subclass-building-its-base",
        HEAD + "class Mine(SumOp):\n    def __init__(self, m):\n        super().__init__(m, 2, 'f')\n",
        "direct",
        {"SumOp"},
    ),
    (
        "the-same-with-super-spelled-out",
        HEAD
        + "class Mine(MeanOp):\n    def __init__(self, m):\n        super(Mine, self).__init__(m, 2, 'f')\n",
        "direct",
        {"MeanOp"},
    ),
]


@pytest.mark.parametrize("src, via, classes", [pytest.param(*c[1:], id=c[0]) for c in REACH])
def test_which_classes_reach_a_call_and_how(src: str, via: str, classes: set[str]) -> None:
    site = only(src)
    assert (site.via, names(site), site.method) == (via, classes, None)
    assert UNKNOWN not in site.atoms


# (id, source): no Op reaches any call here, so nothing is reported.
NOTHING = [
    ("no-op-class", "import math\nmath.sqrt(2)\nprint(len([1]))\n"),
    ("a-name-rebound-to-something-else", HEAD + "def test():\n    SumOp = dict\n    SumOp(a=1)\n"),
    (
        "a-class-body-name-is-not-seen-in-its-methods",
        HEAD + "class T:\n    cls = SumOp\n\n    def test(self):\n        cls(1)\n",
    ),
    ("a-parameter-nobody-passes", "def test(cls):\n    cls(1, 2, 'f')\n"),
    (
        "super-with-two-bases-the-mro-decides",
        HEAD + "class Mine(SumOp, MeanOp):\n    def __init__(self):\n        super().__init__(1, 2, 'f')\n",
    ),
    (
        "super-outside-a-method-of-the-class",
        HEAD + "class Mine(SumOp):\n    def __init__(self):\n        def f():\n"
        "            super().__init__(1, 2, 'f')\n",
    ),
]


@pytest.mark.parametrize("src", [pytest.param(c[1], id=c[0]) for c in NOTHING])
def test_calls_no_op_reaches_are_not_reported(src: str) -> None:
    assert sites(src) == []


def test_a_value_it_cannot_follow_is_unknown_beside_the_classes() -> None:
    site = only(HEAD + "def test(flag):\n    cls = SumOp if flag else make()\n    cls(1, 2, 'f')\n")
    assert site.classes == {SUM}
    assert UNKNOWN in site.atoms
    assert isinstance(UNKNOWN, Unknown) and not isinstance(UNKNOWN, str)


def test_a_with_target_and_an_augmented_name_are_unknown() -> None:
    src = HEAD + "def test(ctx):\n    with ctx as cls:\n        pass\n    cls = SumOp\n    cls(1, 2, 'f')\n"
    assert only(src).atoms == {SUM, UNKNOWN}
    src = HEAD + "def test():\n    cls = SumOp\n    cls += 1\n    cls(1, 2, 'f')\n"
    assert only(src).atoms == {SUM, UNKNOWN}


def test_a_star_in_a_row_hides_the_positions_after_it() -> None:
    src = (
        HEAD
        + "@pytest.mark.parametrize('m, cls', [(*SHAPE, SumOp)])\ndef test(m, cls):\n    cls(m, 2, 'f')\n"
    )
    assert sites(src) == []  # only UNKNOWN reaches `cls(...)`
    src = (
        HEAD
        + "@pytest.mark.parametrize('cls, m', [(SumOp, *SHAPE)])\ndef test(cls, m):\n    cls(m, 2, 'f')\n"
    )
    assert names(only(src)) == {"SumOp"}


def test_calls_on_an_instance_reach_its_methods() -> None:
    found = sites(HEAD + "def test(x):\n    op = SumOp(1, 2, 'f')\n    op.forward(x)\n    op(x)\n")
    by_line = {s.lineno: s for s in found}
    assert (by_line[5].method, by_line[5].via, by_line[5].classes) == (None, "direct", frozenset({SUM}))
    assert (by_line[6].method, by_line[6].via, by_line[6].atoms) == ("forward", "instance", {Instance(SUM)})
    assert (by_line[7].method, by_line[7].via) == ("__call__", "instance")


def test_a_name_that_only_the_old_version_had_is_gone() -> None:
    src = "from lib.ops import OldOp\nOldOp(1)\n"
    assert sites(src) == []  # without the old version, nothing known reaches it
    old_lib = {"lib/__init__.py": "", "lib/ops.py": OPS + "\n\nclass OldOp(Op):\n    pass\n"}
    (site,) = sites(src, old_lib=old_lib)
    assert site.atoms == {Gone(ClassRef("lib.ops", "OldOp"))}


# -- guards: the conditions a call runs under

TABLE = HEAD + "TABLE = {'sum': SumOp, 'mean': MeanOp}\n\n\n"


@pytest.mark.parametrize(
    "body, classes",
    [
        pytest.param("    if kind in ('sum',):\n        cls(1, 2, 'f')\n", {"SumOp"}, id="in-a-tuple"),
        pytest.param("    if kind == 'mean':\n        cls(1, 2, 'f')\n", {"MeanOp"}, id="equal"),
        pytest.param("    if kind != 'mean':\n        cls(1, 2, 'f')\n", {"SumOp"}, id="not-equal"),
        pytest.param(
            "    if kind == 'mean':\n        pass\n    else:\n        cls(1, 2, 'f')\n",
            {"SumOp"},
            id="else-branch",
        ),
        pytest.param(
            "    if kind == 'sum':\n        return\n    cls(1, 2, 'f')\n", {"MeanOp"}, id="early-return"
        ),
        pytest.param(
            "    if kind not in ('sum', 'mean'):\n        cls(1, 2, 'f')\n",
            {"SumOp", "MeanOp"},
            id="none-left",
        ),
    ],
)
def test_a_guard_on_the_tables_key_narrows_the_classes(body: str, classes: set[str]) -> None:
    site = only(TABLE + "def test(kind):\n    cls = TABLE[kind]\n" + body)
    # (a guard that lets nothing through leaves the classes as they were: no call is ever dropped)
    assert names(site) == classes
    assert (site.guard, site.conditional) == (None, True)


def test_a_guard_that_names_the_callee_is_reported() -> None:
    site = only(
        TABLE + "def test(kind, inspect):\n    cls = TABLE[kind]\n"
        "    if 'm' in inspect.signature(cls).parameters:\n        cls(1, 2, 'f')\n"
    )
    assert site.guard == "under `if 'm' in inspect.signature(cls).parameters`"
    assert names(site) == {"SumOp", "MeanOp"}


def test_a_try_that_catches_type_error_is_a_guard() -> None:
    for handler in ("except TypeError:", "except (ValueError, Exception):", "except:"):
        site = only(HEAD + f"def test():\n    try:\n        SumOp(1, 2, 'f')\n    {handler}\n        pass\n")
        assert (site.guard, site.conditional) == ("inside a try that catches TypeError", True), handler
    site = only(
        HEAD + "def test():\n    try:\n        SumOp(1, 2, 'f')\n    except KeyError:\n        pass\n"
    )
    assert (site.guard, site.conditional) == (None, False)


def test_a_condition_that_does_not_name_the_callee_only_makes_the_call_conditional() -> None:
    site = only(HEAD + "def test(flag):\n    if flag:\n        SumOp(1, 2, 'f')\n")
    assert (site.guard, site.conditional) == (None, True)
    site = only(HEAD + "def test(flag):\n    SumOp(1, 2, 'f')\n")
    assert (site.guard, site.conditional) == (None, False)


# -- arguments and splats


def test_arguments_keep_their_kind_and_written_order() -> None:
    site = only(HEAD + "def test(a, k):\n    SumOp(1, *a, dtype=f, **k)\n")
    assert site.args == (
        Arg("pos", None, "1"),
        Arg("star", None, "a"),
        Arg("kw", "dtype", "f"),
        Arg("dstar", None, "k"),
    )
    assert site.splat_name == "k"
    assert site.expanded_args is None  # `a` and `k` are parameters: unknown


# (id, call and what comes before it in `test()`, splat_dict, splat_star, expanded (kind, keyword, source))
LITERAL_SPLATS = [
    (
        "inline-dict",
        "SumOp(1, **{'n': 2, 'dtype': 'f'})",
        (("n", "2"), ("dtype", "'f'")),
        None,
        [("pos", None, "1"), ("kw", "n", "2"), ("kw", "dtype", "'f'")],
    ),
    (
        "dict-call",
        "kw = dict(n=2, dtype='f')\n    SumOp(1, **kw)",
        (("n", "2"), ("dtype", "'f'")),
        None,
        [("pos", None, "1"), ("kw", "n", "2"), ("kw", "dtype", "'f'")],
    ),
    (
        "dict-extended-by-literal-keys",
        "kw = {'n': 2}\n    kw['dtype'] = 'f'\n    SumOp(1, **kw)",
        (("n", "2"), ("dtype", "'f'")),
        None,
        [("pos", None, "1"), ("kw", "n", "2"), ("kw", "dtype", "'f'")],
    ),
    (
        "tuple-bound-once",
        "shape = (1, 2)\n    SumOp(*shape, dtype='f')",
        None,
        ("1", "2"),
        [("pos", None, "1"), ("pos", None, "2"), ("kw", "dtype", "'f'")],
    ),
    (
        "star-written-after-a-keyword",
        "SumOp(dtype='f', *[1, 2])",
        None,
        ("1", "2"),
        [("pos", None, "1"), ("pos", None, "2"), ("kw", "dtype", "'f'")],
    ),
]


@pytest.mark.parametrize(
    "call, splat_dict, splat_star, expanded", [pytest.param(*c[1:], id=c[0]) for c in LITERAL_SPLATS]
)
def test_literal_splats_are_expanded(
    call: str,
    splat_dict: tuple[tuple[str, str], ...] | None,
    splat_star: tuple[str, ...] | None,
    expanded: list[tuple[ArgKind, str | None, str]],
) -> None:
    site = only(HEAD + "def test():\n    " + call + "\n")
    assert (site.splat_dict, site.splat_star, site.opaque) == (splat_dict, splat_star, None)
    assert site.expanded_args == tuple(Arg(*a) for a in expanded)


# (id, the body of `test(shape, kw)`, why the splat can't be seen)
OPAQUE_SPLATS = [
    ("result-of-a-call", "    SumOp(*make())\n", "*make(): the result of a call"),
    ("a-parameter", "    SumOp(*shape)\n", "*shape: a parameter"),
    ("bound-to-a-call", "    d = build()\n    SumOp(**d)\n", "**d: the result of build()"),
    (
        "changed-in-place",
        "    d = {'m': 1}\n    d.update(n=2)\n    SumOp(**d)\n",
        "**d: its contents are not fully visible",
    ),
    (
        "passed-elsewhere",
        "    d = {'m': 1}\n    log(d)\n    SumOp(**d)\n",
        "**d: its contents are not fully visible",
    ),
    (
        "a-list-that-may-change",
        "    s = [1, 2]\n    f(s)\n    SumOp(*s)\n",
        "*s: its contents are not fully visible",
    ),
    ("a-global", "    SumOp(**CONFIG)\n", "**CONFIG: defined elsewhere"),
    ("not-a-name", "    SumOp(**self_.kw)\n", "**self_.kw: built where bench-op can't see"),
    ("a-lambda-parameter", "    f = lambda kw: SumOp(**kw)\n", "**kw: a parameter of a lambda"),
]


@pytest.mark.parametrize("body, reason", [pytest.param(*c[1:], id=c[0]) for c in OPAQUE_SPLATS])
def test_an_opaque_splat_says_why(body: str, reason: str) -> None:
    site = only(HEAD + "def test(shape, kw):\n" + body)
    assert site.opaque == reason
    assert site.expanded_args is None


def test_with_both_splats_the_dict_is_not_expanded_and_is_named_first() -> None:
    site = only(HEAD + "def test():\n    kw = {'m': 1}\n    SumOp(*make(), **kw)\n")
    assert (site.splat_dict, site.splat_star) == (None, None)
    assert site.opaque == "**kw: its contents are not fully visible"
    site = only(HEAD + "def test():\n    SumOp(*(1, 2), **{'dtype': 'f'})\n")
    assert (site.splat_dict, site.splat_star, site.opaque) == (
        None,
        ("1", "2"),
        "**{'dtype': 'f'}: built where bench-op can't see",
    )


def test_a_parametrized_splat_says_so() -> None:
    site = only(
        HEAD + "@pytest.mark.parametrize('shape', [(1, 2)])\ndef test(shape):\n    SumOp(*shape, 'f')\n"
    )
    assert site.opaque == "*shape: a parameter (from pytest parametrize)"


# -- where the call is


def test_positions_are_character_columns_and_the_enclosing_test() -> None:
    src = HEAD + "class TestOps:\n    def test_sum(self):\n        x = 'é'; SumOp(1, 2, x)\n"
    site = only(src)
    line = src.splitlines()[site.lineno - 1]
    assert line[site.col : site.end_col] == "SumOp(1, 2, x)"
    assert (site.function, site.qualfunction, site.func_source) == ("test_sum", "TestOps::test_sum", "SumOp")
    assert char_col(["é = 1"], 1, 3) == 2  # 'é' is two bytes


def test_names_visible_at_the_call_are_those_bound_before_it() -> None:
    site = only(HEAD + "G = 1\n\n\ndef test(p):\n    before = 1\n    SumOp(p, before, G)\n    after = 2\n")
    assert {"p", "before", "G", "SumOp", "MeanOp", "pytest"} <= site.scope_names
    assert "after" not in site.scope_names


# -- the parts on their own


def module(src: str, path: str = "bench.py") -> tuple[ModuleInfo, bytes]:
    data = src.encode()
    return parse_source(data, path, path[:-3].replace("/", ".")), data


def test_scope_tree_records_scopes_bindings_and_parents() -> None:
    mi, _ = module(
        "import os\nX = 1\n\n\nclass T:\n    Y = 2\n\n"
        "    def m(self, a):\n        b = [a]\n        return b\n"
    )
    tree = ScopeTree(mi)
    assert mi.tree is not None
    cls = mi.tree.body[2]
    assert isinstance(cls, ast.ClassDef)
    method = cls.body[1]
    assert isinstance(method, ast.FunctionDef)
    ret = method.body[1]
    inner = tree.scope_of(ret)
    assert inner.node is method and inner.params == ["self", "a"] and "b" in inner.assigns
    assert tree.scopes[cls].is_class and inner.up() is tree.module_scope  # the class body is skipped
    assert tree.lookup("X", inner) is tree.module_scope and tree.lookup("Y", inner) is None
    assert tree.parents[ret] is method
    assert tree.enclosing_function(ret) == ("m", "T::m")


def test_local_binding_is_the_one_plain_assignment() -> None:
    fn = ast.parse(
        "def f(p):\n    a = {'x': 1}\n    b = 1\n    b = 2\n    p = 3\n    c: dict = {}\n    d: dict\n"
    ).body[0]
    value = local_binding(fn, "a", ["p"])
    assert isinstance(value, ast.Dict)
    assert isinstance(local_binding(fn, "c", ["p"]), ast.Dict)  # annotated
    assert local_binding(fn, "d", ["p"]) is None  # annotated, no value
    assert local_binding(fn, "b", ["p"]) is None  # bound twice
    assert local_binding(fn, "p", ["p"]) is None  # a parameter


def test_the_evaluator_resolves_through_the_functions_it_is_given() -> None:
    mi, _ = module("import lib\nfrom lib import A\nT = {'a': A, 'n': 3}\nx = T['a']\ny = lib.B\nz = T['n']\n")
    asked: list[tuple[str, str]] = []
    known: dict[str, Atom] = {"A": ClassRef("lib", "A"), "lib": ModuleRef("lib")}

    def resolve(m: ModuleInfo, name: str) -> Atom | None:
        asked.append(("name", name))
        return known.get(name)

    def resolve_attr(module_name: str, attr: str) -> Atom | None:
        asked.append((module_name, attr))
        return ClassRef(module_name, attr) if attr == "B" else None

    tree = ScopeTree(mi)
    ev = Evaluator(tree, resolve, resolve_attr)
    scope = tree.module_scope
    assert ev.eval(ast.Name(id="x"), scope) == {ClassRef("lib", "A")}
    assert ev.eval(ast.Name(id="y"), scope) == {ClassRef("lib", "B")}
    assert ev.eval(ast.Name(id="z"), scope) == {CONSTANT}
    assert ev.eval(ast.Name(id="nowhere"), scope) == {UNKNOWN}
    assert ("lib", "B") in asked


def test_the_splat_reader_on_its_own() -> None:
    src = "def f():\n    d = {'m': 1}\n    d['n'] = g(2)\n    return Op(**d)\n"
    mi, data = module(src)
    tree = ScopeTree(mi)
    analyzer = ModuleAnalyzer(mi, data, lambda m, n: None, lambda m, n: None)
    reader = SplatReader(tree, analyzer.segment)
    assert mi.tree is not None
    call = next(n for n in ast.walk(mi.tree) if isinstance(n, ast.Call) and analyzer.segment(n.func) == "Op")
    assert isinstance(call, ast.Call)
    assert reader.literal_dict(call, tree.scope_of(call)) == [("m", "1"), ("n", "g(2)")]
    assert reader.opaque_reason("**", call.keywords[0].value, tree.module_scope) == "**d: defined elsewhere"


@pytest.mark.parametrize(
    "src",
    [
        "import functools\nfrom lib.ops import SumOp\nmake = functools.partial(SumOp, 1, dtype='f')\n"
        "make(2)\n",
        "from functools import partial\nfrom lib.ops import SumOp\nmake = partial(SumOp, 1, dtype='f')\n"
        "make(2)\n",
    ],
    ids=["functools.partial", "partial"],
)
def test_a_functools_partial_of_an_op_is_a_call_whose_rest_nobody_sees(src: str) -> None:
    site = only(src)  # the partial; the call of `make` reaches no class the interpreter can name
    assert site.via == "partial" and names(site) == {"SumOp"} and site.lineno == 3
    assert site.expanded_args is None and site.opaque is not None
    assert [(a.kind, a.keyword, a.source) for a in site.args if a.kind in ("pos", "kw")] == [
        ("pos", None, "1"),
        ("kw", "dtype", "'f'"),
    ]


def test_a_partial_is_no_example_of_how_a_call_is_written() -> None:
    from benchop_hook.analysis.evidence import TestEvidence

    src = "from functools import partial\nfrom lib.ops import SumOp\n\npartial(SumOp, 1)(2, 'f')\n"
    src += "SumOp(1, 2, 'f')\n"
    p = project({**LIB, "tests/test_x.py": src})
    ev = TestEvidence(p, p, ["tests/test_x.py"], [])
    assert sorted(s.via for s in analyze("tests/test_x.py", src.encode(), p).calls()) == ["direct", "partial"]
    assert [s.via for s in ev.sites_of(("new", "tests/test_x.py"))] == ["direct"]


WRAPPER = (
    "import torch\nfrom lib.ops import SumOp\n\n\nclass Wrapper{bases}:\n    def __init__(self, m):\n"
    "        self.op = SumOp(m, 2, 'f')\n{extra}\n    def forward(self, x):\n        return self.op(x)\n"
)


def test_an_op_a_class_keeps_on_self_is_called_through_it() -> None:
    # Liger's benchmarks wrap the kernel in a module: `self.op = Op(...)` in __init__, `self.op(x)` in
    # forward.
    found = [s for s in sites(WRAPPER.format(bases="(torch.nn.Module)", extra="")) if s.method is not None]
    assert len(found) == 1
    site = found[0]
    assert site.method == "__call__" and site.via == "instance" and site.atoms == {Instance(SUM)}
    assert site.lineno == 10


@pytest.mark.parametrize(
    "bases, extra",
    [
        pytest.param("(Base)", "", id="a-base-class-may-bind-it"),
        pytest.param("", "    def reset(self, op):\n        self.op = op\n", id="also-bound-to-a-parameter"),
        pytest.param("", "    def more(self):\n        self.op += 1\n", id="augmented"),
        pytest.param("", "    def swap(self, o):\n        self.op, self.x = o\n", id="unpacked"),
        pytest.param("", "    def load(self, o):\n        setattr(self, 'op', o)\n", id="setattr"),
        pytest.param("", "    op = None\n", id="bound-in-the-class-body"),
    ],
)
def test_an_attribute_on_self_with_a_binding_bench_op_cant_follow_stays_unknown(
    bases: str, extra: str
) -> None:
    src = "class Base:\n    pass\n\n\n" + WRAPPER.format(bases=bases, extra=extra)
    assert [s for s in sites(src) if s.method is not None] == []


FACTORY = (
    "class Op:\n    pass\n\n\nclass Ctx(Op):\n    def __init__(self, cap=0):\n        pass\n\n"
    "    @classmethod\n    def create(cls, buf, cap=4096):\n        return cls(cap)\n\n"
    "    @staticmethod\n    def make(buf):\n        return Ctx()\n\n"
    "    def plain(self, buf):\n        pass\n"
)


def test_a_classmethod_called_on_its_class_is_a_method_call() -> None:
    # quack 80ec8999: TraceContext.create(ptr, region_names=...) lost region_names; the call was invisible.
    src = "from lib.ctx import Ctx\n\nCtx.create(1, cap=8)\nCtx.make(1)\nCtx.plain(Ctx(), 1)\n"
    new_p = project({**LIB, "lib/ctx.py": FACTORY, BENCH: src})
    found = {s.lineno: s for s in analyze(BENCH, src.encode(), new_p).calls() if s.method is not None}
    ctx = ClassRef("lib.ctx", "Ctx")
    assert found[3].method == "create" and found[3].atoms == {Instance(ctx)}
    assert found[4].method == "make"
    assert 5 not in found  # a plain method called on the class takes its object first: not read as one
