"""Kernel dtype errors of ops that do not broadcast keep their own text.

PyTorch's elementwise ops build a broadcast first, so mismatched shapes win over a kernel's
"not implemented for 'Bool'" (tests/fuzz/test_op_groups.py); a convolution, a loss or a matrix
op with operands of different shapes raises its kernel's message. Found in session 3 after the
broadcast-first rule reached the general dispatcher: conv1d of bool tensors said "The size of
tensor a ... must match".
"""
from __future__ import annotations

import pytest
import torch

import leafgrad

from oracle import assert_same_error

CASES = [
    "F.conv1d(L.zeros(1, 2, 5, dtype=L.bool), L.zeros(3, 2, 2, dtype=L.bool))",
    "F.conv2d(L.zeros(1, 2, 5, 5, dtype=L.bool), L.zeros(3, 2, 2, 2, dtype=L.bool))",
    "F.nll_loss(L.zeros(3, 5, dtype=L.long), L.zeros(3, dtype=L.long))",
    "F.cross_entropy(L.zeros(3, 5, dtype=L.long), L.zeros(3, dtype=L.long))",
    "L.mm(L.ones(2, 3, dtype=L.bool), L.ones(3, 4, dtype=L.bool))",
    "L.trace(L.zeros(3, 5, dtype=L.bool))",
    # elementwise: the broadcast error comes first
    "L.bitwise_and(L.zeros(2, 3), L.zeros(4, 5))",
]


@pytest.mark.parametrize("src", CASES)
def test_kernel_error_text(src):
    def run(L):
        return eval(src, {"L": L, "F": L.nn.functional})
    assert_same_error(lambda: run(leafgrad), lambda: run(torch))


# A float32 batch convolved with a float64 weight: PyTorch's message names the MKLDNN path
# unless use_mkldnn leaves the call to the slow kernel (an unstrided 1x1 kernel on a batch under
# 16, on one thread), so it depends on torch.set_num_threads (test_fuzz.py sets 1 at import).
CONV_MIX = [((2, 1, 3), (1, 1, 1), {}), ((2, 1, 3), (1, 1, 2), {}), ((16, 1, 3), (1, 1, 1), {}),
            ((2, 1, 3), (1, 1, 1), {"stride": 2}), ((2, 1, 3), (1, 1, 1), {"dilation": 2}),
            ((1, 1, 3), (1, 1, 2), {}), ((2, 1, 3, 3), (1, 1, 1, 1), {}),
            ((2, 1, 3, 3), (1, 1, 2, 1), {}), ((2, 1, 3, 3, 3), (1, 1, 2, 1, 1), {}),
            ((2, 2, 3), (1, 2, 1), {})]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("ish,wsh,kw", CONV_MIX)
def test_conv_mixed_dtype_message_follows_threads(threads, ish, wsh, kw):
    def run(L):
        conv = {3: L.nn.functional.conv1d, 4: L.nn.functional.conv2d,
                5: L.nn.functional.conv3d}[len(ish)]
        return conv(L.ones(*ish), L.ones(*wsh).double(), **kw)
    before = (torch.get_num_threads(), leafgrad.get_num_threads())
    torch.set_num_threads(threads)
    leafgrad.set_num_threads(threads)
    try:
        assert_same_error(lambda: run(leafgrad), lambda: run(torch))
    finally:
        torch.set_num_threads(before[0])
        leafgrad.set_num_threads(before[1])



def test_solve_of_a_0d_b():
    for kw in ({}, {"left": False}):
        assert_same_error(lambda: leafgrad.linalg.solve(leafgrad.ones(1, 1), leafgrad.ones(()), **kw),
                          lambda: torch.linalg.solve(torch.ones(1, 1), torch.ones(()), **kw))


def test_convolution_weight_rank_checked_first():
    def run(L):
        return L.convolution(L.ones(1, 1, 3), L.ones(1), None, [1, 1], [0], [1], False, [0], 1)
    assert_same_error(lambda: run(leafgrad), lambda: run(torch))


SOLVE_SHAPES = [((2, 2), (2,)), ((1, 1), (1,)), ((3, 2, 2), (3, 2)), ((2, 2), (3, 2)),
                ((2, 2), (3,)), ((2, 2, 2), (3,)), ((3, 3), (2, 3, 1)), ((1, 1), (1, 1))]


def _same_shape_or_error(run):
    """``run(lib)`` gives a result of the same shape on both, or the same error."""
    try:
        expected = run(torch)
    except Exception:   # noqa: BLE001 - the texts are compared
        assert_same_error(lambda: run(leafgrad), lambda: run(torch))
    else:
        assert tuple(run(leafgrad).shape) == tuple(expected.shape)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("a,b", SOLVE_SHAPES)
def test_solve_shape_checks(a, b, left):
    # a vector B is a column in the shape message; left=False refuses vector broadcasting
    def run(L):
        A = L.eye(a[-1]).expand(*a).contiguous()
        return L.linalg.solve(A, L.ones(*b), left=left)
    _same_shape_or_error(run)


@pytest.mark.parametrize("shape", [(0, 0), (0, 2, 2)])   # (2, 0, 0) against B (0, 0, 1): the batch broadcast message numbers dims differently (left)
def test_lu_factor_of_empty_matrices(shape):
    (lu, piv), (tlu, tpiv) = (L.linalg.lu_factor(L.ones(*shape)) for L in (leafgrad, torch))
    assert (tuple(lu.shape), tuple(piv.shape)) == (tuple(tlu.shape), tuple(tpiv.shape))
    for B in ((0,), (0, 0, 1)):
        def run(L, B=B):
            lu, piv = L.linalg.lu_factor(L.ones(*shape))
            return L.linalg.lu_solve(lu, piv, L.ones(*B))
        _same_shape_or_error(run)
