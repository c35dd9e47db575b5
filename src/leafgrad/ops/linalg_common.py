"""What the linear-algebra records share: PyTorch's input checks and messages, the
``LinAlgError`` it raises for singular / non-positive-definite inputs (naming the batch
element and the failing pivot or minor, as LAPACK reports them), batched identity matrices
and triangle masks as constants for derivative formulas.

>>> import leafgrad as torch
>>> torch.linalg.inv(torch.ones(2, 2))
Traceback (most recent call last):
...
torch._C._LinAlgError: linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from ..tensor import _wrap
from .dispatch import stale_first
from .householder import geqrf


class _LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``: a matrix without the property the operation needs."""


_LinAlgError.__module__ = "torch._C"
LinAlgError = _LinAlgError


def type_name(a) -> str:
    """PyTorch's scalar type name of an array's dtype (``Float``, ``Long``)."""
    return _dt.from_numpy_dtype(a.dtype).tensor_type[:-len("Tensor")]


def check_float(name, t):
    if not t.dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{type_name(t._data)}")


def check_kernel(kernel, t, empty_too=False):
    """PyTorch's LAPACK-backed CPU kernels exist for float and double only: other dtypes (half,
    integers, bool) reach the dispatch macro's ``"<kernel>" not implemented for '<Type>'``.
    Most ops return early on empty inputs and never reach the kernel (``empty_too`` for those
    that do)."""
    if (empty_too or t._data.size) and t._data.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(t._data)}'")


def kernel_rule(kernel):
    """A ``defop`` dtype rule ("same") that first checks ``self`` with :func:`check_kernel`."""
    def rule(rec, args):
        check_kernel(kernel, args[0])
        return None, None
    return rule


def check_low_precision(name, t):
    """Ops that refuse half precision before any kernel (``linalg.inv``, ``linalg.slogdet``)."""
    if t._data.dtype == np.float16:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got Half")


def check_matrix(name, t, square=True, arg="A"):
    """At least 2-D (and square): PyTorch's linalg messages. They come from the kernels'
    meta functions, after autograd has read the input's grad_fn: a stale view that may not
    regrow raises its own error first (fuzz seed 170: a split output, its base changed)."""
    if t.ndim < 2:
        stale_first(None, (t,))
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if square and t.shape[-1] != t.shape[-2]:
        stale_first(None, (t,))
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
                           f"{t.shape[-2]} by {t.shape[-1]} matrices")


def check_same_dtype(name, a, b, an="A", bn="B", stop="."):
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}: Expected {an} and {bn} to have the same dtype, but found "
                           f"{an} of type {type_name(a._data)} and {bn} of type "
                           f"{type_name(b._data)} instead{stop}")


def check_solve_inputs(b, A, solver):
    """PyTorch's linearSolveCheckInputs, in its order: the dtypes match, ``A`` is square,
    its size matches ``b``'s rows, the batch dims broadcast (triangular_solve,
    cholesky_solve)."""
    if b.dtype != A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{type_name(b._data)} and A of type {type_name(A._data)} instead.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if A.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for {solver}: each A matrix is "
                           f"{A.shape[-1]} by {A.shape[-1]} but each b matrix is {b.shape[-2]} "
                           f"by {b.shape[-1]}")
    from ..errors import broadcast_error
    err = broadcast_error([b.shape[:-2], A.shape[:-2]])
    if err is not None:
        raise err


def first_zero_pivot(a: np.ndarray) -> int:
    """LAPACK getrf's ``info``: the 1-based index of the first exactly-zero pivot of the LU
    factorization with partial pivoting (0 if none)."""
    u = np.array(a, dtype=np.float64)
    n = u.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if u[p, k] == 0:
            return k + 1
        if p != k:
            u[[k, p]] = u[[p, k]]
        u[k + 1:, k:] -= np.outer(u[k + 1:, k] / u[k, k], u[k, k:])
    return 0


def cholesky_lapack(a: np.ndarray):
    """``(L, info)`` of one matrix as PyTorch's LAPACK call leaves them: column by column
    (left-looking, as ``potf2``), ``info`` the order of the first leading minor that is not
    positive definite, a pivot ``<= 0`` or NaN (0 if none); on failure the columns before it
    factored, the failing pivot stored on the diagonal and the rest of the lower triangle as
    it was (PyTorch returns that, the other triangle zeroed). Used for the matrices NumPy's
    Cholesky refuses or factors into non-finite values (it goes on past a NaN pivot)."""
    w = np.tril(a)
    for j in range(w.shape[0]):
        row = w[j, :j]
        d = w[j, j] - row @ row
        w[j, j] = d
        if not d > 0:           # <= 0 or NaN
            return w, j + 1
        d = np.sqrt(d)
        w[j, j] = d
        w[j + 1:, j] = (w[j + 1:, j] - w[j + 1:, :j] @ row) / d
    return w, 0


def batch_info(a: np.ndarray, per_matrix) -> np.ndarray:
    """``per_matrix`` (a LAPACK info function) over the batch, as an int32 array."""
    flat = a.reshape((-1,) + a.shape[-2:])
    return np.array([per_matrix(m) for m in flat], dtype=np.int32).reshape(a.shape[:-2])


def raise_for_info(name, info: np.ndarray, message) -> None:
    """Raise ``LinAlgError`` for the first failed matrix, as PyTorch's check_errors does."""
    flat = info.reshape(-1)
    bad = np.nonzero(flat)[0]
    if not len(bad):
        return
    i = int(bad[0])
    where = f"(Batch element {i}): " if info.ndim else ""
    raise _LinAlgError(f"{name}: {where}{message(int(flat[i]))}")


def singular_message(i):
    return (f"The diagonal element {i} is zero, the inversion could not be completed because "
            f"the input matrix is singular.")


def not_pd_message(i):
    return (f"The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {i} is not positive-definite).")


def eye_like(t):
    """A constant identity matrix with ``t``'s last dim and dtype."""
    n = t._data.shape[-1]
    return _wrap(np.eye(n, dtype=t._data.dtype))


def tri_mask(n, dtype, upper=False, diagonal=0):
    """A constant 0/1 mask of the lower (or upper) triangle."""
    m = np.triu(np.ones((n, n), dtype=dtype), diagonal) if upper else \
        np.tril(np.ones((n, n), dtype=dtype), diagonal)
    return _wrap(m)


def getrs_adjoint(a: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``A^T X = D`` for one real square ``a`` as LAPACK's getrf + getrs do it, zero pivots
    included: partial-pivoting LU, then the triangular solves with U^T and L^T that skip
    zero entries of the right-hand side (BLAS trsm), then the row interchanges backwards.
    A singular ``a`` so gets PyTorch's infs and NaNs where a plain inverse would fail."""
    n = a.shape[0]
    lu = np.array(a, dtype=a.dtype)
    piv = np.arange(n)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for k in range(n):
            p = k + int(np.argmax(np.abs(lu[k:, k])))
            piv[k] = p
            if lu[p, k] != 0:
                if p != k:
                    lu[[k, p]] = lu[[p, k]]
                lu[k + 1:, k] /= lu[k, k]
            lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
        x = np.array(d, dtype=a.dtype)
        for j in range(x.shape[1]):
            b = x[:, j]
            for k in range(n):            # U^T y = b (forward)
                if b[k] != 0:
                    b[k] /= lu[k, k]
                    b[k + 1:] -= b[k] * lu[k, k + 1:]
            for k in range(n - 1, -1, -1):   # L^T z = y (backward, unit diagonal)
                if b[k] != 0:
                    b[:k] -= b[k] * lu[k, :k]
        for k in range(n - 1, -1, -1):
            if piv[k] != k:
                x[[k, piv[k]]] = x[[piv[k], k]]
    return x


# Note [gesdd scaling]
# LAPACK's sgesdd scales a matrix whose largest |entry| lies outside [smlnum, 1/smlnum]
# (smlnum = sqrt(FLT_MIN) / FLT_EPSILON, ~1.8e-12) into it with slascl, and the singular
# values back: two roundings, so a 1x1 matrix [a] of such a size has a singular value one
# ulp off |a| about a third of the time. PyTorch's (MKL) does; NumPy's float32 svd does not.
# Redoing the two slascl steps around NumPy's svd gives PyTorch's bits (linalg.cond of a 1x1
# float32 matrix). (float64: NumPy's dgesdd already agrees.)
_F32 = np.float32
_SAFMIN = _F32(np.finfo(np.float32).tiny)
_SMLNUM = _F32(np.sqrt(_SAFMIN) / np.finfo(np.float32).eps)
_BIGNUM = _F32(1) / _SMLNUM


def _slascl(a: np.ndarray, cfrom, cto) -> np.ndarray:
    """LAPACK's slascl: ``a * (cto / cfrom)`` in steps that neither overflow nor underflow."""
    small = _SAFMIN
    big = _F32(1) / small
    cfromc, ctoc = _F32(cfrom), _F32(cto)
    while True:
        cfrom1 = _F32(cfromc * small)
        if cfrom1 == cfromc:            # cfrom is inf
            mul, done = _F32(ctoc / cfromc), True
        else:
            cto1 = _F32(ctoc / big)
            if cto1 == ctoc:
                mul, done, cfromc = ctoc, True, _F32(1)
            elif abs(cfrom1) > abs(ctoc) and ctoc != 0:
                mul, done, cfromc = small, False, cfrom1
            elif abs(cto1) > abs(cfromc):
                mul, done, ctoc = big, False, cto1
            else:
                mul, done = _F32(ctoc / cfromc), True
                if mul == 1:
                    return a
        a = (a * mul).astype(_F32)
        if done:
            return a


def _svd32(A: np.ndarray, **kwargs):
    """``np.linalg.svd`` of finite float32 matrices, with sgesdd's value of a 1 x n matrix
    (Note [gesdd of a row] in linalg_gesdd_row.py)."""
    out = np.linalg.svd(A, **kwargs)
    if A.shape[-2] != 1 or not A.size:
        return out
    from .linalg_gesdd_row import row_singular_values
    S = row_singular_values(A)
    if isinstance(out, np.ndarray):
        return S
    return type(out)(out[0], S, out[2])


def _svd_scaled32(A: np.ndarray, **kwargs):
    """``np.linalg.svd`` of finite float32 matrices with sgesdd's scaling (Note [gesdd
    scaling])."""
    anrm = np.abs(A).max(axis=(-2, -1))
    odd = ((anrm > 0) & (anrm < _SMLNUM)) | (anrm > _BIGNUM)
    if not odd.any():
        return _svd32(A, **kwargs)
    flat = A.reshape((-1,) + A.shape[-2:]).copy()
    norms = anrm.reshape(-1)
    targets = {}
    for i in np.flatnonzero(odd.reshape(-1)):
        target = _SMLNUM if norms[i] < _SMLNUM else _BIGNUM
        targets[i] = target
        flat[i] = _slascl(flat[i], norms[i], target)
    out = _svd32(flat, **kwargs)
    S = out if isinstance(out, np.ndarray) else out[1]
    for i, target in targets.items():
        S[i] = _slascl(S[i], target, norms[i])
    if isinstance(out, np.ndarray):
        return S.reshape(A.shape[:-2] + S.shape[-1:])
    U, _, Vh = out
    return (U.reshape(A.shape[:-2] + U.shape[-2:]), S.reshape(A.shape[:-2] + S.shape[-1:]),
            Vh.reshape(A.shape[:-2] + Vh.shape[-2:]))


def np_svd(A: np.ndarray, **kwargs):
    """``np.linalg.svd`` with what PyTorch's (MKL) gesdd gives for non-finite matrices.

    NumPy's LAPACK (OpenBLAS) must never see one: on some matrices with infinite entries its
    gesdd / gelsd loop forever (``svd([[inf, 0, 0], [0, inf, 0], [0, 0, 1]])``), so only the
    finite matrices of a batch reach it. A NaN entry is PyTorch's error ``linalg.svd:
    [(Batch element i): ]The algorithm failed to converge ...``; infinite entries (no NaN) give
    the values and vectors of :func:`svd_infinite`."""
    if A.dtype == np.float16:   # (empty: the kernel refuses others) NumPy has no half linalg
        out = np_svd(A.astype(np.float32), **kwargs)
        return (out.astype(np.float16) if isinstance(out, np.ndarray)
                else type(out)(*(o.astype(np.float16) for o in out)))
    if np.isfinite(A).all():   # the common case: one pass, then LAPACK
        if A.dtype == np.float32 and A.size:
            return _svd_scaled32(A, **kwargs)
        return np.linalg.svd(A, **kwargs)
    finite = np.isfinite(A).all(axis=(-2, -1))
    nan = np.isnan(A).any(axis=(-2, -1))
    raise_for_info("linalg.svd", nan.astype(np.int32),
                   lambda i: "The algorithm failed to converge because the input matrix "
                             "contained non-finite values.")
    compute_uv = kwargs.get("compute_uv", True)
    full = kwargs.get("full_matrices", True)
    m, n = A.shape[-2:]
    k = min(m, n)
    batch = A.shape[:-2]
    flat = A.reshape((-1, m, n))
    ok = finite.reshape(-1)
    S = np.empty((flat.shape[0], k), A.dtype)
    if compute_uv:
        U = np.empty((flat.shape[0], m, m if full else k), A.dtype)
        Vh = np.empty((flat.shape[0], n if full else k, n), A.dtype)
    if ok.any():
        out = np.linalg.svd(flat[ok], **kwargs)
        if compute_uv:
            U[ok], S[ok], Vh[ok] = out
        else:
            S[ok] = out
    for i in np.nonzero(~ok)[0]:
        u, S[i], vh = svd_infinite(flat[i], full)
        if compute_uv:
            U[i], Vh[i] = u, vh
    S = S.reshape(batch + (k,))
    if not compute_uv:
        return S
    return U.reshape(batch + U.shape[-2:]), S, Vh.reshape(batch + Vh.shape[-2:])


def _bdsqr_sort(d) -> list:
    """The column order LAPACK's bdsqr leaves after sorting the singular values ``d``
    decreasingly: a selection sort that moves the smallest (``<=``) of ``d[:last+1]`` to
    ``last``, so NaN comparisons (always false) decide where NaN values end up."""
    d = list(d)
    order = list(range(len(d)))
    for last in range(len(d) - 1, 0, -1):
        isub = 0
        for j in range(1, last + 1):
            if d[j] <= d[isub]:
                isub = j
        if isub != last:
            d[isub], d[last] = d[last], d[isub]
            order[isub], order[last] = order[last], order[isub]
    return order


def svd_infinite(a: np.ndarray, full: bool = True):
    """``(U, S, Vh)`` of one matrix with infinite (no NaN) entries, as PyTorch's MKL gesdd.

    gesdd scales A by ``bignum / max|a_ij| = 0``: the infinite entries become NaN, the finite
    ones 0, and the singular values scaled back by ``inf`` are all NaN. For a square matrix
    whose infinities all lie on the diagonal the bidiagonal reduction is the identity, so
    U and Vh are the identity with their columns / rows in bdsqr's sorting order of the
    diagonal (NaN or 0). Elsewhere the NaN pattern of MKL's factors depends on its Householder
    internals (partly NaN factors, permutations, or an "ill-conditioned" LinAlgError on some
    patterns): leafgrad gives all-NaN U and Vh there (the singular values, and so svdvals,
    matrix_rank, the 2 / nuclear norms, cond and pinv's cutoff, agree)."""
    m, n = a.shape
    k = min(m, n)
    S = np.full(k, np.nan, a.dtype)
    mu, nv = (m, n) if full else (k, k)
    inf = np.isinf(a)
    diag = np.diagonal(inf).copy()
    if m == n and inf.sum() == diag.sum():
        order = _bdsqr_sort(np.where(diag, np.nan, 0.0))
        eye = np.eye(k, dtype=a.dtype)
        return eye[:, order], S, eye[order, :]
    return np.full((m, mu), np.nan, a.dtype), S, np.full((nv, n), np.nan, a.dtype)


LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _gels_rank_info(a: np.ndarray) -> int:
    """LAPACK gels' ``info`` for one matrix: 0 for an all-zero matrix (gels returns a zero
    solution), else the 1-based index of the first exactly-zero diagonal entry of the
    triangular factor of its QR (m >= n) or LQ (m < n) factorization (0 if none)."""
    if not a.any():
        return 0
    if not np.isfinite(a).all():   # (infinite entries: NaN ones raised before)
        packed = geqrf(lapack_scaled(a if a.shape[0] >= a.shape[1] else a.T))[0]
        zero = np.nonzero(np.diagonal(packed) == 0)[0]
        return int(zero[0]) + 1 if len(zero) else 0
    a = a if a.shape[0] >= a.shape[1] else a.T
    r = np.diagonal(np.linalg.qr(a, mode="r"))
    size = np.abs(r)
    if a.size <= _PLAIN_QR_SIZE and (size <= size.max() * _NEAR_ZERO).any():
        r = _householder_diagonal(a)    # nearly singular: its roundings decide
    zero = np.nonzero(r == 0)[0]
    return int(zero[0]) + 1 if len(zero) else 0


# Note [gels' rank check]: whether a diagonal entry of R is exactly zero depends on the last
# roundings of the factorization. NumPy's LAPACK (OpenBLAS) fuses the update's multiply-adds
# in its AVX-512 kernels and leaves a rounding-level residue on exactly singular matrices
# (``ones(2, 2)``) where PyTorch's (MKL) has an exact zero. For small nearly singular
# matrices the diagonal is recomputed here as LAPACK's unblocked Householder QR (dgeqr2:
# dlarfg with the scaled dnrm2 and dlapy2, as MKL's first column shows bit for bit, then
# dlarf's ``w = C^T v`` and ``C -= tau v w^T``, row after row, unfused) in the input's dtype:
# MKL's zeros on the singular matrices of the tests, on AVX2 and AVX-512 machines alike. Not
# MKL's exact roundings after the first column: on random small singular integer matrices
# the zero pattern still differs for about 1 in 15 (OpenBLAS's on AVX-512: 1 in 5).
_PLAIN_QR_SIZE = 1024
_NEAR_ZERO = 1e-4


def _nrm2(x, t):
    """Reference LAPACK's (pre-3.10) scaled two-norm: ``scale * sqrt(ssq)``."""
    scale, ssq = t(0), t(1)
    for e in np.abs(x).tolist():
        if e:
            e = t(e)
            if scale < e:
                ssq = t(1) + ssq * (scale / e) ** 2
                scale = e
            else:
                ssq = ssq + (e / scale) ** 2
    return t(scale * np.sqrt(ssq))


def _householder_diagonal(a: np.ndarray) -> np.ndarray:
    """The diagonal of R in the QR factorization of ``a`` (m >= n), as dgeqr2 computes it."""
    a = np.array(a, copy=True)
    t = a.dtype.type
    m, n = a.shape
    diag = np.empty(n, a.dtype)
    with np.errstate(all="ignore"):
        for k in range(n):
            alpha, x = a[k, k], a[k + 1:, k]
            xnorm = _nrm2(x, t)
            if xnorm == 0:
                diag[k] = alpha
                continue
            big, small = max(abs(alpha), xnorm), min(abs(alpha), xnorm)
            beta = t(-math.copysign(big * np.sqrt(t(1) + (small / big) ** 2), alpha))
            tau = (beta - alpha) / beta
            x *= t(1) / (alpha - beta)
            diag[k] = beta
            if k + 1 < n:
                c = a[k:, k + 1:]
                v = a[k:, k].copy()
                v[0] = 1
                w = np.zeros(c.shape[1], a.dtype)
                for i in range(c.shape[0]):
                    w += c[i] * v[i]
                w *= -tau
                for i in range(c.shape[0]):
                    c[i] += v[i] * w
    return diag


def lapack_scaled(a: np.ndarray) -> np.ndarray:
    """What MKL's least-squares and SVD drivers factor for a matrix with infinite entries:
    A scaled by ``bignum / max|a_ij| = 0``, NaN where A is infinite and 0 elsewhere."""
    return np.where(np.isinf(a), np.nan, 0).astype(a.dtype)


def check_lstsq_lapack(a: np.ndarray, b: np.ndarray, driver) -> None:
    """The errors PyTorch's LAPACK (MKL) ``linalg.lstsq`` raises after all its argument checks.

    MKL refuses NaN inputs as illegal arguments (A is argument 4, B argument 6 of gelsy, gelsd
    and gelss; 5 and 7 of gels), which PyTorch reports as a failed internal assert, and so
    gelsd an A with infinite entries (its scaling by ``bignum / inf``; on a few patterns MKL
    reports a failed SVD instead, which leafgrad does not model); gels
    refuses a rank-deficient A (exact zero on R's diagonal). ``b`` is a matrix (a vector B
    given its column). PyTorch loops over the broadcast batch but keeps one ``info`` per
    matrix of A's own batch, each written over by the later batch elements that share it;
    the first nonzero one is reported, naming its batch element when A has more than one."""
    if not a.size:
        return
    gels = driver == "gels"
    if driver == "gelsd" and not b.shape[-1] and b.size == 0 and np.prod(b.shape[:-2]):
        # MKL's gelsd refuses a B without columns (its dlalsd's argument 4), for each matrix
        _raise_lstsq_info(-4, a.shape[:-2])
    bad = (~np.isfinite(a)) if driver == "gelsd" else np.isnan(a)
    if not gels and not (bad.any() or np.isnan(b).any()):
        return   # the common case: one pass over each input
    a_batch = a.shape[:-2]
    batch = np.broadcast_shapes(a_batch, b.shape[:-2])
    bad_a = np.broadcast_to(bad.any(axis=(-2, -1)), batch).reshape(-1)
    bad_b = np.broadcast_to(np.isnan(b).any(axis=(-2, -1)), batch).reshape(-1)
    # where each broadcast element writes its info: its index in A's own batch
    n_a = int(np.prod(a_batch, dtype=np.int64))
    slot = np.broadcast_to(np.arange(n_a).reshape(a_batch), batch).reshape(-1)
    a_flat = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    info = np.zeros(n_a, dtype=np.int64)
    for i in range(bad_a.size):
        if bad_a[i]:
            code = -(5 if gels else 4)
        elif bad_b[i]:
            code = -(7 if gels else 6)
        else:
            code = _gels_rank_info(a_flat[i]) if gels else 0
        info[slot[i]] = code
    bad = np.nonzero(info)[0]
    if not len(bad):
        return
    i = int(bad[0])
    where = f"(Batch element {i}): " if info.size > 1 else ""
    if info[i] < 0:
        _raise_lstsq_info(int(info[i]), a_batch, i)
    raise _LinAlgError(f"torch.linalg.lstsq: {where}The least squares solution could not be "
                       f"computed because the input matrix does not have full rank (error "
                       f"code: {int(info[i])}).")


def _raise_lstsq_info(info: int, a_batch, i: int = 0):
    """PyTorch's failed assert for an illegal-argument ``info`` of its lstsq LAPACK call (the
    batch element named when A has more than one matrix)."""
    where = f"(Batch element {i}): " if int(np.prod(a_batch, dtype=np.int64)) > 1 else ""
    raise RuntimeError(
        f'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
        f'BatchLinearAlgebra.cpp":1613, please report a bug to PyTorch. torch.linalg.lstsq: '
        f'{where}Argument {-info} has illegal value. Most certainly there is a bug in '
        f'the implementation calling the backend library.')


def trsm(T: np.ndarray, B: np.ndarray, upper: bool, unit: bool = False,
         skip_zeros: bool = False) -> np.ndarray:
    """``X`` with ``T X = B`` as BLAS trsm computes it, reading only the ``upper`` (or lower)
    triangle of ``T`` (its diagonal taken as ones when ``unit``); the batches broadcast.

    A zero on the diagonal is not an error: substitution divides by it, so PyTorch's infs and
    NaNs come out (and a NaN or inf in T spreads only where substitution carries it). Finite
    inputs with a nonzero diagonal take LAPACK's solver, which gives the same values up to
    rounding. ``skip_zeros``: zero entries of the solution so far are not divided nor carried
    (0 / 0 and 0 * inf stay 0), as MKL's transposed solves (getrs with ``trans``) do."""
    T = np.triu(T) if upper else np.tril(T)
    n = T.shape[-1]
    if unit:
        T = T.copy()
        T[..., np.arange(n), np.arange(n)] = 1
    diag = np.diagonal(T, axis1=-2, axis2=-1)
    if diag.all() and np.isfinite(T).all() and np.isfinite(B).all():
        return np.linalg.solve(T, B)
    batch = np.broadcast_shapes(T.shape[:-2], B.shape[:-2])
    T = np.broadcast_to(T, batch + T.shape[-2:])
    X = np.array(np.broadcast_to(B, batch + B.shape[-2:]), dtype=np.result_type(T, B))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for k in (range(n - 1, -1, -1) if upper else range(n)):
            if not unit:
                q = X[..., k, :] / T[..., k, k, None]
                X[..., k, :] = np.where(X[..., k, :] != 0, q, X[..., k, :]) if skip_zeros else q
            rest = slice(0, k) if upper else slice(k + 1, n)
            step = T[..., rest, k, None] * X[..., k, None, :]
            if skip_zeros:
                step = np.where(X[..., k, None, :] != 0, step, 0)
            X[..., rest, :] -= step
    return X


def lapack_layout(a):
    """``a`` with each matrix column-major and the batch dims row-major: the layout of
    PyTorch's LAPACK results (``inv(A).stride() == (1, n)``), so strides, ``is_contiguous``,
    ``view`` errors (refused), ``reshape``'s node (ReshapeAliasBackward0), whether
    ``contiguous`` copies, and the rounding of products that read them agree. A result solved
    from the right (``left=False``) is the transpose of one, so row-major."""
    if a.ndim < 2:
        return a
    if not a.size:   # NumPy gives an empty array zero strides: set PyTorch's explicitly
        m, n = a.shape[-2:]
        inner = [a.itemsize, a.itemsize * max(m, 1)]
        step = a.itemsize * max(m, 1) * max(n, 1)
        batch = []
        for size in reversed(a.shape[:-2]):
            batch.append(step)
            step *= max(size, 1)
        return np.lib.stride_tricks.as_strided(np.empty(a.shape, a.dtype), a.shape,
                                               tuple(reversed(batch)) + tuple(inner))
    # written into a fresh transposed buffer: its strides are exact even along size-1 dims
    # (a (3, 1) result has strides (1, 3), where NumPy would keep a C array's (1, 1))
    out = np.swapaxes(np.empty(a.shape[:-2] + (a.shape[-1], a.shape[-2]), a.dtype), -1, -2)
    out[...] = a
    return out
