"""softshrink, hardshrink, rrelu (and the in-place F.celu_ / selu_ / threshold_ / rrelu_,
torch.relu_) against PyTorch 2.13: values, signed zeros, saved values, nodes of first and second
derivatives, errors."""
from __future__ import annotations

import pytest

import leafgrad
from oracle import same_on_both

X = [[-1.5, 0.3, 2.0, -0.2], [0.7, -3.0, 0.5, -0.5]]

CALLS = [
    "F.softshrink(x)", "F.softshrink(x, 0.3)", "F.softshrink(x, 0.0)", "F.hardshrink(x)",
    "t.hardshrink(x, 0.3)", "x.hardshrink()", "F.rrelu(x, training=False)",
    "F.rrelu(x, 0.1, 0.5)", "t.rrelu(x)", "F.rrelu(x * 1, inplace=True)", "t.rrelu_(x * 1)",
    "F.rrelu_(x * 1)", "F.celu_(x * 1)", "F.selu_(x * 1)", "F.threshold_(x * 1, 0.1, 3.0)",
    "t.relu_(x * 1)",
]


def _saved(node):
    out = {}
    for name in sorted(a for a in dir(node) if a.startswith("_saved_") and a != "_saved_noise"):
        value = getattr(node, name)
        out[name] = (tuple(value.shape), value.tolist()) if hasattr(value, "shape") else value
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("call", CALLS)
def test_values_nodes_and_derivatives(call, dtype):
    def prog(t):
        F = t.nn.functional
        x = t.tensor(X, dtype=getattr(t, dtype), requires_grad=True)
        y = eval(call)
        weights = t.arange(8, dtype=y.dtype).reshape(2, 4)
        g, = t.autograd.grad((y * weights).sum(), x, create_graph=True)
        gg = t.autograd.grad(g.sum(), x, allow_unused=True)[0]
        return (y, type(y.grad_fn).__name__, _saved(y.grad_fn),
                [type(f).__name__ if f is not None else None for f, _ in y.grad_fn.next_functions],
                g, type(g.grad_fn).__name__, gg)
    same_on_both(prog)


@pytest.mark.parametrize("call", [
    "F.softshrink(x, -1)", "F.softshrink(x.double(), -1)", "F.softshrink(x.half(), -1.5)",
    "F.hardshrink(x.long())", "F.softshrink(x.long())", "F.rrelu(x.long())",
    "F.rrelu(x.long(), training=True)"])
def test_errors(call):
    def prog(t):
        F = t.nn.functional
        x = t.tensor(X)
        return eval(call)
    same_on_both(prog)


def test_rrelu_training_draws_slopes_in_range():
    # The slopes come from leafgrad's generator (same distribution as PyTorch, other stream):
    # check the law, the saved noise and that the gradient is the noise.
    F = leafgrad.nn.functional
    leafgrad.manual_seed(0)
    x = leafgrad.linspace(-3, 3, 2000, requires_grad=True)
    y = F.rrelu(x, 0.1, 0.4, training=True)
    noise = y.grad_fn._saved_noise
    negative = x.detach() <= 0
    slopes = noise[negative]
    assert type(y.grad_fn).__name__ == "RreluWithNoiseBackward0"
    assert y.grad_fn._saved_training is True
    assert bool((slopes >= 0.1).all()) and bool((slopes <= 0.4).all())
    assert abs(float(slopes.mean()) - 0.25) < 0.02
    assert bool((noise[~negative] == 1).all())
    assert bool((y.detach() == x.detach() * noise).all())
    y.sum().backward()
    assert bool((x.grad == noise).all())
