"""Regressions from the seed-12 and seed-13 10k fuzz runs (issue 8, session 5): tensor ops that
raised another exception type or message than PyTorch, raised where PyTorch returns, or
leaked a NumPy error.

Each statement runs in leafgrad and in torch (``test_widened._run``): both must raise the same
exception type and first line, or give the same value, dtype, shape, grad_fn and version.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad

from .test_widened import _run

STATEMENTS = [
    # unbind of a 0-d tensor checks dim (range [-1, 0]) before refusing the 0-d tensor
    "y = torch.zeros(()).unbind(-2)[0]",
    "y = torch.zeros(()).unbind(1)[0]",
    "y = torch.zeros(()).unbind(-1)[0]",
    "y = torch.unbind(torch.zeros(()), 0)[0]",
    # repeat_interleave of a 0-d tensor with a tensor of repeats: any dim is named unchecked
    "y = torch.zeros(()).repeat_interleave(torch.tensor([1]), dim=-2)",
    "y = torch.zeros(()).repeat_interleave(torch.tensor([1, 2]), dim=5)",
    "y = torch.zeros(()).repeat_interleave(torch.tensor(1), dim=-1)",
    "y = torch.zeros(()).repeat_interleave(2, dim=3)",
    "y = torch.zeros(()).repeat_interleave(2, dim=-1)",
    # index_add: the first/last-dim kernel (which names the bad index) runs for alpha 1 only
    "y = torch.zeros(1, 1).long().index_add(0, torch.tensor([-1, 0]), torch.ones(2, 1).long(), "
    "alpha=2)",
    "y = torch.zeros(2, 3).index_add(0, torch.tensor([9]), torch.ones(1, 3), alpha=True)",
    "y = torch.zeros(2, 3).index_add(1, torch.tensor([9]), torch.ones(2, 1), alpha=1.0)",
    "y = torch.zeros(2, 3).index_add(1, torch.tensor([9]), torch.ones(2, 1), alpha=-0.5)",
    "y = torch.zeros(2, 3, 4).index_add(1, torch.tensor([9]), torch.ones(2, 1, 4))",
    # index_fill of an empty tensor: PyTorch's restrided view needs storage (any index), unless
    # that view is empty too; then the indices are not checked
    "y = torch.zeros(0).index_fill(0, torch.tensor([0]), 1.5)",
    "y = torch.zeros(0).index_fill(0, torch.tensor([-1, 5]), torch.tensor(1.5))",
    "y = torch.zeros(0, 2).index_fill(0, torch.tensor([0]), 1.5)",
    "y = torch.zeros(2, 0).index_fill(1, torch.tensor([0]), 1.5)",
    "y = torch.zeros(0, 2).index_fill(1, torch.tensor([7]), 1.5)",
    "y = torch.zeros(2, 0).index_fill(0, torch.tensor([5]), 1.5)",
    "y = torch.zeros(3, 0, 2).half().index_fill(2, torch.tensor([5, 1, 1]), 1.5)",
    "y = torch.zeros(0).long().index_fill(0, torch.tensor([0]), 1)",
    "y = torch.zeros(0).index_fill(0, torch.tensor([], dtype=torch.long), 1.5)",
    # index_fill's checks in PyTorch's order: value rank, index dtype, dim, index rank, bounds
    "y = torch.zeros(3).index_fill(0, torch.tensor([[0.]]), torch.ones(2))",
    "y = torch.zeros(3).index_fill(5, torch.tensor([[0.]]), 1.5)",
    "y = torch.zeros(3).index_fill(5, torch.tensor([[0]]), 1.5)",
    "y = torch.zeros(3).index_fill(0, torch.tensor([[0]]), 1.5)",
    "y = torch.zeros(()).index_fill(0, torch.tensor([[0]]), 1.)",
    "y = torch.zeros(3).index_fill(0, torch.tensor([0], dtype=torch.int32), torch.tensor(1.))",
    "y = torch.zeros(3).index_fill_(0, torch.tensor([True]), 1.5)",
    "y = torch.zeros(()).index_fill(0, torch.tensor([3]), 1.)",
    "y = torch.zeros(3).index_fill(0, torch.tensor(1), 1.)",
    # logcumsumexp checks dim before the dtype
    "y = torch.zeros(()).bool().logcumsumexp(1)",
    "y = torch.zeros(3).long().logcumsumexp(-2)",
    "y = torch.zeros(3).long().logcumsumexp(0)",
    # cummax/cummin of a 0-d tensor name themselves for a bad dim
    "y = torch.zeros(()).cummin(-2)[0]",
    "y = torch.zeros(()).cummax(1)[1]",
    "y = torch.cummin(torch.zeros(()).long(), 3)[0]",
    "y = torch.zeros(()).cummax(-1)[1]",
    "y = torch.zeros(3).cummin(3)[0]",
    # mode: PyTorch's CPU kernel std::sorts (value, index) pairs; NaNs (never equal, never
    # ordered) and slices longer than 16 (introsort, unstable) decide the value and index
    "y = torch.tensor([float('nan'), 0.38, float('nan'), float('nan')]).mode(-1, True)[1]",
    "y = torch.tensor([float('nan'), 0.38, float('nan'), float('nan')]).mode()[0]",
    "y = torch.tensor([2., float('nan'), 1., float('nan')]).mode()[1]",
    "y = torch.tensor([float('nan'), .5, float('nan'), .5, 1.]).mode()[0]",
    "y = torch.tensor([float('nan')]).double().mode(0)[1]",
    "y = (torch.arange(51) % 3).float().mode()[1]",
    "y = (torch.arange(48) % 4 // 3).mode()[1]",
    # cosine_similarity expands its inputs with infer_size's message (not broadcast_shapes')
    "y = F.cosine_similarity(torch.ones(3), torch.ones(4), 0)",
    "y = F.cosine_similarity(torch.ones(4, 2, 1), torch.ones(4, 2), -1)",
    "y = F.cosine_similarity(torch.ones(2, 3), torch.ones(4, 5), 1)",
    "y = F.cosine_similarity(torch.ones(2, 3), torch.ones(3, 3, 3), 1)",
    "y = F.cosine_similarity(torch.ones(3).long(), torch.ones(4), 5)",
    "y = F.cosine_similarity(torch.ones(2, 1).requires_grad_(), torch.ones(3), 1)",
    # ... after its dtype check: the common dtype must be floating
    "y = F.cosine_similarity(torch.ones(3).long(), torch.ones(3).long(), 0)",
    "y = F.cosine_similarity(torch.ones(3).long(), torch.ones(4).bool(), 4)",
    "y = F.cosine_similarity(torch.ones(3).byte(), torch.ones(3).char(), 0)",
    "y = F.cosine_similarity(torch.ones(3).half(), torch.ones(3).long(), 0)",
    # gather/scatter name the first bad index in the order PyTorch's kernel visits the index:
    # the index dim outside the inner (merged) loop unless it is the last dim
    "y = torch.zeros(3, 4, 1).gather(1, torch.tensor([[[0], [-3], [1], [2]], [[3], [2], [0], "
    "[-1]], [[1], [1], [1], [1]]]))",
    "y = torch.zeros(3, 4).gather(0, torch.tensor([[0, 1, 1, 1], [1, 9, 1, 1], [-7, 1, 1, 1]]))",
    "y = torch.zeros(3, 4).gather(1, torch.tensor([[0, 1, 1, 1], [1, 9, 1, 1], [-7, 1, 1, 1]]))",
    "y = torch.zeros(2, 3, 4).gather(1, torch.tensor([[[0, 0, 0, -2], [0, 0, 0, 0], "
    "[0, 7, 0, 0]], [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]]))",
    "y = torch.zeros(4, 2).scatter(0, torch.tensor([[0, 5], [-1, 0]]), torch.ones(2, 2))",
    "y = torch.zeros(4, 3).scatter(0, torch.tensor([[0, 5], [-1, 0]]), torch.ones(2, 2))",
    "y = torch.zeros(4, 2).scatter_add(0, torch.tensor([[0, 5], [-1, 0]]), torch.ones(2, 3))",
    "y = torch.zeros(4, 2).scatter(0, torch.tensor([[0, 5], [-1, 0]]), 2.0)",
    "y = torch.zeros(4, 2).scatter_reduce(0, torch.tensor([[0, 5], [-1, 0]]), torch.ones(2, 2), "
    "'amax')",
    # dist with p=0: PyTorch's gradient is undefined; for `other` it negates it, which raises
    "x = torch.ones(1, 1, 3, dtype=torch.float64).requires_grad_(); "
    "y = torch.autograd.grad(torch.dist(x, x * 2, 0), x)[0]",
    "x = torch.ones(3).requires_grad_(); y = torch.autograd.grad(torch.dist(torch.zeros(3), x, 0),"
    " x)[0]",
    "x = torch.ones(1, 3).requires_grad_(); torch.dist(x, torch.zeros(3), 0).backward(); "
    "y = torch.zeros(1) if x.grad is None else x.grad",
    "x = torch.ones(1, 3).requires_grad_(); "
    "y = torch.autograd.grad(torch.dist(x, torch.zeros(3), 0), x, materialize_grads=True)[0]",
    # adaptive average pooling's backward refuses an empty non-batch dim of grad_output
    "x = torch.ones(1, 1, 2, 1).requires_grad_(); "
    "y = torch.autograd.grad(F.adaptive_avg_pool2d(x, (0, 1)).sum(), x)[0]",
    "x = torch.ones(1, 2, 1).requires_grad_(); "
    "y = torch.autograd.grad(F.adaptive_avg_pool2d(x, (0, 1)).sum(), x)[0]",
    "x = torch.ones(1, 2, 1, 3).requires_grad_(); "
    "y = torch.autograd.grad(F.adaptive_avg_pool3d(x, (1, 1, 0)).sum(), x)[0]",
    "x = torch.ones(1, 1, 2).requires_grad_(); "
    "y = torch.autograd.grad(F.adaptive_avg_pool1d(x, 0).sum(), x)[0]",
    "x = torch.ones(1, 1, 2, 2).requires_grad_(); "
    "y = torch.autograd.grad(F.interpolate(x, scale_factor=0.4, mode='area').sum(), x)[0]",
    "x = torch.ones(0, 1, 2, 2).requires_grad_(); "
    "y = torch.autograd.grad(F.adaptive_avg_pool2d(x, (2, 1)).sum(), x)[0]",
    "x = torch.ones(2, 0, 2, 2).requires_grad_(); "
    "y = torch.autograd.grad(F.adaptive_avg_pool2d(x, (2, 1)).sum(), x)[0]",
]

STATEMENTS += [
    # softmax/log_softmax: dim first, then an empty input of any dtype comes back as it is
    "y = torch.zeros(0, 3).long().log_softmax(-1)",
    "y = torch.zeros(3, 0).long().log_softmax(0)",
    "y = torch.zeros(0, 2, 3).long().softmax(1)",
    "y = F.softmax(torch.zeros(0, 3).bool(), -1)",
    "y = torch.zeros(0, 3).long().log_softmax(5)",
    "y = torch.zeros(2, 3).long().softmax(0)",
    "y = torch.zeros(0, 3).long().softmax(1, dtype=torch.float64)",
    "x = torch.zeros(0, 3).requires_grad_(); "
    "y = torch.autograd.grad(F.log_softmax(x, 1).sum(), x)[0]",
    # a node whose needed formulas use nothing saved (copysign's other) still runs; its
    # gradient is PyTorch's zeros_like(other) (other's shape and dtype, version 1)
    "x = torch.ones(1).requires_grad_(); "
    "y = torch.autograd.grad(torch.copysign(torch.ones(1), x).sum(), x)[0]",
    "x = torch.ones(1).requires_grad_(); w = torch.ones(1).requires_grad_(); "
    "y = torch.autograd.grad(torch.copysign(torch.ones(1), x), x, w, create_graph=True)[0]",
    "x = torch.ones(2, dtype=torch.float64).requires_grad_(); "
    "y = torch.autograd.grad(torch.copysign(torch.ones(2, 1, dtype=torch.float16), x).sum(), "
    "x)[0]",
]

STATEMENTS += [
    # clamp's min/max gradients combine two masks in place, as PyTorch: the first mask cannot
    # grow by broadcasting
    "x = torch.ones(1); lo = torch.zeros(1).requires_grad_(); hi = torch.ones(2); "
    "y = torch.autograd.grad(x.clamp(min=lo, max=hi).sum(), lo)[0]",
    "x = torch.ones(1); lo = torch.zeros(2).requires_grad_(); hi = torch.ones(1).requires_grad_(); "
    "y = torch.autograd.grad(x.clamp(min=lo, max=hi).sum(), hi)[0]",
    "x = torch.ones(2); lo = torch.zeros(1).requires_grad_(); hi = torch.ones(2).requires_grad_(); "
    "y = torch.autograd.grad(x.clamp(min=lo, max=hi).sum(), lo)[0]",
    "x = torch.ones(3); lo = torch.zeros(2, 1); hi = torch.ones(1, 3).requires_grad_(); "
    "y = torch.autograd.grad(x.clamp(min=lo, max=hi).sum(), hi)[0]",
    "x = torch.ones(1); lo = torch.zeros(2, 1); hi = torch.ones(1, 3).requires_grad_(); "
    "y = torch.autograd.grad(x.clamp(min=lo, max=hi).sum(), hi)[0]",
]

STATEMENTS += [
    # prod saves its result (ProdBackward0/1): changing the product in place fails the backward
    "x = torch.tensor([[1., 2.]]).requires_grad_(); p = x.prod(1); q = p * 1; p.add_(1); "
    "y = torch.autograd.grad(q.sum(), x)[0]",
    "x = torch.tensor([[1., 2.]]).requires_grad_(); p = x.prod(1, keepdim=True); p.add_(1); "
    "y = torch.autograd.grad(p.sum(), x)[0]",
    "x = torch.tensor([[1., 2.]]).requires_grad_(); p = x.prod(); p.add_(1); "
    "y = torch.autograd.grad(p.sum(), x)[0]",
    "x = torch.tensor(2.).requires_grad_(); p = x.prod(0); p.add_(1); "
    "y = torch.autograd.grad(p.sum(), x)[0]",
    "x = torch.tensor([[0., 2.]]).requires_grad_(); y = torch.autograd.grad(x.prod(1).sum(), x)[0]",
    # without zeros its gradient is grad * (result / self): a second derivative goes through
    # the saved result, so through the first graph (freed here)
    "x = torch.tensor([1.5, 2., -3.]).requires_grad_(); g = torch.autograd.grad(x.prod(0, True)"
    ".sum(), x, create_graph=True, retain_graph=False)[0]; "
    "y = torch.autograd.grad(g.sum(), x)[0]",
    "x = torch.tensor([[1.5, 2., -3.]]).requires_grad_(); "
    "g = torch.autograd.grad(x.prod(), x, create_graph=True)[0]; "
    "y = torch.autograd.grad(g.sum(), x)[0] * 1",
    "x = torch.tensor([[1.5, 2., -3.]]).requires_grad_(); "
    "g = torch.autograd.grad(x.prod(1), x, torch.ones(1, requires_grad=True), "
    "create_graph=True)[0]; y = torch.autograd.grad(g.sum(), x)[0] * 1",
    "x = torch.tensor([[1.5, 2., -3.]]).requires_grad_(); "
    "g = torch.autograd.grad(x.prod(1, dtype=torch.float64).sum(), x, create_graph=True)[0]; "
    "y = g",
    "x = torch.tensor([[1.5, 0., -3.]]).requires_grad_(); "
    "y = torch.autograd.grad(x.prod(1).sum(), x, create_graph=True)[0]",
]

# ops that return (values, indices) save the indices tensor they return: changing it in place
# makes the backward fail, naming that tensor (its own shape, keepdim or not)
for _op in ("min(-1)", "max(0)", "min(0, True)", "max(0, keepdim=True)", "kthvalue(1, 0)",
            "mode(0)", "median(0)", "nanmedian(0)", "sort(0)", "sort(0, True)", "topk(1, 0)",
            "cummax(0)", "cummin(0)"):
    STATEMENTS += [
        f"x = torch.tensor(1.5).requires_grad_(); v, i = x.{_op}; i.add_(0); "
        f"y = torch.autograd.grad(v.sum(), x)[0]",
        f"x = torch.tensor([1.5, 2.]).requires_grad_(); v, i = x.{_op}; i.add_(0); "
        f"y = torch.autograd.grad(v.sum(), x)[0]",
        f"x = torch.tensor([[1.5, 2.], [3, 1]]).requires_grad_(); v, i = x.{_op}; "
        f"g = torch.autograd.grad(v.sum(), x, create_graph=True)[0]; "
        f"y = torch.autograd.grad((g * g).sum(), x)[0] if g.requires_grad else g",
    ]
# their gradient is PyTorch's zeros with the gradient scattered in place (version 2)
STATEMENTS += [
    "x = torch.tensor(1.5).requires_grad_(); v, i = x.sort(0); "
    "y = torch.autograd.grad(v.sum(), x)[0]",
    "x = torch.tensor(1.5).requires_grad_(); v, i = x.topk(1, 0); "
    "y = torch.autograd.grad(v.sum(), x)[0]",
    "x = torch.tensor(1.5).requires_grad_(); w = torch.ones(()).requires_grad_(); "
    "v, i = x.sort(0); y = torch.autograd.grad(v, x, w, create_graph=True)[0]",
    "x = torch.tensor([[1.5, 2.], [3, 1]]).requires_grad_(); w = torch.ones(1, 2).requires_grad_();"
    " v, i = x.topk(1, 0); y = torch.autograd.grad(v, x, w, create_graph=True)[0]",
    "x = torch.zeros(0, 2).requires_grad_(); v, i = x.sort(0); "
    "y = torch.autograd.grad(v.sum(), x)[0]",
    "x = torch.tensor(1.5).requires_grad_(); v, i = x.cummax(0); "
    "y = torch.autograd.grad(v.sum(), x)[0]",
    "x = torch.tensor([1.5, 2.]).requires_grad_(); w = torch.ones(2).requires_grad_(); "
    "v, i = x.cummin(0); y = torch.autograd.grad(v, x, w, create_graph=True)[0]",
    "x = torch.tensor(1.5).requires_grad_(); w = torch.ones(()).requires_grad_(); "
    "v, i = x.cummin(0); y = torch.autograd.grad(v, x, w, create_graph=True)[0]",
    "x = torch.zeros(0).requires_grad_(); v, i = x.cummin(0); "
    "y = torch.autograd.grad(v.sum(), x)[0]",
    # kthvalue of bool: the k range is checked first, and a 0-d tensor is returned before the
    # kernel's dtype check (fuzz seed 14)
    "y = torch.kthvalue(torch.tensor(False), 1, 0)[0]",
    "y = torch.kthvalue(torch.tensor(True), 1, -1, keepdim=True)[1]",
    "y = torch.kthvalue(torch.tensor(True), 2, 0)[0]",
    "y = torch.kthvalue(torch.tensor([True, False, True]), 1, 0)[0]",
    "y = torch.kthvalue(torch.tensor([True, False, True]), 5, 0)[0]",
    # allclose of shapes that do not broadcast: isclose's RuntimeError, not NumPy's ValueError
    # (fuzz seed 14)
    "y = torch.tensor(torch.allclose(torch.ones(1, 2), torch.ones(3)))",
    "y = torch.tensor(torch.allclose(torch.ones(4, 1), torch.ones(2, 3)))",
    "y = torch.tensor(torch.allclose(torch.ones(2, 1), torch.ones(3)))",
    # an integer index out of range: PyTorch names the item's position in the index, not the
    # dim of the tensor it selects from (x[0, 7] says dimension 1)
    "x = torch.ones(2, 1, 3); y = x[0, 7]",
    "x = torch.ones(2, 1, 3); y = x[1, 0, 5]",
    "x = torch.ones(2, 1, 3); y = x[:, 3]",
    "x = torch.ones(2, 1, 3); y = x[None, 0, 4]",
    "x = torch.ones(2, 1, 3); y = x[..., 9]",
    "x = torch.ones(2, 1, 3); y = x[0][7]",
    "x = torch.ones(2, 1, 3); x[0, 7] = 1.0; y = x",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_err5_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)


def test_mode_matches_torch_on_random_slices():
    # ties and NaNs over slice lengths on both sides of std::sort's insertion-sort threshold
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 70))
        a = rng.integers(0, int(rng.integers(1, 5)), (2, n)).astype(np.float32)
        if rng.random() < 0.5:
            a[rng.random(a.shape) < 0.3] = np.nan
        values, indices = torch.tensor(a).mode(-1)
        ours = leafgrad.tensor(a).mode(-1)
        np.testing.assert_array_equal(ours[0].numpy(), values.numpy())
        np.testing.assert_array_equal(ours[1].numpy(), indices.numpy())

