"""Replay real op commits of a TileOPs clone and compare bench-op's benchmark fixes with the engineers' own.

    python realworld/replay.py /path/to/tileops-clone [--max-commits N] [--commits SHA ...] [--out FILE]

For each first-parent commit that changed an Op or workload constructor (a quick `ast` diff of the
constructors in the files the commit touched), the script rebuilds in a scratch clone the state the
post-commit hook sees: the commit with its own benchmark edits put back to the parent's version, committed
on the parent and checked out (realworld/hookstate.py; check and fix read a range's benchmarks at its last
commit, so they must be committed). It appends the bench-op configuration to pyproject.toml, runs
`bench-op fix --from-ref <parent> --to-ref HEAD` as a subprocess (it writes its rewrites into the working
tree), and compares call by call with the engineers' benchmark edits in the original commit:

  same       bench-op rewrote the call, and it binds the new constructor as the engineers' call does
  different  bench-op rewrote it and the binding differs (a "meaning differs" rewrite when a
             parameter both pass gets a different value, or one drops a value the other passes)
  reported   bench-op left it and reported it (a finding that needs a hand edit)
  to the run bench-op left it unrewritten as "unknown: the run decides": the call splats a *args or
             **kwargs whose contents bench-op can't see (built at run time, e.g. from a manifest), so it
             can't prove a rewritten call binds; the run's traceback decides and the repair loop fixes it
  missed     the engineers changed it; bench-op neither rewrote nor reported it
  unwanted   bench-op rewrote a call the engineers left alone

Only calls the engineers fixed mechanically count towards "same %": their new call passes no
argument value the old call did not (values moved, renamed or dropped, the class renamed).
Not part of the test suite: it needs a real clone and minutes of time.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from hookstate import replay_commit  # noqa: E402  (realworld/hookstate.py: the hook's state as a commit)

# The TileOPs configuration, appended to each state's pyproject.toml: one copy, in realworld/tileops.toml.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tileops.toml"), encoding="utf-8") as _f:
    CONFIG = "\n" + _f.read()
BENCH_PREFIXES = ("benchmarks/", "top/benchmarks/")
CTOR_PREFIXES = ("tileops/ops/", "src/tileops/ops/", "top/ops/", "workloads/", "tests/")


def git(repo: str, *args: str, check: bool = True) -> str:
    p = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    if check and p.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {p.stderr}")
    return p.stdout


def show(repo: str, rev: str, path: str) -> str | None:
    p = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=repo, capture_output=True, check=False)
    return p.stdout.decode("utf-8", "replace") if p.returncode == 0 else None


# -- which commits changed a constructor -------------------------------------------------------


def _ctors(text: str | None) -> dict[str, str]:
    """class name -> its `__init__` argument list as text (ast.dump), for classes that define one."""
    if text is None:
        return {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            init = next(
                (b for b in node.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None
            )
            out[node.name] = ast.dump(init.args) if init is not None else "-"
    return out


def ctor_commits(repo: str, limit: int | None) -> list[tuple[str, str, str]]:
    """(commit, parent, subject) of first-parent commits that changed, renamed or removed a constructor
    and touched a benchmark file (so there is something to compare with), newest first."""
    log = git(repo, "log", "--first-parent", "--format=%H %P", "--", *CTOR_PREFIXES).splitlines()
    out: list[tuple[str, str, str]] = []
    for line in log:
        parts = line.split()
        if len(parts) < 2:
            continue
        sha, parent = parts[0], parts[1]
        names = git(repo, "diff", "--name-status", "-M", parent, sha).splitlines()
        touched = [ln.split("\t") for ln in names]
        if not any(t[-1].startswith(BENCH_PREFIXES) for t in touched):
            continue
        changed = False
        for t in touched:
            old_path, new_path = t[1], t[-1]
            if not new_path.endswith(".py") or not new_path.startswith(CTOR_PREFIXES):
                continue
            if new_path.startswith(BENCH_PREFIXES):
                continue
            a = _ctors(show(repo, parent, old_path)) if t[0][0] != "A" else {}
            b = _ctors(show(repo, sha, new_path)) if t[0][0] != "D" else {}
            if any(name in b and b[name] != a[name] for name in a) or any(n not in b for n in a):
                changed = True
                break
        if changed:
            subject = git(repo, "log", "-1", "--format=%s", sha).strip()
            out.append((sha, parent, subject))
            if limit is not None and len(out) >= limit:
                break
    return out


# -- calls and what they bind ------------------------------------------------------------------


@dataclass
class Call:
    name: str
    function: str
    node: ast.Call
    text: str


def _func_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def calls_in(text: str | None, names: set[str]) -> dict[tuple[str, str], list[Call]]:
    """(function, callee name) -> calls in source order, for callees in `names`."""
    out: dict[tuple[str, str], list[Call]] = {}
    if text is None:
        return out
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return out

    def visit(node: ast.AST, fn: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, f"{fn}.{child.name}" if fn else child.name)
                continue
            if isinstance(child, ast.Call):
                n = _func_name(child.func)
                if n in names:
                    out.setdefault((fn, n), []).append(Call(n, fn, child, ast.unparse(child)))
            visit(child, fn)

    visit(tree, "")
    return out


def _sig_from(text: str | None) -> inspect.Signature | None:
    """`(a, b=1, *, c)` -> an inspect.Signature whose defaults are their source text."""
    if not text:
        return None
    try:
        fn = ast.parse(f"def f{text}: pass").body[0]
    except SyntaxError:
        return None
    assert isinstance(fn, ast.FunctionDef)
    a = fn.args
    params: list[inspect.Parameter] = []
    pos = [*a.posonlyargs, *a.args]
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    for i, arg in enumerate(pos):
        kind = (
            inspect.Parameter.POSITIONAL_ONLY
            if i < len(a.posonlyargs)
            else inspect.Parameter.POSITIONAL_OR_KEYWORD
        )
        d = defaults[i]
        params.append(
            inspect.Parameter(
                arg.arg, kind, default=ast.unparse(d) if d is not None else inspect.Parameter.empty
            )
        )
    if a.vararg:
        params.append(inspect.Parameter(a.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        params.append(
            inspect.Parameter(
                arg.arg,
                inspect.Parameter.KEYWORD_ONLY,
                default=ast.unparse(d) if d is not None else inspect.Parameter.empty,
            )
        )
    if a.kwarg:
        params.append(inspect.Parameter(a.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
    try:
        return inspect.Signature(params)
    except ValueError:
        return None


def binding(call: ast.Call, sig: inspect.Signature | None) -> dict[str, str] | None:
    """parameter -> argument source, without arguments equal to the parameter's default; None: can't bind."""
    if (
        sig is None
        or any(isinstance(a, ast.Starred) for a in call.args)
        or any(k.arg is None for k in call.keywords)
    ):
        return None
    try:
        b = sig.bind(
            *[ast.unparse(a) for a in call.args],
            **{k.arg: ast.unparse(k.value) for k in call.keywords if k.arg},
        )
    except TypeError:
        return None
    out: dict[str, str] = {}
    for name, value in b.arguments.items():
        d = sig.parameters[name].default
        if d is not inspect.Parameter.empty and _norm(str(d)) == _norm(str(value)):
            continue
        out[name] = _norm(str(value))
    return out


def _norm(src: str) -> str:
    try:
        return ast.unparse(ast.parse(src, mode="eval"))
    except SyntaxError:
        return src


def _values(call: ast.Call) -> set[str]:
    return {ast.unparse(a) for a in call.args} | {ast.unparse(k.value) for k in call.keywords}


# -- one commit --------------------------------------------------------------------------------


@dataclass
class Tally:
    same: int = 0
    different: int = 0
    meaning: int = 0
    reported: int = 0
    to_run: int = 0  # splatted **params: left to the run, whose repair loop fixes them from the traceback
    missed: int = 0
    unwanted: int = 0
    nonmechanical: int = 0
    optional: int = 0
    renames_followed: int = 0
    renames_engineers: int = 0
    renames_reported: int = 0
    false_blocks: int = 0  # a hand edit asked (or the file blocked) for a call the engineers left unchanged
    real_breaks: int = 0  # such calls that reading the code shows to be real breaks the engineers left
    lines: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for k in (
            "same",
            "different",
            "meaning",
            "reported",
            "to_run",
            "missed",
            "unwanted",
            "nonmechanical",
            "optional",
            "renames_followed",
            "renames_engineers",
            "renames_reported",
            "false_blocks",
            "real_breaks",
        ):
            setattr(self, k, getattr(self, k) + getattr(other, k))


def replay(clone: str, sha: str, parent: str, bench_op: str, timeout: float) -> Tally:
    t = Tally()
    git(clone, "checkout", "-q", "-f", "--detach", sha)
    git(clone, "clean", "-q", "-fdx")
    # (path at parent, path at commit) of benchmark files the engineers edited, put back and committed
    pairs = replay_commit(clone, sha, lambda p: p.startswith(BENCH_PREFIXES)).pairs
    with open(os.path.join(clone, "pyproject.toml"), "a") as f:
        f.write(CONFIG)
    report = os.path.join(tempfile.mkdtemp(prefix="replay-"), "fix.json")
    start = time.monotonic()
    try:
        p = subprocess.run(
            [bench_op, "fix", "--from-ref", parent, "--to-ref", "HEAD", "--json", report],
            cwd=clone,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        rc = p.returncode
    except subprocess.TimeoutExpired:
        t.lines.append(f"  bench-op fix timed out after {timeout:.0f} s")
        return t
    took = time.monotonic() - start
    data: dict = {"changes": [], "findings": []}
    if os.path.exists(report):
        with open(report) as f:
            data = json.load(f)
    t.lines.append(
        f"  bench-op fix: exit {rc}, {took:.1f} s, {len(data.get('changes', []))} changes, "
        f"{len(data.get('findings', []))} findings"
    )
    if rc == 3:
        t.lines.append("  " + (p.stdout + p.stderr).strip().splitlines()[-1])
    sigs: dict[str, inspect.Signature | None] = {}
    old_sigs: dict[str, inspect.Signature | None] = {}
    rename: dict[str, str] = {}
    names: set[str] = set()
    for c in data.get("changes", []):
        old = (c.get("old") or "").rsplit(".", 1)[-1]
        new = (c.get("new") or "").rsplit(".", 1)[-1]
        for n in (old, new):
            if n:
                names.add(n)
        if new:
            sigs[new] = _sig_from(c.get("new_signature"))
        if old:
            old_sigs[old] = _sig_from(c.get("old_signature"))
        if old and new and old != new:
            rename[old] = new
    # Classes the engineers renamed: every old name they replaced with a new one in the benchmarks.
    findings = data.get("findings", [])
    reported_lines = {
        (f["path"], f["line"])
        for f in findings
        if not f.get("fixed") and f.get("status") not in ("ok", "default", "unknown")
    }
    run_lines = {
        (f["path"], f["line"]) for f in findings if not f.get("fixed") and f.get("status") == "unknown"
    }
    _count_blocks(t, clone, sha, parent, findings)
    lib_before, lib_after = _library_classes(clone, parent), _library_classes(clone, sha)
    for old_path, new_path in pairs:
        before = show(clone, parent, old_path)
        eng = show(clone, sha, new_path)
        with open(os.path.join(clone, new_path)) as f:
            ours = f.read()
        all_names = names | _class_like(before) | _class_like(eng)
        for o_name, n_name in _renamed_names(before, eng):
            if (
                o_name not in lib_before
                or o_name in lib_after
                or n_name not in lib_after
                or n_name in lib_before
                or re.search(rf"^class {o_name}\b", before or "", re.MULTILINE)
            ):
                continue  # not a library class renamed (a benchmark's own class, a base swapped, a merge)
            t.renames_engineers += 1
            words = _code_names(ours)
            if n_name in words and o_name not in words:
                t.renames_followed += 1
            elif any(
                f["path"] == new_path
                and not f.get("fixed")
                and f.get("status") not in ("ok", "default", "unknown")
                and o_name in f.get("call", "")
                for f in findings
            ):
                t.renames_reported += 1  # left for a hand edit, with the reason (a choice with no home, ...)
                t.lines.append(f"  rename reported: {new_path}: {o_name} -> {n_name}")
            else:
                t.lines.append(f"  rename not followed: {new_path}: {o_name} -> {n_name}")
        before_names = _code_names(before or "")
        cb, ce, co = calls_in(before, all_names), calls_in(eng, all_names), calls_in(ours, all_names)
        for (fn, name), olds in cb.items():
            new_name = rename.get(name, name)
            eng_calls = ce.get((fn, new_name)) or ce.get((fn, name)) or []
            our_calls = co.get((fn, new_name)) or co.get((fn, name)) or []
            if len(eng_calls) != len(olds) or len(our_calls) != len(olds):
                continue  # the engineers rewrote the function: no call-by-call pairing
            eng_new_name = eng_calls[0].name
            sig = sigs.get(eng_new_name) or sigs.get(name)
            for o, e, u in zip(olds, eng_calls, our_calls):
                eng_changed = _norm(ast.unparse(o.node)) != _norm(ast.unparse(e.node))
                ours_changed = _norm(ast.unparse(o.node)) != _norm(ast.unparse(u.node))
                if not eng_changed:
                    if ours_changed:
                        t.unwanted += 1
                        t.lines.append(f"  unwanted: {new_path}:{o.node.lineno} {o.text} -> {u.text}")
                    continue
                # Mechanical: every value the engineers pass was passed before, or is a variable at hand,
                # and every parameter both signatures have keeps its value (tune=tune -> tune=True, or
                # dropping tune=tune, changes what is measured: the engineers' choice, not a fix).
                # Classes bench-op reports no change for: their signatures from a quick ast read of both
                # commits.
                sig_old = old_sigs.get(o.name) or _ast_sig(clone, parent, o.name)
                sig_n = sig or _ast_sig(clone, sha, e.name)
                bo, bo_new, be = binding(o.node, sig_old), binding(o.node, sig_n), binding(e.node, sig_n)
                shared = set(sig_old.parameters) & set(sig_n.parameters) if sig_old and sig_n else set()
                splats = sum(isinstance(a, ast.Starred) for a in e.node.args) + sum(
                    k.arg is None for k in e.node.keywords
                )
                old_splats = sum(isinstance(a, ast.Starred) for a in o.node.args) + sum(
                    k.arg is None for k in o.node.keywords
                )
                if e.name == o.name and (
                    splats > old_splats
                    or any(
                        not _IDENT.fullmatch(v) or v in ("True", "False", "None") or v not in before_names
                        for v in _values(e.node) - _values(o.node)
                    )
                    or (bo is not None and be is not None and any(bo.get(k) != be.get(k) for k in shared))
                ):
                    t.nonmechanical += 1
                    continue
                if e.name == o.name and bo is not None and bo == bo_new:
                    t.optional += 1  # the old call still binds with the same meaning: a clean-up, not a fix
                    continue
                if not ours_changed:

                    def hit(lines: set[tuple[str, int]], o: Call = o, path: str = new_path) -> bool:
                        return any(
                            p_ == path and o.node.lineno <= ln <= (o.node.end_lineno or o.node.lineno)
                            for p_, ln in lines
                        )

                    if hit(run_lines):
                        t.to_run += 1
                        t.lines.append(
                            f"  left to the run: {new_path}:{o.node.lineno} {o.text} (engineers: {e.text})"
                        )
                    elif hit(reported_lines):
                        t.reported += 1
                        t.lines.append(
                            f"  reported: {new_path}:{o.node.lineno} {o.text} (engineers: {e.text})"
                        )
                    else:
                        t.missed += 1
                        t.lines.append(f"  missed: {new_path}:{o.node.lineno} {o.text} (engineers: {e.text})")
                    continue
                be, bu = binding(e.node, sig), binding(u.node, sig)
                if (be is not None and be == bu and e.name == u.name) or _norm(ast.unparse(e.node)) == _norm(
                    ast.unparse(u.node)
                ):
                    t.same += 1
                    continue
                t.different += 1
                differs = (
                    be is None
                    or bu is None
                    or any(be.get(k) != v for k, v in bu.items())
                    or any(k not in bu for k in be)
                )
                if differs and e.name == u.name:
                    t.meaning += 1
                t.lines.append(
                    f"  different{' (meaning differs)' if differs else ''}: {new_path}:{o.node.lineno} "
                    f"{o.text}\n      engineers: {e.text}\n      bench-op:  {u.text}"
                )
    return t


VERDICTS: dict[str, str] = {}  # "<sha10>:<path>:<line>" -> what reading the code showed ("real: ...")


def _count_blocks(t: Tally, clone: str, sha: str, parent: str, findings: list[dict]) -> None:
    """Every call bench-op asks a hand edit for that the engineers left exactly as it was at the commit: a
    false block, unless reading the code shows it is a real break they left (listed in --verdicts)."""
    for f in findings:
        if f.get("fixed") or f.get("status") in ("ok", "default", "unknown"):
            continue
        path, line = f["path"], f["line"]
        ours = _call_at(show(clone, parent, path), line)
        if ours is None:
            continue
        fn, text = ours
        engineers = {(g, x) for g, x in _all_calls(show(clone, sha, path))}
        if (fn, text) not in engineers:
            continue  # the engineers changed it: a hand edit asked there is no false block
        key = f"{sha[:10]}:{path}:{line}"
        verdict = VERDICTS.get(key, "")
        if verdict.startswith("real"):
            t.real_breaks += 1
            t.lines.append(
                f"  real break left by the engineers: {path}:{line} {f.get('text') or f['call']} ({verdict})"
            )
        else:
            t.false_blocks += 1
            t.lines.append(
                f"  false block: {path}:{line} {f.get('text') or f['call']}: "
                f"{f.get('why_not') or f.get('problem')}"
            )


def _all_calls(text: str | None) -> list[tuple[str, str]]:
    """(enclosing function, normalised source) of every call in a module."""
    if text is None:
        return []
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    out: list[tuple[str, str]] = []

    def visit(node: ast.AST, fn: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child.name)
                continue
            if isinstance(child, ast.Call):
                out.append((fn, _norm(ast.unparse(child))))
            visit(child, fn)

    visit(tree, "")
    return out


def _call_at(text: str | None, line: int) -> tuple[str, str] | None:
    """The outermost call that starts on `line`, with its enclosing function."""
    if text is None:
        return None
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    found: list[tuple[str, str]] = []

    def visit(node: ast.AST, fn: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child.name)
                continue
            if isinstance(child, ast.Call) and child.lineno == line:
                found.append((fn, _norm(ast.unparse(child))))
            visit(child, fn)

    visit(tree, "")
    return found[0] if found else None


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _ast_sig(repo: str, rev: str, name: str) -> inspect.Signature | None:
    """The constructor of top-level class `name` (its own
    `__init__`, without self) at `rev`, read with ast.
    """
    hits = git(
        repo,
        "grep",
        "-l",
        "-E",
        rf"^class {name}\b",
        rev,
        "--",
        "*.py",
        *[f":!{p}" for p in BENCH_PREFIXES],
        check=False,
    ).split()
    for hit in hits:
        text = show(repo, rev, hit.split(":", 1)[1])
        try:
            tree = ast.parse(text or "")
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                init = next(
                    (b for b in node.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None
                )
                if init is None:
                    return None
                full = _sig_from(f"({ast.unparse(init.args)})")
                if full is None:
                    return None
                return full.replace(parameters=list(full.parameters.values())[1:])
    return None


def _library_classes(repo: str, rev: str) -> set[str]:
    """Names of the top-level classes defined outside the benchmarks at `rev`."""
    out = git(
        repo,
        "grep",
        "-h",
        "-o",
        "-E",
        r"^class [A-Za-z_][A-Za-z0-9_]*",
        rev,
        "--",
        "*.py",
        *[f":!{p}" for p in BENCH_PREFIXES],
        check=False,
    )
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def _code_names(text: str) -> set[str]:
    """Names in code, not in strings or comments (docstrings mention classes too; bench-op leaves prose
    alone)."""
    import io
    import tokenize

    try:
        return {
            t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.NAME
        }
    except (tokenize.TokenError, SyntaxError):
        return set(_IDENT.findall(text))


def _renamed_names(before: str | None, after: str | None) -> set[tuple[str, str]]:
    """Class-like names the engineers replaced in a file: a line that differs only by that swap,
    the old name gone from the file and the new one not there before."""
    if before is None or after is None:
        return set()
    from benchop_hook.analysis.renames import substitutions

    wb, wa = _code_names(before), _code_names(after)
    return {
        (o, n)
        for o, n in substitutions(before, after)
        if o[:1].isupper() and n[:1].isupper() and o not in wa and n not in wb
    }


def _class_like(text: str | None) -> set[str]:
    """CamelCase names called in a file: the engineers may have renamed any of them."""
    if text is None:
        return set()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            name = _func_name(n.func)
            if name and name[:1].isupper() and ("Op" in name or name.endswith(("Test", "Workload"))):
                out.add(name)
    return out


_DEFINITIONS = """\
How each call is counted (only calls the engineers fixed mechanically count: every value their new call
passes that the old call did not is a name already in the file, no splat is added, and every parameter
both signatures have keeps its value; calls they changed beyond that, and calls that still bound with the
same meaning, are counted apart and not in the denominator):
  same             bench-op rewrote the call and it binds the new constructor as the engineers' call does
                   (same class, same value on every parameter), or is the same text
  different        bench-op rewrote it and the binding differs; "meaning differs" when a parameter gets
                   a different value or one side drops a value the other passes (same class)
  reported         bench-op left it and reported it for a hand edit, with the reason
  left to the run  bench-op left it as "unknown: the run decides": it splats a *args/**kwargs whose
                   contents bench-op can't see, so no rewrite can be proven to bind; the run decides
  missed           the engineers changed it; bench-op neither rewrote nor reported it
  unwanted         bench-op rewrote a call the engineers left alone (not in the denominator; should be 0)
A rename is followed when the new class name is in bench-op's file and the old one is not; reported when
a finding on that file names the old class and says why it needs a hand edit."""


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clone", help="a clone of tile-ai/TileOPs (only read; a scratch copy is made)")
    ap.add_argument("--max-commits", type=int, default=20)
    ap.add_argument("--commits", nargs="*", help="replay these commits instead of searching history")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "replay.txt"))
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument(
        "--verdicts",
        default=os.path.join(HERE, "replay_verdicts.json"),
        help="what reading the code showed for calls left unchanged that bench-op reports: real breaks",
    )
    ap.add_argument(
        "--bench-op",
        default=shutil.which("bench-op") or os.path.join(os.path.dirname(sys.executable), "bench-op"),
    )
    args = ap.parse_args(list(argv) if argv is not None else None)
    if os.path.exists(args.verdicts):
        with open(args.verdicts, encoding="utf-8") as f:
            VERDICTS.update(json.load(f))
    scratch = tempfile.mkdtemp(prefix="replay-clone-")
    clone = os.path.join(scratch, "tileops")
    subprocess.run(["git", "clone", "-q", "--no-checkout", args.clone, clone], check=True)
    if args.commits:
        todo = []
        for c in args.commits:
            sha = git(clone, "rev-parse", c).strip()
            parent = git(clone, "rev-parse", f"{sha}^1").strip()
            todo.append((sha, parent, git(clone, "log", "-1", "--format=%s", sha).strip()))
    else:
        todo = ctor_commits(clone, args.max_commits)
    total = Tally()
    lines = [
        f"bench-op replay of {len(todo)} TileOPs commits ({args.clone})",
        "",
        *_DEFINITIONS.splitlines(),
        "",
    ]
    for sha, parent, subject in todo:
        t = replay(clone, sha, parent, args.bench_op, args.timeout)
        total.add(t)
        lines.append(f"{sha[:10]} {subject}")
        lines.append(
            f"  same {t.same}, different {t.different} (meaning differs {t.meaning}), reported {t.reported}, "
            f"left to the run {t.to_run}, missed {t.missed}, unwanted {t.unwanted}, renames followed "
            f"{t.renames_followed}/{t.renames_engineers}, false blocks {t.false_blocks}"
        )
        lines.extend(t.lines)
        print("\n".join(lines[-(len(t.lines) + 2) :]), flush=True)
    mech = total.same + total.different + total.reported + total.to_run + total.missed
    pct = 100.0 * total.same / mech if mech else 100.0
    static = mech - total.to_run
    pct_static = 100.0 * total.same / static if static else 100.0
    lines += [
        "",
        "summary:",
        (
            f"  calls the engineers fixed mechanically: {mech}; fixed the same way by the static pass: "
            f"{total.same} "
            f"({pct:.1f}%; {pct_static:.1f}% of the {static} not left to the run)"
        ),
        (
            f"  different: {total.different} (meaning differs: {total.meaning}); reported: {total.reported}; "
            f"left to the run (an opaque *args/**kwargs splat): {total.to_run}; "
            f"missed: {total.missed}; unwanted rewrites: {total.unwanted}"
        ),
        (
            f"  renames the engineers followed: {total.renames_engineers}; followed by bench-op: "
            f"{total.renames_followed}; "
            f"reported for a hand edit: {total.renames_reported}"
        ),
        (
            "  false blocks (a hand edit asked for a call the engineers left unchanged): "
            f"{total.false_blocks}; real breaks the engineers left, read in the code: {total.real_breaks}"
        ),
        f"  calls the engineers changed beyond moving arguments (not counted): {total.nonmechanical}",
        (
            "  calls the engineers tidied that still bound with the same meaning, or whose class's "
            "constructor "
            f"did not change in that commit (not counted): {total.optional}"
        ),
    ]
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[-6:]))
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
