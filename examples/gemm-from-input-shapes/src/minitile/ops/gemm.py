import torch

from .op import Op


class GemmOp(Op):
    """C = A @ B (or A @ B.T with trans_b), built for the shapes of its two inputs."""

    def __init__(self, shape_a, shape_b, dtype, trans_b=False):
        self.M, self.K = shape_a
        self.N = shape_b[0] if trans_b else shape_b[1]
        self.dtype = dtype
        self.trans_b = trans_b

    def forward(self, a, b):
        self.check(a, (self.M, self.K), self.dtype)
        return a @ (b.t() if self.trans_b else b)
