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

from .iter_layout import RED
from .registry import defop, export_function, bind_method, Sample
from .joins import materialize_zeros, _cat
from .linalg import matmul
from .dispatch import stale_first
from .linalg_common import (check_float, check_matrix, check_same_dtype, check_kernel,
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


def _keep_none(grads, metas):
    return list(grads)


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
    """PyTorch's lu_factor_ex_backward: the factors unpacked (lu_unpack), the packed
    gradient's L and U parts to linalg_lu_backward."""
    LU, pivots = result, result1
    P, L, U = _lu_unpack.public(LU, pivots, True, pivot)
    m, n = LU._data.shape[-2:]
    k = min(m, n)
    grad = grads[0]
    return linalg_lu_backward(grad.narrow(-1, 0, k), grad.narrow(-2, 0, k), P, L, U, pivot)


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
    return linalg_lu_backward(grads[1], grads[2], result0, result1, result2, pivot)


def linalg_lu_backward(gL, gU, P, L, U, pivot):
    """PyTorch's linalg_lu_backward: with ``k = min(m, n)``, square:
    ``P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T``; wide (m < n): the leading block
    through ``U1^-T``, ``U2``'s gradient straight through ``L^-T``; tall (m > n): the leading
    block through ``L1^-T``, ``L2``'s gradient straight through ``U^-T``."""
    if gL is None and gU is None:
        return None
    m, n = L._data.shape[-2], U._data.shape[-1]
    k = min(m, n)
    if m == n:
        gA = matmul(L.mT, gL).tril(-1) if gL is not None else None
        if gU is not None:
            part = matmul(gU, U.mT).triu()
            gA = part if gA is None else gA + part
        gA = solve_triangular(U.mT, gA, upper=False, left=False)
        gA = solve_triangular(L.mT, gA, upper=True, left=True, unitriangular=True)
        return matmul(P, gA) if pivot else gA
    if m < n:   # wide
        U1 = U if n == k else U.narrow(-1, 0, k)
        gA = matmul(L.mT, gL) if gL is not None else None
        if gU is not None:
            part = matmul(gU.triu(), U.mT)
            gA = -part if gA is None else gA - part
        gA = solve_triangular(U1.mT, gA.tril(-1), upper=False, left=False)
        if gU is not None:
            gU1 = gU if n == k else gU.narrow(-1, 0, k)
            gA = _cat.public([gA + gU1.triu(), gU.narrow(-1, k, n - k)], -1)
        gA = solve_triangular(L.mT, gA, upper=True, left=True, unitriangular=True)
        if gU is None:
            gA = _cat.public([gA, _wrap(np.zeros(U._data.shape[:-1] + (n - k,),
                                                 U._data.dtype))], -1)
        return matmul(P, gA) if pivot else gA
    # tall
    L1 = L if m == k else L.narrow(-2, 0, k)
    gA = matmul(gU, U.mT) if gU is not None else None
    if gL is not None:
        part = matmul(L.mT, gL.tril(-1))
        gA = -part if gA is None else gA - part
    gA = solve_triangular(L1.mT, gA.triu(), upper=True, left=True, unitriangular=True)
    if gL is not None:
        gL1 = gL if m == k else gL.narrow(-2, 0, k)
        gA = _cat.public([gA + gL1.tril(-1), gL.narrow(-2, k, m - k)], -2)
    gA = solve_triangular(U.mT, gA, upper=False, left=False)
    if gL is None:
        gA = _cat.public([gA, _wrap(np.zeros(L._data.shape[:-2] + (m - k, k),
                                             L._data.dtype))], -2)
    return matmul(P, gA) if pivot else gA


_lu = defop("linalg_lu", linalg_lu, inputs=("A",), derivatives={"A": linalg_lu_A}, layout=RED,
            dtype="same", n_outputs=3, differentiable_outputs=(False, True, True),
            materialize=_keep_none,   # (an unused factor's gradient stays undefined) methods=(), functions=(), family=FAMILY,
            saved_aliases={"result0": "P", "result1": "L", "result2": "U"},
            samples=lambda make, shapes: [Sample((make((3, 3)),), call="linalg.lu"),
                                          Sample((make((2, 2, 2)),), call="linalg.lu"),
                                          Sample((make((4, 3)),), call="linalg.lu"),
                                          Sample((make((2, 2, 4)),), call="linalg.lu")])
_lu.node_class.n_outputs = 3


def _checked(name, A):
    if A.ndim < 2:
        stale_first(None, (A,))   # (the meta function's check: after autograd's)
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


def lu_unpack_forward(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``[P, L, U]``; what a flag turns off is an empty tensor, as PyTorch's."""
    m, n = LU_data.shape[-2:]
    dtype = LU_data.dtype
    empty = np.empty((0,), dtype)
    L, U = _unpack(LU_data, min(m, n)) if unpack_data else (empty, empty.copy())
    P = permutation(LU_pivots, m, dtype) if unpack_pivots else empty.copy()
    return [P, L, U]


def lu_unpack_LU_data(grads, LU_data_shape):
    """PyTorch's lu_unpack_backward: L's gradient below the diagonal, U's on and above, the
    long side's extra block of L or U straight through (zeros where none came)."""
    gL, gU = grads[1], grads[2]
    if gL is None and gU is None:
        return None
    m, n = LU_data_shape[-2:]
    k = min(m, n)
    if gL is not None and gU is not None:
        if m == n:
            return gL.tril(-1) + gU.triu()
        L1 = gL.tril(-1) if m == k else gL.narrow(-2, 0, k).tril(-1)
        U1 = gU.triu() if n == k else gU.narrow(-1, 0, k).triu()
        rest = gL.narrow(-2, k, m - k) if m > n else gU.narrow(-1, k, n - k)
        return _cat.public([L1 + U1, rest], -2 if m > n else -1)
    if gL is not None:
        if m >= n:
            return gL.tril(-1)
        zeros = _wrap(np.zeros(gL._data.shape[:-1] + (n - m,), gL._data.dtype))
        return _cat.public([gL.tril(-1), zeros], -1)
    if n >= m:
        return gU.triu()
    zeros = _wrap(np.zeros(gU._data.shape[:-2] + (m - n, n), gU._data.dtype))
    return _cat.public([gU.triu(), zeros], -2)


_lu_unpack = defop("lu_unpack", lu_unpack_forward, inputs=("LU_data",),
                   derivatives={"LU_data": lu_unpack_LU_data}, dtype="same", n_outputs=3,
                   differentiable_outputs=(False, True, True), materialize=_keep_none,
                   methods=(), functions=(), family=FAMILY)
_lu_unpack.node_class.n_outputs = 3


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``torch.lu_unpack``: ``(P, L, U)`` from a packed factorization (LuUnpackBackward0)."""
    return lu_unpack_type(_lu_unpack.public(LU_data, LU_pivots, unpack_data, unpack_pivots))


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
    """PyTorch's linalg_lu_solve_LU, through the unpacked factors (lu_unpack): with
    ``left != adjoint``, gR = U^-T (-gX X^T) and gLU = tril(L^-T gR U^T, -1) + triu(gR);
    else gR = -(P^T X gX^T P) L^-T and gLU = tril(gR, -1) + triu(gR' U^-T), gR' = L^T gR
    (``X``, ``gX`` transposed for ``left=False``)."""
    P, L, U = _lu_unpack.public(LU, pivots, True, left == adjoint)
    gX, X = grad, result
    if left != adjoint:
        gR = solve_triangular(U.mT, -matmul(gX if left else gX.mT, X.mT if left else X),
                              upper=False)
        gL = solve_triangular(L.mT, matmul(gR, U.mT), upper=True, left=True,
                              unitriangular=True).tril(-1)
        return gL + gR.triu()
    gR = -matmul(matmul(matmul(P.mT, X if left else X.mT), gX.mT if left else gX), P)
    gR = solve_triangular(L.mT, gR, upper=True, left=False, unitriangular=True)
    gU = solve_triangular(U.mT, matmul(L.mT, gR), upper=False, left=False).triu()
    return gR.tril(-1) + gU


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
