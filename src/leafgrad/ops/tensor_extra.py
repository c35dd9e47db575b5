"""More torch.* functions: block_diag, narrow_copy and renorm (records: PyTorch has nodes of
those names), and composites built the way PyTorch builds them (so the ``grad_fn`` on top
matches): column_stack, msort, cov, corrcoef, trapezoid, cumulative_trapezoid, vander,
isin, isreal.

>>> import leafgrad as torch
>>> torch.trapezoid(torch.tensor([1.0, 2.0, 3.0]))
tensor(4.)
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes as _dt
from ..errors import no_dims_error
from .iter_layout import CONTIG
from .linalg_common import type_name
from ..tensor import Tensor, _wrap
from .reduction import _wrap_dim
from .registry import FUNCTIONS, RECORDS, Sample, bind_method, defop, export_function

__all__: list = []

FAMILY = "shape"


def _public(name, fn, method=False):
    export_function(name, fn)
    if method:
        bind_method(name, fn)


# -- block_diag ------------------------------------------------------------------------------
def _as_2d(shape):
    return (1, 1) if len(shape) == 0 else (1, shape[0]) if len(shape) == 1 else tuple(shape)


def block_diag(tensors):
    """The matrices (0-d and 1-d tensors count as one row) on the diagonal of one matrix."""
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.ndim} dimensions")
    shapes = [_as_2d(t.shape) for t in tensors]
    dtype = np.result_type(*tensors) if tensors else np.float32
    out = np.zeros((sum(s[0] for s in shapes), sum(s[1] for s in shapes)), dtype)
    r = c = 0
    for t, (h, w) in zip(tensors, shapes):
        out[r:r + h, c:c + w] = t.reshape(h, w)
        r, c = r + h, c + w
    return out


def block_diag_tensors(grad, tensors_shapes):
    # PyTorch's block_diag_backward: each block two slices of the gradient, squeezed at -1
    # once for a 1-d tensor (its (1, n) block is then summed to (n,) like a broadcast), twice
    # for a 0-d one (its nodes under create_graph)
    grads, r, c = [], 0, 0
    for shape in tensors_shapes:
        if len(shape) == 1 and shape[0] == 0:
            # PyTorch gives an empty vector zeros and moves on without counting its row: the
            # blocks after it read the gradient from there (as PyTorch does)
            grads.append(_wrap(np.zeros(shape, grad._data.dtype)))
            continue
        h, w = _as_2d(shape)
        g = grad.narrow(0, r, h).narrow(1, c, w)
        for _ in range(2 - len(shape)):
            g = g.squeeze(-1)
        if tuple(g.shape) != tuple(shape):   # (a list input's gradients are not reduced
            from ..autograd.graph import sum_to   # by the engine: sum as it would)
            g = sum_to(g, tuple(shape))
        grads.append(g)
        r, c = r + h, c + w
    return grads


_block_diag = defop("block_diag", block_diag, inputs=("tensors",),
                    derivatives={"tensors": block_diag_tensors}, list_input=True,
                    methods=(), functions=(), family=FAMILY,
                    samples=lambda make, shapes: [
                        Sample((make((2, 3)), make((1,)), make(()), make((2, 2))),
                               call="block_diag")])


def block_diag_public(*tensors):
    """``torch.block_diag(a, b, ...)``."""
    return _block_diag.public(list(tensors))


_public("block_diag", block_diag_public)


# -- narrow_copy -----------------------------------------------------------------------------
def narrow_copy(self, dim, start, length):
    """``narrow`` as a new tensor (PyTorch's checks and messages, in its order)."""
    if self.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim >= self.ndim:
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, "
                           "but got false.  (Could this error message be improved?  If so, "
                           "please report an enhancement request to PyTorch.)")
    d = _wrap_dim(dim, self.ndim)
    n = self.shape[d]
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but "
                         f"got {start})")
    if start < 0:
        start += n
    if length < 0 or start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    key = [slice(None)] * self.ndim
    key[d] = slice(start, start + length)
    return self[tuple(key)].copy()


def narrow_copy_self(grad, self_shape, dim, start, length):
    d = _wrap_dim(dim, len(self_shape))
    # PyTorch's slice_backward(grad, sizes, dim, start, start + length, 1)
    # (SliceBackwardBackward0 under create_graph) with start as given: a negative start
    # slices [start, start + length) from the end, empty when that crosses 0 (its gradient
    # is then zeros, as PyTorch's)
    from .indexing import slice_backward
    n = len(range(*slice(start, start + length).indices(self_shape[d])))
    if n != length and length != 1:   # the gradient does not fit the slice written
        raise RuntimeError(f"The size of tensor a ({n}) must match the size of tensor b "
                           f"({length}) at non-singleton dimension {d}")
    return slice_backward(grad, tuple(self_shape), d, start, start + length, 1)


defop("narrow_copy", narrow_copy, derivatives={"self": narrow_copy_self}, dtype="same",
      family=FAMILY, samples=lambda make, shapes: [Sample((make((3, 4)), 1, 1, 2)),
                                                   Sample((make((3, 4)), 0, 1, 2))])


# -- column_stack / msort --------------------------------------------------------------------
def column_stack(tensors):
    """1-d (and 0-d) tensors as columns, then everything joined along dim 1."""
    cols = [t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors]
    return FUNCTIONS["cat"](cols, 1)


def msort(input):
    """Sorted along dim 0."""
    return input.sort(0).values


_public("column_stack", column_stack)
_public("msort", msort, method=True)


# -- cov / corrcoef --------------------------------------------------------------------------
def _check_weights(name, wt, n_obs, kind_ok, kind_name):
    if wt.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {wt.ndim} dimensions")
    if not kind_ok(wt.dtype):
        raise RuntimeError(f"cov(): expected {name} to have {kind_name} dtype but got {name} "
                           f"with {type_name(wt._data)} dtype")
    if wt.numel() != n_obs:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {wt.numel()} != {n_obs}")
    if n_obs and not bool((wt.detach().min() >= 0).item()):   # (NaN counts as negative)
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in ``input``'s rows (observations in columns),
    computed as PyTorch's (aten Correlation.cpp): the same checks, sums and divisions, so the
    rounding, the dtype (float for an integer input) and the recorded nodes agree."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    if input.dtype == _dt.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input if input.ndim == 2 else input.view(1, -1)
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, n_obs,
                       lambda d: not d.is_floating_point and d != _dt.bool_, "integral")
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, n_obs, lambda d: d.is_floating_point,
                       "floating point")
        w = aweights if w is None else w * aweights
    w_sum = w.sum() if w is not None else _wrap(np.array(n_obs, np.int64))
    if w is not None and not bool((w_sum != 0).item()):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x if w is None else x * w).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm = w_sum - correction
    if bool((norm <= 0).item()):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm.zero_()
    xm = x - avg.unsqueeze(1)
    c = xm.mm((xm if w is None else xm * w).t())
    return c.true_divide(norm).squeeze()


def corrcoef(input):
    """Pearson correlation coefficients of ``input``'s rows, clamped to [-1, 1]."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.view(-1, 1)
    c = c / std.view(1, -1)
    return c.clamp(-1, 1)


_public("cov", cov, method=True)
_public("corrcoef", corrcoef, method=True)


# -- trapezoid / cumulative_trapezoid --------------------------------------------------------
# PyTorch's order of checks and ops (aten Integration.cpp), so errors, rounding and recorded
# nodes agree: with sample points ``x`` the dim is wrapped first (a 0-d ``y`` then fails on its
# size, naming the wrapped dim); with a spacing ``dx`` the dim is used as given.
def _along(t, d, start, stop=None):
    """``t.slice(d, start, stop)``."""
    return t[(slice(None),) * d + (slice(start, stop),)]


def _size_at(y, dim):
    if y.ndim == 0:
        raise no_dims_error(dim)
    return y.shape[_wrap_dim(dim, y.ndim)]


def _steps(y, x, d, name):
    """``x``'s differences along ``d``, viewed to broadcast against ``y``'s (not broadcast
    first: NumPy's rule)."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        sizes = [1] * y.ndim
        sizes[d] = x.shape[0]
        x = x.view(sizes)
    elif x.ndim < y.ndim:
        x = x.view((1,) * (y.ndim - x.ndim) + tuple(x.shape))
    return _along(x, d, 1) - _along(x, d, 0, -1)


def _no_bool(name, y, x=None):
    if y.dtype == _dt.bool_ or (x is not None and x.dtype == _dt.bool_):
        what = "`y`" if x is None else "`x` or `y`"
        raise RuntimeError(f"{name}: received a bool input for {what}, but bool is not supported")


def _check_dx(name, dx):
    if isinstance(dx, (bool, complex)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along ``dim``: spacing ``dx`` (1 by default) or sample points ``x``."""
    if x is not None and not isinstance(x, Tensor):
        dx, x = x, None
    if x is not None:
        if dx is not None:
            raise RuntimeError("trapezoid: received both x and dx")
        d = _wrap_dim(dim, max(y.ndim, 1))
        if _size_at(y, d) == 0:
            return _zeros_except(y, d)
        _no_bool("trapezoid", y, x)
        step = _steps(y, x, d, "trapezoid")
        mids = _along(y, d, 0, -1) + _along(y, d, 1)
        return RECORDS["div_scalar"].public((mids * step).sum(d), 2.0)
    if _size_at(y, dim) == 0:
        return _zeros_except(y, dim)
    _no_bool("trapezoid", y)
    dx = 1 if dx is None else dx
    _check_dx("trapezoid", dx)
    ends = RECORDS["mul_scalar"].public(y.select(dim, 0) + y.select(dim, -1), 0.5)
    return RECORDS["mul_scalar"].public(y.sum(dim) - ends, float(dx))


def trapz(y, x=None, *, dx=None, dim=-1):
    """``trapezoid`` under its older name (``dx`` is a float here: True counts as 1)."""
    if dx is not None and not isinstance(dx, Tensor):
        dx = float(dx)
    return trapezoid(y, x, dx=dx, dim=dim)


def _zeros_except(y, dim):
    shape = list(y.shape)
    del shape[_wrap_dim(dim, y.ndim)]
    return _wrap(np.empty(shape, y._data.dtype)).zero_()   # PyTorch's zeros: version 1


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoid rule along ``dim`` (one fewer element than ``y`` there)."""
    if x is not None and not isinstance(x, Tensor):
        dx, x = x, None
    if x is not None:
        d = _wrap_dim(dim, max(y.ndim, 1))
        _no_bool("cumulative_trapezoid", y, x)
        if y.ndim == 0:   # y.size(dim) for a 1-d x, else a slice of a 0-d tensor
            raise no_dims_error(d) if x.ndim == 1 else IndexError(
                "slice() cannot be applied to a 0-dim tensor.")
        step = _steps(y, x, d, "cumulative_trapezoid")
        mids = _along(y, d, 0, -1) + _along(y, d, 1)
        return RECORDS["div_scalar"].public((mids * step).cumsum(d), 2.0)
    _no_bool("cumulative_trapezoid", y)
    dx = 1 if dx is None else dx
    _check_dx("cumulative_trapezoid", dx)
    if y.ndim == 0:   # PyTorch slices before it checks the dim
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, y.ndim)
    mids = _along(y, d, 0, -1) + _along(y, d, 1)
    return RECORDS["mul_scalar"].public(mids, float(dx) / 2.0).cumsum(d)


_public("trapezoid", trapezoid)
_public("trapz", trapz)
_public("cumulative_trapezoid", cumulative_trapezoid)


# -- vander / isin / isreal ------------------------------------------------------------------
def vander(x, N=None, increasing=False):
    """Columns of powers of the 1-d ``x``: ``x**(N-1), ..., x, 1`` (or increasing)."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is None:
        N = x.numel()
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    dt = x.dtype if x.dtype.is_floating_point else _dt.int64
    # as PyTorch: the first column filled with ones, then x and its running products copied
    # into the columns after it (so the graph holds CopySlices nodes, backward fails as
    # PyTorch's does, and the result's version is 1 or 3 as PyTorch's)
    out = _wrap(np.empty((x.numel(), N), dt.np))
    if N > 0:
        out.select(1, 0).fill_(1)
    if N > 1:
        out[:, 1:] = x.unsqueeze(1).expand(x.numel(), N - 1)
        out[:, 1:] = out[:, 1:].cumprod(1)
    return out if increasing else out.flip(1)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each of ``elements`` occurs in ``test_elements`` (bool)."""
    a = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    b = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    if a.dtype == np.bool_ or b.dtype == np.bool_:   # no bool kernel (a Python bool too)
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    if (isinstance(test_elements, Tensor) and isinstance(elements, Tensor)
            and b.size < int(10.0 * float(a.size) ** 0.145)):
        # PyTorch's brute-force path (few test elements) flattens them with view(-1): its
        # error for a layout that cannot be viewed flat
        test_elements.view(-1)
    return _wrap(np.asarray(np.isin(a, b, invert=invert)))


def isreal(input):
    """True everywhere: leafgrad has no complex dtypes."""
    return _wrap(np.ones(input.shape, np.bool_))


_public("vander", vander)
_public("isin", isin)
_public("isreal", isreal, method=True)


# -- renorm ----------------------------------------------------------------------------------
def _renorm_dims(ndim, dim):
    d = _wrap_dim(dim, ndim)
    return tuple(i for i in range(ndim) if i != d)


def renorm(self, p, dim, maxnorm):
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to it."""
    if self.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {self.ndim} "
                           "dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    axes = _renorm_dims(self.ndim, dim)
    if self.dtype.kind in "biu":   # the norms are linalg.vector_norm's, which wants floats
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {_dt.from_numpy_dtype(self.dtype).tensor_type[:-6]}")
    # (float16: PyTorch's half kernel takes the norms in float, the factor then in half)
    a = np.abs(self.astype(np.float32) if self.dtype == np.float16 else self)
    norm = (np.max(a, axis=axes, keepdims=True) if p == np.inf
            else np.sum(a ** p, axis=axes, keepdims=True) ** (1.0 / p))
    factor = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(self.dtype)
    return self * factor


def renorm_self(grad, self, p, dim, maxnorm):
    # PyTorch's renorm_backward: the slices' norms, the derivative of factor * x through
    # vector_norm's own backward nb, where(norm > maxnorm, factor * (grad - nb / norm), grad)
    from .norms import vector_norm, vector_norm_self
    from .pointwise_common import scale
    # (in the accumulate type: float64 for float32 on CPU, float32 for float16; the result
    # converted back, a ToCopyBackward0 under create_graph)
    axes = list(_renorm_dims(self._data.ndim, dim))
    acc = _dt.float32 if self._data.dtype == np.float16 else _dt.float64
    norm = vector_norm(self, p, axes, True, dtype=acc)
    nb = vector_norm_self((self * grad).sum(axes, keepdim=True, dtype=acc), self, norm, p,
                          axes, True)
    from .registry import RECORDS
    invnorm = RECORDS["add_scalar"].public(norm, 1e-7).reciprocal()   # (AddBackward1)
    factor = scale(invnorm, maxnorm)
    grad_norm = factor * (grad - invnorm * nb)
    if grad_norm._data.dtype != grad._data.dtype:
        grad_norm = grad_norm.to(grad.dtype)
    return grad_norm.where(norm > maxnorm, grad)


defop("renorm", renorm, derivatives={"self": renorm_self}, dtype="same", inplace="renorm_",
      family=FAMILY, samples=lambda make, shapes: [
          Sample((make((3, 4)), 2, 0, 1.0)), Sample((make((3, 4)), 1, 1, 1.5)),
          Sample((make((2, 3, 2)), 3, -1, 0.8))], layout=CONTIG)
