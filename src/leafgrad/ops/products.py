"""Tensor products: ``vdot``, ``kron``, ``inner``, ``tensordot``, ``chain_matmul`` /
``linalg.multi_dot``, ``cross`` / ``linalg.cross``.

Split from matmul_extra.py (addmv, addr, baddbmm, addbmm), which imports this module.
``inner``, ``tensordot`` and ``multi_dot`` are composites of ``mm`` and reshapes, as in
PyTorch (whose outputs then show ``ViewBackward0``).

>>> import leafgrad as torch
>>> torch.kron(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 10.0]))
tensor([ 1., 10.,  2., 20.])
"""
from __future__ import annotations

import numpy as np

from .registry import defop, export_function, bind_method, Sample, RECORDS
from .linalg import _check_dot, _cname, _tname, _no_bool
from .matmul_extra import _size, _tensors   # (matmul_extra imports this module last)
from ..errors import broadcast_error
from ..tensor import Tensor
from .iter_layout import (RED, VIEW_ERROR, as_view, contiguous, elem_strides,
                          elementwise_strides,
                          strided_empty, view_strides)

FAMILY = "linalg"


# -- vdot, kron ----------------------------------------------------------------------------------
def vdot(self, other):
    """Dot product of two 1-D tensors (conjugating the first: a no-op for real tensors)."""
    return np.matmul(self, other)


def vdot_self(grad, other):
    return grad * other


def vdot_other(grad, self):
    return grad * self


_vdot = defop("vdot", vdot, derivatives={"self": vdot_self, "other": vdot_other},
              dtype="same", methods=(), functions=(), family=FAMILY,
              samples=lambda make, shapes: [Sample((make((3,)), make((3,))), call="vdot"),
                                            Sample((make((1,)), make((1,))),
                                                   call="Tensor.vdot")])


def vdot_public(input, other):
    """``torch.vdot``."""
    _tensors("vdot", (("input", input), ("other", other)))
    a, b = input._data, other._data
    _check_dot(a, b)   # dot's checks, in its order
    _no_bool("dot", a)
    return _vdot.public(input, other)


def _kron_shapes(a_shape, b_shape):
    n = max(len(a_shape), len(b_shape))
    return (1,) * (n - len(a_shape)) + tuple(a_shape), (1,) * (n - len(b_shape)) + tuple(b_shape)


def kron(input, other):
    """Kronecker product: block ``(i, j)`` is ``input[i, j] * other``.

    Composed as PyTorch's: each operand reshaped with interleaved unit dims by
    ``_unsafe_view`` (the data, not the version counter, is shared: the product's saved
    operands are not the inputs, so changing an input in place is not caught, as there),
    multiplied, and the product reshaped back (``UnsafeViewBackward0`` over ``MulBackward0``
    over two ``UnsafeViewBackward0``). That last ``_unsafe_view`` is a *view*: the product
    has TensorIterator's layout, taken from strided inputs (a transposed or sliced one), so
    it can fail with the view's error, or give a non-contiguous result, as in PyTorch."""
    _tensors("kron", (("input", input), ("other", other)))
    a_shape, b_shape = _kron_shapes(input._data.shape, other._data.shape)
    unsafe_view = RECORDS["_unsafe_view"].public
    a_view = tuple(x for s in a_shape for x in (s, 1))
    b_view = tuple(x for s in b_shape for x in (1, s))
    shape = tuple(s * t for s, t in zip(a_shape, b_shape))
    prod = unsafe_view(input, a_view) * unsafe_view(other, b_view)
    a_own, b_own = elem_strides(input._data), elem_strides(other._data)
    if a_own == contiguous(input._data.shape) and b_own == contiguous(other._data.shape):
        return unsafe_view(prod, shape)   # row-major throughout: NumPy's layout is PyTorch's
    a_strides = view_strides(input._data.shape, a_own, a_view)
    b_strides = view_strides(other._data.shape, b_own, b_view)
    mul_shape = prod._data.shape
    if a_view != b_view:   # (equal: every size is 1, TensorIterator's fast setup)
        relaid = strided_empty(mul_shape, elementwise_strides(
            mul_shape, [(a_view, a_strides), (b_view, b_strides)]), prod._data.dtype)
        relaid[...] = prod._data
        prod._data = relaid   # (a fresh intermediate: nothing else sees its memory)
    strides = view_strides(mul_shape, elem_strides(prod._data), shape)
    if strides is None:
        raise RuntimeError(VIEW_ERROR)
    out = unsafe_view(prod, shape)
    out._data = as_view(prod._data, shape, strides)
    return out


# -- inner, tensordot, chain_matmul / multi_dot --------------------------------------------------
def tensordot(a, b, dims=2, out=None):
    """Contract ``a``'s ``dims[0]`` with ``b``'s ``dims[1]`` (or the last/first ``dims``)."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):   # torch.tensordot's own checks come first
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got "
                               f"dims={dims}")
        given_a = list(range(-dims, 0))
        given_b = list(range(dims))
    else:
        given_a, given_b = dims
        given_a = [given_a] if isinstance(given_a, int) else list(given_a)
        given_b = [given_b] if isinstance(given_b, int) else list(given_b)
    if len(given_a) != len(given_b):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    da = [_tensordot_dim(d, a.ndim) for d in given_a]
    db = [_tensordot_dim(d, b.ndim) for d in given_b]
    for x, y, gx, gy in zip(da, db, given_a, given_b):
        # PyTorch sums a contracted dim of size 1 against the other operand's dim right away
        if b.shape[y] == 1:
            a = a.sum(x, keepdim=True, dtype=a.dtype)
        elif a.shape[x] == 1:
            b = b.sum(y, keepdim=True, dtype=b.dtype)
        elif a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[x]} in dim {gx} and second has size {b.shape[y]} in "
                               f"dim {gy}")
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    k = int(np.prod([a.shape[d] for d in da]))
    out_shape = [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b]
    m = int(np.prod([a.shape[d] for d in free_a]))
    n = int(np.prod([b.shape[d] for d in free_b]))
    if m == 1 and n == 1:
        _no_bool("dot", a._data)   # one output element: PyTorch's dot kernel
    am = a.permute(free_a + da).reshape(m, k)
    bm = b.permute(db + free_b).reshape(k, n)
    return (am @ bm).view(out_shape)


def _tensordot_dim(d, ndim):
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {d})")
    return d % ndim


def inner(input, other, *, out=None):
    """Sum of products over the last dims (a product when one input is 0-d)."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    if input.ndim == 1 and other.ndim == 1 and input.dtype == other.dtype:
        _no_bool("dot", input._data)   # two vectors: PyTorch's dot kernel
    return tensordot(input, other, ([-1], [-1]))


def multi_dot(tensors, *, out=None):
    """``tensors[0] @ tensors[1] @ ...`` (first and last may be vectors)."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    # PyTorch's order: the first, the last, the middle ranks; then per neighbour pair the
    # dtype (against tensor 0) and the inner sizes
    for i, which in ((0, "first"), (n - 1, "last")):
        if tensors[i].ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got "
                               f"{tensors[i].ndim}D")
    for i in range(1, n - 1):
        if tensors[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].ndim}D")
    mats = list(tensors)
    if first.ndim == 1:
        mats[0] = first.unsqueeze(0)
    if last.ndim == 1:
        mats[-1] = last.unsqueeze(-1)
    d0 = first._data
    for i in range(1, n):
        d = mats[i]._data
        if d.dtype != d0.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {_cname(d0)} and tensor {i} {_cname(d)}")
        if mats[i - 1]._data.shape[-1] != d.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes "
                               f"{list(tensors[i - 1].shape)} and {list(tensors[i].shape)} "
                               f"cannot be multiplied")
    result = _chain(mats)
    shape = ([] if first.ndim == 1 else [result.shape[0]]) + \
            ([] if last.ndim == 1 else [result.shape[1]])
    return result.view(shape)


def _chain(mats):
    """The product of 2-D ``mats`` in PyTorch's multi_dot order: the cheaper of the two for
    three matrices (ties to the left), the matrix-chain dynamic programme's above (the first
    best split), so products round as PyTorch's do."""
    n = len(mats)
    if n == 2:
        return mats[0].mm(mats[1])
    dims = [m._data.shape[0] for m in mats] + [mats[-1]._data.shape[1]]
    if n == 3:
        a, b, c, d = dims
        if (a * c) * (b + d) > (b * d) * (a + c):
            return mats[0].mm(mats[1].mm(mats[2]))
        return mats[0].mm(mats[1]).mm(mats[2])
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k

    def product(i, j):
        if i == j:
            return mats[i]
        k = split[i][j]
        return product(i, k).mm(product(k + 1, j))
    return product(0, n - 1)


def chain_matmul(*matrices, out=None):
    """Deprecated ``torch.chain_matmul``: the product of 2-D matrices."""
    import warnings
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.")
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if len(matrices) == 1:
        return matrices[0].clone()
    for i, t in enumerate(matrices):
        if t.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t.ndim}, expected 2 instead.")
    return multi_dot(matrices)


# -- cross ---------------------------------------------------------------------------------------
def linalg_cross(self, other, dim=-1):
    """Cross product of 3-vectors along ``dim`` (inputs broadcast)."""
    shape = np.broadcast_shapes(self.shape, other.shape)
    a, b = np.broadcast_to(self, shape), np.broadcast_to(other, shape)
    if a.dtype not in (np.float32, np.float64):
        return np.cross(a, b, axis=dim)
    # PyTorch's kernel computes each component as fma(a_i, b_j, -(a_j * b_i)): cross(x, x) is
    # then the tiny rounding error of a product, not 0 (and its sign orders topk/sort)
    a, b = np.moveaxis(a, dim, -1), np.moveaxis(b, dim, -1)
    out = np.stack([_fms(a[..., 1], b[..., 2], a[..., 2], b[..., 1]),
                    _fms(a[..., 2], b[..., 0], a[..., 0], b[..., 2]),
                    _fms(a[..., 0], b[..., 1], a[..., 1], b[..., 0])], -1)
    return np.moveaxis(out, -1, dim)


def _fms(a, b, c, d):
    """``fma(a, b, -(c * d))``: ``a * b`` exact, ``c * d`` rounded, one rounding at the end."""
    if a.dtype == np.float32:
        # a float32 product is exact in float64
        return (a.astype(np.float64) * b - (c * d).astype(np.float64)).astype(np.float32)
    p = a * b
    # Dekker's TwoProduct: e is a * b - p exactly
    split = 134217729.0
    t = split * a
    ah = t - (t - a)
    al = a - ah
    t = split * b
    bh = t - (t - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    # Knuth's TwoSum: h + err is p - q exactly
    q = c * d
    h = p - q
    v = h - p
    err = (p - (h - v)) + (-q - v)
    return h + (err + e)


def linalg_cross_self(grad, other, dim):
    return _cross.public(other, grad, dim)


def linalg_cross_other(grad, self, dim):
    return _cross.public(grad, self, dim)


_cross = defop("linalg_cross", linalg_cross, layout=RED,
               derivatives={"self": linalg_cross_self, "other": linalg_cross_other},
               methods=(), functions=(), family=FAMILY,
               samples=lambda make, shapes: [
                   Sample((make((4, 3)), make((4, 3))), call="linalg.cross"),
                   Sample((make((3, 2)), make((3, 1))), {"dim": 0}, call="cross"),
                   Sample((make((2, 3)), make((1, 3))), call="linalg.cross"),
                   Sample((make((3,)), make((3,))), call="Tensor.cross")])


def _cross_checks(input, other, dim):
    """linalg_cross's checks in PyTorch's order: ranks, the length-3 dim, broadcasting, then
    its kernel (chosen by input's dtype: no bool; other's dtype must match)."""
    _tensors("linalg_cross", (("input", input), ("other", other)))
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    a, b = input._data, other._data
    n_a, n_b = _size(a, dim), _size(b, dim)
    if n_a != 3 or n_b != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{n_a} and {n_b}")
    err = broadcast_error([a.shape, b.shape])
    if err is not None:
        raise err
    _no_bool("cross", a)
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {_tname(a)} but found {_tname(b)}")


def cross_linalg(input, other, *, dim=-1, out=None):
    """``torch.linalg.cross``."""
    _cross_checks(input, other, dim)
    return _cross.public(input, other, dim)


def cross(input, other, dim=None, *, out=None):
    """``torch.cross``: ``dim`` defaults to the first dim of size 3 (with a warning)."""
    if dim is None:
        import warnings
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross."
                      "\nThe default value of dim will change to agree with that of "
                      "linalg.cross in a future release.")
        # the first dim of size 3 of input (not of the broadcast shape)
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    _cross_checks(input, other, dim)
    return _cross.public(input, other, dim)


for _name, _fn in (("vdot", vdot_public), ("cross", cross), ("inner", inner), ("kron", kron)):
    export_function(_name, _fn)
    bind_method(_name, _fn)
for _name, _fn in (("tensordot", tensordot), ("chain_matmul", chain_matmul)):
    export_function(_name, _fn)
