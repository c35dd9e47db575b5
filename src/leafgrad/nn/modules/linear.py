"""``nn.Identity`` and ``nn.Linear``.

>>> import leafgrad as torch
>>> layer = torch.nn.Linear(3, 2)
>>> layer(torch.ones(4, 3)).shape
torch.Size([4, 2])
"""
from __future__ import annotations

import math

from ... import dtypes as _dt
from ...factories import empty
from ...ops.linear_fused import linear_2d as _linear_2d
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear"]


class Identity(Module):
    """Returns its input unchanged (any constructor arguments are ignored)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input):
        return input


def _factory(device, dtype) -> dict:
    kw = {"dtype": _dt.to_dtype(dtype) if dtype is not None else None}
    if device is not None:
        kw["device"] = device
    return kw


class Linear(Module):
    """``y = x W^T + b`` with W of shape (out_features, in_features).

    Initialised like PyTorch: W ~ U(-1/sqrt(in), 1/sqrt(in)) (kaiming_uniform with a=sqrt(5)),
    b ~ U(-1/sqrt(in), 1/sqrt(in)).
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        kw = _factory(device, dtype)
        self.weight = Parameter(empty((out_features, in_features), **kw))
        if bias:
            self.bias = Parameter(empty(out_features, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        # ``self.weight`` on a Module is a failed attribute lookup (an AttributeError made and
        # dropped) before ``Module.__getattr__`` finds the parameter. For a plain Linear (the
        # class itself, which defines no ``weight``/``bias``) whose instance dict holds
        # neither name, that lookup ends in ``_parameters`` when both are there: read them.
        d = self.__dict__
        if type(self) is Linear and "weight" not in d and "bias" not in d:
            params = d.get("_parameters")
            if params is not None and "weight" in params and "bias" in params:
                weight = params["weight"]
                bias = params["bias"]
                if bias is not None:   # Note [Fused linear] in ops/linear_fused.py
                    out = _linear_2d(input, weight, bias)
                    if out is not None:
                        return out
                return F.linear(input, weight, bias)
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")
