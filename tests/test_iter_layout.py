"""Output layouts (strides) of elementwise ops on non-contiguous inputs, against PyTorch:
TensorIterator's rule (Note [Elementwise output layouts] in ops/iter_layout.py), and the ops
whose kernels write contiguous results or clone ``self``'s layout. A later ``view`` succeeds
or fails by these strides."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad
from oracle import assert_same_error, assert_same_tensor


def _make(L, kind, shape, dtype="float64", seed=0):
    """A tensor of ``shape`` with the layout ``kind`` (same values on both libraries)."""
    rng = np.random.default_rng(seed)
    vals = rng.uniform(0.2, 0.9, size=shape)
    if dtype == "int64":
        vals = np.round(vals * 10)
    dt = getattr(L, dtype)
    nd = len(shape)
    if kind == "c" or nd < 2:
        return L.tensor(vals.copy(), dtype=dt)
    if kind == "T":   # the last two dims swapped in memory
        return L.tensor(np.swapaxes(vals, -1, -2).copy(), dtype=dt).transpose(-1, -2)
    if kind == "P":   # every dim reversed in memory
        order = tuple(range(nd))[::-1]
        return L.tensor(vals.transpose(order).copy(), dtype=dt).permute(*order)
    if kind == "S":   # a step on the last dim
        return L.tensor(np.repeat(vals, 2, axis=-1), dtype=dt)[..., ::2]
    if kind == "E":   # the first row expanded
        return L.tensor(vals[:1].copy(), dtype=dt).expand(*shape)
    if kind == "TS":  # transposed and stepped
        return L.tensor(np.repeat(np.swapaxes(vals, -1, -2), 2, axis=-1), dtype=dt)[
            ..., ::2].transpose(-1, -2)
    raise ValueError(kind)


def _same_layout(mine, theirs):
    assert tuple(mine.stride()) == tuple(theirs.stride()), (mine.stride(), theirs.stride())
    assert mine.is_contiguous() == theirs.is_contiguous()
    assert_same_tensor(mine, theirs, atol=1e-6)


KINDS = ["T", "P", "S", "E", "TS"]
UNARY = ["erfc", "erf", "lgamma", "digamma", "erfinv", "exp", "neg", "sigmoid", "floor",
         "round", "nan_to_num", "relu"]
BINARY = ["add", "sub", "mul", "div", "eq", "lt", "maximum", "atan2", "xlogy", "pow",
          "remainder", "copysign", "hypot", "logaddexp", "fmod"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
@pytest.mark.parametrize("op", UNARY)
def test_unary(op, shape, kind):
    mine = getattr(leafgrad, op)(_make(leafgrad, kind, shape))
    theirs = getattr(torch, op)(_make(torch, kind, shape))
    _same_layout(mine, theirs)


@pytest.mark.parametrize("kinds", [("T", "c"), ("c", "T"), ("P", "c"), ("c", "P"), ("T", "S"),
                                   ("S", "T"), ("E", "T"), ("T", "E"), ("P", "T"),
                                   ("TS", "c")])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 3, 4), (2, 3, 4)),
                                    ((2, 3, 4), (3, 4)), ((3, 4), (2, 3, 4))])
@pytest.mark.parametrize("op", BINARY)
def test_binary(op, shapes, kinds):
    def run(L):
        a = _make(L, kinds[0], shapes[0], seed=1)
        b = _make(L, kinds[1], shapes[1], seed=2)
        return getattr(L, op)(a, b)
    _same_layout(run(leafgrad), run(torch))


@pytest.mark.parametrize("kinds", [("T", "c", "c"), ("c", "T", "c"), ("c", "c", "P"),
                                   ("E", "c", "T")])
@pytest.mark.parametrize("op", ["where", "lerp", "addcmul", "addcdiv", "clamp"])
def test_ternary(op, kinds):
    def run(L):
        a, b, c = (_make(L, k, (2, 3, 4), seed=i) for i, k in enumerate(kinds))
        if op == "where":
            return L.where(a > 0.5, b, c)
        return getattr(L, op)(a, b, c)
    _same_layout(run(leafgrad), run(torch))


@pytest.mark.parametrize("kind", ["T", "E", "S"])
@pytest.mark.parametrize("dtypes", [("int64", "float64"), ("float64", "int64"),
                                    ("int64", "int64")])
def test_converted_inputs(kind, dtypes):
    # an input converted to the common dtype first is a fresh (dense) copy in PyTorch
    def run(L):
        a = _make(L, kind, (3, 4), dtypes[0], seed=1)
        b = _make(L, "T", (3, 4), dtypes[1], seed=2)
        return a / b, a < b, L.erfc(a)
    for m, t in zip(run(leafgrad), run(torch)):
        _same_layout(m, t)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("call", [
    lambda L, x: L.softmax(x, 0), lambda L, x: L.log_softmax(x, -1),
    lambda L, x: L.cumsum(x, 0), lambda L, x: L.cummax(x, 1)[1], lambda L, x: L.cumprod(x, 1),
    lambda L, x: L.masked_fill(x, x > 0.5, 1.0), lambda L, x: L.pow(2.0, x),
    lambda L, x: L.tril(x), lambda L, x: L.roll(x, 1, 0), lambda L, x: L.sort(x, 0)[0],
    lambda L, x: L.flip(x, (0,)), lambda L, x: L.nn.functional.logsigmoid(x),
    lambda L, x: L.slice_scatter(x, x[:1], 0, 0, 1), lambda L, x: x.long(),
    lambda L, x: x.to(L.float32), lambda L, x: L.nn.functional.gelu(x),
    lambda L, x: L.rot90(x), lambda L, x: L.rot90(x, 2), lambda L, x: L.rot90(x, -1, (1, 0)),
    lambda L, x: L.rot90(x, 4)])
def test_other_ops(call, kind):
    _same_layout(call(leafgrad, _make(leafgrad, kind, (3, 4))),
                 call(torch, _make(torch, kind, (3, 4))))


@pytest.mark.parametrize("kinds", [("T", "c"), ("c", "T"), ("E", "T")])
@pytest.mark.parametrize("loss", ["mse_loss", "huber_loss", "binary_cross_entropy",
                                  "binary_cross_entropy_with_logits", "smooth_l1_loss"])
def test_losses_unreduced(loss, kinds):
    def run(L):
        a = _make(L, kinds[0], (3, 4), seed=1)
        b = _make(L, kinds[1], (3, 4), seed=2)
        return getattr(L.nn.functional, loss)(a, b, reduction="none")
    _same_layout(run(leafgrad), run(torch))


@pytest.mark.parametrize("make", [
    lambda L, x: L.erfc(x), lambda L, x: x / L.ones(4, 3), lambda L, x: L.ones(4, 3) + x,
    lambda L, x: L.where(x > 3, x, L.zeros(4, 3)), lambda L, x: L.lerp(x, L.ones(4, 3), 0.5)])
def test_view_after_elementwise(make):
    # the layout decides whether view(-1) exists (the fuzz's isin / take_along_dim errors)
    def run(L):
        x = L.arange(12.0).reshape(3, 4).t()
        return make(L, x).view(-1)
    try:
        expected = run(torch)
    except RuntimeError:
        assert_same_error(lambda: run(leafgrad), lambda: run(torch))
        return
    assert_same_tensor(run(leafgrad), expected)


def test_gradient_through_mul_of_transposed():
    # gradients run through the same dispatch (the layout of a gradient also depends on the
    # operand order of its formula, which is PyTorch's for mul)
    def run(L):
        a = L.tensor(np.arange(12.0).reshape(4, 3) / 10, requires_grad=True)
        b = L.tensor(np.arange(12.0).reshape(3, 4) / 10 + 0.5, requires_grad=True)
        out = L.erfc(a.t()) * b
        gb, = L.autograd.grad(out, (b,), L.ones(4, 3).t(), create_graph=True)
        return out, gb
    for m, t in zip(run(leafgrad), run(torch)):
        _same_layout(m, t)


@pytest.mark.parametrize("kind", ["T", "P", "S", "E"])
@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, False), (2, True), ((0, 2), False),
                                         (-1, True)])
@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "std", "var", "logsumexp",
                                "nansum", "all", "any", "norm", "count_nonzero"])
def test_reductions_are_contiguous(op, dim, keepdim, kind):
    # PyTorch's reductions allocate contiguous outputs; NumPy's keep the input's dim order
    def run(L):
        x = _make(L, kind, (2, 3, 4))
        if op == "count_nonzero":
            return L.count_nonzero(x > 0.5, dim=dim)
        return getattr(L, op)(x, dim=dim, keepdim=keepdim)
    _same_layout(run(leafgrad), run(torch))


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("leaf_kind", ["c", "T", "P"])
@pytest.mark.parametrize("f", [
    lambda L, a: L.erfc(a.transpose(0, 1)).sum(), lambda L, a: (a.transpose(0, 1) * 2).sum(),
    lambda L, a: (L.ones(3, 2, 4) * a.transpose(0, 1)).sum(),
    lambda L, a: L.softmax(a.transpose(0, 1), 0).mul(L.arange(24.0).reshape(3, 2, 4)).sum(),
    lambda L, a: a.permute(2, 0, 1).exp().sum()])
def test_leaf_grad_layout(f, leaf_kind, create_graph):
    # AccumulateGrad stores a leaf's first gradient with the leaf's strides (a dense leaf)
    def run(L):
        a = _make(L, leaf_kind, (2, 3, 4)).detach().requires_grad_()
        f(L, a).backward(create_graph=create_graph)
        return a.grad
    _same_layout(run(leafgrad), run(torch))
