"""PyTorch's "efficient zero tensors": immutable zeros that some backward formulas return.

Note [Zero tensors]
A few of PyTorch's backward formulas (``sgn`` of a real input) return
``at::_efficientzerotensor``: a tensor of zeros without storage, marked by a dispatch key.
Users see it: ``x.grad._is_zerotensor()`` is True, and any in-place change of it (a second
backward accumulating into ``x.grad``, ``x.grad.zero_()``, ``x.grad += 1``) raises
"ZeroTensors are immutable...". Its dispatch key gives a few ops their own rule; every other
op sees plain zeros ("materializes" it) and returns an ordinary tensor:

* ``mul`` with a zero tensor on either side, and ``div`` of one, give a zero tensor (zeros
  even where ``0 * inf`` or ``0 / 0`` would be NaN); so do ``dot``, ``vdot`` (and ``matmul``
  of two vectors);
* ``add``/``sub`` of two give one; of one with an ordinary tensor, the ordinary operand
  (``z - g`` is ``-g``), signed zeros included;
* views (``view``, ``expand``, ``t``, ``select``, slicing, ``detach``, ``.data``) stay
  zero tensors; ``clone``, ``contiguous`` copies, advanced indexing and casts to another
  dtype do not.

leafgrad keeps a zero tensor's mark in the type of its array: ``ZeroArray``, a read-only
ndarray subclass holding real zeros. NumPy hands every ufunc call with such an operand to
``ZeroArray.__array_ufunc__`` (the rules above) and keeps the subclass through views on its
own, so ordinary tensors pay nothing: no op tests a flag. A ``ZeroArray`` is "live" (a zero
tensor) only while read-only: what NumPy derives from one by copying (``empty_like``, fancy
indexing, a reshape that copies) is writable, so counts as an ordinary array (and is turned
back into one by the next ufunc). The one test on a hot path is ``inplace_check``'s
(ops/inplace.py): one type comparison.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ZeroArray", "zeros", "is_zero_array", "zerotensor", "IMMUTABLE", "IMMUTABLE_COPY",
           "check_mutable", "materialized", "promoted", "NO_NUMPY", "NOT_SERIALIZABLE"]

IMMUTABLE = ("ZeroTensors are immutable. Please use the materialized zero tensor obtained "
             "using .clone() if you want a mutable tensor.")
# (copy_, and so ``x[i] = tensor``, word it differently)
IMMUTABLE_COPY = ("ZeroTensors are immutable. Please materialize the tensor using `.clone()`, "
                  "if you want a mutable zero tensor.")

NO_NUMPY = " Cannot convert a ZeroTensor to numpy. Set force=True if you need the zero array."
NOT_SERIALIZABLE = "ZeroTensor is not serializable, please file an issue if required."

_ndarray = np.ndarray


def _plain(a):
    return a.view(_ndarray) if isinstance(a, ZeroArray) else a


def _live(a) -> bool:
    return isinstance(a, ZeroArray) and not a.flags.writeable


class ZeroArray(np.ndarray):
    """The array of a zero tensor (Note [Zero tensors]): read-only zeros."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        if out is not None:   # a write: into an ordinary array, or a forward's own product
            kwargs["out"] = tuple(_plain(_release(o)) for o in out)
            getattr(ufunc, method)(*[_plain(a) for a in inputs], **kwargs)
            return out[0] if len(out) == 1 else out
        result = getattr(ufunc, method)(*[_plain(a) for a in inputs], **kwargs)
        if method != "__call__" or len(inputs) != 2 or ufunc.nout != 1:
            return result
        first, second = _live(inputs[0]), _live(inputs[1])
        if ufunc is np.multiply or (ufunc is np.divide and first and not second) or (
                first and second and (ufunc is np.add or ufunc is np.subtract)) or (
                ufunc is np.matmul and (first or second) and np.ndim(inputs[0]) == 1
                and np.ndim(inputs[1]) == 1):   # (a vector product is PyTorch's dot)
            return zeros(np.shape(result), np.asarray(result).dtype)
        if ufunc is np.add or ufunc is np.subtract:
            # PyTorch returns the other operand (negated for ``z - g``): its signed zeros stay
            result = np.asarray(result)
            if first or second:
                other = inputs[1] if first else inputs[0]
                value = np.asarray(other, result.dtype)
                if first and ufunc is np.subtract:
                    value = np.negative(value)
                return np.array(np.broadcast_to(value, result.shape), dtype=result.dtype)
        return result

    def __array_function__(self, func, types, args, kwargs):
        if func is np.broadcast_to:   # expand: a view, so still a zero tensor
            kwargs = dict(kwargs, subok=True)
        elif func is np.dot or func is np.vdot:
            out = func(*[_plain(a) for a in args], **kwargs)
            if any(_live(a) for a in args[:2]):
                return zeros(np.shape(out), np.asarray(out).dtype)
            return out
        return super().__array_function__(func, types, args, kwargs)

    def __setitem__(self, key, value):
        _release(self)
        _ndarray.__setitem__(self.view(_ndarray), key, value)

    def copy(self, order="C"):
        return self.view(_ndarray).copy(order)

    def astype(self, dtype, *args, **kwargs):
        return self.view(_ndarray).astype(dtype, *args, **kwargs)

    def __reduce_ex__(self, protocol):   # a pickled copy is ordinary zeros
        return self.view(_ndarray).copy().__reduce_ex__(protocol)


def _release(a):
    """Make a zero array that an op's NumPy forward made (``a * zero``) and now changes in place
    (``out *= 2``) an ordinary one. Tensors' zero arrays never get here (in-place ops check
    first, ops/inplace.py); a view of one stays read-only, so NumPy refuses the write."""
    if _live(a) and a.base is None:
        a.flags.writeable = True
    return a


def zeros(shape, dtype) -> ZeroArray:
    """A live ``ZeroArray``: its own read-only memory, so no view of it can be made writable."""
    arr = ZeroArray(shape, dtype)
    arr.view(_ndarray).fill(0)
    arr.flags.writeable = False
    return arr


def is_zero_array(arr) -> bool:
    """Whether ``arr`` is a live zero tensor's array (see Note [Zero tensors])."""
    return type(arr) is ZeroArray and not arr.flags.writeable


def zerotensor(shape, np_dtype):
    """A zero tensor (``at::_efficientzerotensor``) of ``shape`` and ``np_dtype``."""
    from .tensor import _wrap
    return _wrap(zeros(tuple(shape), np_dtype))


def promoted(arr: np.ndarray, dtype) -> np.ndarray:
    """``arr`` cast to an op's computation dtype (type promotion of its inputs): a zero
    tensor's array stays one, as PyTorch's ZeroTensor kernels promote without materializing
    (``zero_f32 * ones_f64`` is a float64 zero tensor); an explicit cast (``to``) is a copy."""
    if is_zero_array(arr):
        return zeros(arr.shape, dtype)
    return arr.astype(dtype)


def materialized(arr: np.ndarray) -> np.ndarray:
    """``arr`` as an ordinary array (a zero tensor's zeros as a plain read-only view)."""
    return arr.view(_ndarray) if type(arr) is ZeroArray else arr


def check_mutable(t, copy: bool = False) -> None:
    """PyTorch's error for an in-place change of a zero tensor (``copy``: copy_'s wording).
    Called where ``type(t._data) is not np.ndarray``."""
    if is_zero_array(t._data):
        raise RuntimeError(IMMUTABLE_COPY if copy else IMMUTABLE)


def efficientzerotensor(*size, dtype=None, layout=None, device=None, pin_memory=None,
                        requires_grad=False):
    """``torch._efficientzerotensor(size)``: a zero tensor (Note [Zero tensors])."""
    from . import dtypes as _dt
    from ._device import check_device
    if not size:
        raise TypeError('_efficientzerotensor() missing 1 required positional arguments: '
                        '"size"')
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    if device is not None:
        check_device(device)
    np_dtype = (_dt.get_default_dtype() if dtype is None else _dt.to_dtype(dtype)).np
    t = zerotensor(tuple(int(s) for s in size), np_dtype)
    if requires_grad:
        t.requires_grad_()
    return t


# Note [Zero gradients through formulas]
# A zero tensor reaching a backward node goes through the node's formula, written with
# leafgrad's ops, so it stays a zero tensor exactly where that formula multiplies, divides or
# views it, as PyTorch's does, op for op. Where leafgrad's formula is written differently from
# PyTorch's (PyTorch runs a fused kernel: sigmoid_backward, tanh_backward, gelu_backward; or
# scales by a C++ Scalar, whose ``mul.Scalar`` has no zero-tensor rule; or writes in place into
# a product of the gradient), this table says what PyTorch's gives, per record (all its
# inputs, or {input index: rule}), from a survey of every record's samples with zero-tensor
# seeds against PyTorch 2.13:
#   "plain":  an ordinary result (the formula sees ordinary zeros);
#   "zero":   a zero tensor (PyTorch's formula ends in an op with a zero-tensor rule);
#   "refuse": PyTorch's formula changes a zero tensor in place: "ZeroTensors are immutable";
#   "scalar": a zero tensor, except for a 0-d gradient of another dtype than float64 (what
#             PyTorch's ``grad * <C++ double>`` gives).
#   "plain_zeros": (prod of all elements) ordinary zeros when the input holds two zeros or
#             more (PyTorch's formula is then ``zeros_like``);
#   "plain_amax": (scatter_reduce's self) ordinary for amax/amin without include_self;
#   "plain_mean": (var_mean, std_mean) the mean output's gradient is ordinary (divided by a
#             count, a C++ Scalar), the other goes as it is;
#   "refuse_min": (aminmax) PyTorch adds the max part into the min part in place: refused
#             when the min output's gradient is a zero tensor and the max output has one.
# ``graph.make_node_class`` wraps the listed formulas once per node class; no other formula
# pays anything.
FORMULA_RULES = {
    "sigmoid": "plain", "tanh": "plain", "gelu": "plain", "silu": "plain", "mish": "plain",
    "rsqrt": "scalar", "deg2rad": "scalar", "rad2deg": "scalar", "exp2": "scalar",
    "mean": "plain", "mean_dim": "plain", "trace": "plain", "var_mean": "plain_mean",
    "std_mean": "plain_mean",
    "linalg_det": "plain", "linalg_slogdet": "plain",
    "binary_cross_entropy": {1: "plain"}, "index_add": {2: "plain"},
    "scatter_reduce": {0: "plain_amax", 2: "plain"},
    "linalg_cross": "zero",
    "aminmax": "refuse_min", "prod": "plain_zeros",
}


def _is_zero_grad(grad) -> bool:
    if isinstance(grad, (list, tuple)):   # several outputs: the node's list of gradients
        return any(g is not None and type(g._data) is not _ndarray and _live(g._data)
                   for g in grad)
    return grad is not None and type(grad._data) is not _ndarray and _live(grad._data)


def _plain_grad(grad):
    from .tensor import _wrap
    if isinstance(grad, (list, tuple)):
        return [_plain_grad(g) for g in grad]
    if grad is None or type(grad._data) is _ndarray or not _live(grad._data):
        return grad
    return _wrap(np.zeros(grad._data.shape, grad._data.dtype))


def _plain_rule(formula, one):
    if one:   # one output: the cheap test inline (these formulas run in training loops)
        def plain(grad, *saved):
            if type(grad._data) is not _ndarray and _live(grad._data):
                grad = _plain_grad(grad)
            return formula(grad, *saved)
        return plain

    def plain_all(grads, *saved):
        return formula(_plain_grad(grads) if _is_zero_grad(grads) else grads, *saved)
    return plain_all


def _zero_rule(formula, one):
    def zero(grad, *saved):
        out = formula(grad, *saved)
        if out is not None and _is_zero_grad(grad) and not out._requires_grad:
            return zerotensor(out._data.shape, out._data.dtype)
        return out
    return zero


def _refuse_rule(formula, one):
    def refuse(grad, *saved):
        if _is_zero_grad(grad):
            raise RuntimeError(IMMUTABLE)
        return formula(grad, *saved)
    return refuse


def _scalar_rule(formula, one):
    def scalar(grad, *saved):
        d = grad._data
        if type(d) is not _ndarray and not d.shape and d.dtype != np.float64 and _live(d):
            grad = _plain_grad(grad)
        return formula(grad, *saved)
    return scalar


def _plain_amax_rule(formula, one):
    import inspect
    names = list(inspect.signature(formula).parameters)[1:]   # what the formula saves
    at_reduce, at_include = names.index("reduce"), names.index("include_self")

    def plain_amax(grad, *saved):
        if (saved[at_reduce] in ("amax", "amin") and not saved[at_include]
                and _is_zero_grad(grad)):
            grad = _plain_grad(grad)
        return formula(grad, *saved)
    return plain_amax


def _plain_zeros_rule(formula, one):
    def plain_zeros(grad, self, *saved):
        if _is_zero_grad(grad) and np.count_nonzero(self._data == 0) >= 2:
            from .tensor import _wrap
            return _wrap(np.zeros(self._data.shape, grad._data.dtype))
        return formula(grad, self, *saved)
    return plain_zeros


def _plain_mean_rule(formula, one):
    def plain_mean(grads, *saved):
        if _is_zero_grad(grads[1]):
            grads = [grads[0], _plain_grad(grads[1])]
        return formula(grads, *saved)
    return plain_mean


def _refuse_min_rule(formula, one):
    def refuse_min(grads, *saved):
        if _is_zero_grad(grads[0]) and grads[1] is not None:
            raise RuntimeError(IMMUTABLE)
        return formula(grads, *saved)
    return refuse_min


_RULES = {"plain": _plain_rule, "zero": _zero_rule, "refuse": _refuse_rule,
          "scalar": _scalar_rule, "plain_mean": _plain_mean_rule,
          "refuse_min": _refuse_min_rule, "plain_amax": _plain_amax_rule,
          "plain_zeros": _plain_zeros_rule}


def formula_calls(record, calls: tuple) -> tuple:
    """``calls`` (a node class's (formula, saved indices) per input) with the formulas of
    FORMULA_RULES wrapped (Note [Zero gradients through formulas])."""
    rule = FORMULA_RULES.get(record.name)
    if rule is None:
        return calls
    one = record.n_outputs == 1 and not record.list_input
    out = []
    for i, call in enumerate(calls):
        r = rule if isinstance(rule, str) else rule.get(i)
        out.append(call if call is None or r is None else (_RULES[r](call[0], one), call[1]))
    return tuple(out)
