"""3-d convolutions and convolution padding modes against PyTorch 2.13: F.conv3d,
F.conv_transpose3d, nn.Conv3d/ConvTranspose3d (values, grad_fn names, input/weight/bias
gradients and second derivatives in float64 and float32, repr, errors), and
``padding_mode`` 'reflect'/'replicate'/'circular' of Conv1d/2d/3d."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from tests.nn.layer_oracle import check, copy_state, same_error

import leafgrad

rng = np.random.default_rng(4321)


def arr(*shape):
    return rng.standard_normal(shape)


CONV3D = [
    # (input, weight, bias?, kwargs)
    ((2, 3, 5, 6, 4), (4, 3, 3, 2, 2), True, {}),
    ((1, 4, 6, 5, 7), (6, 2, 3, 3, 2), False, {"stride": (2, 1, 2), "padding": (1, 0, 1),
                                               "groups": 2}),
    ((2, 2, 6, 6, 6), (3, 2, 2, 2, 3), True, {"dilation": (2, 1, 1), "padding": 1}),
    ((2, 3, 5, 4, 6), (4, 3, 2, 3, 2), True, {"padding": "same"}),   # odd totals: extra pad
    ((2, 3, 5, 4, 6), (4, 3, 3, 3, 3), True, {"padding": "same", "dilation": 2}),
    ((2, 3, 5, 4, 6), (4, 3, 3, 3, 3), True, {"padding": "valid", "stride": 2}),
    ((3, 5, 4, 4), (4, 3, 2, 2, 2), True, {"padding": 1}),           # unbatched
    ((2, 4, 4, 4, 4), (4, 1, 3, 3, 3), True, {"groups": 4, "padding": 1}),   # depthwise
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CONV3D, ids=[str(i) for i in range(len(CONV3D))])
def test_conv3d(case, dtype):
    x, w, has_bias, kw = case
    args = (arr(*x), arr(*w), arr(w[0]) if has_bias else None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # PyTorch's warning on 'same' with even kernels
        check("conv3d", args, kw, dtype=dtype, second=dtype == "float64")


TRANSPOSED3D = [
    ((2, 4, 3, 2, 3), (4, 3, 2, 3, 2), True, {}),
    ((2, 4, 3, 3, 2), (4, 3, 3, 2, 2), True, {"stride": 2, "padding": 1,
                                              "output_padding": (1, 0, 1)}),
    ((1, 4, 2, 3, 3), (4, 2, 2, 2, 2), False, {"stride": (1, 2, 3), "output_padding": (0, 1, 2),
                                               "groups": 2, "dilation": (2, 1, 1)}),
    ((2, 3, 2, 3), (2, 3, 2, 2, 2), True, {"stride": 2}),          # unbatched
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", TRANSPOSED3D, ids=[str(i) for i in range(len(TRANSPOSED3D))])
def test_conv_transpose3d(case, dtype):
    x, w, has_bias, kw = case
    args = (arr(*x), arr(*w), arr(w[1] * kw.get("groups", 1)) if has_bias else None)
    check("conv_transpose3d", args, kw, dtype=dtype, second=dtype == "float64")


MODULES = [
    ("Conv3d", (3, 4, 3), {}),
    ("Conv3d", (4, 6, (2, 3, 2)), {"stride": 2, "padding": (1, 0, 1), "groups": 2,
                                   "bias": False}),
    ("Conv3d", (3, 4, 3), {"padding": "same", "dilation": (1, 2, 1)}),
    ("Conv3d", (3, 4, 3), {"padding": 1, "padding_mode": "reflect"}),
    ("Conv3d", (3, 4, (2, 3, 3)), {"padding": (1, 2, 0), "padding_mode": "replicate"}),
    ("Conv3d", (3, 4, 3), {"padding": (2, 1, 1), "padding_mode": "circular", "stride": 2}),
    ("Conv3d", (3, 4, (2, 3, 2)), {"padding": "same", "padding_mode": "reflect"}),
    ("Conv2d", (3, 4, 3), {"padding": 2, "padding_mode": "reflect"}),
    ("Conv2d", (3, 4, (3, 2)), {"padding": (1, 2), "padding_mode": "replicate"}),
    ("Conv2d", (3, 4, 3), {"padding": 1, "padding_mode": "circular", "dilation": 2}),
    ("Conv1d", (3, 4, 3), {"padding": 2, "padding_mode": "reflect"}),
    ("Conv1d", (3, 4, 4), {"padding": "same", "padding_mode": "circular"}),
    ("Conv1d", (3, 4, 3), {"padding": 3, "padding_mode": "replicate"}),
    ("ConvTranspose3d", (3, 4, 3), {}),
    ("ConvTranspose3d", (4, 6, (2, 3, 2)), {"stride": 2, "padding": 1, "output_padding": 1,
                                            "groups": 2, "dilation": (1, 1, 2)}),
]
INPUTS = {1: (2, 3, 9), 2: (2, 3, 7, 8), 3: (2, 3, 5, 6, 4)}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("spec", MODULES, ids=[f"{s[0]}-{i}" for i, s in enumerate(MODULES)])
def test_module_matches_torch(spec, dtype):
    cls, args, kw = spec
    theirs = getattr(torch.nn, cls)(*args, **kw)
    mine = getattr(leafgrad.nn, cls)(*args, **kw)
    if dtype == "float64":
        theirs, mine = theirs.double(), mine.double()
    assert repr(mine) == repr(theirs)
    copy_state(mine, theirs)
    shape = (2, args[0]) + INPUTS[int(cls[-2])][2:]
    x = arr(*shape).astype(dtype)
    xm = leafgrad.tensor(x.copy(), requires_grad=True)
    xt = torch.tensor(x.copy(), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out_m, out_t = mine(xm), theirs(xt)
    tol = {"rtol": 1e-9, "atol": 1e-10} if dtype == "float64" else {"rtol": 1e-4, "atol": 2e-5}
    assert str(out_m.dtype) == str(out_t.dtype)
    np.testing.assert_allclose(out_m.detach().numpy(), out_t.detach().numpy(), **tol)
    assert type(out_m.grad_fn).__name__ == type(out_t.grad_fn).__name__
    cot = arr(*out_t.shape).astype(dtype)
    out_m.backward(leafgrad.tensor(cot))
    out_t.backward(torch.tensor(cot))
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), **tol)
    for (n, p_m), (_, p_t) in zip(mine.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p_m.grad.numpy(), p_t.grad.numpy(), err_msg=n, **tol)


def test_conv_transpose3d_output_size():
    theirs = torch.nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1)
    mine = leafgrad.nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1)
    copy_state(mine, theirs)
    x = arr(1, 2, 3, 4, 3).astype("float32")
    out_t = theirs(torch.tensor(x), output_size=[6, 8, 5])
    out_m = mine(leafgrad.tensor(x), output_size=[6, 8, 5])
    np.testing.assert_allclose(out_m.detach().numpy(), out_t.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    same_error(lambda: mine(leafgrad.tensor(x), output_size=[12, 12, 12]),
               lambda: theirs(torch.tensor(x), output_size=[12, 12, 12]))


def _err(fn, x_shape, w_shape, b_shape=None, **kw):
    def call(lib):
        b = None if b_shape is None else lib.ones(b_shape)
        return getattr(lib.nn.functional, fn)(lib.ones(x_shape), lib.ones(w_shape), b, **kw)
    same_error(lambda: call(leafgrad), lambda: call(torch))


@pytest.mark.parametrize("fn,x,w,b,kw", [
    ("conv3d", (1, 2, 3, 3, 3), (2, 2, 4, 2, 2), None, {}),
    ("conv3d", (3, 3, 3), (2, 2, 2, 2, 2), None, {}),
    ("conv3d", (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), None, {"stride": (1, 2)}),
    ("conv3d", (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), None, {"padding": "same", "stride": 2}),
    ("conv3d", (1, 3, 3, 3, 3), (2, 2, 2, 2, 2), None, {}),
    ("conv3d", (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), (3,), {}),
    ("conv3d", (1, 2, 3, 3, 3), (2, 2, 2, 2), None, {}),
    ("conv_transpose3d", (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), None,
     {"stride": 2, "output_padding": (2, 1, 1)}),
    ("conv_transpose3d", (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), None, {"padding": 3}),
    ("conv_transpose1d", (1, 2, 3), (2, 2, 2), None, {"stride": 2, "output_padding": 2}),
    ("conv_transpose2d", (1, 2, 3, 3), (2, 2, 2, 2), None, {"stride": 2, "output_padding": 3}),
    ("conv_transpose3d", (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), None, {"padding": "same"}),
])
def test_errors_match_torch(fn, x, w, b, kw):
    _err(fn, x, w, b, **kw)


@pytest.mark.parametrize("cls,args,kw,shape", [
    ("Conv2d", (2, 3, 3), {"padding": 3, "padding_mode": "reflect"}, (1, 2, 3, 3)),
    ("Conv1d", (2, 3, 3), {"padding": 4, "padding_mode": "circular"}, (1, 2, 3)),
    ("Conv3d", (2, 3, 3), {"padding": 1, "padding_mode": "reflect"}, (1, 2, 3, 3)),
])
def test_padding_mode_errors(cls, args, kw, shape):
    mine, theirs = getattr(leafgrad.nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)
    same_error(lambda: mine(leafgrad.ones(shape)), lambda: theirs(torch.ones(shape)))


def test_conv_transpose3d_rejects_padding_mode():
    same_error(lambda: leafgrad.nn.ConvTranspose3d(2, 3, 3, padding_mode="circular"),
               lambda: torch.nn.ConvTranspose3d(2, 3, 3, padding_mode="circular"))
