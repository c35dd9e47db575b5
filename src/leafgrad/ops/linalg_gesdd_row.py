"""The singular value of a float32 row vector (a 1 x n matrix) as PyTorch's (MKL) sgesdd
computes it (Note [gesdd of a row]); used by ``linalg_common._svd_scaled32``."""
from __future__ import annotations

import numpy as np

# Note [gesdd of a row]
# For a 1 x n matrix sgesdd's one singular value is |beta| of the Householder reflector that
# slarfg builds for the row: slapy2(a[0], snrm2(a[1:])), each step rounded to float32.
# MKL's snrm2 there is reference LAPACK's scaled sum of squares (scale, ssq updated element by
# element), not a float64 sum: the exact norm rounded to float32 (NumPy's svd) differs from it
# in the last bit for ~30% of rows (fuzz seed 161: the nuclear norm of a 1 x 24 float32 matrix
# was 4.337022, PyTorch's 4.3370223, and a floor_divide by it turned that into 1 vs 0).
# Measured bit-exact on every row tried (lengths 2..1000, scales 1e-3..1e4); a column
# (n x 1, sgeqrf's path) and float64 rows do not follow it exactly, so only float32 rows.
_F32 = np.float32


def _snrm2_rows(x: np.ndarray) -> np.ndarray:
    """Reference snrm2 of each row of the 2-d float32 ``x`` (scaled sum of squares)."""
    scale = np.zeros(x.shape[0], _F32)
    ssq = np.ones(x.shape[0], _F32)
    one = _F32(1)
    with np.errstate(all="ignore"):
        for j in range(x.shape[1]):
            a = np.abs(x[:, j])
            live = a != 0
            grow = live & (scale < a)
            keep = live & ~grow
            r_grow = (scale / a).astype(_F32)
            r_keep = (a / scale).astype(_F32)
            ssq = np.where(grow, one + ssq * (r_grow * r_grow), ssq)
            ssq = np.where(keep, ssq + r_keep * r_keep, ssq).astype(_F32)
            scale = np.where(grow, a, scale)
    return (scale * np.sqrt(ssq)).astype(_F32)


def _slapy2(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """LAPACK's slapy2: ``sqrt(x**2 + y**2)`` as ``w * sqrt(1 + (z / w)**2)``."""
    x, y = np.abs(x), np.abs(y)
    w, z = np.maximum(x, y), np.minimum(x, y)
    with np.errstate(all="ignore"):
        q = (z / w).astype(_F32)
        out = (w * np.sqrt((_F32(1) + q * q).astype(_F32))).astype(_F32)
    return np.where(z == 0, w, out)


def row_singular_values(A: np.ndarray) -> np.ndarray:
    """sgesdd's singular value of each finite float32 1 x n matrix of ``A`` (``(..., 1, n)``),
    shaped ``(..., 1)``."""
    rows = A.reshape(-1, A.shape[-1])
    norm = _snrm2_rows(rows[:, 1:]) if rows.shape[1] > 1 else np.zeros(rows.shape[0], _F32)
    return _slapy2(rows[:, 0], norm).reshape(A.shape[:-2] + (1,))
