"""Pointwise ops against PyTorch 2.13: grad_fn names, errors, in-place forms, casts, numerics.

Each case is an expression evaluated on both libraries with the same named inputs; the
observation (values, dtype, shape, grad_fn name, or exception type and text) must match.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import leafgrad
from oracle import run_both


def env(t):
    """The same inputs built with either library."""
    x = t.tensor([0.25, -1.5, 2.0], dtype=t.float64, requires_grad=True)
    y = t.tensor([1.5, 0.5, -2.0], dtype=t.float64, requires_grad=True)
    return {
        "t": t, "x": x, "y": y,
        "xn": x * 1,                              # a non-leaf, for in-place ops
        "f": t.tensor([0.5, -0.25, 3.0]),
        "i": t.tensor([1, -2, 3]),
        "b": t.tensor([True, False, True]),
        "u8": t.tensor([1, 2, 250], dtype=t.uint8),
        "i8": t.tensor([1, -2, 3], dtype=t.int8),
        "h": t.tensor([1.0, 2.0, 3.0], dtype=t.float16),
        "d0": t.tensor(2.0, dtype=t.float64),
        "F": getattr(t.nn, "functional", None),
    }


def observe(t, expr):
    value = eval(expr, env(t))  # noqa: S307 - test expressions written here
    if isinstance(value, (leafgrad.Tensor, torch.Tensor)):
        name = type(value.grad_fn).__name__ if value.grad_fn is not None else None
        return value, name, value.requires_grad
    return value


def same(expr):
    def program(t):
        return observe(t, expr)
    mine, theirs = run_both(program)
    # repr: NaN != NaN, but both print as nan
    assert repr(mine) == repr(theirs), f"{expr}\nleafgrad: {mine}\ntorch:    {theirs}"


GRAD_FN_CASES = """
x * 2 | 2 * x | x * y | 2 - x | x - 2 | x - y | t.rsub(x, y) | t.rsub(x, 2) | 2 + x | x + y
x.add(y, alpha=2) | x.sub(y, alpha=0.5) | 2 / x | x / 2 | x / y | x.div(y, rounding_mode='floor')
x.div(2, rounding_mode='trunc') | 2 ** x | x ** 2 | x ** y | x.square() | x ** 0 | x.pow(-1.5)
x % y | x % 2 | t.fmod(x, y) | t.fmod(x, 2) | x // y | x // 2 | 2 // x | 2 % x | -x | +x
x.reciprocal() | x.abs() | x.sign() | x.sgn() | x.exp2() | x.log1p() | x.expm1() | x.relu()
x.clamp(0, 1) | x.clamp(min=0) | x.clamp(max=1) | x.clip(0, 1) | x.clamp(y, y + 1)
x.clamp(min=y) | x.clamp(max=y) | t.clamp_min(x, 0) | t.clamp_max(x, 1) | t.clamp_min(x, y)
t.clamp_max(x, y) | x.clamp(min=0.2, max=t.tensor(1.0)) | x.to(t.float32) | x.clone()
x.to(t.float64, copy=True) | x.float() | x.half() | x.double() | x.long() | x.bool()
x.type_as(f) | x.type_as(i) | t.where(b, x, y) | t.where(b, x, 2.0) | x.where(b, y)
t.maximum(x, y) | t.minimum(x, y) | t.fmax(x, y) | t.fmin(x, y) | x.masked_fill(b, 2.0)
x.masked_fill(b, t.tensor(2.0)) | x.masked_fill(b, y[0]) | t.lerp(x, y, 0.3)
t.lerp(x, y, t.tensor(0.3)) | t.hypot(x, y) | t.atan2(x, y) | x.nan_to_num() | x.logit()
x.round() | x.round(decimals=1) | x.floor() | x.ceil() | x.trunc() | x.fix() | x.frac()
x.sigmoid() | x.tanh() | x.erf() | x.erfc() | x.rsqrt() | x.asinh() | x.atan() | x.arctan2(y)
xn.zero_() | xn.fill_(2) | xn.fill_(y[1]) | xn.clamp_(0, 1) | xn.masked_fill_(b, 1.0)
xn.abs_() | xn.neg_() | xn.exp_() | xn.relu_() | xn.sigmoid_() | xn.tanh_() | xn.square_()
xn.add_(y) | xn.mul_(2) | xn.div_(y) | xn.pow_(2) | xn.sub_(1, alpha=2) | xn.clamp_min_(0)
F.gelu(x) | F.gelu(x, approximate='tanh') | F.silu(x) | F.softplus(x) | F.softplus(x, 2, 1)
"""


@pytest.mark.parametrize("expr", [e.strip() for e in GRAD_FN_CASES.replace("\n", "|").split("|")
                                  if e.strip()])
def test_values_and_grad_fn_names(expr):
    same(expr)


DTYPE_AND_ERROR_CASES = """
i.clamp(0.5) | i.clamp(0, 2) | i.clamp(t.tensor(0.5)) | t.clamp(x) | i + 2.5 | u8 + i8
h + d0 | b + b | b - b | b * b | b / b | i / 2 | i / i | i // 2 | i % 2 | -7 // i | i > 2.5
i ** 2 | i ** -1 | i ** -1.0 | i ** t.tensor(-1) | 2 ** i | 2.5 ** i | i.pow(0.5) | b ** 2
x.masked_fill(i > 0, 2.0) | x.masked_fill(i, 2.0) | x.masked_fill(b, t.tensor([2.0]))
i.masked_fill(b, 2.5) | t.where(b, i, 2.5) | t.where(i, x, x) | t.where(b, 1.0, 0.0)
t.where(b, 1, 0) | t.where(b) | x & x | i & i | b & b | i & True | ~b | ~i | ~f
t.logical_and(i, x) | t.logical_not(x) | t.isnan(i) | i << 1 | i >> 1 | 1 << i | f << 1
t.bitwise_not(f) | i ^ 5 | t.isinf(f) | t.isfinite(x) | t.signbit(f) | t.isposinf(f / 0)
i.exp_() | i.clone().fill_(2.5) | x.fill_(1) | xn.fill_(t.tensor([1.0, 2.0]))
x.to('cpu') | x.to(5) | x.to('cpu', 'cpu') | x.to(t.float32, t.float32) | x.to('cpu', t.float32)
x.to(device='cpu', dtype=t.float32) | x.to() | x.to(i) | x.to(t.float32, False, True)
i.sqrt() | i.abs() | b.abs() | b.sign() | i.sign() | i.frac() | i.round() | i.floor()
b.floor() | i.round(decimals=1) | t.atan2(i, i) | t.maximum(i, x) | t.maximum(i, 2)
t.lerp(x, i, 0.5) | t.lerp(f, f, 0.5) | i.sigmoid() | i.relu() | b.relu() | t.nan_to_num(i)
i.logit() | t.hypot(i, i) | i.neg() | b.neg() | +b | i.reciprocal() | t.remainder(i, 2.5)
t.fmod(-i, 2) | t.remainder(-i, 2) | t.remainder(i, 0) | t.fmod(i, 0) | i // 0
t.floor_divide(i, 0.0) | i.div(0, rounding_mode='trunc') | x.div(x, rounding_mode='bad')
x == None | x != None | x == 'a' | x.abs_() | x.add_(1) | i.sub(i, alpha=0.5)
i.add(2, alpha=2.5) | xn.add_(t.ones(2, 3)) | i.add_(2.5) | i.mul_(f) | x.lt(f) | x.ge(2)
x.eq(y) | x.ne(y) | f.le(i) | f.gt(2) | F.gelu(x, approximate='bad') | t.exp2(i) | i.exp()
t.tensor([5, -5]).div(t.tensor([3, 3]), rounding_mode='trunc') | i.float() | i.double()
t.tensor([5, -5]).div(t.tensor([-3, 3]), rounding_mode='floor') | i.bool() | b.long()
t.tensor([0.5, 1.5, 2.5, -0.5]).round() | t.tensor([0.125, 1.15]).round(decimals=1)
x.logit(0.2) | x.clamp(min=t.tensor(0.5), max=t.tensor(0.2)) | t.where(b, i, x)
x + 'a' | x * None | x ** None | 2 % x | x - None | i // None | None - x
"""


@pytest.mark.parametrize("expr", [e.strip() for e in
                                  DTYPE_AND_ERROR_CASES.replace("\n", "|").split("|")
                                  if e.strip()])
def test_dtypes_and_errors(expr):
    same(expr)


def test_or_with_number():
    same("b | 1")
    same("i | 4")


def test_identity_returns():
    for lib in (leafgrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        assert x.to(lib.float32) is x
        assert x.float() is x
        assert x.type_as(x) is x
        assert x.contiguous() is x
        assert x.to(lib.float32, copy=True) is not x
        assert x.to("cpu") is x


def test_contiguous_of_a_transpose_is_a_clone():
    def program(t):
        z = t.arange(6.0).reshape(3, 2).requires_grad_().t()
        c = z.contiguous()
        return c, type(c.grad_fn).__name__, c.stride(), z.clone().stride()
    mine, theirs = run_both(program)
    assert mine == theirs


def test_inplace_history_and_versions():
    def program(t):
        x = t.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x * 1
        v0 = y._version
        y += 2
        y *= x
        y -= 1
        y /= 2
        y **= 2
        names = [type(y.grad_fn).__name__, y._version - v0]
        y.sum().backward()
        return names, x.grad
    mine, theirs = run_both(program)
    assert mine == theirs


def test_inplace_on_plain_tensor_picks_up_history():
    def program(t):
        x = t.tensor([0.5, 2.0], requires_grad=True)
        a = t.ones(2) * 3
        a.mul_(x)
        b = t.ones(2) * 2
        b.pow_(x)
        (a + b).sum().backward()
        return x.grad, type(a.grad_fn).__name__, type(b.grad_fn).__name__
    mine, theirs = run_both(program)
    assert mine == theirs


def test_zero_and_fill_record_on_non_leaf_and_not_under_no_grad():
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        z = x.clone()
        z.zero_()
        names = [type(z.grad_fn).__name__, type(z.grad_fn.next_functions[0][0]).__name__]
        w = t.ones(2, requires_grad=True)
        with t.no_grad():
            w.zero_()
            w.fill_(3)
        v = t.zeros(3)
        v.fill_(t.tensor(4))
        (z * x).sum().backward()
        return names, w, w.requires_grad, w.grad_fn, v, x.grad
    mine, theirs = run_both(program)
    assert mine == theirs


def test_fill_with_a_tensor_value_gets_its_gradient():
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = t.tensor(2.0, requires_grad=True)
        y = x * 1
        y.fill_(s)
        (y * x).sum().backward()
        return x.grad, s.grad, type(y.grad_fn).__name__
    mine, theirs = run_both(program)
    assert mine == theirs


def test_where_masked_fill_clamp_gradients():
    def program(t):
        x = t.tensor([-1.0, 0.5, 2.0, 0.5], requires_grad=True)
        y = t.tensor([1.0, 0.5, -2.0, 3.0], requires_grad=True)
        v = t.tensor(3.0, requires_grad=True)
        m = x > 0
        out = (t.where(m, x * y, y) + x.masked_fill(m, 0.0) + x.masked_fill(~m, v)
               + x.clamp(-0.5, 1.0) + t.maximum(x, y) + t.minimum(x, y) + x.clamp(min=y)
               + t.lerp(x, y, 0.25) + x.clamp_min(0.5) + x.clamp_max(0.5))
        gx, gy, gv = t.autograd.grad(out.sum(), [x, y, v], create_graph=True)
        return gx, gy, gv
    mine, theirs = run_both(program)
    assert mine == theirs


def test_pow_second_derivatives_all_forms():
    def program(t):
        x = t.tensor([0.5, 1.5, 2.0], dtype=t.float64, requires_grad=True)
        e = t.tensor([2.0, 0.0, -1.5], dtype=t.float64, requires_grad=True)
        out = []
        for f in (lambda: x ** 3, lambda: x ** e, lambda: 2.5 ** e, lambda: x ** 0,
                  lambda: 0.0 ** e, lambda: t.zeros(3, dtype=t.float64) ** e * x):
            y = f().sum()
            gs = t.autograd.grad(y, [x, e], create_graph=True, allow_unused=True)
            row = []
            for g in gs:
                if g is None or not g.requires_grad:
                    row.append(g)
                    continue
                gg = t.autograd.grad(g.sum(), [x, e], allow_unused=True)
                row.append((g, gg))
            out.append(row)
        return out
    mine, theirs = run_both(program)
    assert mine == theirs


def test_no_grad_through_integer_casts():
    for lib in (leafgrad, torch):
        x = lib.tensor([1.5, -2.5], requires_grad=True)
        assert not x.long().requires_grad and x.long().grad_fn is None
        assert x.double().requires_grad
        assert x.int().dtype == lib.int32 and x.short().dtype == lib.int16
        assert x.char().dtype == lib.int8 and x.byte().dtype == lib.uint8


EXTREMES = [-1e4, -100.0, -20.0, -1.0, 0.0, 1.0, 20.0, 100.0, 1e4]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["sigmoid", "softplus", "log1p", "logit", "exp", "expm1",
                                "tanh", "gelu", "silu", "erf", "erfc", "rsqrt", "sqrt", "log",
                                "relu", "nan_to_num", "atan", "sinh"])
def test_numerics_at_extremes(op, dtype):
    values = np.array(EXTREMES)
    outs = []
    for lib in (leafgrad, torch):
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        fn = getattr(lib.nn.functional, op) if op in ("softplus", "gelu", "silu") else \
            getattr(lib, op)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y = fn(x)
            (g,) = lib.autograd.grad(y.sum(), x)
        outs.append((y.detach().numpy(), g.numpy(), str(y.dtype)))
    (ym, gm, dm), (yt, gt, dt) = outs
    assert dm == dt
    np.testing.assert_allclose(ym, yt, rtol=1e-6, atol=0, equal_nan=True)
    np.testing.assert_allclose(gm, gt, rtol=1e-5, atol=1e-30, equal_nan=True)


def test_float32_stays_float32():
    x = leafgrad.tensor([0.5, 1.5])
    for name in ("exp", "exp2", "log", "log2", "log10", "sqrt", "rsqrt", "sin", "erf",
                 "sigmoid", "reciprocal", "square", "abs", "logit", "round"):
        assert getattr(x, name)().dtype == leafgrad.float32, name
    assert (x * 2.5).dtype == leafgrad.float32
    assert leafgrad.nn.functional.gelu(x).dtype == leafgrad.float32
    assert leafgrad.nn.functional.softplus(x, 2.0).dtype == leafgrad.float32


def test_floor_divide_backward_is_not_implemented():
    def program(t):
        x = t.tensor([1.5, 2.5], requires_grad=True)
        y = x // 2
        name = type(y.grad_fn).__name__
        try:
            y.sum().backward()
        except RuntimeError as e:
            return name, str(e)
        return name, None
    mine, theirs = run_both(program)
    assert mine == theirs
