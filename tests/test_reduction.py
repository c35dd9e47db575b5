"""Reductions against PyTorch 2.13 on the cases the registry samples do not reach: dtypes,
overload names, ties, zeros, printing, error messages."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import leafgrad
from oracle import assert_same_error, assert_same_tensor, grad_fn_name


def both(data, dtype=None, requires_grad=False):
    a = np.array(data, dtype=dtype)
    return (leafgrad.tensor(a.copy(), requires_grad=requires_grad),
            torch.tensor(a.copy(), requires_grad=requires_grad))


def run_both(fn, data, dtype=np.float64, requires_grad=True):
    """fn on both libraries; compare output, grad_fn name, and the gradient of its sum."""
    m, t = both(data, dtype, requires_grad)
    om, ot = fn(leafgrad, m), fn(torch, t)
    assert_same_tensor(om, ot, what="forward")
    assert grad_fn_name(om) == grad_fn_name(ot)
    if requires_grad and ot.requires_grad:
        om.sum().backward()
        ot.sum().backward()
        assert_same_tensor(m.grad, t.grad, what="grad")
    return om, ot


# -- sum / mean / prod: overloads, dims, dtypes -----------------------------------------------
@pytest.mark.parametrize("call", [
    lambda L, x: x.sum(), lambda L, x: x.sum(0), lambda L, x: x.sum((0, 1)),
    lambda L, x: x.sum([1]), lambda L, x: x.sum(None), lambda L, x: x.sum([]),
    lambda L, x: x.sum(-1, keepdim=True), lambda L, x: x.sum(dim=(1, 0), keepdim=True),
    lambda L, x: L.sum(x, 1), lambda L, x: x.sum(dtype=L.float32),
    lambda L, x: x.mean(), lambda L, x: x.mean(0), lambda L, x: x.mean(None),
    lambda L, x: x.mean((0, 1), True), lambda L, x: L.mean(x, dim=-1),
    lambda L, x: x.prod(), lambda L, x: x.prod(1), lambda L, x: x.prod(0, keepdim=True),
    lambda L, x: x.nansum(),
])
def test_sum_mean_prod_overloads(call):
    run_both(call, np.arange(1.0, 13.0).reshape(3, 4) / 4)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_, np.uint8])
def test_integer_sums_are_int64(dtype):
    for call in (lambda x: x.sum(), lambda x: x.sum(0), lambda x: x.prod(),
                 lambda x: x.cumsum(0), lambda x: x.sum(dtype=torch.float32
                                                        if isinstance(x, torch.Tensor)
                                                        else leafgrad.float32)):
        m, t = both([[1, 0, 1], [1, 1, 1]], dtype)
        assert_same_tensor(call(m), call(t))


def test_mean_of_integers_errors_like_torch():
    m, t = both([1, 2, 3])
    assert_same_error(lambda: m.mean(), lambda: t.mean())
    assert_same_error(lambda: m.mean(0), lambda: t.mean(0))
    assert_same_tensor(m.mean(dtype=leafgrad.float64), t.mean(dtype=torch.float64))


@pytest.mark.parametrize("call", [
    lambda x: x.sum(2), lambda x: x.sum((0, 0)), lambda x: x.max(5), lambda x: x.amax(-3),
    lambda x: x.var(7), lambda x: x.cumsum(2), lambda x: x.logsumexp(3),
    lambda x: x.argmax(2), lambda x: x.softmax(4),
])
def test_dim_errors(call):
    m, t = both(np.ones((2, 3)))
    assert_same_error(lambda: call(m), lambda: call(t))


def test_empty_reductions():
    m, t = both(np.zeros((0,)))
    assert_same_tensor(m.sum(), t.sum())
    assert_same_tensor(m.prod(), t.prod())
    assert_same_tensor(m.mean(), t.mean())
    assert_same_error(lambda: m.max(), lambda: t.max())
    assert_same_error(lambda: m.amax(), lambda: t.amax())


# -- prod / cumprod with zeros ----------------------------------------------------------------
ZERO_CASES = [[2.0, 0.0, 3.0, 4.0], [0.0, 2.0, 0.0, 3.0], [0.0, 0.0, 0.0, 5.0],
              [[1.0, 0.0, 2.0], [3.0, 4.0, 5.0]], [[0.0, 0.0, 2.0], [0.0, 4.0, 5.0]]]


@pytest.mark.parametrize("data", ZERO_CASES)
@pytest.mark.parametrize("call", [lambda x: x.prod(), lambda x: x.prod(-1),
                                  lambda x: x.prod(0, keepdim=True), lambda x: x.cumprod(-1),
                                  lambda x: x.cumprod(0)])
def test_prod_and_cumprod_with_zeros_second_order(data, call):
    m, t = both(data, np.float64, True)
    om, ot = call(m), call(t)
    assert_same_tensor(om, ot)
    rng = np.random.default_rng(0)
    seed = rng.standard_normal(tuple(ot.shape))
    gm, = leafgrad.autograd.grad(om, m, leafgrad.tensor(seed), create_graph=True)
    gt, = torch.autograd.grad(ot, t, torch.tensor(seed), create_graph=True)
    assert_same_tensor(gm, gt, what="grad")
    v = rng.standard_normal(tuple(gt.shape))
    ggm, = leafgrad.autograd.grad((gm * leafgrad.tensor(v)).sum(), m)
    ggt, = torch.autograd.grad((gt * torch.tensor(v)).sum(), t)
    assert_same_tensor(ggm, ggt, what="grad-grad")


# -- extremes: ties, overload names, return types ------------------------------------------------
TIES = [[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]


@pytest.mark.parametrize("call", [
    lambda L, x: x.max(), lambda L, x: x.min(), lambda L, x: x.amax(), lambda L, x: x.amin(),
    lambda L, x: x.amax(1), lambda L, x: x.amin(0, keepdim=True), lambda L, x: x.median(),
    lambda L, x: x.max(1).values, lambda L, x: x.min(0)[0], lambda L, x: L.max(x, 1)[0],
    lambda L, x: x.max(dim=1, keepdim=True).values, lambda L, x: x.norm(math.inf),
    lambda L, x: x.norm(-math.inf, 1), lambda L, x: x.logsumexp(1),
])
def test_extremes_route_gradients_like_torch(call):
    run_both(call, TIES)


def test_max_dim_returns_named_tuple_that_prints_like_torch():
    m, t = both(TIES, np.float32, True)
    rm, rt = m.max(1), t.max(1)
    assert repr(rm) == repr(rt)
    assert repr(m.min(0, True)) == repr(t.min(0, True))
    assert repr(m.median(1)) == repr(t.median(1))
    values, indices = rm
    assert isinstance(rm, tuple) and rm.indices is indices and rm[0] is values
    assert_same_tensor(indices, rt.indices)
    assert type(rm).__name__ == type(rt).__name__ == "max"
    assert leafgrad.return_types.max is type(rm)


def test_max_of_two_tensors_is_maximum():
    m, t = both([1.0, 5.0], requires_grad=True)
    m2, t2 = both([3.0, 2.0])
    assert_same_tensor(leafgrad.max(m, m2), torch.max(t, t2))
    assert grad_fn_name(m.max(m2)) == grad_fn_name(t.max(t2))
    assert grad_fn_name(leafgrad.min(m, m2)) == grad_fn_name(torch.min(t, t2))


def test_max_keepdim_type_error():
    m, t = both(TIES)
    assert_same_error(lambda: m.max(1, 2), lambda: t.max(1, 2))


def test_argmax_argmin_all_any():
    m, t = both(TIES)
    for call in (lambda x: x.argmax(), lambda x: x.argmax(1), lambda x: x.argmin(0, True),
                 lambda x: x.argmax(keepdim=True), lambda x: x.all(), lambda x: x.any(1),
                 lambda x: (x > 1).all(0), lambda x: x.all(keepdim=True)):
        assert_same_tensor(call(m), call(t))
    mu, tu = both([1, 0], np.uint8)
    assert_same_tensor(mu.all(), tu.all())


# -- var / std -----------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda x: x.var(), lambda x: x.std(), lambda x: x.var(1), lambda x: x.std(0, True),
    lambda x: x.var(True), lambda x: x.var(unbiased=False), lambda x: x.std(correction=0),
    lambda x: x.var(dim=[0, 1], correction=2), lambda x: x.std(1, keepdim=True),
    lambda x: x.var(1, True, True),
])
def test_var_std(call):
    run_both(lambda L, x: call(x), np.arange(12.0).reshape(3, 4) ** 1.5)


def test_var_std_edge_cases():
    m, t = both([[1.0, 1.0]], requires_grad=True)
    m.std().backward()
    t.std().backward()
    assert_same_tensor(m.grad, t.grad)                  # std 0: gradient 0, not NaN
    mi, ti = both([1, 2, 3])
    assert_same_error(lambda: mi.var(), lambda: ti.var())
    assert_same_error(lambda: mi.std(), lambda: ti.std())
    m1, t1 = both([1.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = m1.var()
    assert "degrees of freedom is <= 0" in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_tensor(out, t1.var())


# -- logsumexp, cumulative, softmax ----------------------------------------------------------------
def test_logsumexp_is_stable_and_promotes_integers():
    run_both(lambda L, x: x.logsumexp(1), [[1000.0, 1000.0], [-1000.0, 0.0]])
    run_both(lambda L, x: L.logsumexp(x, (0, 1), keepdim=True), [[1.0, -math.inf]])
    m, t = both([1, 2, 3])
    assert_same_tensor(m.logsumexp(0), t.logsumexp(0))


@pytest.mark.parametrize("call", [
    lambda L, x: x.softmax(1), lambda L, x: x.log_softmax(0), lambda L, x: L.softmax(x, -1),
    lambda L, x: L.log_softmax(x, 1, dtype=L.float32), lambda L, x: x.cumsum(1),
    lambda L, x: L.cumsum(x, 0, dtype=L.float32),
])
def test_softmax_family_large_inputs(call):
    run_both(call, [[1000.0, 0.0, -1000.0], [3.0, 2.0, 1.0]])


def test_softmax_of_integers_errors_like_torch():
    m, t = both([1, 2, 3])
    assert_same_error(lambda: m.softmax(0), lambda: t.softmax(0))
    assert_same_error(lambda: m.log_softmax(0), lambda: t.log_softmax(0))
