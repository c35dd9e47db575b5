"""F.gaussian_nll_loss, F.multilabel_soft_margin_loss, F.cosine_similarity and
F.pairwise_distance against PyTorch 2.13: values, gradients and PyTorch's node trees (the
composites PyTorch builds in Python or C++), and their errors."""
from __future__ import annotations

import pytest

from oracle import grad_fn_names, same_on_both

X = [[-1.5, 0.3, 2.0, -0.2], [0.7, -3.0, 0.5, -0.5]]
Y = [[0.5, 0.1, 1.0, 0.2], [0.3, -1.0, 0.5, 0.5]]

CALLS = [
    "F.cosine_similarity(x, y)", "F.cosine_similarity(x, y, dim=0)",
    "F.cosine_similarity(x, z)", "F.cosine_similarity(x[0], y, dim=-1)",
    "F.pairwise_distance(x, y)", "F.pairwise_distance(x, y, p=1, keepdim=True)",
    "F.pairwise_distance(x[0], y[0])", "F.pairwise_distance(x, y, p=3.0)",
    "F.pairwise_distance(x, y[1])",
    "F.gaussian_nll_loss(x, y, t.ones(2, 4) * 0.7)",
    "F.gaussian_nll_loss(x, y, t.full((2,), 0.5), full=True, reduction='sum')",
    "F.gaussian_nll_loss(x, y, 0.5)", "F.gaussian_nll_loss(x, y, t.ones(2, 1), reduction='none')",
    "F.gaussian_nll_loss(x, y, t.zeros(2, 4), eps=0.1)",
    "F.gaussian_nll_loss(x, y, v)",
    "F.multilabel_soft_margin_loss(x, (y > 0.2).float())",
    "F.multilabel_soft_margin_loss(x, (y > 0.2).float(), weight=t.tensor([1., 2., 3., 4.]), "
    "reduction='none')",
    "F.multilabel_soft_margin_loss(x, y, reduction='sum')",
    "F.multilabel_soft_margin_loss(x[0], y[0])",
]


@pytest.mark.parametrize("call", CALLS)
def test_values_gradients_and_nodes(call):
    def prog(t):
        F = t.nn.functional
        x = t.tensor(X, dtype=t.float64, requires_grad=True)
        y = t.tensor(Y, dtype=t.float64, requires_grad=True)
        z = t.zeros(2, 4, dtype=t.float64, requires_grad=True)
        v = t.tensor([[0.5, 1.0, 2.0, 0.1], [1e-8, 0.3, 0.2, 4.0]], dtype=t.float64,
                     requires_grad=True)
        r = eval(call)
        grads = t.autograd.grad(r.sum(), [x, y, z, v], allow_unused=True)
        return r, grad_fn_names(r), grads
    same_on_both(prog)


@pytest.mark.parametrize("call", [
    "F.gaussian_nll_loss(x, y, -1.0)", "F.gaussian_nll_loss(x, y, -t.ones(2, 4))",
    "F.gaussian_nll_loss(x, y, t.ones(3))", "F.gaussian_nll_loss(x, y, t.ones(1, 1))",
    "F.gaussian_nll_loss(x, y, t.ones(2, 4), reduction='bad')",
    "F.multilabel_soft_margin_loss(x, y, reduction='bad')",
    "F.pairwise_distance(x.long(), y.long())"])
def test_errors(call):
    def prog(t):
        F = t.nn.functional
        x = t.tensor(X)
        y = t.tensor(Y)
        return eval(call)
    same_on_both(prog)
