"""Adaptive max pooling: adaptive_max_pool2d / adaptive_max_pool3d (values and indices), with
their backward ops (grad_fn ``AdaptiveMaxPool2DBackward0``, ``...BackwardBackward0``).

Note [Separable adaptive max]
Output position ``i`` of a dim of size ``S`` pooled to ``O`` covers the input range
``[floor(i*S/O), ceil((i+1)*S/O))``. Max pooling over a box is separable: the maximum over a
(H, W) window is the maximum over its rows of each row's maximum. It keeps PyTorch's choice of
index too: PyTorch scans a window in row-major order and keeps the first maximum (or the last
NaN); reducing the last dim first keeps, per row, the first maximum (last NaN) in that row, and
then across rows the first row holding the maximum (the last holding a NaN): the same element.
Each dim's windows are gathered as an (O, L) table of input positions (L: the longest window;
shorter windows repeat their last position, which changes neither the maximum nor which
element is first), and reduced by a loop over L. The backward scatters each output's gradient
to its index (windows may overlap, so contributions add); the indices are recomputed from the
saved input, as a formula sees the op's inputs and not its second output.

>>> import leafgrad as torch
>>> torch.nn.functional.adaptive_max_pool1d(torch.tensor([[[1., 3., 2., 5., 4.]]]), 2)
tensor([[[3., 5.]]])
"""
from __future__ import annotations

import math

import numpy as np

from .joins import materialize_zeros
from .pointwise_common import zeros_grad
from .pooling import flat_planes, gather_flat
from .registry import Sample, defop

FAMILY = "pooling"

__all__ = ["ADAPTIVE_MAX_POOL", "adaptive_max"]


def _window_table(size: int, out: int):
    """(out, L) input positions of each adaptive window (see Note [Separable adaptive max])."""
    i = np.arange(out)
    start = (i * size) // out
    end = -(-((i + 1) * size) // out)
    length = int((end - start).max())
    return start[:, None] + np.minimum(np.arange(length), (end - start - 1)[:, None])


def _reduce_window(gathered, axis, nan_aware):
    """Max over ``axis`` (the window axis) and which entry along it: the first maximum, or the
    last NaN."""
    first = (slice(None),) * axis
    best = gathered[first + (0,)].copy()
    arg = np.zeros(best.shape, np.int64)
    for j in range(1, gathered.shape[axis]):
        v = gathered[first + (j,)]
        take = v > best
        if nan_aware:
            take |= np.isnan(v)
        np.copyto(best, v, where=take)
        arg[take] = j
    return best, arg


def adaptive_max(x, output_size):
    """Maxima over the adaptive windows of the last ``len(output_size)`` dims of ``x`` and their
    flat positions in each input plane."""
    n = len(output_size)
    if not x.size or not math.prod(output_size):
        out_shape = x.shape[:-n] + tuple(output_size)
        return np.zeros(out_shape, x.dtype), np.zeros(out_shape, np.int64)
    xb = flat_planes(x, n)
    spatial = xb.shape[1:]
    nan_aware = xb.dtype.kind == "f" and not np.isfinite(np.sum(xb))
    vals = xb
    positions = {}   # dim -> input coordinate of the chosen element, shaped like vals
    for d in reversed(range(n)):
        axis = 1 + d
        table = _window_table(spatial[d], output_size[d])
        gathered = np.take(vals, table, axis=axis)          # (.., O, L, ..)
        vals, arg = _reduce_window(gathered, axis + 1, nan_aware)
        pick = np.expand_dims(arg, axis + 1)
        for k, pos in positions.items():   # later dims' coordinates follow the chosen entry
            positions[k] = np.take_along_axis(np.take(pos, table, axis=axis), pick,
                                              axis=axis + 1).squeeze(axis + 1)
        o = np.arange(output_size[d]).reshape((-1,) + (1,) * (vals.ndim - axis - 1))
        positions[d] = table[o, arg]
    flat = positions[0]
    for d in range(1, n):
        flat = flat * spatial[d] + positions[d]
    out_shape = x.shape[:-n] + tuple(output_size)
    return vals.reshape(out_shape), flat.reshape(out_shape)


def _forward(n):
    def adaptive_max_pool(self, output_size):
        """``(values, indices)`` of the adaptive max pooling of the last dims."""
        if self.dtype.kind != "f":
            kernel = "adaptive_max_pool2d" if n == 2 else "adaptive_max_pool3d_cpu"
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{_TYPE_NAMES.get(self.dtype.name, self.dtype.name)}'")
        return list(adaptive_max(self, tuple(output_size)))
    adaptive_max_pool.__name__ = f"adaptive_max_pool{n}d"
    return adaptive_max_pool


_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
               "uint8": "Byte", "bool": "Bool"}


def _scatter(grad_output, indices, self_shape, n):
    """Each output's gradient added to the input position ``indices`` names."""
    planes = math.prod(self_shape[:-n]) if len(self_shape) > n else 1
    size = math.prod(self_shape[-n:])
    if not planes or not indices.size:   # (no planes: NumPy can't infer a row length of 0;
        # fuzz seed 172)
        return np.zeros(self_shape, grad_output.dtype)
    flat = (np.arange(planes)[:, None] * size + indices.reshape(planes, -1)).ravel()
    g = np.bincount(flat, weights=grad_output.reshape(-1), minlength=planes * size)
    return g.astype(grad_output.dtype, copy=False).reshape(self_shape)


def _self_formula(n):
    # PyTorch saves self and the indices (``_saved_result1``): changing the indices in place
    # is caught at backward
    def adaptive_max_pool_self(grads, self, result1):
        return ADAPTIVE_MAX_POOL_BACKWARD[n].public(grads[0], self, result1)
    return adaptive_max_pool_self


def _backward(n):
    def adaptive_max_pool_backward(grad_output, self, indices):
        """The gradient sent to each window's maximum (at the saved ``indices``)."""
        return _scatter(grad_output, indices, self.shape, n)
    return adaptive_max_pool_backward


def _backward_grad_output(n):
    def adaptive_max_pool_backward_grad_output(grad, indices):
        return gather_flat(grad, indices._data, n)
    return adaptive_max_pool_backward_grad_output


def _samples(n):
    call = f"nn.functional.adaptive_max_pool{n}d"
    cases = {2: [((2, 3, 7, 6), [3, 4]), ((3, 5, 5), [5, 2]), ((1, 2, 4, 9), [3, 3])],
             3: [((2, 2, 5, 4, 6), [3, 2, 4]), ((2, 5, 3, 4), [2, 3, 3])]}[n]

    def samples(make, shapes):
        return [Sample((make(shape), size), call=call) for shape, size in cases]
    return samples


ADAPTIVE_MAX_POOL = {n: defop(
    f"adaptive_max_pool{n}d", _forward(n), derivatives={"self": _self_formula(n)},
    dtype="same", n_outputs=2, differentiable_outputs=(True, False),
    materialize=materialize_zeros, grad_fn_name=f"AdaptiveMaxPool{n}DBackward0", methods=(),
    functions=(), family=FAMILY, samples=_samples(n)) for n in (2, 3)}

ADAPTIVE_MAX_POOL_BACKWARD = {n: defop(
    f"adaptive_max_pool{n}d_backward", _backward(n), inputs=("grad_output", "self", "indices"),
    derivatives={"grad_output": _backward_grad_output(n), "self": zeros_grad},
    dtype="same", grad_fn_name=f"AdaptiveMaxPool{n}DBackwardBackward0", methods=(),
    functions=(), family=FAMILY) for n in (2, 3)}
