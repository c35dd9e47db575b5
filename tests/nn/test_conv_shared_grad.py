"""A convolution's input and weight gradients share the transposed ``grad_output`` without
create_graph (Note [Shared gradient layout] in ops/conv.py): the gradients must equal
PyTorch's however the two formulas meet the same gradient tensor (one node, two nodes given
one gradient tensor, a frozen weight or input, a hook changing the gradient in place)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from oracle import assert_same_tensor

import leafgrad
from leafgrad.ops import conv

X = np.random.default_rng(0).standard_normal((2, 3, 7, 6)).astype(np.float32)
W1 = np.random.default_rng(1).standard_normal((4, 3, 3, 3)).astype(np.float32)
W2 = np.random.default_rng(2).standard_normal((4, 3, 3, 3)).astype(np.float32)
B = np.random.default_rng(3).standard_normal(4).astype(np.float32)


@pytest.mark.parametrize("case", ["both", "frozen_weight", "frozen_input", "two_convs",
                                  "two_convs_one_frozen", "hook_inplace", "twice", "groups",
                                  "padding_stride", "float64"])
def test_conv_gradients_like_torch(case, monkeypatch):
    def program(lib):
        F = lib.nn.functional
        dtype = lib.float64 if case == "float64" else lib.float32
        x = lib.tensor(X, dtype=dtype, requires_grad=case != "frozen_input")
        w1 = lib.tensor(W1, dtype=dtype, requires_grad=case != "frozen_weight")
        w2 = lib.tensor(W2, dtype=dtype, requires_grad=case != "two_convs_one_frozen")
        b = lib.tensor(B, dtype=dtype, requires_grad=True)
        if case in ("two_convs", "two_convs_one_frozen"):
            # a + b hands the same gradient tensor to both convolution nodes
            out = F.conv2d(x, w1, b) + F.conv2d(x * 2, w2)
        elif case == "groups":
            out = F.conv2d(x[:, :2], w1[:, :1], b, groups=2)
        elif case == "padding_stride":
            out = F.conv2d(x, w1, b, stride=2, padding=1)
        else:
            out = F.conv2d(x, w1, b)
        if case == "hook_inplace":
            mid = out * 1
            mid.register_hook(lambda g: g.mul_(3))
            out = mid
        loss = (out * out).sum()
        loss.backward(retain_graph=case == "twice")
        if case == "twice":
            loss.backward()
        return [t.grad for t in (x, w1, w2, b)]

    mine, theirs = program(leafgrad), program(torch)
    for m, t in zip(mine, theirs):
        assert (m is None) == (t is None)
        if m is not None:   # float32 convolutions add in another order than PyTorch's
            assert_same_tensor(m, t, atol=1e-3, rtol=1e-4)
    # bit for bit against the record path, which computes the layout twice
    monkeypatch.setattr(conv, "_plain", lambda grad, weight: False)
    general = program(leafgrad)
    for m, g in zip(mine, general):
        assert (m is None) == (g is None)
        if m is not None:
            assert m.numpy().tobytes() == g.numpy().tobytes()
    assert conv._GM[0] is None   # no layout outlives its gradient
