"""Findings of session 7 fixed by the lead: the graphs that first-order gradients record under
``create_graph=True`` (their grad_fn names and next functions, which double backward walks)."""
from __future__ import annotations

import pytest
from oracle import grad_fn_names, same_on_both


def _first_grad(L, op, shape, dtype="float64"):
    n = 1
    for s in shape:
        n *= s
    x = (L.arange(1, n + 1, dtype=getattr(L, dtype)) * 0.3 + 0.1).reshape(shape)
    x.requires_grad_()
    y = op(L, x)
    seed = L.ones(y.shape, dtype=y.dtype, requires_grad=True)
    (g,) = L.autograd.grad(y, [x], seed, create_graph=True)
    (gg,) = L.autograd.grad((g * g).sum(), [seed], allow_unused=True)
    return g, grad_fn_names(g), gg


SHAPES = [(), (1,), (3,), (2, 3), (2, 1)]


# -- cumsum's gradient is PyTorch's reversed_cumsum, flip().cumsum().flip() when recorded, and
# the gradient itself when the dim has one element (seed 25's SumBackward0 family) --------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumulative_gradient_graph(name, shape, dim):
    same_on_both(lambda L: _first_grad(L, lambda L, x: getattr(x, name)(dim), shape))


# -- amax/amin's gradient is (grad / count) * mask on the restored dims; a 0-d input with a dim
# restores to (1,), summed back to () by the engine (SumBackward0), as PyTorch's (seed 25) ------
@pytest.mark.parametrize("shape", SHAPES + [(2, 2)])
@pytest.mark.parametrize("dim", [0, -1, (), (0, -1)])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("name", ["amax", "amin"])
def test_amax_gradient_graph(name, shape, dim, keepdim):
    def op(L, x):
        return getattr(x, name)(dim, keepdim)
    same_on_both(lambda L: _first_grad(L, op, shape))


def test_amax_ties_rounding():
    # (grad / count) * mask rounds as PyTorch's: 0.7 / 3 is not 0.7 * (1 / 3) in float32
    def run(L):
        x = L.tensor([[1.0, 1.0, 1.0], [2.0, 0.5, 2.0]], requires_grad=True)
        y = x.amax(1)
        y.backward(L.tensor([0.7, 0.1]))
        return x.grad.numpy().tobytes()
    same_on_both(run)
