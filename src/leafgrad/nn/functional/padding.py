"""``F.pad`` modes other than 'constant': 'reflect', 'replicate' (records in ``ops/padding.py``)
and 'circular' (slice copies into a new tensor, as PyTorch does: grad_fn ``CopySlices``).

PyTorch's checks are reproduced in its order: the pad length, which input ranks each length
supports, empty non-batch dims, then each mode's own limits.

>>> import leafgrad as torch
>>> torch.nn.functional.pad(torch.arange(3.).view(1, 3), (1, 2), mode="circular")
tensor([[2., 0., 1., 2., 0., 1.]])
"""
from __future__ import annotations

from ...factories import empty
from ...ops.padding import PAD_RECORDS
from ...tensor import Tensor

__all__ = ["pad_nonconstant"]

_SUPPORTED = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
_KINDS = {"reflect": "reflection", "replicate": "replication"}


def _shape(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _check_non_empty(shape, n: int) -> None:
    """Every non-batch dim must be non-zero (reflect and replicate)."""
    dims = range(1, len(shape)) if len(shape) == n + 2 else range(len(shape))
    if any(shape[d] == 0 for d in dims):
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 "
                           "batch size and other non-zero dimensions for input, but got: "
                           f"{_shape(shape)}")


def _check_sizes(shape, pad, mode: str, n: int) -> None:
    """The output size limits of reflect and replicate, with PyTorch's messages."""
    ndim = len(shape)
    if mode == "reflect":
        for k in range(n):   # last dim first, as PyTorch numbers the arguments
            left, right, d = pad[2 * k], pad[2 * k + 1], ndim - 1 - k
            if left >= shape[d] or right >= shape[d]:
                raise RuntimeError(
                    f"Argument #{4 + 2 * k}: Padding size should be less than the "
                    f"corresponding input dimension, but got: padding ({left}, {right}) at "
                    f"dimension {d} of input {_shape(shape)}")
    out = list(shape)
    for k in range(n):
        out[ndim - 1 - k] += pad[2 * k] + pad[2 * k + 1]
    if n == 1:
        if out[-1] < 1:
            raise RuntimeError(f"input (W: {shape[-1]}) is too small. Calculated output W: "
                               f"{out[-1]}")
    else:
        for size in out:
            if size < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {size}: "
                                   f"{_shape(out)}")


def _narrowed(t: Tensor, slices) -> Tensor:
    """``t`` narrowed by the non-trivial (start, stop) ``slices``, one dim at a time."""
    for d, s in enumerate(slices):
        if s != slice(None):
            t = t.narrow(d, s.start, s.stop - s.start)
    return t


def _circular(input: Tensor, pad) -> Tensor:
    """Circular padding as slice copies: the core into a new tensor, then, dim by dim, each
    border from the opposite side of what is already filled."""
    shape = tuple(input.shape)
    ndim, n = len(shape), len(pad) // 2
    out_shape = list(shape)
    for k in range(n):
        left, right, d = pad[2 * k], pad[2 * k + 1], ndim - 1 - k
        if left > shape[d] or right > shape[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out_shape[d] = shape[d] + left + right
        if out_shape[d] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = empty(out_shape, dtype=input.dtype)
    dst, src = [slice(None)] * ndim, [slice(None)] * ndim
    for k in range(n):
        left, right, d = pad[2 * k], pad[2 * k + 1], ndim - 1 - k
        dst[d] = slice(max(left, 0), out_shape[d] - max(right, 0))
        src[d] = slice(max(-left, 0), shape[d] - max(-right, 0))
    # narrow, not indexing: PyTorch slices in C++, recording SliceBackward0 (and CopySlices)
    # even for a full-length slice, which Python indexing would skip
    _narrowed(out, dst).copy_(_narrowed(input, src))
    for k in range(n):
        left, right, d = pad[2 * k], pad[2 * k + 1], ndim - 1 - k
        size = out_shape[d]
        if left > 0:
            to, frm = [slice(None)] * ndim, [slice(None)] * ndim
            to[d] = slice(0, left)
            frm[d] = slice(size - left - max(right, 0), size - max(right, 0))
            out[tuple(to)] = out[tuple(frm)]
        if right > 0:
            to, frm = [slice(None)] * ndim, [slice(None)] * ndim
            to[d] = slice(size - right, size)
            frm[d] = slice(max(left, 0), max(left, 0) + right)
            out[tuple(to)] = out[tuple(frm)]
    return out


def pad_nonconstant(input: Tensor, pad, mode: str, value) -> Tensor:
    """``F.pad(input, pad, mode)`` for mode 'reflect', 'replicate' or 'circular'."""
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    n, ndim = len(pad) // 2, input.dim()
    if n not in (1, 2, 3) or ndim not in (n + 1, n + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {ndim}D input "
                                  f"tensor.\n{_SUPPORTED}")
    if mode == "circular":
        return _circular(input, pad)
    shape = tuple(input.shape)
    _check_non_empty(shape, n)
    _check_sizes(shape, pad, mode, n)
    return PAD_RECORDS[f"{_KINDS[mode]}_pad{n}d"].public(input, pad)
