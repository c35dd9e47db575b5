"""Semantic fuzz mismatches (issue 8, session 3, list A): values, grad_fn names, None-ness.

Each statement runs in leafgrad and in torch (``torch`` and ``F`` name the library under
test); both must raise the same exception type and message, or give exactly the same values,
dtype, shape and ``grad_fn`` name for ``y``.
"""
from __future__ import annotations

import math
import warnings

import pytest
import torch

import leafgrad
from oracle import np_of


def _run(L, statement, digits=None):
    env = {"torch": L, "F": L.nn.functional}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(statement, env)   # noqa: S102 - a statement from the lists below
    except Exception as exc:   # noqa: BLE001 - the error is the observation
        return type(exc).__name__, str(exc)
    y = env["y"]
    if y is None:
        return None
    fn = None if y.grad_fn is None else type(y.grad_fn).__name__
    values = [v if not (isinstance(v, float) and math.isnan(v)) else "nan"
              for v in np_of(y).reshape(-1).tolist()]
    if digits is not None:   # results of different (LAPACK vs NumPy) algorithms
        values = [float(f"{v:.{digits}g}") if isinstance(v, float) else v for v in values]
    return str(y.dtype), tuple(y.shape), values, fn


STATEMENTS = [
    # x28: cosine_embedding_loss puts its 1e-12 into each squared magnitude (not
    # cosine_similarity's formula); the gradient at cos == -1 is that rounding, not 0
    "a = torch.tensor([[-0.67212615]], dtype=torch.float64); "
    "b = torch.tensor([[0.05279285]], dtype=torch.float64, requires_grad=True); "
    "y = torch.autograd.grad(F.cosine_embedding_loss(a, b, torch.tensor([1]), "
    "reduction='none').sum(), b)[0]",
    "a = torch.tensor([[0.3, -1.2], [2., 0.5]], requires_grad=True); "
    "y = F.cosine_embedding_loss(a, a * 2, torch.tensor([1, -1]), margin=0.3)",
    # x16: the same loss (value 0 before the fix) fed to lgamma gave inf
    "a = torch.tensor(-0.8723053); b = torch.tensor(-0.24538149, dtype=torch.float64, "
    "requires_grad=True); y = torch.lgamma(F.cosine_embedding_loss(a.double().reshape(1), "
    "b.reshape(1), torch.tensor(1)))",
    # x8: linalg.vecdot of two 1-D tensors is vdot (VdotBackward0), whatever dim says
    "a = torch.ones(1, requires_grad=True); y = torch.linalg.vecdot(a, torch.ones(1))",
    "a = torch.ones(3, requires_grad=True); y = torch.linalg.vecdot(torch.ones(3), a, dim=5)",
    "a = torch.ones(3, requires_grad=True); y = torch.linalg.vecdot(a, torch.ones(2))",
    "a = torch.ones(2, 3, requires_grad=True); y = torch.linalg.vecdot(a, torch.ones(3))",
    "a = torch.ones(1, requires_grad=True); y = torch.linalg.vecdot(a, torch.ones(()))",
    # x3: mean's backward divides by the count as a Scalar (DivBackward1 under create_graph)
    "x = torch.ones(3, requires_grad=True); "
    "y = torch.autograd.grad(x.mean().pow(2), x, create_graph=True)[0]",
    "x = torch.ones(2, 3, requires_grad=True); "
    "y = torch.autograd.grad(x.mean(1).pow(2).sum(), x, create_graph=True)[0]",
    "x = torch.ones((), requires_grad=True, dtype=torch.float64); "
    "y = torch.autograd.grad(x.mean(()).pow(2), x, create_graph=True)[0]",
    "x = torch.ones(2, 3, requires_grad=True, dtype=torch.float16); "
    "y = torch.autograd.grad(x.mean((0, 1), keepdim=True).pow(2).sum(), x, create_graph=True)[0]",
    # x7: margin_ranking_loss clamps in place (ClampMinBackward0)
    "a = torch.tensor([0.5, -1., 2.], requires_grad=True); "
    "y = F.margin_ranking_loss(a, a * 3, torch.tensor([1., -1., 1.]), margin=0.5, "
    "reduction='none')",
    "a = torch.tensor([0.5, -1., 2.], requires_grad=True); "
    "y = F.margin_ranking_loss(a, a * 3, torch.tensor([1., -1., 1.]))",
    "a = torch.tensor([0.5, -1., 2.], requires_grad=True); "
    "y = torch.autograd.grad(F.margin_ranking_loss(a, a * 3, torch.tensor([1., -1., 1.]), "
    "reduction='sum'), a)[0]",
    # x2: linalg.cond (p = +-inf, +-1, 'fro') fills inv_ex's output in place, so PyTorch's
    # backward reports the modified LinalgInvEx output
    *[f"x = torch.tensor([[2., 1.], [1., 3.]], dtype=torch.float64, requires_grad=True); "
      f"c = torch.linalg.cond(x, {p}); y = torch.cat([c.reshape(1), "
      f"torch.autograd.grad(c, x)[0].reshape(-1)])"
      for p in ["float('inf')", "-float('inf')", "1", "-1", "'fro'"]],
    "x = torch.tensor([[1., 2.], [2., 4.]], requires_grad=True); y = torch.linalg.cond(x, 1)",
    # x4: einsum's backward through size-1 dimensions broadcast against another operand's
    *[f"x = torch.arange(1., {1 + math.prod(sx)}).reshape({sx}).requires_grad_(); "
      f"w = torch.arange(2., {2 + math.prod(sw)}, dtype=torch.float64).reshape({sw})"
      f".requires_grad_(); r = torch.einsum('{eq}', x.double(), w); "
      f"y = torch.cat([g.reshape(-1) for g in torch.autograd.grad("
      f"(r * torch.arange(r.numel()).reshape(r.shape)).sum(), (x, w))])"
      for eq, sx, sw in [("...i,...i->...", (1, 1, 1, 1), (1, 2)),
                         ("...i,...i->...", (2, 1, 3), (4, 3)),
                         ("ij,ij->i", (1, 3), (2, 3)),
                         ("ij,jk->ik", (2, 1), (3, 2)),
                         ("bij,bjk->bik", (1, 2, 3), (4, 3, 2)),
                         ("i,i->", (1,), (3,))]],
]

# compared to 5 significant digits (same formulas, different factorizations)
CLOSE = [
    # x7: linalg.lstsq solves a vector b in its own node (LinalgLstsqBackward0, no squeeze)
    "a = torch.tensor([[2., 1.], [1., 3.]], requires_grad=True); "
    "y = torch.linalg.lstsq(a, torch.tensor([1., 2.])).solution",
    "a = torch.tensor([[2., 1.], [1., 3.], [0., 1.]], dtype=torch.float64, requires_grad=True); "
    "b = torch.tensor([1., 2., -1.], dtype=torch.float64, requires_grad=True); "
    "r = torch.linalg.lstsq(a, b, driver='gelsd'); "
    "y = torch.cat([g.reshape(-1) for g in torch.autograd.grad("
    "(r.solution * torch.tensor([1., -2.], dtype=torch.float64)).sum() + r.residuals.sum(), "
    "(a, b))]).reshape(-1)",
    "a = torch.tensor([[2., 1.], [1., 3.], [0., 1.]], dtype=torch.float64); "
    "y = torch.linalg.lstsq(a, torch.tensor([1., 2., -1.], dtype=torch.float64), "
    "driver='gelsd').residuals",
    "y = torch.linalg.lstsq(torch.ones(2, 3, 3), torch.ones(3)).solution",
    "y = torch.linalg.lstsq(torch.ones(3, 3), torch.ones(2, 3, 3)).solution",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)


@pytest.mark.parametrize("statement", CLOSE)
def test_close_to_torch(statement):
    assert _run(leafgrad, statement, 5) == _run(torch, statement, 5)
