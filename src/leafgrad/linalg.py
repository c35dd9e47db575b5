"""``torch.linalg``: norms, products, and the decompositions leafgrad implements.

>>> import leafgrad as torch
>>> torch.linalg.vector_norm(torch.tensor([3.0, 4.0]))
tensor(5.)
"""
from __future__ import annotations

from .ops.linalg import matmul
from .ops.norms import linalg_norm as norm, vector_norm
# importing these modules registers their records (ops/__init__ reaches them through here)
from .ops import matmul_extra  # first: it registers products.py, then distance.py
from .ops.products import cross_linalg as cross, multi_dot
from .ops.linalg_common import LinAlgError
from .ops.linalg_decomp import (inv, inv_ex, det, slogdet, solve, solve_ex, matrix_power,
                                matrix_exp)
from .ops.linalg_cholesky import cholesky, cholesky_ex, solve_triangular
from .ops.linalg_lu import lu_factor, lu_factor_ex, lu, lu_solve
from .ops.linalg_misc import (vecdot, vander, tensorinv, tensorsolve, diagonal, eig, eigvals,
                              householder_product, ldl_factor, ldl_factor_ex, ldl_solve)
from .ops.linalg_spectral import svd, svdvals, eigh, eigvalsh, qr
from .ops.linalg_pinv import pinv, lstsq, matrix_rank, matrix_norm, cond

del matmul_extra

__all__ = ["matmul", "norm", "vector_norm", "cross", "multi_dot", "LinAlgError", "inv",
           "inv_ex", "det", "slogdet", "solve", "solve_ex", "matrix_power", "cholesky",
           "cholesky_ex", "solve_triangular", "matrix_exp", "svd", "svdvals", "eigh", "eigvalsh",
           "qr", "pinv", "lstsq", "matrix_rank", "matrix_norm", "cond",
           "lu_factor", "lu_factor_ex", "lu", "lu_solve", "vecdot", "vander", "tensorinv",
           "tensorsolve", "diagonal", "eig", "eigvals", "householder_product", "ldl_factor",
           "ldl_factor_ex", "ldl_solve"]
