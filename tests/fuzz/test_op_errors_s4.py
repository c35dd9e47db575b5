"""Regressions from the seed-11 10k fuzz run (issue 8): tensor ops whose dtype, shape and
argument checks raised another exception, another message, or nothing, where PyTorch raises.

Each statement runs in leafgrad and in torch (``test_widened._run``): both must raise the same
exception type and first line, or give the same value, dtype, shape, grad_fn and version.
"""
from __future__ import annotations

import pytest
import torch

import leafgrad

from .test_widened import _run

STATEMENTS = [
    # addcmul has no bool kernel (the result dtype decides); addcdiv refuses integer division
    "y = torch.addcmul(torch.ones(2).bool(), torch.ones(2).bool(), torch.ones(2).bool())",
    "y = torch.addcmul(torch.ones(2).bool(), torch.ones(2).bool(), torch.ones(2).bool(), "
    "value=2)",
    "y = torch.ones(2).bool().addcmul_(torch.ones(2).bool(), torch.ones(2).bool())",
    "y = torch.ones(2).bool().addcmul_(torch.ones(2), torch.ones(2))",
    "y = torch.addcmul(torch.ones(2).long(), torch.ones(2).bool(), torch.ones(2).bool())",
    "y = torch.addcmul(torch.ones(2).bool(), torch.ones(2).long(), torch.ones(2).bool())",
    "y = torch.addcmul(torch.ones(2).bool(), torch.ones(2).bool(), torch.ones(2))",
    "y = torch.addcmul(torch.ones(2).long(), torch.ones(2).long(), torch.ones(2).long(), "
    "value=2.5)",
    "y = torch.addcdiv(torch.ones(2).bool(), torch.ones(2).bool(), torch.ones(2).bool())",
    "y = torch.addcdiv(torch.ones(2), torch.ones(2).long(), torch.ones(2).bool())",
    "y = torch.addcdiv(torch.ones(2).bool(), torch.ones(2).bool(), torch.ones(2))",
    # quantile: float and double only (half too); PyTorch's order of checks
    "y = torch.quantile(torch.ones(3).half(), 0.5)",
    "y = torch.nanquantile(torch.ones(3).half(), 0.5)",
    "y = torch.quantile(torch.ones(3).long(), torch.tensor([0.5]))",
    "y = torch.quantile(torch.ones(3).half(), torch.tensor([0.5]).half())",
    "y = torch.quantile(torch.ones(0).half(), 0.5)",
    "y = torch.quantile(torch.ones(0), torch.ones(2, 2))",
    "y = torch.quantile(torch.ones(3).half(), torch.ones(2, 2).half())",
    "y = torch.quantile(torch.ones(3).half(), 1.5, interpolation='bad')",
    "y = torch.quantile(torch.ones(3), torch.tensor([0.5]).double(), interpolation='bad')",
    "y = torch.quantile(torch.ones(3).half(), 0.5, dim=3)",
    "y = torch.quantile(torch.ones(3), torch.tensor([1.5]))",
    "y = torch.quantile(torch.ones(3), torch.tensor([1.5]), dim=4)",
    "y = torch.quantile(torch.ones(3), torch.tensor([0.2, 0.7]), dim=0, keepdim=True)",
    # var_mean/std_mean name themselves in the dtype check
    "y = torch.std_mean(torch.ones(3).long())[0]",
    "y = torch.var_mean(torch.ones(3).bool())[1]",
    "y = torch.std_mean(torch.ones(3).long(), 5)[0]",
    "y = torch.var_mean(torch.ones(3).long(), dim=0, unbiased=True)[0]",
    # scatter, scatter_add and scatter_reduce share PyTorch's checks (all say scatter()):
    # dim, index dtype, self/src dtypes, ranks, sizes (src's rank when it is the culprit),
    # the reduce argument, then the kernel's src rank and index bounds
    "y = torch.zeros(3).scatter_reduce(0, torch.tensor([0]), torch.ones(1).double(), 'sum')",
    "y = torch.zeros(3).scatter_reduce(0, torch.tensor([0]), torch.ones(1).double(), 'bad')",
    "y = torch.zeros(3).scatter_add(0, torch.tensor([0]), torch.ones(1).double())",
    "y = torch.zeros(3).scatter_add(0, torch.tensor([0.]), torch.ones(1))",
    "y = torch.zeros(3).scatter_reduce(0, torch.tensor([0.]), torch.ones(1), 'sum')",
    "y = torch.zeros(3, 2).scatter(5, torch.tensor([[0.]]), torch.ones(3, 2).double())",
    "y = torch.zeros(3, 2).scatter_reduce(0, torch.tensor([[5]]), torch.ones(1), 'sum')",
    "y = torch.zeros(3, 2).scatter_add(0, torch.tensor([[-2]]), torch.ones(1))",
    "y = torch.zeros(3, 2).scatter(0, torch.tensor([[-2]]), 1.0)",
    "y = torch.zeros(3, 2).scatter(0, torch.tensor([[0]]), torch.ones(1, 1, 1))",
    "y = torch.zeros(3, 2).scatter(0, torch.tensor([[9]]), torch.ones(1, 1, 1))",
    "y = torch.zeros(3, 2).scatter(0, torch.tensor([[0]]), torch.ones(()))",
    "y = torch.zeros(3, 2).scatter(0, torch.tensor([[0, 0, 0]]), torch.ones(1, 2))",
    "y = torch.zeros(3, 2).scatter(0, torch.tensor([[0, 0, 0]]), torch.ones(5))",
    "y = torch.zeros(3, 2).scatter(0, torch.tensor([[0, 0, 0]]), 1.0)",
    "y = torch.zeros(3, 2).scatter(1, torch.tensor([[0], [0], [0], [0]]), torch.ones(3, 2))",
    "y = torch.zeros(3).scatter(0, torch.tensor([0, 0, 0]), torch.ones(1, 2))",
    "y = torch.zeros(3, 3).scatter(0, torch.tensor([[0, 0, 0]]), torch.ones(5))",
    "y = torch.zeros(3, 2).scatter(0, torch.zeros(0, 5, 5, dtype=torch.long), torch.ones(1))",
    "y = torch.zeros(3).scatter(0, torch.tensor(0), torch.ones(2))",
    "y = torch.zeros(()).scatter(0, torch.tensor([0]), torch.ones(1) + 4)",
    "y = torch.zeros(()).scatter(0, torch.tensor([0, 0]), torch.ones(()))",
    "y = torch.zeros(()).scatter(0, torch.tensor([0]), 3.0)",
    "y = torch.zeros(()).scatter_add(0, torch.tensor([0]), torch.ones(1) + 4)",
    "y = torch.zeros(3).scatter_reduce(0, torch.tensor([[0]]), torch.ones(1), 'bad')",
    "y = torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0]), torch.ones(1), 'bad')",
    "y = torch.zeros(3).scatter_reduce(0, torch.tensor([9]), torch.ones(1), 'bad')",
    # scatter(..., reduce='add'|'multiply'): a tensor src or a number, grad_fn NotImplemented;
    # an explicit reduce=None or no src/value matches no overload (TypeError)
    "x = torch.arange(6.).reshape(3, 2).requires_grad_(); "
    "y = x.scatter(0, torch.tensor([[0, 1], [0, 0]]), x[:2] * 10, reduce='add')",
    "x = torch.arange(6.).reshape(3, 2).requires_grad_(); "
    "y = x.scatter(0, torch.tensor([[0, 1], [0, 0]]), x[:2] * 10, reduce='multiply')",
    "x = torch.arange(6.).reshape(3, 2).requires_grad_(); "
    "y = x.scatter(0, torch.tensor([[0, 1], [0, 0]]), 2.0, reduce='multiply')",
    "x = torch.arange(6.).reshape(3, 2).requires_grad_(); "
    "y = torch.scatter(x, 0, torch.tensor([[0, 1], [0, 0]]), value=-1, reduce='add')",
    "x = torch.arange(6.).reshape(3, 2).requires_grad_(); "
    "y = (x * 1).scatter_(0, torch.tensor([[0, 1], [0, 0]]), 0.5, reduce='add')",
    "x = torch.arange(6.).reshape(3, 2).requires_grad_(); "
    "y = x.scatter(0, torch.tensor([[0, 1], [0, 0]]), 2.0, reduce='add'); y.sum().backward()",
    "x = torch.arange(6.).reshape(3, 2).requires_grad_(); "
    "y = (x * 1).scatter_(0, torch.tensor([[0, 1]]), x[:1], reduce='add'); y.sum().backward()",
    "y = torch.arange(6).reshape(3, 2).scatter(0, torch.tensor([[0, 1]]), 2.5, reduce='multiply')",
    "y = torch.arange(6).reshape(3, 2).scatter(0, torch.tensor([[0, 1]]), -2.5, reduce='add')",
    "y = torch.ones(3).bool().scatter(0, torch.tensor([0]), False, reduce='multiply')",
    "y = torch.ones(3).bool().scatter(0, torch.tensor([0]), torch.zeros(1).bool(), "
    "reduce='add')",
    "y = torch.ones(3).half().scatter(0, torch.tensor([0, 0]), 1e-4, reduce='add')",
    "y = torch.ones(3).scatter(0, torch.tensor([0]), 2.0, reduce='sum')",
    "y = torch.ones(3).scatter(0, torch.tensor([0]), torch.ones(1).double(), reduce='bad')",
    "y = torch.ones(3).scatter(0, torch.tensor([9]), torch.ones(1), reduce='bad')",
    "y = torch.ones(3).scatter(0, torch.tensor([9]), torch.ones(1), reduce='add')",
    "y = torch.ones(3).scatter(0, torch.tensor([0]), 2.0, reduce=None)",
    "y = torch.scatter(torch.ones(3), 0, torch.tensor([0]), torch.ones(1), reduce=None)",
    "y = torch.ones(3).scatter(0, torch.tensor([0]))",
    "y = torch.ones(3).scatter_(0, torch.tensor([0]), reduce='add')",
    "y = torch.ones(3).scatter(0, torch.tensor([0]), torch.ones(1), value=2.0)",
    # masked_scatter: shapes, then self/source dtypes (sic: "gotFloat"), then the mask's dtype
    "y = torch.zeros(3).masked_scatter(torch.tensor([True, False, True]), torch.ones(3).double())",
    "y = torch.zeros(3).masked_scatter(torch.tensor([True, False, True]), torch.ones(1).half())",
    "y = torch.zeros(3).masked_scatter(torch.tensor([1, 0, 1]), torch.ones(3).double())",
    "y = torch.zeros(3).masked_scatter(torch.tensor([True, False]), torch.ones(3).double())",
    "y = torch.zeros(3).long().masked_scatter_(torch.tensor([True, False, True]), "
    "torch.ones(3).int())",
    # index_add: a 0-d source with a wrong count (PyTorch's message asks it for its size),
    # source and self shapes beyond dim
    "y = torch.zeros(()).index_add(0, torch.tensor([0, 0]), torch.ones(()))",
    "y = torch.zeros(3).index_add(0, torch.tensor([], dtype=torch.long), torch.ones(()))",
    "y = torch.zeros(()).index_add(0, torch.tensor([0]), torch.ones(1))",
    "y = torch.zeros(3).index_add(0, torch.tensor([0]), torch.ones(()))",
    "y = torch.zeros(3).index_add(0, torch.tensor([0, 1]), torch.ones(2, 1))",
    "y = torch.zeros(3, 2).index_add(0, torch.tensor([0, 1]), torch.ones(2))",
    "y = torch.zeros(3, 2).index_add(0, torch.tensor([0, 1]), torch.ones(2, 2), alpha=2)",
    # bincount: the kernel's dtype first
    "y = torch.bincount(torch.tensor([True, False]))",
    "y = torch.bincount(torch.tensor([[1., 2.]]))",
    "y = torch.bincount(torch.tensor([True]), minlength=-1)",
    "y = torch.bincount(torch.tensor([1, 2]).to(torch.uint8))",
    # linalg.cond: a number ord checks rank, ord, emptiness; only ±1/±inf need square
    # matrices (the message names the ord); a string ord checks rank and squareness first
    "y = torch.linalg.cond(torch.ones(9, 4), 1)",
    "y = torch.linalg.cond(torch.ones(2, 9, 4).long(), -1.0)",
    "y = torch.linalg.cond(torch.ones(9, 4).half(), float('inf'))",
    "y = torch.linalg.cond(torch.ones(9, 4), -float('inf'))",
    "y = torch.linalg.cond(torch.ones(9, 4), True)",
    "y = torch.linalg.cond(torch.ones(9, 4), 'fro')",
    "y = torch.linalg.cond(torch.ones(9, 4), 'bad')",
    "y = torch.linalg.cond(torch.ones(3, 3), 'bad')",
    "y = torch.linalg.cond(torch.ones(9, 4), 3)",
    "y = torch.linalg.cond(torch.ones(3, 3), 0.5)",
    "y = torch.linalg.cond(torch.ones(3), 1)",
    "y = torch.linalg.cond(torch.ones(3), 'nuc')",
    "y = torch.linalg.cond(torch.ones(2, 0, 0).long(), 1)",
    "y = torch.linalg.cond(torch.ones(0, 0).bool(), 'nuc')",
    "y = torch.linalg.cond(torch.ones(3, 0), 2)",
    "y = torch.linalg.cond(torch.ones(3, 0), 'fro')",
    "y = torch.linalg.cond(torch.eye(3).long(), 'nuc')",
    "y = torch.linalg.cond(torch.eye(3).long(), 'fro')",
    "y = torch.linalg.cond(torch.eye(3).half(), 1)",
    "y = torch.linalg.cond(torch.eye(3).double() + 1, 'nuc')",
    "x = (torch.eye(3).double() + 1).requires_grad_(); y = torch.autograd.grad("
    "torch.linalg.cond(x, 'nuc'), x)[0]",
    # linalg.solve names A's own batch element of a singular matrix
    "y = torch.linalg.solve(torch.zeros(2, 2), torch.ones(3, 2, 2))",
    "y = torch.linalg.solve(torch.zeros(1, 2, 2), torch.ones(3, 2, 2))",
    "y = torch.linalg.solve(torch.stack([torch.eye(2), torch.zeros(2, 2)]), "
    "torch.ones(3, 1, 2, 2), left=False)",
    # slogdet's gradient: none from the sign alone; at a singular matrix, LAPACK's infs and
    # NaNs (first order) or linalg.solve's error (create_graph)
    "x = torch.tensor([[2., 1], [1, 3]]).requires_grad_(); y = torch.tensor("
    "torch.autograd.grad(torch.linalg.slogdet(x)[0], x, allow_unused=True)[0] is None)",
    "x = torch.zeros(2, 2).requires_grad_(); y = torch.linalg.slogdet(x)[0]; "
    "y.backward(); y = torch.tensor(x.grad is None)",
    "x = torch.zeros(2, 2).requires_grad_(); "
    "y = torch.autograd.grad(torch.linalg.slogdet(x)[1], x)[0]",
    "x = torch.tensor([[1., 2], [2, 4]]).double().requires_grad_(); "
    "y = torch.autograd.grad(torch.linalg.slogdet(x)[1] * 3, x)[0]",
    "x = torch.stack([torch.eye(2), torch.zeros(2, 2)]).requires_grad_(); "
    "y = torch.autograd.grad(torch.linalg.slogdet(x)[1].sum(), x)[0]",
    "x = torch.zeros(1, 1, 1, 1).double().requires_grad_(); "
    "y = torch.autograd.grad(torch.linalg.slogdet(x)[1].sum(), x, create_graph=True)[0]",
    "x = torch.zeros(2, 2).double().requires_grad_(); "
    "y = torch.autograd.grad(torch.logdet(x), x, create_graph=True)[0]",
    "x = torch.tensor([[2., 1], [1, 3]]).double().requires_grad_(); "
    "y = torch.autograd.grad(torch.linalg.slogdet(x)[1], x, create_graph=True)[0]",
    "x = torch.tensor([[2., 1], [1, 3]]).double().requires_grad_(); "
    "g = torch.autograd.grad(torch.linalg.slogdet(x)[1], x, create_graph=True)[0]; "
    "y = torch.autograd.grad(g.sum(), x)[0]",
    # linalg.lu_solve: dtypes, LU square, B, pivots, then the batches (B's batch as tensor a,
    # numbered within the batch dims), then the kernel; left=False solves X A = B
    "y = torch.linalg.lu_solve(*torch.linalg.lu_factor(torch.ones(2, 0, 0)), "
    "torch.ones(0, 0, 1))",
    "y = torch.linalg.lu_solve(*torch.linalg.lu_factor(torch.eye(3).expand(2, 3, 3)), "
    "torch.ones(5, 4, 3, 1))",
    "y = torch.linalg.lu_solve(*torch.linalg.lu_factor(torch.eye(3).expand(2, 2, 3, 3)), "
    "torch.ones(3, 3, 1), adjoint=True)",
    "LU, piv = torch.linalg.lu_factor(torch.eye(3).expand(2, 3, 3)); "
    "y = torch.linalg.lu_solve(LU.half(), piv, torch.ones(4, 3, 1).half())",
    "LU, piv = torch.linalg.lu_factor(torch.eye(3).expand(2, 3, 3)); "
    "y = torch.linalg.lu_solve(LU.half(), piv, torch.ones(2, 3, 1).half())",
    "LU, piv = torch.linalg.lu_factor(torch.eye(3).expand(2, 3, 3)); "
    "y = torch.linalg.lu_solve(LU, piv[:1], torch.ones(4, 3, 1))",
    "LU, piv = torch.linalg.lu_factor(torch.eye(3).expand(2, 3, 3)); "
    "y = torch.linalg.lu_solve(LU, piv[0], torch.ones(2, 3, 1))",
    "LU, piv = torch.linalg.lu_factor(torch.eye(3).expand(2, 3, 3)); "
    "y = torch.linalg.lu_solve(LU, piv.long(), torch.ones(3))",
    "LU, piv = torch.linalg.lu_factor(torch.eye(3).expand(2, 3, 3)); "
    "y = torch.linalg.lu_solve(LU, piv[..., :2], torch.ones(2, 3, 1))",
    "LU, piv = torch.linalg.lu_factor(torch.eye(3).expand(2, 3, 3)); "
    "y = torch.linalg.lu_solve(LU[0, 0].long(), piv, torch.ones(2, 3, 1))",
    "LU, piv = torch.linalg.lu_factor(torch.eye(3).expand(2, 3, 3)); "
    "y = torch.linalg.lu_solve(LU, piv, torch.ones(5, 1, 3), left=False)",
    "LU, piv = torch.linalg.lu_factor(torch.eye(3).expand(2, 3, 3)); "
    "y = torch.linalg.lu_solve(LU, piv, torch.ones(5, 1, 2), left=False)",
    "A = torch.tensor([[3., 1, 0.5], [1, 2, 0], [0.2, 0.1, 4]]); "
    "LU, piv = torch.linalg.lu_factor(A); LU.requires_grad_(); "
    "y = torch.linalg.lu_solve(LU, piv, torch.ones(2, 3), left=False, adjoint=True) * 1",
    # soft_margin_loss negates the input first (bool refused) and writes the promoted
    # floating result into the input's dtype; a bool target is fine
    "y = torch.nn.functional.soft_margin_loss(torch.ones(3).bool(), torch.ones(3).bool())",
    "y = torch.nn.functional.soft_margin_loss(torch.ones(3).long(), torch.ones(3).half())",
    "y = torch.nn.functional.soft_margin_loss(torch.ones(3).long(), torch.ones(3).long())",
    "y = torch.nn.functional.soft_margin_loss(torch.ones(3).requires_grad_(), "
    "torch.tensor([True, False, True]), reduction='none')",
    # hinge_embedding_loss: the margin in the input's dtype (two bools subtracted), targets
    # other than ±1 take both terms
    "y = torch.nn.functional.hinge_embedding_loss(torch.ones(3).bool(), torch.ones(3).bool())",
    "y = torch.nn.functional.hinge_embedding_loss(torch.ones(3).bool(), torch.ones(3), "
    "reduction='none')",
    "y = torch.nn.functional.hinge_embedding_loss(torch.ones(3).long(), -torch.ones(3), "
    "margin=2.5, reduction='sum')",
    "y = torch.nn.functional.hinge_embedding_loss(torch.ones(3).long(), torch.ones(3))",
    "x = torch.tensor([0.5, -1., 2., 0.3], requires_grad=True); "
    "y = torch.nn.functional.hinge_embedding_loss(x, torch.tensor([1., -1., 0., 2.]), "
    "reduction='none')",
    "x = torch.tensor([0.5, -1., 2., 0.3], requires_grad=True); "
    "y = torch.autograd.grad(torch.nn.functional.hinge_embedding_loss("
    "x, torch.tensor([1., -1., 0., 2.]), margin=2), x)[0] * 1",
    # pdist: 2-D, floating, then p
    "y = torch.nn.functional.pdist(torch.ones(1, 3).long())",
    "y = torch.nn.functional.pdist(torch.ones(0, 3).bool(), p=-1)",
    "y = torch.nn.functional.pdist(torch.ones(3).long())",
    "y = torch.nn.functional.pdist(torch.ones(1, 3).half())",
    # seed-21 run: index_add into an empty multi-dim self, index_select's dim-1 message,
    # stack wraps dim first, ldexp's bool exponent, empty eigh keeps its dtype, svd of NaNs
    "y = torch.zeros(0, 3).index_add(0, torch.tensor([0]), torch.ones(1, 3))",
    "y = torch.zeros(2, 0, 3).index_add(1, torch.tensor([5]), torch.ones(2, 1, 3))",
    "y = torch.zeros(0).index_add(0, torch.tensor([5]), torch.ones(1))",
    "y = torch.ones(1, 1, 3).index_select(-2, torch.tensor([-1]))",
    "y = torch.ones(2, 2, 2, 2).index_select(1, torch.tensor([9]))",
    "y = torch.ones(2, 2, 2, 2).index_select(2, torch.tensor([9]))",
    "y = torch.stack([torch.ones(()), torch.ones(1)], 1)",
    "y = torch.stack([torch.ones(2), torch.ones(3)], -3)",
    "y = torch.ldexp(torch.ones(2), torch.tensor([True, False]))",
    "y = torch.ldexp(torch.ones(2).long(), torch.tensor([True, False]))",
    "y = torch.ldexp(torch.tensor([True, False]), torch.tensor([True, False]))",
    "y = torch.linalg.eigvalsh(torch.ones(0, 0).bool())",
    "y = torch.linalg.eigh(torch.ones(2, 0, 0).long())[1]",
    "y = torch.linalg.svd(torch.tensor([[float('nan'), 1.], [1, 2]]))[1]",
    "y = torch.linalg.svdvals(torch.tensor([[[1, 1.], [1, 2]], [[float('nan'), 1.], [1, 2]]]))",
    "y = torch.linalg.pinv(torch.tensor([[[1, 1.], [1, 2]], [[float('nan'), 1.], [1, 2]]]))",
    "y = torch.svd(torch.tensor([[float('nan'), 1.], [1, 2]]).double())[1]",
    # lstsq: B is a vector only when 1-D or A's shape less its last dim (naming the size
    # check), then the dtype, then the batches with B's extra dim
    "y = torch.linalg.lstsq(torch.ones(3, 1).half(), torch.ones(2, 1).half())[0]",
    "y = torch.linalg.lstsq(torch.ones(1, 1).long(), torch.ones(3).long())[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 3, 1), torch.ones(3, 1))[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 3, 1).half(), torch.ones(3, 1).half())[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 3, 1), torch.ones(1, 3))[0]",
    "y = torch.linalg.lstsq(torch.ones(4, 2, 3, 2), torch.ones(2, 3, 2))[0]",
    "y = torch.linalg.lstsq(torch.ones(4, 2, 3, 2), torch.ones(4, 1, 3))[0]",
    "y = torch.linalg.lstsq(torch.ones(2, 3, 1), torch.ones(2, 3))[0]",
    # max/min/median/mode/kthvalue/nanmedian along a dim: the gradient is scattered back
    # (ScatterBackward0 when recorded), 0-d inputs too
    "x = torch.arange(6.).reshape(2, 3).requires_grad_(); "
    "y = torch.autograd.grad((x.max(1)[0] ** 2).sum(), x, create_graph=True)[0]",
    "x = torch.arange(6.).reshape(2, 3).requires_grad_(); "
    "y = torch.autograd.grad((x.kthvalue(2, 0, True)[0] ** 2).sum(), x, create_graph=True)[0]",
    "x = torch.tensor(2.).requires_grad_(); "
    "y = torch.autograd.grad(x.median(0)[0] ** 2, x, create_graph=True)[0]",
    "x = torch.arange(6.).reshape(2, 3).requires_grad_(); "
    "g = torch.autograd.grad((x.min(0)[0] ** 2).sum(), x, create_graph=True)[0]; "
    "y = torch.autograd.grad((g * g).sum(), x)[0]",
    "x = torch.tensor(2.).requires_grad_(); y = torch.autograd.grad(x.max(0)[0] ** 2, x)[0]",
    "x = torch.arange(6.).reshape(2, 3).requires_grad_(); "
    "y = torch.autograd.grad(x.mode(1)[0].sum(), x)[0]",
    # repeat's backward as PyTorch's: leading dims summed one by one (SumBackward1), no view
    # when nothing is split, zeros (version 1) for a zero repeat
    "x = torch.tensor(2.).requires_grad_(); "
    "y = torch.autograd.grad((x.repeat(2) ** 2).sum(), x, create_graph=True)[0]",
    "x = torch.ones(3).requires_grad_(); "
    "y = torch.autograd.grad((x.repeat(1) ** 2).sum(), x, create_graph=True)[0]",
    "x = torch.ones(2, 3).requires_grad_(); "
    "y = torch.autograd.grad((x.repeat(2, 1) ** 2).sum(), x, create_graph=True)[0]",
    "x = torch.ones(2, 3).requires_grad_(); y = torch.autograd.grad(x.repeat(0, 1).sum(), x)[0]",
    "x = torch.ones(2, 1, 3).requires_grad_(); "
    "g = torch.autograd.grad((x.repeat(1, 2, 1, 2) ** 2).sum(), x, create_graph=True)[0]; "
    "y = torch.autograd.grad((g * g).sum(), x)[0]",
    # var_mean/std_mean: an unused output adds nothing (a NaN variance stays out)
    "x = torch.tensor(2., dtype=torch.float64).requires_grad_(); "
    "y = torch.autograd.grad(torch.var_mean(x, 0)[1], x)[0]",
    "x = torch.ones(2, 3, dtype=torch.float64).requires_grad_(); "
    "y = torch.autograd.grad(torch.std_mean(x, 1)[1].sum(), x, create_graph=True)[0]",
    "x = torch.arange(6.).reshape(2, 3).requires_grad_(); "
    "y = torch.autograd.grad(torch.var_mean(x, 1)[0].sum(), x, create_graph=True)[0]",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_op_errors_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)
