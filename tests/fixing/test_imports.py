"""A benchmark's imports (fixing/imports.py): functions are walked for imports unless the file's text rules
them out, and then the answer is the walk's."""

from __future__ import annotations

from tests.helpers.repo import PROJECT


def test_functions_are_walked_for_imports_unless_the_text_rules_them_out() -> None:
    from benchop_hook.analysis.modules import parse_source
    from benchop_hook.fixing import imports as pipeline

    here = PROJECT
    sources = [
        p.read_bytes() for p in sorted([*here.glob("benchop_hook/**/*.py"), *here.glob("tests/**/*.py")])
    ]
    sources += [
        b"import os\n\n\ndef f():\n    from x import Y\n    return Y\n",
        b"def f(): from x import Y\n",
        b"from a import (\n    B,\n    C,\n)\n\n\ndef g():\n    return B(C)\n",
    ]
    ruled_out = found_in_functions = 0
    for data in sources:
        mi = parse_source(data, "m.py", "m")
        if mi.error:
            continue
        walked = pipeline.all_imports(mi, True)
        if not pipeline.imports_in_functions(data):
            ruled_out += 1
            assert pipeline.all_imports(mi, False) == walked
        elif walked != pipeline.all_imports(mi, False):
            # the walk found more: a `from ... import` really sits in a function (the long way: every node)
            found_in_functions += 1
            assert _from_import_in_a_function(data), data[:200]
    assert ruled_out >= 2  # the last example, and the files that import only at the top
    assert found_in_functions >= 2  # the first two examples, and this project's own local imports
    assert pipeline.imports_in_functions(sources[-3]) and pipeline.imports_in_functions(sources[-2])


def _from_import_in_a_function(data: bytes) -> bool:
    import ast

    return any(
        isinstance(sub, ast.ImportFrom)
        for node in ast.walk(ast.parse(data))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for sub in ast.walk(node)
    )
