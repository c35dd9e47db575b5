"""Special functions: lgamma, digamma, polygamma, erfinv, i0, i0e, i1, i1e, sinc.

NumPy has none of the gamma family or ``erfinv``, so the forwards here are written out:
``lgamma`` through ``math.lgamma``; ``digamma`` and ``polygamma`` by shifting the argument up
with the recurrence ``psi(x) = psi(x + 1) - 1/x`` (``zeta(s, x) = zeta(s, x + 1) + x^-s``) and
then an asymptotic (Euler-Maclaurin) series, good to ~1e-15; ``erfinv`` by a rational first
guess polished with Newton steps on ``erf`` (``erfc`` in the tails). Each derivative is written in leafgrad ops
(``lgamma' = digamma``, ``digamma' = polygamma(1)``, ...), so double backward works.

>>> import leafgrad as torch
>>> torch.tensor([1.0, 2.0]).digamma()
tensor([-0.5772,  0.4228])
"""
from __future__ import annotations

import math

import numpy as np

from ..tensor import _wrap
from .iter_layout import CONTIG
from .pointwise_common import scale as _scale
from .registry import RECORDS, Sample, defop
from .special_bessel import i0_array, i0e_array, i1_array, i1e_array
from .unary import _unary, _unary_samples, erf_array

__all__ = ["digamma_array", "hurwitz_zeta_array"]

FAMILY = "pointwise"

# B_2k / (2k) for the digamma series, B_2k / (2k)! for the zeta tail
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798)
_SHIFT = 10.0   # shift arguments up to at least this before the asymptotic series


def _float64(x):
    return np.asarray(x, dtype=np.float64)


# -- lgamma ----------------------------------------------------------------------------------
def _lgamma_scalar(v: float) -> float:
    if v != v:
        return v
    if v == math.inf or v == -math.inf:
        return math.inf
    if v <= 0 and v == math.floor(v):
        return math.inf   # poles of the gamma function
    return math.lgamma(v)


def lgamma(self):
    """``log |gamma(self)|``."""
    x = _float64(self)
    out = np.fromiter(map(_lgamma_scalar, x.ravel().tolist()), np.float64, x.size)
    return out.reshape(x.shape).astype(self.dtype if self.dtype.kind == "f" else np.float64,
                                      copy=False)


def lgamma_self(grad, self):
    return grad * self.digamma()


# -- digamma ---------------------------------------------------------------------------------
def digamma_array(x: np.ndarray) -> np.ndarray:
    """psi(x) in float64: reflection below 0, recurrence up to 10, asymptotic series."""
    x = _float64(x)
    out = np.empty_like(x)
    neg = x < 0
    pole = (x <= 0) & (x == np.floor(x))
    xr = np.where(neg, 1.0 - x, x)
    acc = np.zeros_like(x)
    a = xr.copy()
    while True:
        small = a < _SHIFT
        if not small.any():
            break
        acc -= np.where(small, 1.0 / np.where(small, a, 1.0), 0.0)
        a = np.where(small, a + 1.0, a)
    inv2 = 1.0 / (a * a)
    # psi(a) ~ ln a - 1/(2a) - sum B_2k / (2k a^2k)
    series = np.zeros_like(a)
    power = inv2.copy()
    for k, b in enumerate(_BERNOULLI[:7], start=1):
        series += b / (2 * k) * power
        power = power * inv2
    out = np.log(a) - 0.5 / a - series + acc
    reflected = out - np.pi / np.tan(np.pi * x)
    out = np.where(neg, reflected, out)
    out = np.where(pole, np.nan, out)
    out = np.where(x == 0, np.where(np.signbit(x), np.inf, -np.inf), out)
    return np.where(np.isnan(x), np.nan, np.where(x == np.inf, np.inf, out))


# Note [float digamma]: ATen's calc_digamma(float) computes in float, step by step: the
# reflection's pi / tan(pi r) in double (r = modf(x)), the recurrence up to 10, the asymptotic
# series (Cephes' polevl) and the C library's logf (glibc's is not correctly rounded). The
# float64 algorithm rounded to float differs from it in over half of all values (fuzz seed 168:
# digamma(-12.003287) one ulp off, amplified near the pole); this is bit-exact on 300k random
# values but one. Half precision runs it too (ATen converts to float and back).
_PSI_A32 = np.array([8.33333333333333333333E-2, -2.10927960927960927961E-2,
                     7.57575757575757575758E-3, -4.16666666666666666667E-3,
                     3.96825396825396825397E-3, -8.33333333333333333333E-3,
                     8.33333333333333333333E-2], np.float32)
_PSI_10_32 = np.float32(2.25175258906672110764)


def _logf(a: np.ndarray) -> np.ndarray:
    from .._libm import _load
    fn = _load("logf", "float", 1)
    if fn is None:
        return np.log(a.astype(np.float64)).astype(np.float32)
    return np.fromiter(map(fn, a.ravel().tolist()), np.float32, a.size).reshape(a.shape)


def digamma_float(x: np.ndarray) -> np.ndarray:
    """ATen's float digamma (Note [float digamma]) of a float32 array."""
    f = np.float32
    x = np.asarray(x, f)
    with np.errstate(all="ignore"):
        neg = x < 0
        pi_over_tan = (np.pi / np.tan(np.pi * np.fmod(x.astype(np.float64), 1.0))).astype(f)
        a = np.where(neg, f(1) - x, x)
        acc = np.zeros_like(a)
        small = a < 10
        while small.any():
            acc = np.where(small, acc - f(1) / a, acc)
            a = np.where(small, a + f(1), a)
            small = a < 10
        z = f(1) / (a * a)
        poly = np.full_like(a, _PSI_A32[0])
        for c in _PSI_A32[1:]:
            poly = poly * z + c
        head = (acc + _logf(a)) - f(0.5) / a
        out = np.where(a < f(1e17), head - z * poly, head)
        out = np.where(a == 10, acc + _PSI_10_32, out)
        out = np.where(neg, out - pi_over_tan, out)
        out = np.where(neg & (x == np.trunc(x)), f(np.nan), out)
        out = np.where(x == 0, np.where(np.signbit(x), f(np.inf), f(-np.inf)), out)
    return out.astype(f, copy=False)


def digamma(self):
    """``d/dx lgamma(x)``."""
    if self.dtype in (np.float32, np.float16):
        return digamma_float(self).astype(self.dtype, copy=False)
    out = digamma_array(self)
    return out.astype(self.dtype if self.dtype.kind == "f" else np.float64, copy=False)


def digamma_self(grad, self):
    return grad * self.polygamma(1)


# -- polygamma -------------------------------------------------------------------------------
def hurwitz_zeta_array(s: float, x: np.ndarray) -> np.ndarray:
    """zeta(s, x) = sum_k (x + k)^-s for s > 1, any real x off the poles, in float64."""
    x = _float64(x)
    acc = np.zeros_like(x)
    # (-inf would never climb to _SHIFT: it is a pole, the callers set it; seed 124 hung)
    a = np.where(x == -np.inf, _SHIFT, x)
    while True:
        small = a < _SHIFT
        if not small.any():
            break
        acc += np.where(small, np.where(small, a, 1.0) ** -s, 0.0)
        a = np.where(small, a + 1.0, a)
    # Euler-Maclaurin tail: a^(1-s)/(s-1) + a^-s/2 + sum_k B_2k/(2k)! s(s+1)..(s+2k-2) a^(-s-2k+1)
    tail = a ** (1.0 - s) / (s - 1.0) + 0.5 * a ** -s
    rising = s
    term_pow = a ** (-s - 1.0)
    fact = 2.0
    inv2 = 1.0 / (a * a)
    for k, b in enumerate(_BERNOULLI, start=1):
        tail += b / fact * rising * term_pow
        rising *= (s + 2 * k - 1) * (s + 2 * k)
        fact *= (2 * k + 1) * (2 * k + 2)
        term_pow = term_pow * inv2
    return acc + tail


def trigamma_array(x: np.ndarray) -> np.ndarray:
    """ATen's ``trigamma`` step by step in the kernel's type (float for float16/float32,
    double for float64): below 1/2 the reflection ``-pi^2 / sin(pi x)^2`` with ``sin`` of the
    rounded ``pi * x``, six recurrence steps and a short asymptotic series. At the negative
    integers ``sin(pi x)`` is not 0 in floating point, so PyTorch gives large finite values
    there (float32 ``trigamma(-2) = 3.23e14``), ``inf`` only at 0 (seed 131)."""
    t = np.float64 if x.dtype == np.float64 else np.float32
    x = np.asarray(x, dtype=t)
    one = t(1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        low = x < t(0.5)
        pi = t(math.pi)
        # (sinf of a float argument: the double sine rounded once)
        s = np.sin((pi * x).astype(np.float64)).astype(t)
        result = np.where(low, -((pi * pi) / (s * s)), t(0)).astype(t)
        x = np.where(low, one - x, x).astype(t)
        for _ in range(6):
            result = result + one / (x * x)
            x = x + one
        ixx = one / (x * x)
        result = result + (one + one / (t(2) * x)
                           + ixx * (one / t(6) - ixx * (one / t(30) - ixx * (one / t(42))))) / x
        return np.where(low, -result, result).astype(t, copy=False)


def polygamma(n, self):
    """The ``n``-th derivative of digamma."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    dt = self.dtype if self.dtype.kind == "f" else np.float64
    if n == 0:
        return digamma_array(self).astype(dt, copy=False)
    if n == 1:
        return trigamma_array(np.asarray(self, dtype=dt)).astype(dt, copy=False)
    x = _float64(self)
    sign = 1.0 if n % 2 else -1.0
    out = sign * math.factorial(n) * hurwitz_zeta_array(n + 1.0, x)
    pole = (x <= 0) & (x == np.floor(x))
    out = np.where(pole, sign * np.inf, out)   # (PyTorch prints garbage at negative poles)
    # at +inf ATen's zeta (n >= 2) gives 0 * inf = NaN; at -inf zeta calls it a pole
    # (seed 124)
    out = np.where(x == np.inf, np.nan, out)
    return out.astype(dt, copy=False)


def polygamma_self(grad, n, self):
    return grad * self.polygamma(n + 1)


# -- erfinv ----------------------------------------------------------------------------------
# the classic rational first guess for erfinv: a central one in y^2 for |y| <= 0.7, and one
# in sqrt(-log((1 - |y|) / 2)) for the tails (numerator / denominator coefficients, low first)
_ERFINV_CENTRAL = ((0.886226899, -1.645349621, 0.914624893, -0.140543331),
                   (1.0, -2.118377725, 1.442710462, -0.329097515, 0.012229801))
_ERFINV_TAIL = ((-1.970840454, -1.624906493, 3.429567803, 1.641345311),
                (1.0, 3.543889200, 1.637067800))


def _poly(coeffs, z):
    out = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        out = out * z + c
    return out


def erfinv(self):
    """The inverse of ``erf`` on (-1, 1): +-inf at +-1, nan outside: a rational first guess
    (PyTorch's, so float32 rounds as its), then Newton steps to full double precision
    (PyTorch's float64 is correctly rounded even in the tails)."""
    y = _float64(self)
    a = np.abs(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = y * y
        central = y * _poly(_ERFINV_CENTRAL[0], z) / _poly(_ERFINV_CENTRAL[1], z)
        t = np.sqrt(-np.log(np.where(a < 1, (1.0 - a) / 2.0, 1.0)))
        tail = np.copysign(_poly(_ERFINV_TAIL[0], t), y) / _poly(_ERFINV_TAIL[1], t)
        x = np.where(a <= 0.7, central, tail)
        # Newton on erf(x) = y; in the tails on erfc(|x|) = 1 - |y| (exact there), whose
        # residual keeps its digits where erf(x) - y would cancel them
        tails = a > 0.5
        for _ in range(3):
            d = (2.0 / math.sqrt(math.pi)) * np.exp(-x * x)
            r = np.where(tails, np.sign(y) * ((1.0 - a) - erf_array(np.abs(x), True)),
                         erf_array(x) - y)
            x = x - r / d
    x = np.where(a == 1, np.copysign(np.inf, y), x)
    x = np.where(a > 1, np.nan, x)
    return x.astype(self.dtype if self.dtype.kind == "f" else np.float64, copy=False)


def erfinv_self(grad, self):
    # PyTorch saves the input, not the result (an in-place change of the result is allowed)
    # PyTorch's 0.5 * sqrt(pi) * exp(self.erfinv().pow(2)) * grad: MulBackward1 first
    return _scale(self.erfinv().pow(2).exp(), 0.5 * math.sqrt(math.pi)) * grad


# -- i0, i0e, i1, i1e (the forwards are in special_bessel.py) --------------------------------
def i0(self):
    """The modified Bessel function of the first kind, order 0 (Note [Cephes Bessel kernels]:
    float64 in float64, every other dtype in float32, half rounded back)."""
    return i0_array(self)


def i0_self(grad, self):
    return grad * _I1.public(self)


def special_i0e(self):
    """``exp(-|x|) I0(x)`` (``torch.special.i0e``)."""
    return i0e_array(self)


def special_i0e_self(grad, self, result):
    return grad * (_I1E.public(self) - self.sgn() * result)


def special_i1(self):
    """I_1, the derivative of i0 (``torch.special.i1``)."""
    return i1_array(self)


def _tiny_safe(self, name):
    """PyTorch's i1/i1e backward guard: (|x| > eps, x with |x| <= eps replaced by eps through
    a differentiable where); its kernels have no half."""
    dtype = self._data.dtype
    if dtype == np.float16:
        raise NotImplementedError(f"\"{name}\" not implemented for 'Half'")
    eps = float(np.finfo(dtype).eps)
    not_tiny = self.abs() > eps
    return not_tiny, self.where(not_tiny, _wrap(np.full((), eps, dtype))), dtype


def special_i1_self(grad, self, result):
    # I_1'(x) = I_0(x) - I_1(x) / x, and 1/2 at x = 0 (so i0's double backward in float16
    # raises too)
    not_tiny, safe, dtype = _tiny_safe(self, "i1_backward")
    gradx = safe.i0() - result * safe.reciprocal()
    return grad * gradx.where(not_tiny, _wrap(np.full((), 0.5, dtype)))


def special_i1e(self):
    """``exp(-|x|) I1(x)`` (``torch.special.i1e``)."""
    return i1e_array(self)


def special_i1e_self(grad, self, result):
    # d/dx i1e(x) = i0e(x) - i1e(x) (sgn(x) + 1/x), and 1/2 at x = 0
    not_tiny, safe, dtype = _tiny_safe(self, "i1e_backward")
    gradx = _I0E.public(safe) - result * (safe.sgn() + safe.reciprocal())
    return grad * gradx.where(not_tiny, _wrap(np.full((), 0.5, dtype)))


def _bessel_samples(call):
    """float64 (with grads), float32 and int64 inputs, across the [0, 8] / (8, inf) seam."""
    def samples(make, shapes):
        return [Sample((make(shapes[0], -3.0, 3.0),), call=call),
                Sample((make(shapes[1], -12.0, 12.0),), call=call, atol=1e-5),
                Sample((make(shapes[2], -12.0, 12.0).astype(np.float32),), call=call,
                       atol=1e-4),
                Sample((make(shapes[3], -10, 11, np.int64),), call=call, atol=1e-4)]
    return samples


# -- sinc ------------------------------------------------------------------------------------
def sinc(self):
    """``sin(pi x) / (pi x)``, 1 at 0."""
    return np.sinc(self)


def sinc_self(grad, self):
    # (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 where pi x^2 is 0 (in this order, so float32
    # rounds as PyTorch's does)
    self_pi = _scale(self, math.pi)              # (MulBackward1: mul(Tensor, Scalar))
    squared_pi = _scale(self * self, math.pi)
    out = grad * ((self_pi * self_pi.cos() - self_pi.sin()) / squared_pi)
    return RECORDS["where"].public(_wrap(squared_pi._data == 0),
                                   _wrap(np.zeros((), grad._data.dtype)), out)


_gamma_samples = _unary_samples(0.3, 4.0)
_unary("lgamma", lgamma, lgamma_self, samples=_gamma_samples)
_unary("digamma", digamma, digamma_self, samples=_gamma_samples)
_unary("erfinv", erfinv, erfinv_self, samples=_unary_samples(-0.95, 0.95, ints=False))
_unary("i0", i0, i0_self, grad_fn_name="I0Backward0", samples=_unary_samples(-3.0, 3.0))
_unary("sinc", sinc, sinc_self, samples=lambda make, shapes: [
    Sample((make(shapes[0]),)), Sample((make(shapes[2], -3, 4, np.int64),)),
    # float32 second derivatives cancel badly near 0: compare values and first grads only
    Sample((make(shapes[1]).astype(np.float32),), grad=False, atol=1e-5)])
_I1 = defop("special_i1", special_i1, derivatives={"self": special_i1_self},
            dtype="promote_float", methods=(), functions=(), family=FAMILY,
            samples=_bessel_samples("special.i1"))
_I0E = defop("special_i0e", special_i0e, derivatives={"self": special_i0e_self},
             dtype="promote_float", methods=(), functions=(), family=FAMILY,
             grad_fn_name="SpecialI0EBackward0", samples=_bessel_samples("special.i0e"))
_I1E = defop("special_i1e", special_i1e, derivatives={"self": special_i1e_self},
             dtype="promote_float", methods=(), functions=(), family=FAMILY,
             grad_fn_name="SpecialI1EBackward0", samples=_bessel_samples("special.i1e"))


def _polygamma_samples(make, shapes):
    return [Sample((n, make(shapes[0], 0.3, 4.0)), call="polygamma") for n in (0, 1, 2, 3)] + [
        Sample((make(shapes[1], 0.3, 4.0).astype(np.float32), 1), call="Tensor.polygamma",
               atol=1e-4)]


_polygamma = defop("polygamma", polygamma, derivatives={"self": polygamma_self},
                   dtype="promote_float", inplace=None, methods=(), family=FAMILY,
                   samples=_polygamma_samples)


def _polygamma_method(self, n):
    return _polygamma.public(n, self)


def _polygamma_inplace(self, n):
    from .pointwise_common import inplace_of
    return inplace_of(_polygamma_method, "polygamma_")(self, n)


from .registry import bind_method

bind_method("polygamma", _polygamma_method)
bind_method("polygamma_", _polygamma_inplace)


# -- mvlgamma --------------------------------------------------------------------------------
def mvlgamma(self, p):
    """The multivariate log-gamma of dimension ``p``:
    ``p (p - 1) / 4 log(pi) + sum_{j < p} lgamma(self - j / 2)``."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    # PyTorch's composite, in the result's dtype (PyTorch 2.13 no longer checks x > (p - 1)
    # / 2): arange(-p/2 + 1/2, 1/2, 1/2) + x.unsqueeze(-1), lgamma_, sum(-1) (half: in
    # float), then + p (p - 1) / 4 log(pi) (a half sum was off by several of its ulps when
    # computed in double and rounded once; fuzz seed 175)
    dt = self.dtype if self.dtype.kind == "f" else np.dtype(np.float64)
    x = self.astype(dt, copy=False)
    t = x[..., None] + np.arange(-p / 2 + 0.5, 0.5, 0.5).astype(dt)
    terms = lgamma(t)
    if dt == np.float16:
        total = terms.astype(np.float32).sum(-1)
        return (total + np.float32(p * (p - 1) * math.log(math.pi) * 0.25)).astype(dt)
    return np.asarray(terms.sum(-1) + dt.type(p * (p - 1) * math.log(math.pi) * 0.25), dt)


def mvlgamma_self(grad, self, p):
    # PyTorch's arange(-p/2 + 0.5, 0.5, 0.5).add(self.unsqueeze(-1)).digamma_().sum(-1) * grad
    args = _wrap(np.arange(-p / 2 + 0.5, 0.5, 0.5).astype(self._data.dtype))
    return grad * (args + self.unsqueeze(-1)).digamma_().sum(-1)


def _mvlgamma_rule(rec, args):
    """promote_float, after PyTorch's own refusal of bool input."""
    from .registry import promote_float
    if args[0]._data.dtype == np.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    return promote_float(rec, args)


_mvlgamma = defop(
    "mvlgamma", mvlgamma, layout=CONTIG, derivatives={"self": mvlgamma_self}, dtype=_mvlgamma_rule,
    inplace="mvlgamma_", family=FAMILY, samples=lambda make, shapes: [
        Sample((make(shapes[0], 1.6, 4.0), 3)), Sample((make(shapes[1], 0.2, 3.0), 1)),
        Sample((make(shapes[2], 3, 6, np.int64), 2))])


def _mvlgamma_inplace(self, p):
    """``mvlgamma_``: PyTorch checks the dtypes first, naming them the other way round."""
    from ..dtypes import from_numpy_dtype, get_default_dtype
    d = self._data.dtype
    if d == np.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if d.kind != "f":
        raise RuntimeError(f"mvlgamma: result type {from_numpy_dtype(d).tensor_type[:-6]} can't "
                           f"be cast to the desired output type "
                           f"{get_default_dtype().tensor_type[:-6]}")
    return _mvlgamma_inplace_generated(self, p)


from ..tensor import Tensor  # noqa: E402
_mvlgamma_inplace_generated = Tensor.mvlgamma_
bind_method("mvlgamma_", _mvlgamma_inplace)
