"""``F.fractional_max_pool2d`` / ``F.fractional_max_pool3d`` (and ``*_with_indices``):
max pooling over pseudo-random windows whose sizes vary between ``kernel_size`` strides
(records in ops/pooling_fractional.py, Note [Fractional windows]).

Without ``_random_samples`` the window positions come from ``torch.rand(N, C, n)`` in the
input's dtype, drawn from the global generator, which is PyTorch's CPU stream bit for bit: after
the same ``manual_seed`` leafgrad and PyTorch pool the same windows.

>>> import leafgrad as torch
>>> _ = torch.manual_seed(0)
>>> torch.nn.functional.fractional_max_pool2d(torch.arange(25.).view(1, 1, 5, 5), 2,
...                                           output_size=3)
tensor([[[[ 6.,  8.,  9.],
          [11., 13., 14.],
          [21., 23., 24.]]]])
"""
from __future__ import annotations

from ...random import rand

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]


def _sizes(value, n: int) -> list:
    """An int or a sequence as ATen's IntArrayRef[n] reads it (an int is repeated)."""
    if isinstance(value, int):
        return [value] * n
    return [int(v) for v in value]


def _pool(n, input, kernel_size, output_size, output_ratio, _random_samples):
    from ...ops.pooling_fractional import FRACTIONAL_MAX_POOL   # on first use
    name = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if n == 2 and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple "
                             "of Ints.")
        ratio = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else \
            (output_ratio,) * n
        output_size = [int(input.size(d - n) * ratio[d]) for d in range(n)]
    if _random_samples is None:
        batch = 1 if input.dim() == n + 1 else input.size(0)
        _random_samples = rand(batch, input.size(-n - 1), n, dtype=input.dtype)
    return FRACTIONAL_MAX_POOL[n].public(input, _sizes(kernel_size, n), _sizes(output_size, n),
                                         _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """``(values, indices)`` of 2-d fractional max pooling of (N, C, H, W) or (C, H, W)."""
    return tuple(_pool(2, input, kernel_size, output_size, output_ratio, _random_samples))


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """2-d fractional max pooling; the indices too with ``return_indices=True``."""
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """``(values, indices)`` of 3-d fractional max pooling of (N, C, T, H, W) or (C, T, H, W)."""
    return tuple(_pool(3, input, kernel_size, output_size, output_ratio, _random_samples))


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """3-d fractional max pooling; the indices too with ``return_indices=True``."""
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)
    return out if return_indices else out[0]
