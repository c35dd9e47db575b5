"""Cholesky and triangular solves: ``linalg.cholesky`` / ``cholesky_ex`` / ``cholesky``,
``cholesky_solve``, ``cholesky_inverse``, ``linalg.solve_triangular``.

Split from linalg_decomp.py (inverses, determinants, general solves). The derivative
formulas are PyTorch's, op for op (triangular solves, not inverses), so that create_graph
gradients have PyTorch's graph.

>>> import leafgrad as torch
>>> torch.linalg.cholesky(torch.tensor([[4.0, 2.0], [2.0, 5.0]]))
tensor([[2., 0.],
        [1., 2.]])
"""
from __future__ import annotations

import numpy as np

from .registry import defop, export_function, bind_method, Sample
from .joins import materialize_zeros
from .linalg import matmul
from .linalg_common import (check_matrix, cholesky_lapack, batch_info, raise_for_info,
                            singular_message, not_pd_message, check_solve_inputs,
                            check_kernel, trsm, lapack_layout)
from .linalg_decomp import _checked, _spd, _wellcond
from ..autograd.graph import sum_to
from ..tensor import Tensor
from .. import return_types as _rt
from ..errors import broadcast_error

FAMILY = "linalg"

cholesky_ex_type = _rt._make("linalg_cholesky_ex", ("L", "info"))

# -- cholesky ------------------------------------------------------------------------------------
def linalg_cholesky_ex(A, *, upper=False, check_errors=False, _name="linalg.cholesky"):
    """``(L, info)``: the lower (or upper) Cholesky factor (``_name`` for the error: the
    deprecated ``torch.cholesky`` says ``cholesky:``)."""
    if A.dtype.kind in "biu" or A.dtype == np.float16:
        # (empty: the kernel refuses others; torch.cholesky keeps an integer dtype) NumPy has
        # no half linalg
        L, info = linalg_cholesky_ex(A.astype(np.float32), upper=upper,
                                     check_errors=check_errors, _name=_name)
        return [lapack_layout(L.astype(A.dtype)), info]
    try:
        L = np.linalg.cholesky(A)
        # NumPy factors NaN pivots through, where LAPACK's potrf stops (Note in cholesky_lapack)
        ok = L.size == 0 or np.isfinite(L).all()
    except np.linalg.LinAlgError:
        ok = False
    if ok:
        info = np.zeros(A.shape[:-2], dtype=np.int32)
    else:
        n = A.shape[-1]
        pairs = [cholesky_lapack(m) for m in A.reshape(-1, n, n)]
        L = np.array([p[0] for p in pairs], dtype=A.dtype).reshape(A.shape)
        info = np.array([p[1] for p in pairs], dtype=np.int32).reshape(A.shape[:-2])
        if check_errors:
            raise_for_info(_name, info, not_pd_message)
    if upper:
        L = np.swapaxes(L, -1, -2)
    return [lapack_layout(L), info]


def _cholesky_grad(gL, L, upper):
    """PyTorch's cholesky_backward, op for op (its graph under create_graph):
    ``gA = tril(L^T gL)``, symmetrized as ``0.5 * (gA + tril(gA, -1)^T)``, then
    ``L^-T gA L^-1`` by two triangular solves."""
    from .registry import RECORDS
    if upper:
        L, gL = L.mT, gL.mT
    gA = matmul(L.mT, gL).tril()
    gA = RECORDS["mul_scalar"].public(gA + gA.tril(-1).mT, 0.5)
    gA = _tri.public(L.mT, gA, upper=True, left=True)
    return _tri.public(L, gA, upper=False, left=False)


def linalg_cholesky_ex_A(grads, result, upper):
    return _cholesky_grad(grads[0], result, upper)


_chol = defop("linalg_cholesky_ex", linalg_cholesky_ex, inputs=("A",),
              derivatives={"A": linalg_cholesky_ex_A}, dtype="same", n_outputs=2,
              differentiable_outputs=(True, False), materialize=materialize_zeros,
              methods=(), functions=(), family=FAMILY,
              samples=lambda make, shapes: [
                  Sample((_spd(make, (3, 3)),), call="linalg.cholesky"),
                  Sample((_spd(make, (2, 3, 3)),), {"upper": True}, call="linalg.cholesky"),
                  Sample((_spd(make, (2, 2)),), call="linalg.cholesky_ex")])


def cholesky_legacy(self, upper=False):
    """``torch.cholesky`` (deprecated): one output."""
    if self.size == 0:   # PyTorch returns before any check: any shape, any dtype
        return np.empty(self.shape, self.dtype)
    return linalg_cholesky_ex(self, upper=upper, check_errors=True, _name="cholesky")[0]


def cholesky_self(grad, result, upper):
    return _cholesky_grad(grad, result, upper)


_chol_legacy = defop("cholesky", cholesky_legacy, derivatives={"self": cholesky_self},
                     dtype="same", methods=(), functions=(), family=FAMILY,
                     samples=lambda make, shapes: [
                         Sample((_spd(make, (3, 3)),), call="cholesky"),
                         Sample((_spd(make, (2, 2, 2)), True), call="Tensor.cholesky")])


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    _checked("linalg.cholesky", A)
    check_kernel("cholesky_cpu", A)
    return cholesky_ex_type(_chol.public(A, upper=upper, check_errors=check_errors))


def cholesky(A, *, upper=False, out=None):
    """``torch.linalg.cholesky``."""
    _checked("linalg.cholesky", A)
    check_kernel("cholesky_cpu", A)
    return _chol.public(A, upper=upper, check_errors=True)[0]


def cholesky_torch(input, upper=False, *, out=None):
    import warnings
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
                  "removed in a future PyTorch release.")
    if isinstance(input, Tensor) and input._data.size == 0:
        return _chol_legacy.public(input, upper)   # (an empty input skips every check)
    check_matrix("cholesky", input)
    check_kernel("cholesky_cpu", input)   # no float check first: the kernel names the dtype
    return _chol_legacy.public(input, upper)


def _from_factor(L, upper):
    """``L L^T`` (or ``U^T U``) as an array."""
    return np.swapaxes(L, -1, -2) @ L if upper else L @ np.swapaxes(L, -1, -2)


def cholesky_solve(self, input2, upper=False):
    """``X`` with ``(L L^T) X = self``, ``input2`` being ``L`` (or ``U`` when ``upper``):
    two triangular solves, as LAPACK's potrs (a zero on the diagonal gives infs and NaNs)."""
    factor_t = np.swapaxes(input2, -1, -2)
    if upper:      # U^T U X = B
        return lapack_layout(trsm(input2, trsm(factor_t, self, upper=False), upper=True))
    return lapack_layout(trsm(factor_t, trsm(input2, self, upper=False), upper=True))


def _factor_grad(common, factor, upper):
    """PyTorch's last step of cholesky_solve's and cholesky_inverse's factor gradient:
    ``-(factor @ common)`` for U, ``-(common @ factor)`` for L."""
    return -matmul(factor, common) if upper else -matmul(common, factor)


# PyTorch's one formula for both (Note [Joint formulas] in autograd/graph.py) saves self,
# input2 and result whichever needs a gradient (changing ``self`` in place is caught, though
# no gradient reads it), and computes both gradients whichever is wanted: input2's is built on
# self's (one CholeskySolveBackward0 under create_graph)
def cholesky_solve_backward(grad, self, input2, result, upper):
    # gB = cholesky_solve(grad), C = gB X^T, C + C^T
    grad_self = _cs.public(grad, input2, upper)
    common = matmul(grad_self, result.mT)
    return grad_self, _factor_grad(common + common.mT, input2, upper)


def _cholesky_solve_dtype(rec, args):
    """PyTorch's checks, in its order: both at least 2-D, the dtypes agree, ``A`` square and
    the size of ``b``'s matrices, the batch dims broadcast, then the kernel takes
    float/double."""
    b, A = args[0], args[1]
    for t, name in ((b, "b"), (A, "u")):
        if t.ndim < 2:
            raise RuntimeError(f"{name} should have at least 2 dimensions, but has {t.ndim} "
                               f"dimensions instead")
    check_solve_inputs(b, A, "cholesky_solve")
    check_kernel("cholesky_solve_cpu", b, empty_too=True)   # (empty inputs reach it too)
    return None, None


_cs = defop("cholesky_solve", cholesky_solve, inputs=("self", "input2"),
            derivatives={("self", "input2"): cholesky_solve_backward},
            dtype=_cholesky_solve_dtype, family=FAMILY,
            samples=lambda make, shapes: [
                Sample((make((3, 2)), np.linalg.cholesky(_spd(make, (3, 3)))),
                       call="cholesky_solve"),
                Sample((make((2, 3, 1)),
                        np.swapaxes(np.linalg.cholesky(_spd(make, (2, 3, 3))), -1, -2), True),
                       call="cholesky_solve")])


def _cholesky_inverse_dtype(rec, args):
    check_matrix("cholesky_inverse", args[0])
    check_kernel("cholesky_inverse_out_cpu", args[0], empty_too=True)   # empty ones too
    return None, None


def cholesky_inverse(self, upper=False):
    """``(L L^T)^{-1}`` from the factor ``L`` (or ``U``); LAPACK's potri refuses a zero on
    the factor's diagonal."""
    if not self.size:
        return np.zeros(self.shape, self.dtype)
    raise_for_info("cholesky_inverse", batch_info(self, _first_zero_diagonal), singular_message)
    # only the factor's triangle is read
    return lapack_layout(np.linalg.inv(_from_factor(np.triu(self) if upper else np.tril(self),
                                                    upper)))


def _first_zero_diagonal(m):
    zero = np.nonzero(np.diagonal(m) == 0)[0]
    return int(zero[0]) + 1 if len(zero) else 0


def cholesky_inverse_self(grad, self, result, upper):
    # PyTorch's cholesky_inverse_backward: X (grad + grad^T) X, then times the factor, negated
    common = grad + grad.mT
    return _factor_grad(matmul(result, matmul(common, result)), self, upper)


_ci = defop("cholesky_inverse", cholesky_inverse, derivatives={"self": cholesky_inverse_self},
            dtype=_cholesky_inverse_dtype, family=FAMILY,
            samples=lambda make, shapes: [
                Sample((np.linalg.cholesky(_spd(make, (3, 3))),), call="cholesky_inverse"),
                Sample((np.swapaxes(np.linalg.cholesky(_spd(make, (3, 3))), -1, -2), True),
                       call="cholesky_inverse")])


# -- triangular solve ----------------------------------------------------------------------------
def linalg_solve_triangular(self, B, *, upper, left=True, unitriangular=False):
    """``X`` with ``T X = B`` (``X T = B`` if not ``left``), T the triangle of ``self``;
    ``B`` taken in ``self``'s dtype."""
    B = B.astype(self.dtype, copy=False)
    if left:
        return lapack_layout(trsm(self, B, upper, unitriangular))
    # X T = B  <=>  T^T X^T = B^T
    return lapack_layout(np.swapaxes(trsm(np.swapaxes(self, -1, -2), np.swapaxes(B, -1, -2),
                                          not upper, unitriangular), -1, -2))


def _tri_gB(grad, self, upper, left, unitriangular):
    return _tri.public(self.mT, grad, upper=not upper, left=left, unitriangular=unitriangular)


# PyTorch's one formula for both (Note [Joint formulas] in autograd/graph.py) saves self and
# result for either input, never B; self's gradient is built on B's (one
# LinalgSolveTriangularBackward0 under create_graph)
def linalg_solve_triangular_backward(grad, self, result, upper, left, unitriangular,
                                     self_shape, B_shape, output_mask):
    # PyTorch's linalg_solve_triangular_backward: gB = solve(T^H, grad), gA = -gB X^T (left)
    # or -X^T gB, then its triangle (strictly, for a unit triangle)
    gB = _tri_gB(grad, self, upper, left, unitriangular)
    gA = None
    if output_mask[0]:
        gA = -matmul(gB, result.mT) if left else -matmul(result.mT, gB)
        gA = gA.triu(int(unitriangular)) if upper else gA.tril(-int(unitriangular))
        gA = sum_to(gA, self_shape)
    return gA, sum_to(gB, B_shape) if output_mask[1] else None


_tri = defop("linalg_solve_triangular", linalg_solve_triangular, inputs=("self", "B"),
             derivatives={("self", "B"): linalg_solve_triangular_backward},
             dtype="same", methods=(), functions=(), family=FAMILY,
             samples=lambda make, shapes: [
                 Sample((_wellcond(make, (3, 3)), make((3, 2))), {"upper": True},
                        call="linalg.solve_triangular"),
                 Sample((_wellcond(make, (2, 3, 3)), make((3, 1))), {"upper": False},
                        call="linalg.solve_triangular"),
                 Sample((_wellcond(make, (3, 3)), make((2, 3))),
                        {"upper": True, "left": False, "unitriangular": True},
                        call="linalg.solve_triangular")])


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """``torch.linalg.solve_triangular``: PyTorch's order of checks (both matrices, A square,
    the shapes, the batch broadcast, then the kernel's dtype, A's, on empty inputs too); B
    is taken in A's dtype, which the result has."""
    name = "linalg.solve_triangular"
    check_matrix(name, A, square=False)
    check_matrix(name, B, square=False, arg="B")
    check_matrix(name, A)
    if A.shape[-1] != (B.shape[-2] if left else B.shape[-1]):
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    err = broadcast_error([B.shape[:-2], A.shape[:-2]])
    if err:
        raise err
    check_kernel("triangular_solve_cpu", A, empty_too=True)
    return _tri.public(A, B, upper=upper, left=left, unitriangular=unitriangular)

export_function("cholesky", cholesky_torch)
bind_method("cholesky", cholesky_torch)

# the node class's output count (the engine sizes its gradient buffers with it)
_chol.node_class.n_outputs = 2
