"""Fuzz findings of session 7 (seed 27 and the probe seeds 50-54) fixed by fz7.

Each statement runs on leafgrad and on PyTorch and compares what both give (values, dtypes,
grad_fn names, exception types and messages).
"""
from __future__ import annotations

import pytest
from oracle import same_on_both


def _show(t):
    """A tensor as text (dtype, shape, values): NaN compares equal to NaN as text."""
    return str(t.dtype), tuple(t.shape), repr(t.tolist()), type(t.grad_fn).__name__


# -- addcmul of 0-d float64 tensors whose fused result is not finite: NumPy answers scalars for
# 0-d operands, which the inf/nan repair must not assign into (seed 27 x6) -----------------------
@pytest.mark.parametrize("value", [1, -2, 0.5])
@pytest.mark.parametrize("vals", [(float("nan"), 2.0, 3.0), (1e308, 1e308, 2.0),
                                  (float("inf"), 1.0, 1.0), (1.0, 2.0, 3.0)])
def test_addcmul_0d_nonfinite(vals, value):
    def run(L):
        a, b, c = (L.tensor(v, dtype=L.float64) for v in vals)
        return _show(L.addcmul(a, b, c, value=value)), _show(a.addcmul(b, c, value=value))
    same_on_both(run)


# -- margin_ranking_loss computes input1 - input2 before -target: bool inputs raise the
# subtraction's error first (seed 27 x1) ---------------------------------------------------------
@pytest.mark.parametrize("kinds", ["bbb", "ffb", "bfb", "fbb", "bbf", "fff"])
def test_margin_ranking_loss_bool_order(kinds):
    def run(L):
        t = {"b": L.tensor([True, False]), "f": L.tensor([1.0, 2.0])}
        return L.nn.functional.margin_ranking_loss(*(t[k] for k in kinds))
    same_on_both(run)
