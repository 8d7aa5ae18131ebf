"""What a changed constructor's body does with each parameter (analysis/flow.py): old and new class sources
side by side, and the entry each parameter gets. Pure, in-process: the classes are parsed from strings, the
changed class is the last one in its source and its ancestors are the classes of that source it names."""

from __future__ import annotations

import ast
import textwrap

import pytest

from benchop_hook.analysis.flow import (
    Entry,
    FoldedInto,
    Introduced,
    Kept,
    Places,
    Renamed,
    ReplacedByConstant,
    Slot,
    Transformed,
    Unknown,
    param_flow,
)


def lineage(source: str) -> list[ast.ClassDef]:
    """The last class of `source` and its ancestors defined there, nearest first."""
    classes = [c for c in ast.parse(textwrap.dedent(source)).body if isinstance(c, ast.ClassDef)]
    named = {c.name: c for c in classes}
    out: list[ast.ClassDef] = []
    queue = [classes[-1]]
    while queue:
        cls = queue.pop(0)
        if cls not in out:
            out.append(cls)
            queue += [named[b.id] for b in cls.bases if isinstance(b, ast.Name) and b.id in named]
    return out


def op(params: str, *lines: str, base: str = "") -> str:
    """The source of a class `Op` (derived from `base`) whose `__init__(self, <params>)` runs `lines`."""
    head = f"class Op({base}):" if base else "class Op:"
    return "\n".join([head, f"    def __init__(self, {params}):", *("        " + x for x in lines), ""])


def entries(old: str, new: str, old_params: list[str], new_params: list[str]) -> dict[str, Entry]:
    """Each parameter's entry, old ones as `name`, new ones as `+name` (where both sides have the name,
    both are given)."""
    flow = param_flow(lineage(old), lineage(new), old_params, new_params)
    return {p.name: p.entry for p in flow.old} | {"+" + p.name: p.entry for p in flow.new}


TIMER_OLD = """
class Timer:
    def __init__(self, fn, use_sync=True):
        self.fn = fn
        self.use_sync = use_sync
        if self.use_sync:
            self.events = []
"""

TIMER_NEW_ATTRIBUTE_RENAMED = """
class Timer:
    def __init__(self, fn, sync=True):
        self.fn = fn
        self.sync = sync
        if self.sync:
            self.events = []
"""

TIMER_NEW_ATTRIBUTE_KEPT = """
class Timer:
    def __init__(self, fn, sync=True):
        self.fn = fn
        self.use_sync = sync
        if self.use_sync:
            self.events = []
"""

SLOT_OLD = """
class Gemm:
    def __init__(self, n, block_m, block_n):
        self.n = n
        self.block_m = block_m
        self.block_n = block_n
        self.kernel = make_kernel(n, block_m=block_m, block_n=block_n)
"""

SLOT_NEW = """
class Gemm:
    def __init__(self, size):
        self.size = size
        self.kernel = make_kernel(size)
"""

PLURAL_OLD = """
class Reduce:
    def __init__(self, input, dim):
        self.input = input
        self.plan = prepare(self.input, dim, stages=2)
        assert self.input is not None
"""

PLURAL_NEW = """
class Reduce:
    def __init__(self, inputs, dim):
        self.inputs = inputs
        self.plan = prepare(self.inputs, dim, stages=2)
        assert self.inputs is not None
"""

HELPER_OLD = """
class Attention:
    def __init__(self, heads, causal):
        self.heads = heads
        self._setup(causal)

    def _setup(self, flag):
        self.mask = build_mask(self.heads, flag)
"""

HELPER_NEW = """
class Attention:
    def __init__(self, heads, is_causal):
        self.heads = heads
        self._setup(is_causal)

    def _setup(self, flag):
        self.mask = build_mask(self.heads, flag)
"""

PARTIAL_OLD = """
class Timer:
    def __init__(self, use_sync):
        self.use_sync = use_sync
        self.clock = make_clock(wait=use_sync)
"""

PARTIAL_NEW = """
class Timer:
    def __init__(self, sync):
        self.sync = sync
        self.clock = make_clock()
"""


@pytest.mark.parametrize(
    ("old", "new", "old_params", "new_params", "expected"),
    [
        pytest.param(
            TIMER_OLD,
            TIMER_NEW_ATTRIBUTE_RENAMED,
            ["fn", "use_sync"],
            ["fn", "sync"],
            {"fn": Kept("fn"), "use_sync": Renamed("use_sync", "sync", exact=True), "+fn": Kept("fn")},
            id="flag renamed, its attribute too",
        ),
        pytest.param(
            TIMER_OLD,
            TIMER_NEW_ATTRIBUTE_KEPT,
            ["fn", "use_sync"],
            ["fn", "sync"],
            {"use_sync": Renamed("use_sync", "sync", exact=True), "+sync": Renamed("use_sync", "sync", True)},
            id="flag renamed, its attribute not",
        ),
        pytest.param(
            SLOT_OLD,
            SLOT_NEW,
            ["n", "block_m", "block_n"],
            ["size"],
            {
                "n": Renamed("n", "size", exact=True),
                "+size": Renamed("n", "size", exact=True),
                # Their slots are gone: what the callee now does without them is not in this body.
                "block_m": Unknown("block_m"),
                "block_n": Unknown("block_n"),
            },
            id="renamed in its slot while two others left",
        ),
        pytest.param(
            PLURAL_OLD,
            PLURAL_NEW,
            ["input", "dim"],
            ["inputs", "dim"],
            {"input": Renamed("input", "inputs", exact=True), "dim": Kept("dim"), "+dim": Kept("dim")},
            id="plural, same places",
        ),
        pytest.param(
            HELPER_OLD,
            HELPER_NEW,
            ["heads", "causal"],
            ["heads", "is_causal"],
            {"causal": Renamed("causal", "is_causal", exact=True)},
            id="through a method the constructor calls",
        ),
        pytest.param(
            PARTIAL_OLD,
            PARTIAL_NEW,
            ["use_sync"],
            ["sync"],
            {"use_sync": Renamed("use_sync", "sync", exact=False)},
            id="renamed, one of its places gone",
        ),
    ],
)
def test_renamed(
    old: str, new: str, old_params: list[str], new_params: list[str], expected: dict[str, Entry]
):
    got = entries(old, new, old_params, new_params)
    assert {k: got[k] for k in expected} == expected


@pytest.mark.parametrize(
    ("old", "new", "old_params", "new_params", "expected"),
    [
        pytest.param(
            op("log_scale", "self.scale = math.exp(log_scale)"),
            op("scale", "self.scale = scale"),
            ["log_scale"],
            ["scale"],
            {
                "log_scale": Transformed("log_scale", "scale", "math.exp(log_scale)", "scale"),
                "+scale": Transformed("log_scale", "scale", "math.exp(log_scale)", "scale"),
            },
            id="exp of a log taken away",
        ),
        pytest.param(
            op("scale", "self.k = kernel(math.exp(scale))"),
            op("scale", "self.k = kernel(scale)"),
            ["scale"],
            ["scale"],
            {"scale": Transformed("scale", "scale", "math.exp(scale)", "scale")},
            id="same name, transform gone",
        ),
        pytest.param(
            op("fn", "self.fn = torch.compile(fn, mode='reduce-overhead')"),
            op("fn, mode", "self.mode = mode", "self.fn = torch.compile(fn, mode=self.mode)"),
            ["fn"],
            ["fn", "mode"],
            {"fn": Kept("fn"), "+mode": Introduced("mode", "'reduce-overhead'")},
            id="a mode where a literal was",
        ),
        pytest.param(
            op("x, p", "self.y = f(x, p)"),
            op("x", "self.y = f(x, 4)"),
            ["x", "p"],
            ["x"],
            {"x": Kept("x"), "p": ReplacedByConstant("p", "4")},
            id="constant in a call",
        ),
        pytest.param(
            op("dim, eps", "self.dim = dim", "self.eps = eps"),
            op("dim", "self.dim = dim", "self.eps = 1e-06"),
            ["dim", "eps"],
            ["dim"],
            {"eps": ReplacedByConstant("eps", "1e-06")},
            id="constant in an attribute",
        ),
        pytest.param(
            op("n, timeout", "self.n = n", "self.timeout = timeout"),
            op("n, cfg", "self.n = n", "self.timeout = cfg.timeout"),
            ["n", "timeout"],
            ["n", "cfg"],
            {"timeout": FoldedInto("timeout", "cfg.timeout", "cfg"), "+cfg": Unknown("cfg")},
            id="read from a config",
        ),
        pytest.param(
            op("n, timeout", "self.timeout = timeout", "self.k = launch(n, wait=self.timeout)"),
            op("n, cfg", "self.cfg = cfg", "self.k = launch(n, wait=self.cfg.timeout)"),
            ["n", "timeout"],
            ["n", "cfg"],
            {"timeout": FoldedInto("timeout", "cfg.timeout", "cfg"), "+cfg": Unknown("cfg")},
            id="read from a config held in an attribute",
        ),
        pytest.param(
            op("size", "self.k = build(size, 2)"),
            op("m, n", "self.k = build(m, n)"),
            ["size"],
            ["m", "n"],
            # Each slot says one thing: two new parameters, but no tie.
            {"size": Renamed("size", "m", exact=True), "+n": Introduced("n", "2")},
            id="one slot renamed, a literal's slot now a parameter",
        ),
    ],
)
def test_other_kinds(
    old: str, new: str, old_params: list[str], new_params: list[str], expected: dict[str, Entry]
):
    got = entries(old, new, old_params, new_params)
    assert {k: got[k] for k in expected} == expected


@pytest.mark.parametrize(
    ("old", "new", "old_params", "new_params"),
    [
        pytest.param(
            op("size", "self.size = size"),
            op("m, n", "self.m = m", "self.n = n"),
            ["size"],
            ["m", "n"],
            id="two new parameters could take the old place",
        ),
        pytest.param(
            op("p", "self.k = build(p)", "self.log = record(p)"),
            op("q", "self.k = other(q)"),
            ["p"],
            ["q"],
            id="the old places are not in the new body",
        ),
        pytest.param(
            op("x", "self.k = build(x, 128)"),
            op("x, a, b", "self.k = build(x, a * b)"),
            ["x"],
            ["x", "a", "b"],
            id="a literal replaced by an expression of two new parameters",
        ),
        pytest.param(
            op("timeout", "self.timeout = timeout"),
            op("cfg", "self.cfg = cfg"),
            ["timeout"],
            ["cfg"],
            id="only position pairs two unrelated names",
        ),
        pytest.param(
            op("a", "self.k = f(a)", "self.j = g(a)"),
            op("b, c", "self.k = f(b)", "self.j = g(c)"),
            ["a"],
            ["b", "c"],
            id="one old parameter, its places split between two new ones",
        ),
        pytest.param(
            op("n", "self.n = n", "self.k = build(n)"),
            op("x", "self.n = None", "self.k = None"),
            ["n"],
            ["x"],
            # The attribute holds None now, but the build that read `n` is gone: no constant callers get.
            id="a constant at one place, the others gone",
        ),
        pytest.param(
            op("n, dtype", "self.k = Kernel(n, dtype)"),
            "class Base:\n    def __init__(self, n, dtype):\n        self.k = Kernel(n, dtype)\n"
            + op("*args, **kwargs", "super().__init__(*args, **kwargs)", base="Base"),
            ["n", "dtype"],
            ["args", "kwargs"],
            # The base's `n` is whatever the splat holds: no name, and no literal either.
            id="everything passed on to the base through a splat",
        ),
    ],
)
def test_unknown(old: str, new: str, old_params: list[str], new_params: list[str]):
    got = entries(old, new, old_params, new_params)
    changed = [p for p in old_params if p not in new_params] + [
        "+" + p for p in new_params if p not in old_params
    ]
    assert {k: got[k] for k in changed} == {k: Unknown(k.lstrip("+")) for k in changed}


@pytest.mark.parametrize(
    ("old", "new", "param", "expected"),
    [
        pytest.param(
            op("p", "self.k = KernelA(p)"),
            op("p", "self.k = KernelB(p)"),
            "p",
            Unknown("p"),
            id="another callee is another place, not a transform",
        ),
        pytest.param(
            op("p, q", "self.k = build(p)", "self.q = q"),
            op("p, q", "self.k = build(p)", "self.q = q", "self.extra = helper()"),
            "p",
            Kept("p"),
            id="untouched places",
        ),
        pytest.param(
            op("kernel_map", "self.dispatch(kernel_map)"),
            op("kernel_map", "self.dispatch({'gemm': Gemm, **(kernel_map or {})})"),
            "kernel_map",
            Transformed("kernel_map", "kernel_map", "kernel_map", "{'gemm': Gemm, **(kernel_map or {})}"),
            id="a default merged in",
        ),
    ],
)
def test_kept(old: str, new: str, param: str, expected: Entry):
    got = entries(old, new, [param], [param])
    assert got[param] == got["+" + param] == expected


BASE = """
class Base:
    def __init__(self, size, block=32, use_sync=False):
        self.size = size
        self.use_sync = use_sync
        self.kernel = make_kernel(size, block=block)
"""


@pytest.mark.parametrize(
    ("old", "new", "old_params", "new_params", "expected"),
    [
        pytest.param(
            BASE + op("n, use_sync", "super().__init__(n, use_sync=use_sync)", base="Base"),
            BASE + op("n, sync", "super().__init__(n, use_sync=sync)", base="Base"),
            ["n", "use_sync"],
            ["n", "sync"],
            {"use_sync": Renamed("use_sync", "sync", exact=True), "n": Kept("n")},
            id="keyword passed to the base",
        ),
        pytest.param(
            BASE + op("n", "super().__init__(n, 64)", base="Base"),
            BASE + op("n, block", "super().__init__(n, block)", base="Base"),
            ["n"],
            ["n", "block"],
            {"+block": Introduced("block", "64")},
            id="positional, where the subclass passed a literal",
        ),
        pytest.param(
            BASE + op("n", "super().__init__(n)", base="Base"),
            BASE + op("n, block", "super().__init__(n, block=block)", base="Base"),
            ["n"],
            ["n", "block"],
            {"+block": Introduced("block", "32")},
            id="the base's default was what callers got",
        ),
        pytest.param(
            BASE + op("n, eps", "Base.__init__(self, n)", "self.eps = eps", base="Base"),
            BASE + op("n", "Base.__init__(self, n)", "self.eps = 1e-05", base="Base"),
            ["n", "eps"],
            ["n"],
            {"eps": ReplacedByConstant("eps", "1e-05"), "n": Kept("n")},
            id="the base called by name",
        ),
    ],
)
def test_through_the_base(
    old: str, new: str, old_params: list[str], new_params: list[str], expected: dict[str, Entry]
):
    got = entries(old, new, old_params, new_params)
    assert {k: got[k] for k in expected} == expected


CHOICES = """
class Attention(Base):
    def __init__(self, heads, backend, dtype, causal, layout, scale):
        super().__init__(heads)
        self.backend = backend
        self.kernel = pick(heads, impl=self.backend, dtype=dtype)
        if causal:
            self.mask = make_mask(heads)
        if scale <= 0:
            raise ValueError("scale must be positive")
        self.transposed = layout == "bhsd"
        self.scale = scale

class Base:
    def __init__(self, count):
        self.count = count
        assert count > 0
"""


@pytest.mark.parametrize(
    ("param", "places"),
    [
        pytest.param(
            "heads",
            Places(
                stored=("count",),
                slots=(Slot("super().__init__", 0), Slot("pick", 0), Slot("make_mask", 0)),
                tests=("heads > 0",),
            ),
            id="stored by the base, checked there",
        ),
        pytest.param(
            "backend",
            Places(stored=("backend",), slots=(Slot("pick", "impl"),), choice=True),
            id="a mode-like slot, through its attribute",
        ),
        pytest.param("dtype", Places(slots=(Slot("pick", "dtype"),)), id="a plain slot"),
        pytest.param("causal", Places(tests=("causal",), choice=True), id="a branch"),
        pytest.param("layout", Places(choice=True), id="compared with a string"),
        pytest.param("scale", Places(stored=("scale",), tests=("scale <= 0",)), id="stored and checked"),
    ],
)
def test_places(param: str, places: Places):
    classes = [c for c in ast.parse(CHOICES).body if isinstance(c, ast.ClassDef)]
    params = ["heads", "backend", "dtype", "causal", "layout", "scale"]
    flow = param_flow(classes, classes, params, params)
    found = flow.of_old(param)
    assert found is not None
    assert found.places == places
    assert found.entry == Kept(param)


def test_a_class_without_the_method_keeps_nothing_it_cannot_see():
    flow = param_flow(lineage("class Op:\n pass\n"), lineage("class Op:\n pass\n"), ["a", "b"], ["b", "c"])
    assert [p.entry for p in flow.old] == [Unknown("a"), Kept("b")]
    assert [p.entry for p in flow.new] == [Kept("b"), Unknown("c")]
    assert flow.of_new("c") is not None and flow.of_new("z") is None
