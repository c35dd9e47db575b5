"""Pointwise activations: sigmoid, relu, gelu, silu, softplus, logit.

The forwards are written to stay finite where PyTorch's do (``sigmoid(-1e4)`` is 0, not a
NaN from ``exp(1e4) / inf``). ``gelu``, ``silu`` and ``softplus`` are not ``torch.*`` functions
in PyTorch (they live in ``torch.nn.functional``): their records export nothing, and the
module-level wrappers below carry ``torch.nn.functional``'s signatures for ``nn.functional``.

>>> import leafgrad as torch
>>> torch.tensor([-1e4, 0.0, 1e4]).sigmoid()
tensor([0.0000, 0.5000, 1.0000])
"""
from __future__ import annotations

import math

import numpy as np

from .. import _vml
from .signed_zero import keep_self
from .pointwise_common import float_kernel, inplace_of, number_minus, zeros_grad
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from .registry import RECORDS, Sample, bind_method, defop, export_function
from .backward_ops import sigmoid_backward_op
from .unary import erf_array, positive_nan

_log = positive_nan(np.log)   # Note [Positive NaN] in unary.py
from .gelu_kernels import gelu_aten, gelu_onednn

__all__ = ["gelu", "silu", "softplus"]

FAMILY = "pointwise"
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715


def _via_float32(forward, self, *args):
    """Run a many-step forward on a float16 array in float32 and round once at the end, as
    PyTorch's CPU kernels do (rounding every step would drift by an ulp or two)."""
    return forward(self.astype(np.float32), *args).astype(np.float16)


def _samples(*extra_kwargs, low=-3.0, high=3.0, call=None, ints=True):
    def samples(make, shapes):
        out = [Sample((make(shapes[0], low, high),), dict(kw), call=call)
               for kw in (extra_kwargs or ({},))]
        out.append(Sample((make(shapes[1], low, high).astype(np.float32),), call=call,
                          atol=1e-5))
        if ints:
            out.append(Sample((make(shapes[2], -3, 4, np.int64),), call=call, atol=1e-5))
        return out
    return samples


# -- sigmoid --------------------------------------------------------------------------------
def sigmoid(self):
    """``1 / (1 + exp(-self))``.

    Already stable as written: ``exp`` overflows to inf for very negative inputs and 1 / inf
    is 0, as in PyTorch (which gives 0, not a denormal, for ``sigmoid(-100.)`` in float32).
    """
    if self.dtype == _F16:
        return _via_float32(sigmoid, self)
    # float32: PyTorch's kernel takes Sleef's expf (its vector lanes) or the C library's (its
    # scalar tail), both within an ulp of exact: the rounded float64 exp is nearest to both
    # (Note [MKL's VML, not Sleef] in _vml.py; 83% -> 96% of values equal torch's)
    return 1 / (1 + (_vml.exp(-self) if self.dtype == _F32 else np.exp(-self)))


def sigmoid_self(grad, result):
    return sigmoid_backward_op(grad, result)   # one op, as PyTorch's sigmoid_backward


def _sigmoid_samples(make, shapes):
    return _samples()(make, shapes) + [Sample((make(shapes[0], -3, 3),), call="Tensor.sigmoid_")]


defop("sigmoid", sigmoid, derivatives={"self": sigmoid_self}, dtype="promote_float",
      inplace="sigmoid_", samples=_sigmoid_samples, family=FAMILY)


# -- relu -----------------------------------------------------------------------------------
def _zero(dtype):
    """A NumPy zero of ``dtype`` (cached): NumPy compares and combines an array with a
    Python number on a slower path than with a scalar of the array's own dtype, for the
    same result."""
    zero = _ZEROS.get(dtype)
    if zero is None:
        zero = _ZEROS[dtype] = dtype.type(0)
    return zero


_ZEROS: dict = {}


def relu(self):
    """``max(self, 0)``."""
    dtype = self.dtype
    if dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    return keep_self(np.maximum, self, _zero(dtype))   # -0.0 stays (Note [signed zero ties])


def relu_self(grad, result):
    if not _mode.grad_enabled:   # Note [Plain NumPy without create_graph] in ops/linalg.py
        r = result._data
        return _wrap(threshold_backward(grad._data, r, _zero(r.dtype)))
    return _threshold_backward.public(grad, result, 0)


def threshold_backward(grad_output, self, threshold):
    """``grad_output`` where ``self > threshold``, else 0: relu's backward as an op, so that
    its own derivative is recorded against ``self`` (zero, as in PyTorch)."""
    below = np.less_equal(self, threshold)
    ints = _SAME_SIZE_INT.get(grad_output.dtype.char)
    if ints is None:
        return np.where(below, 0, grad_output)
    # Note [Masking by bits]: np.where with an irregular mask is slow (it branches per element:
    # ~8x a multiply on a 512x2048 float32 gradient), and grad * mask is wrong where grad is
    # inf or NaN (0 * inf = NaN, PyTorch gives 0). AND-ing each float's bits with all-ones or
    # all-zeros is exact: grad's own bits where kept, +0.0 where self <= threshold. The mask
    # array takes the result in place, seen as floats (three NumPy calls and two views).
    keep = np.subtract(below.view(np.uint8), _ONE_U8, dtype=ints)   # 0 or -1 (all ones)
    if type(keep) is not np.ndarray:
        keep = np.asarray(keep)   # 0-d inputs: NumPy answered a scalar
    np.bitwise_and(keep, grad_output.view(ints), out=keep)
    return keep.view(grad_output.dtype)


_SAME_SIZE_INT = {"e": np.int16, "f": np.int32, "d": np.int64}   # float16/32/64
_ONE_U8 = np.uint8(1)


def threshold_backward_grad_output(grad, self, threshold):
    return _threshold_backward.public(grad, self, threshold)


def threshold_backward_self(grad):
    return zeros_grad(grad)


_threshold_backward = defop(
    "threshold_backward", threshold_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": threshold_backward_grad_output,
                 "self": threshold_backward_self},
    dtype="same", methods=(), functions=(), family=FAMILY)


def _relu_samples(make, shapes):
    return _samples()(make, shapes) + [Sample((make(shapes[0]),), call="Tensor.relu_")]


defop("relu", relu, derivatives={"self": relu_self}, dtype="same", inplace="relu_",
      samples=_relu_samples, family=FAMILY)
_relu_inplace = Tensor.relu_


def relu_(self):
    """In-place version of :meth:`relu`. PyTorch refuses Bool before its clamp_min_ checks
    the written memory (an expanded bool tensor names Bool, not the overlap)."""
    if self._data.dtype.kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    return _relu_inplace(self)


bind_method("relu_", relu_)
export_function("relu_", relu_)   # torch.relu_, as in PyTorch


# -- gelu -----------------------------------------------------------------------------------
def gelu_op(self, approximate="none"):
    """``x * Phi(x)`` (the normal CDF), or its tanh approximation."""
    if self.dtype == _F16 and approximate == "none":
        from .tensor_utils import get_num_threads   # (late: it loads the op table)
        return gelu_aten(self, get_num_threads())   # (float inside, rounded once)
    if self.dtype == _F16:
        return _via_float32(_gelu_np, self, approximate)
    if approximate == "none" and self.dtype == _F32 and self.size > 1 and \
            self.flags.c_contiguous:
        return gelu_onednn(self)   # PyTorch hands these to oneDNN (gelu_kernels.py)
    if approximate == "none" and self.dtype == _F32:
        # ATen's kernel: vector blocks and a scalar loop (Note [ATen gelu's vector blocks])
        from .tensor_utils import get_num_threads   # (late: it loads the op table)
        return gelu_aten(self, get_num_threads())
    # (oneDNN's AVX2 kernel gives +0.0 for -0.0; its AVX-512 one, ATen's loops and its
    # double and half kernels keep -0.0)
    if approximate == "none" and self.dtype == _F64:
        # PyTorch's order; libm's erf, which its scalar loops use. Where its vector loop runs,
        # PyTorch takes Sleef's erf (an ulp apart on ~40% of values): redone bit for bit
        # (_sleef.erf_u1) that cost ~100x this op's time on small tensors (session 10)
        return self * 0.5 * (1.0 + erf_array(self * _SQRT_HALF))
    return _gelu_np(self, approximate)


def _gelu_np(self, approximate):
    if approximate == "none":
        return self * (0.5 * (1.0 + erf_array(np.asarray(self * _SQRT_HALF))))
    if approximate == "tanh":
        # PyTorch's order (x^3 first, the constants in the dtype); float32's tanh taken in
        # double and rounded, which agrees with PyTorch's float kernels far more often
        # (seed 27: a 0-d float32 gelu one ulp off)
        t = self.dtype.type
        inner = t(_SQRT_2_OVER_PI) * (self + t(_GELU_C) * (self * self * self))
        th = np.tanh(inner.astype(np.float64)).astype(_F32) if self.dtype == _F32 else \
            np.tanh(inner)
        return t(0.5) * self * (t(1) + th)
    raise RuntimeError("approximate argument must be either none or tanh.")


def gelu_self(grad, self, approximate):
    return GELU_BACKWARD.public(grad, self, approximate)


def _gelu_parts(x, approximate):
    """(gelu'(x), pieces the second derivative reuses), in NumPy."""
    if approximate == "tanh":
        x2 = x * x
        t = np.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x2 * x))
        dinner = _SQRT_2_OVER_PI * (1.0 + 3.0 * _GELU_C * x2)
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * dinner
    cdf = 0.5 * (1.0 + erf_array(np.asarray(x * _SQRT_HALF)))
    return cdf + x * (np.exp(-0.5 * x * x) * _INV_SQRT_2PI)


def gelu_backward(grad_output, self, approximate="none"):
    """``grad_output * gelu'(self)``: PyTorch's gelu_backward, one op (GeluBackwardBackward0
    under double backward)."""
    if self.dtype == _F16:
        return (grad_output.astype(np.float32) * _gelu_parts(self.astype(np.float32),
                                                             approximate)).astype(_F16)
    if approximate == "none" and self.dtype == _F64 and grad_output.dtype == _F64:
        return _gelu_backward64(grad_output, self)
    return grad_output * _gelu_parts(self, approximate)


_GELU_BETA = 1.12837916709551257390 * 0.70710678118654752440 * 0.5   # M_2_SQRTPI M_SQRT1_2 / 2


def _gelu_backward64(dy, x):
    """PyTorch's float64 GeluBackwardKernelImpl in its scalar loop's form: ``dy * (cdf +
    x * pdf)`` with libm's erf and exp (its vector loop's Sleef erf/exp and fused last step,
    an ulp apart on some values, are not redone: see gelu)."""
    shape = np.broadcast_shapes(dy.shape, x.shape)
    xb = np.broadcast_to(x, shape)
    a = xb * _SQRT_HALF
    e2 = xb * xb * -0.5
    with np.errstate(invalid="ignore", over="ignore"):
        return dy * (0.5 * (1.0 + erf_array(a)) + xb * (_GELU_BETA * _exp_libm(e2)))


def _exp_libm(v):
    """glibc's exp of non-positive float64 values (``math.exp``; NaN stays)."""
    return np.fromiter(map(math.exp, v.ravel().tolist()), np.float64, v.size).reshape(v.shape)


def gelu_backward_grad_output(grad, self, approximate):
    return GELU_BACKWARD.public(grad, self, approximate)


def gelu_backward_self(grad, grad_output, self, approximate):
    """gelu''(self) * grad * grad_output, with leafgrad ops (so it differentiates again), in
    the order PyTorch's gelu_double_backward evaluates it (float16 rounding, signed zeros)."""
    by = RECORDS["mul_scalar"].public
    if approximate == "tanh":
        # gelu' = f' g h + f g' h + f g h' with f = x / 2, g = 1 + tanh(inner), h = inner'
        inner = by(self + by(self.pow(3), _GELU_C), _SQRT_2_OVER_PI)
        t = inner.tanh()
        sech = 1 / inner.cosh()
        f = by(self, 0.5)
        g = _wrap(np.ones((), t._data.dtype)) - t * t
        h = by(RECORDS["add_scalar"].public(by(self, 3 * _GELU_C) * self, 1), _SQRT_2_OVER_PI)
        f_prime_gh = by(g, 0.5) * h
        g_prime_fh = f * h * (by(sech, 2) * (-sech * t) * h)
        h_prime_fg = f * g * by(by(self, 6 * _GELU_C), _SQRT_2_OVER_PI)
        second = f_prime_gh + f_prime_gh + g_prime_fh + h_prime_fg
    else:
        x2 = self * self
        pdf = by(by(x2, -0.5).exp(), _INV_SQRT_2PI)
        second = by(pdf, 2) - x2 * pdf
    return grad * grad_output * second


GELU_BACKWARD = defop(
    "gelu_backward", gelu_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": gelu_backward_grad_output, "self": gelu_backward_self},
    dtype="same", methods=(), functions=(), family=FAMILY)


_gelu = defop("gelu", gelu_op, derivatives={"self": gelu_self},
              dtype=float_kernel("GeluKernelImpl"), methods=(), functions=(), family=FAMILY,
              samples=_samples({}, {"approximate": "tanh"}, call="nn.functional.gelu", ints=False))


def gelu(input, approximate="none"):
    """``torch.nn.functional.gelu``."""
    if approximate != "none" and approximate != "tanh":
        # checked before the kernel's dtype, as PyTorch
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _gelu.public(input, approximate)


# -- silu -----------------------------------------------------------------------------------
def silu_op(self):
    """``self * sigmoid(self)``."""
    if self.dtype == _F16:
        return _via_float32(silu_op, self)
    # PyTorch's kernel divides: x / (1 + exp(-x)) (not x * sigmoid(x))
    return self / (1 + (_vml.exp(-self) if self.dtype == _F32 else np.exp(-self)))


def silu_self(grad, self):
    # PyTorch's nodes: grad * s * (1 + self * (1 - s)), the outer 1 + a Scalar add
    # (AddBackward1), the inner 1 - a wrapped-number sub (SubBackward0)
    s = self.sigmoid()
    one = _wrap(np.ones((), s._data.dtype))
    return grad * s * RECORDS["add_scalar"].public(self * (one - s), 1)


_silu = defop("silu", silu_op, derivatives={"self": silu_self}, dtype=float_kernel("silu_cpu"),
              methods=(), functions=(), family=FAMILY,
              samples=_samples(call="nn.functional.silu", ints=False))


def silu(input, inplace=False):
    """``torch.nn.functional.silu``."""
    if inplace:
        return _silu_inplace(input)
    return _silu.public(input)


_silu_inplace = inplace_of(_silu.public, "silu_")


# -- softplus -------------------------------------------------------------------------------
def softplus_op(self, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * self)) / beta``, linear where ``beta * self > threshold``."""
    if self.dtype == _F16:
        return _via_float32(softplus_op, self, beta, threshold)
    z = self * beta
    if z.dtype == _F32:   # PyTorch's kernel: (x * beta).exp().log1p() / beta
        soft = _vml.log1p(_vml.exp(z))
    else:
        soft = np.logaddexp(0.0, z)
    if beta != 1:
        soft = soft / beta
    return np.where(z > threshold, self, soft)


def softplus_self(grad, self, beta, threshold):
    return SOFTPLUS_BACKWARD.public(grad, self, beta, threshold)


def softplus_backward(grad_output, self, beta, threshold):
    """``grad_output * sigmoid(beta * self)`` (``grad_output`` where ``beta * self`` is above
    the threshold): PyTorch's softplus_backward, one op (SoftplusBackwardBackward0)."""
    x = self.astype(np.float32) if self.dtype == _F16 else self
    xb = x * beta
    # PyTorch's kernel: z = exp(x * beta), grad * z / (z + 1): below the range of exp(-x)
    # that keeps the denormal z (softplus'(-100) is 3.8e-44 in float32, not 0)
    with np.errstate(over="ignore", invalid="ignore"):
        z = _vml.exp(xb) if xb.dtype == _F32 else np.exp(xb)
        g = grad_output.astype(x.dtype, copy=False)
        out = np.where(xb > threshold, g, g * z / (z + 1))
    return np.asarray(out).astype(grad_output.dtype, copy=False)


def softplus_backward_grad_output(grad, self, beta, threshold):
    return SOFTPLUS_BACKWARD.public(grad, self, beta, threshold)


def softplus_backward_self(grad, grad_output, self, beta, threshold):
    # d/dself sigmoid(beta * self) = beta * s * (1 - s); zero above the threshold
    z = self * beta
    s = z.sigmoid()
    second = (s * (1 - s) * beta).masked_fill(z > threshold, 0.0)
    return grad * grad_output * second


SOFTPLUS_BACKWARD = defop(
    "softplus_backward", softplus_backward, inputs=("grad_output", "self"),
    derivatives={"grad_output": softplus_backward_grad_output,
                 "self": softplus_backward_self},
    dtype="same", methods=(), functions=(), family=FAMILY)


_softplus = defop("softplus", softplus_op, derivatives={"self": softplus_self},
                  dtype=float_kernel("softplus_cpu"), methods=(), functions=(), family=FAMILY,
                  samples=_samples({}, {"beta": 2.0}, {"beta": 0.5, "threshold": 1.0},
                                   call="nn.functional.softplus", ints=False))


def softplus(input, beta=1.0, threshold=20.0):
    """``torch.nn.functional.softplus``."""
    return _softplus.public(input, beta, threshold)


# -- logit ----------------------------------------------------------------------------------
def logit(self, eps=None):
    """``log(self / (1 - self))``, with the input clamped to ``[eps, 1 - eps]`` if given."""
    if self.dtype == _F16:
        # PyTorch's half kernel: the clamp, 1 - x and the ratio in half arithmetic, the log
        # in float (fuzz seed 220)
        h = np.float16
        if eps is not None:
            lo = h(eps)
            self = _clamp_eps(self, lo, h(1) - lo)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = self / (h(1) - self)
            return np.log(ratio.astype(np.float32)).astype(h)
    if eps is not None:
        t = self.dtype.type
        self = _clamp_eps(self, t(eps), t(1) - t(eps))
    if self.dtype == _F32:
        # the ratio in float; its log as MKL's vsLn (contiguous) or Sleef's logf give it,
        # which the correctly rounded log matches far more often than NumPy's float32 log
        # (about 7% of values an ulp off, not 16%: MKL's own rounding is not reproduced)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = self / (np.float32(1) - self)
            return _log(ratio.astype(np.float64)).astype(_F32)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _log(self / (1.0 - self))


def _clamp_eps(x, lo, hi):
    """PyTorch's ``x < lo ? lo : (x > hi ? hi : x)`` (so an eps above 1/2, lo > hi, gives lo
    below lo and hi above it; NaN stays)."""
    return np.where(x < lo, lo, np.where(x > hi, hi, x))


def logit_self(grad, self, eps):
    # PyTorch's logit_backward: where(inside, grad / (self * (1 - self)), nan or 0)
    out = grad / (self * number_minus(1, self))   # (PyTorch's 1 - self: SubBackward0)
    if eps is None:
        return out.where((self >= 0) & (self <= 1), math.nan)
    return out.where((self >= eps) & (self <= 1 - eps), 0.0)


defop("logit", logit, derivatives={"self": logit_self}, dtype="promote_float",
      inplace="logit_", family=FAMILY,
      samples=lambda make, shapes: [Sample((make(shapes[0], 0.05, 0.95),)),
                                    Sample((make(shapes[0], 0.05, 0.95),), {"eps": 0.2}),
                                    Sample((make(shapes[1], 0.05, 0.95).astype(np.float32),),
                                           atol=1e-5)])
