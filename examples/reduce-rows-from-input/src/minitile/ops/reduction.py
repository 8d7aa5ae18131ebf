"""Row reductions. The family shares one base class and its constructor."""

import torch

from .op import Op


class ReduceOp(Op):
    """Reduce along `dim`; the row count comes from the input now."""

    def __init__(self, N, dtype, dim=-1, *, tune=False):
        self.N = N
        self.dtype = dtype
        self.dim = dim
        self.tune = tune

    def forward(self, x):
        if x.shape[self.dim] != self.N or x.dtype != self.dtype:
            raise ValueError(f"expected (*, {self.N}) {self.dtype}, got {tuple(x.shape)} {x.dtype}")
        return self.reduce(x)

    def reduce(self, x):
        raise NotImplementedError


class SumFwdOp(ReduceOp):
    def reduce(self, x):
        return x.sum(dim=self.dim)


class MeanFwdOp(ReduceOp):
    def reduce(self, x):
        return x.mean(dim=self.dim)


class AmaxFwdOp(ReduceOp):
    def reduce(self, x):
        return x.amax(dim=self.dim)
