"""More matrix products: ``addmv``, ``addr``, ``baddbmm``, ``addbmm`` (and their in-place
forms, with ``addmm_``) (``vdot``, ``kron``, ``inner``, ``tensordot``, ``multi_dot``,
``cross``: products.py; ``cdist`` and ``dist``: distance.py).

These are records whose forward is one ``np.matmul``.

>>> import leafgrad as torch
>>> torch.addmv(torch.zeros(2), torch.ones(2, 3), torch.ones(3))
tensor([3., 3.])
"""
from __future__ import annotations

import numpy as np

from .iter_layout import ITER
from .registry import (defop, export_function, bind_method, Sample, inplace_check, old_value,
                       commit_inplace)
from .overlap import check_write
from .linalg import (matmul, _check_tensor, _cname, _tname, _no_bool, _addmm, addmm_public,
                     _bmm)
from .pointwise_common import scale
from .shape import expand_op
from ..dtypes import promote_types
from ..tensor import Tensor

FAMILY = "linalg"


def _scaled(g, factor):   # PyTorch's maybe_multiply (mul by a Scalar: MulBackward1)
    return g if factor == 1 else scale(g, factor)


def _add_scaled(out, self, beta, alpha, gemm=False):
    """``beta * self + alpha * out``, with ``self`` ignored when ``beta`` is 0 (NaN too).
    ``gemm``: PyTorch's BLAS call does not read the product's operands when ``alpha`` is 0
    either (addmv, addbmm; not baddbmm and addr), so their NaN does not reach ``out``."""
    if gemm and alpha == 0 and out.dtype != np.float16:   # (half: PyTorch's own kernel)
        out = np.zeros_like(out)
        if beta != 0:   # BLAS scales the copy of self it starts from: -0.0 stays -0.0
            shape = np.broadcast_shapes(np.shape(self), out.shape)
            return np.broadcast_to(self if beta == 1 else beta * self, shape).copy()
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


def baddbmm_batch1(grad, batch2, alpha):   # as PyTorch's, products by bmm
    return _scaled(_bmm.public(grad, batch2.mT), alpha)


def baddbmm_batch2(grad, batch1, alpha):
    return _scaled(_bmm.public(batch1.mT, grad), alpha)


def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
    """``beta * self + alpha * sum_b(batch1[b] @ batch2[b])``."""
    b, n, k = batch1.shape
    p = batch2.shape[2]
    # one gemm: (n, b*k) @ (b*k, p) sums the batch products
    out = np.matmul(batch1.transpose(1, 0, 2).reshape(n, b * k), batch2.reshape(b * k, p))
    return _add_scaled(out, self, beta, alpha, gemm=True)


def addbmm_self(grad, beta):
    return _scaled(grad, beta)


def _per_batch(grad, batch1_shape, batch2_shape):
    """addbmm's gradient repeated for each batch (an expand, as PyTorch's formula, which
    saves the operands' sizes, not the operands)."""
    return grad.unsqueeze(0).expand(batch1_shape[0], batch1_shape[1], batch2_shape[2])


def addbmm_batch1(grad, batch2, alpha, batch1_shape, batch2_shape):
    return _scaled(_bmm.public(_per_batch(grad, batch1_shape, batch2_shape), batch2.mT), alpha)


def addbmm_batch2(grad, batch1, alpha, batch1_shape, batch2_shape):
    return _scaled(_bmm.public(batch1.mT, _per_batch(grad, batch1_shape, batch2_shape)), alpha)


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


_addr = defop("addr", addr, inputs=("self", "vec1", "vec2"), layout=ITER,
              derivatives={"self": addr_self, "vec1": addr_vec1, "vec2": addr_vec2},
              grads_in_order=True,   # PyTorch's AddrBackward0 computes vec1's before vec2's
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


# vdot, kron, inner, tensordot, multi_dot, cross; then cdist and dist (their own modules,
# registered with this one, after the exports above, in this order)
from . import products  # noqa: E402,F401
from . import distance  # noqa: E402,F401
