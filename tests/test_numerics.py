"""Numerics at extreme inputs (issue 8): stable functions stay finite and match PyTorch.

Inputs of +-1e4, tiny (1e-30) and huge (1e30) scales, in float16, float32 and float64; values
and gradients are compared with PyTorch 2.13, including where they are inf or nan.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import leafgrad as lg

F_L = lg.nn.functional
F_T = torch.nn.functional

INPUTS = {
    "big": [1e4, -1e4, 0.0, 3.0],
    "mixed": [-1e4, 1e4, 20.0, -20.0],
    "huge": [1e30, -1e30, 1e29, 0.0],
    "tiny": [1e-30, -1e-30, 0.0, 1e-20],
    "moderate": [-88.0, 88.0, -700.0, 700.0],
}
DTYPES = ["float16", "float32", "float64"]

FUNCS = {
    "log_softmax": lambda L, F, x: F.log_softmax(x, dim=-1),
    "softmax": lambda L, F, x: F.softmax(x, dim=-1),
    "logsumexp": lambda L, F, x: L.logsumexp(x, dim=-1),
    "sigmoid": lambda L, F, x: L.sigmoid(x),
    "logsigmoid": lambda L, F, x: F.logsigmoid(x),
    "softplus": lambda L, F, x: F.softplus(x),
    "softplus_beta": lambda L, F, x: F.softplus(x, beta=2.0, threshold=10.0),
    "tanh": lambda L, F, x: L.tanh(x),
    "cross_entropy": lambda L, F, x: F.cross_entropy(x.reshape(2, 2), L.tensor([0, 1])),
    "cross_entropy_probs": lambda L, F, x: F.cross_entropy(
        x.reshape(2, 2), L.tensor([[0.25, 0.75], [1.0, 0.0]], dtype=x.dtype)),
    "bce_with_logits": lambda L, F, x: F.binary_cross_entropy_with_logits(
        x, L.tensor([0.0, 1.0, 1.0, 0.0], dtype=x.dtype)),
    "bce_with_logits_none": lambda L, F, x: F.binary_cross_entropy_with_logits(
        x, L.tensor([1.0, 0.0, 0.5, 0.0], dtype=x.dtype), reduction="none"),
    "norm2": lambda L, F, x: x.norm(),
    "norm_inf": lambda L, F, x: x.norm(p=float("inf")),
    "vector_norm_3": lambda L, F, x: L.linalg.vector_norm(x, ord=3),
    "normalize": lambda L, F, x: F.normalize(x, dim=0),
}

# float16 cases PyTorch's CPU kernels do not cover (it raises "not implemented for 'Half'"):
# both libraries must then agree on raising.


def _run(lib, F, name, values, dtype):
    x = lib.tensor(np.array(values, dtype=np.float64), dtype=getattr(lib, dtype),
                   requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            y = FUNCS[name](lib, F, x)
            seed = lib.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)),
                              dtype=y.dtype)
            y.backward(seed)
        except Exception as exc:   # noqa: BLE001 - compared below
            return exc
    return y.detach().numpy().astype(np.float64), x.grad.numpy().astype(np.float64)


_TOL = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-12}


def _assert_close(mine, theirs, dtype, what):
    # infinities and nans must sit in the same places, finite values must agree
    np.testing.assert_array_equal(np.isnan(mine), np.isnan(theirs), err_msg=f"{what}: nan")
    np.testing.assert_array_equal(np.isposinf(mine), np.isposinf(theirs),
                                  err_msg=f"{what}: +inf")
    np.testing.assert_array_equal(np.isneginf(mine), np.isneginf(theirs),
                                  err_msg=f"{what}: -inf")
    finite = np.isfinite(theirs)
    tol = _TOL[dtype]
    np.testing.assert_allclose(mine[finite], theirs[finite], rtol=tol * 10,
                               atol=tol * max(1.0, float(np.abs(theirs[finite]).max(initial=0))),
                               err_msg=what)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("inputs", sorted(INPUTS))
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_extreme_inputs_match_torch(name, inputs, dtype):
    values = INPUTS[inputs]
    theirs = _run(torch, F_T, name, values, dtype)
    mine = _run(lg, F_L, name, values, dtype)
    if isinstance(theirs, Exception):
        assert isinstance(mine, Exception), f"torch raised {theirs!r}, leafgrad did not"
        assert type(mine).__name__ == type(theirs).__name__, (mine, theirs)
        return
    assert not isinstance(mine, Exception), f"leafgrad raised {mine!r}"
    _assert_close(mine[0], theirs[0], dtype, f"{name} value")
    _assert_close(mine[1], theirs[1], dtype, f"{name} grad")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["log_softmax", "logsumexp", "softplus", "sigmoid",
                                  "cross_entropy", "bce_with_logits", "logsigmoid"])
def test_stable_functions_stay_finite_at_1e4(name, dtype):
    # the point of the stable formulas: no overflow to inf/nan at +-1e4
    y, g = _run(lg, F_L, name, INPUTS["mixed"], dtype)
    assert np.isfinite(y).all(), (name, y)
    assert np.isfinite(g).all(), (name, g)
