"""Which benchmark files a run is about: the ones the static pass fixed or left to the run, the ones
blocked for a hand edit, and the helper modules (files without tests) checked through the benchmark files
that import them."""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from benchop_hook.fixing.context import StaticContext
from benchop_hook.fixing.results import FileResult, StaticResult


@dataclass(frozen=True)
class Selection:
    runnable: tuple[FileResult, ...]  # what the static pass fixed or left to the run, in report order
    hand: tuple[FileResult, ...]  # a call needs a hand edit: nothing is written to these
    tested: tuple[FileResult, ...]  # benchmark files with tests: they run
    helpers: tuple[FileResult, ...]  # modules without tests: checked through the files importing them
    importers: tuple[FileResult, ...]  # benchmark files bench-op did not change that import a helper it did
    uses: dict[str, frozenset[str]]  # benchmark file -> the changed helpers it imports


def select(
    result: StaticResult, ctx: StaticContext, shard: frozenset[str], *, affected: bool = False
) -> Selection | None:
    """What the run is about; None when no benchmark file needs anything. With `affected`, every file with
    a function that builds a changed class runs too, fixed or not (the run is the proof); else only the
    files the static pass fixed or left to the run, and only their functions that needed it."""
    wanted = [
        fr if affected else replace(fr, reaches=())
        for fr in result.files
        if not fr.error and ((affected and fr.reaches) or any(f.fixed or f.needs_action for f in fr.findings))
    ]
    if shard:
        # a shard: only these files, and the helpers without tests they may import
        wanted = [fr for fr in wanted if fr.path in shard or not has_tests(fr.after or fr.before)]
    if not wanted:
        return None
    hand = [fr for fr in wanted if any(f.needs_action and not f.runtime_candidate for f in fr.findings)]
    runnable = [fr for fr in wanted if fr not in hand]
    # A module without tests (a helper under benchmarks/) is checked by the benchmark files that import it.
    tested = [fr for fr in runnable if has_tests(fr.after or fr.before)]
    helpers: list[FileResult] = []
    uses: dict[str, set[str]] = {}
    extra: dict[str, FileResult] = {}
    for h in (fr for fr in runnable if fr not in tested):
        importers = find_importers(ctx, h.path)
        if shard:
            importers = [p for p in importers if p in shard]
            if not importers:
                continue  # another shard's business
        helpers.append(h)
        for p in importers:
            uses.setdefault(p, set()).add(h.path)
            if p not in {fr.path for fr in tested} and p not in extra:
                extra[p] = FileResult(p, before=ctx.bench.read(p))
    runnable = [fr for fr in runnable if fr in tested or fr in helpers]
    return Selection(
        tuple(runnable),
        tuple(hand),
        tuple(tested),
        tuple(helpers),
        tuple(extra.values()),
        {p: frozenset(hs) for p, hs in uses.items()},
    )


def has_tests(data: bytes | None) -> bool:
    """A pytest module: a top-level test function or Test class."""
    try:
        tree = ast.parse(data or b"")
    except (SyntaxError, ValueError):
        return True  # let pytest say what is wrong with it
    return any(
        (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test"))
        or (isinstance(n, ast.ClassDef) and n.name.startswith("Test"))
        for n in tree.body
    )


def find_importers(ctx: StaticContext, helper: str) -> list[str]:
    """Benchmark files with tests that import `helper` (by its module name)."""
    module = ctx.new_p.module_name(helper)
    leaf = module.rsplit(".", 1)[-1].encode()
    out = []
    for path in ctx.bench.paths():
        if path == helper or not ctx.paths.bench(path):
            continue
        data = ctx.bench.read(path)
        if data is None or leaf not in data or not has_tests(data):
            continue
        mi = ctx.new_p.parse(path, data)
        for target in mi.imports.values():
            names = {target[1]} if target[0] == "module" else {target[1], f"{target[1]}.{target[2]}"}
            if module in names or any(n.startswith(module + ".") for n in names):
                out.append(path)
                break
    return sorted(out)
