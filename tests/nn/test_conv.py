"""Convolutions against PyTorch 2.13: F.conv1d/conv2d/conv_transpose1d/conv_transpose2d,
nn.Conv1d/Conv2d/ConvTranspose1d/ConvTranspose2d, torch.convolution; values, grad_fn names,
input/weight/bias gradients and second derivatives in float64 and float32, init, repr,
errors."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from tests.nn.layer_oracle import check, copy_state, same_error

import leafgrad

rng = np.random.default_rng(1234)


def arr(*shape):
    return rng.standard_normal(shape)


CONV2D = [
    # (input, weight, bias?, kwargs)
    ((2, 3, 7, 6), (4, 3, 3, 3), True, {}),
    ((2, 3, 7, 6), (4, 3, 3, 2), True, {"stride": 2, "padding": 1}),
    ((1, 4, 9, 8), (6, 2, 3, 3), False, {"stride": (2, 1), "padding": (0, 2), "groups": 2}),
    ((2, 2, 8, 9), (3, 2, 2, 3), True, {"dilation": (2, 1), "padding": 1}),
    ((2, 6, 7, 7), (6, 1, 3, 3), True, {"groups": 6, "padding": 1}),          # depthwise
    ((2, 3, 6, 6), (5, 3, 1, 1), True, {}),                                    # 1x1
    ((2, 3, 7, 6), (4, 3, 3, 3), True, {"padding": "same"}),
    ((2, 3, 7, 6), (4, 3, 2, 4), True, {"padding": "same"}),                   # asymmetric
    ((2, 3, 7, 6), (4, 3, 3, 3), True, {"padding": "same", "dilation": 2}),
    ((2, 3, 7, 6), (4, 3, 3, 3), True, {"padding": "valid"}),
    ((3, 7, 6), (4, 3, 3, 3), True, {"padding": 1}),                           # unbatched
    ((2, 3, 5, 5), (4, 3, 5, 5), True, {}),                                    # 1x1 output
    ((2, 3, 9, 9), (4, 3, 3, 3), True, {"stride": 3, "padding": 1, "dilation": 2}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CONV2D, ids=[str(i) for i in range(len(CONV2D))])
def test_conv2d(case, dtype):
    x, w, has_bias, kw = case
    args = (arr(*x), arr(*w), arr(w[0]) if has_bias else None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # PyTorch's warning on 'same' with even kernels
        check("conv2d", args, kw, dtype=dtype, second=dtype == "float64")


CONV1D = [
    ((2, 3, 9), (4, 3, 3), True, {}),
    ((2, 4, 10), (6, 2, 4), True, {"stride": 2, "padding": 1, "groups": 2}),
    ((2, 3, 9), (4, 3, 3), False, {"dilation": 3, "padding": 2}),
    ((3, 9), (4, 3, 2), True, {"padding": "same"}),
    ((2, 3, 9), (4, 3, 3), True, {"padding": "valid", "stride": (2,)}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CONV1D, ids=[str(i) for i in range(len(CONV1D))])
def test_conv1d(case, dtype):
    x, w, has_bias, kw = case
    args = (arr(*x), arr(*w), arr(w[0]) if has_bias else None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check("conv1d", args, kw, dtype=dtype, second=dtype == "float64")


TRANSPOSED2D = [
    ((2, 4, 3, 4), (4, 3, 3, 3), True, {}),
    ((2, 4, 3, 4), (4, 3, 3, 2), True, {"stride": 2, "padding": 1, "output_padding": 1}),
    ((1, 4, 4, 3), (4, 2, 3, 3), False, {"stride": (2, 3), "output_padding": (1, 2),
                                         "groups": 2}),
    ((2, 2, 4, 4), (2, 3, 2, 3), True, {"dilation": 2, "padding": (1, 0)}),
    ((2, 3, 3), (2, 3, 3, 3), True, {"stride": 2}),                      # unbatched
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", TRANSPOSED2D, ids=[str(i) for i in range(len(TRANSPOSED2D))])
def test_conv_transpose2d(case, dtype):
    x, w, has_bias, kw = case
    groups = kw.get("groups", 1)
    args = (arr(*x), arr(*w), arr(w[1] * groups) if has_bias else None)
    check("conv_transpose2d", args, kw, dtype=dtype, second=dtype == "float64")


@pytest.mark.parametrize("kw", [{}, {"stride": 3, "padding": 1, "output_padding": 2},
                                {"dilation": 2, "groups": 2}])
def test_conv_transpose1d(kw):
    groups = kw.get("groups", 1)
    args = (arr(2, 4, 5), arr(4, 3, 3), arr(3 * groups))
    check("conv_transpose1d", args, kw)


def test_torch_convolution_and_int_inputs():
    x, w = arr(2, 3, 6, 6), arr(4, 3, 3, 3)
    xm, wm = leafgrad.tensor(x), leafgrad.tensor(w)
    out = leafgrad.convolution(xm, wm, None, [1], [1], [1], False, [0], 1)
    ref = torch.convolution(torch.tensor(x), torch.tensor(w), None, [1], [1], [1], False, [0], 1)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-10)
    xi = rng.integers(-3, 4, (1, 2, 5, 5))
    wi = rng.integers(-3, 4, (3, 2, 2, 2))
    mine = leafgrad.nn.functional.conv2d(leafgrad.tensor(xi), leafgrad.tensor(wi))
    theirs = torch.nn.functional.conv2d(torch.tensor(xi), torch.tensor(wi))
    assert str(mine.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())


_WARN_SCRIPT = """
import sys, warnings
sys.path.insert(0, {src!r})
import {lib} as lib
x, w = lib.ones(1, 2, 5, 5), lib.ones(2, 2, 2, 2)
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    for _ in range(2):   # once per process
        lib.nn.functional.conv2d(x, w, padding="same")
print(repr([(w.category.__name__, str(w.message)) for w in seen]))
"""


def test_same_padding_warns_once_like_torch():
    import os
    import subprocess
    import sys
    src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
    out = [subprocess.run([sys.executable, "-c", _WARN_SCRIPT.format(src=src, lib=lib)],
                          capture_output=True, text=True, check=True).stdout
           for lib in ("leafgrad", "torch")]
    assert out[0] == out[1] and "UserWarning" in out[1]


def test_outputs_are_contiguous_and_view_works():
    x = leafgrad.tensor(arr(2, 3, 8, 8).astype("float32"), requires_grad=True)
    conv = leafgrad.nn.Conv2d(3, 4, 3)
    out = conv(x)
    assert out.is_contiguous()
    flat = out.view(2, -1)
    flat.sum().backward()
    assert x.grad.shape == x.shape


def test_grads_accumulate_and_retain_graph():
    x, w, b = arr(2, 3, 6, 6), arr(4, 3, 3, 3), arr(4)
    mine = [leafgrad.tensor(a, requires_grad=True) for a in (x, w, b)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    ym = leafgrad.nn.functional.conv2d(*mine, padding=1).square().sum()
    yt = torch.nn.functional.conv2d(*theirs, padding=1).square().sum()
    for _ in range(2):   # the second backward rebuilds what the first one consumed
        ym.backward(retain_graph=True)
        yt.backward(retain_graph=True)
    for m, t in zip(mine, theirs):
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-10)


def test_inplace_change_of_input_is_caught():
    x = leafgrad.tensor(arr(1, 2, 5, 5))
    w = leafgrad.tensor(arr(3, 2, 3, 3), requires_grad=True)
    out = leafgrad.nn.functional.conv2d(x, w)
    xt = torch.tensor(x.numpy().copy())
    wt = torch.tensor(w.detach().numpy().copy(), requires_grad=True)
    out_t = torch.nn.functional.conv2d(xt, wt)
    x.add_(1)
    xt.add_(1)
    same_error(lambda: out.sum().backward(), lambda: out_t.sum().backward())


# -- modules ------------------------------------------------------------------------------------
MODULES = [
    ("Conv2d", (3, 4, 3), {}),
    ("Conv2d", (4, 6, (3, 2)), {"stride": 2, "padding": 1, "dilation": (1, 2), "groups": 2,
                                "bias": False}),
    ("Conv2d", (3, 4, 4), {"padding": "same"}),
    ("Conv1d", (3, 4, 3), {"padding": 2, "stride": 2}),
    ("ConvTranspose2d", (3, 4, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ("ConvTranspose1d", (4, 2, 3), {"groups": 2, "dilation": 2}),
]
INPUTS = {"Conv2d": (2, 3, 9, 8), "Conv1d": (2, 3, 11), "ConvTranspose2d": (2, 3, 4, 5),
          "ConvTranspose1d": (2, 4, 6)}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("spec", MODULES, ids=[f"{s[0]}-{i}" for i, s in enumerate(MODULES)])
def test_module_matches_torch(spec, dtype):
    cls, args, kw = spec
    theirs = getattr(torch.nn, cls)(*args, **kw)
    mine = getattr(leafgrad.nn, cls)(*args, **kw)
    if dtype == "float64":
        theirs, mine = theirs.double(), mine.double()
    assert repr(mine) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in mine.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    copy_state(mine, theirs)
    shape = INPUTS[cls]
    if cls == "Conv2d" and args[0] == 4:
        shape = (2, 4, 9, 8)
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


def test_conv_transpose_output_size():
    theirs = torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    mine = leafgrad.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    copy_state(mine, theirs)
    x = arr(1, 2, 4, 4).astype("float32")
    out_t = theirs(torch.tensor(x), output_size=[8, 8])
    out_m = mine(leafgrad.tensor(x), output_size=[8, 8])
    assert tuple(out_m.shape) == tuple(out_t.shape) == (1, 3, 8, 8)
    np.testing.assert_allclose(out_m.detach().numpy(), out_t.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    same_error(lambda: mine(leafgrad.tensor(x), output_size=[12, 12]),
               lambda: theirs(torch.tensor(x), output_size=[12, 12]))
    same_error(lambda: mine(leafgrad.tensor(x), output_size=[1, 2, 3]),
               lambda: theirs(torch.tensor(x), output_size=[1, 2, 3]))


@pytest.mark.parametrize("cls,args,kw", [("Conv2d", (16, 32, 3), {}),
                                         ("Conv1d", (8, 4, 5), {"groups": 4}),
                                         ("ConvTranspose2d", (8, 6, 3), {"groups": 2})])
def test_default_init_bounds(cls, args, kw):
    leafgrad.manual_seed(0)
    m = getattr(leafgrad.nn, cls)(*args, **kw)
    t = getattr(torch.nn, cls)(*args, **kw)
    fan_in = t.weight.shape[1] * math.prod(t.weight.shape[2:])
    bound = 1 / math.sqrt(fan_in)   # kaiming_uniform(a=sqrt(5)) and the bias: both this bound
    w = m.weight.detach().numpy()
    b = m.bias.detach().numpy()
    assert w.shape == tuple(t.weight.shape) and b.shape == tuple(t.bias.shape)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.8 * bound                       # spread over the whole range
    assert abs(w.std() - bound / math.sqrt(3)) < 0.2 * bound   # uniform's std
    assert m.weight.requires_grad and m.weight.dtype == leafgrad.float32


# -- errors -------------------------------------------------------------------------------------
def _err(fn, x_shape, w_shape, b_shape=None, **kw):
    def call(lib, dtype=None):
        x = lib.ones(x_shape)
        w = lib.ones(w_shape)
        b = None if b_shape is None else lib.ones(b_shape)
        return getattr(lib.nn.functional, fn)(x, w, b, **kw)
    same_error(lambda: call(leafgrad), lambda: call(torch))


@pytest.mark.parametrize("fn,x,w,b,kw", [
    ("conv2d", (4, 8), (6, 4, 3, 3), None, {}),
    ("conv2d", (2, 2, 4, 8, 8), (6, 4, 3, 3), None, {}),
    ("conv2d", (2, 4, 8, 8), (6, 3, 3, 3), None, {}),
    ("conv2d", (2, 4, 8, 8), (6, 4, 3), None, {}),
    ("conv2d", (2, 4, 8, 8), (6, 4, 3, 3), (5,), {}),
    ("conv2d", (2, 4, 8, 8), (6, 2, 3, 3), None, {"groups": 3}),
    ("conv2d", (2, 4, 8, 8), (5, 2, 3, 3), None, {"groups": 2}),
    ("conv2d", (2, 4, 8, 8), (6, 4, 9, 9), None, {}),
    ("conv2d", (2, 4, 8, 8), (6, 4, 3, 3), None, {"stride": 0}),
    ("conv2d", (2, 4, 8, 8), (6, 4, 3, 3), None, {"padding": -1}),
    ("conv2d", (2, 4, 8, 8), (6, 4, 3, 3), None, {"dilation": 0}),
    ("conv2d", (2, 4, 8, 8), (6, 4, 3, 3), None, {"groups": 0}),
    ("conv2d", (2, 4, 8, 8), (6, 4, 3, 3), None, {"padding": "same", "stride": 2}),
    ("conv2d", (2, 4, 8, 8), (6, 4, 3, 3), None, {"padding": "foo"}),
    ("conv2d", (2, 4, 8, 8), (6, 4, 3, 3), None, {"stride": (1, 1, 1)}),
    ("conv1d", (2, 4), (6, 4, 3), None, {}),
    ("conv1d", (2, 4, 8), (6, 4, 3), None, {"stride": (1, 1)}),
    ("conv_transpose2d", (2, 4, 8, 8), (4, 3, 3, 3), None, {"stride": 2,
                                                            "output_padding": 2}),
    ("conv_transpose2d", (2, 4, 8, 8), (5, 3, 3, 3), None, {}),
    ("conv_transpose2d", (2, 4, 8), (4, 6, 3, 3), None, {}),
    ("conv_transpose2d", (8,), (4, 6, 3, 3), None, {}),
    ("conv_transpose1d", (2, 4, 8), (4, 6, 3), None, {"stride": 2, "output_padding": 2}),
])
def test_errors_match_torch(fn, x, w, b, kw):
    _err(fn, x, w, b, **kw)


@pytest.mark.parametrize("xd,wd,bd", [("float32", "float64", None), ("float64", "float32", None),
                                      ("float32", "float32", "float64")])
def test_dtype_mismatch_errors(xd, wd, bd):
    x, w = np.ones((2, 4, 8, 8)), np.ones((6, 4, 3, 3))

    def call(lib):
        b = None if bd is None else lib.ones(6, dtype=getattr(lib, bd))
        return lib.nn.functional.conv2d(lib.tensor(x.astype(xd)), lib.tensor(w.astype(wd)), b)
    same_error(lambda: call(leafgrad), lambda: call(torch))


@pytest.mark.parametrize("args,kw", [
    ((4, 6, 3), {"groups": 4}),
    ((4, 6, 3), {"groups": 0}),
    ((3, 6, 3), {"groups": 2}),
    ((4, 6, 3), {"padding": "same", "stride": 2}),
])
def test_module_constructor_errors(args, kw):
    same_error(lambda: leafgrad.nn.Conv2d(*args, **kw), lambda: torch.nn.Conv2d(*args, **kw))


@pytest.mark.parametrize("kw", [{"padding_mode": "bogus"}, {"padding": "full"}])
def test_module_constructor_errors_naming_a_set(kw):
    # the message prints a Python set, whose order varies between processes (and between
    # compiled files): compare the text around it and the set's members
    import re
    errors = []
    for lib in (leafgrad, torch):
        with pytest.raises(ValueError) as info:
            lib.nn.Conv2d(4, 6, 3, **kw)
        errors.append(str(info.value))
    parts = [re.match(r"(.*)\{(.*)\}(.*)", e).groups() for e in errors]
    assert parts[0][0] == parts[1][0] and parts[0][2] == parts[1][2]
    assert set(parts[0][1].split(", ")) == set(parts[1][1].split(", "))


def test_module_input_errors():
    same_error(lambda: leafgrad.nn.Conv2d(4, 6, 3)(leafgrad.ones(2, 3, 8, 8)),
               lambda: torch.nn.Conv2d(4, 6, 3)(torch.ones(2, 3, 8, 8)))
    same_error(lambda: leafgrad.nn.Conv2d(4, 6, 3)(leafgrad.ones(2, 4, 8)),
               lambda: torch.nn.Conv2d(4, 6, 3)(torch.ones(2, 4, 8)))
    same_error(lambda: leafgrad.nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect"),
               lambda: torch.nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect"))
