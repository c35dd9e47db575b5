"""``nn.Bilinear`` and ``NonDynamicallyQuantizableLinear`` (the Linear subclass that
``nn.MultiheadAttention`` uses as ``out_proj``; PyTorch prints it under that name).

>>> import leafgrad as torch
>>> layer = torch.nn.Bilinear(3, 4, 2)
>>> layer(torch.ones(5, 3), torch.ones(5, 4)).shape
torch.Size([5, 2])
"""
from __future__ import annotations

import math

from ...factories import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import Linear
from .module import Module

__all__ = ["Bilinear"]


class NonDynamicallyQuantizableLinear(Linear):
    """A plain Linear; the distinct class only marks it for PyTorch's quantization passes."""


class Bilinear(Module):
    """``y_k = x1^T W_k x2 + b_k`` with W of shape (out_features, in1_features, in2_features).

    Initialised like PyTorch: W and b ~ U(-1/sqrt(in1_features), 1/sqrt(in1_features)).
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        kw = {} if dtype is None else {"dtype": dtype}
        if device is not None:
            kw["device"] = device
        self.weight = Parameter(empty((out_features, in1_features, in2_features), **kw))
        if bias:
            self.bias = Parameter(empty(out_features, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features="
                             f"{self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
