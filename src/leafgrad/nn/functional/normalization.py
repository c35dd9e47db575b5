"""Batch and group normalization of ``torch.nn.functional`` (the records are in
``ops/norm.py``: ``NativeBatchNormBackward0``, ``NativeGroupNormBackward0``).

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> F.group_norm(torch.tensor([[1.0, 3.0]]), 1)
tensor([[-1.0000,  1.0000]])
"""
from __future__ import annotations

import math

import numpy as np

from ...ops.norm import NATIVE_BATCH_NORM, NATIVE_GROUP_NORM
from ...tensor import Tensor

__all__ = ["batch_norm", "group_norm"]


def _verify_batch_size(size) -> None:
    """PyTorch refuses training statistics over a single value per channel."""
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")


def float_args(fn: str, **args) -> None:
    """PyTorch's argument parser on ``momentum`` (position 7) and ``eps`` (8) of
    ``torch.batch_norm`` / ``torch.instance_norm``: a number or a 0-d tensor."""
    for pos, (name, value) in zip((7, 8), args.items()):
        if isinstance(value, (int, float, np.number)) or \
                isinstance(value, Tensor) and value.dim() == 0:
            continue
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be float, not "
                        f"{type(value).__name__}")


def empty_batch_norm(input, weight, bias):
    """ATen's batch norm of an empty input, before any check: a clone of the input, times
    weight[0], plus bias[0] (so a gradient chain exists); running statistics untouched."""
    out = input.clone()
    if weight is not None:
        out = out * weight.select(0, 0)
    if bias is not None:
        out = out + bias.select(0, 0)
    return out


def _check_channels(name: str, t, c: int) -> None:
    if t is not None and t.numel() != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalize each channel (dim 1) by the batch's statistics (``training``, updating the
    running ones in place) or by ``running_mean`` / ``running_var``, then scale and shift."""
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    float_args("batch_norm", momentum=momentum, eps=eps)
    if input._data.size == 0:
        return empty_batch_norm(input, weight, bias)
    c = input.shape[1] if input.dim() > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is None and not training and name.startswith("running"):
            raise RuntimeError(f"{name} must be defined in evaluation mode")
        _check_channels(name, t, c)
    return NATIVE_BATCH_NORM.public(input, weight, bias, running_mean, running_var,
                                    bool(training), momentum, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalize each sample's channels in ``num_groups`` groups, then scale and shift per
    channel."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    shape = list(input.shape)
    n, c = shape[0], shape[1]
    _verify_batch_size([n * c // num_groups, num_groups] + shape[2:])
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {shape} and num_groups="
                           f"{num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number "
                               f"of channels in input, but got {name} of shape "
                               f"{list(t.shape)} and input of shape {shape}")
    hxw = math.prod(shape[2:])
    return NATIVE_GROUP_NORM.public(input, weight, bias, n, c, hxw, num_groups, eps)
