"""What the constructor's own code says, end to end on the fixture library: each class of first-contact
mistake, with the rule that now decides it. Each Op lives in a module of its own, so the fixture's other Ops
are untouched."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.helpers.repo import Repo

OP = "src/minitile/ops/{name}.py"
BENCH = "benchmarks/ops/bench_{name}.py"
TEST = "tests/ops/test_{name}.py"


@dataclass(frozen=True)
class Case:
    name: str
    old: str  # the Op module before
    new: str  # and after
    bench: str  # the benchmark's call, in a function with n, dtype and a few values in scope
    tests: tuple[str, str] | None = None  # the test's call before and after, when the commit updates it


def _module(cls_body: str) -> str:
    return "import math\n\nimport torch\n\nfrom .op import Op\n\n\n" + cls_body


def _run(repo: Repo, c: Case) -> tuple[int, str, str]:
    _stage(repo, c)
    r = repo.cli("fix")
    return r.returncode, r.stdout, repo.read(BENCH.format(name=c.name))


def _stage(repo: Repo, c: Case) -> None:
    """The Op as it was, committed with its benchmark (and test); its change staged."""
    op = OP.format(name=c.name)
    cls = c.old.split("class ", 1)[1].split("(", 1)[0]
    repo.write(op, _module(c.old))
    repo.write(
        BENCH.format(name=c.name),
        f"import torch\n\nfrom minitile.ops.{c.name} import {cls}\n\n\ndef test_bench():\n"
        f"    n, dtype, eps = 64, torch.float32, 1e-5\n    op = {c.bench}\n    assert op\n",
    )
    if c.tests:
        repo.write(
            TEST.format(name=c.name),
            f"import torch\n\nfrom minitile.ops.{c.name} import {cls}\n\n\ndef test_it():\n    "
            f"{c.tests[0]}\n",
        )
    repo.commit(f"a {c.name} op")
    repo.write(op, _module(c.new))
    if c.tests:
        repo.replace(TEST.format(name=c.name), c.tests[0], c.tests[1])
    repo.git("add", "-A")


# The flag moved behind another parameter: neither its name nor its slot says it was renamed; the body does.
TIMER = Case(
    "timer",
    "class TimerOp(Op):\n    def __init__(self, n, use_sync=True, warmup=3):\n        self.n = n\n"
    "        self.warmup = warmup\n        self.use_sync = use_sync\n        if self.use_sync:\n"
    "            torch.cuda.synchronize\n",
    "class TimerOp(Op):\n    def __init__(self, n, warmup=3, sync=True):\n        self.n = n\n"
    "        self.warmup = warmup\n        self.sync = sync\n        if self.sync:\n"
    "            torch.cuda.synchronize\n",
    "TimerOp(n, use_sync=True)",
)
COMPILED = Case(
    "compiled",
    "class CompiledOp(Op):\n    def __init__(self, n, dtype):\n        self.n = n\n        self.dtype = "
    "dtype\n"
    "        self.fn = torch.compile(self.forward, mode='reduce-overhead')\n",
    "class CompiledOp(Op):\n    def __init__(self, n, mode, dtype):\n        self.n = n\n        "
    "self.dtype = dtype\n"
    "        self.fn = torch.compile(self.forward, mode=mode)\n",
    "CompiledOp(n, dtype)",
    ("CompiledOp(4, torch.float32)", "CompiledOp(4, 'default', torch.float32)"),
)


def _eps(value: str) -> Case:
    return Case(
        "fixed_eps",
        "class FixedEpsOp(Op):\n    def __init__(self, hidden, eps=1e-6):\n        self.hidden = hidden\n"
        "        self.eps = eps\n",
        "class FixedEpsOp(Op):\n    def __init__(self, hidden):\n        self.hidden = hidden\n"
        "        self.eps = 1e-6\n",
        f"FixedEpsOp(n, eps={value})",
    )


FOLDED = Case(
    "client",
    "class ClientOp(Op):\n    def __init__(self, url, timeout=10):\n        self.url = url\n"
    "        self.timeout = timeout\n",
    "class ClientOp(Op):\n    def __init__(self, url, cfg):\n        self.url = url\n"
    "        self.timeout = cfg.timeout\n",
    "ClientOp('x', timeout=30)",
)
PRIOR = Case(
    "prior",
    "class PriorOp(Op):\n    def __init__(self, n, log_scale=0.0):\n        self.n = n\n"
    "        self.scale = math.exp(log_scale)\n",
    "class PriorOp(Op):\n    def __init__(self, n, scale=1.0):\n        self.n = n\n        self.scale = "
    "scale\n",
    "PriorOp(n, log_scale=0.5)",
)
LAYER = Case(
    "layer",
    "class LayerOp(Op):\n    def __init__(self, out_features, use_bias=True, act=None):\n"
    "        self.out = out_features\n        self.use_bias = use_bias\n        self.act = act\n",
    "class LayerOp(Op):\n    def __init__(self, units):\n        self.out = units\n",
    "LayerOp(n)",
)
PLURAL = Case(
    "plural",
    "class StackOp(Op):\n    def __init__(self, input, dim=0):\n        self.parts = list(input)\n"
    "        self.dim = dim\n",
    "class StackOp(Op):\n    def __init__(self, inputs, dim=0):\n        self.parts = list(inputs)\n"
    "        self.dim = dim\n",
    "StackOp(input=[n, n], dim=1)",
)


def test_a_renamed_flag_carries_the_call_s_value(repo: Repo) -> None:
    rc, out, text = _run(repo, TIMER)
    assert rc == 0, out
    assert "TimerOp(n, sync=True)" in text, out
    assert "BO601" in out, out


def test_a_renamed_flag_carries_the_call_s_value_not_the_example_s(repo: Repo) -> None:
    # The commit's one pair passes False; the benchmark measured True.
    pair = ("TimerOp(4, use_sync=False)", "TimerOp(4, sync=False)")
    rc, out, text = _run(repo, TIMER.__class__(**{**TIMER.__dict__, "tests": pair}))
    assert rc == 0, out
    assert "TimerOp(n, sync=True)" in text, out


def test_a_new_parameter_takes_the_literal_it_replaced_not_the_tests_value(repo: Repo) -> None:
    rc, out, text = _run(repo, COMPILED)
    assert rc == 0, out
    assert "mode='reduce-overhead'" in text, out
    assert "'default'" not in text, out
    assert "BO302" in out, out


@pytest.mark.parametrize("value, dropped", [("1e-6", True), ("1e-5", False), ("eps", False)])
def test_a_removed_value_replaced_by_a_constant(repo: Repo, value: str, dropped: bool) -> None:
    rc, out, text = _run(repo, _eps(value))
    if dropped:  # the old default, and the constant now: nothing the call chose is lost
        assert rc == 0, out
        assert "FixedEpsOp(n)" in text, out
    else:
        assert rc == 1, out
        assert "where the new class always uses 1e-06" in out and "[BO212]" in out, out
        assert f"FixedEpsOp(n, eps={value})" in text


def test_a_value_folded_into_a_config_is_never_dropped(repo: Repo) -> None:
    rc, out, text = _run(repo, FOLDED)
    assert rc == 1, out
    assert "timeout=30" in text
    assert "reads from cfg.timeout" in out, out


def test_a_rename_through_another_transform_is_not_carried(repo: Repo) -> None:
    rc, out, text = _run(repo, PRIOR)
    assert rc == 1, out
    assert "log_scale=0.5" in text
    assert "scale=0.5" not in text.replace("log_scale=0.5", "")
    assert "BO214" in out or "BO602" in out, out


def test_a_parameter_renamed_in_its_slot_while_others_left_binds_as_it_is(repo: Repo) -> None:
    rc, out, text = _run(repo, LAYER)
    assert rc == 0, out
    assert "LayerOp(n)" in text
    assert "by hand" not in out, out


def test_a_keyword_renamed_to_its_plural_carries_its_value(repo: Repo) -> None:
    rc, out, text = _run(repo, PLURAL)
    assert rc == 0, out
    assert "StackOp(inputs=[n, n], dim=1)" in text, out


def _sized(new_default: str) -> Case:
    return Case(
        "sized",
        "class SizedOp(Op):\n    def __init__(self, n, size_fn=lambda x: len(x)):\n        self.n = n\n"
        "        self.size_fn = size_fn\n",
        f"class SizedOp(Op):\n    def __init__(self, n, size_fn={new_default}):\n        self.n = n\n"
        "        self.size_fn = size_fn\n",
        "SizedOp(n)",
    )


def test_a_default_that_only_wraps_a_function_is_that_function(repo: Repo) -> None:
    rc, out, text = _run(repo, _sized("len"))
    assert rc == 0, out
    assert "every benchmark call still binds" in out, out
    assert "SizedOp(n)" in text


def test_a_default_that_is_another_function_is_a_change(repo: Repo) -> None:
    rc, out, _ = _run(repo, _sized("lambda x: x.numel()"))
    assert rc == 0, out
    assert "relies on the default of 'size_fn'" in out, out


PSNR = Case(
    "psnr",
    "class PsnrOp(Op):\n    def __init__(self, n, data_range=None):\n        self.n = n\n"
    "        self.data_range = data_range\n",
    "class PsnrOp(Op):\n    def __init__(self, n, data_range):\n        self.n = n\n"
    "        self.data_range = data_range\n",
    "PsnrOp(n)",
    ("PsnrOp(4)", "PsnrOp(4, data_range=10.0)"),
)


def test_a_none_the_call_relied_on_is_not_filled_from_a_test(repo: Repo) -> None:
    rc, out, text = _run(repo, PSNR)
    assert rc == 1, out
    assert "data_range=10.0" not in text
    assert "[BO303]" in out, out


STALE = Case(
    "tracker",
    "class TrackerOp(Op):\n    def __init__(self, n, project_dir=None):\n        self.n = n\n"
    "        self.dir = project_dir\n",
    "class TrackerOp(Op):\n    def __init__(self, n, project_dir=None, flush=False):\n        self.n = n\n"
    "        self.dir = project_dir\n        self.flush = flush\n",
    "TrackerOp(n, logging_dir='runs')",
)


def test_a_call_broken_before_the_change_is_reported_and_does_not_stop_it(repo: Repo) -> None:
    rc, out, text = _run(repo, STALE)
    assert rc == 0, out
    assert "not this change's break" in out and "[BO101]" in out, out
    assert "TrackerOp(n, logging_dir='runs')" in text


POOLED = Case(
    "pooled",
    "POOL = object()\n\n\nclass PooledOp(Op):\n    def __init__(self, n):\n        self.n = n\n"
    "        self.pool = POOL\n",
    "POOL = object()\n\n\nclass PooledOp(Op):\n    def __init__(self, pool, n):\n        self.n = n\n"
    "        self.pool = pool\n",
    "PooledOp(n)",
)


def test_a_name_of_the_class_s_module_is_no_literal_to_write_at_the_call(repo: Repo) -> None:
    # The old body used the module's own POOL where the new one reads `pool`: written at the call, POOL is
    # another thing (or nothing) in the benchmark.
    rc, out, text = _run(repo, POOLED)
    assert rc == 1, out
    assert "POOL" not in text.split("op = ", 1)[1], text
    assert "needs a value for 'pool'" in out and "[BO304]" in out, out


@pytest.mark.parametrize(
    "case", [TIMER, COMPILED, FOLDED, PRIOR, PLURAL, PSNR, STALE, POOLED], ids=lambda c: c.name
)
def test_every_finding_names_a_registered_rule(repo: Repo, case: Case) -> None:
    import json

    from benchop_hook.rules.registry import REGISTRY

    _stage(repo, case)
    out = repo.path / "check.json"
    r = repo.cli("check", "--json", str(out))
    assert r.returncode in (0, 1), r.stderr
    findings = json.loads(out.read_text())["findings"]
    assert findings, r.stdout
    for f in findings:
        assert f["rule"] in REGISTRY and f["trace"] and f["rule"] in f["trace"], f
