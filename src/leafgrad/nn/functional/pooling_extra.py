"""Max unpooling (max_unpool1d/2d/3d, records in ``ops/pooling_unpool.py``) and power-average
pooling (lp_pool1d/2d/3d, composites of average pooling as in PyTorch, grad_fn
``PowBackward0``).

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> F.lp_pool1d(torch.tensor([[[3., 4., 1., 0.]]]), 2, 2)
tensor([[[5., 1.]]])
"""
from __future__ import annotations

import math

from ...ops.pooling_unpool import MAX_UNPOOL
from ...tensor import Tensor
from .activation import relu
from .pooling import avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d, max_pool2d, max_pool3d

__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d", "max_unpool1d", "max_unpool2d",
           "max_unpool3d"]


def _ntuple(value, n: int) -> list:
    if isinstance(value, int):
        return [value] * n
    value = [int(v) for v in value]
    return value * n if len(value) == 1 else value


def _unpool_output_size(input, kernel_size, stride, padding, output_size) -> list:
    """The output's spatial size: the default inverse of the pooling, or ``output_size`` if it
    is one the pooling could have come from (PyTorch's checks and messages)."""
    n = len(kernel_size)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        size = default
    else:
        if len(output_size) == n + 2:
            output_size = output_size[2:]
        if len(output_size) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for d in range(n):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < output_size[d] < high:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be '
                                 f"between {low} and {high})")
        size = list(output_size)
    for d in range(n):
        if size[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={size[d]}")
    return [int(s) for s in size]


def _unpool_size(input, kernel_size, stride, padding, output_size, n: int) -> list:
    kernel = _ntuple(kernel_size, n)
    stride = kernel if stride is None else _ntuple(stride, n)
    return _unpool_output_size(input, kernel, stride, _ntuple(padding, n), output_size)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 output_size=None) -> Tensor:
    """The partial inverse of ``max_pool1d``: values written back at ``indices``, zeros
    elsewhere (run as 2-d unpooling of unit width, as PyTorch does)."""
    size = _unpool_size(input, kernel_size, stride, padding, output_size, 1)
    out = MAX_UNPOOL[2].public(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1])
    return out.squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 output_size=None) -> Tensor:
    """The partial inverse of ``max_pool2d``: values written back at ``indices``, zeros
    elsewhere."""
    size = _unpool_size(input, kernel_size, stride, padding, output_size, 2)
    return MAX_UNPOOL[2].public(input, indices, size)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0,
                 output_size=None) -> Tensor:
    """The partial inverse of ``max_pool3d``: values written back at ``indices``, zeros
    elsewhere."""
    size = _unpool_size(input, kernel_size, stride, padding, output_size, 3)
    return MAX_UNPOOL[3].public(input, indices, size)


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, n: int, scale: int):
    """``(sum over the window of x ** p) ** (1 / p)``: an average pool of ``x ** p`` times the
    window size; p = inf / -inf is a max pool of |x| (negated for -inf)."""
    max_pool = (max_pool1d, max_pool2d, max_pool3d)[n - 1]
    avg_pool = (avg_pool1d, avg_pool2d, avg_pool3d)[n - 1]
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    # sign * relu(|out|) is out itself, written so that its gradient is 0 where out is 0
    return (out.sign() * relu(out.abs())).mul(scale).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size, stride=None,
              ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over the last dim: each window's p-norm."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, kernel_size)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None,
              ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over the last two dims: each window's p-norm."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2,
                    math.prod(_ntuple(kernel_size, 2)))


def lp_pool3d(input: Tensor, norm_type: float, kernel_size, stride=None,
              ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over the last three dims: each window's p-norm."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3,
                    math.prod(_ntuple(kernel_size, 3)))
