"""Reductions: sum, mean, prod, logsumexp, and the dim helpers every reduction shares.

var/std live in ``variance.py``, all/any/argmax/argmin in ``reduction_nograd.py``, extremes
(max/min/amax/amin/median) in ``extrema.py``, cumulative ops in ``cumulative.py``; norms in
``linalg.py``.

PyTorch names a reduction's node by the overload that ran: ``x.sum()`` is ``SumBackward0``,
``x.sum(dim)`` (even ``dim=None``) is ``SumBackward1``. So each such op is two records sharing
one formula, and a small public wrapper picks the record by whether ``dim`` was given.

>>> import leafgrad as torch
>>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> x.sum(0)
tensor([4., 6.], grad_fn=<SumBackward1>)
"""
from __future__ import annotations

import builtins

import numpy as np

from .registry import defop, export_function, bind_method, Sample
from .cascade_sum import sum_like_torch
from .numpy_aliases import NA as _NA, dim_keepdim as _aliased
from .. import dtypes as _dt
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap

FAMILY = "reduction"
_NODIM = type("_NoDim", (), {"__repr__": lambda self: "None"})()   # "dim not passed"


# -- dim handling ----------------------------------------------------------------------------
def _dims(dim, ndim):
    """PyTorch's ``dim`` (None, int, or sequence; [] means all) as a sorted NumPy axis tuple."""
    if dim is None:
        return None
    n = max(ndim, 1)
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        out = []
        for d in dim:
            d = _wrap_dim(d, n)
            if d in out:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
            out.append(d)
        return tuple(sorted(out)) if ndim else None
    d = _wrap_dim(dim, n)
    return (d,) if ndim else None


def _wrap_dim(d, n):
    if isinstance(d, Tensor):
        d = int(d)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}]"
                         f", but got {d})")
    return d % n


def _count(shape, axis):
    n = 1
    for i, s in enumerate(shape):
        if axis is None or i in axis:
            n *= s
    return n


def unsqueeze_grad(grad, ndim, dim, keepdim):
    """A reduced gradient with the reduced dims back as size-1 dims (not expanded).

    Under create_graph this is PyTorch's ``unsqueeze_multiple``, one ``unsqueeze`` per
    reduced dim in increasing order (UnsqueezeBackward0 nodes); a reduction over every dim
    leaves the 0-d gradient as it is (it broadcasts). Without create_graph one reshape."""
    if keepdim or not ndim:
        return grad
    axis = _dims(dim, ndim)
    if axis is None:
        return grad
    if _mode.grad_enabled:
        for a in axis:
            grad = grad.unsqueeze(a)
        return grad
    shape = list(grad._data.shape)
    for a in axis:
        shape.insert(a, 1)
    return grad.reshape(shape)


def expand_grad(grad, self_shape, dim, keepdim):
    """Broadcast a reduced gradient back over the reduced dims (a view, no copy): PyTorch's
    sum_backward (see unsqueeze_grad)."""
    return unsqueeze_grad(grad, len(self_shape), dim, keepdim).expand(self_shape)


def _const(array):
    """A NumPy array as a constant tensor (no history): masks inside derivative formulas."""
    array = np.asarray(array)
    return _wrap(array if array.flags.c_contiguous else array.copy())


def _dtype_name(np_dtype):
    """PyTorch's scalar type name: ``Float``, ``Long``, ``Bool``..."""
    return _dt.from_numpy_dtype(np_dtype).tensor_type[:-len("Tensor")]


def _reduce_dtype(rec, args, dtype_pos):
    """sum/prod: ``dtype=`` casts first; integers and bools accumulate in int64."""
    dtype = args[dtype_pos]
    if dtype is not None:
        d = _dt.to_dtype(dtype).np
        return d, d
    d = args[0]._data.dtype
    if d.kind in "biu":
        return np.dtype(np.int64), np.dtype(np.int64)
    return None, None


def _float_dtype(rec, args, dtype_pos, what):
    """mean: floating input (or an explicit ``dtype=``) only."""
    dtype = args[dtype_pos]
    if dtype is not None:
        d = _dt.to_dtype(dtype).np
        return d, d
    d = args[0]._data.dtype
    if d.kind not in "fc":
        raise RuntimeError(
            f"{what}(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {_dtype_name(d)}")
    return None, None


def _samples_dim(make, shapes, extra_kwargs=({},), call=None):
    """Samples for a reduction: full, along one dim, a dim list, keepdim."""
    base = shapes[1]
    out = [Sample((make(base),), dict(kw), call=call) for kw in extra_kwargs]
    if len(base):
        out.append(Sample((make(base), -1), call=call))
        out.append(Sample((make(base), 0, True), call=call))
    if len(base) >= 2:
        out.append(Sample((make(base), [0, -1]), call=call))
    return out


# -- sum ---------------------------------------------------------------------------------------
def sum_all(self, *, dtype=None):
    """Sum of all elements (float: in PyTorch's addition order, Note [Cascade sum])."""
    out = sum_like_torch(self)
    if out is not None:
        return out
    return np.sum(self, dtype=self.dtype if self.dtype.kind == "f" else None)


def sum_dim(self, dim, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (an int or a sequence; None or [] means all)."""
    axis = _dims(dim, self.ndim)
    out = sum_like_torch(self, axis, keepdim)
    if out is not None:
        return out
    return np.sum(self, axis=axis, keepdims=keepdim)


def sum_all_self(grad, self_shape):
    return grad.expand(self_shape)


def sum_dim_self(grad, self_shape, dim, keepdim):
    return expand_grad(grad, self_shape, dim, keepdim)


_sum0 = defop("sum", sum_all, derivatives={"self": sum_all_self},
              dtype=lambda rec, args: _reduce_dtype(rec, args, 1),
              methods=(), functions=(), family=FAMILY)
_sum1 = defop("sum_dim", sum_dim, derivatives={"self": sum_dim_self},
              dtype=lambda rec, args: _reduce_dtype(rec, args, 3), grad_fn_name="SumBackward1",
              methods=(), functions=(), family=FAMILY,
              samples=lambda make, shapes: _samples_dim(make, shapes, call="sum") + [
                  Sample((make(shapes[0]),), call="sum"),
                  Sample((make(shapes[0]),), {"dtype": _dt.float32}, call="sum", atol=1e-4),
                  Sample((make(shapes[0]),), {"dim": None}, call="sum")])


def sum(input, dim=_NODIM, keepdim=False, *, dtype=None, axis=_NA, keepdims=_NA):
    """Sum of all elements, or over ``dim``; integer and bool inputs give int64.

    >>> import leafgrad as torch
    >>> torch.tensor([[1, 2], [3, 4]]).sum(1, keepdim=True)
    tensor([[3],
            [7]])
    """
    if axis is not _NA or keepdims is not _NA:   # Note [NumPy aliases at no cost]
        if dim is _NODIM and axis is _NA:
            raise _keepdims_alone("sum", "tuple of ints")
        dim, keepdim = _aliased("sum", dim, _NODIM, keepdim, axis, keepdims)
    if dim is _NODIM:
        if keepdim:
            raise TypeError("sum() received an invalid combination of arguments - got "
                            "(keepdim=bool, ), but expected one of:\n * (*, torch.dtype dtype "
                            "= None)\n * (tuple of ints dim, bool keepdim = False, *, "
                            "torch.dtype dtype = None)\n")
        return _sum0.public(input, dtype=dtype)
    if type(dim) is not int and not _int_dims(dim):
        raise TypeError(f"sum() received an invalid combination of arguments - got "
                        f"({type(dim).__name__}), but expected one of:\n * (*, torch.dtype "
                        f"dtype = None)\n * (tuple of ints dim, bool keepdim = False, *, "
                        f"torch.dtype dtype = None)\n")
    return _sum1.public(input, dim, keepdim, dtype=dtype)


def _keepdims_alone(name, dim_type):
    """PyTorch's error for ``keepdims=`` without a dim (no overload takes it alone)."""
    return TypeError(f"{name}() received an invalid combination of arguments - got "
                     f"(keepdims=bool, ), but expected one of:\n * (*, torch.dtype dtype = "
                     f"None)\n * ({dim_type} dim, bool keepdim = False, *, torch.dtype dtype "
                     f"= None)\n")


def _int_dims(dim):
    """Is ``dim`` what PyTorch's parser takes as dims (None, an int, ints, a 0-d tensor)?"""
    if dim is None or isinstance(dim, (int, np.integer, Tensor)):
        return True
    if not isinstance(dim, (list, tuple)):
        return False
    for d in dim:   # (no all(): this module defines torch.all)
        if not isinstance(d, (int, np.integer)):
            return False
    return True


def nansum(self, dim=None, keepdim=False, *, dtype=None):
    """Sum treating NaN as zero."""
    return np.nansum(self, axis=_dims(dim, self.ndim), keepdims=keepdim)


def nansum_self(grad, self, dim, keepdim):
    keep = _const(~np.isnan(self._data))
    return expand_grad(grad, self._data.shape, dim, keepdim) * keep


defop("nansum", nansum, derivatives={"self": nansum_self},
      dtype=lambda rec, args: _reduce_dtype(rec, args, 3), family=FAMILY)


# -- mean --------------------------------------------------------------------------------------
def mean_all(self, *, dtype=None):
    """Mean of all elements: PyTorch's sum, then a division by the count."""
    out = sum_like_torch(self)
    if out is not None:
        return out / self.dtype.type(self.size)
    return np.mean(self) if self.size else np.array(np.nan, self.dtype)


def mean_dim(self, dim, keepdim=False, *, dtype=None):
    """Mean over ``dim``."""
    axis = _dims(dim, self.ndim)
    out = sum_like_torch(self, axis, keepdim)
    if out is not None:
        return out / self.dtype.type(self.size // max(out.size, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.mean(self, axis=axis, keepdims=keepdim)


def mean_all_self(grad, self_shape):
    # PyTorch divides by the count as a Scalar: the node is DivBackward1
    from .registry import RECORDS
    return RECORDS["div_scalar"].public(grad.expand(self_shape), _count(self_shape, None))


def mean_dim_self(grad, self_shape, dim, keepdim):
    from .registry import RECORDS
    n = _count(self_shape, _dims(dim, len(self_shape)))
    return RECORDS["div_scalar"].public(expand_grad(grad, self_shape, dim, keepdim), n)


_mean0 = defop("mean", mean_all, derivatives={"self": mean_all_self},
               dtype=lambda rec, args: _float_dtype(rec, args, 1, "mean"),
               methods=(), functions=(), family=FAMILY)
_mean1 = defop("mean_dim", mean_dim, derivatives={"self": mean_dim_self},
               dtype=lambda rec, args: _float_dtype(rec, args, 3, "mean"),
               grad_fn_name="MeanBackward1", methods=(), functions=(), family=FAMILY,
               samples=lambda make, shapes: _samples_dim(make, shapes, call="mean") + [
                   Sample((make(shapes[0]),), call="mean")])


def mean(input, dim=_NODIM, keepdim=False, *, dtype=None, axis=_NA, keepdims=_NA):
    """Mean of all elements, or over ``dim``; floating input only (or pass ``dtype=``).

    >>> import leafgrad as torch
    >>> torch.tensor([1.0, 2.0, 6.0]).mean()
    tensor(3.)
    """
    if axis is not _NA or keepdims is not _NA:   # Note [NumPy aliases at no cost]
        if dim is _NODIM and axis is _NA:
            raise _keepdims_alone("mean", "tuple of ints")
        dim, keepdim = _aliased("mean", dim, _NODIM, keepdim, axis, keepdims)
    if dim is _NODIM:
        return _mean0.public(input, dtype=dtype)
    return _mean1.public(input, dim, keepdim, dtype=dtype)


# -- prod --------------------------------------------------------------------------------------
# Note [Product order]: PyTorch's CPU prod reduces a contiguous run (the whole tensor, or a
# dim of stride 1) with its vectorized inner reduction: 4 vectors of 32 bytes (AVX2: 16
# float16, 8 float32, 4 float64 lanes each) accumulate the first n // (4 V) blocks lane by lane,
# then combine as (a0 * a1) * (a2 * a3), then the V lanes in order, then the remaining
# elements one by one; every product rounds to the dtype (float16 too). NumPy's own order (and
# its float32 accumulator for float16) differs in the last bits, which a later comparison or
# argsort can turn into a different answer (fuzz seed 121).
# (the AVX2 build runs on AVX-512 machines too: leafgrad._cpu)
_PROD_LANES = {np.dtype(np.float16): 16, np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def _prod_rows(rows: np.ndarray) -> np.ndarray:
    """The product of each row of a 2-d float array in PyTorch's inner-reduction order."""
    lanes = _PROD_LANES[rows.dtype]
    n = rows.shape[1]
    block = 4 * lanes
    count = n // block
    with np.errstate(all="ignore"):
        if count:
            acc = rows[:, :block].copy()
            for i in range(1, count):
                acc *= rows[:, i * block:(i + 1) * block]
            v = acc.reshape(-1, 4, lanes)
            v = (v[:, 0] * v[:, 1]) * (v[:, 2] * v[:, 3])
            out = v[:, 0].copy()
            for j in range(1, lanes):
                out *= v[:, j]
        else:
            out = np.ones(rows.shape[0], rows.dtype)
        for k in range(count * block, n):
            out *= rows[:, k]
    return out


def prod_all(self, *, dtype=None):
    """Product of all elements (Note [Product order])."""
    if self.dtype in _PROD_LANES and self.size > 1:
        return _prod_rows(self.ravel(order="K").reshape(1, -1))[0]
    return np.prod(self)


def prod_dim(self, dim, keepdim=False, *, dtype=None):
    """Product along one ``dim`` (Note [Product order] where that dim has stride 1)."""
    axis = _wrap_dim(dim, max(self.ndim, 1))   # (a 0-d tensor has dims -1 and 0)
    if (self.dtype in _PROD_LANES and self.ndim and self.shape[axis] > 1 and self.size
            and self.strides[axis] == self.itemsize):
        moved = np.moveaxis(self, axis, -1)
        out = _prod_rows(moved.reshape(-1, moved.shape[-1])).reshape(moved.shape[:-1])
        return np.expand_dims(out, axis) if keepdim else out
    return np.prod(self, axis=axis if self.ndim else None, keepdims=keepdim and self.ndim > 0)


def _prod_safe_zeros(grad, x, axis):
    """PyTorch's prod_safe_zeros_backward: ``grad * prod_{m != i} x_m`` along ``axis`` from
    the exclusive cumulative products from each end (no division, so zeros are safe):
    ``cumprod(cat(1, x[:-1]))`` times the same of the flipped input, flipped back. Its own
    derivatives are cumprod's, cat's and flip's, as PyTorch's."""
    n = x._data.shape[axis]
    if x._data.size == 0:
        return grad.expand_as(x)
    if n == 1:
        return grad
    from .registry import FUNCTIONS
    shape = list(x._data.shape)
    shape[axis] = 1
    ones = _wrap(np.ones(shape, x._data.dtype))
    normal = FUNCTIONS["cat"]([ones, x.narrow(axis, 0, n - 1)], axis).cumprod(axis)
    reverse = FUNCTIONS["cat"]([ones, x.narrow(axis, 1, n - 1).flip(axis)], axis)
    return grad * (normal * reverse.cumprod(axis).flip(axis))


# PyTorch's prod_backward: without zeros grad * (result / self), reading the saved result (so a
# second backward through a freed graph fails there, as in PyTorch); with zeros the safe
# formula, for the whole product on the flattened input, viewed back (ViewBackward0)
def prod_all_self(grad, self, result):
    d = self._data
    if d.ndim == 0:
        return grad
    if not (d == 0).any():
        return grad * (result / self)
    return _prod_safe_zeros(grad, self.contiguous().view(-1), 0).view(d.shape)


def prod_dim_self(grad, self, result, dim, keepdim):
    d = self._data
    if d.ndim == 0:
        return grad
    axis = _wrap_dim(dim, d.ndim)
    if not keepdim:
        grad = grad.unsqueeze(axis)
    if not (d == 0).any():
        return grad * ((result if keepdim else result.unsqueeze(axis)) / self)
    return _prod_safe_zeros(grad, self, axis)


def _prod_samples(make, shapes):
    base = shapes[1]
    out = [Sample((make(base),), call="prod"),
           Sample((np.asarray(make(shapes[0]) * (make(shapes[0]) > 0)),), call="prod")]
    if len(base):
        x = make(base)
        x.flat[0] = 0.0
        out += [Sample((make(base), -1), call="prod"), Sample((x, 0, True), call="prod"),
                Sample((x,), call="prod")]
        y = make(base)
        y.flat[: min(2, y.size)] = 0.0
        out += [Sample((y,), call="prod"), Sample((y, 0), call="prod")]
    return out


_prod0 = defop("prod", prod_all, derivatives={"self": prod_all_self},
               dtype=lambda rec, args: _reduce_dtype(rec, args, 1),
               methods=(), functions=(), family=FAMILY)
_prod1 = defop("prod_dim", prod_dim, derivatives={"self": prod_dim_self},
               dtype=lambda rec, args: _reduce_dtype(rec, args, 3), grad_fn_name="ProdBackward1",
               methods=(), functions=(), family=FAMILY, samples=_prod_samples)


def prod(input, dim=_NODIM, keepdim=False, *, dtype=None, axis=_NA, keepdims=_NA):
    """Product of all elements, or along one ``dim``.

    >>> import leafgrad as torch
    >>> torch.tensor([1.0, 2.0, 3.0]).prod()
    tensor(6.)
    """
    if axis is not _NA or keepdims is not _NA:   # Note [NumPy aliases at no cost]
        if dim is _NODIM and axis is _NA:
            raise _keepdims_alone("prod", "int")
        dim, keepdim = _aliased("prod", dim, _NODIM, keepdim, axis, keepdims)
    if dim is _NODIM:
        return _prod0.public(input, dtype=dtype)
    return _prod1.public(input, dim, keepdim, dtype=dtype)


# -- logsumexp ---------------------------------------------------------------------------------
def logsumexp(self, dim, keepdim=False):
    """``log(sum(exp(self), dim))`` computed stably (shifted by the max)."""
    axis = _dims(dim, self.ndim)
    if self.dtype.kind != "f":
        self = self.astype(_dt.get_default_dtype().np)
    if self.size == 0:
        return np.log(np.sum(np.exp(self), axis=axis, keepdims=keepdim))
    m = np.max(self, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(self - m), axis=axis, keepdims=True)) + m
    if not keepdim:
        out = out.reshape(np.sum(m, axis=axis).shape) if axis is not None else out.reshape(())
    return out


def logsumexp_self(grad, self, result, dim, keepdim):
    # PyTorch's logsumexp_backward: both unsqueezed, broadcast by the product (no expand)
    n = self._data.ndim
    return unsqueeze_grad(grad, n, dim, keepdim) * (
        self - unsqueeze_grad(result, n, dim, keepdim)).exp()


def _logsumexp_dtype(rec, args):
    d = args[0]._data.dtype
    out = d if d.kind == "f" else _dt.get_default_dtype().np
    return None, out


defop("logsumexp", logsumexp, derivatives={"self": logsumexp_self}, dtype=_logsumexp_dtype,
      family=FAMILY,
      samples=lambda make, shapes: [Sample((make(shapes[1]), -1 if shapes[1] else 0)),
                                    Sample((make(shapes[0]), list(range(len(shapes[0]))))),
                                    Sample((np.asarray(make(shapes[1]) * 300), 0, True))])


# -- export the wrappers ---------------------------------------------------------------------
for _name, _fn in (("sum", sum), ("mean", mean), ("prod", prod)):
    export_function(_name, _fn)
    bind_method(_name, _fn)

from . import cumulative  # noqa: E402,F401  (cumsum, cumprod: registers)
from . import extrema  # noqa: E402,F401  (max, min, amax, amin, median: registers)
from . import variance  # noqa: E402,F401  (var, std: registers)
from . import reduction_nograd  # noqa: E402,F401  (all, any, argmax, argmin: registers)

del builtins
