"""Helpers shared by the pointwise family files (pointwise, powers, unary, activation,
select, compare, casts): zero gradients, dtype rules, PyTorch's error texts, in-place wrappers.

Note [Floating-point warnings]
PyTorch computes ``log(0)``, ``1 / 0`` or an overflowing cast silently (``-inf``, ``inf``);
NumPy would print a RuntimeWarning for each. The package turns NumPy's floating-point error
reporting off once, here, rather than paying for an ``errstate`` context in every forward.
"""
from __future__ import annotations

import types

import numpy as np

from .. import dtypes as _dt
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from .overlap import check_write
from ..autograd.saved_hooks import _active as _HOOKS_SET
from .inplace import _call, save_clone
from .registry import (_inplace_kernel_error, bind_method, commit_inplace, defop,
                       inplace_check, old_value)

__all__ = ["zeros_grad", "promote_args", "not_implemented_formula", "not_implemented_for",
           "float_kernel", "not_implemented_inplace", "scale",
           "tensors_only", "int_scalar", "operator_dunders", "inplace_of"]

np.seterr(all="ignore")   # see Note [Floating-point warnings]


def scale(t, number):
    """``t * number`` as PyTorch's C++ formulas write it: mul(Tensor, Scalar), whose node is
    MulBackward1 (Python's ``t * 2.0`` wraps the number in a tensor: MulBackward0)."""
    from .registry import RECORDS
    return RECORDS["mul_scalar"].public(t, number)


def number_minus(number, t):
    """``number - t`` as PyTorch's C++ formulas write it: ``empty_like(t).fill_(number).sub_(t)``
    (SubBackward0 with no edge for the number; Python's ``1 - t`` is RsubBackward1)."""
    return _wrap(np.full(t._data.shape, number, t._data.dtype)) - t


def zeros_grad(grad):
    """The gradient of a piecewise-constant op (floor, sign, ...): zeros, with no history."""
    return _wrap(np.zeros_like(grad._data))


def promote_args(*positions):
    """A dtype rule promoting the arguments at ``positions``, numbers included."""
    def rule(rec, args):
        d = _dt.result_type(*[args[p] for p in positions]).np
        return d, d
    # float tensors of one dtype with Python numbers keep that dtype: dispatch's fast path
    rule.fast_float = True
    return rule


def not_implemented_formula(aten_name):
    """A formula for an op PyTorch records but cannot differentiate (grad_fn NotImplemented)."""
    def formula(grad):
        raise RuntimeError(f"derivative for aten::{aten_name} is not implemented")
    formula.__name__ = f"{aten_name}_not_implemented"
    return formula


def not_implemented_for(kernel, dtype):
    """PyTorch's error for a kernel without an implementation for a dtype (``'Bool'``)."""
    if isinstance(dtype, np.ndarray):
        dtype = dtype.dtype
    name = _dt.from_numpy_dtype(np.dtype(dtype)).tensor_type[:-6]
    return NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def not_implemented_inplace(rec):
    """The in-place variant of an op PyTorch records but cannot differentiate: its node names
    the in-place op (``derivative for aten::floor_divide_ is not implemented``), so it is a
    record of its own, with the forward and dtype rule of ``rec``. Returns the method."""
    name = rec.inplace
    formula = not_implemented_formula(name)
    sibling = defop(name, rec.forward, inputs=rec.inputs,
                    derivatives={i: formula for i in rec.inputs}, dtype=rec.dtype_rule,
                    grad_fn_name="NotImplemented", methods=(), functions=(),
                    family=rec.family)
    method = inplace_of(sibling.public, name, saves_self=False)
    bind_method(name, method)
    return method


def float_kernel(kernel):
    """A dtype rule for ops whose PyTorch kernel is written for floating dtypes only (gelu,
    silu, softplus): a float input keeps its dtype, any other raises PyTorch's error naming
    ``kernel`` (ints are not promoted to float as by ``promote_float``)."""
    def rule(rec, args):
        d = args[0]._data.dtype
        if d.kind != "f":
            raise not_implemented_for(kernel, d)
        return None, None
    rule.fast_float = True   # a float tensor runs on dispatch's fast path, unchanged
    return rule


def tensors_only(base_rule, names=("input", "other")):
    """A dtype rule for ops whose PyTorch signature takes no numbers (``maximum``)."""
    def rule(rec, args):
        for pos, name in enumerate(names):
            v = args[pos]
            if not isinstance(v, Tensor):
                raise TypeError(f"{rec.functions[0] if rec.functions else rec.name}(): "
                                f"argument '{name}' (position {pos + 1}) must be Tensor, not "
                                f"{type(v).__name__}")
        return base_rule(rec, args)
    return rule


def int_scalar(value, array):
    """A Python int meeting an integer array, wrapped into its dtype as PyTorch does
    (NumPy 2 raises OverflowError for ``uint8_array + -2``)."""
    if type(value) is int and array.dtype.kind in "iu":
        return np.array(value).astype(array.dtype)
    return value


_OPERANDS = (Tensor, int, float, bool, np.number, np.bool_)


def operator_dunders(*names):
    """Make Tensor's binary operators answer NotImplemented for operands they cannot take,
    so Python raises its own ``unsupported operand type(s) for +: 'Tensor' and 'str'`` (and
    other types get to try their reflected operator), as with PyTorch."""
    for name in names:
        fn = getattr(Tensor, name)
        dunder = _direct_dunder(fn, name)
        if dunder is None:
            def dunder(self, other, _fn=fn):
                try:
                    return _fn(self, other)
                except TypeError:
                    if not isinstance(other, _OPERANDS):
                        return NotImplemented
                    raise
        dunder.__name__ = dunder.__qualname__ = name
        bind_method(name, dunder)


# Note [Direct dunders]
# ``x * 2`` ran ``dunder`` -> the public ``mul`` (a template: ``return _dispatch(_rec,
# (self, other))``) -> the dispatcher: a frame that only passes its arguments on, on every
# arithmetic operator in user code and in the backward formulas that multiply (``grad *
# other``). When the public function is such a template with two positional parameters and
# at most one keyword-only one (``add``'s alpha, with its default), the dunder is the code
# below run in the template's own globals: it calls the record's dispatcher itself, with the
# arguments the template would pass, and reads ``_dispatch`` from those globals at each call
# as the template does (diagnostics swaps it there).
def _dunder_0(self, other, *, _ops=None):
    try:
        return _dispatch(_rec, (self, other))   # noqa: F821 - the template's globals
    except TypeError:
        if not isinstance(other, _ops):
            return NotImplemented
        raise


def _dunder_1(self, other, *, _ops=None, _t0=None):
    try:
        return _dispatch(_rec, (self, other, _t0))   # noqa: F821 - the template's globals
    except TypeError:
        if not isinstance(other, _ops):
            return NotImplemented
        raise


def _direct_dunder(fn, name):
    """``fn``'s dunder calling the dispatcher directly (Note [Direct dunders]), or None."""
    from ._templates import CODES
    code = getattr(fn, "__code__", None)
    if code is None or code.co_argcount != 2 or code.co_kwonlyargcount > 1 \
            or fn.__defaults__:
        return None
    template = CODES.get((2, code.co_kwonlyargcount))
    env = fn.__globals__
    if template is None or code.co_code != template.co_code \
            or code.co_names != template.co_names or "_rec" not in env:
        return None
    kwdefaults = {"_ops": _OPERANDS}
    if code.co_kwonlyargcount:
        default = (fn.__kwdefaults__ or {}).get(code.co_varnames[2], _dunder_1)
        if default is _dunder_1:   # a keyword-only parameter without a default
            return None
        kwdefaults["_t0"] = default
    proto = _dunder_1 if code.co_kwonlyargcount else _dunder_0
    dunder = types.FunctionType(proto.__code__.replace(co_name=name, co_qualname=name), env,
                                name)
    dunder.__kwdefaults__ = kwdefaults
    return dunder


def _requires_any(args, kwargs):
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
    for a in kwargs.values():
        if isinstance(a, Tensor) and a._requires_grad:
            return True
    return False


def inplace_of(fn, name, saves_self=True, overlap_checks=True, precheck=None):
    """The in-place variant of a public wrapper ``fn`` (for ops that are not one record).

    As in the registry's own in-place variants: when the recorded formula needs the old
    ``self``, it is computed from a copy so that overwriting ``self`` does not invalidate it.
    ``overlap_checks=False`` for the ops PyTorch lets write through an expanded view
    (``masked_fill_``; Note [Memory overlap] in overlap.py). ``precheck(self, *args)``: the
    kernel's meta checks that PyTorch runs before TensorIterator's overlap checks (after
    autograd's in-place checks).
    """
    def inplace(self, *args, **kwargs):
        inplace_check(self, args, kwargs)
        if precheck is not None:
            precheck(self, *args, **kwargs)
        if overlap_checks:
            check_write(self, args, kwargs)
        src = self
        if saves_self and _mode.grad_enabled and (self._requires_grad or
                                                  _requires_any(args, kwargs)):
            src = old_value(self)
        if _HOOKS_SET[0]:   # saved outputs are packed as self, after the commit
            from ..autograd.saved_hooks import run_inplace
            return run_inplace(self, lambda: _call(fn, self, src, args, kwargs),
                               lambda result: commit_inplace(
                                   self, result, expanded_ok=not overlap_checks))
        try:
            result = fn(src, *args, **kwargs)
        except NotImplementedError as exc:
            raise _inplace_kernel_error(self, args, exc) from None
        if src is not self:
            save_clone(result, src)
        return commit_inplace(self, result, expanded_ok=not overlap_checks)
    inplace.__name__ = inplace.__qualname__ = name
    inplace.__doc__ = f"In-place version of :meth:`{fn.__name__}`."
    return inplace
