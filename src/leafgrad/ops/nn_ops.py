"""Neural-network primitives with their own stable formulas: softmax, log_softmax.

Both are primitives (not built from exp/sum/div) so that they are stable for large inputs and
record PyTorch's nodes, ``SoftmaxBackward0`` and ``LogSoftmaxBackward0``. ``nn.functional``
builds on them.

>>> import leafgrad as torch
>>> torch.tensor([1.0, 2.0, 3.0]).softmax(0)
tensor([0.0900, 0.2447, 0.6652])
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dt
from .._cpu import ATEN_CAPABILITY
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from .iter_layout import CONTIG
from .registry import Sample, bind_method, defop, export_function

FAMILY = "nn_ops"
_isfinite = math.isfinite


def _axis(dim, ndim):
    if dim is None:
        raise TypeError("softmax(): argument 'dim' must be int, not NoneType")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}]"
                         f", but got {dim})")
    return dim % n


def _softmax_dtype(name):
    def rule(rec, args):
        dtype = args[2]
        if dtype is not None:
            d = _dt.to_dtype(dtype).np
            return d, d
        d = args[0]._data.dtype
        if d.kind not in "fc":
            data = args[0]._data
            _axis(args[1], data.ndim)   # PyTorch checks dim, then skips an empty input
            if data.size == 0:
                return d, d
            last = args[1] in (-1, args[0]._data.ndim - 1) or args[0]._data.ndim == 0
            kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{_dt.from_numpy_dtype(d).tensor_type[:-6]}'")
        return None, None
    return rule


def _shifted(self, axis):
    """``self - max(self)`` along ``axis``, in a new array (safe for -inf rows)."""
    if self.size == 0:
        return self.copy()   # nothing to normalise (an empty max has no identity)
    # the ufuncs' own reductions: ndarray.max / .all are Python functions around them
    m = np.maximum.reduce(self, axis=axis, keepdims=True)
    # one reduction tells whether every maximum is finite: a sum of finite numbers is finite
    # (unless it overflows, which only sends rare inputs down the careful path)
    if not _isfinite(float(np.add.reduce(m, axis=None))):
        # only -inf maxima (all -inf rows) are replaced: a +inf max must give nan rows, as
        # PyTorch's (inf - inf)
        m = np.where(m == -np.inf, 0, m)
    return np.subtract(self, m)


def softmax(self, dim, dtype=None):
    """``exp(self) / exp(self).sum(dim)``, computed stably."""
    if self.ndim == 0:
        _axis(dim, 0)
        return np.exp(self - self)   # 1, but nan for nan and inf, as PyTorch
    axis = _axis(dim, self.ndim)
    if self.size == 0:   # (any dtype: PyTorch runs no kernel)
        return self.copy()
    if self.dtype == np.float16:   # PyTorch's half kernel computes in float, rounds once
        if axis == self.ndim - 1:
            return _softmax_half_lastdim(self)
        out = softmax(self.astype(np.float32), dim).astype(np.float16)
        _softmax_half_tails(self, axis, out)
        return out
    e = _shifted(self, axis)
    if self.dtype == _F32 and axis == self.ndim - 1:
        # Note [float32 softmax over the last dim]
        if e.size <= _EXACT_EXP_MAX:
            _exp_f32(e)
        else:
            np.exp(e, out=e)
        e *= _F32(1) / _vec_sum(e)
        return e
    if self.dtype == _F32 and e.size <= _EXACT_EXP_MAX:
        _exp_f32(e)
    else:
        np.exp(e, out=e)
    e /= e.sum(axis=axis, keepdims=True)   # (over a dim but the last: in order, as PyTorch)
    return e


def log_softmax(self, dim, dtype=None):
    """``self - logsumexp(self, dim)``, computed stably."""
    if self.ndim == 0:
        _axis(dim, 0)
        return self - self   # 0, but nan for nan and inf, as PyTorch
    axis = _axis(dim, self.ndim)
    if self.size == 0:   # (any dtype: PyTorch runs no kernel)
        return self.copy()
    if self.dtype == np.float16:
        if axis == self.ndim - 1:
            return _log_softmax_half_lastdim(self)
        # (its kernel over another dim computes in float, rounds once)
        return log_softmax(self.astype(np.float32), dim).astype(np.float16)
    z = _shifted(self, axis)
    if self.dtype == _F32 and axis == self.ndim - 1:
        return _log_softmax_f32_shifted(z)
    if self.dtype == _F32 and z.size <= _EXACT_EXP_MAX:
        e = np.exp(z, out=np.empty_like(z), dtype=_F64, casting="same_kind")
        lse = np.log(np.add.reduce(e, axis=axis, keepdims=True), dtype=_F64).astype(_F32)
        z -= lse
        return z
    lse = np.add.reduce(np.exp(z), axis=axis, keepdims=True)   # ndarray.sum's reduction
    np.log(lse, out=lse)
    z -= lse
    return z


# Note [float32 softmax over the last dim]
# PyTorch's float32 kernels over the last dim (_vec_softmax_lastdim, _vec_log_softmax_lastdim
# in aten/src/ATen/native/cpu/SoftMaxKernel.cpp) work a row at a time on Vectorized<float>:
# the row max, exp(x - max) with Sleef's expf (Vectorized<float>::exp, every element: the
# row's tail is a partial vector load, no scalar loop), their float sum by vec::reduce_all
# (``_vec_sum``), then softmax multiplies each by ``1 / sum`` (not a division) and
# log_softmax subtracts ``log(sum)`` (Sleef's logf) from ``x - max``. Here the sum order and
# the reciprocal are PyTorch's; log (one per row) is computed in float64 and rounded once,
# and so is exp up to _EXACT_EXP_MAX elements: the correctly rounded value, which Sleef's
# expf gives on ~90% of inputs (emulating its steps, _sleef.expf_u10, costs ~15x this
# softmax). Above that size NumPy's float32 exp (a float64 exp costs ~+60 us per 64,000
# elements: softmax would take 2.4x its former time, the budget is 2x). Where Sleef's expf
# is correctly rounded, softmax is PyTorch's bit for bit (the tests check it). Measured vs
# torch on N(0, 3) rows, share of values equal (before -> after):
#   softmax      33-44% -> 88-91% (above _EXACT_EXP_MAX: 33% -> ~59%)
#   log_softmax  82-93% -> 98.5-99.4% (above: 93% -> ~97.5%); the rest is Sleef's logf,
#                which errs up to ~0.06 ulp (rows whose log lies that near a midpoint).
# Other dims (_vec_softmax / _vec_log_softmax: exp, a sum in the dim's order, a division or
# log): the same float64 exp and log up to _EXACT_EXP_MAX elements (PyTorch's scalar tail,
# positions past the last full vector of the inner size, uses glibc's expf: correctly
# rounded). Softmax 51-66% -> 90-100%, log_softmax 92-95% -> 99-100%.
# ATEN_CPU_CAPABILITY=default (x86): Vectorized<float> is 8 lanes of std::exp (glibc's,
# correctly rounded), its lanes folded in order: softmax ~100% equal. (Other CPUs, NEON or
# SVE, have their own Vectorized<float>: not modelled, they get the DEFAULT order.)
_F32 = np.float32
_F64 = np.float64
_LANES = 16 if ATEN_CAPABILITY == "AVX512" else 8   # Vectorized<float>::size()
_LANE_TREE = ATEN_CAPABILITY != "DEFAULT"   # (AVX2/AVX-512 vec_reduce_all's shuffles)
_EXACT_EXP_MAX = 32768   # elements: exp through float64 up to here


def _exp_f32(z):
    """exp of a float32 array in place, computed in float64 and rounded once (the ufunc's
    buffered casts: a whole float64 copy of a large array costs more in page faults)."""
    return np.exp(z, out=z, dtype=_F64, casting="same_kind")


def _vec_sum(e):
    """``vec::reduce_all`` of ``+`` over the last dim of a float32 array (keepdims):
    ``_LANES`` lanes, lane k summing the k-th value of each full vector in order, the
    row's tail added into the first lanes, then the lanes paired as vec_reduce_all's
    shuffles do (k with k + 8, then + 4, + 2, + 1; ATen's DEFAULT build: in order). A row
    shorter than one vector is summed one by one, in order."""
    n = e.shape[-1]
    w = _LANES
    if n < w:   # (a running sum is in order; np.add.reduce would pair from 8 values on)
        return np.add.accumulate(e, axis=-1)[..., -1:]
    m = n - n % w
    # the vectors of each row brought to the front: the reduction over the outer axis of a
    # contiguous array adds them in order, with long inner loops
    rows = e[..., :m].reshape((-1, m // w, w)).transpose(1, 0, 2)
    lanes = np.add.reduce(np.ascontiguousarray(rows), axis=0).reshape(e.shape[:-1] + (w,))
    if n > m:
        lanes[..., :n - m] += e[..., m:]
    if not _LANE_TREE:   # the generic vec_reduce_all folds the lanes one by one
        return np.add.accumulate(lanes, axis=-1)[..., -1:]
    while w > 1:
        w //= 2
        lanes = lanes[..., :w] + lanes[..., w:2 * w]
    return lanes


def _log_softmax_f32_shifted(z):
    """float32 log_softmax over the last dim of ``z = x - max`` (changed in place):
    Note [float32 softmax over the last dim]."""
    if z.size <= _EXACT_EXP_MAX:
        e = np.exp(z, out=np.empty_like(z), dtype=_F64, casting="same_kind")
    else:
        e = np.exp(z)
    lse = np.log(_vec_sum(e).astype(_F64)).astype(_F32)
    z -= lse
    return z


def _lane_sum(e):
    """PyTorch's float sum of the last dim in ``_vec_softmax_lastdim``: 16 lanes (AVX-512)
    each summing every 16th value in order, the lanes added as its vec_reduce_all's shuffles
    pair them (k with k + 8, then + 4, + 2, + 1), then the tail one by one."""
    n = e.shape[-1]
    m = n - n % 16
    lanes = np.zeros(e.shape[:-1] + (16,), np.float32)
    for j in range(0, m, 16):
        lanes += e[..., j:j + 16]
    for half in (8, 4, 2, 1):
        lanes = lanes[..., :half] + lanes[..., half:2 * half]
    total = lanes[..., 0]
    for j in range(m, n):
        total = total + e[..., j]
    return total[..., None]


def _softmax_half_lastdim(self):
    """PyTorch's float16 softmax over the last dim: exp(x - max) in float, the lane sum
    (``_lane_sum``), then each times the sum's reciprocal, rounded to half once."""
    e = np.exp(_shifted(self.astype(np.float32), -1))
    return (e * (np.float32(1) / _lane_sum(e))).astype(np.float16)


def _scalar_tail(outer, inner, step=32):
    """Which of the (outer, inner) positions PyTorch's float16 softmax over a dim other than
    the last (``_vec_softmax``) computes in its scalar tail: its loop over the flattened
    positions, split among the threads, takes blocks of ``step`` (Vectorized<Half>'s lanes)
    within a row of ``inner`` and its thread's range, the rest one by one."""
    from .tensor_utils import get_num_threads
    n = outer * inner
    threads = max(min(get_num_threads(), n), 1)
    if threads == 1:
        return np.broadcast_to(np.arange(inner) >= inner // step * step, (outer, inner))
    tail = np.zeros(n, bool)
    chunk = -(-n // threads)
    for begin in range(0, n, chunk):
        end = min(n, begin + chunk)
        idx = begin
        while idx < end:
            col = idx % inner
            if col + step <= inner and idx + step <= end:
                idx += step
                continue
            count = end - idx if idx + step > end else inner - col
            tail[idx:idx + count] = True
            idx += count
    return tail.reshape(outer, inner)


def _softmax_half_tails(self, axis, out):
    """The positions of ``_scalar_tail``: there each exp(x - max) is stored as half before
    it is divided (in float) by the float sum of the unrounded ones; ``out`` is fixed there
    in place."""
    shape = self.shape
    outer = int(np.prod(shape[:axis]))
    inner = int(np.prod(shape[axis + 1:]))
    tail = _scalar_tail(outer, inner)
    if not tail.any():
        return
    x = self.astype(np.float32).reshape(outer, shape[axis], inner)
    e = np.exp(_shifted(x, 1))
    total = np.add.reduce(e, axis=1, keepdims=True)   # (in dim order: a float running sum)
    fixed = (e.astype(np.float16).astype(np.float32) / total).astype(np.float16)
    view = out.reshape(outer, shape[axis], inner)
    mask = np.broadcast_to(tail[:, None, :], view.shape)
    view[mask] = fixed[mask]


def _log_softmax_half_lastdim(self):
    """PyTorch's float16 log_softmax over the last dim (serial_vec_log_softmax_lastdim_range):
    its row max and sum of exp(x - max) are kept in half arrays, so the float sum is rounded
    to half, and so is its log (computed in float); then x - max - log(sum) in float, rounded
    to half once. (A row whose other terms add less than half an ulp of 1 gets exactly 0.)"""
    x = self.astype(np.float32)
    z = _shifted(x, -1)   # exact: two halves' difference
    total = np.add.reduce(np.exp(z), axis=-1, keepdims=True).astype(np.float16)
    lse = np.log(total.astype(np.float32)).astype(np.float16).astype(np.float32)
    z -= lse
    return z.astype(np.float16)


def softmax_self(grad, result, dim):
    return _SOFTMAX_BACKWARD.public(grad, result, dim)


def log_softmax_self(grad, result, dim):
    if not _mode.grad_enabled:   # Note [Plain NumPy without create_graph] in ops/linalg.py
        return _wrap(_log_softmax_backward_data(grad._data, result._data, dim))
    return _LOG_SOFTMAX_BACKWARD.public(grad, result, dim)


# -- the backward ops (PyTorch's _softmax_backward_data / _log_softmax_backward_data) --------
# One op per backward step instead of four, and a node of PyTorch's name under double
# backward: SoftmaxBackwardDataBackward0, LogSoftmaxBackwardDataBackward0.
def _softmax_backward_data(grad_output, output, dim):
    """``output * (grad_output - sum(grad_output * output))``: softmax's gradient."""
    if output.ndim == 0:   # one element: zero, or NaN from an infinite/NaN gradient as PyTorch
        return _softmax_backward_data(grad_output.reshape(1), output.reshape(1), 0).reshape(())
    if output.dtype == np.float16 and grad_output.dtype == np.float16:
        # PyTorch's half kernel computes in float, rounds once
        return _softmax_backward_data(grad_output.astype(np.float32),
                                      output.astype(np.float32), dim).astype(np.float16)
    gy = grad_output * output
    gy -= output * gy.sum(axis=dim, keepdims=True)
    return gy


def _softmax_backward_data_grad_output(grad, output, dim):
    return _SOFTMAX_BACKWARD.public(grad, output, dim)


def _softmax_backward_data_output(grad, grad_output, output, dim):
    # d/dy of y * (g - sum(g * y)) applied to v: v g - v sum(g y) - g sum(v y)
    return (grad * grad_output - grad * (grad_output * output).sum(dim, keepdim=True)
            - grad_output * (grad * output).sum(dim, keepdim=True))


def _log_softmax_backward_data(grad_output, output, dim):
    """``grad_output - exp(output) * sum(grad_output)``: log_softmax's gradient."""
    if output.ndim == 0:
        return _log_softmax_backward_data(grad_output.reshape(1), output.reshape(1),
                                          0).reshape(())
    if output.dtype == np.float16 and grad_output.dtype == np.float16:
        # PyTorch's half kernel computes in float, rounds once
        return _log_softmax_backward_data(grad_output.astype(np.float32),
                                          output.astype(np.float32), dim).astype(np.float16)
    out = np.exp(output)
    out *= np.add.reduce(grad_output, axis=dim, keepdims=True)   # ndarray.sum's reduction
    np.subtract(grad_output, out, out=out)
    return out


def _log_softmax_backward_data_grad_output(grad, output, dim):
    return grad - (grad * output.exp()).sum(dim, keepdim=True)


def _log_softmax_backward_data_output(grad, grad_output, output, dim):
    return -(grad * output.exp() * grad_output.sum(dim, keepdim=True))


_SOFTMAX_BACKWARD = defop(
    "_softmax_backward_data", _softmax_backward_data, inputs=("grad_output", "output"),
    derivatives={"grad_output": _softmax_backward_data_grad_output,
                 "output": _softmax_backward_data_output},
    dtype="same", methods=(), functions=(), family=FAMILY)
_LOG_SOFTMAX_BACKWARD = defop(
    "_log_softmax_backward_data", _log_softmax_backward_data, inputs=("grad_output", "output"),
    derivatives={"grad_output": _log_softmax_backward_data_grad_output,
                 "output": _log_softmax_backward_data_output},
    dtype="same", methods=(), functions=(), family=FAMILY)


def _samples(call):
    def samples(make, shapes):
        base = shapes[1] or (3,)
        return [Sample((make(base), -1), call=call), Sample((make(shapes[0]), 0), call=call),
                Sample((np.asarray(make(base) * 200), 0), call=call),
                Sample((make(base), -1), {"dtype": _dt.float32}, call=call, atol=1e-4)]
    return samples


_SOFTMAX = defop("softmax", softmax, layout=CONTIG, derivatives={"self": softmax_self},
                 methods=(), functions=(), dtype=_softmax_dtype("softmax"), family=FAMILY,
                 samples=_samples("softmax"))
_LOG_SOFTMAX = defop("log_softmax", log_softmax, layout=CONTIG,
                     derivatives={"self": log_softmax_self},
                     methods=(), functions=(), dtype=_softmax_dtype("log_softmax"),
                     family=FAMILY, samples=_samples("log_softmax"))


# PyTorch's softmax / log_softmax with a ``dtype`` other than the input's convert the input
# first (``input.to(dtype)``: a ToCopyBackward0 between the input and SoftmaxBackward0, which
# casts the gradient back), and the kernel then sees ``dtype`` (its errors name it)
def _with_dtype(rec):
    public = rec.public

    def fn(input, *args, **kwargs):   # (the record's public takes the aliases: axis=...)
        dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
        if dtype is not None and isinstance(input, Tensor) and \
                _dt.to_dtype(dtype).np != input._data.dtype:
            kwargs.pop("dtype", None)
            return public(input.to(dtype), *args[:1], **kwargs)
        return public(input, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = rec.name
    fn.__doc__ = rec.forward.__doc__
    return fn


for _rec in (_SOFTMAX, _LOG_SOFTMAX):
    _fn = _with_dtype(_rec)
    export_function(_rec.name, _fn)
    bind_method(_rec.name, _fn)
