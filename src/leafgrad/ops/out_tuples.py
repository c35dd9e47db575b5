"""``out=(values, indices)`` for the functions that return two tensors: max/min along a dim,
sort, topk, kthvalue, mode, median/nanmedian along a dim, cummax/cummin, aminmax.

PyTorch refuses ``out`` when autograd would need a graph, checks each output's dtype (exactly
the result's: no casting; every op words it its own way), resizes an output of another
shape (warning unless it was empty), writes into the given tensors and returns them as
``torch.return_types.<name>_out``. Only ``torch.<name>`` takes ``out=``; the methods don't.

>>> import leafgrad as torch
>>> v, i = torch.empty(2), torch.empty(2, dtype=torch.long)
>>> r = torch.max(torch.tensor([[1.0, 5.0], [7.0, 2.0]]), 1, out=(v, i))
>>> r.values is v, v, i
(True, tensor([5., 7.]), tensor([1, 0]))
"""
from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np

from .. import dtypes as _dt, return_types
from ..grad_mode import state as _mode
from ..tensor import Tensor, bump_version
# out_variants wraps torch.matmul & co. when imported, so only once the ops exist: imported
# where an out= call needs it

__all__: list = []

_CPP = {"float16": "c10::Half", "float32": "float", "float64": "double", "int8": "signed char",
        "int16": "short int", "int32": "int", "int64": "long int", "uint8": "unsigned char",
        "bool": "bool", "complex64": "c10::complex<float>",
        "complex128": "c10::complex<double>"}


def _type(np_dtype) -> str:
    """PyTorch's scalar type name: Float, Long..."""
    return _dt.from_numpy_dtype(np_dtype).tensor_type.rsplit(".", 1)[-1][:-len("Tensor")]


def _expected_out(want, got, what):
    return (f"Expected out tensor to have dtype {_CPP[want.name]}, but got {_CPP[got.name]} "
            "instead")


def _kthvalue(want, got, what):
    return ("output values must be of same type as input" if what == "values"
            else "output indices must be of scalar type Long")


def _mode_message(want, got, what):
    return f"expected scalar type '{_type(want)}' but got '{_type(got)}' for {what} output"


def _median(want, got, what):
    if what == "indices":
        return (f"Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                f"torch.{_type(got)}Tensor instead (while checking arguments for median)")
    return (f"Expected tensor for 'values' to have the same type as tensor for argument #2 "
            f"'self'; but type torch.{_type(got)}Tensor does not equal "
            f"torch.{_type(want)}Tensor (while checking arguments for median)")


def _cumulative(want, got, what):
    return f"expected scalar_type {_type(want)} but found {_type(got)}"


# name: (the position of ``out`` in PyTorch's signature, the dtype message, indices first)
_OPS = {
    "max": (3, _expected_out, False), "min": (3, _expected_out, False),
    "sort": (3, _expected_out, False), "topk": (5, _expected_out, False),
    "kthvalue": (4, _kthvalue, False), "mode": (3, _mode_message, False),
    "median": (3, _median, True), "nanmedian": (3, _median, True),
    "cummax": (2, _cumulative, False), "cummin": (2, _cumulative, False),
    "aminmax": (3, _expected_out, False),
}


def _out_type(name):
    cls = getattr(return_types, name + "_out", None)
    if cls is None:
        cls = return_types._make(name + "_out", getattr(return_types, name)._fields)
        setattr(return_types, name + "_out", cls)
    return cls


def _got(args, kwargs, out) -> str:
    """The ``got (...)`` of PyTorch's argument-parser message."""
    names = {Tensor: "Tensor", bool: "bool", int: "int", float: "float"}
    parts = [names.get(type(a), type(a).__name__) for a in args]
    parts.append(f"out={names.get(type(out), type(out).__name__)}")
    # (the parser lists out= first, then the other keywords last-first)
    parts += [f"{k}={names.get(type(v), type(v).__name__)}" for k, v in reversed(kwargs.items())]
    return ", ".join(parts)


_SORT_SIGNATURES = (
    " * (Tensor input, *, bool stable, int dim = -1, bool descending = False, tuple of Tensors "
    "out = None)\n * (Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors "
    "out = None)\n")


def write_tuple(name: str, out, fn, args: tuple, kwargs: dict):
    """``fn(*args, **kwargs)`` (a pair of tensors) written into the pair ``out``."""
    from .out_variants import _RESIZED, _inputs_require_grad
    position, message, indices_first = _OPS[name]
    if name == "sort" and "stable" in kwargs:
        position = 4     # the overload (input, *, stable, dim, descending, out)
    if name in ("median", "nanmedian") and len(args) < 2 and "dim" not in kwargs:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    if name == "sort" and not isinstance(out, (tuple, list)):
        raise TypeError(f"sort() received an invalid combination of arguments - got "
                        f"({_got(args, kwargs, out)}), but expected one of:\n" + _SORT_SIGNATURES)
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                        f"{type(out).__name__}")
    if len(out) != 2:
        raise TypeError(f"expected tuple of 2 elements but got {len(out)}")
    for i, o in enumerate(out):
        if not isinstance(o, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {position}, but got "
                            f"{type(o).__name__}")
    if _mode.grad_enabled and (_inputs_require_grad(args) or _inputs_require_grad(out)
                              or _inputs_require_grad(kwargs.values())):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires "
                           "grad.")
    result = fn(*args, **kwargs)
    fields = type(result)._fields
    order = (1, 0) if indices_first else (0, 1)
    for k in order:
        want, got = result[k]._data.dtype, out[k]._data.dtype
        if want != got:
            what = "indices" if fields[k] == "indices" else "values"
            raise RuntimeError(message(want, got, what))
    kept = _kept_dim(name, fn, args, kwargs)
    for o, r in zip(out, result):
        data = r._data
        if o._data.shape == data.shape:
            np.copyto(o._data, data)
        else:
            if o._data.size:
                old, new = list(o._data.shape), list(data.shape)
                if kept is not None:
                    # kthvalue/mode resize a keepdim result: an output one dim short gets
                    # the dim back first (and loses it after)
                    new.insert(kept, 1)
                    if len(old) == len(new) - 1:
                        old.insert(kept, 1)
                # stacklevel 3: here, the wrapper, the user's line
                warnings.warn(_RESIZED.format(old=old, new=new), UserWarning, stacklevel=3)
            o._data = np.array(data, copy=True)
        bump_version(o)
    return _out_type(name)(tuple(out))


def _kept_dim(name, fn, args, kwargs):
    """kthvalue/mode without keepdim: the reduced dim, which they resize with (else None)."""
    if name not in ("kthvalue", "mode"):
        return None
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    a = bound.arguments
    ndim = a["input"].dim()
    if a["keepdim"] or not ndim:
        return None
    return a["dim"] % ndim


def tuple_out(name: str, fn):
    """``torch.<name>``: ``fn`` with ``out=(values, indices)``."""
    @functools.wraps(fn)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        return write_tuple(name, out, fn, args, kwargs)
    return with_out


def extreme_out(name: str, fn):
    """``torch.max`` / ``torch.min``: a tensor ``out`` for the full reduction and the
    elementwise form, a pair along a dim."""
    @functools.wraps(fn)
    def with_out(input, *args, out=None, **kwargs):
        if out is None:
            return fn(input, *args, **kwargs)
        dim = args[0] if args else kwargs.get("dim")
        if dim is None or isinstance(dim, Tensor):
            from .out_variants import write_out
            return write_out(name, out, fn, (input,) + args, kwargs)
        if isinstance(out, Tensor) and len(args) < 2 and "keepdim" not in kwargs:
            # (with keepdim only the dim overload matches: write_tuple's message)
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got "
                f"({_got((input,) + args, kwargs, out)}), but expected one of:\n"
                " * (Tensor input, *, Tensor out = None)\n"
                "      didn't match because some of the keywords were incorrect: out\n"
                " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                " * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = "
                "None)\n")
        return write_tuple(name, out, fn, (input,) + args, kwargs)
    return with_out
