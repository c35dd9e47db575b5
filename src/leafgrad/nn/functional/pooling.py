"""Pooling of ``torch.nn.functional``: max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool1d/2d.

The 2-d functions check their arguments with PyTorch's messages and call the records of
``ops/pooling.py``; the 1-d ones run the 2-d op on a unit-height view and squeeze it away, which
is what PyTorch does too (so their ``grad_fn`` is ``SqueezeBackward1``).

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> F.avg_pool1d(torch.tensor([[[1.0, 2.0, 3.0, 4.0]]]), 2)
tensor([[[1.5000, 3.5000]]])
"""
from __future__ import annotations

from ...ops.pooling import (
    ADAPTIVE_AVG_POOL2D,
    AVG_POOL2D,
    MAX_POOL2D,
    MAX_POOL2D_WITH_INDICES,
    pool_output_size,
)
from ...tensor import Tensor

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "max_pool1d",
    "max_pool2d",
]


def _pair(value, fname: str, what: str, message: str, default=None) -> tuple:
    omitted = value is None or (isinstance(value, (tuple, list)) and len(value) == 0)
    if omitted and default is not None:
        return default
    if isinstance(value, int):
        return (value, value)
    if isinstance(value, (tuple, list)) and len(value) in (1, 2):
        return (int(value[0]), int(value[-1]))
    raise RuntimeError(f"{fname}: {what} {message}")


def _pool_args(fname, kernel_size, stride, padding, dilation):
    kernel = _pair(kernel_size, fname, "kernel_size", "must either be a single int, or a tuple "
                   "of two ints")
    stride = _pair(stride, fname, "stride", "must either be omitted, a single int, or a tuple "
                   "of two ints", default=kernel)
    padding = _pair(padding, fname, "padding", "must either be a single int, or a tuple of two "
                    "ints")
    dilation = _pair(dilation, fname, "dilation", "must be either a single int, or a tuple of "
                     "two ints")
    return kernel, stride, padding, dilation


def _check_pool(input, kernel, stride, padding, dilation, ceil_mode):
    """PyTorch's pool2d checks, in its order: per-dim output sizes (stride, padding), then
    the shape check (kernel, stride, dilation, input dims, output size)."""
    shape = tuple(input.shape)
    out = []
    for size, k, s, p, d in zip(shape[-2:], kernel, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
        out.append(pool_output_size(size, k, s, p, d, ceil_mode))
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} "
                           f"dilationW: {dw}")
    if len(shape) not in (3, 4) or any(s == 0 for s in shape[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(shape)}")
    (ph, pw) = padding
    if kw // 2 < pw or kh // 2 < ph:   # PyTorch checks the undilated kernel here too
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but "
                           f"got padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
    if out[0] < 1 or out[1] < 1:
        c = shape[-3]
        raise RuntimeError(f"Given input size: ({c}x{shape[-2]}x{shape[-1]}). Calculated "
                           f"output size: ({c}x{out[0]}x{out[1]}). Output size is too small")


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode: bool = False, return_indices: bool = False):
    """Max over each (dilated) ``kernel_size`` window of the last two dims; with
    ``return_indices`` also each maximum's flat position in its input plane."""
    kernel, stride, padding, dilation = _pool_args("max_pool2d", kernel_size, stride, padding,
                                                   dilation)
    if input.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    _check_pool(input, kernel, stride, padding, dilation, ceil_mode)
    args = (list(kernel), list(stride), list(padding), list(dilation), bool(ceil_mode))
    if return_indices:
        return tuple(MAX_POOL2D_WITH_INDICES.public(input, *args))
    return MAX_POOL2D.public(input, *args)


def _single(value, fname: str, what: str) -> int:
    if isinstance(value, int):
        return value
    if len(value) != 1:
        raise RuntimeError(f"{fname}() {what} must be an int, list of ints or tuple of ints of "
                           f"size 1 but got size {len(value)}")
    return int(value[0])


def _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """max_pool1d's own checks (PyTorch's messages)."""
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    k = _single(kernel_size, "max_pool1d", "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        _single(stride, "max_pool1d", "stride")
    p = _single(padding, "max_pool1d", "padding")
    d = _single(dilation, "max_pool1d", "dilation")
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = pool_output_size(input.shape[-1], k, s, p, d, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def _to2d(value, fill):
    if value is None:
        return None
    if isinstance(value, int):
        return (fill, value)
    value = tuple(value)
    return (fill,) + value if len(value) else value


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode: bool = False, return_indices: bool = False):
    """Max over each window of the last dim (2-d max pooling of unit height)."""
    if not return_indices:   # with indices PyTorch runs (and checks) the 2-d op only
        _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    stride = None if stride is None else _to2d(stride, 1)
    out = max_pool2d(input.unsqueeze(-2), _to2d(kernel_size, 1), stride, _to2d(padding, 0),
                     _to2d(dilation, 1), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """Mean over each ``kernel_size`` window of the last two dims."""
    kernel, stride, padding, _ = _pool_args("avg_pool2d", kernel_size, stride, padding, 1)
    if input.dim() < 3:
        n = max(input.dim(), 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         "but got -3)")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool(input, kernel, stride, padding, (1, 1), ceil_mode)
    return AVG_POOL2D.public(input, list(kernel), list(stride), list(padding), bool(ceil_mode),
                             bool(count_include_pad), divisor_override)


def _one_int(value, fname: str, what: str) -> int:
    if isinstance(value, int):
        return value
    value = tuple(value)
    if len(value) != 1:
        raise RuntimeError(f"{fname}() argument '{what}' should contain one int (got "
                           f"{len(value)})")
    return int(value[0])


def _check_1d_dims(input, fname: str) -> None:
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"{fname})")


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """Mean over each window of the last dim (2-d average pooling of unit height)."""
    k = _one_int(kernel_size, "avg_pool1d", "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        _one_int(stride, "avg_pool1d", "stride")
    p = _one_int(padding, "avg_pool1d", "padding")
    _check_1d_dims(input, "avg_pool1d")
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return out.squeeze(-2)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Average over adaptive windows so the last two dims become ``output_size``
    (``None`` keeps that dim's size)."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    output_size = tuple(output_size)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    oh, ow = (input.shape[-2 + i] if s is None else int(s) for i, s in enumerate(output_size))
    for i in range(input.dim() - 3, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(input.shape)} with dimension {i} being "
                "empty")
    if oh == 1 and ow == 1:   # PyTorch takes the mean here (MeanBackward1)
        return input.mean((-1, -2), keepdim=True)
    return ADAPTIVE_AVG_POOL2D.public(input, [oh, ow])


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Average over adaptive windows so the last dim becomes ``output_size``."""
    size = _one_int(output_size, "adaptive_avg_pool1d", "output_size")
    _check_1d_dims(input, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)
