"""``grad_fn._raw_saved_<name>``: PyTorch's ``SavedTensor``, one saved tensor of one node.

>>> import leafgrad as torch
>>> x = torch.ones(2, requires_grad=True)
>>> y = x.exp()
>>> raw = y.grad_fn._raw_saved_result
>>> raw is y.grad_fn._raw_saved_result
True
>>> raw.register_hooks(lambda t: t.clone(), lambda t: t)
>>> raw.unpack_hook is not None
True

``register_hooks(pack, unpack)`` packs the saved tensor at once, through the machinery of
autograd/saved_hooks.py (Note [Packing only while hooks are set] there).
"""
from __future__ import annotations

import weakref

import numpy as np

from .. import errors
from ..tensor import Tensor, _wrap
from . import graph as _graph
from .graph import SavedOutput
from .saved_hooks import _INPUT, _OUTPUT, _Packed, _pack, hooked_class

__all__ = ["SavedTensor", "raw_saved"]


_REGISTER_FREED = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
    "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you "
    "need to access saved variables after calling backward.")


class SavedTensor:
    """One saved tensor of a node (``grad_fn._raw_saved_self``): ``register_hooks(pack,
    unpack)`` packs it now and unpacks it when backward needs it."""

    # it holds its node (PyTorch's keeps the node alive too); the node's cache of them holds
    # them weakly, so there is no cycle
    __slots__ = ("_node", "_index", "__weakref__")

    def __init__(self, node, index):
        self._node = node
        self._index = index

    def _entry(self):
        node = self._node
        saved = node._saved
        if saved is None or self._index >= len(saved):
            return node, saved, None
        value = saved[self._index]
        if type(value) in _graph._WRAPPED_NUMBER and self._is_input(node):
            # a number given for a tensor input: PyTorch saved it as a 0-d tensor
            value = _wrap(np.array(value, _graph._WRAPPED_NUMBER[type(value)]))
        return node, saved, value

    def _is_input(self, node) -> bool:
        record = getattr(node, "record", None)
        if record is None:
            return False
        kind, pos = record.saved_sources[self._index]
        return kind == "arg" and pos in record.input_pos

    def register_hooks(self, *args):
        if len(args) != 2 or not callable(args[0]) or not callable(args[1]):
            shown = ", ".join([repr(self)] + [repr(a) for a in args])
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\n"
                f"Invoked with: {shown}")
        node, saved, value = self._entry()
        if saved is None:
            raise RuntimeError(_REGISTER_FREED)
        if value is None or not isinstance(value, (Tensor, SavedOutput, _Packed)):
            # (an index kept as an array: register_hooks on it is not implemented)
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        if isinstance(value, _Packed):
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        i = self._index
        if type(value) is SavedOutput or isinstance(value, SavedOutput):
            source = _wrap(value.data, None, value.vc)
            entry = _pack(source, args, _OUTPUT, getattr(value, "nr", None) or
                          getattr(value, "output_nr", 0), alias=True)
        else:
            entry = _pack(value, args, _INPUT, alias=True)
        saved = list(saved)
        saved[i] = entry
        node._saved = saved if not isinstance(node._saved, tuple) else tuple(saved)
        versions = node._versions
        if versions is not None:
            versions = list(versions)
            versions[i] = None
            node._versions = versions
        if getattr(node, "record", None) is not None:
            if "_hook_meta" not in node.__dict__:
                node._hook_meta = _out_meta_of(node)
            node.__class__ = hooked_class(type(node))

    @property
    def unpack_hook(self):
        _, _, value = self._entry()
        return value.unpack_hook if type(value) is _Packed else None

    @property
    def data(self):
        """What is stored: the packed object, else the saved tensor (an output: without its
        history); None once freed."""
        _, _, value = self._entry()
        if isinstance(value, _Packed):
            return value.obj
        if isinstance(value, SavedOutput):
            return _wrap(value.data, None, value.vc)
        return value if isinstance(value, Tensor) else None

    def unpack(self):
        """The saved tensor, as backward would get it. PyTorch cannot rebuild an output's
        history here (it has no node to give it) and refuses, with the text below."""
        node, saved, value = self._entry()
        if saved is None:
            raise RuntimeError(errors.BACKWARD_TWICE)
        if (isinstance(value, _Packed) and value.kind == _OUTPUT) or \
                isinstance(value, SavedOutput):
            raise RuntimeError(_graph._DETACHED_INPLACE_MSG)
        if isinstance(value, _Packed):
            return value.unpack(node, False)
        return value if isinstance(value, Tensor) else None


SavedTensor.__module__ = "torch._C._autograd"


def _out_meta_of(node):
    """The output's (shape, dtype), for a node whose output was not at hand when packed:
    from a saved output, else from the inputs' metadata (absent: all like the output)."""
    for v in node._saved:
        if isinstance(v, SavedOutput) and getattr(v, "data", None) is not None:
            return (v.data.shape, v.data.dtype)
    return None


def raw_saved(node, index: int) -> SavedTensor:
    """``grad_fn._raw_saved_<name>``: the same ``SavedTensor`` object on every read."""
    cache = node.__dict__.get("_rawsaved")
    if cache is None:
        cache = node._rawsaved = weakref.WeakValueDictionary()
    st = cache.get(index)
    if st is None:
        st = cache[index] = SavedTensor(node, index)
    return st

