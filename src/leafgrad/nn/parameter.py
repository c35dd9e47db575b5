"""``nn.Parameter`` (a leaf tensor a Module registers) and ``nn.Buffer``.

A Parameter shares its data's storage and version counter, as PyTorch's does: it is the
same numbers, now marked as something a Module owns and an optimizer updates.

>>> import leafgrad as torch
>>> p = torch.nn.Parameter(torch.ones(2))
>>> p.requires_grad, p.is_leaf
(True, True)
>>> type(p * 2).__name__
'Tensor'
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor

__all__ = ["Parameter", "Buffer", "is_lazy", "typename"]

_new = object.__new__


def _share(cls, data: Tensor, requires_grad: bool) -> Tensor:
    """A ``cls`` instance over ``data``'s array and version counter, cut from any graph."""
    if requires_grad and data._data.dtype.kind not in "fc":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    t = _new(cls)
    t._data = data._data
    t._grad_fn = None
    t._requires_grad = bool(requires_grad)
    t._vc = data._vc
    # Class-level defaults cover the rest; copy only what differs from them.
    if data._base is not None:
        t._base = data._base
    if data._meta is not None and data._meta.get("inference"):
        t._meta = {"inference": True}
    return t


def _empty() -> Tensor:
    from ..tensor import _wrap
    return _wrap(np.empty((0,), dtype=_dt.get_default_dtype().np))


class Parameter(Tensor):
    """A tensor that, assigned as a Module attribute, joins the module's parameters.

    Creating one is allowed under ``no_grad`` and still requires grad (as in PyTorch).
    """

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty()
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        return _share(cls, data, requires_grad)

    def __repr__(self) -> str:
        from .. import _printing
        helper = getattr(_printing, "parameter_repr", None)
        if helper is not None:
            return helper(self)
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        from ..tensor import _wrap
        result = type(self)(_wrap(self._data.copy()), self._requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data.copy(), self._requires_grad))


def _rebuild_parameter(data, requires_grad):
    from ..tensor import _wrap
    return Parameter(_wrap(data), requires_grad)


class Buffer(Tensor):
    """``nn.Buffer(t)``: marks a tensor to be registered as a buffer on assignment.

    Assigning ``module.name = nn.Buffer(t)`` registers ``t``'s data as a buffer with the
    given ``persistent`` flag.
    """

    __slots__ = ("persistent",)

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty()
        t = _share(cls, data, data._requires_grad)
        t.persistent = persistent
        return t

    def __repr__(self) -> str:
        return Tensor.__repr__(self)


def is_lazy(param) -> bool:
    """Lazy (uninitialized) parameters do not exist in leafgrad."""
    return False


def typename(obj) -> str:
    """``torch.typename``: ``'torch.FloatTensor'`` for tensors, the qualified name otherwise.

    leafgrad's own classes are named as PyTorch names them (``torch.nn.modules...``),
    because leafgrad stands in for ``torch``.
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    if module == "leafgrad" or module.startswith("leafgrad."):
        module = "torch" + module[len("leafgrad"):]
    return f"{module}.{qualname}"
