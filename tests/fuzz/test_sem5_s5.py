"""Semantics and values fuzz mismatches of session 5 (seeds 12 and 13), helper sem5.

Each test runs the same statements on leafgrad and on torch (``oracle.same_on_both``, or an
exact comparison where the last bits matter) and compares what they observe.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad
from oracle import same_on_both


# -- cross: PyTorch computes each component as fma(a_i, b_j, -(a_j * b_i)), so cross(x, x) is a
# tiny rounding error whose sign orders a later topk (fuzz seed 13 x6) -----------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("parallel", [None, 1.0, 0.5, -3.0])
@pytest.mark.parametrize("call", ["linalg", "dim0"])
def test_cross_bits(dtype, parallel, call):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((3, 7)) * 3).astype(dtype)
    b = rng.standard_normal((3, 7)).astype(dtype) if parallel is None else \
        (a * parallel).astype(dtype)
    if call == "linalg":
        a, b = a.T.copy(), b.T.copy()
    out = []
    for L in (leafgrad, torch):
        x, y = L.tensor(a), L.tensor(b)
        r = L.linalg.cross(x, y) if call == "linalg" else L.cross(x, y, dim=0)
        out.append(r.numpy())
    np.testing.assert_array_equal(out[0], out[1])


def test_cross_then_topk_order():
    def run(L):
        x = L.tensor([9.494043, -1.2060031, 0.6151151], requires_grad=True)
        v, i = L.linalg.cross(x, x).topk(3, largest=False)
        return i.tolist(), (v > 0).tolist(), (v < 0).tolist()
    same_on_both(run)
