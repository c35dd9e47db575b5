"""The torch.* utilities and composite ops added beside the op records (tensor_utils.py,
matrix_extra.py, reduction_extra.py, pointwise_extra.py): values, dtypes, grad_fn names,
gradients, printed forms and errors against PyTorch 2.13."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same_error, assert_same_tensor, grad_fn_name, to_both

import leafgrad

RNG = np.random.default_rng(0)


def _arr(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, size=shape)


def _compare(fn, *arrays, atol=1e-6, grads=True):
    """Run ``fn(lib, *tensors)`` on both libraries; compare outputs and input gradients."""
    pairs = [to_both(a) for a in arrays]
    mine = fn(leafgrad, *[p[0] for p in pairs])
    theirs = fn(torch, *[p[1] for p in pairs])
    m_out = list(mine) if isinstance(mine, (tuple, list)) else [mine]
    t_out = list(theirs) if isinstance(theirs, (tuple, list)) else [theirs]
    assert type(mine).__name__ == type(theirs).__name__ or isinstance(theirs, tuple)
    assert len(m_out) == len(t_out)
    for m, t in zip(m_out, t_out):
        assert_same_tensor(m, t, atol=atol)
        assert grad_fn_name(m) == grad_fn_name(t)
    if not grads:
        return
    m_diff = [m for m in m_out if m.requires_grad]
    t_diff = [t for t in t_out if t.requires_grad]
    assert len(m_diff) == len(t_diff)
    if not t_diff:
        return
    seeds = [RNG.standard_normal(tuple(t.shape)) for t in t_diff]
    m_in = [p[0] for p in pairs if p[0].requires_grad]
    t_in = [p[1] for p in pairs if p[1].requires_grad]
    m_g = leafgrad.autograd.grad(m_diff, m_in, [leafgrad.tensor(s, dtype=m.dtype)
                                                for s, m in zip(seeds, m_diff)],
                                 allow_unused=True)
    t_g = torch.autograd.grad(t_diff, t_in, [torch.tensor(s, dtype=t.dtype)
                                             for s, t in zip(seeds, t_diff)],
                              allow_unused=True)
    for a, b in zip(m_g, t_g):
        assert (a is None) == (b is None)
        if b is not None:
            assert_same_tensor(a, b, atol=atol)


# -- tensor_utils ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo(name):
    m, t = leafgrad.finfo(getattr(leafgrad, name)), torch.finfo(getattr(torch, name))
    assert repr(m) == repr(t)
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(m, attr) == getattr(t, attr), attr
    assert repr(leafgrad.finfo()) == repr(torch.finfo())


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo(name):
    m, t = leafgrad.iinfo(getattr(leafgrad, name)), torch.iinfo(getattr(torch, name))
    assert repr(m) == repr(t)
    assert (m.bits, m.max, m.min, m.dtype) == (t.bits, t.max, t.min, t.dtype)


def test_info_errors():
    assert_same_error(lambda: leafgrad.iinfo(leafgrad.float32),
                      lambda: torch.iinfo(torch.float32))
    assert_same_error(lambda: leafgrad.finfo(leafgrad.int32), lambda: torch.finfo(torch.int32))


def test_small_queries():
    for dt in ("float32", "int64", "uint8", "bool"):
        m = leafgrad.zeros(3, dtype=getattr(leafgrad, dt))
        t = torch.zeros(3, dtype=getattr(torch, dt))
        assert leafgrad.typename(m) == torch.typename(t)
        assert (m.nbytes, m.itemsize) == (t.nbytes, t.itemsize)
        assert leafgrad.is_signed(m) == torch.is_signed(t) == m.is_signed()
    assert leafgrad.typename(3) == torch.typename(3)
    assert leafgrad.is_inference(leafgrad.zeros(1)) == torch.is_inference(torch.zeros(1))
    leafgrad.set_num_threads(2)
    assert leafgrad.get_num_threads() == 2
    assert isinstance(leafgrad.get_num_interop_threads(), int)
    assert_same_error(lambda: leafgrad.is_signed(3), lambda: torch.is_signed(3))
    a, b = to_both(np.array([1.0, 2.0]))
    c, d = to_both(np.array([1.0, 2.0 + 1e-9]))
    assert a.allclose(c) == b.allclose(d)
    assert a.equal(c) == b.equal(d)
    assert_same_tensor(a.isclose(c), b.isclose(d))
    assert a.is_same_size(c) == b.is_same_size(d)


def test_inplace_functions():
    for name in ("exp_", "sigmoid_", "tanh_", "relu_", "sqrt_", "abs_", "neg_", "clamp_"):
        m, t = leafgrad.tensor([0.5, 1.5]), torch.tensor([0.5, 1.5])
        args = (0.0, 1.0) if name == "clamp_" else ()
        out_m, out_t = getattr(leafgrad, name)(m, *args), getattr(torch, name)(t, *args)
        assert out_m is m and out_t is t
        assert_same_tensor(m, t)


@pytest.mark.parametrize("shape, call", [
    ((1, 3, 1), lambda x: x.unsqueeze_(0)), ((1, 3, 1), lambda x: x.unsqueeze_(-1)),
    ((1, 3, 1), lambda x: x.transpose_(0, 1)), ((2, 3), lambda x: x.t_()),
    ((1, 3, 1), lambda x: x.squeeze_()), ((1, 3, 1), lambda x: x.squeeze_(0)),
    ((1, 3, 1), lambda x: x.squeeze_((0, 2))), ((1, 3, 1), lambda x: x.t_())])
def test_inplace_views(shape, call):
    a, b = to_both(_arr(*shape))
    x_m, x_t = a * 2, b * 2
    try:
        out_t = call(x_t)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=re.escape(str(e))):
            call(x_m)
        return
    out_m = call(x_m)
    assert out_m is x_m and out_t is x_t
    assert_same_tensor(x_m, x_t)
    assert grad_fn_name(x_m) == grad_fn_name(x_t)
    assert x_m._version == x_t._version
    x_m.sum().backward()
    x_t.sum().backward()
    assert_same_tensor(a.grad, b.grad)
    assert_same_error(lambda: call(a), lambda: call(b))


# -- matrix_extra ----------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda L, x: L.diag(x), lambda L, x: L.diag(x[0], 1), lambda L, x: L.diag(x, -1),
    lambda L, x: L.diagflat(x), lambda L, x: L.diagflat(x[0], -2), lambda L, x: x.fliplr(),
    lambda L, x: x.flipud(), lambda L, x: L.meshgrid(x[0], x[1, :2], indexing="ij"),
    lambda L, x: L.meshgrid([x[0], x[1, :2]], indexing="xy"),
    lambda L, x: L.cartesian_prod(x[0], x[1, :2]), lambda L, x: x.diagonal().exp(),
    lambda L, x: L.tril_indices(3, 4, 1), lambda L, x: L.triu_indices(4, 3, -1)])
def test_matrix_composites(fn):
    _compare(fn, _arr(3, 4))


def test_matrix_errors():
    for fn in (lambda L: L.diag(L.zeros(2, 2, 2)), lambda L: L.trace(L.zeros(2, 2, 2)),
               lambda L: L.zeros(3).tril(), lambda L: L.zeros(2, 3).rot90(1, [0, 0]),
               lambda L: L.meshgrid(L.zeros(2), indexing="foo")):
        assert_same_error(lambda: fn(leafgrad), lambda: fn(torch))


def test_meshgrid_warns_without_indexing():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        leafgrad.meshgrid(leafgrad.zeros(2), leafgrad.zeros(3))
    assert any("it will be required to pass the indexing argument" in str(w.message)
               for w in caught)


def test_diagonal_is_a_writable_view():
    m, t = leafgrad.zeros(3, 4), torch.zeros(3, 4)
    m.diagonal(1).fill_(1.0)
    t.diagonal(1).fill_(1.0)
    assert_same_tensor(m, t)
    assert m.diagonal()._base is m


# -- reduction_extra -------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda L, x: L.var_mean(x), lambda L, x: L.std_mean(x, 1),
    lambda L, x: L.var_mean(x, 0, keepdim=True, correction=0), lambda L, x: x.nanmean(),
    lambda L, x: x.nanmean(1, keepdim=True), lambda L, x: x.quantile(0.3),
    lambda L, x: x.quantile(0.3, dim=1), lambda L, x: x.quantile(0.7, dim=0, keepdim=True),
    lambda L, x: x.quantile(0.3, keepdim=True),
    lambda L, x: x.quantile(L.tensor([0.25, 0.5, 1.0], dtype=L.float64), dim=1),
    lambda L, x: x.quantile(0.4, interpolation="lower"),
    lambda L, x: x.quantile(0.4, 1, interpolation="higher"),
    lambda L, x: x.quantile(0.4, 1, interpolation="midpoint"),
    lambda L, x: x.quantile(0.45, 0, interpolation="nearest"),
    lambda L, x: x.nanquantile(0.3, dim=1), lambda L, x: x.diff(),
    lambda L, x: x.diff(n=2, dim=0), lambda L, x: L.diff(x, prepend=x[:, :1], append=x[:, :2]),
    lambda L, x: L.diff(x, dim=0, prepend=x[:1]),
    lambda L, x: x.cummax(1), lambda L, x: x.cummin(0), lambda L, x: x.kthvalue(2),
    lambda L, x: x.aminmax(), lambda L, x: x.nanmedian(), lambda L, x: x.nanmedian(0)])
def test_reduction_composites(fn):
    _compare(fn, _arr(3, 5))


def test_nan_aware_reductions():
    x = _arr(3, 5)
    x[0, 1] = x[2, 3] = x[2, 0] = np.nan
    for fn in (lambda L, t: t.nanmean(1), lambda L, t: t.nanquantile(0.5, dim=1),
               lambda L, t: t.quantile(0.5, dim=1), lambda L, t: t.nanmedian(1).values,
               lambda L, t: t.nanmedian()):
        _compare(fn, x)


def test_reduction_errors():
    for fn in (lambda L: L.zeros(3).quantile(1.5), lambda L: L.zeros(3).quantile(
                   L.zeros(1, 1)), lambda L: L.zeros(3).quantile(0.5, interpolation="foo"),
               lambda L: L.zeros(3, dtype=L.int32).quantile(0.5),
               lambda L: L.zeros(3, dtype=L.int32).nanmean(),
               lambda L: L.zeros(3).kthvalue(4), lambda L: L.zeros(3, dtype=L.int32).logcumsumexp(0)):
        assert_same_error(lambda: fn(leafgrad), lambda: fn(torch))


# -- pointwise_extra -------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda L, x, y: L.float_power(x, y.abs()), lambda L, x, y: x.abs().float_power(2),
    lambda L, x, y: L.float_power(2, x), lambda L, x, y: L.copysign(x, y),
    lambda L, x, y: L.frexp(x), lambda L, x, y: x.float().float_power(y)])
def test_pointwise_composites(fn):
    _compare(fn, _arr(2, 3), _arr(2, 3))


def test_pointwise_errors():
    for fn in (lambda L: L.logaddexp(L.zeros(2), 2.0), lambda L: L.frexp(L.zeros(2, dtype=L.long)),
               lambda L: L.gcd(L.zeros(2), L.zeros(2)),
               lambda L: L.heaviside(L.zeros(2), L.zeros(2, dtype=L.float64)),
               lambda L: L.addcdiv(L.zeros(2, dtype=L.long), L.ones(2, dtype=L.long),
                                   L.ones(2, dtype=L.long)),
               lambda L: L.polygamma(-1, L.ones(2))):
        assert_same_error(lambda: fn(leafgrad), lambda: fn(torch))


# -- index_extra -----------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda L, x: x.tensor_split(3), lambda L, x: x.tensor_split(2, dim=1),
    lambda L, x: L.tensor_split(x, [1, 4], 1), lambda L, x: x.hsplit(5),
    lambda L, x: x.vsplit([1]), lambda L, x: x.repeat_interleave(2),
    lambda L, x: x.repeat_interleave(3, dim=1),
    lambda L, x: x.repeat_interleave(L.tensor([1, 0, 2]), dim=0),
    lambda L, x: L.take_along_dim(x, L.tensor([[0], [2], [4]]), 1),
    lambda L, x: L.take_along_dim(x, L.tensor([0, 7, 14])),
    lambda L, x: L.take_along_dim(x, x.argsort(1), dim=1),
    lambda L, x: x.sum_to_size(1, 5), lambda L, x: x.sum_to_size((3, 1)),
    lambda L, x: x.sum_to_size(5),
    lambda L, x: x.index_fill(1, L.tensor([0, 3]), L.tensor(2.0))])
def test_index_composites(fn):
    _compare(fn, _arr(3, 5))


def test_counts_and_searches():
    ints = np.array([3, 1, 2, 3, 1, 1, 5])
    seq = np.array([1, 3, 5, 7])
    for fn in (lambda L, a, s: L.unique(a, return_inverse=True, return_counts=True),
               lambda L, a, s: L.unique(a.view(-1, 1), dim=0, return_counts=True),
               lambda L, a, s: L.unique_consecutive(a, return_inverse=True,
                                                    return_counts=True),
               lambda L, a, s: L.bincount(a), lambda L, a, s: L.bincount(a, minlength=9),
               lambda L, a, s: L.bincount(a, weights=a.double() / 2),
               lambda L, a, s: L.searchsorted(s, a), lambda L, a, s: L.searchsorted(s, a,
                                                                                     right=True),
               lambda L, a, s: L.searchsorted(s, 3), lambda L, a, s: L.bucketize(a, s),
               lambda L, a, s: L.bucketize(a, s, out_int32=True, right=True),
               lambda L, a, s: L.histc(a.float(), bins=4), lambda L, a, s: L.histc(
                   a.double(), bins=3, min=1, max=3)):
        _compare(fn, ints, seq)


def test_index_errors():
    for fn in (lambda L: L.zeros(3).sum_to_size(2), lambda L: L.bincount(L.tensor([-1, 2])),
               lambda L: L.zeros(3, 3).hsplit(2), lambda L: L.tensor(1.0).tensor_split(2),
               lambda L: L.histc(L.tensor([1, 2]))):
        assert_same_error(lambda: fn(leafgrad), lambda: fn(torch))


def test_unique_has_no_derivative():
    a, b = to_both(np.array([3.0, 1.0, 3.0]))
    assert_same_tensor(a.unique(), b.unique())
    assert grad_fn_name(a.unique()) == grad_fn_name(b.unique())
    assert_same_error(lambda: a.unique().sum().backward(), lambda: b.unique().sum().backward())


# -- tensor_extra ----------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda L, x, y: L.column_stack([y, y * 2]), lambda L, x, y: L.column_stack([x.t(), y]),
    lambda L, x, y: L.msort(x), lambda L, x, y: L.cov(x), lambda L, x, y: L.cov(y),
    lambda L, x, y: L.cov(x, correction=0), lambda L, x, y: x.corrcoef(),
    lambda L, x, y: L.cov(x, fweights=L.tensor([1, 2, 1, 3]), aweights=y.detach().abs()),
    lambda L, x, y: L.trapezoid(x), lambda L, x, y: L.trapezoid(x, dx=0.5, dim=0),
    lambda L, x, y: L.trapezoid(x, y.detach().cumsum(0)), lambda L, x, y: L.trapezoid(x, y),
    lambda L, x, y: L.cumulative_trapezoid(x), lambda L, x, y: L.cumulative_trapezoid(
        x, dx=2.0, dim=0), lambda L, x, y: L.cumulative_trapezoid(x, y),
    lambda L, x, y: L.block_diag(x, y, y[0]), lambda L, x, y: x.narrow_copy(1, 1, 2),
    lambda L, x, y: L.isin(L.tensor([1, 2, 3]), L.tensor([2, 5])),
    lambda L, x, y: L.isin(L.tensor([1, 2, 3]), 2, invert=True), lambda L, x, y: L.isreal(x)])
def test_tensor_extra(fn):
    _compare(fn, _arr(3, 4), _arr(4), atol=1e-5)


def test_vander():
    _compare(lambda L, a: L.vander(a), np.array([1, 2, 3]))
    # PyTorch's vander cannot be differentiated (its in-place cumprod); compare forwards
    _compare(lambda L, y: L.vander(y, 3), _arr(4), grads=False)
    _compare(lambda L, y: L.vander(y, increasing=True), _arr(4), grads=False)
    _compare(lambda L, y: L.vander(y, 1), _arr(4), grads=False)


def test_mvlgamma_edges():
    _compare(lambda L, x: L.mvlgamma(x, 3), np.array([1.0, 0.7, 2.5]), grads=False)
    assert_same_error(lambda: leafgrad.mvlgamma(leafgrad.ones(2), 0),
                      lambda: torch.mvlgamma(torch.ones(2), 0))


def test_addcmul_integer_value_truncates():
    _compare(lambda L, a: L.addcmul(a, a, a * 2, value=1.5), np.array([1, 2, -3]))


def test_renorm_inf_and_errors():
    _compare(lambda L, x: x.renorm(float("inf"), 0, 1.0), _arr(3, 4), grads=False)
    for fn in (lambda L: L.zeros(3, 2).renorm(2, 0, -1.0), lambda L: L.zeros(3, 2).renorm(
               -1, 0, 1.0), lambda L: L.zeros(2).renorm(2, 0, 1.0)):
        assert_same_error(lambda: fn(leafgrad), lambda: fn(torch))
