"""Division's gradient for the divisor rounds as PyTorch's (found by the CI fuzz draw).

PyTorch computes ``-grad * ((self / other) / other)``; ``-grad * self / (other * other)`` is the
same real number but not the same float, and ``a / a`` made it visible: PyTorch's gradient is
``g / a - g * (1 / a)`` (a few ulps, not 0).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_div_by_itself_gradient_bits(dtype):
    rng = np.random.default_rng(0)
    xs = rng.uniform(1e-4, 2e-3, 256).astype(dtype)
    gs = rng.uniform(-2, 2, 256).astype(dtype)
    out = []
    for L in (leafgrad, torch):
        x = L.tensor(xs, requires_grad=True)
        a = x * 1.0        # a non-leaf: both edges of a / a meet in its input buffer
        y = a / a
        (gx,) = L.autograd.grad(y, x, L.tensor(gs))
        out.append(gx.detach().numpy())
    assert np.count_nonzero(out[1]) > 0     # the case is one where rounding shows
    np.testing.assert_array_equal(out[0], out[1])


def test_div_other_gradient_bits():
    rng = np.random.default_rng(1)
    a_np, b_np, g_np = (rng.uniform(0.1, 3, 200).astype("float32") for _ in range(3))
    out = []
    for L in (leafgrad, torch):
        a, b = L.tensor(a_np, requires_grad=True), L.tensor(b_np, requires_grad=True)
        out.append([t.numpy() for t in L.autograd.grad(a / b, (a, b), L.tensor(g_np))])
    for mine, theirs in zip(*out):
        np.testing.assert_array_equal(mine, theirs)
