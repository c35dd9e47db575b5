"""PyTorch's Python argument parser, for its errors: which overload a call matches, and the
``TypeError`` text when none does (torch/csrc/utils/python_arg_parser.cpp and
invalid_arguments.cpp). An overload is given as PyTorch prints it in "expected one of"
(``"(int dim = -1, bool descending = False)"``), a ``?`` after a type marking a nullable
parameter (``bool? stable``: None accepted, printed ``bool stable``).

>>> from leafgrad._argparse import Signatures
>>> s = Signatures("geometric_", "(float p, *, torch.Generator? generator = None)")
>>> s.parse((), {})
Traceback (most recent call last):
TypeError: geometric_() missing 1 required positional arguments: "p"
"""
from __future__ import annotations

import numpy as np

__all__ = ["Signatures"]

_MISSING = object()
_NUMPY_NAMES = {"dim": "axis", "keepdim": "keepdims"}   # (PyTorch's numpy_python_names)


class _Param:
    __slots__ = ("type", "name", "optional", "allow_none", "kw_only")

    def __init__(self, text, kw_only):
        decl, _, default = text.partition(" = ")
        self.type, _, self.name = decl.rpartition(" ")
        nullable = self.type.endswith("?")
        self.type = self.type.rstrip("?")
        self.optional = bool(default)
        self.allow_none = nullable or default == "None"
        self.kw_only = kw_only


class _Signature:
    def __init__(self, name, spec):
        self.name = name
        self.params = []
        kw_only = False
        for part in spec[1:-1].split(", ") if spec != "()" else ():
            if part == "*":
                kw_only = True
                continue
            self.params.append(_Param(part, kw_only))
        self.text = spec.replace("? ", " ")
        self.min_args = sum(1 for p in self.params if not p.optional)
        self.max_args = len(self.params)
        self.max_pos = sum(1 for p in self.params if not p.kw_only)

    def parse(self, args, kwargs, raising):
        nargs = len(args)
        if nargs > self.max_pos:
            if raising:
                raise self._extra_args(nargs)
            return False
        remaining = len(kwargs)
        pos = 0
        for i, p in enumerate(self.params):
            is_kwd = False
            if pos < nargs:
                if p.kw_only:
                    if raising:
                        raise self._extra_args(nargs)
                    return False
                obj = args[pos]
            else:
                obj = kwargs.get(p.name, _MISSING)
                if obj is _MISSING and p.name in _NUMPY_NAMES:
                    obj = kwargs.get(_NUMPY_NAMES[p.name], _MISSING)
                is_kwd = True
            if (obj is _MISSING and p.optional) or (obj is None and p.allow_none):
                pass
            elif obj is _MISSING:
                if raising:
                    raise self._missing(i)
                return False
            elif not _check(p.type, obj):
                if not raising:
                    return False
                if is_kwd:
                    raise TypeError(f"{self.name}(): argument '{p.name}' must be {p.type}, not "
                                    f"{_typename(obj)}")
                raise TypeError(f"{self.name}(): argument '{p.name}' (position {pos + 1}) must "
                                f"be {p.type}, not {_typename(obj)}")
            if not is_kwd:
                pos += 1
            elif obj is not _MISSING:
                remaining -= 1
        if remaining > 0:
            if raising:
                names = [p.name for p in self.params]
                for key in kwargs:
                    if key not in names:
                        raise TypeError(f"{self.name}() got an unexpected keyword argument "
                                        f"'{key}'")
                    if names.index(key) < nargs:
                        raise TypeError(f"{self.name}() got multiple values for argument "
                                        f"'{key}'")
                raise TypeError("invalid keyword arguments")
            return False
        return True

    def _extra_args(self, nargs):
        lo, hi = self.min_args, self.max_pos
        if lo != hi:
            return TypeError(f"{self.name}() takes from {lo} to {hi} positional arguments but "
                             f"{nargs} were given")
        return TypeError(f"{self.name}() takes {hi} positional argument{'' if hi == 1 else 's'} "
                         f"but {nargs} {'was' if nargs == 1 else 'were'} given")

    def _missing(self, idx):
        names = [f'"{p.name}"' for p in self.params[idx:] if not p.optional]
        # (PyTorch's plural is the other way round)
        return TypeError(f"{self.name}() missing {len(names)} required positional "
                         f"argument{'s' if len(names) == 1 else ''}: {', '.join(names)}")


class Signatures:
    """A function's or method's overloads, in the order PyTorch prints them (a method's
    leave ``self`` out)."""

    def __init__(self, name, *specs):
        self.name = name
        self.sigs = [_Signature(name, s) for s in specs]

    def parse(self, args, kwargs) -> int:
        """The index of the first overload ``args``/``kwargs`` match; else PyTorch's error."""
        sigs = self.sigs
        if len(sigs) == 1:
            sigs[0].parse(args, kwargs, True)
            return 0
        for i, s in enumerate(sigs):
            if s.parse(args, kwargs, False):
                return i
        n = len(args) + len(kwargs)
        plausible = [s for s in sigs if s.min_args <= n <= s.max_args]
        if len(plausible) == 1:
            plausible[0].parse(args, kwargs, True)
        raise TypeError(_invalid_args(args, kwargs, self.name + "()", [s.text for s in sigs]))


def _check(type_, obj) -> bool:
    from .tensor import Tensor
    if type_ == "Tensor":
        return isinstance(obj, Tensor)
    if type_ == "int":
        if isinstance(obj, (bool, np.bool_)):
            return False
        if isinstance(obj, (int, np.integer)):
            return True
        return isinstance(obj, Tensor) and obj._data.ndim == 0 and obj._data.dtype.kind in "iu"
    if type_ == "float":
        if isinstance(obj, (int, float, np.integer, np.floating)):
            return True
        return isinstance(obj, Tensor) and obj._data.ndim == 0 and not obj._requires_grad
    if type_ == "bool":
        return isinstance(obj, (bool, np.bool_))
    if type_ == "torch.Generator":
        from .random import Generator
        return isinstance(obj, Generator)
    if type_ == "tuple of Tensors":   # (its elements are checked where it is written)
        return isinstance(obj, (tuple, list))
    if type_ == "name":
        return isinstance(obj, str)
    raise AssertionError(f"unknown parameter type {type_}")


def _typename(obj) -> str:
    from .tensor import Tensor
    if isinstance(obj, Tensor):
        return "Tensor"
    t = type(obj)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


# -- invalid_arguments.cpp: the "received an invalid combination of arguments" text --------------
# The overloads are re-read from their printed form as PyTorch does: split at ", ", the type
# being all before the last space (so "int dim = -1" has the type "int dim =", which nothing
# matches, and "*" is an argument of its own).
def _option(text):
    out = []
    for arg in text[1:-1].split(", "):
        cut = arg.rfind(" ")
        out.append((arg if cut < 0 else arg[:cut], arg[cut + 1:]))
    return out


def _matches(type_, obj) -> bool:
    name = _typename(obj)
    if type_ == "float":
        return name in ("float", "int", "long")
    if type_ == "int":
        return name in ("int", "long")
    return name == type_


def _desc(obj) -> str:
    if isinstance(obj, (tuple, list)):
        inner = ", ".join(_typename(o) for o in obj)
        if isinstance(obj, tuple):
            return f"tuple of ({inner}{',' if len(obj) == 1 else ''})"
        return f"list of [{inner}]"
    return _typename(obj)


def _invalid_args(args, kwargs, fname, options) -> str:
    # (PyTorch reads the keywords into an unordered_map: they come out last-first)
    kwargs = dict(reversed(list(kwargs.items())))

    def arg_desc():
        out = "(" + "".join(_typename(a) + ", " for a in args) + "".join(
            f"{k}={_typename(v)}, " for k, v in kwargs.items())
        return (out[:-2] if args else out) + ")"

    def formatted(opt):
        out = "("
        items = list(args) + list(kwargs.items())
        for i, item in enumerate(items):
            is_kw = i >= len(args)
            obj = item[1] if is_kw else item
            ok = i < len(opt) and _matches(opt[i][0], obj)
            text = (f"{item[0]}=" if is_kw else "") + _desc(obj)
            out += (text if ok else f"!{text}!") + ", "
        return (out[:-2] if args else out) + ")"

    def unmatched(opt):
        start = max(len(opt) - len(kwargs), 0)
        names = [name for _, name in opt[start:]]
        return [k for k in kwargs if k not in names]

    n = len(args) + len(kwargs)
    msg = fname + " received an invalid combination of arguments - "
    if len(options) == 1:
        opt = _option(options[0])
        bad = unmatched(opt) if kwargs else []
        if bad:
            return msg + "got unrecognized keyword arguments: " + ", ".join(bad)
        return msg + "got " + (formatted(opt) if len(opt) == n else arg_desc()) + \
            ", but expected " + options[0]
    msg += "got " + arg_desc() + ", but expected one of:\n"
    for text in options:
        opt = _option(text)
        msg += " * " + text + "\n"
        if len(opt) == n:
            bad = unmatched(opt) if kwargs else []
            if bad:
                msg += ("      didn't match because some of the keywords were incorrect: "
                        + ", ".join(bad) + "\n")
            else:
                msg += ("      didn't match because some of the arguments have invalid types: "
                        + formatted(opt) + "\n")
    return msg
