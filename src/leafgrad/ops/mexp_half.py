"""``torch.linalg.matrix_exp`` of float16 matrices, as PyTorch 2.13's CPU kernel computes them.

PyTorch runs a half matrix through the double-precision branch of its Taylor scheme (Bader,
Blanes & Casas 2019): the degree is picked by the 1-norm against the double thresholds (compared
in half), and the scaled matrix goes through polynomials of degree 1, 2, 4, 8, 12 or 18, all in
half. The coefficient tables of degrees 4 and up are C arrays of doubles handed to ``from_blob``
with the tensor's dtype, so a half matrix reads the *bytes* of those doubles as halfs: its
polynomials use those reinterpreted numbers (some in the thousands), which is why PyTorch's half
results are often inf. This module reproduces that bit for bit:

- a matrix product rounds each dot product once to half (float32 accumulation, in order);
- ``_compute_linear_combination`` accumulates ``out += in[j] * coef[j]``, each step rounded to
  half;
- other elementwise steps are computed in float32 and rounded to half.

Matrices with inf or NaN are left to the caller (PyTorch gives NaN there).
"""
from __future__ import annotations

import math

import numpy as np

_H, _F = np.float16, np.float32

# the coefficient tables of PyTorch's degree-12 and degree-18 polynomials (doubles)
_B12 = np.array([
    [9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740],
    [5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031,
     0.01108844528519167989],
    [0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968,
     0.00610700528898058230],
    [-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079,
     -0.00675951846863086359]])
_B18 = np.array([
    [0., -1.00365581030144618291e-01, -8.02924648241156932449e-03,
     -8.92138498045729985177e-04, 0.],
    [0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
     -6.37898194594723280150e-04],
    [-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
     -6.98210122488052056106e-03, 3.34975017086070470649e-05],
    [-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
     2.95552570429315521194e-02, -1.39180257516060693404e-05],
    [0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02,
     -1.40086798182036094347e-05]])
# the 1-norm bounds of degrees 1, 2, 4, 8, 12, 18 (double branch)
_THETAS = (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
           4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00)


def _as_half_blob(values, n: int) -> np.ndarray:
    """The first ``n`` halfs of the bytes of a double array (``from_blob`` with dtype Half)."""
    return np.frombuffer(np.asarray(values, np.float64).tobytes()[:2 * n], dtype=_H)


def _mm(a, b):
    acc = np.zeros(a.shape[:-1] + b.shape[-1:], _F)
    a32, b32 = a.astype(_F), b.astype(_F)
    for k in range(a.shape[-1]):
        acc = acc + a32[:, k:k + 1] * b32[k:k + 1, :]
    return acc.astype(_H)


def _add(a, b):
    return (a.astype(_F) + b.astype(_F)).astype(_H)


def _lincomb(mats, coefs):
    out = np.zeros_like(mats[0])
    for m, c in zip(mats, coefs):
        out = _add(out, (m.astype(_F) * _F(c)).astype(_H))
    return out


def _powers(A, n):
    """The first ``n`` of ``I, A, A^2, A^3, A^6``."""
    P = [np.eye(A.shape[-1], dtype=_H), A]
    if n > 2:
        P.append(_mm(A, A))
    if n > 3:
        P.append(_mm(A, P[2]))
    if n > 4:
        P.append(_mm(P[3], P[3]))
    return P[:n]


def _t1(A):
    P = _powers(A, 2)
    return _add(P[0], P[1])


def _t2(A):
    P = _powers(A, 3)
    return _add(_add(P[0], P[1]), (P[2].astype(_F) / _F(2)).astype(_H))


def _t4(A):
    P = _powers(A, 3)
    P.append(_mm(P[2], _lincomb(P, _as_half_blob([1 / 2.0, 1 / 6.0, 1 / 24.0], 3))))
    return _lincomb(P, _as_half_blob([1.0, 1.0, 0.0, 1.0], 4))


def _t8(A):
    r = 0.1330413469565007072504e+2   # sqrt(177)
    x3 = 2. / 3.
    x1, x2 = x3 * ((1. + r) / 88.), x3 * ((1. + r) / 352.)
    x4, x5 = (-271. + 29. * r) / (315. * x3), (-11. + 11. * r) / (1260. * x3)
    x6, x7 = (-99. + 11. * r) / (5040. * x3), (89. - r) / (5040. * x3)
    y2 = (857. - 58. * r) / 630.
    P = _powers(A, 3)
    P.append(_mm(P[2], _lincomb(P[1:3], _as_half_blob([x1, x2], 2))))
    P.append(_mm(_lincomb(P[2:4], _as_half_blob([x3, 1.0], 2)),
                 _lincomb(P[0:4], _as_half_blob([x4, x5, x6, x7], 4))))
    return _lincomb(P, _as_half_blob([1.0, 1.0, y2, 0.0, 1.0], 5))


def _t12(A):
    bs = _as_half_blob(_B12, 16).reshape(4, 4)
    P = _powers(A, 4)
    B = [_lincomb(P, row) for row in bs]
    B[2] = _add(B[2], _mm(B[3], B[3]))
    B[1] = _add(B[1], B[2])
    return _add(B[0], _mm(B[1], B[2]))


def _t18(A):
    bs = _as_half_blob(_B18, 25).reshape(5, 5)
    P = _powers(A, 5)
    B = [_lincomb(P, row) for row in bs]
    B[3] = _add(B[3], _mm(B[0], B[4]))
    B[2] = _add(B[2], B[3])
    return _add(B[1], _mm(B[2], B[3]))


def matrix_exp_half(A: np.ndarray, highest: bool = False) -> np.ndarray:
    """``exp(A)`` of one finite float16 matrix (n >= 2), PyTorch's way (see above);
    ``highest``: always the scaled degree-18 polynomial (PyTorch's choice for a batch of more
    than one matrix)."""
    with np.errstate(all="ignore"):
        norm = float(np.abs(A).astype(_F).sum(-2).astype(_H).max())
        bounds = [float(_H(t)) for t in _THETAS]
        for i, fn in enumerate((_t1, _t2, _t4, _t8, _t12)):
            if not highest and (-1.0 if i == 0 else bounds[i - 1]) < norm <= bounds[i]:
                return fn(A)
        s = max(0.0, math.ceil(float(_H(np.log2(_F(norm) / _F(_THETAS[5]))))))
        X = (A.astype(_F) / _F(2.0 ** s)).astype(_H)
        R = _t18(X)
        for _ in range(int(s)):
            R = _mm(R, R)
        return R
