"""More matrix products: ``addmv``, ``addr``, ``baddbmm``, ``addbmm`` (and their in-place
forms, with ``addmm_``), ``vdot``, ``kron``, ``inner``, ``tensordot``, ``chain_matmul`` /
``linalg.multi_dot``, ``cross`` / ``linalg.cross`` (``cdist`` and ``dist``: distance.py).

The BLAS-backed ones are records whose forward is one ``np.matmul``; ``inner``,
``tensordot`` and ``multi_dot`` are composites of ``mm`` and reshapes, as in PyTorch (whose
outputs then show ``ViewBackward0``).

>>> import leafgrad as torch
>>> torch.addmv(torch.zeros(2), torch.ones(2, 3), torch.ones(3))
tensor([3., 3.])
"""
from __future__ import annotations

import numpy as np

from .iter_layout import (VIEW_ERROR, as_view, elem_strides, elementwise_strides,
                          strided_empty, view_strides)
from .registry import (defop, export_function, bind_method, Sample, inplace_check, old_value,
                       commit_inplace, promote)
from .overlap import check_write
from .linalg import (matmul, _check_tensor, _cname, _tname, _no_bool, _addmm, addmm_public)
from .shape import expand_op
from ..dtypes import promote_types
from ..errors import broadcast_error
from ..tensor import Tensor

FAMILY = "linalg"


def _scaled(g, factor):
    return g if factor == 1 else g * factor


def _add_scaled(out, self, beta, alpha, gemm=False):
    """``beta * self + alpha * out``, with ``self`` ignored when ``beta`` is 0 (NaN too).
    ``gemm``: PyTorch's BLAS call does not read the product's operands when ``alpha`` is 0
    either (addmv, addbmm; not baddbmm and addr), so their NaN does not reach ``out``."""
    if gemm and alpha == 0:
        out = np.zeros_like(out)
    elif alpha != 1:
        out = out * alpha
    if beta == 0:
        return np.broadcast_to(out, np.broadcast_shapes(np.shape(self), out.shape)).copy()
    return out + (self if beta == 1 else beta * self)


def _same_dtype(name, *arrays):
    first = arrays[0].dtype
    for a in arrays[1:]:
        if a.dtype != first:
            raise RuntimeError(f"expected scalar type {_tname(arrays[0])} but found {_tname(a)}")


# -- addmv / addr / baddbmm / addbmm -------------------------------------------------------------
def addmv(self, mat, vec, *, beta=1, alpha=1):
    """``beta * self + alpha * (mat @ vec)``."""
    return _add_scaled(np.matmul(mat, vec), self, beta, alpha, gemm=True)


def addmv_self(grad, beta):
    return _scaled(grad, beta)


def addmv_mat(grad, vec, alpha):
    return _scaled(grad.unsqueeze(-1) * vec, alpha)


def addmv_vec(grad, mat, alpha):
    return _scaled(matmul(mat.t(), grad), alpha)


def addr(self, vec1, vec2, *, beta=1, alpha=1):
    """``beta * self + alpha * outer(vec1, vec2)``."""
    return _add_scaled(np.multiply.outer(vec1, vec2), self, beta, alpha)


def addr_self(grad, beta):
    return _scaled(grad, beta)


def addr_vec1(grad, vec2, alpha):
    return _scaled(matmul(grad, vec2), alpha)


def addr_vec2(grad, vec1, alpha):
    return _scaled(matmul(grad.t(), vec1), alpha)


def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
    """``beta * self + alpha * (batch1 @ batch2)``, batch by batch."""
    return _add_scaled(np.matmul(batch1, batch2), self, beta, alpha)


def baddbmm_self(grad, beta):
    return _scaled(grad, beta)


def baddbmm_batch1(grad, batch2, alpha):
    return _scaled(matmul(grad, batch2.mT), alpha)


def baddbmm_batch2(grad, batch1, alpha):
    return _scaled(matmul(batch1.mT, grad), alpha)


def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
    """``beta * self + alpha * sum_b(batch1[b] @ batch2[b])``."""
    b, n, k = batch1.shape
    p = batch2.shape[2]
    # one gemm: (n, b*k) @ (b*k, p) sums the batch products
    out = np.matmul(batch1.transpose(1, 0, 2).reshape(n, b * k), batch2.reshape(b * k, p))
    return _add_scaled(out, self, beta, alpha, gemm=True)


def addbmm_self(grad, beta):
    return _scaled(grad, beta)


def addbmm_batch1(grad, batch2, alpha):
    return _scaled(matmul(grad.unsqueeze(0), batch2.mT), alpha)


def addbmm_batch2(grad, batch1, alpha):
    return _scaled(matmul(batch1.mT, grad.unsqueeze(0)), alpha)


def _samples_addmv(make, shapes):
    return [Sample((make((2,)), make((2, 3)), make((3,))), call="addmv"),
            Sample((make((1,)), make((2, 3)), make((3,))), {"beta": 0.5, "alpha": 2},
                   call="addmv"),
            Sample((make(()), make((2, 3)), make((3,))), call="Tensor.addmv"),
            Sample((make((2,)), make((2, 3)), make((3,))), {"alpha": -1},
                   call="Tensor.addmv_")]


def _samples_addr(make, shapes):
    return [Sample((make((2, 3)), make((2,)), make((3,))), call="addr"),
            Sample((make((3,)), make((2,)), make((3,))), {"beta": 2, "alpha": 0.5},
                   call="addr"),
            Sample((make((2, 3)), make((2,)), make((3,))), call="Tensor.addr_")]


def _samples_baddbmm(make, shapes):
    return [Sample((make((2, 2, 4)), make((2, 2, 3)), make((2, 3, 4))), call="baddbmm"),
            Sample((make((4,)), make((2, 2, 3)), make((2, 3, 4))), {"beta": 0.5, "alpha": 2},
                   call="baddbmm"),
            Sample((make((2, 2, 4)), make((2, 2, 3)), make((2, 3, 4))), call="Tensor.baddbmm_")]


def _samples_addbmm(make, shapes):
    return [Sample((make((2, 4)), make((3, 2, 3)), make((3, 3, 4))), call="addbmm"),
            Sample((make((4,)), make((3, 2, 3)), make((3, 3, 4))), {"beta": 0.5, "alpha": 2},
                   call="addbmm"),
            Sample((make((2, 4)), make((3, 2, 3)), make((3, 3, 4))), call="Tensor.addbmm_")]


_addmv = defop("addmv", addmv, inputs=("self", "mat", "vec"),
               derivatives={"self": addmv_self, "mat": addmv_mat, "vec": addmv_vec},
               dtype="same", methods=(), functions=(), inplace="addmv_", family=FAMILY,
               samples=_samples_addmv)
def _addr_rule(rec, args):
    """The dtypes promoted alike, 0-d or not: PyTorch expands or reshapes the operands first
    (addr's self to the output's shape, kron's to a common rank), so none is 0-d there."""
    d = args[0].dtype
    for t in args[1:]:
        if isinstance(t, Tensor):
            d = promote_types(d, t.dtype)
    return d.np, d.np


_addr = defop("addr", addr, inputs=("self", "vec1", "vec2"),
              derivatives={"self": addr_self, "vec1": addr_vec1, "vec2": addr_vec2},
              dtype=_addr_rule, methods=(), functions=(), inplace="addr_", family=FAMILY,
              samples=_samples_addr)
_baddbmm = defop("baddbmm", baddbmm, inputs=("self", "batch1", "batch2"),
                 derivatives={"self": baddbmm_self, "batch1": baddbmm_batch1,
                              "batch2": baddbmm_batch2},
                 dtype="same", methods=(), functions=(), inplace="baddbmm_", family=FAMILY,
                 samples=_samples_baddbmm)
_addbmm = defop("addbmm", addbmm, inputs=("self", "batch1", "batch2"),
                derivatives={"self": addbmm_self, "batch1": addbmm_batch1,
                             "batch2": addbmm_batch2},
                dtype="same", methods=(), functions=(), inplace="addbmm_", family=FAMILY,
                samples=_samples_addbmm)


def _expand_check(self, out_shape):
    """PyTorch's message when ``self`` does not broadcast to the product's shape."""
    s = tuple(self.shape)
    try:
        if np.broadcast_shapes(s, out_shape) == out_shape:
            return
    except ValueError:
        pass
    for i in range(1, len(s) + 1):
        if i > len(out_shape) or (s[-i] != 1 and s[-i] != out_shape[-i]):
            d = len(out_shape) - i
            raise RuntimeError(
                f"The expanded size of the tensor ({out_shape[d] if d >= 0 else 1}) must match "
                f"the existing size ({s[-i]}) at non-singleton dimension {d}.  Target sizes: "
                f"[{', '.join(map(str, out_shape))}].  Tensor sizes: [{', '.join(map(str, s))}]")


def _tensors(name, named):
    for i, (n, t) in enumerate(named):
        _check_tensor(name, t, i + 1, n)


def addmv_public(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``."""
    _tensors("addmv", (("input", input), ("mat", mat), ("vec", vec)))
    m, v = mat._data, vec._data
    if m.ndim != 2 or v.ndim != 1 or input._data.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, "
                           f"{m.ndim}, {v.ndim}")
    if m.shape[1] != v.shape[0] or input._data.ndim == 1 and input._data.shape[0] not in (
            1, m.shape[0]):
        # the message reads input.size(0): a 0-d input raises that IndexError instead
        rows = _size(input._data, 0)
        raise RuntimeError(f"size mismatch, got input ({rows}), "
                           f"mat ({m.shape[0]}x{m.shape[1]}), vec ({v.shape[0]})")
    if not (m.dtype == v.dtype == input._data.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{_tname(input._data)}, {_tname(m)}, and {_tname(v)}")
    _no_bool("addmv_impl_cpu", m)
    beta, alpha = _int_scalars(m.dtype, beta, alpha)
    return _addmv.public(input, mat, vec, beta=beta, alpha=alpha)


def addr_public(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``."""
    _tensors("addr", (("input", input), ("vec1", vec1), ("vec2", vec2)))
    for n, t in (("vec1", vec1), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {n}, but got {t._data.ndim}-D")
    expand_op(input._data, (vec1._data.shape[0], vec2._data.shape[0]))
    # a TensorIterator op: the three promote; integral results refuse float scalars
    if _addr_rule(None, (input, vec1, vec2))[0].kind in "biu":
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be "
                                   f"a floating point number.")
    return _addr.public(input, vec1, vec2, beta=beta, alpha=alpha)


def _size(x, d):
    """``x.size(d)`` with PyTorch's IndexError (these ops read sizes before checking ranks)."""
    n = x.ndim
    if n == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return x.shape[d]


def _int_scalars(dtype, beta, alpha):
    """Integral products take alpha and beta as integers (PyTorch's Scalar to int64)."""
    if dtype.kind in "iu":
        return int(beta), int(alpha)
    return beta, alpha


def baddbmm_public(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` over a batch of matrices.

    PyTorch's order: expand self to the output's size (read from batch1 and batch2 before
    their ranks are checked), self's dtype against batch1's, then bmm's checks."""
    _tensors("baddbmm", (("input", input), ("batch1", batch1), ("batch2", batch2)))
    a, b = batch1._data, batch2._data
    out_shape = (_size(a, 0), _size(a, 1), _size(b, 2))
    expand_op(input._data, out_shape)
    if input._data.dtype != a.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {_cname(input._data)}, "
                           f"batch1: {_cname(a)}, batch2: {_cname(b)}")
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, "
                           f"{b.shape[1]}].")
    _same_dtype("baddbmm", a, b)
    _no_bool("baddbmm", a)
    beta, alpha = _int_scalars(a.dtype, beta, alpha)
    return _baddbmm.public(input, batch1, batch2, beta=beta, alpha=alpha)


def addbmm_public(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum of the batch products``.

    PyTorch's order: expand self to the output's size, the ranks and sizes, then one addmm_
    per batch (its dtype and kernel checks, self being the result)."""
    _tensors("addbmm", (("input", input), ("batch1", batch1), ("batch2", batch2)))
    a, b = batch1._data, batch2._data
    expand_op(input._data, (_size(a, 1), _size(b, 2)))
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{a.shape[0]} and {b.shape[0]}")
    if a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({a.shape[1]}x{a.shape[2]} and "
                           f"{b.shape[1]}x{b.shape[2]})")
    if a.shape[0]:
        for name, x in (("self", input._data), ("mat1", a)):
            if x.dtype != b.dtype:
                raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                                   f"{_tname(x)} and {_tname(b)}")
        _no_bool("addmm_impl_cpu_", a, a.shape[1] * b.shape[2], a.shape[2])
    beta, alpha = _int_scalars(input._data.dtype, beta, alpha)
    return _addbmm.public(input, batch1, batch2, beta=beta, alpha=alpha)


def _inplace_of(public, rec):
    """``self.<op>_(...)``: the out-of-place op on the old value, written back into self."""
    def inplace(self, *args, **kwargs):
        inplace_check(self)
        check_write(self, args, kwargs)
        src = old_value(self) if self._requires_grad else self
        return commit_inplace(self, public(src, *args, **kwargs), rec)
    inplace.__name__ = inplace.__qualname__ = rec.name + "_"
    inplace.__doc__ = f"In-place version of :meth:`{rec.name}`."
    return inplace


for _name, _fn, _rec in (("addmv", addmv_public, _addmv), ("addr", addr_public, _addr),
                         ("baddbmm", baddbmm_public, _baddbmm),
                         ("addbmm", addbmm_public, _addbmm), ("addmm", addmm_public, _addmm)):
    if _name != "addmm":
        export_function(_name, _fn)
        bind_method(_name, _fn)
    bind_method(_name + "_", _inplace_of(_fn, _rec))


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
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_tname(a)} and {_tname(b)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    _no_bool("dot", a)
    return _vdot.public(input, other)


def _kron_shapes(a_shape, b_shape):
    n = max(len(a_shape), len(b_shape))
    return (1,) * (n - len(a_shape)) + tuple(a_shape), (1,) * (n - len(b_shape)) + tuple(b_shape)


def kron(self, other):
    """Kronecker product: block ``(i, j)`` is ``self[i, j] * other``, made as PyTorch's: the
    product of ``self`` viewed ``(a0, 1, a1, 1, ...)`` and ``other`` viewed ``(1, b0, 1, b1,
    ...)``, then *viewed* as ``(a0*b0, a1*b1, ...)``. The product takes TensorIterator's
    layout from its inputs' strides, so of strided inputs (a transposed matrix, LAPACK's
    column-major outputs) that last view can fail, with the view's error, as in PyTorch."""
    a_shape, b_shape = _kron_shapes(self.shape, other.shape)
    a_view = tuple(x for s in a_shape for x in (s, 1))
    b_view = tuple(x for s in b_shape for x in (1, s))
    a_strides = view_strides(self.shape, elem_strides(self), a_view)   # size-1 dims: views
    b_strides = view_strides(other.shape, elem_strides(other), b_view)
    a, b = as_view(self, a_view, a_strides), as_view(other, b_view, b_strides)
    mul_shape = tuple(x for pair in zip(a_shape, b_shape) for x in pair)
    if a_view == b_view:   # TensorIterator's fast setup (every size is 1)
        out = np.multiply(a, b)
    else:
        out = strided_empty(mul_shape, elementwise_strides(
            mul_shape, [(a_view, a_strides), (b_view, b_strides)]), np.result_type(a, b))
        np.multiply(a, b, out=out)
    shape = tuple(x * y for x, y in zip(a_shape, b_shape))
    strides = view_strides(mul_shape, elem_strides(out), shape)
    if strides is None:
        raise RuntimeError(VIEW_ERROR)
    return as_view(out, shape, strides)


def _kron_grad(grad, mine, theirs, mine_is_a):
    """Sum of ``grad``'s blocks weighted by the other factor (interleaved dims)."""
    a_shape, b_shape = _kron_shapes(mine._data.shape, theirs._data.shape) if mine_is_a else \
        _kron_shapes(theirs._data.shape, mine._data.shape)
    n = len(a_shape)
    inter = tuple(x for pair in zip(a_shape, b_shape) for x in pair)
    g = grad.reshape(inter)
    if mine_is_a:
        w = theirs.reshape(tuple(x for s in b_shape for x in (1, s)))
        summed = tuple(range(1, 2 * n, 2))
    else:
        w = theirs.reshape(tuple(x for s in a_shape for x in (s, 1)))
        summed = tuple(range(0, 2 * n, 2))
    out = (g * w).sum(summed) if summed else g * w
    return out.reshape(mine._data.shape)


def kron_self(grad, self, other):
    return _kron_grad(grad, self, other, True)


def kron_other(grad, self, other):
    return _kron_grad(grad, other, self, False)


_kron = defop("kron", kron, derivatives={"self": kron_self, "other": kron_other},
              dtype=_addr_rule, grad_fn_name="UnsafeViewBackward0", family=FAMILY,
              samples=lambda make, shapes: [
                  Sample((make((2, 3)), make((3, 2))), call="kron"),
                  Sample((make(shapes[1] or (2,)), make(shapes[2] or (3,))), call="kron"),
                  Sample((make((2,)), make((2, 2, 3))), call="Tensor.kron")])


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
    result = mats[0]
    for m in mats[1:]:
        result = result.mm(m)
    shape = ([] if first.ndim == 1 else [result.shape[0]]) + \
            ([] if last.ndim == 1 else [result.shape[1]])
    return result.view(shape)


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


_cross = defop("linalg_cross", linalg_cross,
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


for _name, _fn in (("vdot", vdot_public), ("cross", cross), ("inner", inner)):
    export_function(_name, _fn)
    bind_method(_name, _fn)
for _name, _fn in (("tensordot", tensordot), ("chain_matmul", chain_matmul)):
    export_function(_name, _fn)


# cdist and dist (their own module, registered with this one, after the exports above)
from . import distance  # noqa: E402,F401
