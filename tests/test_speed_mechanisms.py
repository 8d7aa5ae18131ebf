"""The shortcuts taken for speed give the answers the long way gives: pure functions, tested with strings
(and the forked interface check, on a real repository)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from benchop_hook.analysis import renames

OLD_TEST = '''"""SumOp is tested here."""
from tileops.ops import SumOp, MeanOp

# SumOp with a small shape
def test_sum():
    op = SumOp(4, 8)
    ref = MeanOp(4, 8)
    """SumOp in a docstring."""
    return op, ref
'''
NEW_TEST = '''"""SumFwdOp is tested here."""
from tileops.ops import SumFwdOp, MeanFwdOp

# SumFwdOp with a small shape
def test_sum():
    op = SumFwdOp(4, 8)
    ref = MeanFwdOp(4, 8)
    """SumFwdOp in a docstring."""
    return op, ref
'''
UNRELATED_OLD = "x = helper(a, b)\ny = other(a)\n"
UNRELATED_NEW = "x = helper(a, c)\ny = other(c)\n"


def test_votes_for_given_names_are_the_unfiltered_votes_of_those_names():
    files = [(renames.TESTS, OLD_TEST, NEW_TEST), (renames.OTHER, UNRELATED_OLD, UNRELATED_NEW)]
    everything = renames.votes_from(files)
    # The docstring and comment lines are prose: only the import and the two calls vote.
    assert everything[("SumOp", "SumFwdOp")] == {renames.TESTS}
    assert everything[("MeanOp", "MeanFwdOp")] == {renames.TESTS}
    assert ("b", "c") in everything and ("a", "c") in everything
    for olds, news in [
        ({"SumOp"}, {"SumFwdOp"}),
        ({"SumOp", "MeanOp"}, {"MeanFwdOp"}),
        ({"b"}, {"c"}),
        ({"SumOp", "b"}, {"c", "SumFwdOp", "Nothing"}),
        ({"Gone"}, {"SumFwdOp"}),
    ]:
        want = {k: v for k, v in everything.items() if k[0] in olds and k[1] in news}
        assert renames.votes_from(files, olds, news) == want, (olds, news)


def test_a_swap_only_in_prose_is_no_vote():
    old = '"""Uses SumOp."""\n# SumOp below\nx = 1\n'
    new = '"""Uses SumFwdOp."""\n# SumFwdOp below\nx = 1\n'
    assert renames.substitutions(old, new) == []
    assert renames.votes_from([(renames.TESTS, old, new)], {"SumOp"}, {"SumFwdOp"}) == {}


# -- rewriting statement by statement gives the whole-module rewrite, byte for byte and message for message

REWRITE_SRC = '''\ufeff"""A benchmark module.
class NotAClass(Op):
    these lines are in a docstring at column 0
"""
import pytest

from lib import Op, make  # comment


@pytest.mark.parametrize("m, n", [(1, 2), (3, make(4, 5))])
@pytest.mark.parametrize(
    "dtype",
    [Op(1, 2)],
)
def test_a(m, n, dtype):
    op = Op(m, n, dtype)  # keep
    other = Op(
        m,
        n,  # the n
        dtype,
    )
    x = 1; y = Op(m,
                  n)
    def inner():
        return make(Op(1, 2, 3), key=Op(4))
    return op, other, inner, {"m": m, "n": n}


class Bench:
  """Two-space indentation here."""

  def run(self, very_long_argument_name_one, very_long_argument_name_two, dtype):
    return Op(very_long_argument_name_one, very_long_argument_name_two, dtype, tune=True)

  def grow(self, alpha, beta):
    if alpha:
      g = Grow(alpha, beta)
      return g, Grow(alpha)

a = 1; b = Op(1,
              2)
PARAMS = {"m": 1, "n": 2, "dtype": None}
Op(**PARAMS)
'''


def _edits_for(src: bytes):
    import ast

    from benchop_hook.fixing.plan import ArgOp
    from benchop_hook.rewrite.edit import CallEdit, DictEdit

    tree = ast.parse(src)
    lines = src.decode("utf-8-sig").splitlines()
    calls, dicts = [], []
    for node in ast.walk(tree):
        col = len(lines[node.lineno - 1][: node.col_offset]) if hasattr(node, "col_offset") else 0
        if isinstance(node, ast.Call) and node.end_lineno is not None and node.end_col_offset is not None:
            n = len(node.args) + len(node.keywords)
            ops = [ArgOp("drop", 0)] if n else [ArgOp("add_kw", None, "k", "1")]
            if (
                isinstance(node.func, ast.Name) and node.func.id == "Grow"
            ):  # grows past the line length: wrapped
                ops = [ArgOp("add_kw", None, "gamma_parameter", "some_rather_long_value_expression")]
            if len(node.args) > 2 and not node.keywords:
                ops.append(ArgOp("to_kw", len(node.args) - 1, "last"))
            calls.append(CallEdit(node.lineno, col, node.end_lineno, node.end_col_offset, tuple(ops)))
        elif isinstance(node, ast.Dict) and node.keys and isinstance(node.keys[0], ast.Constant):
            dicts.append(
                DictEdit(
                    node.lineno,
                    col,
                    (ArgOp("drop", None, node.keys[0].value), ArgOp("add_kw", None, "z", "0")),
                )
            )
    # One the rewriter can't find (a column off), and one whose dropped argument carries a comment.
    c0 = calls[0]
    calls.append(CallEdit(c0.lineno, c0.col + 1, c0.end_lineno, c0.end_col, c0.ops))
    return calls, dicts


def test_rewrite_by_statement_is_the_whole_module_rewrite():
    import random

    from benchop_hook.rewrite import edit as rw

    rng = random.Random(7)
    for variant in range(3):
        src = REWRITE_SRC if variant != 1 else REWRITE_SRC.lstrip("\ufeff")
        if variant == 2:
            src = src.replace(
                "    op = Op(m, n, dtype)  # keep\n", "    op = Op(  # the op\n        m, n, dtype)\n"
            )
        data = src.encode()
        calls, dicts = _edits_for(data)
        for trial in range(12):
            cs = [c for c in calls if rng.random() < 0.4]
            ds = [d for d in dicts if rng.random() < 0.5]
            if not cs and not ds:
                continue
            for line_length in (None, 40, 88):
                text = data.decode("utf-8-sig")
                layout = (
                    rw.Layout(line_length, rw.file_style(text), tuple(text.splitlines()))
                    if line_length
                    else None
                )
                whole = rw._rewrite_module(data, cs, (), ds, None, layout)
                alone = rw._rewrite_by_statement(data, cs, ds, layout)
                if alone is None:  # only where libcst fails: the whole module's message is the answer
                    assert any(f.startswith(("rewrite failed", "libcst could not")) for f in whole.failed)
                    continue
                assert (alone.data, alone.applied, alone.failed) == (
                    whole.data,
                    whole.applied,
                    whole.failed,
                ), (variant, trial, line_length)
                assert rw.rewrite(data, cs, (), ds, line_length=line_length).data == whole.data


def test_rewrite_by_statement_leaves_what_could_differ_to_the_whole_module():
    from benchop_hook.fixing.plan import ArgOp
    from benchop_hook.rewrite import edit as rw

    edit = [rw.CallEdit(1, 4, 1, 19, (ArgOp("drop", 0),))]
    assert (
        rw._rewrite_by_statement(b"x = Op(M, N, dtype)\r\ny = 2\r\n", edit, [], None) is None
    )  # libcst's newline
    assert (
        rw._rewrite_by_statement(
            b"# -*- coding: latin-1 -*-\nx = Op(M, N, dtype)\n",
            [rw.CallEdit(2, 4, 2, 19, (ArgOp("drop", 0),))],
            [],
            None,
        )
        is None
    )
    assert (
        rw._rewrite_by_statement(b"x = Op(M, N, dtype)\n", [rw.CallEdit(5, 0, 5, 3, ())], [], None) is None
    )  # no statement there
    assert rw.rewrite(b"x = Op(M, N, dtype)\n", edit).data == b"x = Op(N, dtype)\n"


# -- rename hints analyse a changed test file only when a call in it can spell a keyword-only parameter


def _passes_by_keyword(source: str | bytes, names: tuple[str, ...]) -> bool:
    """The long way: a call in the parsed module passes one of `names` as a keyword (Python normalizes it)."""
    import ast

    return any(isinstance(n, ast.keyword) and n.arg in names for n in ast.walk(ast.parse(source)))


def test_keyword_only_parameters_are_the_only_ones_a_file_can_be_ruled_out_for():
    from benchop_hook.analysis.evidence import names_a_call_must_spell
    from benchop_hook.analysis.signatures import Kind, Param, Signature

    def sig(*ps: tuple[str, Kind]) -> Signature:
        return Signature(tuple(Param(n, k, "None") for n, k in ps))

    kw, pk, vk = Kind.KEYWORD_ONLY, Kind.POSITIONAL_OR_KEYWORD, Kind.VAR_KEYWORD
    old = sig(("N_total", pk), ("kernel_map", kw))
    assert names_a_call_must_spell(sig(("target", kw), ("kernel_map", kw)), old) == ("target",)
    # a new positional parameter can be bound without its name; so can anything through **kwargs
    assert names_a_call_must_spell(sig(("x", pk), ("target", kw)), old) is None
    assert names_a_call_must_spell(sig(("target", kw), ("kw", vk)), old) is None
    assert names_a_call_must_spell(old, sig(("target", kw))) is None


def test_a_file_is_ruled_out_only_when_no_call_in_it_can_pass_the_names():
    from benchop_hook.analysis.evidence import may_spell

    names = ("target", "decimals")
    passing = [
        "Op(x, target=1)",
        "Op(x, target = 1)",
        "Op(\n    x,\n    target\n    = 1,\n)",
        "Op(x, target  # the device\n    = 1)",
        "Op(x, target \\\n= 1)",
        "Op(x, decimals=2)",
        "Op(x, \uff54arget=1)",  # fullwidth t: Python reads the keyword `target`
    ]
    for src in passing:
        assert _passes_by_keyword(src, names) and may_spell(src.encode(), names), src
    # A Cyrillic a is not a Latin one, but any identifier character beyond ASCII keeps the file.
    assert may_spell("Op(x, t\u0430rget=1)".encode(), names)
    not_passing = [
        "Op(x)\nif target == 1:\n    pass\n",
        "# target=1 in a comment is still text\nOp(x)\n",
        "Op(x, target_shape=1)",
        "Op(x, my_target=1)",
        "# \u2192 arrows, \u00d7 signs and \u2014 dashes are not names\nOp(x)\n",
    ]
    ruled_out = {src for src in not_passing if not may_spell(src.encode(), names)}
    for src in not_passing:
        assert not _passes_by_keyword(src, names), src
    # A mention in a comment can't be told from a keyword by the text: kept (analysed), never wrong.
    assert ruled_out == {not_passing[0], not_passing[2], not_passing[3], not_passing[4]}
    # Files Python may not read as UTF-8, or with identifier characters beyond ASCII, are kept.
    latin = "# -*- coding: latin-1 -*-\nOp(x, t\u00aarget=1)\n".encode("latin-1")  # \u00aa: NFKC "a"
    assert _passes_by_keyword(latin, names) and may_spell(latin, names)
    assert may_spell("caf\u00e9 = 1\nOp(x)\n".encode(), names)
    assert may_spell(b"Op(x)\n", None)


# -- the interface check parses only the new lines between unchanged top-level statements

INTERFACE_SRC = '''"""Helpers.
class NotAClass(Base):
    def __init__(self, fake): ...
"""
import dataclasses

# a comment before the class
@dataclasses.dataclass
class Shape:
    m: int
    n: int = 4


class Workload(Base):
    def __init__(self, m, n, dtype=None):
        self.m = m  # keep

    def forward(self, x):
        return x


a = 1; b = Shape(1, 2)
class Twin: pass


def helper(x):
    """
def __init__(self, not_a_method): at column 0, in a string
"""
    return [
x for x in range(3)]
'''


def _interface_edits() -> list[str]:
    lines = INTERFACE_SRC.splitlines(keepends=True)
    inserts = [
        "class Added(Base):\n    def __init__(self, k): ...\n",
        "        self.extra = 1\n",
        "    def __init__(self, q): ...\n",
        "def f(\n",
        '"""\n',
        "\n",
        "# note\n",
        ")\n",
        "from __future__ import annotations\n",
        "x = 2\n",
        "    k: float = 0.5\n",
        "@decorated\n",
    ]
    out = []
    for i in range(len(lines) + 1):
        out.append("".join(lines[:i] + lines[i + 1 :]))  # a line removed
        for ins in inserts:
            out.append("".join([*lines[:i], ins, *lines[i:]]))  # a line added
        if i < len(lines):
            out.append("".join([*lines[:i], lines[i].replace("m", "mm"), *lines[i + 1 :]]))  # a line changed
    return out


def test_constructors_after_an_edit_are_the_whole_parse():
    import ast

    from benchop_hook.analysis import interfaces

    old = INTERFACE_SRC.encode()
    tree = ast.parse(old)
    used = 0
    for text in _interface_edits():
        new = text.encode()
        got = interfaces.constructors_after_edit(tree, old, new)
        if got is not None:
            used += 1
            assert got == interfaces.constructors(new), text
        assert interfaces.constructor_changed(old, new) == _changed_the_long_way(old, new), text
    assert used > 200  # most edits are read without parsing the whole new version


def _changed_the_long_way(old: bytes, new: bytes) -> bool:
    from benchop_hook.analysis import interfaces

    a, b = interfaces.constructors(old), interfaces.constructors(new)
    return a is None or b is None or any(n not in b or b[n] != sig for n, sig in a.items())


def test_sources_whose_lines_can_mean_something_else_alone_are_parsed_whole():
    import ast

    from benchop_hook.analysis import interfaces

    old = INTERFACE_SRC.encode()
    tree = ast.parse(old)
    for new in [
        b"\xef\xbb\xbf" + old,
        b"# -*- coding: latin-1 -*-\n" + old,
        old + b"x = 1 + \\\n    2\n",
        old.replace(b"import dataclasses", b"from __future__ import barry_as_FLUFL\nimport dataclasses"),
    ]:
        assert interfaces.constructors_after_edit(tree, old, new) is None
    # an indented line after a class joins its body: not a piece that parses alone
    new = old.replace(b"        return x\n", b"        return x\n    def __init__(self, other): ...\n")
    assert interfaces.constructors_after_edit(tree, old, new) in (None, interfaces.constructors(new))
    assert interfaces.constructor_changed(old, new)


# -- the interface check of a large commit is split between two processes


def _pid_is_not(pid: int) -> Callable[[int], bool]:
    import os

    return lambda x: os.getpid() != pid


def test_forked_answers_come_back_in_order_from_the_child() -> None:
    import os
    import time

    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    me = os.getpid()
    ran: list[int] = []

    def where(x: int) -> tuple[int, bool]:
        time.sleep(0.01)
        return x, os.getpid() != me

    got = forked.map_split(
        where,
        list(range(40)),
        [1] * 40,
        min_weight=0,
        meanwhile=lambda: (ran.append(os.getpid()), time.sleep(0.05)),
    )
    # Every answer in its place; the child (another pid) took some while this process ran `meanwhile`,
    # and this process took some once it was free.
    assert [x for x, _ in got] == list(range(40))
    assert any(child for _, child in got) and not all(child for _, child in got)
    assert ran == [me]
    # Under the threshold everything is answered here.
    assert forked.map_split(where, list(range(10)), [1] * 10, min_weight=11) == [
        (x, False) for x in range(10)
    ]
    # More items than the queue holds records: they go in batches, still every one answered once.
    calls: list[int] = []
    many = forked.map_split(
        lambda x: (calls.append(x), x * 2)[1], list(range(3000)), list(range(3000)), min_weight=0
    )
    assert many == [x * 2 for x in range(3000)]
    assert sorted(calls) == sorted(set(calls)) and len(calls) <= 3000  # (the child's calls are not seen here)


def test_a_failing_child_leaves_its_half_to_this_process() -> None:
    import os

    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    me = os.getpid()

    def fails_elsewhere(x: int) -> bool:
        if os.getpid() != me:
            raise RuntimeError("child")
        return x % 2 == 0

    assert forked.map_split(fails_elsewhere, list(range(60)), [1] * 60, min_weight=0) == [
        x % 2 == 0 for x in range(60)
    ]


def _without_and_with_fork(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    module: object,
    threshold: str,
    argv: list[str],
) -> tuple[int, list[tuple[int, pytest.CaptureResult[str]]]]:
    """`cli.main(argv)` with `module.threshold` out of reach, then at 0: the forks counted, each run's exit
    code and captured output."""
    import os

    from benchop_hook import cli

    forks: list[int] = []
    real_fork = os.fork

    def counted() -> int:
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(os, "fork", counted)
    runs: list[tuple[int, pytest.CaptureResult[str]]] = []
    for value in (10**12, 0):
        monkeypatch.setattr(module, threshold, value)
        rc = cli.main(argv)
        runs.append((rc, capsys.readouterr()))
    return len(forks), runs


def test_the_forked_interface_check_reports_what_the_serial_one_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:

    from test_evidence_idioms import make

    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    old = "class Case{k}:\n    def __init__(self, m, n):\n        self.m = m\n"
    files = {f"workloads/w{k}.py": old.format(k=k) for k in range(6)}
    files["workloads/__init__.py"] = ""
    files["benchmarks/bench_w.py"] = (
        "".join(f"from workloads.w{k} import Case{k}\n" for k in range(6))
        + "\n\ndef test_bench(m=1, n=2):\n"
        + "".join(f"    Case{k}(m, n)\n" for k in range(6))
    )
    repo = make(tmp_path, files)
    for k in range(6):  # three constructors change, three files change elsewhere
        new = old.format(k=k)
        new = new.replace("(self, m, n)", "(self, n)") if k % 2 else new + "\n\ndef helper():\n    return 1\n"
        repo.write(f"workloads/w{k}.py", new)
    repo.commit("workloads: some rows come from the inputs")
    monkeypatch.chdir(repo.path)
    forks, runs = _without_and_with_fork(
        monkeypatch, capsys, forked, "MIN_WEIGHT", ["check", "--from-ref", "HEAD~1", "--to-ref", "HEAD"]
    )
    outs = [(rc, out.out) for rc, out in runs]
    assert forks == 1  # the second run forked, the first did not
    assert outs[0] == outs[1]
    assert outs[0][0] == 1 and all(f"Case{k}" in outs[0][1] for k in (1, 3, 5)), outs[0]
    assert not any(f"Case{k}(" in outs[0][1] for k in (0, 2, 4)), outs[0]


def test_rename_votes_spread_over_processes_are_the_votes() -> None:
    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    files = [
        (renames.TESTS, OLD_TEST, NEW_TEST),
        (renames.OTHER, UNRELATED_OLD, UNRELATED_NEW),
        (
            renames.WORKLOADS,
            OLD_TEST.replace("test_sum", "test_mean"),
            NEW_TEST.replace("test_sum", "test_mean"),
        ),
    ]

    def spread(
        f: Callable[[tuple[str, str, str]], list[tuple[str, str]]], xs: list[tuple[str, str, str]]
    ) -> list[list[tuple[str, str]]]:
        return forked.map_split(f, xs, [1] * len(xs), min_weight=0)

    for olds, news in [(None, None), ({"SumOp", "MeanOp", "b"}, {"SumFwdOp", "MeanFwdOp", "c"})]:
        assert renames.votes_from(files, olds, news, spread) == renames.votes_from(files, olds, news)
    assert renames.votes_from(files, None, None, spread)[("SumOp", "SumFwdOp")] == {
        renames.TESTS,
        renames.WORKLOADS,
    }


def test_prose_lines_found_through_statements_are_those_of_every_node() -> None:
    import ast
    from pathlib import Path

    def every_node(text: str) -> set[int]:  # the long way: ast.walk over every node
        out = set()
        for node in ast.walk(ast.parse(text)):
            if (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                out.update(range(node.lineno - 1, node.end_lineno or node.lineno))
        return out

    nested = (
        'class A:\n    """doc"""\n    def f(self):\n        try:\n            "in try"\n        except E:\n'
        '            """in handler"""\n        else:\n            "else"\n        finally:\n            '
        '"fin"\n'
        '        match x:\n            case 1:\n                "in case"\n        with a:\n            '
        "while b:\n"
        '                for c in d:\n                    if e:\n                        "deep"\n'
        '                    else:\n                        "orelse"\n        g = lambda: "not a statement"\n'
        '        async def h():\n            "async"\n            async with x:\n                "aw"\n'
    )
    assert renames._prose_lines(nested, []) == every_node(nested) and len(every_node(nested)) == 10
    root = Path(__file__).parent.parent
    sources = [
        p.read_text()
        for p in [*sorted((root / "benchop_hook").rglob("*.py")), *sorted((root / "tests").rglob("*.py"))]
    ]
    assert len(sources) > 50
    for text in sources:
        lines = text.splitlines()
        comments = {i for i, line in enumerate(lines) if line.lstrip().startswith("#")}
        assert renames._prose_lines(text, lines) == comments | every_node(text)


# -- an edited file outside the op paths whose classes nothing names is not parsed


def test_class_names_by_lines_hold_every_top_level_class() -> None:
    import ast

    from benchop_hook.analysis import interfaces

    checked = 0
    for text in [INTERFACE_SRC, *_interface_edits()]:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue  # (some edits break the source)
        names = interfaces.top_level_class_names(text.encode())
        assert names is not None
        assert {n.name.encode() for n in tree.body if isinstance(n, ast.ClassDef)} <= names, text
        checked += 1
    assert checked > 100
    # a BOM is no column; a string's line may add a name, never hide one
    assert interfaces.top_level_class_names(b"\xef\xbb\xbfclass A(B):\n    pass\n") == {b"A"}
    assert interfaces.top_level_class_names(b'x = """\nclass Doc:\n"""\nclass A[T]: ...\n') == {b"Doc", b"A"}
    # what could hide a class from a line-by-line reading: no answer
    for hidden in [
        b"x = 1\n\fclass A: ...\n",
        b"class \\\n    A: ...\n",
        "class \u00c9t\u00e9: ...\n".encode(),
    ]:
        assert interfaces.top_level_class_names(hidden) is None


def test_a_file_is_left_unparsed_only_when_its_classes_stay_and_nothing_names_them() -> None:
    from benchop_hook.analysis import interfaces

    old = b"class Helper:\n    def __init__(self, m, n): ...\n"
    new = old.replace(b"m, n", b"n")
    nothing = {b"Used"}.__contains__
    assert interfaces.left_unparsed(old, new, nothing, nothing) == "nowhere"
    assert interfaces.left_unparsed(old, new, nothing, {b"Helper"}.__contains__) == "op files"
    assert interfaces.left_unparsed(old, new, {b"Helper"}.__contains__, nothing) is None
    assert (
        interfaces.left_unparsed(old, old + b"class Extra:\n    pass\n", nothing, nothing) is None
    )  # appeared
    assert interfaces.left_unparsed(old + b"class Gone: ...\n", old, nothing, nothing) is None  # went
    assert interfaces.left_unparsed(old, b"\f" + old, nothing, nothing) is None


def test_interface_files_nothing_names_change_no_answer(tmp_path: Path) -> None:
    from test_evidence_idioms import make

    used = "class Case:\n    def __init__(self, m, n):\n        self.m = m\n"
    helper = "class Helper:\n    def __init__(self, m, n):\n        self.m = m\n"
    repo = make(
        tmp_path,
        {
            "workloads/__init__.py": "",
            "workloads/cases.py": used,
            "tests/helpers.py": helper,
            "tests/more.py": helper.replace("Helper", "Other"),
            "benchmarks/bench_case.py": "from workloads.cases import Case\n\n\n"
            "def test_bench(m=1, n=2):\n    Case(m, n)\n",
        },
    )
    # Only the unnamed helper's constructor changes: the summary still says a constructor changed.
    repo.write("tests/helpers.py", helper.replace("(self, m, n)", "(self, n)"))
    repo.commit("tests: a helper takes its rows from the input")
    r = repo.bench_op("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0 and "no Op constructor or method signature changed" in r.stdout, r.stdout
    # A named workload changes with two broken unnamed files: one keeps its classes (left unparsed, not
    # reported), one gains a class (parsed, and reported as unreadable).
    repo.write("workloads/cases.py", used.replace("(self, m, n)", "(self, n)"))
    repo.write("tests/helpers.py", helper + "def broken(:\n")
    repo.write("tests/more.py", helper.replace("Helper", "Other") + "class New:\n    pass\ndef broken(:\n")
    repo.commit("workloads: rows from the input; two files half written")
    r = repo.bench_op("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1 and "Case(m, n)" in r.stdout, r.stdout
    assert "tests/more.py" in r.stdout + r.stderr and "tests/helpers.py" not in r.stdout + r.stderr, r.stdout


def test_benchmark_files_judged_in_two_processes_give_the_serial_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:

    from test_evidence_idioms import make

    from benchop_hook.fixing import commit_range as pipeline
    from benchop_hook.fixing import forked

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    old = "class Case{k}:\n    def __init__(self, m, n, dtype):\n        self.m = m\n"
    files = {f"workloads/w{k}.py": old.format(k=k) for k in range(8)}
    files["workloads/__init__.py"] = ""
    for k in range(8):  # each benchmark imports its own workload through an unchanged re-export: the child
        # reads blobs the parent has not read
        files[f"workloads/all{k}.py"] = f"from workloads.w{k} import Case{k}\n"
        files[f"benchmarks/bench_w{k}.py"] = (
            f"from workloads.all{k} import Case{k}\n\n\n"
            f"def test_bench(m=1, n=2, dtype='f32'):\n    Case{k}(m, n, dtype)\n"
            f"    Case{k}(m, n, dtype=dtype)\n"
        )
    repo = make(tmp_path, files)
    for k in range(8):  # half the constructors lose m; the other half only gain a defaulted flag
        new = old.format(k=k)
        repo.write(
            f"workloads/w{k}.py",
            new.replace("(self, m, n, dtype)", "(self, n, dtype)")
            if k % 2
            else new.replace("dtype)", "dtype, flag=False)"),
        )
    repo.commit("workloads: rows from the inputs")
    monkeypatch.chdir(repo.path)
    forks, outs = _without_and_with_fork(
        monkeypatch,
        capsys,
        pipeline,
        "JUDGE_FORK_WEIGHT",
        ["fix", "--diff", "--from-ref", "HEAD~1", "--to-ref", "HEAD"],
    )
    assert forks == 1  # the second run forked, the first did not
    assert outs[0] == outs[1]
    out = outs[0][1].out + outs[0][1].err
    assert all(f"Case{k}(n, dtype)" in out for k in (1, 3, 5, 7)), out
    assert not any(f"Case{k}(n" in out for k in (0, 2, 4, 6)), out


def test_a_forked_child_reads_git_through_its_own_cat_file(tmp_path: Path) -> None:
    import os

    from test_evidence_idioms import make

    from benchop_hook.fixing import forked
    from benchop_hook.git import repo as gitrepo

    if not forked.can_fork():
        pytest.skip("no fork on this machine (one core, or threads running)")
    repo = make(tmp_path, {f"m{k}.py": f"X = {k}\n" for k in range(4)})
    snap = gitrepo.GitSnapshot(str(repo.path), "HEAD")
    assert snap.read("m0.py") == b"X = 0\n"
    parent_cat = snap._proc.pid if snap._proc else None
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: read a blob, say which cat-file answered
        ok = snap.read("m1.py") == b"X = 1\n" and snap._proc is not None
        os.write(w, f"{int(ok)} {snap._proc.pid if snap._proc else 0}".encode())
        os._exit(0)
    os.close(w)
    # the parent goes on talking to its own cat-file meanwhile
    assert [snap.read(f"m{k}.py") for k in (2, 3)] == [b"X = 2\n", b"X = 3\n"]
    ok, child_cat = os.read(r, 100).decode().split()
    os.close(r)
    os.waitpid(pid, 0)
    assert ok == "1" and int(child_cat) != parent_cat
    assert snap._proc is not None and snap._proc.pid == parent_cat


def test_a_class_op_files_only_call_is_left_unparsed_one_they_inherit_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_evidence_idioms import make

    from benchop_hook import cli
    from benchop_hook.fixing import detect as pipeline

    mixin = "class ShapeMixin:\n    def __init__(self, m, n, dtype):\n        self.m = m\n"
    kernel = "class SumKernel:\n    def __init__(self, m, n):\n        self.m = m\n"
    op = (
        "from kern.kernels.mixin import ShapeMixin\nfrom kern.kernels.sum import SumKernel\n"
        "from kern.ops.op import Op\n\n\nclass SumOp(ShapeMixin, Op):\n"
        "    def forward(self, x):\n        return SumKernel(self.m, 2)(x)\n"
    )
    repo = make(
        tmp_path,
        {
            "src/kern/kernels/__init__.py": "",
            "src/kern/kernels/mixin.py": mixin,
            "src/kern/kernels/sum.py": kernel,
            "src/kern/ops/sum.py": op,
            "benchmarks/bench_sum.py": "from kern.ops.sum import SumOp\n\n\n"
            "def test_sum(m=1, n=2, dtype='f32'):\n"
            "    SumOp(m, n, dtype)\n",
        },
    )
    # The inherited constructor loses m; the kernel the op only calls is left half written.
    repo.write("src/kern/kernels/mixin.py", mixin.replace("(self, m, n, dtype)", "(self, n, dtype)"))
    repo.write("src/kern/kernels/sum.py", kernel + "def broken(:\n")
    repo.commit("kernels: rows from the input")
    monkeypatch.chdir(repo.path)
    outs = []
    for weight in (0, 10**12):  # every op file parsed for its ancestors, or the kernel file parsed
        monkeypatch.setattr(pipeline, "ANCESTOR_CHECK_WEIGHT", weight)
        rc = cli.main(["check", "--from-ref", "HEAD~1", "--to-ref", "HEAD"])
        outs.append((rc, capsys.readouterr().out))
    for rc, out in outs:
        assert rc == 1 and "SumOp(m, n, dtype)" in out and "through base class ShapeMixin" in out, out
    assert "src/kern/kernels/sum.py" not in outs[0][1] and "src/kern/kernels/sum.py" in outs[1][1], outs


def test_functions_are_walked_for_imports_unless_the_text_rules_them_out() -> None:
    from benchop_hook.analysis.modules import parse_source
    from benchop_hook.fixing import imports as pipeline

    here = Path(__file__).resolve().parent.parent
    sources = [
        p.read_bytes() for p in sorted([*here.glob("benchop_hook/**/*.py"), *here.glob("tests/**/*.py")])
    ]
    sources += [
        b"import os\n\n\ndef f():\n    from x import Y\n    return Y\n",
        b"def f(): from x import Y\n",
        b"from a import (\n    B,\n    C,\n)\n\n\ndef g():\n    return B(C)\n",
    ]
    ruled_out = 0
    for data in sources:
        mi = parse_source(data, "m.py", "m")
        if mi.error:
            continue
        walked = pipeline.all_imports(mi, True)
        if not pipeline.imports_in_functions(data):
            ruled_out += 1
            assert pipeline.all_imports(mi, False) == walked
        elif walked != pipeline.all_imports(mi, False):
            assert b"from x import Y" in data or b"import" in data
    assert ruled_out >= 2  # the last example, and the files that import only at the top
    assert pipeline.imports_in_functions(sources[-3]) and pipeline.imports_in_functions(sources[-2])
