"""Checks of the package's shape that ruff and mypy don't make: no import cycle (module-level, function-level
and TYPE_CHECKING imports alike), the pipeline's direction (a stage never imports a later one), no module over
about 600 lines, and no function longer than 60 lines unless it says why."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "benchop_hook"
MAX_LINES = 60
LONG_OK = "# long:"  # a function may be longer when its def line says why, after this marker
# ... or here, for modules other branches are changing now (a comment on their def lines would only conflict).
REASONS: dict[str, str] = {}
# Functions that the mechanical reflow to 110 columns (ruff format) took past 60 lines: each is split as
# its package is restructured, and this list shrinks to nothing.
REFLOWED = {
    "benchop_hook.fixing.forked.map_split",
    "benchop_hook.records.baseline.compare",
    "benchop_hook.records.versus_parent._run_both",
    "benchop_hook.rewrite.edit._rewrite_by_statement",
    "benchop_hook.run.repair.repair_all",
    "benchop_hook.run.runner.run_pytest",
    "benchop_hook.run.runner._read_plugin",
    "benchop_hook.run.triage.verdict",
}


MAX_MODULE_LINES = 620
# The pipeline, earliest first: a package imports only packages of its own layer or earlier ones. Within a
# layer the packages may use each other (the run and its records, agent and report read each other's values).
LAYERS = (
    ("root", "errors", "globs", "config", "paths", "timings"),
    ("git", "analysis"),
    ("rules",),
    ("fixing", "rewrite"),
    ("run", "records", "agent", "report", "followup"),
    ("commands", "pytest_plugin", "cli", "__main__"),
)
LAYER = {pkg: i for i, names in enumerate(LAYERS) for pkg in names}


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "root"


def backwards(graph: dict[str, set[str]]) -> list[str]:
    """Imports that point against the pipeline (analysis importing fixing, say)."""
    out = []
    for m, deps in sorted(graph.items()):
        for d in sorted(deps):
            a, b = package_of(m), package_of(d)
            if LAYER.get(b, 0) > LAYER.get(a, len(LAYERS)):
                out.append(f"{m} imports {d}: {a}/ comes before {b}/ in the pipeline")
    return out


def module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """Every benchop_hook module `path` imports, wherever the import statement is."""
    out: set[str] = set()
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)  # `from pkg import module`
    return {m for m in out if m in known and m != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                found.append([*stack[stack.index(n) :], n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return found


def long_functions(path: Path, module: str) -> list[tuple[int, str, int]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n = (node.end_lineno or node.lineno) - node.lineno + 1
            # the marker may sit on any line of a def that the formatter split
            header = "\n".join(lines[node.lineno - 1 : max(node.lineno, node.body[0].lineno - 1)])
            name = f"{module}.{node.name}"
            said = LONG_OK in header or name in REASONS or name in REFLOWED
            if n > MAX_LINES and not said:
                out.append((node.lineno, node.name, n))
    return out


def main() -> int:
    files = {module_name(p): p for p in sorted(PKG.rglob("*.py"))}
    graph = {name: imports(p, name, set(files)) for name, p in files.items()}
    bad = 0
    for c in cycles(graph):
        print("import cycle: " + " -> ".join(c))
        bad += 1
    for line in backwards(graph):
        print("against the pipeline: " + line)
        bad += 1
    for name, p in files.items():
        n_lines = len(p.read_text(encoding="utf-8").splitlines())
        if n_lines > MAX_MODULE_LINES:
            print(f"{p.relative_to(PKG.parent)} is {n_lines} lines (over {MAX_MODULE_LINES}): split it")
            bad += 1
        for lineno, fn, n in long_functions(p, name):
            where = f"{p.relative_to(PKG.parent)}:{lineno}"
            print(f"{where}: {fn} is {n} lines (over {MAX_LINES}, no reason given)")
            bad += 1
    n_imports = sum(len(v) for v in graph.values())
    print(
        f"{len(files)} modules, {n_imports} imports between them: "
        f"{'cycles above' if cycles(graph) else 'no import cycle'}"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
