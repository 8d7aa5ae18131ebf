"""Benchmark files several tests add to the fixture library."""

from __future__ import annotations

# Ops built from workload dicts, `SumFwdOp(**params)`, with params also used for the inputs: only a run
# (its traceback) shows what to fix.
SPLAT_BENCH = """import pytest
import torch

from benchmarks.benchmark import report, time_ms
from minitile.ops import SumFwdOp
from workloads import randn

WORKLOADS = [dict(M=64, N=256, dtype=torch.float32), dict(M=128, N=512, dtype=torch.float32)]


@pytest.mark.parametrize("params", WORKLOADS)
def test_sum_params_bench(params, record_property):
    x = randn(params["M"], params["N"], dtype=params["dtype"])
    op = SumFwdOp(**params)
    report(record_property, "sum", time_ms(op, x), nbytes=x.numel() * x.element_size())
"""

# Ops reached through a dict of classes, a literal dict splat, and a GemmOp: more calls for each change.
EXTRA_BENCH = """import torch

from benchmarks.benchmark import report, time_ms
from minitile.ops import GemmOp, MeanFwdOp, SumFwdOp
from workloads import randn

OPS = {"sum": SumFwdOp, "mean": MeanFwdOp}


def test_extra_dict(record_property):
    op = OPS["sum"](64, 256, torch.float32)
    report(record_property, "x", time_ms(op, randn(64, 256)))


def test_extra_literal(record_property):
    params = {"M": 64, "N": 256, "dtype": torch.float32}
    op = MeanFwdOp(**params)
    report(record_property, "y", time_ms(op, randn(64, 256)))


def test_extra_gemm(record_property):
    a = randn(64, 64)
    op = GemmOp(64, 64, 64, torch.float32)
    report(record_property, "g", time_ms(op, a, a))
"""

# A benchmark that builds an Op, starts a child process, writes its pid to $HANG_PIDFILE and hangs: for the
# tests that interrupt or lock out a run.
HANG = (
    "import os, subprocess, time, torch\nfrom minitile.ops import SumFwdOp\n\n\ndef test_hang():\n"
    "    SumFwdOp(4, 8, torch.float32)\n    child = subprocess.Popen(['sleep', '300'])\n"
    "    open(os.environ['HANG_PIDFILE'], 'w').write(str(child.pid))\n    time.sleep(300)\n"
)

# A second case in bench_gemm.py that passes a choice (trans_b=True): what an agent's edit must keep.
GEMM_NT_CASE = """

@pytest.mark.parametrize("M, N, K", SHAPES)
def test_gemm_nt_bench(M, N, K, record_property):
    a, b = randn(M, K, dtype=DTYPE), randn(N, K, dtype=DTYPE)
    op = ops.GemmOp(M, N, K, DTYPE, trans_b=True)
    ms = time_ms(op, a, b)
    report(record_property, "gemm_nt", ms, flops=2 * M * N * K)
"""
