"""``nn.LayerNorm``.

>>> import leafgrad as torch
>>> torch.nn.LayerNorm(4)
LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
"""
from __future__ import annotations

from ...factories import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["GroupNorm", "LayerNorm"]


class LayerNorm(Module):
    """Normalize over the trailing ``normalized_shape`` dims; weight starts at 1, bias at 0."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        kw = {} if dtype is None else {"dtype": dtype}
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, **kw))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine="
                f"{self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalize each sample's channels in ``num_groups`` groups; per-channel weight starts
    at 1, bias at 0."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        kw = {} if dtype is None else {"dtype": dtype}
        if affine:
            self.weight = Parameter(empty(num_channels, **kw))
            if bias:
                self.bias = Parameter(empty(num_channels, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")
