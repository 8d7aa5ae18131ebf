"""Did a commit change the constructor of a class benchmarks may build, outside the op files?

Workloads, test helpers and benchmark bases change alongside the Ops (`SoftmaxTest(m, n, dtype)`
becomes `SoftmaxTest(n, dtype)`). With `interface-paths` defaulting to every Python file outside
`benchmark-paths`, almost any commit touches one, so this check is on the no-op path: stdlib
`ast` over the two versions of each touched file, and nothing else. Pure: bytes in, answer out.
"""

from __future__ import annotations

import ast


def constructors(data: bytes | None) -> dict[str, str] | None:
    """Top-level class name -> what decides how it is called (bases, decorators, `__init__` arguments,
    class-level annotated fields); None when the file can't be parsed (then it counts as changed)."""
    if data is None:
        return {}
    if b"class " not in data:
        return {}
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    out: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        parts = [ast.dump(b) for b in node.bases] + [ast.dump(d) for d in node.decorator_list]
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in (
                "__init__",
                "__new__",
            ):
                parts.append(item.name + ast.dump(item.args))
            elif isinstance(item, ast.AnnAssign):  # dataclass-style fields
                parts.append(ast.dump(item))
        out[node.name] = "\n".join(parts)
    return out


def constructor_changed(old: bytes | None, new: bytes | None) -> bool:
    """A class was removed, or one that exists on both sides is called differently now."""
    if old == new:
        return False
    a, b = constructors(old), constructors(new)
    if a is None or b is None:
        return True
    return any(name not in b or b[name] != sig for name, sig in a.items())
