"""Interfaces beyond Ops (analysis/interfaces.py): the constructors of workload and test-helper classes that
benchmarks build, `interface-paths`, and the shortcuts of the interface check (only the edited lines parsed,
class names read line by line, files nothing names left unparsed), each giving the long way's answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.kern import fix, make
from tests.helpers.process import run
from tests.helpers.repo import Repo

# -- interfaces beyond Ops: workloads and test helpers that benchmarks build ---------------------

WORKLOAD_OLD = (
    "class SoftmaxCase:\n    def __init__(self, m, n, dtype):\n        self.shape = (m, n)\n\n"
    "    def gen_inputs(self):\n        return self.shape\n"
)


WORKLOAD_NEW = (
    "class SoftmaxCase:\n    def __init__(self, n, dtype, dim=-1):\n        self.shape = (n,)\n\n"
    "    def gen_inputs(self):\n        return self.shape\n"
)


SOFTMAX_BENCH = (
    "from workloads.softmax import SoftmaxCase\n\n\ndef test_bench(m=4, n=8, dtype='f16'):\n"
    "    case = SoftmaxCase(m, n, dtype)\n    case.gen_inputs()\n"
)


def _with_workload(tmp_path: Path, extra_config: str = "") -> Repo:
    repo = make(
        tmp_path,
        {
            "workloads/__init__.py": "",
            "workloads/softmax.py": WORKLOAD_OLD,
            "benchmarks/bench_softmax.py": SOFTMAX_BENCH,
        },
    )
    if extra_config:
        repo.write("pyproject.toml", repo.read("pyproject.toml") + extra_config)
        repo.commit("config")
    return repo


def test_a_workload_constructor_change_is_fixed_like_an_op(tmp_path: Path) -> None:
    repo = _with_workload(tmp_path)
    repo.write("workloads/softmax.py", WORKLOAD_NEW)
    repo.commit("softmax workload: rows come from the inputs")
    rc, out, data = fix(repo)
    assert rc == 0, out
    assert "case = SoftmaxCase(n, dtype)" in repo.read("benchmarks/bench_softmax.py")
    assert [c["op"] for c in data["changes"]] == ["SoftmaxCase"]


def test_a_renamed_workload_is_followed(tmp_path: Path) -> None:
    repo = _with_workload(tmp_path)
    repo.write("tests/test_softmax.py", "from workloads.softmax import SoftmaxCase\n")
    repo.commit("a test")
    repo.write("workloads/softmax.py", WORKLOAD_OLD.replace("SoftmaxCase", "SoftmaxWorkload"))
    repo.write("tests/test_softmax.py", "from workloads.softmax import SoftmaxWorkload\n")
    repo.commit("workloads are called workloads")
    _, out, _ = fix(repo)
    text = repo.read("benchmarks/bench_softmax.py")
    assert (
        "from workloads.softmax import SoftmaxWorkload" in text and "SoftmaxWorkload(m, n, dtype)" in text
    ), out


def test_interface_paths_bound_where_interfaces_are_read(tmp_path: Path) -> None:
    repo = _with_workload(tmp_path, '\ninterface-paths = ["helpers/**/*.py"]\n')
    repo.write("workloads/softmax.py", WORKLOAD_NEW)
    repo.commit("softmax workload: rows come from the inputs")
    r = repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0 and "nothing to check" in r.stdout, r.stdout + r.stderr
    assert repo.read("benchmarks/bench_softmax.py") == SOFTMAX_BENCH


def test_an_interface_edit_that_keeps_constructors_stays_on_the_no_op_path(tmp_path: Path) -> None:
    import sys

    repo = _with_workload(tmp_path)
    repo.write("workloads/softmax.py", WORKLOAD_OLD.replace("return self.shape", "return tuple(self.shape)"))
    repo.write("tests/test_x.py", "def test_x():\n    assert True\n")
    repo.git("add", "-A")
    code = (
        "import sys; from benchop_hook.cli import main; rc = main(['check']); "
        "print('HEAVY', sorted(m for m in ('libcst', 'git', 'torch') if m in sys.modules)); sys.exit(rc)"
    )
    r = run([sys.executable, "-c", code], repo.path)
    assert r.returncode == 0, r.stderr
    assert "nothing to check" in r.stdout and "HEAVY []" in r.stdout
    # The same file with a constructor change does take the full path.
    repo.write("workloads/softmax.py", WORKLOAD_NEW)
    repo.git("add", "-A")
    r = run([sys.executable, "-c", code], repo.path)
    assert r.returncode == 1 and "SoftmaxCase(n, dtype)" in r.stdout, r.stdout + r.stderr


def test_interface_paths_is_validated() -> None:
    from benchop_hook.config import from_table
    from benchop_hook.errors import ConfigError

    assert from_table({"interface-paths": ["workloads/**/*.py"]}).interface_paths == ("workloads/**/*.py",)
    assert from_table({}).interface_paths is None
    with pytest.raises(ConfigError, match="interface-paths"):
        from_table({"interface-paths": ["../elsewhere/*.py"]})


def test_a_class_of_an_op_file_without_an_op_base_is_an_interface_too(tmp_path: Path) -> None:
    # A composite (no Op base) in an op file whose sizes now come from the inputs.
    old = (
        "class ScanPipeline:\n"
        "    def __init__(self, batch, seqlen, chunk_size=256, tune=False):\n        pass\n"
    )
    new = "class ScanPipeline:\n    def __init__(self, chunk_size=256, tune=False):\n        pass\n"
    bench = (
        "from kern.ops.scan import ScanPipeline\n\n\ndef test_bench(batch=2, seqlen=64, tune=False):\n"
        "    ScanPipeline(batch, seqlen, 128, tune=tune)\n"
    )
    repo = make(tmp_path, {"src/kern/ops/scan.py": old, "benchmarks/bench_scan.py": bench})
    repo.write("src/kern/ops/scan.py", new)
    repo.commit("scan: sizes from the inputs")
    rc, out, _ = fix(repo)
    assert rc == 0, out
    assert "    ScanPipeline(128, tune=tune)\n" in repo.read("benchmarks/bench_scan.py")


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
    r = repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 0 and "no Op constructor or method signature changed" in r.stdout, r.stdout
    # A named workload changes with two broken unnamed files: one keeps its classes (left unparsed, not
    # reported), one gains a class (parsed, and reported as unreadable).
    repo.write("workloads/cases.py", used.replace("(self, m, n)", "(self, n)"))
    repo.write("tests/helpers.py", helper + "def broken(:\n")
    repo.write("tests/more.py", helper.replace("Helper", "Other") + "class New:\n    pass\ndef broken(:\n")
    repo.commit("workloads: rows from the input; two files half written")
    r = repo.cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD")
    assert r.returncode == 1 and "Case(m, n)" in r.stdout, r.stdout
    assert "tests/more.py" in r.stdout + r.stderr and "tests/helpers.py" not in r.stdout + r.stderr, r.stdout
