"""Random numbers: ``manual_seed``, ``Generator``, ``rand``/``randn``/``randint``/...

The draws are PyTorch's, bit for bit: the same Mersenne Twister seeded the same way
(leafgrad/_mt19937.py) and the same per-distribution transforms as PyTorch 2.13's CPU
kernels (leafgrad/_distributions.py), so ``torch.manual_seed(0); torch.randn(3)``, an
``nn.Linear`` built after a seed, a dropout mask or a shuffled DataLoader give PyTorch's
numbers, and ``get_rng_state()`` is PyTorch's 5056-byte state. What is not reproduced:

* ``bernoulli_(p)`` with a number ``p`` (so dropout) follows PyTorch's serial kernel; on an
  Intel CPU, PyTorch with MKL uses MKL's own stream there instead (Note [bernoulli on Intel]
  in _distributions.py), so those masks match PyTorch on other CPUs only.
* ``poisson`` has PyTorch's distribution and messages but NumPy's draws (seeded from the
  generator, so still repeatable).
* ``nn.init.orthogonal_`` draws PyTorch's normals, but its QR comes from NumPy's LAPACK,
  so the result can differ from PyTorch's in the last float32 bit.
* ``random_(-2**63, None)`` on a float tensor (PyTorch's full 64-bit kernel) is not
  matched.
* A fresh process: PyTorch seeds its default generator from the OS, leafgrad from
  PyTorch's fixed ``Generator()`` seed; call ``manual_seed`` for PyTorch's numbers.

The in-place samplers (``uniform_``, ``normal_``, ``random_``, ``bernoulli_``,
``exponential_`` ...) bump the version counter like any in-place op and have a zero
gradient, as in PyTorch; ``nn.init`` is built on them.

>>> import leafgrad as torch
>>> _ = torch.manual_seed(0)
>>> torch.rand(3)
tensor([0.4963, 0.7682, 0.0885])
>>> _ = torch.manual_seed(0)
>>> torch.randn(3)
tensor([ 1.5410, -0.2934, -2.1788])
"""
from __future__ import annotations

import contextlib
import os

import numpy as np

from . import _distributions as _dist
from . import dtypes as _dt
from ._data import check_dtype_arg, size_arg
from ._mt19937 import DEFAULT_SEED, STATE_SIZE, Engine
from .factories import _finish, zeros_like as _zeros_like
from .ops.registry import defop
from .tensor import Tensor, _wrap, CPU

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "rand", "randn", "randint", "randperm", "normal",
           "bernoulli", "multinomial", "poisson", "rand_like", "randn_like", "randint_like"]


class Generator:
    """``torch.Generator``: a seedable source of random numbers (PyTorch's mt19937).

    >>> import leafgrad as torch
    >>> g = torch.Generator().manual_seed(42)
    >>> g.initial_seed()
    42
    >>> torch.rand(2, generator=g)
    tensor([0.8823, 0.9150])
    """

    def __init__(self, device="cpu"):
        from .tensor import check_device
        check_device(device)
        self._engine = Engine(DEFAULT_SEED)

    @property
    def device(self):
        return CPU

    def manual_seed(self, seed) -> "Generator":
        """Reset to ``seed`` (any int in [-2**63, 2**64); floats are truncated)."""
        seed = int(seed)
        if not -2 ** 63 <= seed < 2 ** 64:
            raise ValueError("Overflow when unpacking long long")
        self._engine.manual_seed(seed % 2 ** 64)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy and return the new seed (53 bits, as
        PyTorch's)."""
        new = int.from_bytes(os.urandom(8), "little") & ((1 << 53) - 1)
        self._engine.manual_seed(new)
        return new

    def initial_seed(self) -> int:
        return self._engine.seed

    def get_state(self) -> Tensor:
        """The state as PyTorch's uint8 tensor of 5056 bytes (restore it with ``set_state``;
        PyTorch's own ``get_rng_state()`` bytes load here too)."""
        return _wrap(np.frombuffer(self._engine.get_state(), dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor) -> "Generator":
        if not isinstance(new_state, Tensor):
            raise TypeError("expected a torch.ByteTensor, but got "
                            f"{type(new_state).__name__}")
        if new_state._data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(new_state._data).reshape(-1).tobytes()
        if len(raw) != STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but "
                               f"found the input RNG state size to be {len(raw)}")
        try:
            self._engine.set_state(raw)
        except ValueError:
            raise RuntimeError("Invalid mt19937 state") from None
        return self

    def clone_state(self) -> "Generator":
        """A new generator in the same state."""
        twin = Generator()
        twin._engine.copy_from(self._engine)
        return twin

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {hex(id(self))}>"


default_generator = Generator()


def manual_seed(seed) -> Generator:
    """Seed the default generator; returns it.

    >>> import leafgrad as torch
    >>> torch.manual_seed(3).initial_seed()
    3
    """
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """``torch.random.fork_rng``: run a block and put the default generator's state back
    afterwards (leafgrad has only the CPU generator, so ``devices`` has nothing to fork).

    >>> import leafgrad as torch
    >>> _ = torch.manual_seed(0)
    >>> with torch.random.fork_rng():
    ...     _ = torch.rand(5)
    >>> torch.rand(1)
    tensor([0.4963])
    """
    if not enabled:
        yield
        return
    saved = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(saved)


def _rng(generator, fname="") -> Engine:
    """The engine behind ``generator`` (the default one when None)."""
    if generator is None:
        return default_generator._engine
    if not isinstance(generator, Generator):
        raise TypeError(f"{fname}(): argument 'generator' must be torch.Generator, not "
                        f"{type(generator).__name__}")
    return generator._engine


def _type_name(np_dtype) -> str:
    return _dt.from_numpy_dtype(np.dtype(np_dtype)).tensor_type[:-6]   # "Float", "Long"


def _float_only(kernel: str, np_dtype) -> None:
    if np.dtype(np_dtype).kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(np_dtype)}'")


# -- samplers on NumPy arrays (shared by the factories and the in-place methods) -----
def _count(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _uniform(rng, shape, np_dtype, low=0.0, high=1.0) -> np.ndarray:
    """PyTorch's ``uniform_`` of a contiguous tensor."""
    return _dist.uniform(rng, _count(shape), np_dtype, low, high).reshape(shape)


def _normal(rng, shape, np_dtype, mean=0.0, std=1.0, contiguous=True) -> np.ndarray:
    """PyTorch's ``normal_`` (vectorised fill for >= 16 contiguous elements)."""
    return _dist.normal(rng, _count(shape), np_dtype, mean, std, contiguous).reshape(shape)


def _integers(rng, shape, np_dtype, low: int, high: int) -> np.ndarray:
    """PyTorch's ``random_(low, high)``: int64 draws cast to ``np_dtype``."""
    low, high = _representable_bounds(np_dtype, low, high)
    return _dist.random_from_to(rng, _count(shape), low, high).reshape(shape).astype(
        np_dtype, copy=False)


def _representable_bounds(np_dtype, low: int, high: int):
    """For a float dtype PyTorch first moves ``from`` up and ``to`` down to integers the
    dtype represents (``update_from`` / ``update_to``), which changes the range drawn."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.kind != "f":
        return low, high
    digits = np.finfo(np_dtype).nmant + 1
    with np.errstate(over="ignore"):
        low_up, high_down = np_dtype.type(low + 1), np_dtype.type(high - 1)
    if np.isfinite(low_up) and int(low_up) < low:
        low = int(low_up) + (1 << (abs(low + 1).bit_length() - 1 - digits + 1))
    if np.isfinite(high_down) and int(high_down) >= high:
        high = int(high_down) - (1 << (abs(high - 1).bit_length() - 1 - digits + 1))
    return low, high


def _uniform_array(shape, np_dtype, low, high, generator=None) -> np.ndarray:
    """``torch.empty(shape).uniform_(low, high)`` as an ndarray (for other modules)."""
    return _uniform(_rng(generator), shape, np_dtype, low, high)


def _check_random_range(low, high) -> None:
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")


# -- factories ------------------------------------------------------------------------
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False, **kwargs) -> Tensor:
    """Uniform samples from [0, 1) in the default float dtype.

    >>> import leafgrad as torch
    >>> torch.rand(2, 3).shape
    torch.Size([2, 3])
    """
    shape = size_arg("rand", size, keyword=kwargs)
    d = check_dtype_arg("rand", dtype) or _dt.get_default_dtype()
    _float_only("check_uniform_bounds", d.np)
    return _finish(_uniform(_rng(generator, "rand"), shape, d.np), requires_grad, device,
                   "rand", out, pin_memory)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, **kwargs) -> Tensor:
    """Standard normal samples in the default float dtype."""
    shape = size_arg("randn", size, keyword=kwargs)
    d = check_dtype_arg("randn", dtype) or _dt.get_default_dtype()
    _float_only("normal_kernel_cpu", d.np)
    return _finish(_normal(_rng(generator, "randn"), shape, d.np), requires_grad, device,
                   "randn", out, pin_memory)


def _int_arg(fname: str, name: str, pos: int, value) -> int:
    if isinstance(value, Tensor) and value._data.ndim == 0 and value._data.dtype.kind in "iu":
        return int(value._data)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be int, not "
                    f"{type(value).__name__}")


def randint(*args, size=None, low=None, high=None, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """Integers in ``[low, high)`` (``low`` defaults to 0), int64 unless ``dtype`` is given.

    >>> import leafgrad as torch
    >>> torch.randint(3, 7, (4,)).dtype
    torch.int64
    """
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list)):
        size = args.pop()
    if high is None and args:
        high = args.pop()
    if low is None and args:
        low = args.pop()
    if args or high is None or size is None:
        if high is not None and size is None and args == [] and low is None:
            pass
        if size is None and high is not None and low is not None \
                and isinstance(high, (int, np.integer)):
            raise TypeError("randint(): argument 'size' (position 2) must be tuple of ints, "
                            f"not {type(high).__name__}")
        raise TypeError("randint() received an invalid combination of arguments - expected "
                        "(int high, tuple of ints size) or (int low, int high, tuple of ints "
                        "size)")
    high = _int_arg("randint", "high", 2 if low is not None else 1, high)
    low = 0 if low is None else _int_arg("randint", "low", 1, low)
    shape = size_arg("randint", (size,), star=False)
    d = check_dtype_arg("randint", dtype) or _dt.int64
    _check_random_range(low, high)
    from ._random_inplace import _check_in_dtype_range   # (it imports this module)
    _check_in_dtype_range(low, high - 1, d.np)
    data = _integers(_rng(generator, "randint"), shape, d.np, low, high)
    return _finish(data, requires_grad, device, "randint", out, pin_memory)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64)."""
    n = _int_arg("randperm", "n", 1, n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    d = check_dtype_arg("randperm", dtype) or _dt.int64
    data = _dist.randperm(_rng(generator, "randperm"), n).astype(d.np, copy=False)
    return _finish(data, requires_grad, device, "randperm", out, pin_memory)


def _like(fname, input, dtype):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    d = check_dtype_arg(fname, dtype)
    return input._data.shape, (d.np if d is not None else input._data.dtype)


def _in_like_layout(input, draw):
    """``draw(n, contiguous)`` (n values in PyTorch's order) written into
    ``empty_like(input)`` (factories.like_layout) in memory order, as ``uniform_`` /
    ``normal_`` / ``random_`` walk it; ``contiguous``: PyTorch's is_contiguous() of that
    result (normal_'s vectorised fill)."""
    from .ops.iter_layout import _is_contiguous, like_strides   # (ops imports this module)
    shape = input._data.shape
    strides = like_strides(input._data)
    if strides is None:
        return draw(_count(shape), True).reshape(shape)
    flat = np.ascontiguousarray(draw(_count(shape), _is_contiguous(shape, strides)))
    return np.lib.stride_tricks.as_strided(flat, shape,
                                           tuple(st * flat.itemsize for st in strides))


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None) -> Tensor:
    """``rand`` with ``input``'s shape and dtype."""
    shape, np_dtype = _like("rand_like", input, dtype)
    _float_only("check_uniform_bounds", np_dtype)
    rng = _rng(generator)
    data = _in_like_layout(input, lambda n, c: _dist.uniform(rng, n, np_dtype, 0.0, 1.0))
    return _finish(data, requires_grad, device, "rand_like")


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None) -> Tensor:
    """``randn`` with ``input``'s shape and dtype."""
    shape, np_dtype = _like("randn_like", input, dtype)
    _float_only("normal_kernel_cpu", np_dtype)
    rng = _rng(generator)
    data = _in_like_layout(input, lambda n, c: _dist.normal(rng, n, np_dtype, 0.0, 1.0, c))
    return _finish(data, requires_grad, device, "randn_like")


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=None) -> Tensor:
    """``randint`` with ``input``'s shape and dtype: ``randint_like(x, high)`` or
    ``randint_like(x, low, high)``."""
    if high is None:
        low, high = 0, low
    shape, np_dtype = _like("randint_like", input, dtype)
    low, high = int(low), int(high)
    _check_random_range(low, high)
    from ._random_inplace import _check_in_dtype_range   # (it imports this module)
    _check_in_dtype_range(low, high - 1, np_dtype)
    rng = _rng(generator)
    data = _in_like_layout(input, lambda n, c: _integers(rng, (n,), np_dtype, low, high))
    return _finish(data, requires_grad, device, "randint_like")


# -- samplers that take tensors (a zero gradient flows to each input, as in PyTorch) -----
def _zero_grad(grad):
    return _zeros_like(grad)


def _normal_tt(mean, std, *, generator=None):
    # PyTorch: out = empty(broadcast shape, mean's dtype).normal_(0, 1).mul_(std).add_(mean)
    if std.size and not (std >= 0).all():   # (PyTorch: std.min().ge(0): NaN fails)
        raise RuntimeError(f"normal expects all elements of std >= 0.0")
    shape = np.broadcast_shapes(mean.shape, std.shape)
    if _count(shape):
        _float_only("normal_kernel_cpu", mean.dtype)
    else:   # (normal_ skips an empty tensor's kernel; mul_(std) still checks the cast)
        common = _dt.result_type(_wrap(mean[:0]), _wrap(std[:0])).np
        if not np.can_cast(common, mean.dtype, "same_kind") or (
                mean.dtype == np.bool_ and common != np.bool_):
            raise RuntimeError(f"result type {_type_name(common)} can't be cast to the "
                               f"desired output type {_type_name(mean.dtype)}")
        return np.empty(shape, mean.dtype)
    z = _normal(_rng(generator), shape, mean.dtype)
    return (z * std).astype(mean.dtype, copy=False) + mean


def _normal_tf(mean, std=1.0, *, generator=None):
    # PyTorch: out = empty_like(mean).normal_(0, std).add_(mean)
    if not mean.size:
        return np.empty(mean.shape, mean.dtype)
    return _normal(_rng(generator), mean.shape, mean.dtype, 0.0, std) + mean


def _normal_ft(std, mean=0.0, *, generator=None):
    # PyTorch: out = empty_like(std).normal_(0, 1).mul_(std).add_(full((), mean))
    if std.size and not (std >= 0).all():   # (PyTorch: std.min().ge(0): NaN fails)
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not std.size:
        return np.empty(std.shape, std.dtype)
    z = _normal(_rng(generator), std.shape, std.dtype) * std
    return z + np.asarray(mean, dtype=std.dtype)


def _bernoulli_t(self, *, generator=None):
    _float_only("bernoulli_tensor_cpu_p_", self.dtype)
    if self.size and not ((self >= 0) & (self <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    return _dist.bernoulli_tensor(_rng(generator), self).astype(self.dtype)


def _bernoulli_p(self, p, *, generator=None):
    _check_p("bernoulli", p)
    return _dist.bernoulli_scalar(_rng(generator), self.size, p).reshape(self.shape).astype(
        self.dtype)


def _check_p(fname, p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"{fname}_ expects p to be in [0, 1], but got p={_num(p)}")


def _num(v) -> str:
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


_NO_EXPORT = dict(methods=(), functions=(), dtype="same", family="random")
_NORMAL_TT = defop("normal_tensor_tensor", _normal_tt, inputs=("mean", "std"),
                   derivatives={"mean": _zero_grad, "std": _zero_grad},
                   grad_fn_name="NormalBackward3", **_NO_EXPORT)
_NORMAL_TF = defop("normal_tensor_float", _normal_tf, inputs=("mean",),
                   derivatives={"mean": _zero_grad}, grad_fn_name="NormalBackward1",
                   **_NO_EXPORT)
_NORMAL_FT = defop("normal_float_tensor", _normal_ft, inputs=("std",),
                   derivatives={"std": _zero_grad}, grad_fn_name="NormalBackward2",
                   **_NO_EXPORT)
_BERNOULLI = defop("bernoulli_tensor", _bernoulli_t, inputs=("self",),
                   derivatives={"self": _zero_grad}, grad_fn_name="BernoulliBackward0",
                   **_NO_EXPORT)
_BERNOULLI_P = defop("bernoulli_float", _bernoulli_p, inputs=("self",),
                     derivatives={"self": _zero_grad}, grad_fn_name="BernoulliBackward1",
                     **_NO_EXPORT)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None,
           layout=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """Normal samples: ``normal(mean, std, size)`` with numbers, or element-wise means / stds
    from tensors (broadcast together).

    >>> import leafgrad as torch
    >>> torch.normal(torch.zeros(3), 1.0).shape
    torch.Size([3])
    """
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            "(float, float), but expected (Tensor mean, Tensor std) or "
                            "(float mean, float std, tuple of ints size)")
        if not std >= 0:   # (NaN fails, as PyTorch's TORCH_CHECK(std >= 0.0))
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(float(std))}")
        shape = size_arg("normal", (size,), star=False)
        d = check_dtype_arg("normal", dtype) or _dt.get_default_dtype()
        if _count(shape):   # (an empty tensor's kernel is skipped, its dtype check too)
            _float_only("normal_kernel_cpu", d.np)
        data = _normal(_rng(generator, "normal"), shape, d.np, float(mean), float(std))
        return _finish(data, requires_grad, device, "normal", out, pin_memory)
    if mean_t and std_t:
        return _NORMAL_TT.public(mean, std, generator=generator)
    if mean_t:
        if not std >= 0:   # (NaN fails, as PyTorch's TORCH_CHECK(std >= 0.0))
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(float(std))}")
        if mean._data.size:
            _float_only("normal_kernel_cpu", mean._data.dtype)
        return _NORMAL_TF.public(mean, float(std), generator=generator)
    if std._data.size:
        _float_only("normal_kernel_cpu", std._data.dtype)
    return _NORMAL_FT.public(std, float(mean), generator=generator)


def bernoulli(input, p=None, *, generator=None, out=None) -> Tensor:
    """0/1 samples with probabilities ``input`` (or the number ``p``), in ``input``'s dtype."""
    if p is None:
        return _BERNOULLI.public(input, generator=generator)
    return _BERNOULLI_P.public(input, float(p), generator=generator)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None) -> Tensor:
    """Indices drawn from the rows of ``input`` (unnormalised probabilities), int64.

    >>> import leafgrad as torch
    >>> torch.multinomial(torch.tensor([0.0, 1.0]), 2, replacement=True).tolist()
    [1, 1]
    """
    probs = input._data
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    _float_only("multinomial", probs.dtype)
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = probs.shape[-1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    rows = probs.reshape(-1, n_cat).astype(np.float64)
    if not np.isfinite(rows).all() or (rows < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    sums = rows.sum(axis=1)
    if (sums <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rows = probs.reshape(-1, n_cat)
    data = _dist.multinomial(_rng(generator, "multinomial"), rows, num_samples, replacement)
    return _wrap(data.reshape(probs.shape[:-1] + (num_samples,)))


def poisson(input, generator=None) -> Tensor:
    """Poisson samples with rates ``input``, in ``input``'s dtype."""
    _float_only("poisson_cpu", input._data.dtype)
    if not (input._data >= 0).all():   # (a NaN rate too: PyTorch checks lambda >= 0)
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    # PyTorch's poisson kernel (rejection sampling) is not reproduced: NumPy draws, seeded
    # from the generator so that manual_seed still makes it repeatable.
    seed = int(_rng(generator).random64(1)[0])
    draws = np.random.default_rng(seed).poisson(input._data)
    return _wrap(draws.astype(input._data.dtype))


# Tensor.uniform_, normal_, ... (_random_inplace.py) load on first use: ops/lazy.py LAZY
