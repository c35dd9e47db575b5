"""Regressions from the seed-15 10k fuzz run (issue 8, session 6): linear-algebra and
distance ops whose errors, values or gradients differed from PyTorch's.

Each statement runs in leafgrad and in torch (``test_widened._run``): both must raise the same
exception type and first line, or give the same value, dtype, shape, grad_fn and version.
"""
from __future__ import annotations

import pytest
import torch

import leafgrad

from .test_widened import _run

_X = "x = torch.tensor([[1., 2], [0.5, -1], [3, 0]], dtype=torch.float64, requires_grad=True); "
_Y = "z = torch.tensor([[0., 1], [2, 2]], dtype=torch.float64, requires_grad=True); "
_BIG = ("x = torch.arange(60.).double().sin().reshape(30, 2).requires_grad_(); "
        "z = torch.arange(8.).double().cos().reshape(4, 2).requires_grad_(); ")

STATEMENTS = [
    # cdist's direct kernel records _cdist_backward (CdistBackwardBackward0), which has no
    # derivative: differentiating twice raises, for every p and both modes that use it
    *(_X + _Y + f"g = torch.autograd.grad((torch.cdist(x, z, p={p}{mode}) ** 2).sum(), x, "
      "create_graph=True)[0]; y = torch.autograd.grad(g.sum(), x)[0]"
      for p in (2.0, 1.0, 0.0, 0.5, 3.0, float("inf"))
      for mode in ("", ", compute_mode='donot_use_mm_for_euclid_dist'")),
    _X + _Y + "y = torch.autograd.grad(torch.cdist(x, z).sum(), z, create_graph=True)[0]",
    _X + _Y + "y = torch.autograd.grad(torch.cdist(x, z, p=1.5).sum(), x)[0]",
    _X + _Y + "y = torch.autograd.grad(torch.cdist(x, z, p=0.5).sum(), z)[0]",
    _X + "y = torch.autograd.grad(torch.cdist(x, x.detach(), p=float('inf')).sum(), x)[0]",
    # ... while p = 2 on the matmul path (asked for, or more than 25 rows) is a composite of
    # _euclidean_dist and views, twice differentiable
    _X + _Y + "y = torch.cdist(x, z, compute_mode='use_mm_for_euclid_dist')",
    _X + _Y + "g = torch.autograd.grad(torch.cdist(x, z, compute_mode='use_mm_for_euclid_dist')"
    ".sum(), x, create_graph=True)[0]; y = torch.autograd.grad((g * g).sum(), z)[0].clone()",
    _BIG + "y = torch.cdist(x, z)",
    _BIG + "g = torch.autograd.grad(torch.cdist(x, z).sum(), z, create_graph=True)[0]; "
    "y = torch.autograd.grad((g * g).sum(), x)[0].clone()",
    _BIG + "y = torch.cdist(x.reshape(2, 15, 2), z.unsqueeze(0), "
    "compute_mode='use_mm_for_euclid_dist')",
    _BIG + "y = torch.autograd.grad(torch.cdist(x.reshape(2, 15, 2), z.expand(3, 1, 4, 2), "
    "compute_mode='use_mm_for_euclid_dist').sum(), z)[0]",
    _BIG + "y = torch.cdist(x, z, p=1.)",
    _BIG + "y = torch.cdist(x, z.float())",
    _BIG + "y = torch.cdist(x.half(), z.half())",
    "y = torch.cdist(torch.ones(2, 2), torch.ones(2, 2), compute_mode='bad')",
    # triangular_solve checks the dtypes' match, A square, the sizes, the batch broadcast,
    # then the kernel's dtype (on empty inputs too)
    "y = torch.triangular_solve(torch.ones(2, 1).double(), torch.ones(1, 1))[0]",
    "y = torch.triangular_solve(torch.ones(4, 1).bool(), torch.ones(1, 1).long())[0]",
    "y = torch.triangular_solve(torch.ones(2, 1), torch.ones(2, 3))[0]",
    "y = torch.triangular_solve(torch.ones(2, 1).double(), torch.ones(3, 3, 1))[0]",
    "y = torch.triangular_solve(torch.ones(3, 1), torch.ones(2, 2))[0]",
    "y = torch.triangular_solve(torch.ones(2, 2, 1), torch.ones(3, 2, 2))[0]",
    "y = torch.triangular_solve(torch.ones(0, 1).long(), torch.ones(0, 0).long())[0]",
    "y = torch.triangular_solve(torch.ones(2, 0).half(), torch.ones(2, 2).half())[0]",
    "y = torch.triangular_solve(torch.ones(0, 2, 1), torch.eye(2))[0]",
    # linalg.solve_triangular: both matrices, A square, the shapes, the batch broadcast, the
    # kernel (A's dtype, empty too); B is taken in A's dtype
    "y = torch.linalg.solve_triangular(torch.eye(2).half(), torch.ones(2, 2).half(), upper=True)",
    "y = torch.linalg.solve_triangular(torch.eye(2).half(), torch.ones(3, 1).half(), upper=True)",
    "y = torch.linalg.solve_triangular(torch.eye(2).half(), torch.ones(2, 1).half(), upper=True, "
    "left=False)",
    "y = torch.linalg.solve_triangular(torch.eye(2).long(), torch.ones(2), upper=True)",
    "y = torch.linalg.solve_triangular(torch.ones(0, 0).long(), torch.ones(0, 1).long(), "
    "upper=True)",
    "y = torch.linalg.solve_triangular(torch.ones(0, 0).half(), torch.ones(0, 1).half(), "
    "upper=False)",
    "y = torch.linalg.solve_triangular(torch.ones(2, 2, 2).long(), torch.ones(3, 2, 1).long(), "
    "upper=True)",
    "y = torch.linalg.solve_triangular(torch.eye(2) * 2, torch.ones(2, 1).double(), upper=True)",
    "y = torch.linalg.solve_triangular(torch.eye(2).double() * 2, torch.ones(2, 1).bool(), "
    "upper=False)",
    "A = torch.tensor([[3., 1], [0, 3]], requires_grad=True); "
    "B = torch.tensor([[1.], [2]], dtype=torch.float64, requires_grad=True); "
    "torch.linalg.solve_triangular(A, B, upper=True).sum().backward(); y = B.grad",
    # triangular_solve: an unused solution gets graph-free zeros (b's gradient under
    # create_graph does not require grad)
    "A = torch.tensor([[2., 1], [0, 3]], requires_grad=True); b = torch.ones(2, 1, "
    "requires_grad=True); x, c = torch.triangular_solve(b, A); "
    "c.sum().backward(create_graph=True); y = b.grad",
    "A = torch.tensor([[2., 1], [0, 3]], requires_grad=True); b = torch.ones(2, 1, "
    "requires_grad=True); x, c = torch.triangular_solve(b, A); "
    "torch.autograd.backward([c.sum()], create_graph=True); y = A.grad",
    # det's backward under create_graph: linalg.solve where det != 0, the SVD formula where
    # det == 0 (the adjugate, not the first-order zero), index_put for a mixed batch
    *("A = torch.tensor(" + a + ", dtype=torch.float64, requires_grad=True); "
      "g = torch.autograd.grad(torch.linalg.det(A).sum(), A, create_graph=True)[0]; " + tail
      for a in ("[[2., 1], [1, 3]]", "[[1., 2], [2, 4]]", "[[[2., 1], [1, 3]], [[1., 2], [2, 4]]]",
                "[[1., 2, 0], [2, 4, 1], [0, 0, 0]]")
      for tail in ("y = g.clone()", "y = torch.autograd.grad((g * g).sum(), A)[0].clone()")),
    # linalg.lstsq: a B of one dim fewer than A is a vector only when it is A's shape less
    # its last dim; any other is a matrix whose batch broadcasts with A's
    *(f"A = torch.linspace(-1, 2, {na}).double().reshape{sa}.requires_grad_(); "
      f"B = torch.linspace(0.5, 3, {nb}).double().cos().reshape{sb}.requires_grad_(); "
      f"r = torch.linalg.lstsq(A, B{drv}); " + tail
      for na, sa, nb, sb in ((2, (2, 1, 1), 1, (1, 1)), (8, (2, 2, 2), 10, (2, 5)),
                             (12, (2, 3, 2), 6, (2, 3)))
      for drv in ("", ", driver='gelsd'", ", driver='gels'")
      for tail in ("y = r.solution", "y = torch.autograd.grad((r.solution ** 2).sum(), B)[0]",
                   "y = torch.autograd.grad((r.solution ** 2).sum() + r.residuals.sum(), A)[0]")),
    "y = torch.linalg.lstsq(torch.ones(2, 3, 2), torch.ones(3, 1))[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 3, 3), torch.ones(1, 3))[0]",

    # adaptive average pooling: a NaN or inf stays in the windows that hold it (was spread
    # by the matrix product's zero weights; seed 14, log1p -> pooling)
    "y = F.adaptive_avg_pool1d(torch.tensor([[[1., float('nan'), 3, 4]]]), 2)",
    "y = F.adaptive_avg_pool2d(torch.tensor([[[[1., float('nan'), 3, 4], [1, 2, 3, "
    "float('inf')]]]]), (1, 3))",
    "y = F.adaptive_avg_pool3d(torch.tensor([[[[[1., float('nan'), 3, 4]]]]]), (1, 1, 2))",
    "x = torch.tensor([[[[1., 0, 3, 4], [1, 2, 3, 5]]]], requires_grad=True); "
    "y = torch.autograd.grad(F.adaptive_avg_pool2d(x, (1, 3)), x, "
    "torch.tensor([[[[1., float('nan'), 2]]]]))[0]",
    # einsum of several operands saves them (PyTorch's mul / bmm): a second backward without
    # retain_graph raises; a single operand's permute or sum saves nothing
    *("x = torch.ones(2, 2, requires_grad=True); c = torch.ones(2, 2) * 2; "
      f"r = torch.einsum('{eq}', {ops}); torch.autograd.grad(r.sum(), x); "
      "y = torch.autograd.grad(r.sum(), x)[0]"
      for eq, ops in (("ij->ji", "x"), ("ij->j", "x"), ("ij,jk->ik", "x, c"),
                      ("ij,ij->ij", "c, x"), ("...i,...i->...", "x, x"))),
    # linalg kernels' dtypes: float16 empty inputs compute (NumPy has no half linalg), the
    # kernels that PyTorch reaches on empty inputs too refuse them; empty integer batches
    *(f"A = torch.ones({shp}).{dt}(); B = torch.ones({shp[:-1] + (1,)}).{dt}(); y = {expr}"
      for shp in ((0, 0), (2, 0, 0), (0, 2, 2))
      for dt in ("half", "long")
      for expr in ("torch.linalg.det(A)", "torch.linalg.svdvals(A)", "torch.svd(A)[1]",
                   "torch.linalg.cholesky(A)", "torch.cholesky(A)",
                   "torch.linalg.cholesky_ex(A, upper=True)[1]", "torch.linalg.solve(A, B)",
                   "torch.linalg.solve_ex(A, B)[0]", "torch.cholesky_solve(B, A)",
                   "torch.cholesky_inverse(A)", "torch.linalg.lu_factor(A)[0]",
                   "torch.linalg.lu(A)[2]",
                   "torch.linalg.lu_solve(A, torch.ones(A.shape[:-1]).int(), B)")),
    "y = torch.cholesky_inverse(torch.ones(0, 0))",
    "y = torch.cholesky_inverse(torch.ones(2, 0, 0))",
    # matrix_norm: a max over an empty dim is PyTorch's zero fill (version 1), a min raises
    *(f"y = torch.linalg.matrix_norm(torch.ones{shp}, {o}{kd})"
      for shp in ((0, 0), (2, 0, 0), (0, 3), (3, 0), (2, 3, 0))
      for o in (2, -2, 1, -1, "float('inf')", "-float('inf')")
      for kd in ("", ", keepdim=True")),
    # linalg.vander: the dtype first (no Half, no Bool), then N > 1
    "y = torch.linalg.vander(torch.tensor(1.).half())",
    "y = torch.linalg.vander(torch.ones(3).half())",
    "y = torch.linalg.vander(torch.ones(2).bool())",
    "y = torch.linalg.vander(torch.ones(1).long())",
    "y = torch.linalg.vander(torch.ones(3), N=1)",
    "y = torch.linalg.vander(torch.arange(3), N=2)",
    # trace: the kernel's Bool refusal comes before the dim check
    "y = torch.trace(torch.tensor(True))",
    "y = torch.trace(torch.ones(3).bool())",
    "y = torch.ones(2, 2, 2).bool().trace()",
    "y = torch.trace(torch.tensor(1.))",
    "y = torch.trace(torch.ones(2, 2, dtype=torch.uint8))",
    # under create_graph a node computes its last input's gradient first, as PyTorch: the
    # nodes' order, so the second backward's float16 sums, follow (seed 15, distance)
    *("x = torch.tensor([[0.0708], [-0.1298], [-0.1351], [-0.00643]], dtype=torch.float16, "
      "requires_grad=True); v = torch.tensor([[0.5825], [-0.665], [-1.013], [-0.38]], "
      "dtype=torch.float16); " + f"g = torch.autograd.grad({e}, x, v, create_graph=True)[0]; "
      "y = torch.autograd.grad(g, x, torch.tensor([[0.3], [-0.7], [1.1], [0.9]], "
      "dtype=torch.float16))[0].clone()"
      for e in ("x / x.abs()", "F.normalize(x, float('inf'), -1)", "F.normalize(x, 0.5, -1)",
                "x * x.abs()")),
    # ... but atan2 and the mse / huber / smooth_l1 losses compute self's first (huber's
    # mixed-dtype error under create_graph names self's; seed 15 rerun)
    *("a = torch.ones(1, 1, dtype=torch.float64, requires_grad=True); "
      "b = (torch.ones(1, 1) * 3).requires_grad_(); "
      f"y = torch.autograd.grad(F.{f}(a, b, reduction='none').sum(), [a, b], "
      f"create_graph={cg})[0]"
      for f in ("huber_loss", "mse_loss", "smooth_l1_loss") for cg in (True, False)),
    # linalg.inv: a NaN anywhere in a matrix makes its whole inverse NaN, as PyTorch's LAPACK
    *(f"A = torch.eye(4) * 2 + 0.1; A[{i}, {j}] = float('nan'); y = torch.linalg.inv_ex(A)[0]"
      for i, j in ((0, 0), (3, 3), (1, 2))),
    "A = torch.eye(4).double(); A[0, 1] = float('nan'); y = torch.linalg.inv(A)",
    "A = torch.eye(2).expand(3, 2, 2).clone(); A[1, 0, 0] = float('nan'); y = torch.inverse(A)",
    "y = torch.linalg.inv(torch.tensor([[float('inf'), 0], [0, 1]]))",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_lin6_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)
