"""Convolutions of ``torch.nn.functional``: conv1d/2d/3d and conv_transpose1d/2d/3d.

Each checks its arguments with PyTorch's messages, adds a batch dim to an unbatched input (and
squeezes it away after, recording ``SqueezeBackward1`` as PyTorch does) and calls the
``convolution`` op (``ConvolutionBackward0``, see ``ops/conv.py``).

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> F.conv1d(torch.ones(1, 1, 4), torch.ones(1, 1, 2), padding=1)
tensor([[[1., 2., 2., 2., 1.]]])
"""
from __future__ import annotations

import warnings

from ...ops.conv import _C_NAMES, convolution
from ...tensor import Tensor
from .layers import pad as _pad

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d"]

_SAME_WARNING = ("Using padding='same' with even kernel lengths and odd dilation may require a "
                 "zero-padded copy of the input be created (Triggered internally at "
                 "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)")
_warned: list = []


def _expand(value, n: int) -> list:
    """An int or a sequence as a list; a single value stands for every spatial dim."""
    if isinstance(value, int):
        return [value] * n
    value = [int(v) for v in value]
    return value * n if len(value) == 1 else value


def _batchify(input: Tensor, n_spatial: int, fname: str):
    dim = input.dim()
    if dim not in (n_spatial + 1, n_spatial + 2):
        raise RuntimeError(f"Expected {n_spatial + 1}D (unbatched) or {n_spatial + 2}D (batched)"
                           f" input to {fname}, but got input of size: {list(input.shape)}")
    if dim == n_spatial + 1:
        return input.unsqueeze(0), True
    return input, False


def _padding_arg(input, weight, padding, stride, dilation, n: int):
    """Numeric symmetric padding, and the input padded on the right where 'same' needs an odd
    total (PyTorch pads with ``constant_pad_nd`` there, warning once)."""
    if not isinstance(padding, str):
        return input, _expand(padding, n)
    if padding == "valid":
        return input, [0] * n
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    # PyTorch's convolution_same checks the weight's dims against the input's first
    k = weight.dim()
    if k != input.dim():
        raise RuntimeError(f"Expected {k}-dimensional input for {k}-dimensional weight"
                           f"{list(weight.shape)}, but got {input.dim()}-dimensional input of "
                           f"size {list(input.shape)} instead")
    for name, value in (("stride", stride), ("dilation", dilation)):
        if len(value) != n:
            raise RuntimeError(f"{name} cannot broadcast to {n} dimensions")
    kernel = weight.shape[2:]
    if len(kernel) != n:   # let the record report the mismatch in PyTorch's words
        return input, [0] * n
    totals = [dilation[i] * (kernel[i] - 1) for i in range(n)]
    # C++'s division truncates: a total of -1 (a kernel of size 0) gives left 0, right -1
    left = [int(t / 2) for t in totals]
    if any(t - 2 * lo for t, lo in zip(totals, left)):
        if not _warned:   # PyTorch warns once per process (TORCH_WARN_ONCE)
            _warned.append(True)
            warnings.warn(_SAME_WARNING, UserWarning, stacklevel=4)
        extra = []
        for t, lo in zip(reversed(totals), reversed(left)):   # F.pad: the last dim first
            delta = t - 2 * lo     # right - left: pad the right, or crop the left (< 0)
            extra += [0, delta] if delta > 0 else [delta, 0]
        input = _pad(input, extra)
    return input, left


def _c_name(t) -> str:
    name = t._data.dtype.name
    return _C_NAMES.get(name, name)


def _conv(input, weight, bias, stride, padding, dilation, groups, n, fname):
    if bias is not None and not isinstance(padding, str) and bias.dtype != input.dtype:
        # conv1d/2d/3d with numeric padding check the bias's dtype before anything else (the
        # string-padding variants and torch.convolution leave it to the kernel)
        raise RuntimeError(f"Input type ({_c_name(input)}) and bias type ({_c_name(bias)}) "
                           "should be the same")
    input, unbatched = _batchify(input, n, fname)
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    stride, dilation = _expand(stride, n), _expand(dilation, n)
    input, padding = _padding_arg(input, weight, padding, stride, dilation, n)
    out = convolution(input, weight, bias, stride, padding, dilation, False, [0] * n, groups)
    return out.squeeze(0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """1-d convolution of ``input`` (N, C, L) or (C, L) with ``weight`` (O, C/groups, k).
    ``padding`` may be an int, a tuple, 'valid' or 'same'."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """2-d convolution of ``input`` (N, C, H, W) or (C, H, W) with ``weight``
    (O, C/groups, kh, kw). ``padding`` may be an int, a tuple, 'valid' or 'same'."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> Tensor:
    """3-d convolution of ``input`` (N, C, D, H, W) or (C, D, H, W) with ``weight``
    (O, C/groups, kd, kh, kw). ``padding`` may be an int, a tuple, 'valid' or 'same'."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, n,
                    fname):
    if isinstance(padding, str):
        raise TypeError(f"{fname}(): argument 'padding' must be tuple of ints, not str")
    input, unbatched = _batchify(input, n, fname)
    out = convolution(input, weight, bias, _expand(stride, n), _expand(padding, n),
                      _expand(dilation, n), True, _expand(output_padding, n), groups)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The adjoint of conv1d ("deconvolution"); ``weight`` is (C_in, C_out/groups, k)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1, "conv_transpose1d")


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The adjoint of conv2d ("deconvolution"); ``weight`` is (C_in, C_out/groups, kh, kw)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2, "conv_transpose2d")


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0, output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The adjoint of conv3d ("deconvolution"); ``weight`` is (C_in, C_out/groups, kd, kh, kw).
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 3, "conv_transpose3d")
