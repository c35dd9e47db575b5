"""Matrix products (matmul and its cases, mm, bmm, mv, dot, outer, addmm, einsum) and norms.

Note [One matmul, PyTorch's names]
PyTorch's ``matmul`` is a composite: ``a @ b`` on a 1-D and a 2-D tensor is an ``mm`` followed by
a ``squeeze``, a batched product ends in a reshape (``UnsafeViewBackward0``), and so on. Where a
gradient is recorded, leafgrad runs that composite op for op (Note [matmul's graph] in
matmul_graph.py);
otherwise it computes every case with one ``np.matmul`` (straight to BLAS), through records
whose classes carry the name PyTorch shows on the output: ``DotBackward0``, ``MvBackward0``, ``MmBackward0``,
``SqueezeBackward4``, ``UnsafeViewBackward0``, ``CloneBackward0``, ``TransposeBackward0``
(which of the last three also depends on whether the first operand requires grad). The records share the NumPy
forward and the two derivative formulas, which read the operand ranks to pick the product.
The formulas compute each gradient as PyTorch's composite does (a folded mm / mv reshaped
back, one bmm of the expanded operands, an mm of the unsqueezed vector...), so under
create_graph the gradients' own nodes are PyTorch's too.

>>> import leafgrad as torch
>>> a = torch.ones(2, 3, requires_grad=True)
>>> (a @ torch.ones(3, 4)).grad_fn.name()
'MmBackward0'
"""
from __future__ import annotations

import numpy as np

from .iter_layout import RED
from .registry import defop, export_function, bind_method, Sample
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap, bump_version
# (_cname, _tname, _check_dot, _check_tensor, _no_bool: products.py, distance.py and
# matmul_extra.py import them from here)
from .dispatch import stale_first
from .matmul_graph import matmul_graph
from .matmul_checks import (  # noqa: F401
    _cname, _tname, _check_tensor, _same_dtype_mm, _check_dot, _check_mv, _no_bool, _check_mm,
    _should_fold, _check_folded, _check_bmm_path)

FAMILY = "linalg"

# -- the shared forward and formulas -------------------------------------------------------------
def matmul_forward(self, other):
    """``np.matmul``: BLAS for float32/float64, any rank case."""
    return np.matmul(self, other)


def column_major(strides, rows) -> bool:
    """Is a matrix with these (element) strides a transposed contiguous one (``w.t()``)?

    Note [Gradients in the operand's layout]
    As PyTorch's ``mm_mat1_backward`` / ``mm_mat2_backward`` do, the gradient of a
    column-major operand is computed as the transpose of a row-major product, so it comes out
    in that operand's layout. ``nn.Linear`` multiplies by ``weight.t()``: the gradient then
    reaches the weight (through TBackward0) row-major like the weight itself, and
    accumulating it needs no transposing copy (nor does the optimizer mix layouts)."""
    return len(strides) == 2 and strides[0] == 1 and strides[1] == rows


def _squeezed_pair(self_shape, other_shape, other_requires_grad):
    """PyTorch's matmul of two 3-D tensors where one has a leading 1 and the other not: that
    one is multiplied as a matrix (``other`` only when it requires grad): "self" or "other",
    or None."""
    if len(self_shape) != 3 or len(other_shape) != 3:
        return None
    if self_shape[0] == 1 and other_shape[0] != 1:
        return "self"
    if other_shape[0] == 1 and self_shape[0] != 1 and other_requires_grad:
        return "other"
    return None


def matmul_self(grad, other, self_shape, self_strides):
    """d(self @ other)/d self, for every rank case (see Note [One matmul, PyTorch's names])."""
    o = other._data
    squeezed = _squeezed_pair(self_shape, o.shape, other.requires_grad)
    if squeezed == "self":   # PyTorch multiplies self[0]: its gradient, unsqueezed
        return matmul_self(grad, other, self_shape[1:], self_strides[1:]).unsqueeze(0)
    if squeezed == "other":   # (b, m, k) @ other[0]: one folded mm
        other = other.squeeze(0)
        o = other._data
    if o.ndim == 1:
        if len(self_shape) == 1:                       # dot
            return grad * other
        if len(self_shape) > 2:   # PyTorch folds self into a matrix for one mv: the
            # output's view undone, mv's outer product (a column view times other), reshaped
            rows = int(np.prod(self_shape[:-1]))
            return (grad.reshape(rows).reshape(rows, 1) * other).reshape(self_shape)
        return grad.reshape(grad._data.shape + (1,)) * other      # (m, 1) * (k,)
    if len(self_shape) == 1:                           # (k,) @ (..., k, n)
        if o.ndim == 2:   # PyTorch's unsqueeze(0).mm(other).squeeze_(0), backward
            return matmul(grad.unsqueeze(0), other.t()).squeeze(0)
        # PyTorch folds other^T into one matrix for an mv (self needs a gradient here)
        rows = int(np.prod(o.shape[:-2])) * o.shape[-1]
        return matmul(other.mT.reshape(rows, self_shape[0]).t(), grad.reshape(rows))
    if len(self_shape) == 2 and o.ndim > 2:   # (m, k) @ (..., k, n): folded as PyTorch's
        # (other^T reshaped to (rows, k)) @ self.t(), transposed back: self's gradient is
        # that mm's second operand's (mm_mat2_backward, in self.t()'s layout), transposed
        rows = int(np.prod(o.shape[:-2])) * o.shape[-1]
        folded = other.mT.reshape(rows, self_shape[1])
        g = grad.mT.reshape(rows, self_shape[0])
        if column_major((self_strides[1], self_strides[0]), self_shape[1]):
            return matmul(g.t(), folded).t().t()
        return matmul(folded.t(), g).t()
    if o.ndim == 2 and len(self_shape) == 2:   # mm: as PyTorch's mm_mat1_backward
        if column_major(self_strides, self_shape[0]):
            return matmul(other, grad.t()).t()         # Note [Gradients in the operand's layout]
        return matmul(grad, other.t())
    if o.ndim == 2:   # (..., m, k) @ (k, n): PyTorch folds self into one mm
        rows = int(np.prod(self_shape[:-1]))   # (not -1: an empty last dim is ambiguous)
        return matmul(grad.reshape(rows, grad._data.shape[-1]), other.t()).reshape(self_shape)
    if len(self_shape) > 2 and o.ndim > 2:
        return _bmm_grads(grad, self_shape, o.shape, other, True)
    return matmul(grad, other.mT)                      # broadcast batch dims summed by engine


def _folded_column_major(other_shape, other_strides) -> bool:
    """Is ``other.mT.reshape(rows, k)`` (PyTorch's fold of a batched ``other``) a view with
    column-major strides? Then mm_mat1_backward answers in that layout."""
    shape = tuple(other_shape[:-2]) + (other_shape[-1],)
    strides = tuple(other_strides[:-2]) + (other_strides[-1],)
    dims = [(n, st) for n, st in zip(shape, strides) if n != 1]
    for (_, st), (n2, st2) in zip(dims, dims[1:]):
        if st != st2 * n2:
            return False   # not a view: the fold is a contiguous copy
    rows = int(np.prod(shape))
    row_stride = dims[-1][1] if dims else 1
    return column_major((row_stride, other_strides[-2]), rows)


def _folds_other(self_ndim, self_requires_grad, other_shape, other_strides):
    """Does PyTorch's matmul fold ``other^T`` into one matrix for ``(k,)`` or ``(m, k)`` @
    ``(..., k, n)``? When self needs a gradient; else (a vector self) when other is empty or
    other^T's leading dims are laid out as one (its matmul's should_fold)."""
    if self_requires_grad:
        return True
    if self_ndim == 2:
        return False
    if not all(other_shape):
        return True
    shape = tuple(other_shape[:-2]) + (other_shape[-1], other_shape[-2])
    strides = tuple(other_strides[:-2]) + (other_strides[-1], other_strides[-2])
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 1))


def _bmm_grads(grad, self_shape, other_shape, operand, of_self):
    """PyTorch's batched matmul: both operands expanded to the broadcast batch and reshaped
    to 3-d for one bmm, the product reshaped back; so an operand's gradient is a bmm reshaped
    to its expanded shape (ViewBackward0; the engine then sums broadcast dims)."""
    if not _mode.grad_enabled:   # Note [Plain NumPy without create_graph]: the same products
        g, o = grad._data, operand._data
        return _wrap(np.matmul(g, np.swapaxes(o, -1, -2)) if of_self else
                     np.matmul(np.swapaxes(o, -1, -2), g))
    batch = np.broadcast_shapes(tuple(self_shape[:-2]), tuple(other_shape[:-2]))
    b = int(np.prod(batch))
    n, k, p = self_shape[-2], self_shape[-1], other_shape[-1]
    g = grad.reshape(b, n, p)
    if of_self:   # grad @ other^T
        o = operand.expand(batch + (k, p)).reshape(b, k, p)
        return _bmm.public(g, o.mT).reshape(batch + (n, k))
    s = operand.expand(batch + (n, k)).reshape(b, n, k)   # self^T @ grad
    return _bmm.public(s.mT, g).reshape(batch + (k, p))


def matmul_other(grad, self, other_shape, other_strides):
    """d(self @ other)/d other, for every rank case."""
    s = self._data
    squeezed = _squeezed_pair(s.shape, other_shape, True)
    if squeezed == "other":   # (b, m, k) @ other[0]: one folded mm, its gradient unsqueezed
        rows, k, n = int(np.prod(s.shape[:-1])), s.shape[-1], other_shape[-1]
        return matmul(self.reshape(rows, k).t(), grad.reshape(rows, n)).unsqueeze(0)
    if squeezed == "self":    # self[0] @ (b, k, n): as a matrix self
        self = self.squeeze(0)
        s = self._data
    if len(other_shape) == 1:
        if s.ndim == 1:                                # dot
            return grad * self
        if s.ndim == 2:
            return matmul(self.t(), grad)              # (k, m) @ (m,)
        rows, k = int(np.prod(s.shape[:-1])), s.shape[-1]   # fold the batch: one gemv
        return matmul(self.reshape(rows, k).t(), grad.reshape(rows))   # (sizes: k may be 0)
    if s.ndim == 1 and len(other_shape) == 2:   # (k,) @ (k, n): the mm of the unsqueezed
        row, g = self.unsqueeze(0), grad.unsqueeze(0)   # operands, as PyTorch's
        if column_major(other_strides, other_shape[0]):
            return matmul(g.t(), row).t()              # Note [Gradients in the operand's layout]
        return matmul(row.t(), g)
    if s.ndim <= 2 and len(other_shape) > 2 and _folds_other(s.ndim, self.requires_grad,
                                                              other_shape, other_strides):
        # (k,) or (m, k) @ (..., k, n): PyTorch folds other^T (rows, k) for one mv / mm with
        # self; the gradient reshaped back, transposed
        batch_n = tuple(other_shape[:-2]) + (other_shape[-1],)
        rows = int(np.prod(batch_n))
        if s.ndim == 1:   # the output's view undone, then mv's outer product (a column view)
            g = grad.reshape(rows).reshape(rows, 1) * self
        elif _folded_column_major(other_shape, other_strides):
            # PyTorch's mm_mat1_backward in the fold's (column-major) layout
            g = matmul(self.t(), grad.mT.reshape(rows, s.shape[0]).t()).t()
        else:
            # (mm_mat1_backward: grad @ mat2.t(), mat2 being self.t())
            g = matmul(grad.mT.reshape(rows, s.shape[0]), self.t().t())
        return g.reshape(batch_n + (s.shape[-1],)).mT
    if s.ndim <= 2 and len(other_shape) > 2:   # not folded: one bmm, as both batched
        if s.ndim == 1:
            return _bmm_grads(grad, (1,) + s.shape, other_shape, self.unsqueeze(0), False)
        return _bmm_grads(grad, s.shape, other_shape, self, False)
    if len(other_shape) == 2 and s.ndim > 2:           # batched @ matrix: fold into one gemm
        rows, k, n = int(np.prod(s.shape[:-1])), s.shape[-1], other_shape[-1]
        return matmul(self.reshape(rows, k).t(), grad.reshape(rows, n))
    if s.ndim == 2 and len(other_shape) == 2:          # mm: as PyTorch's mm_mat2_backward
        if column_major(other_strides, other_shape[0]):
            return matmul(grad.t(), self).t()          # Note [Gradients in the operand's layout]
        return matmul(self.t(), grad)
    if s.ndim > 2 and len(other_shape) > 2:
        return _bmm_grads(grad, s.shape, other_shape, self, False)
    return matmul(self.mT, grad)


_DERIVS = {"self": matmul_self, "other": matmul_other}


def _mm_samples(call, shapes_fn):
    def samples(make, shapes):
        return [Sample(tuple(make(s) for s in pair), call=call) for pair in shapes_fn(shapes)]
    return samples


def _k(shapes, i=1):
    return 1 + (sum(shapes[i]) if shapes[i] else 0) % 4


_dot = defop("dot", matmul_forward, derivatives=_DERIVS, dtype="same", family=FAMILY,
             samples=_mm_samples("dot", lambda sh: [((3,), (3,)), ((1,), (1,))]))
_mv = defop("mv", matmul_forward, derivatives=_DERIVS, dtype="same", family=FAMILY,
            samples=_mm_samples("mv", lambda sh: [((2, 3), (3,)), ((_k(sh), 4), (4,))]))
_mm = defop("mm", matmul_forward, derivatives=_DERIVS, dtype="same", family=FAMILY,
            samples=_mm_samples("mm", lambda sh: [((2, 3), (3, 4)), ((_k(sh), 1), (1, 3))]))
def bmm_self(grad, other):   # PyTorch's: grad.bmm(mat2^T) (BmmBackward0 under create_graph)
    return _bmm.public(grad, other.mT)


def bmm_other(grad, self):
    return _bmm.public(self.mT, grad)


_bmm = defop("bmm", matmul_forward, derivatives={"self": bmm_self, "other": bmm_other},
             dtype="same", family=FAMILY,
             samples=_mm_samples("bmm", lambda sh: [((2, 2, 3), (2, 3, 4))]))
_vm = defop("matmul_vm", matmul_forward, derivatives=_DERIVS, dtype="same", methods=(),
            functions=(), grad_fn_name="SqueezeBackward4", family=FAMILY,
            samples=_mm_samples("matmul", lambda sh: [((3,), (3, 4))]))
_batched = defop("matmul_batched", matmul_forward, derivatives=_DERIVS, dtype="same", layout=RED,
                 methods=(), functions=(), grad_fn_name="UnsafeViewBackward0", family=FAMILY,
                 samples=_mm_samples("matmul", lambda sh: [
                     ((2, 2, 3), (2, 3, 4)), ((4, 2, 3), (3, 5)), ((2, 1, 2, 3), (3, 3, 2)),
                     ((2, 2, 3), (3,)), ((3,), (2, 3, 4)), ((2, 2, 3), (1, 3, 4)),
                     (sh[1] + (2, 3), sh[2] + (3, 2))
                     if len(sh[1]) + 2 > 2 or len(sh[2]) + 2 > 2 else ((1, 2, 3), (3, 1))]))
_clone = defop("matmul_clone", matmul_forward, derivatives=_DERIVS, dtype="same", methods=(),
               functions=(), grad_fn_name="CloneBackward0", family=FAMILY,
               samples=_mm_samples("matmul", lambda sh: [((2, 3), (4, 3, 2)),
                                                         ((2, 3), (2, 1, 3, 2)),
                                                         ((1, 2, 3), (4, 3, 2))]))
_transposed = defop("matmul_transposed", matmul_forward, derivatives=_DERIVS, dtype="same",
                    methods=(), functions=(), grad_fn_name="TransposeBackward0", family=FAMILY,
                    samples=_mm_samples("matmul", lambda sh: [((1, 3), (4, 3, 2)),
                                                              ((2, 3), (4, 3, 1))]))


# -- the public functions: checks with PyTorch's messages (matmul_checks.py), then the record --
def _grad_fns_first(input, other):
    """PyTorch's autograd reads each input's grad_fn before the kernel's checks run: a view
    whose base changed in place regrows its history, or raises the error of a view autograd
    cannot rebase (an unbind output changed under no_grad; seed 164), before any shape or
    dtype error of mm / bmm / mv (``stale_first``)."""
    if input._base is not None or other._base is not None:
        stale_first(None, (input, other))


def matmul(input, other):
    """Matrix product with NumPy's/PyTorch's rank rules (1-D operands, batch broadcasting).

    The checks follow the kernel PyTorch runs for each case (dot, mv, mm, a folded mm / mv,
    or bmm), in its order, so errors read as PyTorch's.

    >>> import leafgrad as torch
    >>> (torch.ones(4, 2, 3) @ torch.ones(3)).shape
    torch.Size([4, 2])
    """
    _check_tensor("matmul", input, 1, "input")
    _check_tensor("matmul", other, 2, "other")
    a, b = input._data, other._data
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    _grad_fns_first(input, other)   # (then the product ops' checks)
    if da == 2 and db == 2:
        _check_mm(a.shape, b.shape)
        _same_dtype_mm(a, b)
        _no_bool("addmm_impl_cpu_", a, a.shape[0] * b.shape[1], a.shape[1])
        return _mm.public(input, other)
    if da == 1 and db == 1:
        _check_dot(a, b)
        _no_bool("dot", a)
        return _dot.public(input, other)
    if da == 2 and db == 1:
        _check_mv(a, b)
        _no_bool("addmv_impl_cpu", a, a.shape[0], a.shape[1])
        return _mv.public(input, other)
    if da == 1 and db == 2:
        _check_mm((1, a.shape[0]), b.shape)
        _same_dtype_mm(a, b)
        _no_bool("addmm_impl_cpu_", a, b.shape[1], a.shape[0])
        if _mode.grad_enabled and (input._requires_grad or other._requires_grad):
            return matmul_graph(input, other)   # Note [matmul's graph] (matmul_graph.py)
        result = _vm.public(input, other)
        bump_version(result)   # PyTorch: unsqueeze(0).mm(other).squeeze_(0), at version 1
        return result
    # 3-D with a leading 1 against 3-D: PyTorch multiplies the matrix (as a 2-D operand);
    # for ``other`` only when it requires grad (then the product folds)
    a_eff, b_eff = a, b
    if da == 3 and db == 3:
        if a.shape[0] == 1 and b.shape[0] != 1:
            a_eff = a[0]
        elif b.shape[0] == 1 and a.shape[0] != 1 and other._requires_grad:
            b_eff = b[0]
    if _should_fold(input, other, a_eff, b_eff):
        _check_folded(a_eff, b_eff)
    else:
        _check_bmm_path(a_eff, b_eff)
        if a.dtype != b.dtype:
            # an empty bmm returns zeros of batch2's dtype before its kernel checks dtypes
            if b.dtype.kind not in "fc" and _mode.grad_enabled and (
                    input._requires_grad or other._requires_grad):
                raise RuntimeError(f"Autograd not support dtype: {_tname(b)}")
            if _mode.grad_enabled and (input._requires_grad or other._requires_grad):
                return matmul_graph(input, other)   # (its empty bmm: batch2's dtype)
            return _batched_record(input, a, b).public(input.to(other.dtype), other)
    if _mode.grad_enabled and (input._requires_grad or other._requires_grad):
        return matmul_graph(input, other)   # Note [matmul's graph] (matmul_graph.py)
    return _batched_record(input, a, b).public(input, other)


def _batched_record(input, a, b):
    """The node PyTorch leaves on a matrix @ batched product (see Note above).

    PyTorch computes ``(m, k) @ (..., k, n)`` as ``(other.mT @ input.mT).mT.contiguous()`` when
    ``input`` requires grad (a copy: ``CloneBackward0``, or ``TransposeBackward0`` when the
    transposed result is already contiguous), and as a broadcast bmm otherwise. A 3-D
    ``input`` with a leading 1 against a 3-D ``other`` is first squeezed to a matrix.
    """
    da, db = a.ndim, b.ndim
    as_matrix = da == 2 or (da == 3 and db == 3 and a.shape[0] == 1 and b.shape[0] != 1)
    if not as_matrix or not input._requires_grad:
        return _batched
    # (.contiguous() of an empty or single-row/column result is the transpose itself)
    empty = a.shape[-2] * b.shape[-1] * int(np.prod(b.shape[:-2])) == 0
    return _transposed if a.shape[-2] == 1 or b.shape[-1] == 1 or empty else _clone


def mm(input, mat2):
    """Product of two matrices."""
    _check_tensor("mm", input, 1, "input")
    _check_tensor("mm", mat2, 2, "mat2")
    _grad_fns_first(input, mat2)
    a, b = input._data, mat2._data
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm(a.shape, b.shape)
    _same_dtype_mm(a, b)
    _no_bool("addmm_impl_cpu_", a, a.shape[0] * b.shape[1], a.shape[1])
    return _mm.public(input, mat2)


def bmm(input, mat2):
    """Batched product of two 3-D tensors with the same batch size."""
    _check_tensor("bmm", input, 1, "input")
    _check_tensor("bmm", mat2, 2, "mat2")
    _grad_fns_first(input, mat2)
    a, b = input._data, mat2._data
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, "
                           f"{b.shape[1]}].")
    if a.shape[0] * a.shape[1] * b.shape[2] == 0 or a.shape[2] == 0:
        if a.dtype != b.dtype:   # an empty bmm: zeros of batch2's dtype (see matmul)
            if b.dtype.kind not in "fc" and _mode.grad_enabled and (
                    input._requires_grad or mat2._requires_grad):
                raise RuntimeError(f"Autograd not support dtype: {_tname(b)}")
            return _bmm.public(input.to(mat2.dtype), mat2)
    else:
        _no_bool("bmm", a)   # the kernel is chosen by batch1's dtype, then batch2's checked
        if a.dtype != b.dtype:
            raise RuntimeError(f"expected scalar type {_tname(a)} but found {_tname(b)}")
    return _bmm.public(input, mat2)


def mv(input, vec):
    """Matrix-vector product."""
    _check_tensor("mv", input, 1, "input")
    _check_tensor("mv", vec, 2, "vec")
    _grad_fns_first(input, vec)
    a, b = input._data, vec._data
    if a.ndim == 0:   # PyTorch reads input.size(0) first
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if a.ndim != 2 or b.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {b.ndim}")
    _check_mv(a, b)
    _no_bool("addmv_impl_cpu", a, a.shape[0], a.shape[1])
    return _mv.public(input, vec)


def dot(input, tensor):
    """Inner product of two 1-D tensors."""
    _check_tensor("dot", input, 1, "input")
    _check_tensor("dot", tensor, 2, "tensor")
    _check_dot(input._data, tensor._data)
    _no_bool("dot", input._data)
    return _dot.public(input, tensor)


def outer(input, vec2):
    """Outer product of two vectors (recorded as a broadcast multiply, like PyTorch)."""
    _check_tensor("outer", input, 1, "input")
    _check_tensor("outer", vec2, 2, "vec2")
    for name, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    return input.reshape(-1, 1) * vec2


def _rmatmul(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)


def _matmul_dunder(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(self, other)


for _name, _fn in (("matmul", matmul), ("mm", mm), ("bmm", bmm), ("mv", mv), ("dot", dot),
                   ("outer", outer), ("ger", outer)):
    export_function(_name, _fn)
    bind_method(_name, _fn)
bind_method("__matmul__", _matmul_dunder)
bind_method("__rmatmul__", _rmatmul)


# -- addmm ---------------------------------------------------------------------------------------
def addmm(self, mat1, mat2, *, beta=1, alpha=1):
    """``beta * self + alpha * (mat1 @ mat2)`` (what ``nn.Linear`` runs on a 2-D input)."""
    out = np.matmul(mat1, mat2)
    if alpha != 1:
        if alpha == 0 and out.dtype != np.float16:
            # PyTorch's BLAS gemm does not read the operands then (their NaN too): it scales
            # the copy of self it starts from, beta * self (-0.0 stays: no + 0.0; fuzz seed
            # 118); its own half kernel multiplies (0 * inf is NaN)
            out = np.zeros_like(out)
            if beta != 0:
                out[...] = self if beta == 1 else beta * self
                return out
        else:
            out *= alpha
    if beta == 0:
        return out
    shape = self.shape if type(self) is np.ndarray else np.shape(self)
    # a bias row or a full matrix (nn.Linear's cases) broadcasts as it is; anything else is
    # checked by NumPy's broadcast_shapes (a Python function: slow for the common case)
    if shape != out.shape and shape != out.shape[1:] and np.broadcast_shapes(
            shape, out.shape) != out.shape:
        raise RuntimeError(
            f"The expanded size of the tensor ({out.shape[-1]}) must match the existing size "
            f"({np.shape(self)[-1]}) at non-singleton dimension 1.  Target sizes: "
            f"[{', '.join(map(str, out.shape))}].  Tensor sizes: "
            f"[{', '.join(map(str, np.shape(self)))}]")
    out += self if beta == 1 else beta * self
    return out


def _times(g, factor):
    """PyTorch's maybe_multiply: ``g`` itself for 1, else mul(Tensor, Scalar): MulBackward1."""
    if factor == 1:
        return g
    from .pointwise_common import scale
    return scale(g, factor)


def addmm_self(grad, beta):
    return _times(grad, beta)


# Note [Plain NumPy without create_graph]
# Without ``create_graph`` the formulas run under no-grad, so the products they return carry
# no history: ``nn.Linear``'s backward then calls ``np.matmul`` on the same operands, in the
# same layouts, as ``matmul(grad, mat2.t())`` would, without going through the dispatcher
# (a Linear's backward was ~8 op calls; see bench/README.md, W3).
def addmm_mat1(grad, mat2, mat1_strides, alpha):
    if not _mode.grad_enabled and alpha == 1:
        g = grad._data
        if column_major(mat1_strides, g.shape[0]):
            return _wrap(np.matmul(mat2._data, g.T).T)
        return _wrap(np.matmul(g, mat2._data.T))
    if column_major(mat1_strides, grad._data.shape[0]):
        g = matmul(mat2, grad.t()).t()   # see Note [Gradients in the operand's layout]
    else:
        g = matmul(grad, mat2.t())
    return _times(g, alpha)


def addmm_mat2(grad, mat1, mat2_strides, alpha):
    if not _mode.grad_enabled and alpha == 1:   # Note [Plain NumPy without create_graph]
        g, m = grad._data, mat1._data
        if column_major(mat2_strides, m.shape[1]):
            # nn.Linear's weight.t(): the weight's layout, a NumPy view of the product, so
            # the engine can hand the product itself to weight.grad (engine._sole_view)
            return _wrap(np.matmul(g.T, m).T)
        return _wrap(np.matmul(m.T, g))
    if column_major(mat2_strides, mat1._data.shape[1]):
        g = matmul(grad.t(), mat1).t()   # nn.Linear's weight.t(): the weight's own layout
    else:
        g = matmul(mat1.t(), grad)
    return _times(g, alpha)


def _addmm_dtype(rec, args):
    return None, None


_addmm = defop("addmm", addmm, inputs=("self", "mat1", "mat2"),
               derivatives={"self": addmm_self, "mat1": addmm_mat1, "mat2": addmm_mat2},
               dtype=_addmm_dtype, methods=(), functions=(), family=FAMILY,
               samples=lambda make, shapes: [
                   Sample((make((4,)), make((2, 3)), make((3, 4))), call="addmm"),
                   Sample((make((2, 4)), make((2, 3)), make((3, 4))), {"beta": 0.5, "alpha": 2},
                          call="addmm"),
                   Sample((make((1, 1)), make((2, 3)), make((3, 4))), call="addmm")])


def addmm_public(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``."""
    if not (isinstance(input, Tensor) and isinstance(mat1, Tensor)
            and isinstance(mat2, Tensor)):
        for i, (n, t) in enumerate((("input", input), ("mat1", mat1), ("mat2", mat2))):
            _check_tensor("addmm", t, i + 1, n)
    a, b = mat1._data, mat2._data
    # addmm's own dtype messages (nn.Linear on int or double input shows them), before the
    # ranks and shapes; self against mat2 first
    for name, x in (("self", input._data), ("mat1", a)):
        if x.dtype != b.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{_tname(x).rsplit('.', 1)[-1]} and "
                               f"{_tname(b).rsplit('.', 1)[-1]}")
    if a.ndim != 2:
        raise RuntimeError("mat1 must be a matrix, got {}-D tensor".format(a.ndim))
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix, got {}-D tensor".format(b.ndim))
    if a.shape[1] != b.shape[0]:
        _check_mm(a.shape, b.shape)
    out_shape = (a.shape[0], b.shape[1])
    s = input._data.shape
    if s != out_shape and s != out_shape[1:]:
        from .shape import expand_op
        expand_op(input._data, out_shape)   # PyTorch expands self: its messages
    if b.dtype == np.bool_ and out_shape[0] * out_shape[1] and a.shape[1]:
        from .pointwise_common import not_implemented_for
        raise not_implemented_for("addmm_impl_cpu_", b)
    if b.dtype.kind in "iu":   # integral products take alpha and beta as integers
        alpha, beta = int(alpha), int(beta)
    return _addmm.dispatch(_addmm, (input, mat1, mat2, beta, alpha))   # its public function


export_function("addmm", addmm_public)
bind_method("addmm", addmm_public)

from . import norms, einsum  # noqa: E402,F401  (vector_norm / norm, einsum: registers)
