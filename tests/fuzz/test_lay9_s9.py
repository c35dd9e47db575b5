"""Findings of session 9 fixed by lay9: elementwise output layouts (TensorIterator's) decide
whether a later ``view`` exists (fuzz seeds 79, 105, 106)."""
from __future__ import annotations

import pytest
from oracle import same_on_both


def _t(L):
    return L.arange(12.0).reshape(3, 4).t()   # strides (1, 4)


def _observe(r):
    return r, tuple(r.stride()), r.is_contiguous()


# -- isin's brute-force path views its operands flat: erfc / div keep a transposed input's
# layout in PyTorch, so the view fails (seed 79) ----------------------------------------------
@pytest.mark.parametrize("make", [
    lambda L, x: L.isin(x, L.erfc(x)), lambda L, x: L.isin(L.erfc(x), x),
    lambda L, x: L.isin(x / L.ones(4, 3), x), lambda L, x: L.isin(x, L.ones(4, 3) / x),
    lambda L, x: L.isin(x, L.where(x > 3, x, L.zeros(4, 3))),
    lambda L, x: L.isin(x, x.long() * 2), lambda L, x: L.isin(x, L.clamp(x, 1, 5))])
def test_isin_of_transposed_results(make):
    same_on_both(lambda L: make(L, _t(L)))


@pytest.mark.parametrize("make", [
    lambda L, x: L.erfc(x), lambda L, x: x + L.ones(4, 3), lambda L, x: L.ones(4, 3) + x,
    lambda L, x: x / 2, lambda L, x: x[:, ::2] * 2, lambda L, x: L.lgamma(x + 1),
    lambda L, x: L.lerp(L.ones(4, 3), x, 0.3), lambda L, x: L.addcmul(x, x, L.ones(4, 3)),
    lambda L, x: x.masked_fill(x > 2, 0.0), lambda L, x: L.softmax(x, 1),
    lambda L, x: L.cumsum(x, 0), lambda L, x: L.pow(2.0, x), lambda L, x: L.rsub(x, 1.0),
    lambda L, x: L.rot90(x), lambda L, x: L.slice_scatter(x, x[:1], 0, 0, 1)])
def test_layout_then_view(make):
    def run(L):
        r = make(L, _t(L))
        return _observe(r) + (r.view(-1),)
    same_on_both(run)


# -- take_along_dim without dim views both operands flat (seeds 105, 106: of nonzero's
# column-major result) ------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda L: L.nonzero(L.tensor([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])),
    lambda L: L.erfc(_t(L)), lambda L: _t(L).contiguous()])
def test_take_along_dim_flat(make):
    def run(L):
        x = make(L)
        return L.take_along_dim(x, x.reshape(-1).argsort())
    same_on_both(run)


def test_take_along_dim_flat_indices_not_viewable():
    def run(L):
        x = L.arange(6.0)
        idx = L.tensor([[0, 1], [2, 3], [4, 5]]).t()
        return L.take_along_dim(x, idx)
    same_on_both(run)
