import torch

from minitile.ops import GemmOp
from workloads import randn


def test_gemm():
    a, b = randn(8, 16), randn(16, 4)
    op = GemmOp(tuple(a.shape), tuple(b.shape), torch.float32)
    torch.testing.assert_close(op(a, b), a @ b)


def test_gemm_trans_b():
    a, b = randn(2, 16), randn(4, 16)
    op = GemmOp(tuple(a.shape), tuple(b.shape), torch.float32, trans_b=True)
    torch.testing.assert_close(op(a, b), a @ b.t())
