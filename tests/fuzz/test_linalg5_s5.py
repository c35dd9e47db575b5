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
    # the outputs PyTorch's backward formulas save (linalg_lu's P, L, U; lu_factor_ex's LU
    # and pivots; solve's, cholesky_solve's, lu_solve's, solve_triangular's result whichever
    # input needs a gradient; eigh/svd/qr outputs; slogdet's sign; prod's result) are saved,
    # so changing one in place is caught, naming it among the differentiable outputs
    "x = torch.ones(1, 1).requires_grad_(); p, l, "
    "u = torch.linalg.lu(x * 2); l.mul_(2); y = torch.autograd.grad(u.sum(), x)[0]",
    "x = torch.ones(1, 1).requires_grad_(); p, l, "
    "u = torch.linalg.lu(x * 2); u.mul_(2); y = torch.autograd.grad(l.sum(), x)[0]",
    "x = torch.ones(1, 1).requires_grad_(); p, l, "
    "u = torch.linalg.lu(x * 2); p.mul_(2); y = torch.autograd.grad(l.sum(), x)[0]",
    "x = torch.ones(1, 1).requires_grad_(); p, l, "
    "u = torch.linalg.lu(x * 2); u.mul_(2); y = torch.autograd.grad((l + u).sum(), x)[0]",
    "x = torch.ones(1, 1).requires_grad_(); p, l, "
    "u = torch.linalg.lu(x * 2); l.add_(1); y = (l + u).sum(); y.backward()",
    "x = torch.ones(3, 2).requires_grad_(); p, l, "
    "u = torch.linalg.lu(x * 2); l.add_(1); y = torch.autograd.grad(u.sum(), x)[0]",
    "x = torch.ones(2, 3).requires_grad_(); p, l, "
    "u = torch.linalg.lu(x * 2); u.add_(1); y = torch.autograd.grad(l.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.solve(x, torch.ones(2, "
    "1)); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.solve_ex(x, torch.ones(2, "
    "1))[0]; y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); b = torch.ones(2, "
    "1).requires_grad_(); y = torch.linalg.solve(x, "
    "b); y.mul_(2); y = torch.autograd.grad(y.sum(), b)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.cholesky_solve(torch.ones(2, 1), "
    "x); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = torch.ones(2, 1).requires_grad_(); y = torch.cholesky_solve(x, "
    "torch.eye(2) * 3); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.inv(x); y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.inv_ex(x)[0]; y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.cholesky(x); y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.cholesky_inverse(x); y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.solve_triangular(x, torch.ones(2, "
    "1), upper=True); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.triangular_solve(torch.ones(2, 1), "
    "x)[0]; y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.lu_factor(x)[0]; y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); lu, "
    "piv = torch.linalg.lu_factor(x.detach()); lu.requires_grad_(); y = "
    "torch.linalg.lu_solve(lu, piv, torch.ones(2, "
    "1)); y.mul_(2); y = torch.autograd.grad(y.sum(), lu)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.det(x); y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.slogdet(x)[1]; y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.logdet(x); y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.matrix_exp(x); y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.pinv(x); y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.eigh(x)[0]; y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.eigh(x)[1]; y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.eigvalsh(x); y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.svdvals(x); y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.svd(x)[1]; y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.svd(x)[0]; y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.qr(x)[0]; y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.qr(x)[1]; y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.lstsq(x, torch.ones(2, "
    "1))[0]; y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.matrix_norm(x, "
    "'nuc'); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.vector_norm(x); y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = torch.ones(2, 3).requires_grad_(); y = x.prod(); y.mul_(2); y = torch.autograd.grad(y, "
    "x)[0]",
    "x = torch.ones(2, "
    "3).requires_grad_(); y = x.prod(1); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = torch.ones(2, 3).requires_grad_(); y = x.prod(1, "
    "keepdim=True); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = torch.tensor([[1., 0, 2], [1, 2, "
    "3]]).requires_grad_(); y = x.prod(1); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = torch.tensor([[1., 0, 2], [1, 2, "
    "3]]).requires_grad_(); y = x.prod(); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = torch.tensor(2.).requires_grad_(); y = x.prod(0); y.mul_(2); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = torch.ones(2, "
    "3).requires_grad_(); y = x.cumprod(1); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); t = torch.ones(2, 2).requires_grad_(); w, "
    "V = torch.linalg.eigh(x); z = V * t; V.mul_(2); y = torch.autograd.grad(z.sum(), t)[0]",
    "x = torch.ones(3, 2).requires_grad_(); t = torch.ones(2).requires_grad_(); v, "
    "i = (x * 1).max(0); z = v * t; v.mul_(2); y = torch.autograd.grad(z.sum(), t)[0]",
    "x = torch.ones(4).requires_grad_(); t = torch.ones(2).requires_grad_(); a, "
    "b = (x * 1).split(2); z = b * t; b.mul_(2); y = torch.autograd.grad(z.sum(), t)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.solve(x, torch.ones(2, "
    "1)); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.solve(x, "
    "torch.ones(2)); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(1) * 3).requires_grad_(); y = torch.linalg.solve(x, "
    "torch.ones(1)); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(1) * 3).requires_grad_(); y = torch.linalg.solve(x, torch.ones(1, "
    "1)); y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(1) * 3).requires_grad_(); y = torch.linalg.solve(x, torch.ones(1, "
    "1)); y.mul_(2); y.sum().backward(create_graph=True); y = x.grad",
    "x = (torch.eye(1) * 3).requires_grad_(); y = torch.linalg.solve(x, torch.ones(1, "
    "1)); y.mul_(2); y = torch.autograd.grad(y.sum(), x, create_graph=True)[0]",
    "x = (torch.eye(1) * 3).requires_grad_(); y = torch.linalg.solve(x, torch.ones(1, "
    "1)); z = y.t(); z.mul_(2); y = torch.autograd.grad(z.sum(), x)[0]",
    "x = (torch.eye(1) * 3).requires_grad_(); y = torch.linalg.solve(x, torch.ones(1, "
    "1)); z = y.repeat(1, 2); y.mul_(2); y = torch.autograd.grad(z.sum(), x)[0]",
    "x = (torch.eye(1) * 3).requires_grad_(); y = torch.linalg.solve(x, torch.ones(1, "
    "1)); z = y.t().repeat(1, 2); y.mul_(2); y = torch.autograd.grad(z.sum(), x)[0]",
    "x = (torch.eye(1) * 3).requires_grad_(); y = torch.linalg.solve(x, torch.ones(1, "
    "1)); z = y.t(); w = z.repeat(1, 2); z.mul_(2); y = torch.autograd.grad(w.sum(), x)[0]",
    "x = torch.tensor(0.5).requires_grad_(); a = x.reshape(1, "
    "1) + 2 * torch.eye(1); b = torch.ones(1, 1); y = torch.linalg.solve(a, "
    "b); y.div_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "b = torch.ones(2, 1).requires_grad_(); y = torch.linalg.solve(torch.eye(2) * 3, "
    "b); y.mul_(2); y = torch.autograd.grad(y.sum(), b)[0]",
    "b = torch.ones(2).requires_grad_(); y = torch.linalg.solve(torch.eye(2) * 3, "
    "b); y.mul_(2); y = torch.autograd.grad(y.sum(), b)[0]",
    "b = torch.ones(1, 2).requires_grad_(); y = torch.linalg.solve(torch.eye(2) * 3, b, "
    "left=False); y.mul_(2); y = torch.autograd.grad(y.sum(), b)[0]",
    "b = torch.ones(2, 1).requires_grad_(); y = torch.linalg.solve_ex(torch.eye(2) * 3, "
    "b)[0]; y.mul_(2); y = torch.autograd.grad(y.sum(), b)[0]",
    "b = torch.ones(2, 1).requires_grad_(); y = torch.linalg.solve_triangular(torch.eye(2) * 3, "
    "b, upper=True); y.mul_(2); y = torch.autograd.grad(y.sum(), b)[0]",
    "b = torch.ones(2, 1).requires_grad_(); y = torch.triangular_solve(b, "
    "torch.eye(2) * 3)[0]; y.mul_(2); y = torch.autograd.grad(y.sum(), b)[0]",
    "b = torch.ones(2, 1).requires_grad_(); y = torch.triangular_solve(b, "
    "torch.eye(2) * 3)[1]; y = torch.triangular_solve(b, "
    "torch.eye(2) * 3); y[1].mul_(2); y = torch.autograd.grad(y[0].sum(), b)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.triangular_solve(torch.ones(2, 1), "
    "x); y[1].mul_(2); y = torch.autograd.grad(y[0].sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.triangular_solve(torch.ones(2, 1), "
    "x); y[0].mul_(2); y = torch.autograd.grad(y[0].sum(), x)[0]",
    "b = torch.ones(2, 1).requires_grad_(); lu, "
    "piv = torch.linalg.lu_factor(torch.eye(2) * 3); y = torch.linalg.lu_solve(lu, piv, "
    "b); y.mul_(2); y = torch.autograd.grad(y.sum(), b)[0]",
    "b = torch.ones(2, 1).requires_grad_(); y = torch.cholesky_solve(b, "
    "torch.eye(2) * 3); y.mul_(2); y = torch.autograd.grad(y.sum(), b)[0]",
    "b = torch.ones(2, 1).requires_grad_(); y = torch.linalg.lstsq(torch.eye(2) * 3, "
    "b)[0]; y.mul_(2); y = torch.autograd.grad(y.sum(), b)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.lstsq(x, torch.ones(2, "
    "1))[0]; y.mul_(2); y = torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.lu_factor_ex(x); y[1].add_(1); y "
    "= torch.autograd.grad(y[0].sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.lu_factor_ex(x); y[2].add_(1); y "
    "= torch.autograd.grad(y[0].sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.cholesky_ex(x); y[1].add_(1); y = "
    "torch.autograd.grad(y[0].sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.inv_ex(x); y[1].add_(1); y = "
    "torch.autograd.grad(y[0].sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.slogdet(x); y[0].add_(1); y = "
    "torch.autograd.grad(y[1].sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.slogdet(x); y[1].add_(1); y = "
    "torch.autograd.grad(y[1].sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.qr(x); y[0].add_(1); y = "
    "torch.autograd.grad(y[1].sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.svd(x); y[2].add_(1); y = "
    "torch.autograd.grad(y[1].sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.eigh(x); y[1].add_(1); y = "
    "torch.autograd.grad(y[0].sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.matrix_exp(x); y.add_(1); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.pinv(x); y.add_(1); y = "
    "torch.autograd.grad(y.sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.linalg.svd(x, "
    "full_matrices=False); y[0].add_(1); y = torch.autograd.grad(y[1].sum(), x)[0]",
    "x = (torch.eye(2) * 3).requires_grad_(); y = torch.svd(x); y[2].add_(1); y = "
    "torch.autograd.grad(y[1].sum(), x)[0]",
    # matrix_exp: a 1x1 matrix is its entry's exp; a matrix with an inf or NaN is all NaN
    "y = torch.linalg.matrix_exp(torch.tensor([[float('-inf')]]).double())",
    "y = torch.linalg.matrix_exp(torch.tensor([[float('inf')]]))",
    "y = torch.linalg.matrix_exp(torch.tensor([[float('nan')]]))",
    "y = torch.linalg.matrix_exp(torch.full((2, 2), float('inf')))",
    "y = torch.linalg.matrix_exp(torch.full((2, 2), float('-inf')).double())",
    "y = torch.linalg.matrix_exp(torch.tensor([[1., float('inf')], [0, 1]]))",
    "y = torch.linalg.matrix_exp(torch.tensor([[[1., float('inf')], [0, 1]], [[1., 0], [0, 1]]]))",
    "y = torch.linalg.matrix_exp(torch.tensor([[1e30, 0], [0, 1]]))",
    "y = torch.linalg.matrix_exp(torch.tensor([[-1e30, 0], [0, 1]]))",
    "y = torch.linalg.matrix_exp(torch.tensor([[[2.]], [[-1.]]]))",
    "y = torch.tensor([[float('-inf')]]).matrix_exp()",
    "x = torch.tensor([[0.5]]).requires_grad_(); y = "
    "torch.autograd.grad(torch.linalg.matrix_exp(x).sum(), x)[0]",
    # lstsq (gelsy, the default): QR without column pivoting (PyTorch's pivot array fixes
    # every column), rank from the leading blocks of R, minimum-norm solution of its first
    # rank rows; an inf in B spoils the whole solution. (Matrices whose columns come in
    # decreasing norm: PyTorch leaves the pivot array uninitialized, so where pivoting
    # would reorder columns its rank-deficient results can vary between calls.)
    "y = torch.linalg.lstsq(torch.tensor([[2., 1], [4, 2]]), torch.ones(2, 1))[0]",
    "y = torch.linalg.lstsq(torch.tensor([[2., 1], [4, 2]]), torch.ones(2, 1))[2]",
    "y = torch.linalg.lstsq(torch.tensor([[3., 1, 2], [3, 1, 2]]), torch.tensor([[1.], [-1]]))[0]",
    "y = torch.linalg.lstsq(torch.tensor([[3., 1, 2], [3, 1, 2]]), torch.tensor([[1.], [2]]))[2]",
    "y = torch.linalg.lstsq(torch.tensor([[3., 1], [3, 1], [0, 0]]).double(), "
    "torch.tensor([[1.], [-1], [1]]).double())[0]",
    "y = torch.linalg.lstsq(torch.tensor([[1., 0], [0, 1e-9]]).double(), torch.ones(2, "
    "1).double())[0]",
    "y = torch.linalg.lstsq(torch.tensor([[1., 0], [0, 1e-9]]).double(), torch.ones(2, "
    "1).double(), rcond=1e-5)[0]",
    "y = torch.linalg.lstsq(torch.tensor([[1., 0], [0, 1e-9]]), torch.ones(2, 1))[0]",
    "y = torch.linalg.lstsq(torch.tensor([[1., 0], [0, 1e-9]]), torch.ones(2, 1))[2]",
    "y = torch.linalg.lstsq(torch.tensor([[[2., 1], [4, 2]], [[1., 0], [0, 3]]]), torch.ones(2, "
    "2, 1))[0]",
    "y = torch.linalg.lstsq(torch.tensor([[[2., 1], [4, 2]], [[1., 0], [0, 3]]]), torch.ones(2, "
    "2, 1), driver='gelsy')[2]",
    "y = torch.linalg.lstsq(torch.tensor([[1., 0], [0, 1]]), torch.tensor([[float('inf'), 1], "
    "[1, 1]]))[0]",
    "y = torch.linalg.lstsq(torch.tensor([[1.]]), torch.tensor([[float('inf')]]))[0]",
    "y = torch.linalg.lstsq(torch.tensor([[1., 2], [3, 4], [5, 6]]), torch.ones(3))[0]",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_linalg_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)
