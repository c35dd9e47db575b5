"""Cumulative reductions: cumsum, cumprod (and the reverse cumsum their gradients need).

>>> import leafgrad as torch
>>> torch.tensor([1.0, 2.0, 3.0]).cumprod(0)
tensor([1., 2., 6.])
"""
from __future__ import annotations

import numpy as np

from .iter_layout import CONTIG
from .registry import defop, Sample
from .. import dtypes as _dt
from ..grad_mode import is_grad_enabled as _grad_enabled
from ..tensor import _wrap

FAMILY = "reduction"


def _axis(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}]"
                         f", but got {dim})")
    return dim % n


def _cum_dtype(rec, args):
    dtype = args[2]
    if dtype is not None:
        d = _dt.to_dtype(dtype).np
        return d, d
    if args[0]._data.dtype.kind in "biu":
        return np.dtype(np.int64), np.dtype(np.int64)
    return None, None


def _samples(call):
    def samples(make, shapes):
        base = shapes[1] or (3,)
        x = make(base)
        out = [Sample((x, -1), call=call), Sample((make(shapes[0]), 0), call=call)]
        if call == "cumprod":
            z = make(base)
            z.flat[0] = 0.0                       # one zero at the start of a slice
            z2 = make(base)
            z2.reshape(-1, base[-1])[:, -1] = 0.0  # and at the end
            out += [Sample((z, -1), call=call), Sample((z2, -1), call=call),
                    Sample((z, 0), call=call)]
            if base[-1] >= 3:
                z3 = make(base)
                z3[..., 0] = 0.0
                z3[..., 2] = 0.0                   # two zeros in a slice
                out.append(Sample((z3, -1), call=call))
        return out
    return samples


# PyTorch's CPU scans accumulate in the dtype's accumulation type (float32 in double, float16
# in float) and round each running value back (fuzz seed 79)
_ACC = {np.dtype(np.float32): np.float64, np.dtype(np.float16): np.float32}


def _scan(ufunc, x, axis):
    acc = _ACC.get(x.dtype)
    if acc is None:
        return ufunc.accumulate(x, axis=axis)
    return ufunc.accumulate(x, axis=axis, dtype=acc).astype(x.dtype)


# -- cumsum ------------------------------------------------------------------------------------
def cumsum(self, dim, *, dtype=None):
    """Running sum along ``dim``."""
    if self.ndim == 0:
        _axis(dim, 0)
        return self.copy()
    return _scan(np.add, self, _axis(dim, self.ndim))


def reverse_cumsum(self, dim):
    """Running sum from the end along ``dim`` (the transpose of cumsum)."""
    if self.ndim == 0:
        return self.copy()
    axis = _axis(dim, self.ndim)
    return np.flip(_scan(np.add, np.flip(self, axis), axis), axis)


def reversed_cumsum(w, dim):
    """The running sum from the end: PyTorch's ``w.flip(dim).cumsum(dim).flip(dim)``.

    Recorded as those three ops when ``w`` is part of a graph (double backward shows
    ``FlipBackward0`` nodes, as PyTorch's does); one fused kernel otherwise."""
    if w._requires_grad and _grad_enabled():
        return w.flip(dim).cumsum(dim).flip(dim)
    return _revcumsum.public(w, dim)


def cumsum_self(grad, dim):
    d = grad._data
    if d.size <= 1 or d.shape[_axis(dim, d.ndim)] == 1:
        return grad    # PyTorch's trivial case: the gradient passes unchanged
    return reversed_cumsum(grad, dim)


def reverse_cumsum_self(grad, dim):
    return grad.cumsum(dim)


defop("cumsum", cumsum, derivatives={"self": cumsum_self}, dtype=_cum_dtype, family=FAMILY,
      samples=_samples("cumsum"), layout=CONTIG)
_revcumsum = defop("reverse_cumsum", reverse_cumsum, derivatives={"self": reverse_cumsum_self},
                   dtype="same", methods=(), functions=(), family=FAMILY)


# -- cumprod -----------------------------------------------------------------------------------
def cumprod(self, dim, *, dtype=None):
    """Running product along ``dim``."""
    if self.ndim == 0:
        _axis(dim, 0)
        return self.copy()
    return _scan(np.multiply, self, _axis(dim, self.ndim))


def cumprod_self(grad, self, result, dim):
    """Gradient of cumprod; safe where the input has zeros.

    Note [cumprod with zeros]
    ``d out_j / d x_i = prod_{m <= j, m != i} x_m`` for ``j >= i``. Without zeros that is
    ``out_j / x_i``, giving ``reverse_cumsum(grad * out) / x``. With zeros, split each slice at
    its zeros: ``C`` is the running product with zeros replaced by one (safe to divide), ``cz``
    counts the zeros seen so far. For a non-zero ``x_i`` only the ``j`` before the first zero
    count, for the first zero ``k1`` the ``j`` before the second one. Terms that are zero in
    value but not in derivative (one other zero ``x_k`` inside the product) are kept to first
    order, so second derivatives match PyTorch's too.
    """
    d = self._data
    if d.ndim == 0 or d.size <= 1 or d.shape[_axis(dim, d.ndim)] == 1:
        return grad    # PyTorch's shortcut: the gradient passes unchanged (no graph to self)
    axis = _axis(dim, d.ndim)
    zero = d == 0
    if not zero.any():
        return reversed_cumsum(result * grad, axis) / self   # PyTorch: w = output * grad
    if _grad_enabled():   # create_graph: PyTorch's O(n^2) formula, op for op (its graph)
        return _cumprod_grad_graph(grad, self, axis)
    dt = d.dtype
    zf = zero.astype(dt)
    safe = self * _wrap(1 - zf) + _wrap(zf)                   # zeros -> constant 1
    c = safe.cumprod(axis)                                    # C_j, zeros skipped
    cz = np.cumsum(zero, axis=axis)                           # zeros in [0..j]
    m0, m1, m2 = (_wrap((cz == k).astype(dt)) for k in (0, 1, 2))
    first = _wrap((zero & (cz == 1)).astype(dt))              # the first zero k1
    second = _wrap((zero & (cz == 2)).astype(dt))             # the second zero k2
    gc = grad * c
    x1 = (self * first).sum(axis, keepdim=True)               # x_k1 (value 0)
    x2 = (self * second).sum(axis, keepdim=True)              # x_k2 (value 0)
    nonzero = _wrap((~zero).astype(dt))
    s1 = (gc * m1).sum(axis, keepdim=True)
    s2 = (gc * m2).sum(axis, keepdim=True)
    before = reversed_cumsum(gc * m0, axis) + x1 * reversed_cumsum(gc * m1, axis)
    return (before / safe * nonzero + first * (s1 + x2 * s2) + second * (x1 * s2))


def _cumprod_grad_graph(grad, self, axis):
    """PyTorch's cumprod gradient under create_graph where the input has zeros: for each k
    along ``axis``, the products with x_k left out (prod of x[:k] times cumprod of x[k+1:]),
    summed against grad[k:] and copied into slice k of a zero tensor."""
    from .. import ones, zeros
    n = self._data.shape[axis]
    lead = (slice(None),) * axis
    out = zeros(self._data.shape, dtype=grad.dtype)
    one_shape = list(self._data.shape)
    one_shape[axis] = 1
    one = ones(1, dtype=grad.dtype).expand(one_shape)
    for k in range(n):
        if k == 0:
            omitted = _cat_public([one, self[lead + (slice(1, None),)].cumprod(axis)], axis)
        else:
            until_k = self[lead + (slice(0, k),)].prod(axis, keepdim=True)
            if k == n - 1:
                omitted = until_k
            else:
                from_k1 = self[lead + (slice(k + 1, None),)].cumprod(axis)
                omitted = _cat_public([until_k, until_k.expand_as(from_k1) * from_k1], axis)
        part = (grad[lead + (slice(k, None),)] * omitted).sum(axis)
        out.select(axis, k).copy_(part)
    return out


def _cat_public(tensors, dim):
    from .joins import _cat
    return _cat.public(tensors, dim)


defop("cumprod", cumprod, derivatives={"self": cumprod_self}, dtype=_cum_dtype, family=FAMILY,
      samples=_samples("cumprod"), layout=CONTIG)


# -- cumsum_ / cumprod_ --------------------------------------------------------------------------
_CPP = {"float16": "c10::Half", "float32": "float", "float64": "double", "int8": "signed char",
        "int16": "short int", "int32": "int", "int64": "long int", "uint8": "unsigned char",
        "bool": "bool"}


def _cumulative_inplace(name):
    """``cumsum_`` / ``cumprod_``: PyTorch checks the dim, then that ``dtype`` (if given) is
    self's, then the memory overlap; the running sum keeps self's dtype (int32 stays int32)
    and bool has no kernel."""
    from .pointwise_common import inplace_of
    from .pointwise_common import not_implemented_for
    from .registry import RECORDS, bind_method, inplace_check
    rec = RECORDS[name]

    def compute(self, dim):
        if self._data.dtype == np.bool_:
            raise not_implemented_for(f"{name}_out_cpu", self._data)
        return rec.public(self, dim, dtype=_dt.from_numpy_dtype(self._data.dtype))
    write = inplace_of(compute, name + "_", saves_self=name == "cumprod")

    def inplace(self, dim, *, dtype=None):
        inplace_check(self)
        _axis(dim, self._data.ndim)
        if dtype is not None and _dt.to_dtype(dtype).np != self._data.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype "
                               f"{_CPP[self._data.dtype.name]} and output tensor dtype "
                               f"{_CPP[_dt.to_dtype(dtype).name]} should match")
        return write(self, dim)
    inplace.__name__ = inplace.__qualname__ = name + "_"
    inplace.__doc__ = f"In-place version of :meth:`{name}` (the result keeps self's dtype)."
    bind_method(name + "_", inplace)


_cumulative_inplace("cumsum")
_cumulative_inplace("cumprod")
