"""The stride-1 flat-window convolution kernels (ops/conv_flat.py, Note [Flat windows]):
values and gradients against PyTorch 2.13 over random geometries (1-d, 2-d, 3-d, padding,
dilation, groups, bias, non-contiguous inputs), the garbage columns never leaking (non-finite inputs
and weights give PyTorch's NaN/inf pattern), chunking (results independent of the chunk size),
transposed convolutions with stride 1, and the strided kernels agreeing with the flat ones."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad
from leafgrad.ops import conv as conv_ops
from leafgrad.ops import conv_flat


def _geometry(rng, groups=1, strided=False):
    d = int(rng.integers(1, 4))
    n = int(rng.integers(1, 5))
    c, o = (groups * int(v) for v in rng.integers(1, 4, 2))
    k = tuple(int(v) for v in rng.integers(1, 4, d))
    dil = tuple(int(v) for v in rng.integers(1, 3, d))
    pad = tuple(int(v) for v in rng.integers(0, 3, d))
    sp = tuple(max(1, (kk - 1) * dd + 1 - 2 * pp) + int(rng.integers(0, 5))
               for kk, dd, pp in zip(k, dil, pad))
    stride = tuple(int(v) for v in rng.integers(1, 4, d)) if strided else (1,) * d
    return (n, c) + sp, (o, c // groups) + k, pad, dil, stride


def _run(lib, x, w, b, pad, dil, seed_grad, groups=1, stride=1):
    xt = lib.tensor(x, requires_grad=True)
    wt = lib.tensor(w, requires_grad=True)
    bt = None if b is None else lib.tensor(b, requires_grad=True)
    fn = {3: lib.nn.functional.conv1d, 4: lib.nn.functional.conv2d,
          5: lib.nn.functional.conv3d}[x.ndim]
    y = fn(xt, wt, bt, stride=stride, padding=pad, dilation=dil, groups=groups)
    y.backward(lib.tensor(seed_grad(y.shape)))
    grads = [xt.grad, wt.grad] + ([] if bt is None else [bt.grad])
    return [y.detach().numpy()] + [g.numpy() for g in grads]


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("groups", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("seed", range(6))
def test_flat_matches_torch(seed, dtype, groups, strided):
    rng = np.random.default_rng(seed)
    xs, ws, pad, dil, stride = _geometry(rng, groups, strided)
    x = rng.standard_normal(xs).astype(dtype)
    w = rng.standard_normal(ws).astype(dtype)
    b = rng.standard_normal(ws[0]).astype(dtype) if seed % 2 else None
    if seed % 3 == 0:   # a non-contiguous input
        x = np.asfortranarray(x)
    assert conv_flat.usable(x.dtype, w.dtype, stride, groups)
    grng = np.random.default_rng(seed + 100)

    def seed_grad(shape):
        return grng.standard_normal(tuple(shape)).astype(dtype)

    ours = _run(leafgrad, x, w, b, pad, dil, seed_grad, groups, stride)
    grng = np.random.default_rng(seed + 100)
    theirs = _run(torch, x, w, b, pad, dil, seed_grad, groups, stride)
    tol = 1e-12 if dtype == "float64" else 2e-5
    for a, t in zip(ours, theirs):
        assert a.shape == t.shape and a.dtype == t.dtype
        np.testing.assert_allclose(a, t, rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("where", ["input", "weight"])
@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
def test_non_finite_do_not_leak(where, value):
    """An inf in the input sits in garbage columns of the weight gradient's windows, an inf
    in the weight would make the input gradient's garbage NaN: PyTorch's pattern either way."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 2, 6, 7))
    w = rng.standard_normal((3, 2, 3, 3))
    if where == "input":
        x[1, 0, 2, 6] = value   # the last column: a garbage column of the row above
    else:
        w[1, 1, 0, 2] = value

    def seed_grad(shape):
        return np.ones(tuple(shape))

    ours = _run(leafgrad, x, w, None, (1, 0), (1, 1), seed_grad)
    theirs = _run(torch, x, w, None, (1, 0), (1, 1), seed_grad)
    for a, t in zip(ours, theirs):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(t))
        np.testing.assert_array_equal(np.isposinf(a), np.isposinf(t))
        np.testing.assert_array_equal(np.isneginf(a), np.isneginf(t))
        fin = np.isfinite(t)
        np.testing.assert_allclose(a[fin], t[fin], rtol=1e-12, atol=1e-12)


def test_chunk_size_does_not_change_results(monkeypatch):
    """Many small chunks (and a smaller last one) give the one-chunk results, to rounding
    (BLAS's blocking, and so its summation order, depends on the product's width)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((7, 3, 9, 8))
    w = rng.standard_normal((4, 3, 3, 2))
    g = rng.standard_normal((7, 4, 9, 8))
    args = ((1, 1), (1, 1), (1, 2), 1)   # stride, padding, dilation, groups

    def kernels():
        out, _ = conv_ops._conv_nd(x, w, None, *args)
        gi = conv_ops._conv_input_grad(g, w, x.shape, *args)
        gw = conv_ops._conv_weight_grad(g, x, w.shape, *args)
        return out, gi, gw

    whole = kernels()
    monkeypatch.setattr(conv_flat, "_CHUNK_BYTES", 1)   # one sample per chunk
    single = kernels()
    # C*prod(kernel) = 18 rows of 9 * 10 grid positions, float64: chunks of 2, 2, 2, 1
    monkeypatch.setattr(conv_flat, "_CHUNK_BYTES", 2 * 18 * 90 * 8)
    pairs = kernels()
    for parts in (single, pairs):
        for a, b in zip(parts, whole):
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)


def test_flat_and_strided_kernels_agree(monkeypatch):
    """The strided kernels (still used for strides > 1, groups, other dtypes) and the flat
    ones compute the same convolution."""
    rng = np.random.default_rng(11)
    for trial in range(30):
        groups = (1, 2, 4)[trial % 3]
        xs, ws, pad, dil, stride = _geometry(rng, groups, strided=trial % 2 == 1)
        x = rng.standard_normal(xs)
        w = rng.standard_normal(ws)
        flat = conv_ops._conv_nd(x, w, None, stride, pad, dil, groups)
        assert flat[1] is None   # the flat kernel keeps no columns
        g = rng.standard_normal(flat[0].shape)
        flat_grads = (conv_ops._conv_input_grad(g, w, xs, stride, pad, dil, groups),
                      conv_ops._conv_weight_grad(g, x, ws, stride, pad, dil, groups))
        with monkeypatch.context() as m:
            m.setattr(conv_flat, "usable", lambda *a: False)
            out, cols = conv_ops._conv_nd(x, w, None, stride, pad, dil, groups)
            strided = (conv_ops._conv_input_grad(g, w, xs, stride, pad, dil, groups),
                       conv_ops._conv_weight_grad(g, x, ws, stride, pad, dil, groups, cols))
        np.testing.assert_allclose(flat[0], out, rtol=1e-13, atol=1e-13)
        for a, s in zip(flat_grads, strided):
            np.testing.assert_allclose(a, s, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("output_padding,dilation", [(0, 1), (1, 2), ((0, 1), (1, 2))])
def test_transposed_stride_one(output_padding, dilation):
    """A transposed convolution with stride 1 runs the flat input gradient as its forward,
    with an output larger than the gradient's geometry when output_padding is set (its input
    gradient, a convolution of that larger gradient, is cropped to the input: before this
    session leafgrad's backward raised an invalid-gradient error there); second derivatives."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 5, 6))
    w = rng.standard_normal((3, 2, 3, 2))
    res = []
    for lib in (leafgrad, torch):
        xt = lib.tensor(x, requires_grad=True)
        wt = lib.tensor(w, requires_grad=True)
        y = lib.nn.functional.conv_transpose2d(xt, wt, stride=1, padding=1,
                                               output_padding=output_padding,
                                               dilation=dilation)
        gx, gw = lib.autograd.grad((y * y).sum(), (xt, wt), create_graph=True)
        (gx * gx).sum().backward()   # through the input gradient's own node
        res.append([y.detach().numpy(), gx.detach().numpy(), gw.detach().numpy(),
                    xt.grad.numpy(), wt.grad.numpy()])
    for a, t in zip(*res):
        assert a.shape == t.shape
        np.testing.assert_allclose(a, t, rtol=1e-12, atol=1e-12)


def test_double_backward_through_flat_kernels():
    """create_graph runs the records, whose kernels are the flat ones: second derivatives
    match PyTorch."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 2, 6, 5))
    w = rng.standard_normal((3, 2, 2, 3))
    res = []
    for lib in (leafgrad, torch):
        xt = lib.tensor(x, requires_grad=True)
        wt = lib.tensor(w, requires_grad=True)
        y = lib.nn.functional.conv2d(xt, wt, padding=1, dilation=(2, 1))
        gx, gw = lib.autograd.grad((y ** 2).sum(), (xt, wt), create_graph=True)
        (gx.sum() + (gw * gw).sum()).backward()
        res.append([gx.detach().numpy(), gw.detach().numpy(), xt.grad.numpy(),
                    wt.grad.numpy()])
    for a, t in zip(*res):
        np.testing.assert_allclose(a, t, rtol=1e-11, atol=1e-11)


def test_depthwise_and_grouped_modules():
    """nn.Conv2d with groups (depthwise: groups == in_channels) through the flat kernels."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal((3, 6, 9, 8)).astype(np.float32)
    res = []
    for lib in (leafgrad, torch):
        lib.manual_seed(0)
        convs = [lib.nn.Conv2d(6, 6, 3, padding=1, groups=6),
                 lib.nn.Conv2d(6, 4, (2, 3), padding=(1, 0), groups=2, dilation=(2, 1))]
        for m in convs:
            with lib.no_grad():
                m.weight.copy_(lib.tensor(rng.standard_normal(tuple(m.weight.shape))
                                          .astype(np.float32)))
        rng = np.random.default_rng(13)   # the same weights for both
        rng.standard_normal((3, 6, 9, 8))
        xt = lib.tensor(x, requires_grad=True)
        y = convs[1](convs[0](xt).relu())
        (y * y).sum().backward()
        res.append([y.detach().numpy(), xt.grad.numpy()]
                   + [p.grad.numpy() for m in convs for p in (m.weight, m.bias)])
    for a, t in zip(*res):
        np.testing.assert_allclose(a, t, rtol=2e-4, atol=2e-4)


def test_strided_chunks_and_phases(monkeypatch):
    """Strides > 1 read phase images (Note [Strided flat windows]); one sample per chunk and
    one chunk give the same convolution, and both the strided kernels'."""
    rng = np.random.default_rng(17)
    x = rng.standard_normal((5, 3, 11, 10))
    w = rng.standard_normal((4, 3, 3, 4))
    args = ((2, 3), (1, 2), (1, 1), 1)   # stride, padding, dilation, groups
    out, _ = conv_ops._conv_nd(x, w, None, *args)
    g = rng.standard_normal(out.shape)

    def kernels():
        return (conv_ops._conv_nd(x, w, None, *args)[0],
                conv_ops._conv_input_grad(g, w, x.shape, *args),
                conv_ops._conv_weight_grad(g, x, w.shape, *args))

    whole = kernels()
    monkeypatch.setattr(conv_flat, "_CHUNK_BYTES", 1)
    single = kernels()
    monkeypatch.setattr(conv_flat, "usable", lambda *a: False)
    o2, cols = conv_ops._conv_nd(x, w, None, *args)
    strided = (o2, conv_ops._conv_input_grad(g, w, x.shape, *args),
               conv_ops._conv_weight_grad(g, x, w.shape, *args, cols))
    for parts in (single, strided):
        for a, b in zip(parts, whole):
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)
