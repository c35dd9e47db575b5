"""Max pooling: max_pool2d / max_pool3d (with indices), with their backward ops; the window
geometry shared with average pooling (``pooling_avg.py``).

Each pooling op is a record named like ATen's (grad_fn ``MaxPool2DWithIndicesBackward0``,
``MaxPool3DWithIndicesBackward0``); its derivative calls a second record, the op's
``*_backward``, whose own derivative is again a gather (the backward of a linear map is its
adjoint), so ``create_graph=True`` works and records PyTorch's ``...BackwardBackward0``.
Everything here works on ``n`` spatial dims (2 or 3); 1-d pooling runs the 2-d op on a
unit-height view, as PyTorch does.

Note [Pooling by kernel offsets]
Windows are never materialised per pixel: for each kernel offset ``(i, j[, k])`` the values it
sees in every window form one strided slice of the padded input, so a pooling is a loop over
``prod(kernel)`` vectorised slice operations (max / compare for max pooling, add for average
pooling), and its backward adds each offset's share back through the same slices.

Note [Max-pool routing]
The backward of max pooling needs the position of each window's maximum, and a formula sees the
op's inputs and first output only (not the indices). Finding the argmax in the forward costs
several times the max itself, so the forward computes only the maxima (a chain of
``np.maximum``); the backward compares each kernel offset's slice of the saved input with the
saved output and sends the gradient to the first offset equal to it, which is the position
PyTorch's kernel picks (the first maximum). NaN maxima and all-``-inf`` windows follow other
rules in PyTorch, so when the output holds a non-finite value the backward computes PyTorch's
exact argmax instead.

>>> import leafgrad as torch
>>> torch.max_pool2d(torch.arange(16.).view(1, 1, 4, 4), 2)
tensor([[[[ 5.,  7.],
          [13., 15.]]]])
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..tensor import _wrap
from .joins import materialize_zeros
from .pointwise_common import zeros_grad
from .registry import Sample, defop

FAMILY = "pooling"

__all__ = [
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "pool_output_size",
]


# -- geometry (shared with pooling_avg.py) ------------------------------------------------------
def pool_output_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """Output length along one dim, with PyTorch's ceil_mode rule (the last window must start
    inside the input or its left padding)."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def geometry(shape, kernel_size, stride, padding, dilation, ceil_mode) -> tuple:
    """The output sizes of the last ``len(kernel_size)`` dims."""
    n = len(kernel_size)
    return tuple(pool_output_size(size, k, s, p, d, ceil_mode) for size, k, s, p, d in
                 zip(shape[-n:], kernel_size, stride, padding, dilation))


def reach(out, kernel_size, stride, dilation) -> tuple:
    """How far (per dim) the windows reach into the padded input."""
    return tuple((o - 1) * s + d * (k - 1) + 1
                 for o, k, s, d in zip(out, kernel_size, stride, dilation))


def padded(x, padding, need, fill):
    """``x`` (B, *S) padded before by ``padding`` and after up to the sizes ``need`` (a view when
    nothing is added)."""
    spatial = x.shape[1:]
    sizes = tuple(max(nd, s + p) for nd, s, p in zip(need, spatial, padding))
    if not any(padding) and sizes == spatial:
        return x
    xp = np.full((x.shape[0],) + sizes, fill, x.dtype)
    xp[(slice(None),) + tuple(slice(p, p + s) for p, s in zip(padding, spatial))] = x
    return xp


def inner(x, padding, spatial):
    """The part of a padded (B, *S') array that is the input (undoes ``padded``)."""
    return x[(slice(None),) + tuple(slice(p, p + s) for p, s in zip(padding, spatial))]


def offsets(kernel_size, stride, dilation, out):
    """(flat kernel offset, slices) of each kernel offset: the (B, *S) slice it sees."""
    ranges = [range(k) for k in kernel_size]
    for flat, idx in enumerate(itertools.product(*ranges)):
        yield flat, (slice(None),) + tuple(slice(i * d, i * d + s * (o - 1) + 1, s)
                                           for i, d, s, o in zip(idx, dilation, stride, out))


def flat_planes(x, n: int):
    """(N, C, *S) or (C, *S) -> (N*C, *S) (a view for contiguous inputs)."""
    return x.reshape((-1,) + x.shape[-n:])


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


# -- max pooling --------------------------------------------------------------------------------
def _max_padded(xb, shape, kernel_size, stride, padding, dilation, ceil_mode):
    """The input planes padded with the lowest value as far as the windows reach, and the
    output sizes."""
    out = geometry(shape, kernel_size, stride, padding, dilation, ceil_mode)
    xp = padded(xb, padding, reach(out, kernel_size, stride, dilation), _lowest(xb.dtype))
    return xp, out


def _max_values(x, kernel_size, stride, padding, dilation, ceil_mode):
    """Window maxima only: a chain of ``np.maximum`` over the kernel offsets (NaN wins, as in
    PyTorch)."""
    n = len(kernel_size)
    xb = flat_planes(x, n)
    xp, out = _max_padded(xb, x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    slices = offsets(kernel_size, stride, dilation, out)
    _, where = next(slices)
    best = xp[where].copy()
    for _, where in slices:
        np.maximum(best, xp[where], out=best)
    return best.reshape(x.shape[:-n] + out)


def _max_argmax(x, kernel_size, stride, padding, dilation, ceil_mode):
    """Window maxima and the kernel offset (row-major) of each: the first maximum, or the last
    NaN, as PyTorch's kernel picks them."""
    n = len(kernel_size)
    xb = flat_planes(x, n)
    xp, out = _max_padded(xb, x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    slices = offsets(kernel_size, stride, dilation, out)
    _, where = next(slices)
    best = xp[where].copy()
    arg = np.zeros(best.shape, np.uint8 if math.prod(kernel_size) < 256 else np.int32)
    nan_aware = x.dtype.kind == "f" and not np.isfinite(np.sum(xb))
    for k, where in slices:
        v = xp[where]
        take = v > best
        if nan_aware:
            take |= np.isnan(v)
        np.copyto(best, v, where=take)
        np.copyto(arg, k, where=take, casting="unsafe")
    if xp is not xb:
        _fix_padding_argmax(arg, x.shape, kernel_size, stride, padding, dilation)
    out_shape = x.shape[:-n] + out
    return best.reshape(out_shape), arg.reshape(out_shape)


def _positions(arg, shape, kernel_size, stride, padding, dilation):
    """Per spatial dim, the input coordinate each window's kernel offset ``arg`` points at."""
    n = len(kernel_size)
    idx = np.unravel_index(arg.astype(np.int64), kernel_size)
    out = arg.shape[-n:]
    pos = []
    for d in range(n):
        start = (np.arange(out[d]) * stride[d] - padding[d]).reshape(
            (out[d],) + (1,) * (n - 1 - d))
        pos.append(start + idx[d] * dilation[d])
    return pos


def _fix_padding_argmax(arg, shape, kernel_size, stride, padding, dilation):
    """A window whose real values are all the lowest value keeps offset 0, which may lie in the
    padding; PyTorch reports the window's first real position instead."""
    n = len(kernel_size)
    pos = _positions(arg, shape, kernel_size, stride, padding, dilation)
    bad = np.zeros(arg.shape, bool)
    for p, size in zip(pos, shape[-n:]):
        bad |= (p < 0) | (p >= size)
    if bad.any():
        out = arg.shape[-n:]
        first = [np.maximum(-(-(padding[d] - np.arange(out[d]) * stride[d]) // dilation[d]), 0)
                 for d in range(n)]
        flat = np.ravel_multi_index(np.ix_(*first), kernel_size)
        np.copyto(arg, np.broadcast_to(flat, arg.shape), where=bad, casting="unsafe")


def _flat_indices(arg, shape, kernel_size, stride, padding, dilation):
    """Kernel offsets -> PyTorch's indices (the flat position in each input plane)."""
    n = len(kernel_size)
    pos = _positions(arg, shape, kernel_size, stride, padding, dilation)
    flat = pos[0]
    for p, size in zip(pos[1:], shape[-n + 1:]):
        flat = flat * size + p
    return flat


class Maxima:
    """Where each window's maximum sits, for the backward (see Note [Max-pool routing]).

    Built from the saved input and output; the routing by equality runs only when every
    maximum is finite (a NaN or a -inf window needs PyTorch's exact argmax rules, so those
    compute the argmax instead)."""

    __slots__ = ("_arg", "out", "params", "x")

    def __init__(self, x, out, params):
        self.x, self.out, self.params, self._arg = x, out, params, None
        if x.dtype.kind != "f" or not np.isfinite(np.sum(out)):
            self._arg = _max_argmax(x, *params)[1]

    def argmax(self):
        if self._arg is None:
            self._arg = _max_argmax(self.x, *self.params)[1]
        return self._arg

    def flat_indices(self):
        return _flat_indices(self.argmax(), self.x.shape, *self.params[:4])

    def scatter(self, grad_output):
        """The input gradient: each window's gradient sent to its (first) maximum."""
        kernel_size, stride, padding, dilation, _ = self.params
        n = len(kernel_size)
        xb = flat_planes(self.x, n)
        spatial = xb.shape[1:]
        out = grad_output.shape[-n:]
        g = flat_planes(grad_output, n)
        disjoint = all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel_size, stride, dilation))
        if self._arg is None:
            xp, _ = _max_padded(xb, self.x.shape, *self.params)
        sizes = tuple(max(r, s + p) for r, s, p in
                      zip(reach(out, kernel_size, stride, dilation), spatial, padding))
        # windows that tile the input exactly write every position once: no zero fill needed
        covers = disjoint and tuple(stride) == tuple(kernel_size) and not any(padding) and \
            tuple(o * k for o, k in zip(out, kernel_size)) == spatial
        gxp = (np.empty if covers else np.zeros)((g.shape[0],) + sizes, g.dtype)
        maxima = None if self._arg is not None else flat_planes(self.out, n)
        arg = None if self._arg is None else flat_planes(self._arg, n)
        taken = None
        last = math.prod(kernel_size) - 1
        for k, where in offsets(kernel_size, stride, dilation, out):
            if arg is not None:
                hit = arg == k
            else:
                hit = xp[where] == maxima
                if taken is None:
                    taken = hit
                elif k < last:
                    hit = hit > taken   # equal and no earlier offset took it
                    taken = taken | hit
                else:
                    hit = hit > taken
            if disjoint:   # each input position is in one window at most: write, don't add
                np.multiply(g, hit, out=gxp[where])
            else:
                gxp[where] += g * hit
        return np.ascontiguousarray(inner(gxp, padding, spatial)).reshape(self.x.shape)


def _ntuple(value, n: int) -> tuple:
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    value = tuple(int(v) for v in value)
    return value * n if len(value) == 1 else value


def pool_params(n: int, kernel_size, stride, padding, dilation, ceil_mode) -> tuple:
    """(kernel, stride, padding, dilation, ceil_mode) as tuples of ``n`` ints; an omitted
    stride is the kernel size."""
    kernel = _ntuple(kernel_size, n)
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else _ntuple(stride, n)
    return (kernel, stride, _ntuple(padding, n), _ntuple(dilation, n), bool(ceil_mode))


def max_pool2d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """Max over each (dilated) window of the last two dims (as ATen's ``max_pool2d``)."""
    return _max_values(self, *pool_params(2, kernel_size, stride, padding, dilation, ceil_mode))


def max_pool3d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """Max over each (dilated) window of the last three dims (PyTorch's ``max_pool3d``)."""
    return _max_values(self, *pool_params(3, kernel_size, stride, padding, dilation, ceil_mode))


def _with_indices(n):
    def max_pool_with_indices(self, kernel_size, stride=(), padding=0, dilation=1,
                              ceil_mode=False):
        """``(values, indices)``: the window maxima and their flat positions in each plane."""
        params = pool_params(n, kernel_size, stride, padding, dilation, ceil_mode)
        out, arg = _max_argmax(self, *params)
        return [out, _flat_indices(arg, self.shape, *params[:4])]
    max_pool_with_indices.__name__ = f"max_pool{n}d_with_indices"
    return max_pool_with_indices


max_pool2d_with_indices = _with_indices(2)
max_pool3d_with_indices = _with_indices(3)


def _max_pool_grad(grad, self, n, args):
    # The maxima are recomputed from the input: PyTorch saves only the input (and indices),
    # so an in-place change of the pooled output (a relu_ after the pool) is allowed
    params = pool_params(n, *args)
    maxima = Maxima(self._data, _max_values(self._data, *params), params)
    return MAX_POOL_BACKWARD[n].public(grad, self, maxima)


def max_pool2d_self(grad, self, kernel_size, stride, padding, dilation, ceil_mode):
    return _max_pool_grad(grad, self, 2,
                          (kernel_size, stride, padding, dilation, ceil_mode))


def max_pool3d_self(grad, self, kernel_size, stride, padding, dilation, ceil_mode):
    return _max_pool_grad(grad, self, 3,
                          (kernel_size, stride, padding, dilation, ceil_mode))


def max_pool2d_with_indices_self(grads, self, kernel_size, stride, padding, dilation,
                                 ceil_mode):
    return _max_pool_grad(grads[0], self, 2,
                          (kernel_size, stride, padding, dilation, ceil_mode))


def max_pool3d_with_indices_self(grads, self, kernel_size, stride, padding, dilation,
                                 ceil_mode):
    return _max_pool_grad(grads[0], self, 3,
                          (kernel_size, stride, padding, dilation, ceil_mode))


def max_pool_with_indices_backward(grad_output, self, maxima):
    """Each window's gradient sent to its maximum (``maxima``: a ``Maxima``)."""
    return maxima.scatter(grad_output)


def gather_flat(grad, idx, n: int):
    """``grad``'s values at the flat plane positions ``idx`` (the adjoint of scattering to
    them); ``idx`` has the output's shape, its last ``n`` dims the output's plane."""
    lead = idx.shape[:-n]
    flat = grad.reshape(lead + (-1,))
    return flat.gather(len(lead), _wrap(idx.reshape(lead + (-1,)))).reshape(idx.shape)


def max_pool_with_indices_backward_grad_output(grad, maxima):
    return gather_flat(grad, maxima.flat_indices(), len(maxima.params[0]))


def _pool_samples(call, extra=()):
    def samples(make, shapes):
        base = make((2, 3, 7, 6))
        return [
            Sample((base, [2, 2], [2, 2], [0, 0]) + extra[:2], call=call),
            Sample((make((3, 5, 5)), [3, 2], [2, 1], [1, 1]) + extra[2:4], call=call),
            Sample((make((1, 2, 8, 7)), [2, 3], [3, 2], [1, 1]) + extra[4:], call=call),
        ]
    return samples


def _pool3d_samples(call, extra=()):
    def samples(make, shapes):
        return [
            Sample((make((2, 2, 4, 5, 4)), [2, 2, 2], [2, 2, 2], [0, 0, 0]) + extra[:2],
                   call=call),
            Sample((make((2, 5, 4, 5)), [3, 2, 2], [2, 1, 2], [1, 1, 0]) + extra[2:4], call=call),
            Sample((make((1, 2, 5, 4, 6)), [2, 3, 2], [1, 2, 3], [1, 1, 1]) + extra[4:],
                   call=call),
        ]
    return samples


_MAX_ARGS = ([1, 1], False, [1, 1], True, [2, 1], True)
MAX_POOL2D = defop(
    "max_pool2d", max_pool2d, derivatives={"self": max_pool2d_self}, dtype="same",
    grad_fn_name="MaxPool2DWithIndicesBackward0", methods=(), functions=("max_pool2d",),
    family=FAMILY, samples=_pool_samples("max_pool2d", _MAX_ARGS))

MAX_POOL2D_WITH_INDICES = defop(
    "max_pool2d_with_indices", max_pool2d_with_indices,
    derivatives={"self": max_pool2d_with_indices_self}, dtype="same", n_outputs=2,
    differentiable_outputs=(True, False), materialize=materialize_zeros,
    grad_fn_name="MaxPool2DWithIndicesBackward0", methods=(), functions=(), family=FAMILY)

MAX_POOL3D = defop(
    "max_pool3d", max_pool3d, derivatives={"self": max_pool3d_self}, dtype="same",
    grad_fn_name="MaxPool3DWithIndicesBackward0", methods=(), functions=("max_pool3d",),
    family=FAMILY, samples=_pool3d_samples("max_pool3d", ([1, 1, 1], False, [1, 2, 1], True,
                                                          [2, 1, 1], True)))

MAX_POOL3D_WITH_INDICES = defop(
    "max_pool3d_with_indices", max_pool3d_with_indices,
    derivatives={"self": max_pool3d_with_indices_self}, dtype="same", n_outputs=2,
    differentiable_outputs=(True, False), materialize=materialize_zeros,
    grad_fn_name="MaxPool3DWithIndicesBackward0", methods=(), functions=(), family=FAMILY)

MAX_POOL_BACKWARD = {n: defop(
    f"max_pool{n}d_with_indices_backward", max_pool_with_indices_backward,
    inputs=("grad_output", "self"),
    derivatives={"grad_output": max_pool_with_indices_backward_grad_output,
                 "self": zeros_grad}, dtype="same",
    grad_fn_name=f"MaxPool{n}DWithIndicesBackwardBackward0", methods=(), functions=(),
    family=FAMILY) for n in (2, 3)}
