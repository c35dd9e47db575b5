"""Regressions from the seed-12/13 10k fuzz runs (issue 8, session 5): linear-algebra ops
whose errors, values or saved-tensor checks differed from PyTorch's.

Each statement runs in leafgrad and in torch (``test_widened._run``): both must raise the same
exception type and first line, or give the same value, dtype, shape, grad_fn and version.
"""
from __future__ import annotations

import pytest
import torch

import leafgrad

from .test_widened import _run

STATEMENTS = [
    # the deprecated torch.cholesky names itself "cholesky" in all its errors
    "y = torch.cholesky(torch.full((2, 2), float('nan')))",
    "y = torch.cholesky(-torch.eye(2).unsqueeze(0))",
    "y = torch.full((2, 2), float('nan')).cholesky(upper=True)",
    "y = torch.cholesky(torch.ones(2, 3))",
    "y = torch.cholesky(torch.ones(3))",
    "y = torch.linalg.cholesky(-torch.eye(2).unsqueeze(0))",
    # cosine_similarity refuses a non-float common dtype before the norms and the broadcast
    "y = F.cosine_similarity(torch.ones(2, 2).long(), torch.ones(2, 2).long())",
    "y = F.cosine_similarity(torch.ones(2).bool(), torch.ones(3).bool(), dim=0)",
    "y = F.cosine_similarity(torch.ones(2).long(), torch.ones(2).bool(), dim=0)",
    "y = F.cosine_similarity(torch.tensor(1), torch.tensor(2), dim=0)",
    "y = F.cosine_similarity(torch.ones(2).long(), torch.ones(2), dim=0)",
    # linalg.solve checks the argument types, A's dtype, the dtypes' match, then the shapes
    'y = torch.linalg.solve(torch.ones(2, 3).long(), torch.ones(2, 1).long())',
    'y = torch.linalg.solve(torch.ones(2, 2).long(), torch.ones(2, 1))',
    'y = torch.linalg.solve(torch.ones(2, 3), torch.ones(2, 1).long())',
    'y = torch.linalg.solve(torch.ones(2).long(), torch.ones(2, 1).long())',
    'y = torch.linalg.solve(torch.ones(2), torch.ones(2, 1).long())',
    'y = torch.linalg.solve(torch.ones(2), torch.ones(2, 1))',
    'y = torch.linalg.solve(torch.ones(2, 3).half(), torch.ones(2, 1).half())',
    'y = torch.linalg.solve(torch.ones(2, 3).half(), torch.ones(2, 1))',
    'y = torch.linalg.solve(torch.ones(2, 2).half(), torch.ones(2, 1).half())',
    'y = torch.linalg.solve(torch.ones(2, 3).bool(), torch.ones(2, 1).bool())',
    'y = torch.linalg.solve_ex(torch.ones(2, 3).long(), torch.ones(2, 1).long())[0]',
    'y = torch.linalg.solve(torch.ones(2, 2).long(), torch.tensor(1))',
    'y = torch.linalg.solve(torch.ones(2, 2), torch.tensor(1.))',
    'y = torch.linalg.solve(torch.ones(2, 3), torch.tensor(1.))',
    'y = torch.linalg.solve(torch.ones(2, 3).long(), torch.ones(3, 1).long(), left=False)',
    'y = torch.linalg.solve(torch.ones(2, 3), torch.ones(3, 1), left=False)',
    'y = torch.linalg.solve(torch.ones(3, 3), torch.ones(2, 1), left=False)',
    'y = torch.linalg.solve(torch.ones(2), torch.tensor(1.))',
    'y = torch.linalg.solve(torch.ones(2, 2), torch.ones(3, 1))',
    'y = torch.linalg.solve(torch.ones(2, 2), torch.ones(3))',
    'y = torch.linalg.solve(torch.ones(2, 2), 1.0)',
    'y = torch.linalg.solve(1.0, torch.ones(2, 2))',
    'y = torch.linalg.solve_ex(torch.ones(2, 2), torch.ones(2).long())[0]',
    # linalg.lstsq: the driver named; MKL refuses NaN in A (argument 4, 5 for gels) or B (6, 7)
    # as a failed internal assert, one info per matrix of A's batch (later broadcast
    # elements write over earlier ones); gels refuses rank-deficient A (exact zero pivot),
    # solves through QR (no singular value cutoff), zeroes an all-zero A's solution and
    # residuals
    "y = torch.linalg.lstsq(torch.ones(2), torch.ones(2, 1), driver='bad')[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 2), torch.tensor(1.), driver='bad')[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 2), torch.ones(2, 1).double(), driver='bad')[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 2), torch.ones(3, 1), driver='bad')[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 2).half(), torch.ones(2, 1).half(), driver='bad')[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 2), torch.ones(2, 1), driver='bad')[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 2).double(), torch.ones(2, 1).double(), "
    "driver='gels')[0]",
    "y = torch.linalg.lstsq(torch.ones(3, 2).double(), torch.ones(3, 1).double(), "
    "driver='gelsy')[0]",
    "y = torch.linalg.lstsq(torch.tensor([[float('nan')]]), torch.ones(1, 1))[0]",
    "y = torch.linalg.lstsq(torch.ones(1, 1), torch.tensor([[float('nan')]]))[0]",
    "y = torch.linalg.lstsq(torch.ones(1, 1), torch.tensor([float('nan')]))[0]",
    "y = torch.linalg.lstsq(torch.tensor([[float('nan')]]), torch.tensor([[float('nan')]]))[0]",
    "y = torch.linalg.lstsq(torch.tensor([[float('inf')]]), torch.tensor([[float('inf')]]))[0]",
    "y = torch.linalg.lstsq(torch.tensor([[float('nan')]]).double(), torch.ones(1, 1).double(), "
    "driver='gelsd')[0]",
    "y = torch.linalg.lstsq(torch.ones(1, 1), torch.tensor([[float('nan')]]), driver='gelss')[0]",
    "y = torch.linalg.lstsq(torch.tensor([[float('nan')]]), torch.ones(1, 1), driver='gels')[0]",
    "y = torch.linalg.lstsq(torch.ones(1, 1), torch.tensor([[float('nan')]]), driver='gels')[0]",
    "y = torch.linalg.lstsq(torch.tensor([[[float('nan')]]]), torch.ones(1, 1, 1))[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 1, 1), torch.tensor([[[1.]], [[float('nan')]]]))[0]",
    "y = torch.linalg.lstsq(torch.tensor([[[1.]], [[float('nan')]]]), "
    "torch.tensor([[[float('nan')]], [[1.]]]))[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 1, 1), torch.tensor([[1.], [float('nan')]]))[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 1, 0), torch.full((2, 1, 1), float('nan')))[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 3), torch.tensor([[float('nan')], [1.]]))[0]",
    "y = torch.linalg.lstsq(torch.ones(3, 2), torch.tensor([[float('nan')], [1.], [2.]]))[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 2, 2), torch.ones(3, 2, 1), driver='bad')[0]",
    "y = torch.linalg.lstsq(torch.ones(1, 2, 2), torch.ones(1, 2, 1), driver='gels')[0]",
    "y = torch.linalg.lstsq(torch.ones(1, 2, 2), torch.ones(2, 2, 1), driver='gels')[0]",
    "y = torch.linalg.lstsq(torch.tensor([[[1., 0], [0, 1]], [[1., 1], [1, 1]]]), torch.ones(2, "
    "2, 1), driver='gels')[0]",
    "y = torch.linalg.lstsq(torch.tensor([[0., 1], [0, 1]]), torch.ones(2, 1), driver='gels')[0]",
    "y = torch.linalg.lstsq(torch.tensor([[1., 0], [0, 0]]), torch.ones(2, 1), driver='gels')[0]",
    "y = torch.linalg.lstsq(torch.zeros(2, 2), torch.ones(2, 1), driver='gels')[0]",
    "y = torch.linalg.lstsq(torch.zeros(2, 3), torch.ones(2, 1), driver='gels')[0]",
    "y = torch.linalg.lstsq(torch.tensor([[1e-30, 0], [0, 1]]), torch.ones(2, 1), "
    "driver='gels')[0]",
    "y = torch.linalg.lstsq(torch.tensor([[2., 1], [1, 3], [0, 1]]).double(), torch.ones(3, "
    "2).double(), driver='gels')[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 1, 1, 1), torch.tensor([1., 1, "
    "float('nan')]).reshape(1, 3, 1, 1))[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 1, 1, 1), torch.tensor([1., float('nan'), "
    "1]).reshape(1, 3, 1, 1))[0]",
    "y = torch.linalg.lstsq(torch.tensor([1., float('nan')]).reshape(2, 1, 1, 1), torch.ones(1, "
    "3, 1, 1))[0]",
    "y = torch.linalg.lstsq(torch.tensor([1., float('nan'), 1]).reshape(1, 3, 1, 1), "
    "torch.ones(2, 1, 1, 1))[0]",
    "y = torch.linalg.lstsq(torch.ones(1, 1, 1) * float('nan'), torch.ones(2, 1, 1))[0]",
    "y = torch.linalg.lstsq(torch.zeros(3, 2), torch.ones(3, 1), driver='gels')[1]",
    "y = torch.linalg.lstsq(torch.tensor([[[0., 0], [0, 0], [0, 0]], [[1., 2], [2, 4], [3, "
    "7]]]), torch.ones(2, 3, 1), driver='gels')[1]",
    "y = torch.linalg.lstsq(torch.ones(2, 2, 1), torch.ones(2, 2, 1), driver='gels')[2]",
    # singular triangular solves divide by the zero pivots (BLAS trsm: infs and NaNs, no
    # error): solve_triangular, triangular_solve, cholesky_solve, lu_solve, solve_ex and
    # inv_ex (LAPACK getrf + getrs), row interchanges that do not spread infs; only the
    # factor's triangle is read; cholesky_inverse refuses a zero on the diagonal
    "y = torch.linalg.solve_triangular(torch.tensor([[0., 1], [0, 2]]), torch.tensor([[0.], "
    "[1]]), upper=True)",
    "y = torch.linalg.solve_triangular(torch.tensor([[1., 1], [0, 0]]), torch.tensor([[1.], "
    "[0]]), upper=True)",
    "y = torch.linalg.solve_triangular(torch.tensor([[1., 1], [0, 0]]), torch.tensor([[1.], "
    "[1]]), upper=True)",
    "y = torch.linalg.solve_triangular(torch.tensor([[0., 0], [1, 1]]), torch.tensor([[1.], "
    "[1]]), upper=False)",
    "y = torch.linalg.solve_triangular(torch.tensor([[0., 0], [1, 1]]), torch.tensor([[1., 1]]), "
    "upper=False, left=False)",
    "y = torch.linalg.solve_triangular(torch.tensor([[0., 0], [1, 1]]), torch.tensor([[1., 1]]), "
    "upper=True, left=False)",
    "y = torch.linalg.solve_triangular(torch.tensor([[1., float('nan')], [0, 1]]), "
    "torch.tensor([[1.], [1]]), upper=True)",
    "y = torch.linalg.solve_triangular(torch.tensor([[1., float('nan')], [0, 1]]), "
    "torch.tensor([[1.], [1]]), upper=False)",
    "y = torch.linalg.solve_triangular(torch.tensor([[float('inf'), 1], [0, 1]]), "
    "torch.tensor([[1.], [1]]), upper=True)",
    "y = torch.linalg.solve_triangular(torch.zeros(2, 2, 2), torch.ones(2, 1), upper=True)",
    "y = torch.linalg.solve_triangular(torch.tensor([[0., 1], [0, 2]]).double(), "
    "torch.tensor([[0.], [1]]).double(), upper=True, unitriangular=True)",
    "y = torch.triangular_solve(torch.tensor([[0.], [1]]), torch.tensor([[0., 1], [0, 2]]))[0]",
    "y = torch.triangular_solve(torch.tensor([[1.], [1]]), torch.tensor([[0., 0], [1, 1]]), "
    "upper=False)[0]",
    "y = torch.triangular_solve(torch.tensor([[1.], [1]]), torch.tensor([[0., 0], [1, 1]]), "
    "upper=False, transpose=True)[0]",
    "y = torch.cholesky_solve(torch.tensor([[1.], [1]]), torch.tensor([[0., 0], [1, 1]]))",
    "y = torch.cholesky_solve(torch.tensor([[1.], [1]]), torch.tensor([[1., 0], [1, 0]]))",
    "y = torch.cholesky_solve(torch.tensor([[1.], [1]]), torch.tensor([[1., 1], [0, 0]]), "
    "upper=True)",
    "y = torch.cholesky_inverse(torch.tensor([[0., 0], [1, 1]]))",
    "y = torch.cholesky_inverse(torch.tensor([[1., 0], [1, 0]]))",
    "y = torch.cholesky_inverse(torch.tensor([[1., 1], [0, 0]]), upper=True)",
    "y = torch.linalg.lu_solve(torch.tensor([[0., 1], [0, 1]]), torch.tensor([1, 2], "
    "dtype=torch.int32), torch.ones(2, 1))",
    "y = torch.linalg.lu_solve(torch.tensor([[1., 1], [0, 0]]), torch.tensor([1, 2], "
    "dtype=torch.int32), torch.ones(2, 1))",
    "y = torch.linalg.lu_solve(torch.tensor([[1., 1], [0, 0]]), torch.tensor([1, 2], "
    "dtype=torch.int32), torch.ones(2, 1), adjoint=True)",
    "y = torch.linalg.lu_solve(torch.tensor([[1., 1], [0, 0]]), torch.tensor([1, 2], "
    "dtype=torch.int32), torch.ones(1, 2), left=False)",
    "y = torch.linalg.solve(torch.zeros(2, 2), torch.ones(2, 1))",
    "y = torch.linalg.solve_ex(torch.zeros(2, 2), torch.ones(2, 1))[0]",
    "y = torch.linalg.solve_ex(torch.ones(2, 2), torch.ones(2, 1))[0]",
    "y = torch.linalg.solve_ex(torch.tensor([[1., float('nan')], [0, 1]]), torch.ones(2, 1))[0]",
    "y = torch.linalg.solve(torch.tensor([[1., float('nan')], [0, 1]]), torch.ones(2, 1))",
    "y = torch.linalg.eigh(torch.full((2, 2), float('nan')))[0]",
    "y = torch.linalg.eigvalsh(torch.full((2, 2), float('nan')))",
    "y = torch.linalg.eigvalsh(torch.tensor([[1., float('inf')], [float('inf'), 1]]))",
    "y = torch.linalg.qr(torch.full((2, 2), float('nan')))[0]",
    "y = torch.linalg.det(torch.full((2, 2), float('nan')))",
    "y = torch.linalg.slogdet(torch.full((2, 2), float('nan')))[1]",
    "y = torch.linalg.inv(torch.full((2, 2), float('nan')))",
    "y = torch.linalg.inv_ex(torch.zeros(2, 2))[0]",
    "y = torch.linalg.inv_ex(torch.zeros(2, 2))[1]",
    "y = torch.linalg.matrix_rank(torch.full((2, 2), float('nan')))",
    "y = torch.linalg.pinv(torch.full((2, 2), float('nan')))",
    "y = torch.linalg.svdvals(torch.full((2, 2), float('inf')))",
    "y = torch.linalg.cond(torch.zeros(2, 2))",
    "y = torch.linalg.cond(torch.zeros(2, 2), p=1)",
    "y = torch.linalg.cond(torch.zeros(2, 2), p='fro')",
    "y = torch.linalg.matrix_power(torch.zeros(2, 2), -1)",
    "y = torch.linalg.matrix_exp(torch.full((2, 2), float('nan')))",
    "y = torch.linalg.lu_factor(torch.full((2, 2), float('nan')))[0]",
    "y = torch.linalg.lu(torch.full((2, 2), float('nan')))[2]",
    "y = torch.linalg.lu(torch.zeros(2, 2))[2]",
    "y = torch.logdet(torch.zeros(2, 2))",
    "y = torch.logdet(-torch.eye(2))",
    "y = torch.linalg.cholesky_ex(torch.full((2, 2), float('nan')))[0]",
    "y = torch.linalg.cholesky_ex(torch.full((2, 2), float('nan')))[1]",
    "y = torch.linalg.lstsq(torch.zeros(2, 2), torch.ones(2, 1))[0]",
    "y = torch.linalg.svd(torch.full((2, 2), float('nan')))[1]",
    "y = torch.linalg.matrix_norm(torch.full((2, 2), float('nan')), ord=2)",
    "y = torch.linalg.matrix_norm(torch.full((2, 2), float('nan')), ord='nuc')",
    "y = torch.linalg.lu_solve(*torch.linalg.lu_factor_ex(torch.tensor([[0., 0], [1, 2]]))[:2], "
    "torch.tensor([[1., 0], [1, 0]]), adjoint=True)",
    "y = torch.linalg.lu_solve(*torch.linalg.lu_factor_ex(torch.tensor([[1., 2], [2, 4]]))[:2], "
    "torch.tensor([[0., 1]]), left=False)",
    "y = torch.linalg.solve_ex(torch.tensor([[0., 0], [1, 2]]), torch.tensor([[1., 0]]), "
    "left=False)[0]",
    "y = torch.linalg.solve_ex(torch.tensor([[[1., 2], [2, 4]], [[1., 0], [0, 1]]]), "
    "torch.tensor([[1.], [1.]]))[0]",
    "y = torch.linalg.inv_ex(torch.tensor([[[1., 2], [2, 4]], [[2., 0], [0, 1]]]))[0]",
    "y = torch.cholesky_inverse(torch.tensor([[2., 5, 7], [1, 3, 4], [1, 1, 2]]))",
    "y = torch.cholesky_inverse(torch.tensor([[2., 5, 7], [1, 3, 4], [1, 1, 2]]), upper=True)",
    "y = torch.cholesky_inverse(torch.tensor([[[2., 0], [1, 0]], [[1., 0], [0, 1]]]))",
    "y = torch.cholesky_solve(torch.ones(2, 1), torch.tensor([[2., 5], [1, 3]]))",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_linalg_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)
