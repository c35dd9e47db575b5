"""3-d and adaptive max pooling against PyTorch 2.13: F.max_pool3d (indices, ceil_mode, dilation,
padding, ties, NaN), F.avg_pool3d (count_include_pad, ceil_mode, divisor_override),
F.adaptive_avg_pool3d, F.adaptive_max_pool1d/2d/3d (indices, ties, NaN), the modules and their
reprs; values, grad_fn names, gradients and second derivatives in float64 and float32, errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from tests.nn.layer_oracle import check, same_error

import leafgrad

rng = np.random.default_rng(3)


def arr(*shape):
    return rng.standard_normal(shape)


MAX3D = [
    ((2, 2, 4, 6, 6), 2, {}),
    ((2, 2, 5, 7, 6), 2, {"ceil_mode": True}),
    ((3, 5, 5, 4), (3, 2, 2), {"stride": (2, 1, 2), "padding": 1}),
    ((1, 2, 6, 8, 7), (2, 2, 3), {"stride": (1, 3, 2), "padding": 1, "dilation": (2, 3, 1),
                                  "ceil_mode": True}),
    ((2, 2, 5, 5, 5), 3, {"stride": 1, "padding": 1}),                 # overlapping windows
    ((1, 2, 6, 6, 6), 2, {"stride": 3}),                               # gaps between windows
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("indices", [False, True])
@pytest.mark.parametrize("case", MAX3D, ids=[str(i) for i in range(len(MAX3D))])
def test_max_pool3d(case, indices, dtype):
    shape, k, kw = case
    check("max_pool3d", (arr(*shape), k), dict(kw, return_indices=indices), dtype=dtype,
          second=dtype == "float64")


@pytest.mark.parametrize("values", ["ties", "nan", "neg_inf", "int"])
def test_max_pool3d_special_values(values):
    kw = {"return_indices": True}
    if values == "ties":
        x = np.round(arr(2, 2, 5, 5, 5))
        kw.update(stride=1, padding=1)
    elif values == "nan":
        x = arr(1, 2, 4, 4, 4)
        x[0, 0, 0, 0, 1] = x[0, 0, 1, 1, 1] = x[0, 1, 3, 2, 2] = np.nan
    elif values == "neg_inf":
        x = np.full((1, 1, 4, 4, 4), -np.inf)
        x[0, 0, 3, 3, 3] = 1.0
        kw.update(stride=1, padding=1)
    else:
        x = rng.integers(-5, 5, (2, 2, 4, 4, 4))
    check("max_pool3d", (x, 3 if values == "ties" else 2), kw, second=values != "int")


AVG3D = [
    ((2, 2, 4, 6, 6), 2, {}),
    ((2, 2, 5, 7, 6), 3, {"stride": 2, "padding": 1}),
    ((2, 2, 5, 7, 6), 3, {"stride": 2, "padding": 1, "count_include_pad": False}),
    ((2, 2, 5, 7, 6), 3, {"stride": 2, "padding": 1, "ceil_mode": True}),
    ((2, 2, 5, 7, 6), (3, 2, 3), {"stride": (2, 1, 2), "padding": (1, 0, 1),
                                  "ceil_mode": True, "count_include_pad": False}),
    ((3, 5, 5, 4), (2, 3, 2), {"stride": (1, 2, 1), "divisor_override": 5}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", AVG3D, ids=[str(i) for i in range(len(AVG3D))])
def test_avg_pool3d(case, dtype):
    shape, k, kw = case
    check("avg_pool3d", (arr(*shape), k), kw, dtype=dtype, second=dtype == "float64")


def test_avg_pool3d_integers():
    check("avg_pool3d", (rng.integers(-9, 9, (2, 2, 4, 4, 4)), 2), {})
    check("avg_pool3d", (rng.integers(-9, 9, (2, 2, 5, 5, 5)), 3), {"padding": 1, "stride": 2})


ADAPTIVE3D = [((2, 2, 5, 7, 6), (3, 4, 2)), ((2, 3, 4, 4, 4), 2), ((3, 5, 5, 4), (5, 2, 3)),
              ((2, 2, 5, 7, 6), 1), ((2, 2, 5, 7, 6), (None, 3, None)),
              ((1, 2, 3, 4, 5), (4, 6, 7))]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", ADAPTIVE3D, ids=[str(i) for i in range(len(ADAPTIVE3D))])
def test_adaptive_avg_pool3d(case, dtype):
    shape, size = case
    check("adaptive_avg_pool3d", (arr(*shape), size), dtype=dtype, second=dtype == "float64")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("indices", [False, True])
@pytest.mark.parametrize("fn,shape,size", [
    ("adaptive_max_pool3d", (2, 2, 5, 7, 6), (3, 4, 2)),
    ("adaptive_max_pool3d", (3, 5, 5, 4), (5, 2, 3)),
    ("adaptive_max_pool3d", (2, 2, 5, 7, 6), (None, 1, 4)),
    ("adaptive_max_pool3d", (1, 2, 3, 4, 5), (4, 6, 7)),          # larger than the input
    ("adaptive_max_pool2d", (2, 3, 7, 6), (3, 4)),
    ("adaptive_max_pool2d", (3, 5, 5), 1),
    ("adaptive_max_pool2d", (2, 3, 7, 6), (None, 5)),
    ("adaptive_max_pool2d", (1, 2, 4, 9), (6, 4)),
    ("adaptive_max_pool1d", (2, 3, 10), 4),
    ("adaptive_max_pool1d", (3, 7), (3,)),
])
def test_adaptive_max_pool(fn, shape, size, indices, dtype):
    check(fn, (arr(*shape), size), {"return_indices": indices}, dtype=dtype,
          second=dtype == "float64")


@pytest.mark.parametrize("values", ["ties", "nan"])
@pytest.mark.parametrize("fn,shape,size", [("adaptive_max_pool2d", (2, 2, 7, 6), (3, 4)),
                                           ("adaptive_max_pool3d", (1, 2, 5, 4, 5), (2, 3, 2))])
def test_adaptive_max_pool_special_values(fn, shape, size, values):
    x = np.round(arr(*shape) * 0.7)
    if values == "nan":
        flat = x.reshape(-1)
        flat[rng.choice(flat.size, 6, replace=False)] = np.nan
    check(fn, (x, size), {"return_indices": True})


# -- modules ------------------------------------------------------------------------------------
MODULES = [
    ("MaxPool3d", (2,), {}, (2, 2, 4, 6, 6)),
    ("MaxPool3d", ((1, 2, 3),), {"stride": 1, "padding": 0, "dilation": 2,
                                 "return_indices": True, "ceil_mode": True}, (2, 2, 5, 6, 8)),
    ("AvgPool3d", (2,), {}, (2, 2, 4, 6, 6)),
    ("AvgPool3d", ((1, 2, 3),), {"stride": (1, 1, 1), "padding": (0, 1, 1), "ceil_mode": True,
                                 "count_include_pad": False, "divisor_override": 3},
     (2, 2, 4, 5, 6)),
    ("AdaptiveAvgPool3d", ((1, None, 2),), {}, (2, 2, 4, 5, 6)),
    ("AdaptiveAvgPool3d", (1,), {}, (2, 2, 4, 5, 6)),
    ("AdaptiveMaxPool1d", (3,), {}, (2, 3, 8)),
    ("AdaptiveMaxPool2d", (3,), {"return_indices": True}, (2, 3, 7, 8)),
    ("AdaptiveMaxPool3d", ((2, 2, 2),), {}, (2, 2, 4, 5, 6)),
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
    ("max_pool3d", (1, 2, 4, 5, 6), ((1, 2),), {}),
    ("max_pool3d", (1, 2, 4, 5, 6), (2,), {"stride": (1, 2)}),
    ("max_pool3d", (1, 2, 4, 5, 6), (2,), {"padding": (1, 2)}),
    ("max_pool3d", (1, 2, 4, 5, 6), (2,), {"dilation": (1, 2)}),
    ("max_pool3d", (1, 2, 4, 5, 6), (2,), {"padding": 2}),
    ("max_pool3d", (1, 2, 4, 5, 6), (2,), {"stride": 0}),
    ("max_pool3d", (1, 2, 4, 5, 6), (0,), {}),
    ("max_pool3d", (1, 2, 4, 5, 6), (2,), {"dilation": 0}),
    ("max_pool3d", (1, 2, 4, 5, 6), (5,), {}),
    ("max_pool3d", (5, 6), (2,), {}),
    ("max_pool3d", (1, 0, 4, 5, 6), (2,), {}),
    ("max_pool3d", (1, 2, 4, 5, 6), (2,), {"padding": -1}),
    ("max_pool3d", (1, 2, 4, 5, 6), ((2, -1, 2),), {}),
    ("max_pool3d", (1, 2, 4, 5, 6), (2,), {"stride": (1, -1, 1)}),
    ("max_pool3d", (1, 2, 4, 5, 6), (3,), {"stride": 4, "padding": 1, "dilation": 3}),
    ("max_pool3d", (1, 2, 6, 6, 6), (3,), {"padding": (1, 2, 1), "dilation": 2}),
    ("avg_pool3d", (1, 2, 4, 5, 6), ((1, 2),), {}),
    ("avg_pool3d", (1, 2, 4, 5, 6), (2,), {"stride": (1, 2)}),
    ("avg_pool3d", (1, 2, 4, 5, 6), (2,), {"padding": (1, 2)}),
    ("avg_pool3d", (1, 2, 4, 5, 6), (2,), {"padding": 2}),
    ("avg_pool3d", (1, 2, 4, 5, 6), (2,), {"stride": 0}),
    ("avg_pool3d", (1, 2, 4, 5, 6), (5,), {}),
    ("avg_pool3d", (5, 6), (2,), {}),
    ("avg_pool3d", (1, 2, 4, 5, 6), (2,), {"divisor_override": 0}),
    ("avg_pool3d", (1, 0, 4, 5, 6), (2,), {}),
    ("adaptive_avg_pool3d", (1, 2, 4, 5, 6), ((1, 2),), {}),
    ("adaptive_avg_pool3d", (4, 5, 6), (2,), {}),
    ("adaptive_avg_pool3d", (1, 0, 4, 5, 6), (2,), {}),
    ("adaptive_max_pool3d", (1, 2, 4, 5, 6), ((1, 2),), {}),
    ("adaptive_max_pool3d", (4, 5, 6), (2,), {}),
    ("adaptive_max_pool3d", (1, 0, 4, 5, 6), (2,), {}),
    ("adaptive_max_pool2d", (2, 4, 5), ((1, 2, 3),), {}),
    ("adaptive_max_pool2d", (5, 6), (2,), {}),
    ("adaptive_max_pool1d", (4, 5), ((3, 2),), {}),
    ("adaptive_max_pool1d", (5,), (3,), {}),
    ("adaptive_max_pool2d", (5, 6), ((1, 2, 3),), {}),
    ("adaptive_avg_pool2d", (5, 6), ((1, 2, 3),), {}),
    ("adaptive_avg_pool3d", (5, 6, 4), ((1, None, 3),), {}),
    ("max_pool2d", (2, 4, 8, 8), ((2, -1),), {}),
])
def test_errors_match_torch(fn, shape, args, kw):
    same_error(lambda: getattr(leafgrad.nn.functional, fn)(leafgrad.ones(shape), *args, **kw),
               lambda: getattr(torch.nn.functional, fn)(torch.ones(shape), *args, **kw))


@pytest.mark.parametrize("fn,shape", [("adaptive_avg_pool3d", (2, 2, 3, 3, 3)),
                                      ("adaptive_max_pool2d", (2, 3, 3)),
                                      ("adaptive_max_pool3d", (2, 3, 3, 3))])
def test_adaptive_integer_input_errors(fn, shape):
    same_error(lambda: getattr(leafgrad.nn.functional, fn)(
        leafgrad.ones(shape, dtype=leafgrad.int64), 2),
        lambda: getattr(torch.nn.functional, fn)(torch.ones(shape, dtype=torch.int64), 2))
