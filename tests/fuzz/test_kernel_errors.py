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
