"""Householder QR as PyTorch's LAPACK (MKL) runs it, for matrices with NaN or inf entries.

NumPy's QR (OpenBLAS) and PyTorch's (MKL) agree on finite matrices up to rounding, but spread a
NaN differently, and the NaN pattern of Q and R is visible. What MKL's ``geqrf`` / ``orgqr`` do,
as observed from PyTorch:

- ``geqrf`` applies each reflector ``H = I - tau v v^T`` to the trailing columns even when
  ``tau == 0`` (a zero column below the diagonal): ``w = v^T C`` then ``C -= tau v w^T``, so a
  NaN anywhere in ``C``'s column spreads to the whole column (``0 * NaN``).
- ``larfg``'s norm ``lapy2(alpha, xnorm)`` takes ``max``/``min`` with x86 semantics (the second
  operand when either is NaN): ``lapy2(NaN, 2) = 2*sqrt(2)`` but ``lapy2(1, NaN) = NaN``; the
  sign of ``beta`` is ``-sign(alpha)``, positive for a NaN alpha.
- ``nrm2`` is the classic scaled sum of squares: NaN for a NaN entry or for two infinite ones
  (``inf / inf``), inf for one.
- ``orgqr`` applies reflectors as reference ``larf``: none for ``tau == 0``, and only to the
  rows up to ``v``'s last nonzero and the columns up to the last nonzero one of those rows
  (NaN counts as nonzero), so ``0 * inf`` NaNs stay out of untouched columns.

Only matrices with non-finite entries come here (a loop over columns, in the input's dtype).
"""
from __future__ import annotations

import math

import numpy as np


def _lapy2(x: float, y: float) -> float:
    xa, ya = abs(x), abs(y)
    w = xa if xa > ya else ya     # maxsd / minsd: the second operand when either is NaN
    z = xa if xa < ya else ya
    if z == 0.0:
        return w
    return w * math.sqrt(1.0 + (z / w) ** 2)


def _nrm2(x: np.ndarray):
    big = np.isinf(x)
    if np.isnan(x).any() or big.sum() > 1:
        return x.dtype.type(np.nan)
    if big.any():
        return x.dtype.type(np.inf)
    return np.sqrt(np.dot(x, x))


def _larf(tau, v: np.ndarray, C: np.ndarray) -> None:
    """``C = (I - tau v v^T) C`` in place, as reference LAPACK's ``larf`` (see above)."""
    if tau == 0:
        return
    nz = np.nonzero(v != 0)[0]
    lastv = int(nz[-1]) + 1 if nz.size else 0
    cols = np.nonzero((C[:lastv] != 0).any(axis=0))[0]
    lastc = int(cols[-1]) + 1 if cols.size else 0
    if lastv and lastc:
        vv, cc = v[:lastv], C[:lastv, :lastc]
        C[:lastv, :lastc] = cc - tau * np.outer(vv, vv @ cc)


def geqrf(a: np.ndarray):
    """``(packed, taus)``: R in the upper triangle, the reflectors' vectors below it."""
    A = np.array(a, copy=True)
    m, n = A.shape
    one = A.dtype.type(1)
    taus = []
    with np.errstate(all="ignore"):
        for j in range(min(m, n)):
            alpha = A[j, j]
            x = A[j + 1:, j]
            xnorm = _nrm2(x) if x.size else 0.0
            if not x.size or xnorm == 0:
                tau = A.dtype.type(0)
            else:
                nrm = A.dtype.type(_lapy2(float(alpha), float(xnorm)))
                beta = nrm if math.isnan(alpha) else -np.copysign(nrm, alpha)
                tau = (beta - alpha) / beta
                A[j + 1:, j] = x * (one / (alpha - beta))
                A[j, j] = beta
            taus.append(tau)
            if j < n - 1:
                v = np.concatenate([[one], A[j + 1:, j]]).astype(A.dtype)
                C = A[j:, j + 1:]
                A[j:, j + 1:] = C - tau * np.outer(v, v @ C)
    return A, taus


def orgqr(packed: np.ndarray, taus, ncols: int) -> np.ndarray:
    """The first ``ncols`` columns of ``Q = H_0 H_1 ... H_{k-1}`` (``org2r``)."""
    m, n = packed.shape
    k = len(taus)
    Q = np.zeros((m, ncols), packed.dtype)
    Q[:, :min(n, ncols)] = packed[:, :min(n, ncols)]
    with np.errstate(all="ignore"):
        for j in range(k, ncols):
            Q[:, j] = 0
            Q[j, j] = 1
        for i in range(k - 1, -1, -1):
            tau = taus[i]
            if i < ncols - 1:
                Q[i, i] = 1
                _larf(tau, Q[i:, i].copy(), Q[i:, i + 1:])
            if i < m - 1:
                Q[i + 1:, i] = -tau * Q[i + 1:, i]
            Q[i, i] = 1 - tau
            Q[:i, i] = 0
    return Q


def qr_nonfinite(a: np.ndarray, mode: str):
    """``(Q, R)`` of one matrix as ``torch.linalg.qr`` (``Q`` None for mode 'r')."""
    m, n = a.shape
    packed, taus = geqrf(a)
    rows = m if mode == "complete" else min(m, n)
    R = np.triu(packed[:rows, :])
    if mode == "r":
        return None, R
    return orgqr(packed, taus, m if mode == "complete" else min(m, n)), R
