"""Session 12 (sleef12): float32 transcendentals against PyTorch's CPU kernels, bit for bit
where the kernel's steps are known, as close as the correctly rounded value where they are
not (Note [MKL's VML, not Sleef] in ``leafgrad._vml``)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import leafgrad

F32 = np.float32


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint32)


def _same(a, b):
    """Element-wise: the same bits, or both NaN (of either sign)."""
    return (_bits(a) == _bits(b)) | (np.isnan(a) & np.isnan(b))


def _samples(seed, n=20000):
    """float32 values over several ranges: [-1, 1], [-10, 10], normal * 3, and magnitudes
    from e^-90 to e^90 (denormals and overflow included)."""
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        parts = [rng.uniform(-1, 1, n), rng.uniform(-10, 10, n), rng.standard_normal(n) * 3,
                 np.exp(rng.uniform(-90, 90, n)) * rng.choice([-1, 1], n)]
        return np.concatenate(parts).astype(F32)


# values whose answers every op's kernels agree on (no rounding question: NaNs, infinities,
# zeros, denormals, the ends of the range)
EDGES = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-40,
                  1.1754944e-38, 1e30, -1e30, 3.4e38, -3.4e38], np.float32)
SPECIALS = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40,
                     -1e-40, 1.1754944e-38, 1e-20, 0.5, 1.0, -1.0, 8.6, 8.7, 9.0, 20.0,
                     88.7, 88.8, 89.0, -87.3, -103.9, -104.0, -200.0, 3.4e38, -3.4e38],
                    np.float32)

# the correctly rounded value, the Python way (the C library's double function, rounded)
_MATH = {"tanh": math.tanh, "exp": math.exp, "log": math.log, "log2": math.log2,
         "log10": math.log10, "tan": math.tan, "asin": math.asin, "acos": math.acos,
         "atan": math.atan, "sinh": math.sinh, "cosh": math.cosh, "exp2": math.exp2,
         "atanh": math.atanh}
_NUMPY = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "atanh": np.arctanh}
# torch's agreement with the correctly rounded value on _samples (session 12: tanh 99.9%,
# exp 99.0%, log 92%, ...); NumPy's float32 loops score 51-92% on most
_FLOOR = {"tanh": 0.998, "exp": 0.985, "log": 0.90, "log2": 0.995, "log10": 0.995,
          "tan": 0.78, "asin": 0.94, "acos": 0.94, "atan": 0.92, "sinh": 0.99,
          "cosh": 0.99, "exp2": 0.92, "atanh": 0.99}
# the inputs each op is surveyed on
_DOMAIN = {"log": np.abs, "log2": np.abs, "log10": np.abs, "asin": lambda x: x / 90,
           "acos": lambda x: x / 90, "atanh": lambda x: x / 90, "sinh": lambda x: x / 3,
           "cosh": lambda x: x / 3}
ROUNDED_OPS = list(_MATH)


def _correctly_rounded(op, x):
    f = _MATH[op]

    def one(v):
        try:
            return f(v)
        except (ValueError, OverflowError):
            with np.errstate(all="ignore"):
                return float(_NUMPY.get(op, getattr(np, op))(np.float64(v)))
    return np.array([one(v) for v in x.astype(np.float64).tolist()], np.float64).astype(F32)


@pytest.mark.parametrize("op", ROUNDED_OPS)
def test_mkl_ops_round_once_and_match_torch(op):
    x = _samples(12)
    with np.errstate(all="ignore"):
        x = _DOMAIN.get(op, lambda v: v)(x).astype(F32)
    got = getattr(leafgrad, op)(leafgrad.from_numpy(x)).numpy()
    want = getattr(torch, op)(torch.from_numpy(x)).numpy()
    exact = _correctly_rounded(op, x)
    assert _same(got, exact).all()
    assert np.mean(_same(got, want)) >= _FLOOR[op]


@pytest.mark.parametrize("op", ROUNDED_OPS)
def test_mkl_ops_special_values(op):
    edges = np.delete(EDGES, 1) if op == "tanh" else EDGES   # tanh(-NaN): +NaN (_vml)
    got = getattr(leafgrad, op)(leafgrad.from_numpy(edges)).numpy()
    want = getattr(torch, op)(torch.from_numpy(edges)).numpy()
    assert np.array_equal(_bits(got), _bits(want)), (op, edges, got, want)
    for v in EDGES:             # one element and 0-d: the scalar path
        for shape in ((), (1,), (1, 1)):
            a = np.full(shape, v, F32)
            got = getattr(leafgrad, op)(leafgrad.from_numpy(a)).numpy()
            want = getattr(torch, op)(torch.from_numpy(a)).numpy()
            assert got.shape == want.shape and np.array_equal(_bits(got), _bits(want)), \
                (op, v, shape)


LAYOUTS = {   # name: how to take the layout from a 1-D sample
    "tail": lambda x: x[:1000 + 7],
    "small": lambda x: x[:5],
    "strided": lambda x: x[:4000][::3],
    "transposed": lambda x: x[:60 * 70].reshape(60, 70).T,
    "sliced": lambda x: x[:60 * 70].reshape(60, 70)[:, 3:50],
    "big": lambda x: x[:70000],
}


@pytest.mark.parametrize("op", ["tanh", "exp", "log"])
@pytest.mark.parametrize("threads", [1, 3])
def test_mkl_ops_every_layout_same_bits(op, threads):
    """PyTorch's MKL-backed kernels give every element the same bits whatever the layout
    or the thread count (no scalar tail); leafgrad too."""
    x = _samples(7)
    if op == "log":
        x = np.abs(x)
    flat_t = getattr(torch, op)(torch.from_numpy(x)).numpy()
    flat_l = getattr(leafgrad, op)(leafgrad.from_numpy(x)).numpy()
    old_t, old_l = torch.get_num_threads(), leafgrad.get_num_threads()
    torch.set_num_threads(threads)
    leafgrad.set_num_threads(threads)
    try:
        index = np.arange(x.size)
        for name, take in LAYOUTS.items():
            a, where = take(x), take(index)
            t = getattr(torch, op)(torch.from_numpy(a)).numpy()
            g = getattr(leafgrad, op)(leafgrad.from_numpy(a)).numpy()
            assert np.array_equal(_bits(t), _bits(flat_t[where])), (op, name)
            assert np.array_equal(_bits(g), _bits(flat_l[where])), (op, name)
    finally:
        torch.set_num_threads(old_t)
        leafgrad.set_num_threads(old_l)


@pytest.mark.parametrize("op", ["tanh", "exp"])
def test_mkl_ops_inplace_and_float64_unchanged(op):
    x = _samples(3, 500)
    a = leafgrad.from_numpy(x.copy())
    getattr(a, op + "_")()
    assert np.array_equal(_bits(a.numpy()),
                          _bits(getattr(leafgrad, op)(leafgrad.from_numpy(x)).numpy()))
    d = x.astype(np.float64)
    got = getattr(leafgrad, op)(leafgrad.from_numpy(d)).numpy()
    with np.errstate(all="ignore"):
        assert np.array_equal(got.view(np.uint64), getattr(np, op)(d).view(np.uint64))


# -- expm1: Sleef's expm1f16_u10 over every element (Note [Sleef's expm1f]) ----------------
def test_expm1_float32_exact_path_bits_equal_torch():
    from leafgrad._sleef_f32 import expm1f
    x = _samples(21, 100000)
    rng = np.random.default_rng(5)
    tiny = (np.exp2(rng.uniform(-30, -10, 20000)) * rng.choice([-1, 1], 20000)).astype(F32)
    x = np.concatenate([x, tiny, SPECIALS, np.float32([-16.63, -16.64, -17.0, 88.72, 88.73])])
    want = torch.expm1(torch.from_numpy(x)).numpy()
    assert np.array_equal(_bits(expm1f(x, exact=True)), _bits(want))
    got = leafgrad.expm1(leafgrad.from_numpy(x)).numpy()     # the fast path: rounded once
    with np.errstate(all="ignore"):
        rounded = np.expm1(x.astype(np.float64)).astype(F32)
    rounded[x < -16.635532] = -1
    assert _same(got, rounded).all()
    assert np.mean(_same(got, want)) >= 0.995


def test_expm1_float32_exact_emulation():
    """The slow, step-by-step emulation equals torch on values where the correctly rounded
    answer is not Sleef's (what the fast path hands it)."""
    from leafgrad._sleef_f32 import expm1f_u10
    x = _samples(22, 50000)
    want = torch.expm1(torch.from_numpy(x)).numpy()
    with np.errstate(all="ignore"):
        rounded = np.expm1(x.astype(np.float64)).astype(F32)
    assert np.mean(_bits(rounded) != _bits(want)) > 0.001    # there are such values
    assert np.array_equal(_bits(expm1f_u10(x)), _bits(want))


@pytest.mark.parametrize("threads", [1, 3])
def test_expm1_float32_layouts(threads):
    from leafgrad._sleef_f32 import expm1f
    x = _samples(23)
    old_t, old_l = torch.get_num_threads(), leafgrad.get_num_threads()
    torch.set_num_threads(threads)
    leafgrad.set_num_threads(threads)
    try:
        for name, take in LAYOUTS.items():
            a = take(x)
            got = expm1f(a, exact=True)
            want = torch.expm1(torch.from_numpy(a)).numpy()
            assert got.strides == want.strides or got.size <= 1, name
            assert np.array_equal(_bits(got), _bits(want)), name
        for v in SPECIALS[:12]:
            for shape in ((), (1,)):
                a = np.full(shape, v, F32)
                got = expm1f(a, exact=True)
                want = torch.expm1(torch.from_numpy(a)).numpy()
                assert got.shape == want.shape and np.array_equal(_bits(got), _bits(want))
                got = leafgrad.expm1(leafgrad.from_numpy(a)).numpy()
                assert got.shape == want.shape and _same(got, want).all()
    finally:
        torch.set_num_threads(old_t)
        leafgrad.set_num_threads(old_l)


# -- fused activations: each transcendental step rounded once ------------------------------
def _cr32(f, x):
    """``f`` in float64, rounded to float32 (the correctly rounded value but ~2^-27)."""
    with np.errstate(all="ignore"):
        return f(x.astype(np.float64)).astype(F32)


def _act_cases():
    import torch.nn.functional as TF
    import leafgrad.nn.functional as LF
    one = F32(1)
    return {
        # name: (torch's, leafgrad's, the rounded-steps formula, torch's agreement floor)
        "sigmoid": (torch.sigmoid, leafgrad.sigmoid,
                    lambda x: one / (one + _cr32(np.exp, -x)), 0.95),
        "silu": (TF.silu, LF.silu, lambda x: x / (one + _cr32(np.exp, -x)), 0.95),
        "softplus": (TF.softplus, LF.softplus,
                     lambda x: np.where(x > 20, x, _cr32(np.log1p, _cr32(np.exp, x))), 0.93),
        "mish": (TF.mish, LF.mish,
                 lambda x: x * _cr32(np.tanh, _cr32(np.log1p, _cr32(np.exp, x))), 0.94),
        "logsigmoid": (TF.logsigmoid, LF.logsigmoid,
                       lambda x: np.minimum(x, 0) - _cr32(np.log1p, _cr32(np.exp, -np.abs(x))),
                       0.94),
    }


@pytest.mark.parametrize("name", ["sigmoid", "silu", "softplus", "mish", "logsigmoid"])
def test_fused_activations_round_each_step(name):
    """PyTorch's kernels chain Sleef's (and, in scalar tails, the C library's) float32
    functions; each within ~1 ulp of exact, so rounding each step once comes nearest
    (NumPy's float32 loops: 67-86% of values equal torch's)."""
    t_fn, l_fn, formula, floor = _act_cases()[name]
    x = _samples(31)
    x = x[np.abs(x) < 1e30]
    got = l_fn(leafgrad.from_numpy(x)).numpy()
    with np.errstate(all="ignore"):
        assert _same(got, formula(x)).all()
    want = t_fn(torch.from_numpy(x)).numpy()
    assert np.mean(_same(got, want)) >= floor


@pytest.mark.parametrize("name", ["elu", "selu", "celu"])
def test_elu_family_float32_near_torch(name):
    """The negative branch is Sleef's expm1f in PyTorch's vector lanes: leafgrad's rounded
    float64 expm1 within Sleef's bounds matches it but on ~0.3% of values."""
    import torch.nn.functional as TF
    import leafgrad.nn.functional as LF
    x = _samples(32, 4000)        # 16,000 values: whole blocks of 16 (AVX2) and 32 (AVX-512)
    x = np.where(np.abs(x) < 1e30, x, F32(0.5)).astype(F32)
    got = getattr(LF, name)(leafgrad.from_numpy(x)).numpy()
    want = getattr(TF, name)(torch.from_numpy(x)).numpy()
    assert np.mean(_bits(got) == _bits(want)) >= 0.995


def test_log1p_float32_rounded_and_sleef_nan():
    """Sleef's log1pf (every element) is within ~0.11 ulp of exact: rounding once matches it
    on ~99% of values; below -1 its NaN has every bit set."""
    x = np.concatenate([_samples(41, 20000), EDGES, np.float32([-1.0, -1.5, -0.999])])
    got = leafgrad.log1p(leafgrad.from_numpy(x)).numpy()
    want = torch.log1p(torch.from_numpy(x)).numpy()
    below = x < -1
    assert np.array_equal(_bits(got[below]), _bits(want[below]))
    assert np.mean(_bits(got) == _bits(want)) >= 0.97
    small = np.abs(x) < 1
    assert np.mean(_bits(got[small]) == _bits(want[small])) >= 0.98
    for v in (-2.0, -np.inf, 0.5, -0.0):
        a = np.array(v, F32)
        g = leafgrad.log1p(leafgrad.from_numpy(a)).numpy()
        w = torch.log1p(torch.from_numpy(a)).numpy()
        assert g.shape == w.shape and np.array_equal(_bits(g), _bits(w)), v
