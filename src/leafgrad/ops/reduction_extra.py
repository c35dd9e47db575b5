"""More reductions: cummax/cummin, logcumsumexp, aminmax, var_mean/std_mean, nanmean, diff
(the order statistics kthvalue, mode, nanmedian, quantile/nanquantile: ops/order_stats.py).

Ops that return ``(values, indices)`` choose the indices in NumPy first and pass them to a
record that takes the values at those indices (``extrema.select_dim``), so the gradient goes
to the returned index, as PyTorch's. Where several elements tie, PyTorch's index is the
last occurrence (cummax/cummin).

>>> import leafgrad as torch
>>> torch.tensor([1.0, 3.0, 2.0]).cummax(0).values
tensor([1., 3., 3.])
"""
from __future__ import annotations

import numpy as np

from .. import return_types
from ..tensor import Tensor, _wrap
from .backward_ops import keep_none
from .iter_layout import CONTIG
from .pointwise_common import not_implemented_for
from .reduction import _count, _dims, _wrap_dim, expand_grad
from .variance import _var_args, std_op, var_op, var_backward
from .registry import FUNCTIONS, Sample, bind_method, defop, export_function
from .out_tuples import tuple_out

__all__: list = []

FAMILY = "reduction"

if not hasattr(return_types, "nanmedian"):
    return_types.nanmedian = return_types._make("nanmedian", ("values", "indices"))


def _public(name, fn):
    # torch.<name> of a pair takes out=(values, indices) (ops/out_tuples.py); methods don't
    export_function(name, tuple_out(name, fn) if name in _PAIRS else fn)
    bind_method(name, fn)


_PAIRS = ("cummax", "cummin", "aminmax", "kthvalue", "mode", "nanmedian")


# -- cummax / cummin -------------------------------------------------------------------------
def _cum_extreme_indices(d, axis, larger):
    """The running arg-extreme along ``axis``: ties and NaNs move it to the later index."""
    moved = np.moveaxis(d, axis, -1)
    idx = np.zeros(moved.shape, np.int64)
    if moved.shape[-1] == 0:
        return np.moveaxis(idx, -1, axis).copy()   # (PyTorch's: contiguous)
    cur = moved[..., 0].copy()
    cur_i = np.zeros(cur.shape, np.int64)
    floating = d.dtype.kind == "f"
    for i in range(moved.shape[-1]):
        x = moved[..., i]
        take = (x >= cur) if larger else (x <= cur)
        if floating:
            take = take | np.isnan(x)
        cur = np.where(take, x, cur)
        cur_i = np.where(take, i, cur_i)
        idx[..., i] = cur_i
    # PyTorch's: contiguous, a size-1 dim's stride too (ascontiguousarray keeps a moved
    # axis's stride there, and matmul's fold decision reads it)
    return np.moveaxis(idx, -1, axis).copy()


def cum_extreme(self, dim, indices):
    """The values at the running arg-extreme ``indices`` (chosen by the wrapper)."""
    if self.ndim == 0:
        return self.copy()
    data = indices._data if isinstance(indices, Tensor) else indices
    return np.take_along_axis(self, data, _wrap_dim(dim, self.ndim))


def cum_extreme_self(grad, self, dim, indices):
    # PyTorch's cummaxmin_backward saves self (an in-place change of it fails the backward):
    # zeros (one in-place fill) with scatter_add_ of the gradient (version 2); an empty self
    # is returned itself (so under create_graph the gradient is the input, requiring grad)
    self_shape = self._data.shape
    if not self._data.size:
        return self
    zeros = _wrap(np.zeros(self_shape, grad._data.dtype))
    if not isinstance(indices, Tensor):
        indices = _wrap(indices)
    out = zeros.scatter_add(_wrap_dim(dim, max(len(self_shape), 1)), indices, grad)
    if out._data.size:
        out._vc[0] = 2
    return out


def _cum_samples(call):
    def samples(make, shapes):
        base = shapes[1] or (4,)
        ties = np.asarray(np.round(make(base)))
        return [Sample((make(base), 0), call=call), Sample((ties, -1), call=call),
                Sample((make(base, -3, 3, np.int64), 0), call=call)]
    return samples


_cummax = defop("cummax", cum_extreme, derivatives={"self": cum_extreme_self}, dtype="same",
                saved_tensor_args=("indices",),
                methods=(), functions=(), family=FAMILY, samples=_cum_samples("cummax"),
                layout=CONTIG)
_cummin = defop("cummin", cum_extreme, derivatives={"self": cum_extreme_self}, dtype="same",
                saved_tensor_args=("indices",),
                methods=(), functions=(), family=FAMILY, samples=_cum_samples("cummin"),
                layout=CONTIG)


def _cum_public(rec, name, larger):
    def fn(input, dim):
        d = input._data
        if d.ndim == 0 and dim not in (-1, 0):
            raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
        # PyTorch returns early for an empty input: any dim is accepted (fuzz seed 108)
        axis = 0 if d.size == 0 else _wrap_dim(dim, max(d.ndim, 1))
        idx = _wrap(np.zeros(d.shape, np.int64) if d.ndim == 0 or d.size == 0
                    else _cum_extreme_indices(d, axis, larger))
        # the indices tensor returned is the one the node saves, as PyTorch's
        return getattr(return_types, name)((rec.public(input, axis, idx), idx))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Running {'maximum' if larger else 'minimum'} along ``dim`` and its indices."
    return fn


_public("cummax", _cum_public(_cummax, "cummax", True))
_public("cummin", _cum_public(_cummin, "cummin", False))


# -- logcumsumexp ----------------------------------------------------------------------------
def logcumsumexp(self, dim):
    """``log(cumsum(exp(self)))`` along ``dim``, computed stably."""
    axis = _wrap_dim(dim, max(self.ndim, 1))   # PyTorch checks dim before the dtype
    if self.dtype.kind != "f":
        raise not_implemented_for("logcumsumexp_out_cpu", self.dtype)
    if self.ndim == 0:
        return self.copy()
    return np.logaddexp.accumulate(self, axis=axis)


def logcumsumexp_self(grad, self, result, dim):
    # d out_j / d x_i = exp(x_i - out_j) for j >= i; the sum over j runs as a reversed
    # logcumsumexp of log|grad| - out, positive and negative parts apart so logs stay real
    if self._data.ndim == 0:
        return grad
    d = _wrap_dim(dim, self._data.ndim)
    lowest = float(np.finfo(grad._data.dtype).min)
    log_abs = grad.abs().log()
    pos = log_abs.where(grad > 0, lowest)
    neg = log_abs.where(grad < 0, lowest)

    def rev_lcse(t):
        return t.flip(d).logcumsumexp(d).flip(d)
    return (rev_lcse(pos - result) + self).exp() - (rev_lcse(neg - result) + self).exp()


defop("logcumsumexp", logcumsumexp, derivatives={"self": logcumsumexp_self}, dtype="same",
      family=FAMILY, samples=lambda make, shapes: [
          Sample((make(shapes[1] or (3,)), 0)), Sample((make(shapes[1] or (3,)), -1))],
      layout=CONTIG)


# -- aminmax ---------------------------------------------------------------------------------
def aminmax(self, *, dim=None, keepdim=False):
    """``(min, max)`` over ``dim`` (all elements by default)."""
    if self.size == 0 and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    axis = None if dim is None else _wrap_dim(dim, max(self.ndim, 1))
    if self.ndim == 0:
        axis = None
    elif axis is not None and self.shape[axis] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {axis} to have non-zero size.")
    lo = np.min(self, axis=axis, keepdims=keepdim)
    hi = np.max(self, axis=axis, keepdims=keepdim)
    if dim is None and keepdim:
        lo, hi = lo.reshape((1,) * self.ndim), hi.reshape((1,) * self.ndim)
    return np.asarray(lo), np.asarray(hi)


def aminmax_self(grads, self, result, result1, dim, keepdim):
    """PyTorch's formula: per output used, (grad / count) * (self == extreme) with grad and
    the extreme reshaped to keep the reduced dims; the two parts added only if both outputs
    were used (one alone: its part is the gradient, so the graph's top is its Mul)."""
    shape = self._data.shape
    out = None
    for g, extreme in zip(grads, (result, result1)):
        if g is None:
            continue
        if not keepdim:
            if dim is None:
                kept = (1,) * len(shape)
            else:
                kept = list(extreme._data.shape)
                kept.insert(_wrap_dim(dim, max(len(shape), 1)), 1)
            g, extreme = g.reshape(kept), extreme.reshape(kept)
        mask = self == extreme
        count = mask.sum() if dim is None else mask.sum(dim, keepdim=True)
        part = (g / count) * mask
        out = part if out is None else out + part
    if out._data.shape != shape:   # a 0-d self reduced over dim 0: (1,), summed back
        from ..autograd.graph import sum_to
        out = sum_to(out, shape)
    return out


defop("aminmax", aminmax, derivatives={"self": aminmax_self}, dtype="same", n_outputs=2,
      materialize=keep_none, family=FAMILY, methods=(), functions=(),
      saved_aliases={"result": "min", "result1": "max"},
      samples=lambda make, shapes: [
          Sample((make(shapes[1]),), call="aminmax"),
          Sample((np.asarray(np.round(make(shapes[1]))),), call="aminmax"),
          Sample((make(shapes[1] or (3,)),), {"dim": 0, "keepdim": True}, call="aminmax"),
          Sample((make(shapes[1] or (3,)),), {"dim": -1}, call="Tensor.aminmax")])


# both outputs carry gradients: the node takes two incoming gradients (the registry's node
# classes default to one, as sort/topk only differentiate their values)
from .registry import RECORDS as _RECORDS

_RECORDS["aminmax"].node_class.n_outputs = 2


def _aminmax_public(input, *, dim=None, keepdim=False):
    """``torch.return_types.aminmax(min, max)`` over ``dim``."""
    from .registry import RECORDS
    return return_types.aminmax(RECORDS["aminmax"].public(input, dim=dim, keepdim=keepdim))


_public("aminmax", _aminmax_public)


# -- var_mean / std_mean ---------------------------------------------------------------------
def var_mean_op(self, dim, correction, keepdim):
    """``(var, mean)`` in one pass over the data."""
    return var_op(self, dim, correction, keepdim, welford=True), _welford_mean(self, dim,
                                                                               keepdim)


def std_mean_op(self, dim, correction, keepdim):
    """``(std, mean)``."""
    return std_op(self, dim, correction, keepdim, welford=True), _welford_mean(self, dim,
                                                                               keepdim)


def _welford_mean(x, dim, keepdim):
    """var_mean's mean: PyTorch's is Welford's running mean ``m += (x - m) / n``, taken in
    order (each reduced index from 0 up). It equals the plain mean for finite data; once
    ``m`` is infinite any later element makes it NaN (inf - inf, or a finite x - inf added to
    inf), so a slice holding a non-finite value is NaN unless its only one is an infinity in
    its last place (fuzz seed 210)."""
    axis = _dims(dim, x.ndim)
    mean = np.asarray(np.mean(x, axis=axis, keepdims=keepdim))
    if mean.size and x.size and not np.isfinite(mean).all():   # (an empty slice: NaN as is)
        axes = range(x.ndim) if axis is None else axis
        bad = (~np.isfinite(x)).sum(axis=axis, keepdims=keepdim)
        last = x[tuple(slice(-1, None) if d in axes else slice(None) for d in range(x.ndim))]
        last = last.reshape(mean.shape)
        with np.errstate(invalid="ignore"):
            mean = np.where(bad == 0, mean, np.where((bad == 1) & np.isinf(last), last,
                                                     np.nan)).astype(mean.dtype, copy=False)
    return mean


def _mean_part(grad, self, dim, keepdim):
    from .registry import RECORDS
    shape = self._data.shape
    n = _count(shape, _dims(dim, len(shape)))
    # divided by the count as a number (DivBackward1 under create_graph), as mean's
    return RECORDS["div_scalar"].public(expand_grad(grad, shape, dim, keepdim), n)


def _both(first, second):
    """The sum of the two outputs' parts, either of which may be undefined (None): PyTorch
    leaves out the part of an output nobody used (a NaN variance stays out of it)."""
    if first is None:
        return second
    return first if second is None else first + second


def var_mean_self(grads, self, dim, correction, keepdim):
    return _cast(self, _both(
        None if grads[0] is None else var_backward(grads[0], self, dim, correction, keepdim, False),
        None if grads[1] is None else _mean_part(grads[1], self, dim, keepdim)))


def _cast(self, g):
    """PyTorch's var_mean/std_mean backward sums the two parts (the variance's may be
    promoted: Note in var_self) and the engine casts the sum (ToCopyBackward0 on top)."""
    return g if g is None or g._data.dtype == self._data.dtype else g.to(self.dtype)


def std_mean_self(grads, self, result, dim, correction, keepdim):   # result: the std, saved
    from .variance import std_backward                                # as PyTorch's result0
    std_part = None
    if grads[0] is not None:
        std_part = std_backward(grads[0], self, result, dim, correction, keepdim, False)
    mean_part = None if grads[1] is None else _mean_part(grads[1], self, dim, keepdim)
    return _cast(self, _both(std_part, mean_part))


def _defined_grads(grads, metas):
    """The outputs' gradients as they come, None for an unused output."""
    return list(grads)


def _vm_samples(call):
    def samples(make, shapes):
        big = tuple(s + 2 for s in shapes[1]) or (3,)
        out = [Sample((make(big),), call=call),
               Sample((make(big),), {"correction": 0}, call=call)]
        if len(shapes[1]):
            out.append(Sample((make(big), -1), {"keepdim": True}, call=call))
        return out
    return samples


def _float_only(name):
    """var_mean/std_mean take floating and complex inputs only (their own op's name)."""
    message = f"{name} only support floating point and complex dtypes"

    def rule(rec, args):
        if args[0]._data.dtype.kind not in "fc":
            raise RuntimeError(message)
        return None, None
    return rule


_var_mean = defop("var_mean", var_mean_op, derivatives={"self": var_mean_self},
                  dtype=_float_only("var_mean"), n_outputs=2, materialize=_defined_grads,
                  methods=(), functions=(), family=FAMILY, samples=_vm_samples("var_mean"))
_std_mean = defop("std_mean", std_mean_op, derivatives={"self": std_mean_self},
                  dtype=_float_only("std_mean"), n_outputs=2, materialize=_defined_grads,
                  methods=(), functions=(), family=FAMILY, samples=_vm_samples("std_mean"),
                  saved_aliases={"result": "result0"})


_var_mean.node_class.n_outputs = 2
_std_mean.node_class.n_outputs = 2


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim``; see ``torch.var``."""
    dim, correction, keepdim = _var_args(dim, unbiased, keepdim, correction, "var_mean")
    return tuple(_var_mean.public(input, dim, correction, keepdim))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim``; see ``torch.std``."""
    dim, correction, keepdim = _var_args(dim, unbiased, keepdim, correction, "std_mean")
    return tuple(_std_mean.public(input, dim, correction, keepdim))


export_function("var_mean", var_mean)
export_function("std_mean", std_mean)


# -- nanmean (composite in PyTorch: nansum / count) ------------------------------------------
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the non-NaN elements."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input.dtype.tensor_type[:-6]}")
    count = (~input.isnan()).sum(dim, keepdim) if dim is not None else (~input.isnan()).sum()
    total = input.nansum(dim, keepdim, dtype=dtype)
    return total / count


_public("nanmean", nanmean)


# -- diff (composite: narrow and subtract) ---------------------------------------------------
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (PyTorch's checks in its order)."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    parts = [None, input, None]   # (prepend, input, append), checked in that order
    for slot, t in ((0, prepend), (2, append)):
        if t is None:
            continue
        if not isinstance(t, Tensor):
            from ..factories import tensor
            t = tensor(t)
        d = _wrap_dim(dim, input.ndim)
        if t.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as "
                               "input")
        for i in range(input.ndim):
            if i != d and t.shape[i] != input.shape[i]:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that "
                    "of input except along the differencing dimension; input.size("
                    f"{i}) = {input.shape[i]}, but got tensor.size({i}) = {t.shape[i]}")
        parts[slot] = t
    if n == 0:   # PyTorch: zeros_like(input), then a copy_ of it (CopyBackwards, version 1)
        from ..factories import zeros_like
        out = zeros_like(input)
        out.copy_(input)
        return out
    d = _wrap_dim(dim, input.ndim)
    parts = [t for t in parts if t is not None]
    x = FUNCTIONS["cat"](parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = hi.logical_xor(lo) if x.dtype.np.kind == "b" else hi - lo
    return x


_public("diff", diff)
