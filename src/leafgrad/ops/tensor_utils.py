"""Small utilities PyTorch code uses constantly: ``finfo`` / ``iinfo``, thread-count no-ops,
``typename``, ``is_signed``, ``count_nonzero``, the Tensor methods that mirror ``torch.*``
queries (``allclose``, ``isclose``, ``equal``, ...), ``torch.exp_``-style in-place functions
and the in-place views ``squeeze_`` / ``unsqueeze_`` / ``t_`` / ``transpose_``.

>>> import leafgrad as torch
>>> torch.finfo(torch.float32).eps
1.1920928955078125e-07
>>> torch.tensor([[0, 1], [2, 0]]).count_nonzero(0)
tensor([1, 1])
"""
from __future__ import annotations

import os

import numpy as np

from .. import dtypes as _dt
from .. import functions as _fn
from ..autograd.reduce_grad import note_reshaped
from ..grad_mode import state as _mode
from ..tensor import Tensor, bump_version
from .iter_layout import RED
from .reduction import _dims
from .registry import Sample, bind_method, defop, export_function, inplace_check

__all__ = ["finfo", "iinfo", "typename", "is_signed", "is_inference", "set_num_threads",
           "get_num_threads", "get_num_interop_threads", "set_num_interop_threads"]

FAMILY = "tensor_utils"


# -- finfo / iinfo ---------------------------------------------------------------------------
def _g(value) -> str:
    return f"{value:g}"


class finfo:
    """Machine limits of a floating dtype, as ``torch.finfo``.

    >>> import leafgrad as torch
    >>> torch.finfo(torch.float16)
    finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)
    """

    def __init__(self, type=None):
        d = _dt.get_default_dtype() if type is None else type
        if not isinstance(d, _dt.dtype) or not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        info = np.finfo(d.np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = d.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, "
                f"max={_g(self.max)}, eps={_g(self.eps)}, "
                f"smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, "
                f"dtype={self.dtype})")

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))


class iinfo:
    """Limits of an integer dtype, as ``torch.iinfo``.

    >>> import leafgrad as torch
    >>> torch.iinfo(torch.uint8).max
    255
    """

    def __init__(self, type):
        if not isinstance(type, _dt.dtype) or type.np.kind not in "iu":
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = type.name

    def __repr__(self) -> str:
        return f"iinfo(min={_g(float(self.min))}, max={_g(float(self.max))}, dtype={self.dtype})"

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))


# -- threads: NumPy decides, so these only remember what was asked ----------------------------
def _usable_cpus() -> int:
    """PyTorch's default intra-op thread count is the machine's cores (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


_THREADS = {"intra": _usable_cpus(), "inter": 1}


def set_num_threads(int) -> None:
    """Accepted and remembered; leafgrad's NumPy kernels choose their own threading."""
    if not isinstance(int, (builtins_int, np.integer)) or isinstance(int, bool):
        raise TypeError(f"set_num_threads(): argument 'int' (position 1) must be int, not "
                        f"{type(int).__name__}")
    if int <= 0:
        raise RuntimeError("Number of threads must be positive")
    _THREADS["intra"] = builtins_int(int)


def get_num_threads() -> int:
    """The number given to ``set_num_threads`` (the usable CPUs until then, as PyTorch)."""
    return _THREADS["intra"]


def set_num_interop_threads(int) -> None:
    """Accepted and remembered (PyTorch allows it once, before any parallel work)."""
    if int <= 0:
        raise RuntimeError("Number of threads must be positive")
    _THREADS["inter"] = builtins_int(int)


def get_num_interop_threads() -> int:
    return _THREADS["inter"]


builtins_int = int   # the parameter above is named ``int``, as in PyTorch


def typename(obj) -> str:
    """``'torch.FloatTensor'`` for a tensor, else the object's qualified class name."""
    if isinstance(obj, Tensor):
        return "torch." + obj.dtype.tensor_type
    module = getattr(type(obj), "__module__", "") or ""
    name = type(obj).__qualname__
    if module in ("", "builtins"):
        return name
    if module.startswith("leafgrad"):
        module = "torch" + module[len("leafgrad"):]
    return f"{module}.{name}"


def _tensor_arg(fn, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(value).__name__}")


def is_signed(input) -> bool:
    """Whether the dtype holds negative numbers (False for uint8 and bool)."""
    _tensor_arg("is_signed", input)
    return input.dtype.is_signed


def is_inference(input) -> bool:
    """Whether ``input`` was made in inference mode."""
    _tensor_arg("is_inference", input)
    return input.is_inference()


# -- count_nonzero ---------------------------------------------------------------------------
def count_nonzero(self, dim=None):
    """How many elements are not zero, over ``dim`` (an int, a tuple, or all)."""
    axis = _dims(dim, self.ndim) if dim is not None else None
    return np.asarray(np.count_nonzero(self, axis=axis), dtype=np.int64)


def _count_nonzero_samples(make, shapes):
    ints = make(shapes[1], -1, 2, np.int64)
    out = [Sample((ints,)), Sample((np.where(make(shapes[2]) > 0, make(shapes[2]), 0.0),),
                                   grad=False)]
    if len(shapes[1]):
        out.append(Sample((ints, 0), call="Tensor.count_nonzero"))
        out.append(Sample((ints,), {"dim": tuple(range(len(shapes[1])))}))
    return out


defop("count_nonzero", count_nonzero, layout=RED, dtype="same", family=FAMILY,
      samples=_count_nonzero_samples)


# -- Tensor methods that mirror torch.* functions ------------------------------------------
for _name in ("allclose", "isclose", "equal", "is_nonzero", "is_same_size"):
    bind_method(_name, getattr(_fn, _name))
bind_method("is_signed", is_signed)


def _itemsize(self) -> int:
    return self._data.itemsize


def _nbytes(self) -> int:
    return self._data.size * self._data.itemsize


Tensor.itemsize = property(_itemsize, doc="Bytes per element.")
Tensor.nbytes = property(_nbytes, doc="Bytes the elements take (numel * itemsize).")


# -- torch.exp_(x) and friends: the function spelling of Tensor's in-place ops -------------
_INPLACE_FUNCTIONS = (
    "abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ "
    "asinh_ atan_ atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ detach_ "
    "erf_ erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ gcd_ i0_ index_put_ lcm_ ldexp_ "
    "log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ relu_ "
    "round_ rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ zero_"
).split()


def export_inplace_functions() -> None:
    """Export ``torch.<name>_`` for every in-place method Tensor has (call after all the
    families have bound theirs)."""
    for name in _INPLACE_FUNCTIONS:
        method = getattr(Tensor, name, None)
        if method is not None:
            export_function(name, method)


# -- in-place views: squeeze_, unsqueeze_, t_, transpose_ ------------------------------------
def _inplace_view(name, rec_name, grad_fn_name, public_name):
    """``self`` itself becomes the view ``self.<public_name>(...)``: same storage, a new
    shape and strides, and (with history) a ``<Name>Backward1`` node."""
    from .registry import RECORDS
    src = RECORDS[rec_name]
    rec = defop(name, src.forward, derivatives={"self": src.formulas[0].fn}, dtype="same",
                grad_fn_name=grad_fn_name, methods=(), functions=(), family=FAMILY)

    def inplace(self, *args):
        inplace_check(self, metadata_only=True)   # (a zero tensor may change its shape)
        try:
            getattr(self, public_name)(*args)   # PyTorch's argument errors, before any change
        except RuntimeError as e:
            raise RuntimeError(str(e).replace(f"{public_name}()", f"{name}()", 1)) from None
        out = rec.public(self, *args) if (_mode.grad_enabled and self._requires_grad) \
            else None
        if out is None and self._grad_fn is not None:
            note_reshaped(self)   # its node keeps the old shape (Note [Reshaped outputs])
        self._data = out._data if out is not None else np.asanyarray(src.forward(self._data, *args))
        if out is not None and out._grad_fn is not None:
            self._grad_fn = out._grad_fn
            self._output_nr = 0
        bump_version(self)
        if out is not None and out._grad_fn is not None and self._base is not None:
            self._view_version = self._vc[0]   # its node is current: no regenerated AsStrided
        return self
    inplace.__name__ = inplace.__qualname__ = name
    inplace.__doc__ = f"In-place version of :meth:`{public_name}` (changes the shape)."
    bind_method(name, inplace)


def _squeeze_(self, dim=None):
    """In-place ``squeeze``: all size-1 dims, one ``dim``, or a tuple of dims."""
    if dim is None:
        return Tensor._squeeze0_(self)
    if isinstance(dim, (tuple, list)):
        return Tensor._squeeze2_(self, tuple(dim))
    return Tensor._squeeze1_(self, dim)


_inplace_view("unsqueeze_", "unsqueeze", "UnsqueezeBackward1", "unsqueeze")
_inplace_view("transpose_", "transpose", "TransposeBackward1", "transpose")
_inplace_view("t_", "t", "TBackward1", "t")
_inplace_view("_squeeze0_", "squeeze", "SqueezeBackward3", "squeeze")
_inplace_view("_squeeze1_", "squeeze_dim", "SqueezeBackward4", "squeeze")
_inplace_view("_squeeze2_", "squeeze_dims", "SqueezeBackward5", "squeeze")
bind_method("squeeze_", _squeeze_)
for _alias in ("swapaxes_", "swapdims_"):   # PyTorch's aliases of transpose_ (its node too)
    bind_method(_alias, Tensor.transpose_)

for _name in __all__ + ["count_nonzero"]:
    if _name != "count_nonzero":
        export_function(_name, globals()[_name])

export_inplace_functions()   # this module is imported last (ops/__init__.py)
