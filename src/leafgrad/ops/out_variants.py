"""``out=`` for the torch functions tutorials call with it (``torch.matmul(a, b, out=y)``).

PyTorch's out= variants compute the result, check it can be cast to ``out``'s dtype, resize
``out`` when the shapes differ (warning unless ``out`` was empty), write into it and return
it. They do not record a graph, so an input that requires grad (with grad mode on) is refused.
Only the functions listed in ``_NAMES`` take ``out=``; without ``out`` the call goes straight
to the op (Note [out= in the signature]).

>>> import leafgrad as torch
>>> y = torch.empty(2)
>>> torch.mul(torch.tensor([1.0, 2.0]), 3, out=y) is y, y
(True, tensor([3., 6.]))
"""
from __future__ import annotations

import types
import warnings

import numpy as np

from .. import dtypes as _dt
from .._zerotensor import check_mutable
from ..grad_mode import state as _mode
from ..tensor import Tensor, bump_version
from . import registry
from .registry import FUNCTIONS

__all__: list = []

_NAMES = ("add", "sub", "mul", "div", "matmul", "mm", "bmm", "cat", "stack")

_RESIZED = (
    "An output with one or more elements was resized since it had shape {old}, which does not "
    "match the required output shape {new}. This behavior is deprecated, and in a future "
    "PyTorch release outputs will not be resized unless they have zero elements. You can "
    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0). (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)")


def _type_name(np_dtype) -> str:
    return _dt.from_numpy_dtype(np_dtype).tensor_type.rsplit(".", 1)[-1][:-len("Tensor")]


def _can_cast(src, dst) -> bool:
    """PyTorch's canCast: no complex -> real, float -> integer, or non-bool -> bool."""
    if src.kind == "c" and dst.kind != "c":
        return False
    if src.kind in "fc" and dst.kind in "iub":
        return False
    return not (src.kind != "b" and dst.kind == "b")


def _inputs_require_grad(args) -> bool:
    for a in args:
        if isinstance(a, Tensor) and a.requires_grad:
            return True
        if isinstance(a, (list, tuple)) and _inputs_require_grad(a):
            return True
    return False


def write_out(name: str, out, fn, args: tuple, kwargs: dict):
    """``fn(*args, **kwargs)`` written into ``out``, as PyTorch's out= variants do."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not "
                        f"{type(out).__name__}")
    if _mode.grad_enabled and (_inputs_require_grad(args)
                              or _inputs_require_grad(kwargs.values())):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires "
                           "grad.")
    if type(out._data) is not np.ndarray:
        check_mutable(out)   # a zero tensor (Note [Zero tensors] in _zerotensor.py)
    data = fn(*args, **kwargs)._data
    if not _can_cast(data.dtype, out._data.dtype):
        raise RuntimeError(f"result type {_type_name(data.dtype)} can't be cast to the "
                           f"desired output type {_type_name(out._data.dtype)}")
    if out._data.shape == data.shape:
        np.copyto(out._data, data, casting="unsafe")
    else:
        if out._data.size:
            # stacklevel 3: this function, the public function, the user's line
            warnings.warn(_RESIZED.format(old=list(out._data.shape),
                                          new=list(data.shape)), UserWarning, stacklevel=3)
        out._data = data.astype(out._data.dtype)
    bump_version(out)   # an in-place write like any other: version notes name this line
    return out


# Note [out= in the signature]
# A wrapper ``(*args, out=None, **kwargs)`` cost every call of torch.add & co. a tuple, a dict
# and a second call (~0.26 us), out= or not. Instead each function here is replaced by one
# with its own signature plus ``out=None``, compiled from a template like the registry's public
# functions (Note [Cheap defop] in public_fn.py): without ``out`` it runs what the function
# ran, ``_dispatch(_rec, (...))`` for a record's public function (no extra frame) or the
# function itself for the public wrappers (div, matmul, cat...), so the check is one
# ``is None`` test. The methods (``Tensor.add``) stay as they were: PyTorch's take no out=.
_OUT_TEMPLATES: dict = {}


# The four shapes the functions above need, written out so that their code comes from this
# module's cached bytecode instead of a compile() at import (as ops/_templates.py does for
# the registry); _out_template compiles any other shape. tests/test_out_variants.py checks
# each equals what _out_template compiles.
def _direct_2_0(p0, p1, *, out=None):
    if out is None:
        return _dispatch(_rec, (p0, p1))
    return _write_out(_name, out, _fn, (p0, p1), {})


def _direct_2_1(p0, p1, *, p2, out=None):
    if out is None:
        return _dispatch(_rec, (p0, p1, p2))
    return _write_out(_name, out, _fn, (p0, p1), {_KW[0]: p2})


def _flat_2_0(p0, p1, *, out=None):
    if out is None:
        return _fn_flat(p0, p1)
    return _write_out(_name, out, _fn, (p0, p1), {})


def _flat_2_1(p0, p1, *, p2, out=None):
    if out is None:
        return _fn_flat(p0, p1, p2)
    return _write_out(_name, out, _fn, (p0, p1), {_KW[0]: p2})


_WRITTEN = {(2, 0, True): _direct_2_0, (2, 1, True): _direct_2_1, (2, 0, False): _flat_2_0,
            (2, 1, False): _flat_2_1}


def _written_template(key) -> types.CodeType | None:
    fn = _WRITTEN.get(key)
    if fn is None:
        return None
    return fn.__code__.replace(co_filename=registry._TEMPLATE_FILE, co_name="f",
                               co_firstlineno=1, **registry._qualname("f"))


def _out_template(n_pos: int, n_kwonly: int, direct: bool,
                  compiled: bool = False) -> types.CodeType:
    """``def f(p0, .., *, k0, .., out=None)``: ``_dispatch(_rec, (p0, .., k0, ..))`` when
    ``direct`` (a record's public function), else ``_fn_flat(p0, .., k0, ..)`` (the function,
    its keyword-only parameters made positional: the names in a call's keywords are not
    renamed with the parameters); with ``out``, ``_write_out(_name, out, _fn, (p0, ..),
    {'<name of k0>': k0, ..})``."""
    key = (n_pos, n_kwonly, direct)
    code = _OUT_TEMPLATES.get(key)
    if code is None and not compiled:
        code = _written_template(key)
    if code is not None:
        _OUT_TEMPLATES[key] = code
        return code
    names = [f"p{i}" for i in range(n_pos + n_kwonly)]
    pos, kw = names[:n_pos], names[n_pos:]
    params = ", ".join(pos + ["*"] + kw + ["out=None"])
    packed = ", ".join(names) + ("," if len(names) == 1 else "")
    pos_tuple = ", ".join(pos) + ("," if len(pos) == 1 else "")
    call = f"_dispatch(_rec, ({packed}))" if direct else f"_fn_flat({', '.join(names)})"
    kwargs = "{" + ", ".join(f"_KW[{i}]: {k}" for i, k in enumerate(kw)) + "}"
    src = (f"def f({params}):\n"
           f"    if out is None:\n"
           f"        return {call}\n"
           f"    return _write_out(_name, out, _fn, ({pos_tuple}), {kwargs})\n")
    module = compile(src, registry._TEMPLATE_FILE, "exec")
    code = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    if not compiled:
        _OUT_TEMPLATES[key] = code
    return code


def with_out(name: str, fn):
    """``fn`` with an ``out=`` keyword (see Note [out= in the signature])."""
    code = fn.__code__
    n_pos, n_kw = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames[:n_pos + n_kw]
    kwdefaults = dict(fn.__kwdefaults__ or {})
    if n_kw and names[-1] == "out":   # cat/stack list out= already, and ignore it
        names, n_kw = names[:-1], n_kw - 1
        kwdefaults.pop("out", None)
    env = fn.__globals__
    direct = code.co_filename == registry._TEMPLATE_FILE and "_rec" in env
    template = _out_template(n_pos, n_kw, direct)
    new_env = {"__builtins__": env["__builtins__"], "_fn": fn, "_name": name,
               "_write_out": write_out, "_KW": names[n_pos:]}
    if direct:
        new_env["_dispatch"], new_env["_rec"] = env["_dispatch"], env["_rec"]
    else:
        flat = types.FunctionType(
            code.replace(co_argcount=n_pos + n_kw,
                         co_kwonlyargcount=code.co_kwonlyargcount - n_kw),
            env, fn.__name__, None, fn.__closure__)
        if n_kw < code.co_kwonlyargcount:
            flat.__kwdefaults__ = {"out": None}   # cat/stack's own (ignored) out
        new_env["_fn_flat"] = flat
    new = types.FunctionType(
        template.replace(co_varnames=names + ("out",) + template.co_varnames[len(names) + 1:],
                         co_name=fn.__name__, **registry._qualname(fn.__qualname__)),
        new_env, fn.__name__, fn.__defaults__)
    kwdefaults["out"] = None
    new.__kwdefaults__ = kwdefaults
    new.__doc__ = fn.__doc__
    new.__module__ = fn.__module__
    return new


for _name in _NAMES:
    FUNCTIONS[_name] = with_out(_name, FUNCTIONS[_name])
