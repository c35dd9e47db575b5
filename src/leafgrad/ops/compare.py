"""Comparisons, logical and bitwise ops, and the float-class tests (isnan, isinf, ...).

None of these has a gradient: their records have no formulas, so outputs never get a
``grad_fn``. Comparisons and logical ops return bool tensors; bitwise ops keep the promoted
integer (or bool) dtype and refuse floats, as in PyTorch.

>>> import leafgrad as torch
>>> x = torch.tensor([1.0, float("nan"), 3.0])
>>> (x > 2), x.isnan()
(tensor([False, False,  True]), tensor([False,  True, False]))
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .registry import Sample, bind_method, defop
from .pointwise_common import not_implemented_for, operator_dunders, tensors_only
from .registry import compare

__all__: list = []

FAMILY = "pointwise"
_OPERANDS = (Tensor, int, float, bool, np.number, np.bool_)


def _cmp_samples(make, shapes):
    a = make(shapes[1])
    return [Sample((a, make(shapes[2]))), Sample((make(shapes[0]), 0.5)),
            Sample((make(shapes[0], -2, 3, np.int64).astype(np.float64),
                    make(shapes[0], -2, 3, np.int64).astype(np.float64))),
            Sample((make(shapes[1], -3, 3, np.int64), make(shapes[2]))),
            Sample((make(shapes[0], -3, 3, np.int64), 0.5))]


def _dunder(public, name):
    """A comparison dunder: other types give NotImplemented, so ``x == None`` is False."""
    def dunder(self, other):
        if isinstance(other, _OPERANDS):
            return public(self, other)
        return NotImplemented
    dunder.__name__ = dunder.__qualname__ = name
    return dunder


# -- comparisons ------------------------------------------------------------------------------
for _name, _ufunc, _dunder_name, _alias in (
        ("eq", np.equal, "__eq__", None), ("ne", np.not_equal, "__ne__", "not_equal"),
        ("lt", np.less, "__lt__", "less"), ("le", np.less_equal, "__le__", "less_equal"),
        ("gt", np.greater, "__gt__", "greater"),
        ("ge", np.greater_equal, "__ge__", "greater_equal")):
    def _cmp(self, other, _ufunc=_ufunc):
        return _ufunc(self, other)
    _cmp.__doc__ = f"Elementwise ``{_name}``; a bool tensor."
    _names = (_name,) + ((_alias,) if _alias else ())
    _rec = defop(_name, _cmp, dtype="compare", methods=_names, functions=_names,
                 inplace=_name + "_", samples=_cmp_samples, family=FAMILY)
    bind_method(_dunder_name, _dunder(_rec.public, _dunder_name))
    if _alias:
        bind_method(_alias + "_", getattr(Tensor, _name + "_"))


# -- logical ----------------------------------------------------------------------------------
def _logical_samples(make, shapes):
    return [Sample((make(shapes[1], dtype=np.bool_), make(shapes[2], dtype=np.bool_))),
            Sample((make(shapes[1], -1, 2, np.int64).astype(np.float64), make(shapes[2], -2, 2, np.int64)))]


for _name, _ufunc in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
                      ("logical_xor", np.logical_xor)):
    def _logical(self, other, _ufunc=_ufunc):
        return _ufunc(self, other)
    _logical.__doc__ = f"Elementwise ``{_name[8:]}`` of the truth values; a bool tensor."
    defop(_name, _logical, dtype=tensors_only(compare), inplace=_name + "_",
          samples=_logical_samples, family=FAMILY)


def logical_not(self):
    """Elementwise ``not`` of the truth values; a bool tensor."""
    return np.logical_not(self)


def _bool_out(rec, args):
    return None, np.dtype(np.bool_)


defop("logical_not", logical_not, dtype=_bool_out, inplace="logical_not_", family=FAMILY,
      samples=lambda make, shapes: [Sample((make(shapes[0], dtype=np.bool_),)),
                                    Sample((make(shapes[0], -1, 2, np.int64).astype(np.float64),))])


# -- bitwise ----------------------------------------------------------------------------------
def _bitwise_samples(make, shapes):
    return [Sample((make(shapes[1], -8, 8, np.int64), make(shapes[2], -8, 8, np.int64))),
            Sample((make(shapes[1], dtype=np.bool_), make(shapes[2], dtype=np.bool_))),
            Sample((make(shapes[0], -8, 8, np.int64), 3))]


def _shift_samples(make, shapes):
    return [Sample((make(shapes[1], -8, 8, np.int64), make(shapes[2], 0, 4, np.int64))),
            Sample((make(shapes[0], dtype=np.bool_), 1))]


def _bitwise(kernel, ufunc):
    def forward(self, other):
        data = self if isinstance(self, np.ndarray) else other   # ``1 << t``: self a number
        if data.dtype.kind == "f" or (data.dtype == np.bool_ and "shift" in kernel):
            raise not_implemented_for(kernel, data)   # (shifts have no bool kernel either)
        return ufunc(self, other)
    return forward


for _name, _kernel, _ufunc, _op in (("bitwise_and", "bitwise_and_cpu", np.bitwise_and, "and"),
                                    ("bitwise_or", "bitwise_or_cpu", np.bitwise_or, "or"),
                                    ("bitwise_xor", "bitwise_xor_cpu", np.bitwise_xor, "xor"),
                                    ("bitwise_left_shift", "lshift_cpu", np.left_shift,
                                     "lshift"),
                                    ("bitwise_right_shift", "rshift_cpu", np.right_shift,
                                     "rshift")):
    _fwd = _bitwise(_kernel, _ufunc)
    _fwd.__doc__ = f"Elementwise bitwise ``{_op}`` of integer or bool tensors."
    _rec = defop(_name, _fwd, inplace=_name + "_", family=FAMILY,
                 samples=_shift_samples if "shift" in _name else _bitwise_samples,
                 methods=(_name, f"__{_op}__"))
    bind_method(f"__r{_op}__", lambda self, other, _p=_rec.public: _p(other, self))
    bind_method(f"__i{_op}__", getattr(Tensor, _name + "_"))
    operator_dunders(f"__{_op}__", f"__r{_op}__")


def bitwise_not(self):
    """Elementwise bitwise ``not`` (``~``) of an integer or bool tensor."""
    if self.dtype.kind == "f":
        raise not_implemented_for("bitwise_not_cpu", self)
    return np.invert(self)


_bitwise_not = defop("bitwise_not", bitwise_not, dtype="same", inplace="bitwise_not_",
                     family=FAMILY,
                     samples=lambda make, shapes: [
                         Sample((make(shapes[0], -8, 8, np.int64),)),
                         Sample((make(shapes[0], dtype=np.bool_),)),
                         Sample((make(shapes[0], dtype=np.bool_),), call="__invert__")])


def _invert(self):
    if self._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return _bitwise_not.public(self)


bind_method("__invert__", _invert)


# -- float classes ----------------------------------------------------------------------------
def _class_samples(make, shapes):
    a = make(shapes[0])
    a.flat[::3] = np.nan
    a.flat[1::4] = np.inf
    a.flat[2::5] = -np.inf
    return [Sample((a,), grad=False), Sample((make(shapes[1], -3, 3, np.int64),)),
            Sample((make(shapes[1]).astype(np.float32),))]


for _name, _ufunc in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite),
                      ("isposinf", np.isposinf), ("isneginf", np.isneginf),
                      ("signbit", np.signbit)):
    def _cls(self, _ufunc=_ufunc):
        return _ufunc(self)
    _cls.__doc__ = f"Elementwise ``{_name}``; a bool tensor."
    defop(_name, _cls, dtype=_bool_out, samples=_class_samples, family=FAMILY)
