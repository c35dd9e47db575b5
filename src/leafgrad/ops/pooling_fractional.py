"""Fractional max pooling (Graham, 2014) as records: ``fractional_max_pool2d`` /
``fractional_max_pool3d`` (values and indices; grad_fn ``FractionalMaxPool2DBackward0`` /
``FractionalMaxPool3DBackward0``) and their backward records (``...BackwardBackward0``).

Note [Fractional windows]
Each (sample, channel) plane has one random number ``u`` in [0, 1) per spatial dim. Along a
dim of input size ``n``, output size ``m`` and pool size ``k``, window ``i`` starts at
``int((i + u) * a) - int(u * a)`` with ``a = (n - k) / (m - 1)``, computed in the input's
dtype as ATen does, and the last window starts at ``n - k``. The 2-d op takes its W number
first (``samples[..., 0]`` for width, ``[..., 1]`` for height); the 3-d op goes T, H, W.
Within a window PyTorch keeps the first maximum in row-major order, but a NaN replaces the
running maximum wherever it appears (so the last NaN wins); the forward follows that rule
offset by offset, vectorized over all windows.

>>> import leafgrad as torch
>>> x = torch.arange(16.).view(1, 1, 4, 4)
>>> torch.nn.functional.fractional_max_pool2d(x, 2, output_size=2,
...                                           _random_samples=torch.zeros(1, 1, 2))
tensor([[[[ 5.,  7.],
          [13., 15.]]]])
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .joins import materialize_zeros
from .nll_loss import not_differentiable
from .pointwise_common import zeros_grad
from .pooling import gather_flat
from .registry import defop

FAMILY = "pooling"

__all__ = ["FRACTIONAL_MAX_POOL", "FRACTIONAL_MAX_POOL_BACKWARD"]

_TYPE = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
         "bool": "Bool", "float16": "Half"}
_DIM_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _intervals(u, size: int, out: int, pool: int, dtype):
    """Window starts (..., out) along one dim for the per-plane numbers ``u`` (...)."""
    u = u.astype(dtype, copy=False)
    starts = np.empty(u.shape + (out,), np.int64)
    if out > 1:
        alpha = dtype.type(size - pool) / dtype.type(out - 1)
        i = np.arange(out - 1, dtype=dtype)
        first = ((i + u[..., None]) * alpha).astype(np.int64)
        starts[..., :-1] = first - (u * alpha).astype(np.int64)[..., None]
    if out > 0:
        starts[..., -1] = size - pool
    return starts


def _check(self, kernel_size, output_size, samples, n):
    name = f"fractional_max_pool{n}d"
    what = "tuple of Ints" if n == 2 else "tuple of three Ints"
    if len(kernel_size) != n:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or {what}")
    if len(output_size) != n:
        raise RuntimeError(f"{name}: output_size must either be a single Int or {what}")
    where = f"{name}()" if n == 2 else f"{name}_out()"
    if self.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{where}: Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"[{', '.join(map(str, self.shape))}]")
    for i in range(1, self.ndim):
        if self.shape[i] <= 0:
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got[{', '.join(map(str, self.shape))}] with "
                               f"dimension {i} being empty.")
    spatial = self.shape[-n:]
    for d in range(n):
        # the 3-d op is stricter than the 2-d one: its last window must not touch the end
        reach = output_size[d] + kernel_size[d] - 1
        if reach > spatial[d] or (n == 3 and reach == spatial[d]):
            dim = _DIM_NAMES[n][d]
            raise RuntimeError(f"{where}: pool {dim} {kernel_size[d]} too large relative to "
                               f"input {dim} {spatial[d]}")
    if samples.dtype != self.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch = self.shape[0] if self.ndim == n + 2 else 1
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != self.shape[-n - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got "
                           f"{samples.shape[2]}.")
    if self.dtype.kind != "f":
        kernel = f"{name}_out_frame"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_TYPE.get(self.dtype.name, self.dtype.name)}'")


def fractional_max(self, kernel_size, output_size, random_samples):
    """(values, flat indices in each input plane) of the fractional max pooling."""
    n = len(kernel_size)
    batched = self.ndim == n + 2
    x = self if batched else self[None]
    B, C = x.shape[:2]
    spatial = x.shape[2:]
    u = random_samples[:B]
    order = [1, 0] if n == 2 else [0, 1, 2]   # which sample column drives each spatial dim
    starts = [_intervals(u[:, :, order[d]], spatial[d], output_size[d], kernel_size[d],
                         self.dtype) for d in range(n)]
    strides = [math.prod(spatial[d + 1:]) for d in range(n)]
    # flat position of each window's first element, shaped (B, C, *output_size)
    base = np.zeros((B, C) + tuple(output_size), np.int64)
    for d in range(n):
        shape = (B, C) + tuple(output_size[e] if e == d else 1 for e in range(n))
        base = base + starts[d].reshape(shape) * strides[d]
    flat = x.reshape(B, C, -1)
    best = np.full(base.shape, -np.inf, self.dtype)
    where = base.copy()
    lead = base.reshape(B, C, -1)
    for offset in itertools.product(*[range(k) for k in kernel_size]):
        pos = lead + sum(o * s for o, s in zip(offset, strides))
        v = np.take_along_axis(flat, pos, 2).reshape(base.shape)
        take = (v > best) | np.isnan(v)
        best = np.where(take, v, best)
        where = np.where(take, pos.reshape(base.shape), where)
    if not batched:
        best, where = best[0], where[0]
    return best, where


def _forward(n):
    def fractional_max_pool(self, kernel_size, output_size, random_samples):
        """``(values, indices)``; ``random_samples`` (N, C, n) places the windows."""
        kernel_size, output_size = list(kernel_size), list(output_size)
        random_samples = getattr(random_samples, "_data", random_samples)
        _check(self, kernel_size, output_size, random_samples, n)
        return list(fractional_max(self, kernel_size, output_size, random_samples))
    fractional_max_pool.__name__ = f"fractional_max_pool{n}d"
    return fractional_max_pool


def _self_formula(n):
    # PyTorch saves self, the sizes and the indices (``_saved_result1``), not random_samples:
    # changing the indices in place is caught at backward, the samples may change
    def fractional_max_pool_self(grads, self, kernel_size, output_size, result1):
        return FRACTIONAL_MAX_POOL_BACKWARD[n].public(grads[0], self, list(kernel_size),
                                                      list(output_size), result1)
    fractional_max_pool_self.__name__ = f"fractional_max_pool{n}d_self"
    return fractional_max_pool_self


def _backward(n):
    def fractional_max_pool_backward(grad_output, self, kernel_size, output_size, indices):
        """Each output's gradient added at the input position ``indices`` names."""
        planes = math.prod(self.shape[:-n]) if self.ndim > n else 1
        size = math.prod(self.shape[-n:])
        flat = (np.arange(planes)[:, None] * size + indices.reshape(planes, -1)).ravel()
        # added one by one in the input's dtype, in output order, as PyTorch's loop does
        # (overlapping windows can pick one element twice)
        g = np.zeros(planes * size, grad_output.dtype)
        np.add.at(g, flat, grad_output.reshape(-1))
        return g.reshape(self.shape)
    fractional_max_pool_backward.__name__ = f"fractional_max_pool{n}d_backward"
    return fractional_max_pool_backward


def _backward_grad_output(n):
    def fractional_max_pool_backward_grad_output(grad, indices):
        return gather_flat(grad, indices._data, n)
    return fractional_max_pool_backward_grad_output


FRACTIONAL_MAX_POOL = {n: defop(
    f"fractional_max_pool{n}d", _forward(n), inputs=("self",),
    derivatives={"self": _self_formula(n)},
    dtype=not_differentiable(f"fractional_max_pool{n}d", {"random_samples": 3}), n_outputs=2,
    differentiable_outputs=(True, False), materialize=materialize_zeros,
    grad_fn_name=f"FractionalMaxPool{n}DBackward0", methods=(), functions=(), family=FAMILY)
    for n in (2, 3)}   # tested in tests/nn/test_fractional_pool.py (random_samples is a tensor)

FRACTIONAL_MAX_POOL_BACKWARD = {n: defop(
    f"fractional_max_pool{n}d_backward", _backward(n),
    inputs=("grad_output", "self", "indices"),
    derivatives={"grad_output": _backward_grad_output(n), "self": zeros_grad},
    dtype="same", grad_fn_name=f"FractionalMaxPool{n}DBackwardBackward0", methods=(),
    functions=(), family=FAMILY) for n in (2, 3)}
