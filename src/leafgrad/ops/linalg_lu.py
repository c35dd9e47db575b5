"""LU factorization and triangular solves: ``linalg.lu_factor`` / ``lu_factor_ex`` /
``linalg.lu`` / ``torch.lu``, ``linalg.lu_solve``, ``torch.lu_unpack`` and the deprecated
``torch.triangular_solve``.

NumPy has no LU routine, so the forward is partial-pivoting Gaussian elimination over the
columns (the row with the largest magnitude is the pivot, the first one on ties, as LAPACK's
getrf picks it), vectorized over the rows and the batch. Pivots are 1-based int32, as
PyTorch's. Derivatives (square, tall and wide matrices) are written with the triangular
solves, from the saved factors.

>>> import leafgrad as torch
>>> LU, piv = torch.linalg.lu_factor(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
>>> piv
tensor([2, 2], dtype=torch.int32)
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .registry import defop, export_function, bind_method, Sample
from .joins import materialize_zeros, _cat
from .linalg import matmul
from .linalg_common import (check_float, check_matrix, check_same_dtype, tri_mask, check_kernel,
                            check_solve_inputs, trsm, lapack_layout)
from .linalg_decomp import _wellcond
from .linalg_cholesky import solve_triangular
from ..autograd.graph import sum_to
from ..errors import broadcast_error
from ..tensor import Tensor, _wrap
from .. import return_types as _rt

FAMILY = "linalg"

lu_factor_type = _rt._make("linalg_lu_factor", ("LU", "pivots"))
lu_factor_ex_type = _rt._make("linalg_lu_factor_ex", ("LU", "pivots", "info"))
lu_type = _rt._make("linalg_lu", ("P", "L", "U"))
lu_unpack_type = _rt._make("lu_unpack", ("P", "L", "U"))
triangular_solve_type = _rt._make("triangular_solve", ("solution", "cloned_coefficient"))


def lu_packed(A: np.ndarray):
    """``(LU, pivots, info)`` of a batch of matrices (``..., m, n``)."""
    shape = A.shape
    m, n = shape[-2:]
    k = min(m, n)
    batch = math.prod(shape[:-2])   # not -1: a 0x0 matrix makes -1 ambiguous
    lu = np.array(A, dtype=A.dtype, copy=True).reshape((batch, m, n))
    b = lu.shape[0]
    piv = np.zeros((b, k), dtype=np.int32)
    info = np.zeros(b, dtype=np.int32)
    rows = np.arange(b)
    for j in range(k if b else 0):   # (an empty batch: nothing to factor, whatever dtype)
        p = j + _pivot_rows(np.abs(lu[:, j:, j]))
        piv[:, j] = p + 1
        swap = p != j
        if swap.any():
            r = rows[swap]
            tmp = lu[r, j, :].copy()
            lu[r, j, :] = lu[r, p[swap], :]
            lu[r, p[swap], :] = tmp
        pivot = lu[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        safe = np.where(zero, 1, pivot)
        # a zero pivot leaves its column unscaled (LAPACK's getf2), and the update below
        # still subtracts it: (-0) - (-0) * u is +0, a signed zero PyTorch's det shows
        factors = np.where(zero[:, None], lu[:, j + 1:, j], lu[:, j + 1:, j] / safe[:, None])
        lu[:, j + 1:, j] = factors
        lu[:, j + 1:, j + 1:] -= factors[:, :, None] * lu[:, j, None, j + 1:]
    return (lu.reshape(shape), piv.reshape(shape[:-2] + (k,)),
            info.reshape(shape[:-2]))


def _pivot_rows(mags: np.ndarray) -> np.ndarray:
    """Per row of ``mags`` (batch, rows), LAPACK's idamax: the first of the largest, found by
    "greater than the best so far" from the first entry, so a NaN never wins unless it comes
    first (np.argmax would pick the first NaN)."""
    if not np.isnan(mags).any():
        return np.argmax(mags, axis=1)
    p = np.argmax(np.where(np.isnan(mags), -np.inf, mags), axis=1)
    p[np.isnan(mags[:, 0])] = 0
    return p


def permutation(pivots: np.ndarray, m: int, dtype) -> np.ndarray:
    """The matrix ``P`` with ``A = P L U`` for LAPACK pivots."""
    flat = pivots.reshape((math.prod(pivots.shape[:-1]), pivots.shape[-1]))   # k may be 0
    out = np.empty((flat.shape[0], m, m), dtype=dtype)
    for i, piv in enumerate(flat):
        perm = np.arange(m)
        for j, p in enumerate(piv):
            perm[[j, p - 1]] = perm[[p - 1, j]]
        out[i] = np.eye(m, dtype=dtype)[:, perm]
    return out.reshape(pivots.shape[:-1] + (m, m))


def _unpack(LU, k):
    m, n = LU.shape[-2:]
    L = np.tril(LU[..., :, :k], -1)
    idx = np.arange(k)
    L[..., idx, idx] = 1
    U = np.triu(LU[..., :k, :])
    return L, U


def _lu_grad(P, L, U, gL, gU):
    """The gradient of ``A = P L U`` (``m x n``, ``k = min(m, n)``; L unit lower ``m x k``,
    U upper ``k x n``) from the factors' gradients, written with leafgrad ops (so it is
    differentiable again).

    With ``B = P^T dA`` and ``L1``, ``U1`` the leading ``k x k`` blocks, ``X = L1^-1 B1 U1^-1``
    (B1 the leading ``k x k`` block of B) splits into ``dL1 = L1 tril(X, -1)`` and
    ``dU1 = triu(X) U1``; the remaining block of the long side follows from it:
    tall (m > n): ``dL2 = (B2 - L2 dU) U^-1`` for the rows below; wide (m < n):
    ``dU2 = L^-1 (B2 - dL U2)`` for the columns to the right. Transposing these linear maps:
    ``phi = tril(L^T gL, -1) + triu(gU U^T)`` with the coupling term (tall:
    ``- triu(L2^T gL2)``; wide: ``- tril(gU2 U2^T, -1)``), ``gB1 = L1^-T phi U1^-T`` and the
    long side's block ``gB2 = gL2 U^-T`` (tall) or ``L^-T gU2`` (wide); ``gA = P gB``."""
    m, k = L._data.shape[-2:]
    n = U._data.shape[-1]
    dtype = L._data.dtype
    low = tri_mask(k, dtype, diagonal=-1)
    up = tri_mask(k, dtype, upper=True)

    def inner(L1, U1, phi):   # L1^-T phi U1^-T
        x = solve_triangular(L1.mT, phi, upper=True, unitriangular=True)
        return solve_triangular(U1.mT, x, upper=False, left=False)

    if m == n:
        phi = matmul(L.mT, gL) * low + matmul(gU, U.mT) * up
        return matmul(P, inner(L, U, phi))
    if m > n:   # tall: L = [L1; L2]
        L1, L2 = L[..., :k, :], L[..., k:, :]
        gL1, gL2 = gL[..., :k, :], gL[..., k:, :]
        phi = matmul(L1.mT, gL1) * low + (matmul(gU, U.mT) - matmul(L2.mT, gL2)) * up
        gB2 = solve_triangular(U.mT, gL2, upper=False, left=False)
        return matmul(P, _cat.public([inner(L1, U, phi), gB2], -2))
    # wide: U = [U1 | U2]
    U1, U2 = U[..., :k], U[..., k:]
    gU1, gU2 = gU[..., :k], gU[..., k:]
    phi = (matmul(L.mT, gL) - matmul(gU2, U2.mT)) * low + matmul(gU1, U1.mT) * up
    gB2 = solve_triangular(L.mT, gU2, upper=True, unitriangular=True)
    return matmul(P, _cat.public([inner(L, U1, phi), gB2], -1))


def _packed_parts(LU):
    """The strictly lower (``m x k``) and the upper (``k x n``) parts of packed factors, with
    leafgrad ops (their gradients reach LU): L is the first plus the identity, U the second."""
    m, n = LU._data.shape[-2:]
    k = min(m, n)
    dtype = LU._data.dtype
    return (LU[..., :, :k] * _wrap(np.tril(np.ones((m, k), dtype), -1)),
            LU[..., :k, :] * _wrap(np.triu(np.ones((k, n), dtype))))


def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False):
    """``(LU, pivots, info)``."""
    if not pivot:
        raise NotImplementedError("leafgrad: LU without pivoting is not implemented (PyTorch "
                                  "only has it on CUDA)")
    LU, piv, info = lu_packed(A)
    if check_errors:
        _raise_singular("torch.linalg.lu_factor_ex", info)
    return [lapack_layout(LU), piv, info]


def _raise_singular(name, info):
    flat = info.reshape(-1)
    bad = np.nonzero(flat)[0]
    if len(bad):
        i = int(bad[0])
        where = f"(Batch element {i}): " if info.ndim else ""
        raise RuntimeError(f"{name}: {where}U[{flat[i]},{flat[i]}] is zero and using it on "
                           f"lu_solve would result in a division by zero. If you still want to "
                           f"perform the factorization, consider calling linalg.lu(A, pivot) or "
                           f"linalg.lu_factor_ex(A, pivot)")


# As PyTorch's, the formulas read the saved factors (under create_graph they are this
# node's outputs, so second derivatives flow through the factorization again), not A.
def linalg_lu_factor_ex_A(grads, result, result1, pivot):   # what PyTorch saves
    LU, pivots = result, result1
    m, n = LU._data.shape[-2:]
    dtype = LU._data.dtype
    P = _wrap(permutation(pivots._data, m, dtype))
    lower, U = _packed_parts(LU)
    L = lower + _wrap(np.eye(m, min(m, n), dtype=dtype))
    gL, gU = _packed_parts(grads[0])   # L's part below the diagonal, U's on and above
    return _lu_grad(P, L, U, gL, gU)


_lu_factor = defop("linalg_lu_factor_ex", linalg_lu_factor_ex, inputs=("A",),
                   derivatives={"A": linalg_lu_factor_ex_A}, dtype="same", n_outputs=3,
                   differentiable_outputs=(True, False, False), materialize=materialize_zeros,
                   methods=(), functions=(), family=FAMILY,
                   saved_aliases={"result": "LU", "result1": "pivots"},
                   samples=lambda make, shapes: [
                       Sample((make((3, 3)),), call="linalg.lu_factor"),
                       Sample((make((2, 3, 3)),), call="linalg.lu_factor_ex"),
                       Sample((make((4, 2)),), call="linalg.lu_factor"),
                       Sample((make((2, 2, 3)),), call="linalg.lu_factor")])
_lu_factor.node_class.n_outputs = 3


def linalg_lu(A, pivot=True):
    """``(P, L, U)`` with ``A = P L U``."""
    if not pivot:
        raise NotImplementedError("leafgrad: LU without pivoting is not implemented (PyTorch "
                                  "only has it on CUDA)")
    LU, piv, _ = lu_packed(A)
    k = min(A.shape[-2:])
    L, U = _unpack(LU, k)
    return [permutation(piv, A.shape[-2], A.dtype), L, U]


def linalg_lu_A(grads, result0, result1, result2, pivot):   # what PyTorch saves
    return _lu_grad(result0, result1, result2, grads[1], grads[2])


_lu = defop("linalg_lu", linalg_lu, inputs=("A",), derivatives={"A": linalg_lu_A},
            dtype="same", n_outputs=3, differentiable_outputs=(False, True, True),
            materialize=materialize_zeros, methods=(), functions=(), family=FAMILY,
            saved_aliases={"result0": "P", "result1": "L", "result2": "U"},
            samples=lambda make, shapes: [Sample((make((3, 3)),), call="linalg.lu"),
                                          Sample((make((2, 2, 2)),), call="linalg.lu"),
                                          Sample((make((4, 3)),), call="linalg.lu"),
                                          Sample((make((2, 2, 4)),), call="linalg.lu")])
_lu.node_class.n_outputs = 3


def _checked(name, A):
    if A.ndim < 2:
        dims = ", ".join(str(s) for s in A.shape)
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: "
                           f"[{dims}] instead")
    check_kernel("lu_cpu", A)   # no float check first: the kernel names the dtype


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    _checked("torch.lu_factor", A)
    return lu_factor_ex_type(_lu_factor.public(A, pivot=pivot, check_errors=check_errors))


def lu_factor(A, *, pivot=True, out=None):
    """``torch.linalg.lu_factor``: ``(LU, pivots)``; singular inputs raise."""
    _checked("torch.lu_factor", A)
    LU, piv, info = _lu_factor.public(A, pivot=pivot, check_errors=False)
    _raise_singular("torch.linalg.lu_factor", info._data)
    return lu_factor_type((LU, piv))


def lu(A, *, pivot=True, out=None):
    """``torch.linalg.lu``: ``(P, L, U)``."""
    _checked("linalg.lu", A)
    return lu_type(_lu.public(A, pivot))


def lu_torch(A, pivot=True, get_infos=False, out=None):
    """``torch.lu`` (deprecated): ``(LU, pivots[, infos])``."""
    LU, piv, info = _lu_factor.public(A, pivot=pivot, check_errors=not get_infos)
    return (LU, piv, info) if get_infos else (LU, piv)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``torch.lu_unpack``: ``(P, L, U)`` from a packed factorization."""
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    dtype = LU_data._data.dtype
    L = LU_data[..., :, :k] * _wrap(np.tril(np.ones((m, k), dtype), -1)) + \
        _wrap(np.eye(m, k, dtype=dtype))
    U = LU_data[..., :k, :] * _wrap(np.triu(np.ones((k, n), dtype)))
    P = _wrap(permutation(LU_pivots._data, m, LU_data._data.dtype))
    return lu_unpack_type((P, L, U))


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """``X`` with ``A X = B`` (``A^T X = B`` when ``adjoint``; ``X A = B`` or ``X A^T = B``
    for ``left=False``), ``A = P L U`` given packed."""
    if LU.dtype == np.float16:   # (empty: the kernel refuses others) NumPy has no half linalg
        return linalg_lu_solve(LU.astype(np.float32), pivots, B.astype(np.float32), left=left,
                               adjoint=adjoint).astype(np.float16)
    if not left:   # X A = B  <=>  A^T X^T = B^T (X^T column-major: X row-major, as PyTorch's)
        return np.ascontiguousarray(np.swapaxes(
            linalg_lu_solve(LU, pivots, np.swapaxes(B, -1, -2), adjoint=not adjoint), -1, -2))
    return lapack_layout(getrs(LU, pivots, B, adjoint))


def getrs(LU, pivots, B, adjoint=False):
    """LAPACK's getrs: with ``A = P L U``, ``X = U^-1 L^-1 P^T B`` (adjoint: ``P L^-T U^-T B``),
    the triangular solves as trsm (a zero pivot of U gives infs and NaNs, no error); the
    batches broadcast."""
    # the row interchanges by indexing: a product with P would spread infs as NaNs
    perm = _row_order(pivots, LU.shape[-1])
    LU_t = np.swapaxes(LU, -1, -2)
    if adjoint:
        Z = trsm(LU_t, trsm(LU_t, B, upper=False), upper=True, unit=True)
        batch = np.broadcast_shapes(perm.shape[:-1], Z.shape[:-2])
        inverse = np.argsort(np.broadcast_to(perm, batch + perm.shape[-1:]), axis=-1)
        return np.take_along_axis(np.broadcast_to(Z, batch + Z.shape[-2:]), inverse[..., None],
                                  axis=-2)
    batch = np.broadcast_shapes(perm.shape[:-1], B.shape[:-2])
    PtB = np.take_along_axis(np.broadcast_to(B, batch + B.shape[-2:]),
                             np.broadcast_to(perm, batch + perm.shape[-1:])[..., None], axis=-2)
    return trsm(LU, trsm(LU, PtB, upper=False, unit=True), upper=True)


def _row_order(pivots: np.ndarray, m: int) -> np.ndarray:
    """``perm`` with ``(P^T B)[j] = B[perm[j]]`` for LAPACK pivots (batched)."""
    flat = pivots.reshape((math.prod(pivots.shape[:-1]), pivots.shape[-1]))
    out = np.empty((flat.shape[0], m), dtype=np.intp)
    for i, piv in enumerate(flat):
        perm = np.arange(m)
        for j, p in enumerate(piv):
            perm[[j, p - 1]] = perm[[p - 1, j]]
        out[i] = perm
    return out.reshape(pivots.shape[:-1] + (m,))


def linalg_lu_solve_B(grad, LU, pivots, result, left, adjoint):   # result: saved as PyTorch
    return _lus.public(LU, pivots, grad, left=left, adjoint=not adjoint)


def linalg_lu_solve_LU(grad, LU, pivots, result, left, adjoint):
    """Through ``A = P L U``: ``gA = -A^{-T} gX X^T`` (or ``-X (A^{-1} gX)^T``), then
    ``gL = tril(P^T gA U^T, -1)`` and ``gU = triu(L^T P^T gA)`` packed together.
    ``left=False`` is the transposed left solve with the other ``adjoint``."""
    if not left:
        grad, result, adjoint = grad.mT, result.mT, not adjoint
    gB = _lus.public(LU, pivots, grad, adjoint=not adjoint)
    gA = -matmul(gB, result.mT) if not adjoint else -matmul(result, gB.mT)
    n = LU._data.shape[-1]
    dtype = LU._data.dtype
    P = _wrap(permutation(pivots._data, n, dtype))
    L = LU * tri_mask(n, dtype, upper=False, diagonal=-1) + _wrap(np.eye(n, dtype=dtype))
    U = LU * tri_mask(n, dtype, upper=True)
    PtgA = matmul(P.mT, gA)
    return matmul(PtgA, U.mT) * tri_mask(n, dtype, upper=False, diagonal=-1) + \
        matmul(L.mT, PtgA) * tri_mask(n, dtype, upper=True)


_lus = defop("linalg_lu_solve", linalg_lu_solve, inputs=("LU", "pivots", "B"),
             derivatives={"LU": linalg_lu_solve_LU, "B": linalg_lu_solve_B}, dtype="same",
             methods=(), functions=(), family=FAMILY,
             samples=lambda make, shapes: _lu_solve_samples(make))


def _lu_solve_samples(make):
    lu, piv, _ = lu_packed(_wellcond(make, (3, 3)))
    lu2, piv2, _ = lu_packed(_wellcond(make, (2, 2, 2)))
    return [Sample((lu, piv, make((3, 2))), call="linalg.lu_solve"),
            Sample((lu, piv, make((3, 1))), {"adjoint": True}, call="linalg.lu_solve"),
            Sample((lu2, piv2, make((2, 2, 3))), call="linalg.lu_solve")]


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """``torch.linalg.lu_solve``: ``A X = B`` from ``lu_factor``'s output.

    PyTorch's order: dtypes (LU floating, B the same, int32 pivots), LU square, B's rank and
    size, the pivots' size and batch, then the batches broadcast, then the kernel."""
    check_float("torch.linalg.lu_solve", LU)
    check_same_dtype("linalg.lu_solve", LU, B, "LU", "B", stop="")
    if pivots._data.dtype != np.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type "
                           "torch.int32")
    check_matrix("torch.linalg.lu_solve", LU)
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 "
                           "dimensions.")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    if pivots.ndim == 0 or pivots.shape[-1] != n:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the "
                           "dimension of the matrix")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise RuntimeError(f"linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the "
                           f"same, but got pivots with shape "
                           f"[{', '.join(map(str, pivots.shape))}] instead")
    if B.shape[:-2] != LU.shape[:-2]:
        error = broadcast_error([B.shape[:-2], LU.shape[:-2]])
        if error is not None:
            raise error
    check_kernel("linalg.lu_solve_cpu", LU)
    return _lus.public(LU, pivots, B, left=left, adjoint=adjoint)


# -- torch.triangular_solve ----------------------------------------------------------------------
def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
    """``(X, A.clone())`` with ``op(T) X = self``, T the triangle of ``A``."""
    if transpose:   # op(T) = T^T: the other triangle of A^T
        X = trsm(np.swapaxes(A, -1, -2), self, not upper, unitriangular)
    else:
        X = trsm(A, self, upper, unitriangular)
    # the coefficient comes back broadcast to the batch shape
    return [lapack_layout(X), lapack_layout(np.broadcast_to(A, X.shape[:-2] + A.shape[-2:]))]


def _ts_self_grad(grads, A, upper, transpose, unitriangular):
    return _ts.public(grads[0], A, upper, not transpose, unitriangular)[0]


def _zeros(shape, dtype):
    # PyTorch's zeros({1}).expand_as(...) for an unused output: no graph, even under
    # create_graph
    return _wrap(np.zeros(shape, dtype))


# PyTorch's one formula for both (Note [Joint formulas] in autograd/graph.py) saves self (b),
# A and the solution, whichever needs a gradient; A's gradient is built on b's
def triangular_solve_backward(grads, self, A, result, upper, transpose, unitriangular,
                              self_shape, A_shape, output_mask):
    gb = gA = None
    if grads[0] is not None:
        gb = _ts_self_grad(grads, A, upper, transpose, unitriangular)
        if output_mask[1]:
            gA = -matmul(result, gb.mT) if transpose else -matmul(gb, result.mT)
            # PyTorch's triangle: triu(unitriangular) / tril(-unitriangular), not a mask
            gA = gA.triu(int(unitriangular)) if upper else gA.tril(-int(unitriangular))
    elif grads[1] is None:
        return None, None
    if gA is None:   # only the cloned coefficient was used
        gA = _zeros(A_shape, A._data.dtype)
    if gb is None:
        gb = _zeros(self_shape, A._data.dtype)   # b and A share a dtype
    if output_mask[1] and grads[1] is not None:
        gA = gA + grads[1]
    return sum_to(gb, self_shape), sum_to(gA, A_shape)


def _ts_keep(grads, metas):
    """The outputs' gradients as they come (None for an unused output: the formulas above
    give PyTorch's graph-free zeros)."""
    return list(grads)


_ts = defop("triangular_solve", triangular_solve, inputs=("self", "A"),
            derivatives={("self", "A"): triangular_solve_backward},
            dtype="same", n_outputs=2, materialize=_ts_keep, methods=(),
            functions=(), family=FAMILY, saved_aliases={"result": "solution"},
            samples=lambda make, shapes: [
                Sample((make((3, 2)), _wellcond(make, (3, 3))), call="triangular_solve"),
                Sample((make((2, 3, 1)), _wellcond(make, (3, 3)), False, True),
                       call="triangular_solve"),
                Sample((make((3, 2)), _wellcond(make, (3, 3))),
                       {"unitriangular": True}, call="Tensor.triangular_solve")])
_ts.node_class.n_outputs = 2


def triangular_solve_public(input, A, upper=True, transpose=False, unitriangular=False, *,
                            out=None):
    """``torch.triangular_solve`` (deprecated)."""
    warnings.warn("torch.triangular_solve is deprecated in favor of "
                  "torch.linalg.solve_triangularand will be removed in a future PyTorch "
                  "release.")
    for t, nm in ((input, "b"), (A, "A")):
        if t.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {nm} to have at least 2 "
                               f"dimensions, but it has {t.ndim} dimensions instead")
    # PyTorch's order: the dtypes' match, A square, the sizes, the batch broadcast, then the
    # kernel's dtype (checked on empty inputs too)
    check_solve_inputs(input, A, "triangular_solve")
    check_kernel("triangular_solve_cpu", A, empty_too=True)
    return triangular_solve_type(_ts.public(input, A, upper, transpose, unitriangular))


export_function("triangular_solve", triangular_solve_public)
bind_method("triangular_solve", triangular_solve_public)
export_function("lu", lu_torch)
bind_method("lu", lu_torch)
export_function("lu_unpack", lu_unpack)
export_function("lu_solve", lambda b, LU_data, LU_pivots, *, out=None:
                lu_solve(LU_data, LU_pivots, b))
