import pytest
import torch

from minitile.ops import AmaxFwdOp, MeanFwdOp, SumFwdOp
from workloads import randn


@pytest.mark.parametrize("M, N", [(4, 16), (8, 32)])
def test_sum(M, N):
    x = randn(M, N)
    op = SumFwdOp(N, torch.float32)
    torch.testing.assert_close(op(x), x.sum(dim=-1))


def test_mean():
    x = randn(4, 16)
    op = MeanFwdOp(16, torch.float32)
    torch.testing.assert_close(op(x), x.mean(dim=-1))


def test_amax():
    x = randn(4, 16)
    op = AmaxFwdOp(16, torch.float32, tune=True)
    torch.testing.assert_close(op(x), x.amax(dim=-1))
