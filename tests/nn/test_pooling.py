"""Pooling against PyTorch 2.13: F.max_pool1d/2d (indices, ceil_mode, dilation, padding, ties,
NaN, -inf), F.avg_pool1d/2d (count_include_pad, ceil_mode, divisor_override),
F.adaptive_avg_pool1d/2d, the modules; values, grad_fn names, gradients and second
derivatives in float64 and float32, errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from tests.nn.layer_oracle import check, same_error

import leafgrad

rng = np.random.default_rng(99)


def arr(*shape):
    return rng.standard_normal(shape)


MAX2D = [
    ((2, 3, 8, 8), 2, {}),
    ((2, 3, 7, 6), 2, {"ceil_mode": True}),
    ((3, 5, 5), (3, 2), {"stride": (2, 1), "padding": 1}),
    ((1, 2, 8, 7), (2, 3), {"stride": (3, 2), "padding": 1, "dilation": (2, 1),
                            "ceil_mode": True}),
    ((2, 3, 8, 8), 3, {"stride": 1, "padding": 1}),                 # overlapping windows
    ((2, 2, 9, 9), 3, {"stride": 2, "dilation": 2, "padding": 1}),
    ((2, 2, 6, 6), 2, {"stride": 3}),                               # gaps between windows
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("indices", [False, True])
@pytest.mark.parametrize("case", MAX2D, ids=[str(i) for i in range(len(MAX2D))])
def test_max_pool2d(case, indices, dtype):
    shape, k, kw = case
    check("max_pool2d", (arr(*shape), k), dict(kw, return_indices=indices), dtype=dtype,
          second=dtype == "float64")


@pytest.mark.parametrize("values", ["ties", "nan", "neg_inf", "int"])
def test_max_pool2d_special_values(values):
    if values == "ties":
        x = np.round(arr(2, 3, 8, 8))
        kw = {"stride": 1, "padding": 1, "return_indices": True}
    elif values == "nan":
        x = arr(1, 2, 6, 6)
        x[0, 0, 0, 1] = x[0, 0, 3, 3] = x[0, 0, 2, 2] = x[0, 1, 1, 0] = np.nan
        kw = {"return_indices": True}
    elif values == "neg_inf":
        x = np.full((1, 1, 4, 4), -np.inf)
        x[0, 0, 3, 3] = 1.0
        kw = {"stride": 1, "padding": 1, "return_indices": True}
    else:
        x = rng.integers(-5, 5, (2, 2, 6, 6))
        kw = {"return_indices": True}
    k = 2 if values != "ties" else 3
    check("max_pool2d", (x, k), kw, second=values != "int")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", [((2, 3, 9), 2, {}), ((3, 9), 3, {"stride": 2, "padding": 1}),
                                  ((2, 3, 10), 2, {"dilation": 2, "ceil_mode": True})])
@pytest.mark.parametrize("indices", [False, True])
def test_max_pool1d(case, indices, dtype):
    shape, k, kw = case
    check("max_pool1d", (arr(*shape), k), dict(kw, return_indices=indices), dtype=dtype)


AVG2D = [
    ((2, 3, 8, 8), 2, {}),
    ((2, 3, 7, 6), 3, {"stride": 2, "padding": 1}),
    ((2, 3, 7, 6), 3, {"stride": 2, "padding": 1, "count_include_pad": False}),
    ((2, 3, 7, 6), 3, {"stride": 2, "padding": 1, "ceil_mode": True}),
    ((2, 3, 7, 6), 3, {"stride": 2, "padding": 1, "ceil_mode": True,
                       "count_include_pad": False}),
    ((3, 5, 5), (2, 3), {"stride": (1, 2), "divisor_override": 4}),
    ((1, 2, 8, 7), (3, 2), {"stride": 1, "padding": (1, 0)}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", AVG2D, ids=[str(i) for i in range(len(AVG2D))])
def test_avg_pool2d(case, dtype):
    shape, k, kw = case
    check("avg_pool2d", (arr(*shape), k), kw, dtype=dtype, second=dtype == "float64")


def test_avg_pool2d_integers():
    check("avg_pool2d", (rng.integers(-9, 9, (2, 2, 6, 6)), 2), {})
    check("avg_pool2d", (rng.integers(-9, 9, (2, 2, 6, 6)), 3), {"padding": 1, "stride": 2})


@pytest.mark.parametrize("case", [((2, 3, 9), 2, {}),
                                  ((3, 9), 3, {"stride": 2, "padding": 1,
                                               "count_include_pad": False}),
                                  ((2, 3, 10), 4, {"stride": 3, "ceil_mode": True})])
def test_avg_pool1d(case):
    shape, k, kw = case
    check("avg_pool1d", (arr(*shape), k), kw)


ADAPTIVE2D = [((2, 3, 7, 6), (3, 4)), ((2, 3, 8, 8), 4), ((3, 5, 5), (5, 2)),
              ((2, 3, 7, 6), 1), ((2, 3, 7, 6), (None, 3)), ((1, 2, 4, 9), (6, 11))]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", ADAPTIVE2D, ids=[str(i) for i in range(len(ADAPTIVE2D))])
def test_adaptive_avg_pool2d(case, dtype):
    shape, size = case
    check("adaptive_avg_pool2d", (arr(*shape), size), dtype=dtype,
          second=dtype == "float64")


@pytest.mark.parametrize("case", [((2, 3, 10), 4), ((3, 7), 3), ((2, 3, 10), 1)])
def test_adaptive_avg_pool1d(case):
    shape, size = case
    check("adaptive_avg_pool1d", (arr(*shape), size))


def test_max_pool_in_place_change_is_caught():
    def run(lib):
        x = lib.tensor(arr(1, 1, 4, 4), requires_grad=True)
        h = x * 1
        y = lib.nn.functional.max_pool2d(h, 2)
        h.add_(1)
        y.sum().backward()
    same_error(lambda: run(leafgrad), lambda: run(torch))


# -- modules ------------------------------------------------------------------------------------
MODULES = [
    ("MaxPool2d", (2,), {}, (2, 3, 8, 8)),
    ("MaxPool2d", ((2, 3),), {"stride": 1, "padding": 1, "dilation": 2, "return_indices": True,
                              "ceil_mode": True}, (2, 3, 8, 9)),
    ("MaxPool1d", (3,), {"stride": 2, "return_indices": True}, (2, 3, 9)),
    ("AvgPool2d", (2,), {}, (2, 3, 8, 8)),
    ("AvgPool2d", (3, 2, 1, True, False, 2), {}, (2, 3, 7, 7)),
    ("AvgPool1d", (3,), {"stride": 2, "padding": 1}, (2, 3, 9)),
    ("AdaptiveAvgPool2d", ((2, None),), {}, (2, 3, 7, 6)),
    ("AdaptiveAvgPool2d", (1,), {}, (2, 3, 7, 6)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 9)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("spec", MODULES, ids=[f"{s[0]}-{i}" for i, s in enumerate(MODULES)])
def test_module_matches_torch(spec, dtype):
    cls, args, kw, shape = spec
    mine, theirs = getattr(leafgrad.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(mine) == repr(theirs)
    x = arr(*shape).astype(dtype)
    xm = leafgrad.tensor(x.copy(), requires_grad=True)
    xt = torch.tensor(x.copy(), requires_grad=True)
    out_m, out_t = mine(xm), theirs(xt)
    if isinstance(out_t, tuple):
        np.testing.assert_array_equal(out_m[1].numpy(), out_t[1].numpy())
        out_m, out_t = out_m[0], out_t[0]
    tol = {"rtol": 1e-10} if dtype == "float64" else {"rtol": 1e-5, "atol": 1e-6}
    np.testing.assert_allclose(out_m.detach().numpy(), out_t.detach().numpy(), **tol)
    assert type(out_m.grad_fn).__name__ == type(out_t.grad_fn).__name__
    cot = arr(*out_t.shape).astype(dtype)
    out_m.backward(leafgrad.tensor(cot))
    out_t.backward(torch.tensor(cot))
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), **tol)


# -- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn,shape,args,kw", [
    ("max_pool2d", (2, 4, 8, 8), (3,), {"padding": 2}),
    ("max_pool2d", (2, 4, 8, 8), ((3, 2),), {"padding": (1, 2)}),
    ("max_pool2d", (2, 4, 2, 2), (3,), {}),
    ("max_pool2d", (4, 8), (2,), {}),
    ("max_pool2d", (1, 2, 4, 8, 8), (2,), {}),
    ("max_pool2d", (2, 0, 8, 8), (2,), {}),
    ("max_pool2d", (2, 4, 8, 8), ((2, 2, 2),), {}),
    ("max_pool2d", (2, 4, 8, 8), (2, (1, 1, 1)), {}),
    ("max_pool2d", (2, 4, 8, 8), (2,), {"padding": (1, 1, 1)}),
    ("max_pool2d", (2, 4, 8, 8), (2,), {"dilation": (1, 2, 3)}),
    ("max_pool2d", (2, 4, 8, 8), (2,), {"stride": 0}),
    ("max_pool2d", (2, 4, 8, 8), (0, 1), {}),
    ("max_pool2d", (2, 4, 8, 8), (2,), {"stride": -1}),
    ("max_pool2d", (2, 4, 8, 8), (2,), {"dilation": 0}),
    ("max_pool2d", (2, 4, 8, 8), (2,), {"padding": (0, -2)}),
    ("max_pool2d", (2, 4, 9, 9), (3,), {"padding": 2, "dilation": 2}),
    ("max_pool1d", (2, 4, 8), (0,), {}),
    ("max_pool1d", (2, 4, 8), (2, 0), {}),
    ("max_pool1d", (2, 4, 8), (2,), {"padding": 2}),
    ("max_pool1d", (2, 4, 2), (3,), {}),
    ("max_pool1d", (2, 4, 8), (2,), {"dilation": 0}),
    ("max_pool1d", (4, 8, 8, 8), (2,), {}),
    ("max_pool1d", (2, 4, 8), ((2, 2),), {}),
    ("avg_pool2d", (2, 4, 8, 8), (3,), {"padding": 2}),
    ("avg_pool2d", (2, 4, 2, 2), (3,), {}),
    ("avg_pool2d", (4, 8), (2,), {}),
    ("avg_pool2d", (8,), (2,), {}),
    ("avg_pool2d", (1, 2, 4, 8, 8), (2,), {}),
    ("avg_pool2d", (2, 4, 8, 8), (0, 1), {}),
    ("avg_pool2d", (2, 4, 8, 8), (2,), {"divisor_override": 0}),
    ("avg_pool2d", (2, 4, 8, 8), ((2, 2, 2),), {}),
    ("avg_pool1d", (4,), (2,), {}),
    ("avg_pool1d", (2, 4, 2), (3,), {}),
    ("avg_pool1d", (2, 4, 8), ((2, 2),), {}),
    ("adaptive_avg_pool2d", (8,), (2,), {}),
    ("adaptive_avg_pool2d", (2, 4, 8, 8), ((2, 2, 2),), {}),
    ("adaptive_avg_pool2d", (2, 4, 0, 8), (3,), {}),
    ("adaptive_avg_pool1d", (8,), (3,), {}),
    ("adaptive_avg_pool1d", (2, 4, 8), ((2, 2),), {}),
])
def test_errors_match_torch(fn, shape, args, kw):
    same_error(lambda: getattr(leafgrad.nn.functional, fn)(leafgrad.ones(shape), *args, **kw),
               lambda: getattr(torch.nn.functional, fn)(torch.ones(shape), *args, **kw))


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("indices", [False, True])
@pytest.mark.parametrize("args,kw", [((2,), {"padding": 2}), ((0,), {}), ((2, 0), {})])
def test_max_pool1d_errors_by_path(args, kw, indices, requires_grad):
    # max_pool1d checks its own way, max_pool1d with indices the 2-d way
    def run(lib):
        x = lib.ones(2, 4, 8, requires_grad=requires_grad)
        return lib.nn.functional.max_pool1d(x, *args, return_indices=indices, **kw)
    same_error(lambda: run(leafgrad), lambda: run(torch))
