"""Type promotion of the pointwise binary ops against PyTorch 2.13.

Every dtype on the left meets every dtype on the right as a tensor with dimensions, as a 0-d
tensor, and as a Python number; the result's dtype and values (or the error) must match.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad
from oracle import run_both

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
          "float64"]
VALUES = {"bool": [True, True, False], "float16": [1.5, 2.5, 3.0], "float32": [1.5, 2.5, 3.0],
          "float64": [1.5, 2.5, 3.0]}
INT_VALUES = [1, 2, 3]
SCALARS = [True, 3, -2, 2.5]

BINARY = {
    "add": lambda t, a, b: t.add(a, b),
    "sub": lambda t, a, b: t.sub(a, b),
    "mul": lambda t, a, b: a * b,
    "rmul": lambda t, a, b: b * a,
    "div": lambda t, a, b: a / b,
    "rdiv": lambda t, a, b: b / a,
    "floor_divide": lambda t, a, b: a // b,
    "remainder": lambda t, a, b: a % b,
    "fmod": lambda t, a, b: t.fmod(a, b),
    "pow": lambda t, a, b: a ** b,
    "rpow": lambda t, a, b: b ** a,
    "eq": lambda t, a, b: a == b,
    "lt": lambda t, a, b: a < b,
    "maximum": lambda t, a, b: t.maximum(a, b),
    "atan2": lambda t, a, b: t.atan2(a, b),
    "where": lambda t, a, b: t.where(t.tensor([True, False, True]), a, b),
    "bitwise_and": lambda t, a, b: a & b,
    "logical_or": lambda t, a, b: t.logical_or(a, b),
    "clamp_min": lambda t, a, b: t.clamp_min(a, b),
}


def make(t, dtype, kind):
    values = VALUES.get(dtype, INT_VALUES)
    dt = getattr(t, dtype)
    if kind == "0d":
        return t.tensor(values[1], dtype=dt)
    return t.tensor(values, dtype=dt)


def _right_operands():
    out = [("tensor", d) for d in DTYPES] + [("0d", d) for d in DTYPES]
    return out + [("scalar", s) for s in SCALARS]


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("left", DTYPES)
def test_binary_promotion(op, left):
    fn = BINARY[op]
    failures = []
    for kind, right in _right_operands():
        def program(t, kind=kind, right=right):
            a = make(t, left, "tensor")
            b = right if kind == "scalar" else make(t, right, kind)
            return fn(t, a, b)
        mine, theirs = run_both(program)
        if repr(mine) != repr(theirs):
            failures.append(f"{left} {op} {kind}:{right}\n  leafgrad {mine}\n  torch    {theirs}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("left", DTYPES)
def test_zero_dim_left_operand(left):
    # A 0-d tensor on the left only raises the category of a dimensioned right operand.
    failures = []
    for right in DTYPES:
        for op in ("add", "mul", "div", "maximum", "eq"):
            def program(t, right=right, op=op):
                return BINARY[op](t, make(t, left, "0d"), make(t, right, "tensor"))
            mine, theirs = run_both(program)
            if repr(mine) != repr(theirs):
                failures.append(f"0d {left} {op} {right}\n  leafgrad {mine}\n  torch    {theirs}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_result_dtypes(dtype):
    failures = []
    for name in ("exp", "log", "sqrt", "sigmoid", "tanh", "abs", "neg", "sign", "floor",
                 "round", "reciprocal", "square", "relu", "erf", "frac", "logit",
                 "nan_to_num", "isnan", "logical_not", "bitwise_not", "sin", "expm1"):
        def program(t, name=name):
            return getattr(t, name)(make(t, dtype, "tensor"))
        mine, theirs = run_both(program)
        if repr(mine) != repr(theirs):
            failures.append(f"{name}({dtype})\n  leafgrad {mine}\n  torch    {theirs}")
    assert not failures, "\n".join(failures)


def test_integer_results_that_wrap():
    def program(t):
        return [t.tensor([100, 120], dtype=t.int8) * 2, t.tensor([250], dtype=t.uint8) + 10,
                t.tensor([2, 3]) ** 40]
    mine, theirs = run_both(program)
    assert repr(mine) == repr(theirs)


def test_float32_compute_with_python_float():
    # The number is applied in float32, not float64 then rounded.
    values = np.array([0.1, 1 / 3, 7.77], dtype=np.float32)
    # (not pow: PyTorch's vectorised powf and the C library's differ in the last bit)
    for op in (lambda t, x: x * 0.1, lambda t, x: x / 3.3, lambda t, x: x + 1e-8,
               lambda t, x: 2.2 - x, lambda t, x: x.exp(), lambda t, x: x.sqrt()):
        mine = op(leafgrad, leafgrad.tensor(values)).numpy()
        theirs = op(torch, torch.tensor(values)).numpy()
        assert mine.dtype == theirs.dtype == np.float32
        np.testing.assert_array_equal(mine, theirs)
