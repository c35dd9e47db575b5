"""i0, special.i0e, special.i1, special.i1e against PyTorch, bit for bit: float64 exactly,
float32 and float16 (computed in float) within one ulp (glibc's expf and the FMA-contracted
Chebyshev steps are emulated; a rare double rounding can still be an ulp off)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad

_FNS = ["i0", "special.i0", "special.i0e", "special.i1", "special.i1e"]
_INT_VIEW = {8: np.int64, 4: np.int32, 2: np.int16}


def _fn(lib, name):
    for part in name.split("."):
        lib = getattr(lib, part)
    return lib


def _inputs():
    rs = np.random.RandomState(0)
    return np.concatenate([rs.uniform(-20, 20, 20000), rs.uniform(-1, 1, 5000),
                           rs.uniform(-800, 800, 3000),
                           [0.0, -0.0, np.inf, -np.inf, np.nan, 8.0, -8.0, 1e-30, 88.7, 89.0,
                            713.0, 714.0, 5e-324]])


def _ulps(a, b):
    """Per-element distance in ulps (0 where both are the same nan)."""
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    ia = a.view(_INT_VIEW[a.itemsize]).astype(np.int64)
    ib = b.view(_INT_VIEW[b.itemsize]).astype(np.int64)
    return np.where(same, 0, np.abs(ia - ib))


@pytest.mark.parametrize("name", _FNS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_bessel_values(name, dtype):
    x = _inputs().astype(dtype)
    mine = _fn(leafgrad, name)(leafgrad.tensor(x)).numpy()
    theirs = _fn(torch, name)(torch.tensor(x)).numpy()
    assert mine.dtype == theirs.dtype
    d = _ulps(mine, theirs)
    if dtype == "float64":
        assert d.max() == 0, x[d > 0][:5]
    else:
        assert d.max() <= 1, x[d > 1][:5]
        assert (d > 0).mean() < 1e-3


@pytest.mark.parametrize("name", _FNS)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64"])
def test_bessel_integer_inputs(name, dtype):
    x = np.array([0, 1, 2, 3, 9, 100, 127]).astype(dtype)
    mine = _fn(leafgrad, name)(leafgrad.tensor(x)).numpy()
    theirs = _fn(torch, name)(torch.tensor(x)).numpy()
    assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)


@pytest.mark.parametrize("name", ["special.i0e", "special.i1", "special.i1e", "i0"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bessel_gradients(name, dtype):
    x = np.array([0.0, -0.0, 1e-20, 0.5, -2.0, 7.9, 8.5, -15.0, 30.0], dtype)
    out = []
    for lib in (leafgrad, torch):
        t = lib.tensor(x, requires_grad=True)
        y = _fn(lib, name)(t)
        g, = lib.autograd.grad(y.sum(), t, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), t)
        out.append((y.grad_fn.name(), g.grad_fn.name(), g.detach().numpy(), gg.numpy()))
    (n1, m1, g1, h1), (n2, m2, g2, h2) = out
    assert (n1, m1) == (n2, m2)
    np.testing.assert_allclose(g1, g2, rtol=1e-6 if dtype == "float64" else 1e-5)
    np.testing.assert_allclose(h1, h2, rtol=1e-6 if dtype == "float64" else 1e-4)


@pytest.mark.parametrize("name", ["special.i1", "special.i1e"])
def test_bessel_half_backward_not_implemented(name):
    errors = []
    for lib in (leafgrad, torch):
        t = lib.tensor([0.5, 2.0], dtype=lib.float16, requires_grad=True)
        with pytest.raises(Exception) as info:
            _fn(lib, name)(t).sum().backward()
        errors.append((type(info.value).__name__, str(info.value)))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("name", _FNS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("value", [0.0, -0.0, 1.5, -7.5, 8.5, 88.5, -90.0, 100.0, 800.0,
                                   float("inf"), float("-inf"), float("nan")])
def test_bessel_zero_dim(name, dtype, value):
    """0-d inputs (fuzz seed 220: a 0-d float16 NaN reached expf's fallback by item
    assignment into a NumPy scalar)."""
    mine = _fn(leafgrad, name)(leafgrad.tensor(value, dtype=getattr(leafgrad, dtype)))
    theirs = _fn(torch, name)(torch.tensor(value, dtype=getattr(torch, dtype)))
    a, b = mine.numpy().reshape(1), theirs.numpy().reshape(1)
    assert mine.dtype == getattr(leafgrad, dtype) and a.dtype == b.dtype
    assert _ulps(a, b).max() <= (0 if dtype == "float64" else 1)
