"""What is built on the spectral decompositions: ``linalg.pinv`` / ``pinverse``,
``linalg.lstsq``, ``linalg.matrix_rank``, ``linalg.matrix_norm`` (and ``linalg.norm``'s
matrix orders), ``linalg.cond``.

Split from linalg_spectral.py (svd, eigh, qr), whose ``svdvals`` these use; derivative
formulas are written with leafgrad ops, so second derivatives work.

>>> import leafgrad as torch
>>> torch.linalg.matrix_rank(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
tensor(1)
"""
from __future__ import annotations

import math

import numpy as np

from .registry import defop, export_function, bind_method, Sample
from .backward_ops import keep_none
from .linalg import matmul
from .linalg_common import (lapack_layout, check_float, check_matrix, check_low_precision, np_svd, type_name,
                            check_lstsq_lapack, LSTSQ_DRIVERS, lapack_scaled)
from .householder import geqrf
from .linalg_spectral import svdvals
from ..autograd.graph import sum_to
from ..errors import broadcast_error
from ..tensor import Tensor, _wrap
from .. import return_types as _rt

FAMILY = "linalg"

lstsq_type = _rt._make("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


# -- pinv ----------------------------------------------------------------------------------------
def linalg_pinv(self, atol=None, rtol=None, hermitian=False):
    """The pseudo-inverse: singular values below ``max(atol, rtol * s_max)`` are dropped."""
    m, n = self.shape[-2:]
    U, S, Vh = np_svd(self, full_matrices=False)
    if atol is None and rtol is None:
        rtol = np.finfo(self.dtype).eps * max(m, n)
    smax = S[..., :1] if S.shape[-1] else np.zeros(S.shape[:-1] + (1,), S.dtype)
    cutoff = np.maximum(atol or 0.0, (rtol or 0.0) * smax)
    keep = S > cutoff
    sinv = np.where(keep, 1 / np.where(keep, S, 1), 0).astype(self.dtype)
    return np.swapaxes(Vh, -1, -2) @ (sinv[..., :, None] * np.swapaxes(U, -1, -2))


def linalg_pinv_self(grad, self, result):
    """PyTorch's pinv_backward, op for op (its graph under create_graph), in the order that
    keeps the products smallest: K = G^T P (m <= n) or P G^T (m > n)."""
    A, P = self, result
    m, n = A._data.shape[-2:]
    Ph, Gh = P.mT, grad.mT
    if m <= n:
        K = matmul(Gh, P)
        KPh = matmul(K, Ph)
        return (-matmul(P, K).mT + KPh - matmul(matmul(A, P), KPh)
                + matmul(matmul(Ph, P), Gh - matmul(K, A)))
    K = matmul(P, Gh)
    PhK = matmul(Ph, K)
    return (-matmul(K, P).mT + matmul(matmul(Gh - matmul(A, K), P), Ph) + PhK
            - matmul(matmul(PhK, P), A))


_pinv = defop("linalg_pinv", linalg_pinv, derivatives={"self": linalg_pinv_self},
              dtype="same", methods=(), functions=(), family=FAMILY,
              samples=lambda make, shapes: [
                  Sample((make((3, 3)),), call="linalg.pinv"),
                  Sample((make((4, 2)),), call="linalg.pinv"),
                  Sample((make((2, 2, 3)),), call="pinverse")])


def _checked_pinv(A):
    """PyTorch's one pinv message for both a vector and a non-float dtype."""
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg.pinv(): argument 'A' (position 1) must be Tensor, not "
                        f"{type(A).__name__}")
    if A.ndim < 2 or A._data.dtype not in (np.float32, np.float64):
        dims = ", ".join(str(s) for s in A.shape)
        raise RuntimeError(f"linalg.pinv({type_name(A._data)}{{[{dims}]}}): expected a tensor "
                           f"with 2 or more dimensions of float, double, cfloat or cdouble "
                           f"types")


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """``torch.linalg.pinv``."""
    _checked_pinv(A)
    return _pinv.public(A, atol, rtol, hermitian)


def pinverse(input, rcond=1e-15):
    """``torch.pinverse``: ``linalg.pinv`` with ``rtol=rcond``."""
    _checked_pinv(input)
    return _pinv.public(input, None, rcond, False)


# -- lstsq, matrix_rank --------------------------------------------------------------------------
def _wants_residuals(A_shape, driver):
    return driver in ("gelsd", "gelss", "gels") and A_shape[-2] > A_shape[-1]


def _gels_solve(a, b):
    """gels' solution: through the QR factorization of ``a`` (m >= n) or of its transpose
    (m < n, the minimum-norm solution); ``a`` has full rank (checked) or is all zeros, whose
    solution gels sets to zeros."""
    zero = ~a.any(axis=(-2, -1))
    # an infinite entry (full rank: checked) leaves NaN everywhere after MKL's scaling by 0
    inf = ~np.isfinite(a).all(axis=(-2, -1))
    if zero.any() or inf.any():
        a = np.where((zero | inf)[..., None, None], _eye_rect(a.shape[-2:], a.dtype), a)
    if a.shape[-2] >= a.shape[-1]:
        q, r = np.linalg.qr(a)
        x = np.linalg.solve(r, np.swapaxes(q, -1, -2) @ b)
    else:
        q, r = np.linalg.qr(np.swapaxes(a, -1, -2))
        x = q @ np.linalg.solve(np.swapaxes(r, -1, -2), b)
    if zero.any():
        x = np.where(zero[..., None, None], 0, x)
    return np.where(inf[..., None, None], np.nan, x) if inf.any() else x


def _gelsy(a, b, rcond):
    """``(X, rank)`` as PyTorch's gelsy call gives them. PyTorch's pivot array makes every
    column a leading one, so the QR has no column pivoting: the rank is the largest ``k``
    whose leading ``k x k`` block of R has a condition number below ``1 / rcond`` (LAPACK
    estimates it incrementally; a zero first pivot is rank 0), and the solution is the
    minimum-norm one of the first ``rank`` rows of ``R X = Q^T b``. ``b`` is a matrix; the
    batches broadcast."""
    m, n = a.shape[-2:]
    if rcond is None or rcond < 0:
        rcond = np.finfo(a.dtype).eps * max(m, n)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a_flat = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1, m, n))
    b_flat = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    X = np.zeros((a_flat.shape[0], n, b.shape[-1]), dtype=a.dtype)
    ranks = np.zeros(a_flat.shape[0], dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i, (ai, bi) in enumerate(zip(a_flat, b_flat)):
            if not np.isfinite(ai).all():   # (NaN raised before) never LAPACK: it may hang
                ranks[i], X[i] = _gelsy_infinite(ai, bi.shape[-1])
                continue
            q, r = np.linalg.qr(ai)
            rank = 0
            for k in range(1, min(m, n) + 1):
                s = np.linalg.svd(r[:k, :k], compute_uv=False)
                if not s[-1] > rcond * s[0]:   # (NaN: not full rank either)
                    break
                rank = k
            ranks[i] = rank
            if not np.isfinite(bi).all():
                X[i] = np.nan   # gelsy scales B by its norm: an inf spoils every column
            elif rank:
                c = q[:, :rank].T @ bi
                X[i] = np.linalg.lstsq(r[:rank], c, rcond=None)[0]
    return X.reshape(batch + X.shape[-2:]), ranks.reshape(batch)


def _gelsy_infinite(a, k):
    """``(rank, X)`` of gelsy for one matrix with infinite entries: MKL scales A by 0 (NaN
    where infinite, 0 elsewhere: :func:`lapack_scaled`) and factors it with its QR, which
    spreads a NaN down whole columns (householder.geqrf). A zero first pivot is rank 0 and a
    zero solution; a NaN one is rank 1 (every condition estimate after it is NaN), whose
    solution row is NaN, and every row is when the rest of R's first row is not zero."""
    R = geqrf(lapack_scaled(a))[0]
    X = np.zeros((a.shape[-1], k), a.dtype)
    if R[0, 0] == 0:
        return 0, X
    X[0] = np.nan
    if (R[0, 1:] != 0).any():
        X[:] = np.nan
    return 1, X


def _eye_rect(shape, dtype):
    return np.eye(shape[0], shape[1], dtype=dtype)


def lstsq_batch(A_shape, b_shape):
    """PyTorch's broadcast batch of ``linalg.lstsq``: A's batch against B's shape less its
    last dim when B has one dim fewer (a vector B, or a matrix B whose leading dims then
    broadcast against A's batch *and* its own row count), else less its last two."""
    b_batch = tuple(b_shape[:-1]) if len(A_shape) - len(b_shape) == 1 else tuple(b_shape[:-2])
    return tuple(np.broadcast_shapes(tuple(A_shape[:-2]), b_batch))


def linalg_lstsq(self, b, rcond=None, driver=None):
    """``[solution, residuals]``: ``pinv(self) @ b`` (b a matrix: ``..., m, k``) and, for
    the drivers that report them, the squared residual norms of each column. A vector b
    (self's shape less its last dim) gives a vector solution, in this same node like PyTorch.
    Both are first broadcast to PyTorch's batch (``lstsq_batch``), which the public function
    has checked."""
    vector = _is_vector(self, b)
    if vector:
        b = b[..., None]
    m, n = self.shape[-2:]
    k = b.shape[-1]
    batch = lstsq_batch(self.shape, b.shape[:-1] if vector else b.shape)
    own = self
    self = np.broadcast_to(self, batch + (m, n))
    b = np.broadcast_to(b, batch + (m, k))
    if not self.size or not b.size:
        X = np.zeros(batch + (n, k), self.dtype)   # LAPACK's quick return: B's buffer zeroed
    elif driver == "gels":
        X = _gels_solve(self, b)   # full rank (checked): no cutoff of small singular values
    elif driver in (None, "gelsy"):
        X = _gelsy(self, b, rcond)[0]
    else:
        X = linalg_pinv(self, None, rcond) @ b
    resid = np.zeros((0,), self.dtype)
    if driver == "gels" and _wants_residuals(self.shape, driver):
        # no rank test: gels zeroes B (so the residual too) for an all-zero matrix
        r = self @ X - b
        resid = np.where(self.any(axis=(-2, -1))[..., None], (r * r).sum(-2), 0)
    elif _wants_residuals(self.shape, driver) and (self.size or not own.size):
        # (an empty broadcast batch of a non-empty A: PyTorch tests its never-written ranks)
        # only when every matrix has full rank n (an empty batch: vacuously)
        S = np_svd(own, compute_uv=False)
        if not n or (S[..., -1] > np.finfo(self.dtype).eps * max(m, n) * S[..., 0]).all():
            r = self @ X - b
            resid = (r * r).sum(-2)
    X = _lstsq_layout(X, m)
    return [X[..., 0] if vector else X, resid]


def _lstsq_layout(X, m):
    """LAPACK's gels* solve over B: the solution is the first ``n`` rows of a column-major
    ``max(m, n) x k`` buffer, its batch row-major around it (what PyTorch's strides show,
    an empty buffer's too: its sizes counted as at least 1)."""
    n, k = X.shape[-2:]
    rows = max(m, n)
    if not X.size:
        strides, step = [1, rows], rows * max(k, 1)
        for size in reversed(X.shape[:-2]):
            strides.insert(0, step)
            step *= max(size, 1)
        return np.lib.stride_tricks.as_strided(np.zeros(1, X.dtype), X.shape,
                                               tuple(s * X.itemsize for s in strides))
    buf = np.zeros(X.shape[:-2] + (k, rows), X.dtype)
    buf[..., :n] = np.swapaxes(X, -1, -2)
    return np.swapaxes(buf, -1, -2)[..., :n, :]


def _is_vector(A, b):
    """PyTorch's vector case: b has A's shape less its last dim (any other b of one dim fewer
    is a matrix, its batch broadcast with A's)."""
    return tuple(b.shape) == tuple(A.shape[:-1])


def _mul_scalar(t, c):
    from .registry import RECORDS
    return RECORDS["mul_scalar"].public(t, c)


def linalg_lstsq_backward(grads, self, b, result, rcond, output_mask):
    """PyTorch's linalg_lstsq_backward, one formula for both (Note [Joint formulas] in
    autograd/graph.py): the solution's parts through one pseudo-inverse, then the residuals'
    parts (Danskin: as if X did not move) through one residual ``A X - B``; both gradients'
    create_graph graphs share those nodes."""
    vector = _is_vector(self, b)
    B = b.unsqueeze(-1) if vector else b
    gX, gL = grads[0], grads[1]
    has_gL = gL is not None and gL._data.size
    if (gX is None and not has_gL) or not (output_mask[0] or output_mask[1]):
        return None, None
    gA = gb = None
    if gX is not None:   # the solution's part
        gX = gX.unsqueeze(-1) if vector else gX
        P = _pinv.public(self)
        if output_mask[0]:
            gA = linalg_pinv_self(matmul(gX, B.mT), self, P)
        if output_mask[1]:
            gb = matmul(P.mT, gX)
            gb = gb.squeeze(-1) if vector else gb
    if has_gL:   # the residuals' part
        X = result.unsqueeze(-1) if vector else result
        r = matmul(self, X) - B
        gL = gL.unsqueeze(-2)
        if output_mask[0]:
            part = _mul_scalar(matmul(gL * r, X.mT), 2)
            gA = part if gA is None else gA + part
        if output_mask[1]:
            part = _mul_scalar(gL, -2) * r
            part = part.squeeze(-1) if vector else part
            gb = part if gb is None else gb + part
    return (None if gA is None else sum_to(gA, self._data.shape),
            None if gb is None else sum_to(gb, b._data.shape))


_lstsq = defop("linalg_lstsq", linalg_lstsq, inputs=("self", "b"),
               derivatives={("self", "b"): linalg_lstsq_backward}, dtype="same",
               n_outputs=2, materialize=keep_none, methods=(), functions=(),
               family=FAMILY,
               samples=lambda make, shapes: [
                   Sample((make((4, 3)), make((4, 2))), call="linalg.lstsq"),
                   Sample((make((5, 2)), make((5, 2))), {"driver": "gelsd"},
                          call="linalg.lstsq"),
                   Sample((make((2, 3, 3)) + 3 * np.eye(3), make((2, 3, 1))),
                          call="linalg.lstsq")])
_lstsq.node_class.n_outputs = 2


def _check_float_or_double(A):
    if A._data.dtype not in (np.float32, np.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")


def lstsq(A, B, rcond=None, *, driver=None):
    """``torch.linalg.lstsq``: ``(solution, residuals, rank, singular_values)``."""
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got input's dtype {type_name(A._data)} and other's "
                           f"dtype {type_name(B._data)}")
    if A.ndim < B.ndim or A.ndim - B.ndim > 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1")
    # PyTorch's order: B is a vector (or batch of them) only when it is 1-D or A's shape less
    # its last dim, which names the size check; then the dtype; then the batches broadcast
    # with B's one extra dim added whenever it has one dim fewer (checked so; B is then
    # solved as a matrix)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if A.shape[-2] != B.shape[-1 if vector else -2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match "
                           f"other.size({-1 if vector else -2})")
    if driver is not None and driver not in LSTSQ_DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of "
                           "(gels, gelsy, gelsd, gelss)")
    _check_float_or_double(A)
    b_batch = tuple(B.shape[:-1]) if A.ndim - B.ndim == 1 else tuple(B.shape[:-2])
    if b_batch != tuple(A.shape[:-2]):
        error = broadcast_error([A.shape[:-2], b_batch])
        if error is not None:
            raise error
    # PyTorch copies B (a vector given its column) into the first m rows of its solution
    # buffer, of the broadcast batch: a copy that can fail when B's own leading dims (its
    # batch, counted from its row dim) do not fit that batch
    m, k = A.shape[-2], 1 if vector else B.shape[-1]
    B2 = B._data[..., None] if vector else B._data
    rows = lstsq_batch(A.shape, B.shape) + (m, k)
    if B2.shape != rows:
        error = broadcast_error([rows, B2.shape])
        if error is not None:
            raise error
        full = np.broadcast_shapes(rows, B2.shape)
        if full != rows:
            raise RuntimeError(f"output with shape {list(rows)} doesn't match the broadcast "
                               f"shape {list(full)}")
    check_lstsq_lapack(A._data, np.broadcast_to(B2, rows), driver)
    X, resid = _lstsq.public(A, B, rcond, driver)
    if driver in (None, "gelsy"):   # (A's own batch: PyTorch keeps one rank per matrix of A)
        # gelsy's quick return (no column of B, or an empty A) leaves the rank 0
        rank = _wrap(_gelsy(A._data, np.zeros(A.shape[:-1] + (1,), A._data.dtype),
                            rcond)[1] if A.numel() and k else np.zeros(A.shape[:-2], np.int64))
    elif driver in ("gelsd", "gelss"):
        rank = matrix_rank(A)
    else:
        rank = _wrap(np.zeros((0,), np.int64))
    sv = svdvals(A.detach()) if driver in ("gelsd", "gelss") else \
        _wrap(np.zeros((0,), A._data.dtype))
    if driver in ("gelsd", "gelss") and not np.prod(rows[:-2]) and A.numel():
        sv = _wrap(np.zeros(sv.shape, A._data.dtype))   # no matrix solved: the zeroed buffer
    return lstsq_type((X, resid, rank, sv))


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """Number of singular values above ``max(atol, rtol * s_max)`` (int64, no gradient)."""
    check_matrix("torch.linalg.matrix_rank", A, square=False, arg="input")
    _check_float_or_double(A)
    a = A._data
    S = np_svd(a, compute_uv=False)
    if atol is None and rtol is None:
        rtol = np.finfo(a.dtype).eps * max(a.shape[-2:])
    smax = S[..., :1] if S.shape[-1] else np.zeros(S.shape[:-1] + (1,), S.dtype)
    cutoff = np.maximum(atol or 0.0, (rtol or 0.0) * smax)
    rank = _wrap(np.asarray((S > cutoff).sum(-1), dtype=np.int64))
    rank._vc[0] = 1   # PyTorch counts into its output in place: the result is at version 1
    return rank


# -- matrix norms --------------------------------------------------------------------------------
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """``torch.linalg.matrix_norm``: ``'fro'``, ``'nuc'``, ``inf``, ``-inf``, 1, -1, 2, -2."""
    from .norms import vector_norm
    check_matrix("linalg.matrix_norm", A, square=False)
    if dtype is not None:
        A = A.to(dtype)
    check_float("linalg.matrix_norm", A)
    if ord == "nuc" or ord in (2, -2):
        check_low_precision("linalg.matrix_norm", A)
    d0, d1 = (d % A.ndim for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord == "nuc" or ord in (2, -2):
        B = A.movedim((d0, d1), (-2, -1))
        S = svdvals(B)
        if ord == "nuc":
            out = S.sum(-1, keepdim=keepdim)
        else:
            out = _amax_or_zero(S, -1, keepdim) if ord == 2 else S.amin(-1, keepdim=keepdim)
        if keepdim:   # as PyTorch: the reduction keeps one dim, one more, both moved back
            out = out.unsqueeze(-1).movedim((-2, -1), (d0, d1))
        return out
    if ord in (1, -1, math.inf, -math.inf):
        if ord in (math.inf, -math.inf):
            d0, d1 = d1, d0
        if not keepdim and d0 < d1:
            d1 -= 1
        s = A.abs().sum(d0, keepdim=keepdim)
        return _amax_or_zero(s, d1, keepdim) if ord > 0 else s.amin(d1, keepdim=keepdim)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def _amax_or_zero(t, dim, keepdim):
    """``t.amax(dim)``, but PyTorch's matrix_norm fills zeros (in place: version 1, no graph)
    where the max is over an empty dim (amin raises as usual)."""
    if t.shape[dim] != 0:
        return t.amax(dim, keepdim=keepdim)
    shape = list(t.shape)
    if keepdim:
        shape[dim] = 1
    else:
        del shape[dim]
    out = _wrap(np.zeros(shape, t._data.dtype))
    out._vc[0] = 1
    return out


def _cond_invalid(p):
    shown = p if isinstance(p, str) else f"{float(p):g}"
    return RuntimeError(f"linalg.cond got an invalid norm type: {shown}")


def _cond_ord_name(p):
    """How PyTorch writes a number ord in its square check: an int (or bool) as one,
    a float with six decimals, infinities as inf."""
    if isinstance(p, (bool, int)):
        return str(int(p))
    return ("-inf" if p < 0 else "inf") if math.isinf(p) else f"{p:f}"


def cond(A, p=None, *, out=None):
    """``torch.linalg.cond``: ``s_max / s_min`` (2-norm) or ``norm(A) * norm(inv(A))``.

    PyTorch's order: a number ord checks the rank, the ord, an empty input (zeros), and
    only the ±1/±inf norms need square matrices; a string ord checks rank and squareness
    first, then the ord."""
    if isinstance(p, str):
        check_matrix(f"linalg.cond(ord={p})", A)
        if p != "fro" and p != "nuc":
            raise _cond_invalid(p)
    else:
        if A.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
        if p is not None and abs(float(p)) not in (1.0, 2.0, math.inf):
            raise _cond_invalid(p)
    if A._data.size == 0:   # NumPy leaves 0x0 undefined; PyTorch gives zeros, no history
        out = _wrap(np.zeros(A.shape[:-2], A._data.dtype))
        out._vc[0] = 1   # (PyTorch fills them in place)
        return out
    if p is None or p in (2, -2):
        S = svdvals(A)
        big, small = S[..., :1], S[..., -1:]
        return (big / small if p != -2 else small / big).squeeze(-1)
    if p == "nuc":
        S = svdvals(A)
        return S.sum(-1) * S.reciprocal().sum(-1)
    if p != "fro":
        check_matrix(f"linalg.cond(ord={_cond_ord_name(p)})", A)
    # PyTorch inverts with inv_ex (no error), fills the inverses of singular matrices with inf
    # IN PLACE (so, as in PyTorch, backward through this path fails: inv_ex saved its output)
    # and cleans the product in place (version 1)
    from .linalg_decomp import inv_ex
    inverse, info = inv_ex(A)
    inverse.masked_fill_(info.unsqueeze(-1).unsqueeze(-1) > 0, math.inf)
    return (matrix_norm(A, p) * matrix_norm(inverse, p)).nan_to_num_(
        nan=math.inf, posinf=math.inf, neginf=-math.inf)

export_function("pinverse", pinverse)
bind_method("pinverse", pinverse)
