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
pooling); average pooling's backward adds each offset's share back through the same slices
(max pooling's scatters by its indices: Note [Max-pool indices]).

Note [Max-pool indices]
As in PyTorch, max pooling that records a gradient runs the op with indices (also behind
``torch.max_pool2d`` and ``F.max_pool2d`` without ``return_indices``), whose node saves the
input and the indices (``_saved_self``, ``_saved_result1``), not the values: the output may be
changed in place afterwards (a ``relu_`` after the pool), the input and the indices may not.
The backward adds each window's gradient at its index (``np.add.at``, in output order: the
float sums of overlapping windows are PyTorch's); the double backward gathers by the indices.
The forward finds the indices without the masked writes of a scan (several times the cost of
the maxima themselves): after the maxima (a chain of ``np.maximum``), the offset of each
window's first element equal to its maximum is the number of offsets before it, counted as
a running AND of ``!=`` masks added up. That is PyTorch's choice (its scan keeps the first
maximum) except where a window holds a NaN (PyTorch keeps the last NaN: those inputs take
the scan) or where its maximum is the padding's value (all ``-inf``: PyTorch reports the
window's first real position).

>>> import leafgrad as torch
>>> torch.max_pool2d(torch.arange(16.).view(1, 1, 4, 4), 2)
tensor([[[[ 5.,  7.],
          [13., 15.]]]])
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from .joins import materialize_zeros
from .pointwise_common import zeros_grad
from .registry import Sample, defop, export_function

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


def _window_max(xp, where):
    """The maximum of each window: a chain of ``np.maximum`` over the kernel offsets' slices
    ``where`` (NaN wins, as in PyTorch). Where two values compare equal the earlier offset's
    is kept, as PyTorch's ``val > maxval`` scan does (-0.0 before 0.0 gives -0.0): NumPy's
    float32/float64 maximum returns its second operand on a tie, its float16 one the first."""
    best = xp[where[0]].copy()
    first_wins = xp.dtype.kind == "f" and xp.dtype.itemsize > 2
    for w in where[1:]:
        if first_wins:
            np.maximum(xp[w], best, out=best)
        else:
            np.maximum(best, xp[w], out=best)
    return best


def _max_values(x, kernel_size, stride, padding, dilation, ceil_mode):
    """Window maxima only (the forward when no gradient is recorded)."""
    n = len(kernel_size)
    xb = flat_planes(x, n)
    xp, out = _max_padded(xb, x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    best = _window_max(xp, [w for _, w in offsets(kernel_size, stride, dilation, out)])
    return best.reshape(x.shape[:-n] + out)


def _first_max(xp, where, best):
    """Per window, the kernel offset of its first element equal to its maximum (see Note
    [Max-pool indices]): the number of offsets before the first one that holds it."""
    dtype = np.uint8 if len(where) <= 256 else np.int32
    if len(where) == 1:
        return np.zeros(best.shape, dtype)
    before = xp[where[0]] != best     # windows whose maximum was not met yet
    arg = before.astype(dtype)
    unequal = np.empty_like(before)
    for w in where[1:-1]:
        np.not_equal(xp[w], best, out=unequal)
        before &= unequal
        arg += before
    return arg


def _scan_max(xp, where):
    """Window maxima and their kernel offsets by PyTorch's own scan (``val > maxval or
    isnan(val)``: the first maximum, or the last NaN); used when a window holds a NaN."""
    best = xp[where[0]].copy()
    arg = np.zeros(best.shape, np.uint8 if len(where) <= 256 else np.int32)
    for k, w in enumerate(where[1:], 1):
        v = xp[w]
        take = (v > best) | np.isnan(v)
        np.copyto(best, v, where=take)
        np.copyto(arg, k, where=take, casting="unsafe")
    return best, arg


def _max_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode):
    """Window maxima and PyTorch's indices (each maximum's flat position in its plane)."""
    n = len(kernel_size)
    xb = flat_planes(x, n)
    xp, out = _max_padded(xb, x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    where = [w for _, w in offsets(kernel_size, stride, dilation, out)]
    best = _window_max(xp, where)
    if best.dtype.kind == "f" and np.isnan(np.add.reduce(best, axis=None)):
        best, arg = _scan_max(xp, where)   # a NaN (or +inf and -inf: the sum is NaN too)
    else:
        arg = _first_max(xp, where, best)
    if xp is not xb and (best == _lowest(best.dtype)).any():
        # only a window whose maximum is the padding's value can have picked the padding
        _fix_padding_argmax(arg, x.shape, kernel_size, stride, padding, dilation)
    out_shape = x.shape[:-n] + out
    flat = _flat_indices(arg, x.shape, kernel_size, stride, padding, dilation)
    return best.reshape(out_shape), flat.reshape(out_shape)


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
    """A window whose real values are all the lowest value may have picked a padded
    position; PyTorch reports the window's first real position instead (its kernel starts
    from there with ``maxval = -inf``)."""
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
    """Kernel offsets -> PyTorch's indices (the flat position in each input plane): the
    position of the window's first element plus that of the offset within the window."""
    n = len(kernel_size)
    spatial = shape[-n:]
    steps = [math.prod(spatial[d + 1:]) for d in range(n)]   # a plane's strides
    grid = np.indices(kernel_size).reshape(n, -1)
    table = sum(grid[d] * (dilation[d] * steps[d]) for d in range(n))
    out = arg.shape[-n:]
    start = None
    for d in range(n):
        s = (np.arange(out[d]) * stride[d] - padding[d]) * steps[d]
        start = s if start is None else np.add.outer(start, s)
    flat = table.take(arg)
    flat += start
    return flat


def _given(value, n: int) -> tuple:
    """An int-list argument as PyTorch saves it (``grad_fn._saved_stride``): an int repeated
    ``n`` times, a sequence as given (an omitted stride is ``()``)."""
    if value is None:
        return ()
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    return tuple(int(v) for v in value)


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


def _values_only(n):
    def max_pool(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        """The window maxima (no gradient recorded: ``max_pool`` runs the indices op then)."""
        return _max_values(self, *pool_params(n, kernel_size, stride, padding, dilation,
                                               ceil_mode))
    max_pool.__name__ = f"max_pool{n}d"
    return max_pool


def _with_indices(n):
    def max_pool_with_indices(self, kernel_size, stride=(), padding=0, dilation=1,
                              ceil_mode=False):
        """``(values, indices)``: the window maxima and their flat positions in each plane."""
        return list(_max_with_indices(self, *pool_params(n, kernel_size, stride, padding,
                                                         dilation, ceil_mode)))
    max_pool_with_indices.__name__ = f"max_pool{n}d_with_indices"
    return max_pool_with_indices


def max_pool(n: int, input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False,
             return_indices: bool = False):
    """``n``-d max pooling as PyTorch runs it: when a gradient is recorded, or the indices
    are asked for, the op with indices (whose node saves the input and the indices, not
    the values: the output may be changed in place afterwards); otherwise the values only."""
    args = (_given(kernel_size, n), _given(stride, n), _given(padding, n),
            _given(dilation, n), bool(ceil_mode))
    if return_indices:
        return tuple(MAX_POOL_WITH_INDICES[n].public(input, *args))
    if _mode.grad_enabled and isinstance(input, Tensor) and input._requires_grad:
        return MAX_POOL_WITH_INDICES[n].public(input, *args)[0]
    return MAX_POOL[n].public(input, *args)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """Max over each (dilated) window of the last two dims (``torch.max_pool2d``)."""
    return max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """Max over each (dilated) window of the last three dims (``torch.max_pool3d``)."""
    return max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode)


max_pool2d_with_indices = _with_indices(2)
max_pool3d_with_indices = _with_indices(3)


# -- backward -----------------------------------------------------------------------------------
def _self_formula(n):
    def max_pool_with_indices_self(grads, self, result1, kernel_size, stride, padding,
                                   dilation, ceil_mode):
        if not _mode.grad_enabled:   # no create_graph: nothing to record, skip the dispatch
            return _wrap(scatter_flat(grads[0]._data, result1._data, self._data.shape, n))
        return MAX_POOL_BACKWARD[n].public(grads[0], self, kernel_size, stride, padding,
                                           dilation, ceil_mode, result1)
    max_pool_with_indices_self.__name__ = f"max_pool{n}d_with_indices_self"
    return max_pool_with_indices_self


def scatter_flat(grad_output, indices, shape, n: int):
    """The input gradient: each output's gradient added at the flat plane position
    ``indices`` names, in output order as PyTorch's loop (overlapping windows can share a
    maximum; the float sum order is PyTorch's)."""
    gx = np.zeros(math.prod(shape), grad_output.dtype)
    if gx.size and indices.size:
        size = math.prod(shape[-n:])
        planes = gx.size // size
        idx = indices.reshape(planes, -1)
        go = grad_output.reshape(-1)
        outside = idx >= size
        if outside.any():
            # a window that sees only padding (dilation larger than the input) keeps the -inf
            # it started from and an index past its plane; PyTorch's loop adds its gradient
            # there unchecked (past the buffer, or into the next plane). Its output does not
            # depend on the input: no gradient (before: NumPy's IndexError; fuzz seed 138)
            keep = ~outside.reshape(-1)
            at = (idx + np.arange(0, gx.size, size)[:, None]).reshape(-1)[keep]
            np.add.at(gx, at, go[keep])
            return gx.reshape(shape)
        at = idx + np.arange(0, gx.size, size)[:, None]
        np.add.at(gx, at.reshape(-1), go)
    return gx.reshape(shape)


def _backward(n):
    def max_pool_with_indices_backward(grad_output, self, kernel_size, stride, padding,
                                       dilation, ceil_mode, indices):
        """Each window's gradient sent to its maximum (``indices``: the forward's)."""
        return scatter_flat(grad_output, getattr(indices, "_data", indices), self.shape, n)
    max_pool_with_indices_backward.__name__ = f"max_pool{n}d_with_indices_backward"
    return max_pool_with_indices_backward


def gather_flat(grad, idx, n: int):
    """``grad``'s values at the flat plane positions ``idx`` (the adjoint of scattering to
    them); ``idx`` has the output's shape, its last ``n`` dims the output's plane."""
    lead = idx.shape[:-n]
    # (the plane sizes spelt out: -1 is ambiguous when a lead dim is 0, an empty batch)
    flat = grad.reshape(lead + (math.prod(grad.shape[-n:]),))
    return flat.gather(len(lead), _wrap(idx.reshape(lead + (math.prod(idx.shape[-n:]),)))
                       ).reshape(idx.shape)


def _backward_grad_output(n):
    def max_pool_with_indices_backward_grad_output(grad, indices):
        return gather_flat(grad, indices._data, n)
    return max_pool_with_indices_backward_grad_output


def _pool_samples(call, extra=(), kwargs=None):
    def samples(make, shapes):
        kw = dict(kwargs or {})
        base = make((2, 3, 7, 6))
        return [
            Sample((base, [2, 2], [2, 2], [0, 0]) + extra[:2], kw, call=call),
            Sample((make((3, 5, 5)), [3, 2], [2, 1], [1, 1]) + extra[2:4], kw, call=call),
            Sample((make((1, 2, 8, 7)), [2, 3], [3, 2], [1, 1]) + extra[4:], kw, call=call),
            # integer-valued: ties, whose first maximum (in window order) takes the gradient
            Sample((np.round(make((2, 2, 6, 6))), 3, 1, 1), kw, call=call),
        ]
    return samples


def _pool3d_samples(call, extra=(), kwargs=None):
    def samples(make, shapes):
        kw = dict(kwargs or {})
        return [
            Sample((make((2, 2, 4, 5, 4)), [2, 2, 2], [2, 2, 2], [0, 0, 0]) + extra[:2], kw,
                   call=call),
            Sample((make((2, 5, 4, 5)), [3, 2, 2], [2, 1, 2], [1, 1, 0]) + extra[2:4], kw,
                   call=call),
            Sample((make((1, 2, 5, 4, 6)), [2, 3, 2], [1, 2, 3], [1, 1, 1]) + extra[4:], kw,
                   call=call),
            Sample((np.round(make((1, 2, 4, 4, 4))), 2, 1, 1), kw, call=call),
        ]
    return samples


def _values_samples(n):
    def samples(make, shapes):   # no gradient: integers, and floats under no_grad (below)
        shape = (2, 3, 7, 6) if n == 2 else (2, 2, 5, 4, 6)
        return [Sample((make(shape, -5, 5, np.int64), 2), call=f"max_pool{n}d", grad=False),
                Sample((make(shape, -5, 5, np.int64), 3, 2, 1, 1, True),
                       call=f"max_pool{n}d", grad=False)]
    return samples


_MAX_ARGS = ([1, 1], False, [1, 1], True, [2, 1], True)
_MAX3D_ARGS = ([1, 1, 1], False, [1, 2, 1], True, [2, 1, 1], True)

MAX_POOL = {n: defop(
    f"max_pool{n}d", _values_only(n), dtype="same", methods=(), functions=(), family=FAMILY,
    samples=_values_samples(n)) for n in (2, 3)}

MAX_POOL_WITH_INDICES = {n: defop(
    f"max_pool{n}d_with_indices", _with_indices(n), derivatives={"self": _self_formula(n)},
    dtype="same", n_outputs=2, differentiable_outputs=(True, False),
    materialize=materialize_zeros, grad_fn_name=f"MaxPool{n}DWithIndicesBackward0", methods=(),
    functions=(), family=FAMILY,
    samples=(_pool_samples if n == 2 else _pool3d_samples)(
        f"max_pool{n}d", _MAX_ARGS if n == 2 else _MAX3D_ARGS)) for n in (2, 3)}

MAX_POOL_BACKWARD = {n: defop(
    f"max_pool{n}d_with_indices_backward", _backward(n), inputs=("grad_output", "self"),
    derivatives={"grad_output": _backward_grad_output(n), "self": zeros_grad}, dtype="same",
    grad_fn_name=f"MaxPool{n}DWithIndicesBackwardBackward0", methods=(), functions=(),
    saved_tensor_args=("indices",), family=FAMILY) for n in (2, 3)}

MAX_POOL2D, MAX_POOL3D = MAX_POOL[2], MAX_POOL[3]
MAX_POOL2D_WITH_INDICES, MAX_POOL3D_WITH_INDICES = (MAX_POOL_WITH_INDICES[2],
                                                    MAX_POOL_WITH_INDICES[3])
export_function("max_pool2d", max_pool2d)
export_function("max_pool3d", max_pool3d)
