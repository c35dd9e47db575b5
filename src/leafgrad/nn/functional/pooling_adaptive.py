"""Adaptive pooling of ``torch.nn.functional``: adaptive_avg_pool1d/2d/3d and
adaptive_max_pool1d/2d/3d (records in ``ops/pooling_avg.py`` and ``ops/pooling_adaptive.py``).

The 1-d functions run the 2-d op on a unit-height view and squeeze it away, as PyTorch does
(so their ``grad_fn`` is ``SqueezeBackward1``); an adaptive average to size 1 everywhere is a
mean in PyTorch (``MeanBackward1``), and here too.

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> F.adaptive_avg_pool1d(torch.tensor([[[1.0, 2.0, 3.0, 4.0]]]), 2)
tensor([[[1.5000, 3.5000]]])
"""
from __future__ import annotations

from ...ops.pooling_adaptive import ADAPTIVE_MAX_POOL
from ...ops.pooling_avg import ADAPTIVE_AVG_POOL
from ...tensor import Tensor
from .pooling import _check_1d_dims, _one_int

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
]


def _output_size(input, output_size, n: int, message: str) -> list:
    """``output_size`` as ``n`` ints (an int stands for all; ``None`` keeps that dim), checked
    as PyTorch does: first in Python (against the input's rank), then its length."""
    if isinstance(output_size, int):
        return [output_size] * n
    output_size = tuple(output_size)
    if input.dim() <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if len(output_size) != n:
        raise RuntimeError(message)
    return [input.shape[-n + i] if s is None else int(s) for i, s in enumerate(output_size)]


def _check_empty(input, first: int, fname: str) -> None:
    for i in range(first, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{fname}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but input has sizes {list(input.shape)} with dimension {i} being empty")


def _check_rank(input, n: int, fname: str, got_sep: str) -> None:
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{fname}(): Expected {n + 1}D or {n + 2}D tensor, but got{got_sep}"
                           f"{list(input.shape)}")


def _adaptive_avg(input: Tensor, output_size, n: int) -> Tensor:
    fname = f"adaptive_avg_pool{n}d"
    if not isinstance(output_size, int) and input.dim() <= len(output_size):
        _output_size(input, output_size, n, "")   # PyTorch's Python-side check comes first
    size = _output_size(input, output_size, n, f"{fname}: output_size must be {n}")
    if all(s == 1 for s in size):
        # PyTorch takes the mean here, before any check of the input (MeanBackward1; any
        # rank that has the dims, and mean's own errors)
        return input.mean(tuple(range(-1, -n - 1, -1)), keepdim=True)
    if n == 2:   # the 2-d kernel checks the rank, then that the two pooled dims are non-empty
        _check_rank(input, n, fname, " ")
        _check_empty(input, input.dim() - 2, fname)
    else:        # the 3-d one checks every dim but the first, then the rank
        _check_empty(input, 1, fname)
        _check_rank(input, n, fname, " ")
    return ADAPTIVE_AVG_POOL[n].public(input, size)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Average over adaptive windows so the last two dims become ``output_size``
    (``None`` keeps that dim's size)."""
    return _adaptive_avg(input, output_size, 2)


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Average over adaptive windows so the last three dims become ``output_size``
    (``None`` keeps that dim's size)."""
    return _adaptive_avg(input, output_size, 3)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """Average over adaptive windows so the last dim becomes ``output_size``."""
    size = _one_int(output_size, "adaptive_avg_pool1d", "output_size")
    _check_1d_dims(input, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def _adaptive_max(input: Tensor, output_size, return_indices: bool, n: int):
    fname = f"adaptive_max_pool{n}d"
    size = _output_size(input, output_size, n,
                        f"{fname}(): internal error: output_size.size() must be {n}")
    _check_rank(input, n, fname, ": ")
    _check_empty(input, 1, fname)
    values, indices = ADAPTIVE_MAX_POOL[n].public(input, size)
    return (values, indices) if return_indices else values


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Max over adaptive windows so the last two dims become ``output_size``; with
    ``return_indices`` also each maximum's flat position in its input plane."""
    return _adaptive_max(input, output_size, return_indices, 2)


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """Max over adaptive windows so the last three dims become ``output_size``; with
    ``return_indices`` also each maximum's flat position in its input volume."""
    return _adaptive_max(input, output_size, return_indices, 3)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Max over adaptive windows so the last dim becomes ``output_size``."""
    size = _one_int(output_size, "adaptive_max_pool1d", "output_size")
    _check_1d_dims(input, "adaptive_max_pool1d")
    _check_empty(input, 1, "adaptive_max_pool1d")
    values, indices = ADAPTIVE_MAX_POOL[2].public(input.unsqueeze(-2), [1, size])
    values, indices = values.squeeze(-2), indices.squeeze(-2)
    return (values, indices) if return_indices else values
