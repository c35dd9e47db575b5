"""Session 10 numerics (issue 8 leftovers): leafgrad gives PyTorch's bits, checked against
torch (the oracle) on a few thousand random values each."""
import numpy as np
import pytest
import torch

import leafgrad


def _same_bits(expected, got):
    expected = np.ascontiguousarray(expected.detach().numpy())
    got = np.ascontiguousarray(got.detach().numpy())
    assert expected.dtype == got.dtype and expected.shape == got.shape
    differ = (expected.view(np.uint8) != got.view(np.uint8)).reshape(expected.size, -1).any(1)
    if expected.dtype.kind == "f":   # a NaN's sign and payload are not compared
        differ &= ~(np.isnan(expected) & np.isnan(got)).ravel()
    assert not differ.any(), (np.flatnonzero(differ)[:10], expected.ravel()[differ][:4],
                              got.ravel()[differ][:4])


def _rng(seed=0):
    return np.random.default_rng(seed)


# -- 1. float64 gelu: libm's erf, as ATen's scalar loop (bit for bit where that loop runs:
# strided inputs, rows shorter than a 16-element block); its vectorized lanes take Sleef's
# erf, an ulp of erf apart (redone bit for bit in _sleef.erf_u1, too slow to use: session 10) -----
_GELU64_LAYOUTS = [lambda x: x, lambda x: x[:, 3:500], lambda x: x.t(), lambda x: x[0, 0],
                   lambda x: x[:, :1].expand(60, 33), lambda x: x.reshape(-1)[:20001]]


@pytest.mark.parametrize("make", [lambda x: x[:, 3:12], lambda x: x[:, ::2]])
def test_gelu_float64_scalar_loop_bits(make):
    x = _rng(1).standard_normal((60, 700)) * 3
    _same_bits(torch.nn.functional.gelu(make(torch.tensor(x))),
               leafgrad.nn.functional.gelu(make(leafgrad.tensor(x))))


@pytest.mark.parametrize("make", _GELU64_LAYOUTS)
def test_gelu_float64_within_an_ulp(make):
    x = _rng(13).standard_normal((60, 700)) * 3
    g = _rng(14).standard_normal((60, 700))
    out = []
    for m in (torch, leafgrad):
        leaf = m.tensor(x, requires_grad=True)
        y = m.nn.functional.gelu(make(leaf))
        y.backward(make(m.tensor(g)))
        out.append((y.detach().numpy(), leaf.grad.numpy()))
    # (an ulp of erf, before 1 + erf cancels for negative x: absolute, not relative)
    for a, b in zip(out[0], out[1]):
        np.testing.assert_allclose(b, a, rtol=1e-15, atol=4e-16)


def test_sleef_erf_special_values():
    from leafgrad._sleef import erf_u1
    x = np.array([0.0, -0.0, 1e-9, -1e-300, 5e-324, np.inf, -np.inf, np.nan, 2.5,
                  np.nextafter(2.5, 3), 6.0, np.nextafter(6, 0), 1e300, -7.0])
    # gelu(v * sqrt(2)) / (v * sqrt(2) / 2) - 1 is erf(v) only approximately, so compare
    # through gelu's blocks of 16: the first 16 values take Sleef's erf
    v = np.concatenate([x, x[:2]]) / np.sqrt(0.5)
    t = torch.nn.functional.gelu(torch.tensor(v)).numpy()
    lg = v * 0.5 * (1.0 + erf_u1(v * np.sqrt(0.5)))
    same = (t == lg) | (np.isnan(t) & np.isnan(lg))
    assert same.all(), v[~same]


# -- 2. float32 logit: the ratio in float, its log rounded once ------------------------------
@pytest.mark.parametrize("eps", [None, 1e-3, 0.2])
def test_logit_float32_within_an_ulp(eps):
    # PyTorch takes the log with MKL's vsLn (contiguous) or Sleef's logf, neither
    # reproduced: the correctly rounded log agrees with them on ~93% of the values (NumPy's
    # float32 log on ~84%), and is never further than an ulp
    x = _rng(3).random(100000).astype(np.float32)
    t = torch.logit(torch.tensor(x), eps=eps).numpy()
    lg = leafgrad.logit(leafgrad.tensor(x), eps=eps).numpy()
    ulps = np.abs(t.view(np.int32).astype(np.int64) - lg.view(np.int32))
    assert ulps.max() <= 1
    assert (ulps > 0).mean() < 0.1


def test_logit_float32_edges():
    x = np.array([0.0, 1.0, 0.5, -0.5, 1.5, np.nan, 1e-30, 1 - 2 ** -24], np.float32)
    for eps in (None, 1e-6, 0.7):
        _same_bits(torch.logit(torch.tensor(x), eps=eps),
                   leafgrad.logit(leafgrad.tensor(x), eps=eps))


# -- 3. float16 i0e: ATen's scalar loop computes in half arithmetic --------------------------
_HALVES = np.arange(65536, dtype=np.uint16).view(np.float16)
_HALVES = _HALVES[np.isfinite(_HALVES)]


@pytest.mark.parametrize("make", [
    lambda x: x[1234],                              # 0-d: the scalar loop
    lambda x: x[:63486].reshape(-1, 3),             # tails of the threads' pieces
    lambda x: x[:9000].reshape(-1, 45)[:, 2:40],    # rows of 38: a block of 32 and a tail
    lambda x: x[::3],                               # strided: all scalar
])
def test_i0e_float16_bits(make):
    t = torch.special.i0e(make(torch.tensor(_HALVES)))
    lg = leafgrad.special.i0e(make(leafgrad.tensor(_HALVES)))
    _same_bits(t, lg)


def test_i0e_float16_zero_dim_values():
    xs = _HALVES[::97]
    t = np.array([torch.special.i0e(torch.tensor(v)).item() for v in xs])
    lg = np.array([leafgrad.special.i0e(leafgrad.tensor(v)).item() for v in xs])
    assert np.array_equal(t, lg, equal_nan=True)


# -- 4. float64 -> float16 goes through float32 (c10's Half has no double constructor) -------
def _near_half_ties(n=20000, seed=4):
    rng = _rng(seed)
    base = rng.standard_normal(n).astype(np.float16).astype(np.float64)
    ulp = np.spacing(base.astype(np.float16)).astype(np.float64)
    sign = rng.choice([-1.0, 1.0], n)
    return base + ulp / 2 * (1 + sign * 2.0 ** -rng.integers(20, 40, n))


@pytest.mark.parametrize("cast", [
    lambda m, t: t.half(),
    lambda m, t: t.to(m.float16),
    lambda m, t: t.type(m.float16),
    lambda m, t: t.type_as(m.zeros(1, dtype=m.float16)),
    lambda m, t: m.zeros(t.shape, dtype=m.float16).copy_(t),
    lambda m, t: m.tensor(t.numpy(), dtype=m.float16),
    lambda m, t: m.as_tensor(t.numpy(), dtype=m.float16),
    lambda m, t: m.tensor(t.numpy()[:500].tolist(), dtype=m.float16),
    lambda m, t: m.zeros(1, dtype=m.float16).new_tensor(t.numpy()),
    lambda m, t: m.cat([m.zeros(1, dtype=m.float16), t]).half(),
    lambda m, t: (lambda z: (z.__setitem__(slice(None), t), z)[1])(
        m.zeros(t.shape, dtype=m.float16)),
    lambda m, t: (lambda z: (z.__setitem__(slice(None), t), z)[1])(
        m.zeros(t.shape, dtype=m.float16, requires_grad=True).clone()),
])
def test_double_to_half_through_float(cast):
    x = _near_half_ties()
    _same_bits(cast(torch, torch.tensor(x)), cast(leafgrad, leafgrad.tensor(x)))


@pytest.mark.parametrize("fill", [
    lambda m, v: m.full((3,), v, dtype=m.float16),
    lambda m, v: m.zeros(3, dtype=m.float16).fill_(v),
    lambda m, v: m.zeros(1, dtype=m.float16).fill_(v),
    lambda m, v: m.zeros(3, dtype=m.float16).masked_fill(m.tensor([True, False, True]), v),
    lambda m, v: m.zeros(3, dtype=m.float16) + v,
    lambda m, v: m.zeros(3, dtype=m.float16) - v,
])
def test_double_number_to_half(fill):
    for v in (1 + 2 ** -11 + 2 ** -40, -(2 + 2 ** -10 + 2 ** -35), 0.1):
        _same_bits(fill(torch, v), fill(leafgrad, v))


# -- 5. half with a Python number: mul / div / floor / trunc take the number as float --------
@pytest.mark.parametrize("op", [
    lambda m, x, s: x * s, lambda m, x, s: s * x, lambda m, x, s: x / s,
    lambda m, x, s: s / x, lambda m, x, s: x // s, lambda m, x, s: m.floor_divide(x, s),
    lambda m, x, s: m.div(x, s, rounding_mode="floor"),
    lambda m, x, s: m.div(x, s, rounding_mode="trunc"),
    lambda m, x, s: x + s, lambda m, x, s: x - s, lambda m, x, s: s - x,
    lambda m, x, s: m.add(x, 1.5, alpha=s), lambda m, x, s: x % s,
    lambda m, x, s: x.clone().mul_(s), lambda m, x, s: x.clone().div_(s),
    lambda m, x, s: x.clone().floor_divide_(s),
])
@pytest.mark.parametrize("s", [0.1, 3.7, -1 / 3, 3])
def test_half_with_number(op, s):
    x = _rng(5).standard_normal(5000).astype(np.float16)
    _same_bits(op(torch, torch.tensor(x), s), op(leafgrad, leafgrad.tensor(x), s))


def test_half_mul_number_gradient():
    x = _rng(6).standard_normal(3000).astype(np.float16)
    xt = torch.tensor(x, requires_grad=True)
    xl = leafgrad.tensor(x, requires_grad=True)
    g = _rng(7).standard_normal(3000).astype(np.float16)
    (xt * 0.1 / 3.7).backward(torch.tensor(g))
    (xl * 0.1 / 3.7).backward(leafgrad.tensor(g))
    _same_bits(xt.grad, xl.grad)


@pytest.mark.parametrize("alpha", [0.1, -2.5, 3])
@pytest.mark.parametrize("other", [
    lambda m, y: m.tensor(y), lambda m, y: 1.5, lambda m, y: m.tensor(y[:100]),
    lambda m, y: m.tensor(y[:50, None]), lambda m, y: m.tensor(y.reshape(100, 50)).t(),
    lambda m, y: m.tensor(y[0, 0]),
])
@pytest.mark.parametrize("fn", ["add", "sub"])
def test_half_add_alpha(fn, other, alpha):
    # alpha made half; float math where the kernel vectorizes, half math in its tails
    rng = _rng(8)
    x = rng.standard_normal((50, 100)).astype(np.float16)
    y = rng.standard_normal((50, 100)).astype(np.float16)
    _same_bits(getattr(torch, fn)(torch.tensor(x), other(torch, y), alpha=alpha),
               getattr(leafgrad, fn)(leafgrad.tensor(x), other(leafgrad, y), alpha=alpha))
    _same_bits(getattr(torch, fn)(torch.tensor(x[0, 0]), other(torch, y), alpha=alpha),
               getattr(leafgrad, fn)(leafgrad.tensor(x[0, 0]), other(leafgrad, y), alpha=alpha))


# -- 6. addmm / addmv / addbmm with alpha = 0: BLAS scales self's copy (-0.0 stays) -----------
@pytest.mark.parametrize("fn,shapes", [
    ("addmm", [(3, 4), (3, 5), (5, 4)]), ("addmv", [(3,), (3, 5), (5,)]),
    ("addbmm", [(3, 4), (2, 3, 5), (2, 5, 4)])])
@pytest.mark.parametrize("inp", [lambda s: s, lambda s: s[-1:], lambda s: ()])
@pytest.mark.parametrize("beta", [1, 0.5, -1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_alpha_zero_keeps_negative_zero(fn, shapes, inp, beta, dtype):
    rng = _rng(9)
    self_ = np.where(rng.random(inp(shapes[0])) < 0.5, -0.0, 0.0)
    a = rng.standard_normal(shapes[1])
    b = rng.standard_normal(shapes[2])
    a.ravel()[0] = np.inf   # not read when alpha is 0

    def run(m):
        d = getattr(m, dtype)
        return getattr(m, fn)(m.tensor(self_, dtype=d), m.tensor(a, dtype=d),
                              m.tensor(b, dtype=d), beta=beta, alpha=0)
    _same_bits(run(torch), run(leafgrad))


# -- 7. half layer_norm: x * rstd + (-rstd * mean) fused in float ----------------------------
@pytest.mark.parametrize("eps", [1e-12, 1e-5, 0.1])
@pytest.mark.parametrize("affine", [False, True])
def test_layer_norm_half_fused(eps, affine):
    rng = _rng(10)
    for n, scale in [(1, 0.09), (1, 3.0), (7, 1e-6), (16, 1.0), (33, 1e-3)]:
        x = (rng.standard_normal((6, n)) * scale).astype(np.float16)
        w = rng.standard_normal(n).astype(np.float16) if affine else None
        b = rng.standard_normal(n).astype(np.float16) if affine else None

        def run(m):
            return m.nn.functional.layer_norm(
                m.tensor(x), (n,), None if w is None else m.tensor(w),
                None if b is None else m.tensor(b), eps=eps)
        _same_bits(run(torch), run(leafgrad))


# -- 8. float32 svd of extreme magnitudes: sgesdd's slascl scaling, both ways ----------------
@pytest.mark.parametrize("ord", [None, "nuc", "fro", 2, -2, 1, float("inf")])
def test_cond_1x1_float32(ord):
    rng = _rng(11)
    v = (rng.standard_normal(400) * 10.0 ** rng.uniform(-37, 37, 400)).astype(np.float32)
    _same_bits(torch.linalg.cond(torch.tensor(v).reshape(-1, 1, 1), ord),
               leafgrad.linalg.cond(leafgrad.tensor(v).reshape(-1, 1, 1), ord))


def test_svdvals_1x1_float32_scaled():
    rng = _rng(12)
    v = (rng.standard_normal(400) * 10.0 ** rng.uniform(-37, 37, 400)).astype(np.float32)
    _same_bits(torch.linalg.svdvals(torch.tensor(v).reshape(-1, 1, 1)),
               leafgrad.linalg.svdvals(leafgrad.tensor(v).reshape(-1, 1, 1)))
    _same_bits(torch.linalg.svd(torch.tensor(v).reshape(-1, 1, 1))[1],
               leafgrad.linalg.svd(leafgrad.tensor(v).reshape(-1, 1, 1))[1])


# -- NaN made from a number is +NaN in PyTorch (fuzz seed 241: copysign of an xlogy NaN) -----
@pytest.mark.parametrize("fn,v", [
    (lambda m, x: m.log(x), -1.0), (lambda m, x: m.log2(x), -1.0),
    (lambda m, x: m.log10(x), -1.0), (lambda m, x: m.log1p(x), -2.0),
    (lambda m, x: m.sqrt(x), -1.0), (lambda m, x: m.logit(x), 2.0),
    (lambda m, x: m.xlogy(m.ones_like(x), x), -1.0), (lambda m, x: x.clone().log_(), -1.0),
    (lambda m, x: m.log(x.float()), -1.0), (lambda m, x: m.log(x.half()), -1.0),
    (lambda m, x: m.sqrt(x.half()), -1.0), (lambda m, x: m.log(x), float("nan")),
    (lambda m, x: m.copysign(m.ones_like(x), m.xlogy(x, -x)), 1.0),
])
@pytest.mark.parametrize("n", [1, 20])
def test_nan_sign(fn, v, n):
    t = fn(torch, torch.full((n,), v, dtype=torch.float64)).numpy()
    lg = fn(leafgrad, leafgrad.full((n,), v, dtype=leafgrad.float64)).numpy()
    assert np.signbit(t).tolist() == np.signbit(lg).tolist()
    assert np.isnan(t).tolist() == np.isnan(lg).tolist()
