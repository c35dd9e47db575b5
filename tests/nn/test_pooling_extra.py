"""Max unpooling (F.max_unpool1d/2d/3d, nn.MaxUnpool1d/2d/3d) and power-average pooling
(F.lp_pool1d/2d/3d, nn.LPPool1d/2d/3d) against PyTorch 2.13: values, grad_fn names, first and
second derivatives in float64 and float32, reprs, errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from tests.nn.layer_oracle import check, same_error

import leafgrad

rng = np.random.default_rng(11)


def arr(*shape):
    return rng.standard_normal(shape)


def pooled(shape, n, k, **kw):
    """Values and indices of a max pooling of a random input (computed by torch)."""
    pool = getattr(torch.nn.functional, f"max_pool{n}d")
    values, indices = pool(torch.tensor(arr(*shape)), k, return_indices=True, **kw)
    return values.numpy(), indices.numpy()


UNPOOL = [
    (2, (2, 3, 6, 6), 2, {}, {}),
    (2, (3, 7, 7), 2, {}, {"output_size": (7, 7)}),
    (2, (1, 2, 7, 6), 3, {"stride": 2, "padding": 1}, {"stride": 2, "padding": 1,
                                                     "output_size": (7, 6)}),
    (2, (2, 2, 6, 6), 2, {}, {"output_size": (2, 2, 7, 6)}),
    (1, (2, 3, 8), 2, {}, {}),
    (1, (3, 9), 3, {"stride": 2}, {"stride": 2, "output_size": [9]}),
    (3, (1, 2, 4, 4, 4), 2, {}, {}),
    (3, (2, 5, 4, 6), (1, 2, 2), {}, {"output_size": (5, 5, 6)}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", UNPOOL, ids=[str(i) for i in range(len(UNPOOL))])
def test_max_unpool(case, dtype):
    n, shape, k, pool_kw, kw = case
    values, indices = pooled(shape, n, k, **pool_kw)
    check(f"max_unpool{n}d", (values, indices, k), kw, dtype=dtype, second=dtype == "float64")


LP = [
    (1, (2, 3, 9), 2.0, 3, {}),
    (1, (3, 10), 1.5, 3, {"stride": 2, "ceil_mode": True}),
    (2, (2, 3, 7, 6), 2, 2, {}),
    (2, (2, 3, 7, 6), 3.0, (3, 2), {"stride": (2, 1)}),
    (2, (2, 3, 7, 6), float("inf"), 2, {}),
    (2, (2, 3, 7, 6), -float("inf"), 2, {"stride": 1}),
    (3, (1, 2, 4, 5, 6), 2.0, 2, {}),
    (3, (2, 4, 5, 6), 1.5, (2, 3, 2), {"stride": 1, "ceil_mode": True}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", LP, ids=[str(i) for i in range(len(LP))])
def test_lp_pool(case, dtype):
    n, shape, p, k, kw = case
    x = np.abs(arr(*shape)) + 0.1   # a fractional power of a negative average is NaN
    check(f"lp_pool{n}d", (x, p, k), kw, dtype=dtype, second=dtype == "float64")


MODULES = [
    ("MaxUnpool1d", (2,), {}, 1, (2, 3, 8)),
    ("MaxUnpool2d", (2,), {"stride": 2, "padding": 0}, 2, (2, 3, 6, 6)),
    ("MaxUnpool3d", ((1, 2, 2),), {}, 3, (1, 2, 4, 4, 4)),
    ("LPPool1d", (1.5, 3), {"stride": 2, "ceil_mode": True}, 1, (2, 3, 9)),
    ("LPPool2d", (2, 3), {}, 2, (2, 3, 7, 7)),
    ("LPPool3d", (2.0, (1, 2, 2)), {"stride": 1}, 3, (1, 2, 4, 4, 4)),
]


@pytest.mark.parametrize("spec", MODULES, ids=[s[0] for s in MODULES])
def test_modules(spec):
    cls, args, kw, n, shape = spec
    mine, theirs = getattr(leafgrad.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    assert repr(mine) == repr(theirs)
    if cls.startswith("MaxUnpool"):
        values, indices = pooled(shape, n, theirs.kernel_size)
        xm = leafgrad.tensor(values, requires_grad=True)
        xt = torch.tensor(values, requires_grad=True)
        out_m = mine(xm, leafgrad.tensor(indices))
        out_t = theirs(xt, torch.tensor(indices))
    else:
        x = np.abs(arr(*shape)) + 0.1
        xm, xt = leafgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        out_m, out_t = mine(xm), theirs(xt)
    np.testing.assert_allclose(out_m.detach().numpy(), out_t.detach().numpy(), rtol=1e-10)
    assert type(out_m.grad_fn).__name__ == type(out_t.grad_fn).__name__
    cot = arr(*out_t.shape)
    out_m.backward(leafgrad.tensor(cot))
    out_t.backward(torch.tensor(cot))
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-10)


def _unpool_error(fn, values, indices, *args, **kw):
    same_error(lambda: getattr(leafgrad.nn.functional, fn)(
        leafgrad.tensor(values), leafgrad.tensor(indices), *args, **kw),
        lambda: getattr(torch.nn.functional, fn)(torch.tensor(values), torch.tensor(indices),
                                                 *args, **kw))


def test_unpool_errors():
    v, i = pooled((2, 2, 4, 4), 2, 2)
    _unpool_error("max_unpool2d", v, i.astype(np.int32), 2)
    _unpool_error("max_unpool2d", v, i[:, :1], 2)
    _unpool_error("max_unpool2d", v, i, 2, output_size=(6, 5))
    _unpool_error("max_unpool2d", v, i, 2, output_size=(1, 5, 5))
    # one invalid index: with several, which one PyTorch names depends on its threads
    bad = i.copy()
    bad[1, 0, 1, 0] = 40
    _unpool_error("max_unpool2d", v, bad, 2)
    bad[1, 0, 1, 0] = -3
    _unpool_error("max_unpool2d", v, bad, 2)
    _unpool_error("max_unpool2d", v[0, 0], i[0, 0], 2)
    _unpool_error("max_unpool2d", v, i, 2, stride=1, padding=1)
    _unpool_error("max_unpool1d", v[0], i[0], 2)
    _unpool_error("max_unpool2d", v.astype(np.int64), i, 2)
    v3, i3 = pooled((1, 2, 4, 4, 4), 3, 2)
    bad = i3.copy()
    bad[0, 1, 1, 0, 1] = 64
    _unpool_error("max_unpool3d", v3, bad, 2)
    _unpool_error("max_unpool3d", v3[0, 0], i3[0, 0], 2)
    _unpool_error("max_unpool3d", v3, i3.astype(np.int32), 2)
    _unpool_error("max_unpool3d", v3, i3[:, :1], 2)
