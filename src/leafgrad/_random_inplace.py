"""The in-place samplers: ``Tensor.uniform_``, ``normal_``, ``random_``, ``bernoulli_``,
``exponential_``, ``geometric_``, ``log_normal_``, ``cauchy_``.

Each is an op record with a zero derivative (PyTorch's ``zeros_like(grad)``): on a tensor
that requires grad it becomes the tensor's ``grad_fn`` (``UniformBackward0``...), and like
every in-place op it bumps the version counter and refuses a leaf that requires grad unless
grad mode is off, which is how ``nn.init`` calls it.

>>> import leafgrad as torch
>>> w = torch.empty(3)
>>> w.uniform_(-1, 1) is w, w._version
(True, 1)
"""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from ._argparse import Signatures
from .ops.registry import bind_method, commit_inplace, defop, inplace_check
from . import _distributions as _dist
from .random import (_check_p, _check_random_range, _float_only, _integers, _num, _rng,
                     _type_name, _zero_grad)
from .tensor import Tensor

__all__: list = []


def _in_memory_order(self: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """Lay out ``flat`` (values in the order PyTorch's serial kernels produce them) over
    ``self``'s shape. PyTorch walks a tensor in memory order, so a transposed or otherwise
    permuted view receives the draws along its strides, not along its logical order."""
    if self.flags.c_contiguous or self.ndim < 2:
        return flat.reshape(self.shape)
    order = sorted(range(self.ndim), key=lambda d: (-self.strides[d], d))
    walked = flat.reshape([self.shape[d] for d in order])
    return walked.transpose(np.argsort(order))


def _uniform_fwd(self, from_=0.0, to=1.0, *, generator=None):
    _float_only("check_uniform_bounds", self.dtype)
    _check_uniform_bounds(self.dtype, float(from_), float(to))
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_num(from_)} > to={_num(to)}")
    flat = _dist.uniform(_rng(generator), self.size, self.dtype, float(from_), float(to))
    return _in_memory_order(self, flat)


_SCALAR_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double"}


def _check_uniform_bounds(np_dtype, from_, to):
    """ATen's check_uniform_bounds before its ``from <= to``: both ends within the dtype's
    finite range (a NaN or infinite end is out of bounds) and ``to - from`` (in double) not
    past its largest value."""
    d = np.dtype(np_dtype)
    if d.name not in _SCALAR_TYPE_NAMES:
        return
    top = float(np.finfo(d).max)
    for what, v in (("from", from_), ("to", to)):
        if not -top <= v <= top:
            raise RuntimeError(f"{what} is out of bounds for {_CPP_TYPE_NAMES[d.name]}")
    if to - from_ > top:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<"
                           f"{_SCALAR_TYPE_NAMES[d.name]}>::max(), but found to={to:g} and "
                           f"from={from_:g} which result in to-from to exceed the limit")


def _normal_fwd(self, mean=0.0, std=1.0, *, generator=None):
    if not std >= 0:   # (a NaN std too, as PyTorch's TORCH_CHECK(std >= 0.0))
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    if not self.size:   # (the checks of the arguments only: the kernel, which checks the
        return self.copy()   # dtype, does not run on an empty tensor)
    _float_only("normal_kernel_cpu", self.dtype)
    flat = _dist.normal(_rng(generator), self.size, self.dtype, float(mean), float(std),
                        self.flags.c_contiguous)
    return _in_memory_order(self, flat)


def _random_bounds(np_dtype, low, high):
    """``random_``'s range: [0, 2**mantissa] for floats, the dtype's range for integers."""
    np_dtype = np.dtype(np_dtype)
    if high is None:
        if np_dtype.kind == "f":
            high = 2 ** (np.finfo(np_dtype).nmant + 1) + 1
        elif np_dtype.kind == "b":
            high = 2
        else:
            high = int(np.iinfo(np_dtype).max) + 1
    return int(low), int(high)


def _check_in_dtype_range(low, top, np_dtype):
    """PyTorch's check_from_to_in_range: ``from`` and ``to - 1`` must be values of the dtype
    (floats: their finite range, with a warning past their mantissa)."""
    d = np.dtype(np_dtype)
    if d.kind == "f":   # an error outside the dtype's range, a warning past its mantissa
        info, digits = np.finfo(d), np.finfo(d).nmant + 1
        name = _CPP_TYPE_NAMES[d.name]
        for what, v in (("from", low), ("to - 1", top)):
            if not float(info.min) <= v <= float(info.max):
                raise RuntimeError(f"{what} is out of bounds for {name}")
            if not -(1 << digits) <= v <= 1 << digits:
                import os
                import sys
                import warnings
                frame, level, here = sys._getframe(), 1, os.path.dirname(__file__)
                while frame is not None and frame.f_code.co_filename.startswith(here):
                    frame, level = frame.f_back, level + 1   # to the user's line
                warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to "
                              f"precision limitations {name} can support discrete uniform "
                              f"distribution only within this range. This warning will become "
                              f"an error in version 1.7 release, please fix the code in "
                              f"advance", UserWarning, stacklevel=level)
        return
    if d.kind == "b":
        lo, hi = 0, 1
    else:
        lo, hi = int(np.iinfo(d).min), int(np.iinfo(d).max)
    for what, v in (("from", low), ("to - 1", top)):
        if not lo <= v <= hi:
            raise RuntimeError(f"{what} is out of bounds for {_CPP_TYPE_NAMES[d.name]}")


def _random_full_fwd(self, *, generator=None):
    """``random_()``: [0, max] of an integer dtype, [0, 2**mantissa] of a float dtype."""
    return _in_memory_order(self, _dist.random_full(_rng(generator), self.size, self.dtype))


def _random_fwd(self, from_=0, to=None, *, generator=None):
    """``random_(to)`` / ``random_(from, to)``; ``to=None`` means up to the dtype's top."""
    rng = _rng(generator)
    if to is None and from_ == -2 ** 63:
        # PyTorch's full 64-bit kernel: one random64() per element, as a signed value
        if self.dtype not in (np.int64, np.float64, np.float32):
            raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, "
                               "double, float and bfloat16")
        flat = rng.random64(self.size).view(np.int64).astype(self.dtype, copy=False)
        return _in_memory_order(self, flat)
    low, high = _random_bounds(self.dtype, from_, to)
    _check_random_range(low, high)
    if to is not None:
        _check_in_dtype_range(low, high - 1, self.dtype)
    flat = _integers(rng, (self.size,), self.dtype, low, high)
    return _in_memory_order(self, flat)


def _bernoulli_fwd(self, p=0.5, *, generator=None):
    rng = _rng(generator)
    if isinstance(p, np.ndarray):
        drawn = _dist.bernoulli_tensor(rng, np.broadcast_to(p, self.shape))
        return drawn.astype(self.dtype)
    _check_p("bernoulli", p)
    flat = _dist.bernoulli_scalar(rng, self.size, p)
    return _in_memory_order(self, flat).astype(self.dtype)


# the C++ type names some checks print (typeid, demangled)
_CPP_TYPE_NAMES = {"int64": "long int", "int32": "int", "int16": "short int",
                   "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
                   "float16": "c10::Half", "float32": "float", "float64": "double"}


def _continuous(name, np_dtype, cpp_names=False):
    if np.dtype(np_dtype).kind != "f":
        what = _CPP_TYPE_NAMES.get(np.dtype(np_dtype).name) if cpp_names else None
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{what or _type_name(np_dtype)}")


def _exponential_fwd(self, lambd=1.0, *, generator=None):
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    if not self.size:   # (no kernel, no dtype check)
        return self.copy()
    _continuous("Exponential", self.dtype)
    flat = _dist.exponential(_rng(generator), self.size, lambd)
    return _in_memory_order(self, flat).astype(self.dtype)


def _geometric_fwd(self, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    if not self.size:   # (no kernel, no dtype check)
        return self.copy()
    if np.dtype(self.dtype).kind == "b":   # the kernel's dispatch: every type but bool
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    flat = _dist.geometric(_rng(generator), self.size, p)
    return _in_memory_order(self, flat).astype(self.dtype)


def _log_normal_fwd(self, mean=1.0, std=2.0, *, generator=None):
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    if not self.size:   # (no kernel, no dtype check)
        return self.copy()
    if np.dtype(self.dtype).kind != "f":   # no dtype check of its own: the kernel's dispatch
        raise NotImplementedError(f'"log_normal_cpu" not implemented for '
                                  f"'{_type_name(self.dtype)}'")
    flat = _dist.log_normal(_rng(generator), self.size, float(mean), float(std))
    return _in_memory_order(self, flat).astype(self.dtype)


def _cauchy_fwd(self, median=0.0, sigma=1.0, *, generator=None):
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    _continuous("Cauchy", self.dtype, cpp_names=True)
    flat = _dist.cauchy(_rng(generator), self.size, float(median), float(sigma))
    return _in_memory_order(self, flat).astype(self.dtype)


def _record(name, forward, grad_fn_name):
    return defop("inplace_" + name, forward, inputs=("self",),
                 derivatives={"self": _zero_grad}, grad_fn_name=grad_fn_name, methods=(),
                 functions=(), dtype="same", family="random")


_RECORDS = {name: _record(name, fwd, gname) for name, fwd, gname in [
    ("uniform", _uniform_fwd, "UniformBackward0"),
    ("normal", _normal_fwd, "NormalBackward0"),
    ("random", _random_full_fwd, "RandomBackward2"),
    ("random_to", _random_fwd, "RandomBackward1"),
    ("random_from_to", _random_fwd, "RandomBackward0"),
    ("bernoulli_float", _bernoulli_fwd, "BernoulliBackward2"),
    ("bernoulli_tensor", _bernoulli_fwd, "BernoulliBackward1"),
    ("exponential", _exponential_fwd, "ExponentialBackward0"),
    ("geometric", _geometric_fwd, "GeometricBackward0"),
    ("log_normal", _log_normal_fwd, "LogNormalBackward0"),
    ("cauchy", _cauchy_fwd, "CauchyBackward0"),
]}


def _apply(name: str, self: Tensor, *args, **kwargs) -> Tensor:
    inplace_check(self)
    rec = _RECORDS[name]
    return commit_inplace(self, rec.public(self, *args, **kwargs), rec)


def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    """Fill with samples from U[from, to)."""
    return _apply("uniform", self, from_, to, generator=generator)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with samples from N(mean, std**2)."""
    return _apply("normal", self, mean, std, generator=generator)


_UNSET = object()


def random_(self, from_=None, to=_UNSET, *, generator=None):
    """Fill with integers: ``random_()`` over the dtype's range, ``random_(to)`` from
    [0, to), ``random_(from, to)`` from [from, to) (``to=None``: up to the dtype's top)."""
    if to is _UNSET or (from_ is None and to is not None):
        if from_ is None and to in (_UNSET, None):
            return _apply("random", self, generator=generator)
        return _apply("random_to", self, 0, from_ if to in (_UNSET, None) else to,
                      generator=generator)
    return _apply("random_from_to", self, 0 if from_ is None else from_, to,
                  generator=generator)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 samples, 1 with probability ``p`` (a number or a tensor)."""
    if isinstance(p, Tensor):
        if not p._data.dtype.kind == "f" and self._data.dtype.kind == "f":
            p = p.to(self.dtype) if hasattr(p, "to") else p
        return _apply("bernoulli_tensor", self, p._data, generator=generator)
    return _apply("bernoulli_float", self, float(p), generator=generator)


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with samples from Exp(lambd)."""
    return _apply("exponential", self, lambd, generator=generator)


def geometric_(self, p, *, generator=None):
    """Fill with samples from Geometric(p) (number of trials to the first success)."""
    return _apply("geometric", self, p, generator=generator)


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with exp(N(mean, std**2)) samples."""
    return _apply("log_normal", self, mean, std, generator=generator)


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with Cauchy(median, sigma) samples."""
    return _apply("cauchy", self, median, sigma, generator=generator)


# PyTorch's overloads, for its parser's errors (``geometric_()``: 'missing 1 required
# positional arguments: "p"', not Python's text) before the functions above bind the arguments
_GEN = "*, torch.Generator? generator = None"
_SIGS = {
    "uniform_": (f"(float from = 0, float to = 1, {_GEN})",),
    "normal_": (f"(float mean = 0, float std = 1, {_GEN})",),
    "random_": (f"({_GEN})", f"(int from, int? to, {_GEN})", f"(int to, {_GEN})"),
    "bernoulli_": (f"(Tensor p, {_GEN})", f"(float p = 0.5, {_GEN})"),
    "exponential_": (f"(float lambd = 1, {_GEN})",),
    "geometric_": (f"(float p, {_GEN})",),
    "log_normal_": (f"(float mean = 1, float std = 2, {_GEN})",),
    "cauchy_": (f"(float median = 0, float sigma = 1, {_GEN})",),
}


def _parsed(fn):
    sigs = Signatures(fn.__name__, *_SIGS[fn.__name__])

    def checked(self, *args, **kwargs):
        sigs.parse(args, kwargs)
        if "from" in kwargs:
            kwargs["from_"] = kwargs.pop("from")
        return fn(self, *args, **kwargs)
    checked.__name__ = checked.__qualname__ = fn.__name__
    checked.__doc__ = fn.__doc__
    checked.__wrapped__ = fn   # (inspect.signature: the function's own)
    return checked


for _fn in (uniform_, normal_, random_, bernoulli_, exponential_, geometric_, log_normal_,
            cauchy_):
    bind_method(_fn.__name__, _parsed(_fn))   # through a lazy placeholder (ops/lazy.py)
del _fn, _dt
