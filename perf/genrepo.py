"""Generate a kernel library the size of TileOPs for bench-op's speed measurements.

About 300 op files holding 400 Op classes in 40 families (a family base class with
the shared constructor, its members spread over several files), 80 benchmark files
and 100 test files, each file of realistic length, in one commit. `--change` then
stages or commits one family-base constructor change that reaches 10 benchmark files.

Usage: python perf/genrepo.py DEST [--seed N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import textwrap

FAMILIES = 40
MEMBERS = 9  # per family, plus the base: 400 classes
OP_FILES = 300
BENCH_FILES = 80
TEST_FILES = 100
CHANGED_FAMILY = 0

KERNEL_BODY = """
    def _tile_config(self):
        block_m = 128 if self.{p0} >= 4096 else 64
        block_n = 128
        num_stages = 3 if self.tune else 2
        return {{"block_m": block_m, "block_n": block_n, "num_stages": num_stages}}

    def _validate(self, x):
        if x.dtype != self.dtype:
            raise ValueError(f"expected {{self.dtype}}, got {{x.dtype}}")
        if x.dim() < 1:
            raise ValueError("expected at least one dimension")
        return x

    def _grid(self, n):
        cfg = self._tile_config()
        return ((n + cfg["block_m"] - 1) // cfg["block_m"],)

    def flops(self):
        return 2 * self.{p0} * self.{p1}

    def bytes_moved(self):
        return 4 * self.{p0} * self.{p1}
"""


def family_base(f: int, params: list[str]) -> str:
    args = ", ".join(params)
    assigns = "\n".join(f"        self.{p} = {p}" for p in params)
    return (
        f'"""Family {f}: shared constructor of its operators."""\n\nimport torch\n\nfrom ..op import Op\n\n\n'
        f"class Family{f}Base(Op):\n"
        f'    """Base of family {f}."""\n\n'
        f"    def __init__(self, {args}, dtype, tune=False):\n{assigns}\n"
        "        self.dtype = dtype\n        self.tune = tune\n\n"
        "    def forward(self, x):\n        return self.compute(self._validate(x))\n\n"
        "    def compute(self, x):\n        raise NotImplementedError\n"
    ) + KERNEL_BODY.format(p0=params[0], p1=params[1])


def member(f: int, m: int, standalone: bool) -> str:
    if standalone:
        return textwrap.dedent(f'''

            class Op{f}x{m}(Op):
                """A standalone operator."""

                def __init__(self, batch, seq_len, dim, dtype, causal=False):
                    self.batch, self.seq_len, self.dim = batch, seq_len, dim
                    self.dtype = dtype
                    self.causal = causal
                    self.tune = False

                def forward(self, x):
                    y = x * 2
                    for _ in range(2):
                        y = y + x
                    return y

                def flops(self):
                    return self.batch * self.seq_len * self.dim
            ''')
    return textwrap.dedent(f'''

        class Op{f}x{m}(Family{f}Base):
            """Member {m} of family {f}."""

            def compute(self, x):
                y = x.float()
                if self.tune:
                    y = y * 1.0
                out = y.sum(dim=-1) if {m} % 2 else y.mean(dim=-1)
                return out.to(self.dtype)

            def describe(self):
                return f"Op{f}x{m}(tune={{self.tune}})"
        ''')


def generate(
    dest: str,
    seed: int = 0,
    *,
    families: int = FAMILIES,
    members: int = MEMBERS,
    op_files: int = OP_FILES,
    bench_files: int = BENCH_FILES,
    test_files: int = TEST_FILES,
) -> dict[str, object]:
    """The defaults are the TileOPs-like size speed.py measures; perf/real.py scales them."""
    FAMILIES, MEMBERS, OP_FILES, BENCH_FILES, TEST_FILES = (
        families,
        members,
        op_files,
        bench_files,
        test_files,
    )
    pkg = os.path.join(dest, "src", "bigtile")
    ops = os.path.join(pkg, "ops")
    os.makedirs(ops, exist_ok=True)
    open(os.path.join(pkg, "__init__.py"), "w").write('"""bigtile"""\n')
    open(os.path.join(ops, "op.py"), "w").write(
        textwrap.dedent("""\
        class Op:
            def __call__(self, *args, **kwargs):
                return self.forward(*args, **kwargs)

            def forward(self, *args, **kwargs):
                raise NotImplementedError
        """)
    )
    exports: list[tuple[str, str]] = []
    families: dict[int, list[str]] = {}
    files_written = 1
    member_files = OP_FILES - 2 - 2 * FAMILIES  # op.py, ops/__init__.py, and a base and __init__ per family
    slots = [[] for _ in range(member_files)]
    for f in range(FAMILIES):
        fam_dir = os.path.join(ops, f"family{f}")
        os.makedirs(fam_dir, exist_ok=True)
        params = ["M", "N"] if f % 3 else ["batch", "hidden"]
        open(os.path.join(fam_dir, "base.py"), "w").write(family_base(f, params))
        open(os.path.join(fam_dir, "__init__.py"), "w").write("")
        files_written += 1
        exports.append((f"family{f}.base", f"Family{f}Base"))
        for m in range(MEMBERS):
            slots[(f * MEMBERS + m) % member_files].append((f, m))
    for i, members in enumerate(slots):
        f0 = members[0][0] if members else 0
        path = os.path.join(ops, f"family{f0}", f"kernels_{i}.py")
        text = '"""Kernels."""\n\nimport torch\n\nfrom ..op import Op\n'
        bases = sorted({f for f, _ in members})
        for f in bases:
            text += f"from ..family{f}.base import Family{f}Base\n"
        for f, m in members:
            standalone = m == MEMBERS - 1 and f % 2 == 1
            text += member(f, m, standalone)
            exports.append((f"family{f0}.kernels_{i}", f"Op{f}x{m}"))
            if not standalone:
                families.setdefault(f, []).append(f"Op{f}x{m}")
        open(path, "w").write(text)
        files_written += 1
    init = "".join(f"from .{mod} import {name}\n" for mod, name in exports)
    open(os.path.join(ops, "__init__.py"), "w").write(init)
    # Benchmarks: the changed family is used by exactly 10 files.
    bench = os.path.join(dest, "benchmarks", "ops")
    os.makedirs(bench, exist_ok=True)
    for b in range(BENCH_FILES):
        if b < 10:
            fams = [CHANGED_FAMILY, 1 + b % (FAMILIES - 1)]
        else:
            fams = [1 + (b * 7 + k) % (FAMILIES - 1) for k in range(2)]
        names = [n for f in fams for n in families[f][:3]]
        lines = [
            "import pytest",
            "import torch",
            "",
            f"from bigtile.ops import {', '.join(sorted(set(names)))}",
            "",
            "SHAPES = [(1024, 4096), (4096, 4096), (8192, 1024)]",
            "",
        ]
        for n in names:
            fam = int(n[2:].split("x")[0])
            args = "M, N, torch.float16" if fam % 3 else "M, N, dtype=torch.float16"
            lines += [
                "",
                "@pytest.mark.parametrize('M, N', SHAPES)",
                f"def test_{n.lower()}_bench(M, N, record_property):",
                f"    op = {n}({args})",
                "    x = torch.randn(M, N)",
                "    ms = 0.1",
                "    record_property('latency_ms', ms)",
                "    for _ in range(3):",
                "        op(x)",
                "",
            ]
        open(os.path.join(bench, f"bench_{b}.py"), "w").write("\n".join(lines) + "\n")
    tests = os.path.join(dest, "tests", "ops")
    os.makedirs(tests, exist_ok=True)
    for t in range(TEST_FILES):
        f = 1 + t % (FAMILIES - 1)
        names = families[f][:3]
        lines = ["import torch", "", f"from bigtile.ops import {', '.join(names)}", ""]
        for n in names:
            args = "64, 128, torch.float32" if f % 3 else "64, 128, dtype=torch.float32"
            lines += [
                "",
                f"def test_{n.lower()}():",
                f"    op = {n}({args})",
                "    x = torch.randn(64, 128)",
                "    assert op(x).shape[0] == 64",
                "",
            ]
        open(os.path.join(tests, f"test_{t}.py"), "w").write("\n".join(lines) + "\n")
    open(os.path.join(dest, "pyproject.toml"), "w").write(
        '[project]\nname = "bigtile"\nversion = "0"\n\n[tool.bench-op]\nop-paths = '
        '["src/bigtile/ops/**/*.py"]\n'
    )
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="p",
        GIT_AUTHOR_EMAIL="p@x",
        GIT_COMMITTER_NAME="p",
        GIT_COMMITTER_EMAIL="p@x",
    )
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=dest, check=True)
    subprocess.run(["git", "add", "-A"], cwd=dest, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "bigtile"], cwd=dest, check=True, env=env)
    n_classes = 1 + FAMILIES * (1 + MEMBERS)
    n_files = sum(1 for _, _, fs in os.walk(ops) for f in fs if f.endswith(".py"))
    return {"op_files": n_files, "classes": n_classes, "bench_files": BENCH_FILES, "test_files": TEST_FILES}


def change_family_base(dest: str) -> None:
    """Family 0's constructor loses its first size: it comes from the input now."""
    path = os.path.join(dest, "src", "bigtile", "ops", f"family{CHANGED_FAMILY}", "base.py")
    text = open(path).read()
    text = text.replace(
        "def __init__(self, batch, hidden, dtype, tune=False):",
        "def __init__(self, hidden, dtype, *, tune=False):",
    )
    text = text.replace("        self.batch = batch\n", "        self.batch = None\n")
    open(path, "w").write(text)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("dest")
    ap.add_argument("--seed", type=int, default=0)
    ns = ap.parse_args()
    print(generate(ns.dest, ns.seed))
