"""nn.functional activations and losses under double backward, against PyTorch 2.13: the node
of the first gradient (PyTorch's backward ops: GeluBackwardBackward0, SoftplusBackwardBackward0,
...), second derivatives, extremes in float16/32/64, and in-place variants."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from oracle import grad_fn_names, same_on_both

ACTIVATIONS = {
    "elu": "F.elu(x)", "celu": "F.celu(x, 0.7)", "selu": "F.selu(x)",
    "leaky_relu": "F.leaky_relu(x, 0.2)", "hardtanh": "F.hardtanh(x)", "relu6": "F.relu6(x)",
    "hardswish": "F.hardswish(x)", "logsigmoid": "F.logsigmoid(x)", "mish": "F.mish(x)",
    "softplus": "F.softplus(x)", "softplus_beta": "F.softplus(x, beta=2, threshold=3)",
    "gelu": "F.gelu(x)", "gelu_tanh": "F.gelu(x, approximate='tanh')", "silu": "F.silu(x)",
    "glu": "F.glu(x)", "softmin": "F.softmin(x, 1)", "normalize": "F.normalize(x)",
    "softsign": "F.softsign(x)", "tanhshrink": "F.tanhshrink(x)",
    "threshold": "F.threshold(x, 0.1, 2.0)",
    "huber": "F.huber_loss(x, y)", "smooth_l1": "F.smooth_l1_loss(x, y, beta=0.5)",
    "mse": "F.mse_loss(x, y)", "bce_logits": "F.binary_cross_entropy_with_logits(x, y.sigmoid())",
    "kl_div": "F.kl_div(x, y.softmax(1), reduction='batchmean')",
}

X = [[-1.5, 0.3, 2.0, -0.2], [0.7, -3.0, 1.1, 0.05]]
Y = [[0.2, 0.4, -1.0, 0.9], [0.1, -2.5, 1.5, 0.3]]


def _weights(t, y):
    return t.arange(y.numel(), dtype=y.dtype).reshape(y.shape) + 1


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_first_gradient_node_and_second_derivative(name):
    def prog(t):
        F = t.nn.functional
        x = t.tensor(X, dtype=t.float64, requires_grad=True)
        y = t.tensor(Y, dtype=t.float64)
        out = eval(ACTIVATIONS[name])
        loss = (out * _weights(t, out)).sum() if out.dim() else out
        g, = t.autograd.grad(loss, x, create_graph=True)
        gg, = t.autograd.grad((g * g).sum(), x)
        return type(out.grad_fn).__name__, type(g.grad_fn).__name__, g, gg
    same_on_both(prog)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("call", ["F.gelu(x)", "F.gelu(x, approximate='tanh')",
                                  "F.softplus(x)", "F.softplus(x, beta=0.5, threshold=4)"])
def test_backward_ops_at_extremes(call, dtype):
    values = [-250.0, -80.0, -20.0, -1e-8, 0.0, 1e-8, 3.0, 19.9, 20.1, 80.0, 250.0]
    if dtype == "float16":   # x ** 3 overflows float16 beyond 40 (NaN != NaN when compared)
        values = [v for v in values if abs(v) < 40]

    def prog(t):
        F = t.nn.functional
        x = t.tensor(values, dtype=getattr(t, dtype), requires_grad=True)
        out = eval(call)
        g, = t.autograd.grad(out.sum(), x, create_graph=True)
        gg, = t.autograd.grad(g.sum(), x)
        return g, gg
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_on_both(prog)


def test_triple_backward_through_gelu_backward():
    def prog(t):
        x = t.tensor([-1.0, 0.5, 2.0], dtype=t.float64, requires_grad=True)
        g, = t.autograd.grad(t.nn.functional.gelu(x).sum(), x, create_graph=True)
        gg, = t.autograd.grad(g.sum(), x, create_graph=True)
        ggg, = t.autograd.grad(gg.sum(), x)
        return grad_fn_names(g), gg, ggg
    same_on_both(prog)


def test_silu_in_place():
    def prog(t):
        x = t.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        y = x * 1
        z = t.nn.functional.silu(y, inplace=True)
        z.sum().backward()
        return z is y, type(z.grad_fn).__name__, y._version, x.grad
    same_on_both(prog)


def test_double_backward_values_match_numerically():
    # a cross-check of the new backward ops that does not lean on PyTorch's own formulas
    import leafgrad
    x = leafgrad.tensor(np.linspace(-4, 4, 9), requires_grad=True)
    for fn in (leafgrad.nn.functional.gelu, leafgrad.nn.functional.softplus):
        assert leafgrad.autograd.gradgradcheck(fn, (x,))
