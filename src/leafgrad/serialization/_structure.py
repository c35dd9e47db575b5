"""The non-tensor part of a checkpoint: a JSON tree that says where each tensor goes.

Note [Checkpoint structure]
``save`` splits the object into its tensors, written as safetensors entries, and a JSON tree
(kept in the file's ``__metadata__``) that rebuilds everything else. JSON scalars stand for
themselves (``None``, ``true``, ``3``, ``0.5``, ``"text"``); every other node is a one-tag
object, so a JSON object in the tree is never user data:

==========================================  ============================================
node                                        Python value
==========================================  ============================================
``{"tensor": "a.b", "requires_grad": 1}``   the tensor stored under name ``a.b``
``{"parameter": "w", "requires_grad": 1}``  an ``nn.Parameter`` over that tensor
``{"ndarray": "x"}``                        a NumPy array
``{"list": [...]}`` / ``{"tuple": [...]}``  list / tuple
``{"dict": [[k, v], ...]}``                 dict (keys are nodes too: ints stay ints)
``{"odict": [[k, v], ...], "attrs": {}}``   OrderedDict (``attrs``: e.g. ``_metadata``)
``{"counter": [[k, v], ...]}``              collections.Counter (MultiStepLR's milestones)
``{"float": "nan"}``                        a float JSON cannot write (nan, inf, -inf)
``{"numpy": "<i8", "value": 3}``            a NumPy scalar (``np.int64(3)``)
``{"dtype": "float32"}`` / ``{"size": []}``  ``torch.float32`` / ``torch.Size``
``{"device": "cpu"}``                       ``torch.device``
==========================================  ============================================

A tensor's name is its path in the object joined by dots (``state.0.exp_avg``), so a state
dict's tensors keep their keys and the file is an ordinary safetensors state dict.
"""
from __future__ import annotations

import math
from collections import Counter, OrderedDict

import numpy as np

from .. import dtypes as _dt
from .._zerotensor import NOT_SERIALIZABLE
from ..tensor import Size, Tensor, _wrap, device

__all__ = ["flatten", "unflatten"]

_RESERVED = "__metadata__"


def flatten(obj) -> tuple:
    """``(tree, [(name, ndarray)...])`` for ``obj``; raises TypeError on what
    a checkpoint cannot hold, before anything is written."""
    entries: list = []
    used: set = set()
    on_path: set = set()

    def name_for(path) -> str:
        base = ".".join(str(p) for p in path) or "tensor"
        name, n = base, 1
        while name in used or name == _RESERVED:
            # two paths that print alike (key "a.b" and ["a"]["b"]): keep both, distinctly
            name, n = f"{base}#{n}", n + 1
        used.add(name)
        return name

    def enter(container, path):
        if id(container) in on_path:
            raise ValueError("leafgrad.save: the object contains itself (a reference cycle "
                             f"at {'.'.join(map(str, path)) or 'the top level'}); "
                             "checkpoints hold trees of containers")
        on_path.add(id(container))

    def walk(x, path):
        if isinstance(x, np.generic) and x.dtype.kind in "biuf":
            # NumPy scalars (an epoch from np.argmax, a float64 from NumPy math)
            return {"numpy": x.dtype.str, "value": walk(x.item(), path)}
        if x is None or isinstance(x, (bool, str)):
            return x
        if isinstance(x, int):
            return int(x)
        if isinstance(x, float):
            return float(x) if math.isfinite(x) else {"float": repr(float(x))}
        if isinstance(x, Tensor):
            return tensor_node(x, path)
        if isinstance(x, np.ndarray):
            _dt.from_numpy_dtype(x.dtype)   # TypeError names the unsupported dtype
            entries.append((name_for(path), x))
            return {"ndarray": entries[-1][0]}
        if isinstance(x, _dt.dtype):
            return {"dtype": x.name}
        if isinstance(x, Size):
            return {"size": [int(s) for s in x]}
        if isinstance(x, device):
            return {"device": str(x)}
        if type(x) in (list, tuple):
            enter(x, path)
            node = {type(x).__name__: [walk(v, path + [i]) for i, v in enumerate(x)]}
            on_path.discard(id(x))
            return node
        if type(x) in (dict, OrderedDict, Counter):
            enter(x, path)
            pairs = [[key_node(k, path), walk(v, path + [k])] for k, v in x.items()]
            on_path.discard(id(x))
            if type(x) is dict:
                return {"dict": pairs}
            if type(x) is Counter:
                return {"counter": pairs}
            node = {"odict": pairs}
            # state_dict()'s ``_metadata`` (module versions) rides along, as under pickle
            attrs = getattr(x, "__dict__", None)
            if attrs:
                node["attrs"] = {k: walk(v, path + [k]) for k, v in attrs.items()}
            return node
        raise TypeError(_unsupported(x, path))

    def key_node(k, path):
        if k is None or isinstance(k, (bool, str, int, float)):
            return walk(k, path)
        if type(k) is tuple:
            return {"tuple": [key_node(v, path) for v in k]}
        raise TypeError(f"leafgrad.save: dictionary key {k!r} at "
                        f"{'.'.join(map(str, path)) or 'the top level'} has type "
                        f"{type(k).__name__}; keys may be str, int, float, bool, None or "
                        "tuples of those")

    def tensor_node(t, path):
        from ..nn.parameter import Parameter
        if t._is_zerotensor():
            raise RuntimeError(NOT_SERIALIZABLE)
        entries.append((name_for(path), t._data))
        node = {"parameter" if isinstance(t, Parameter) else "tensor": entries[-1][0]}
        if t._requires_grad:
            node["requires_grad"] = True
        return node

    tree = walk(obj, [])
    return tree, entries


def _unsupported(x, path) -> str:
    where = ".".join(map(str, path)) or "the top level"
    hint = ""
    if hasattr(x, "state_dict") and callable(x.state_dict):
        hint = (f" To checkpoint a {type(x).__name__}, save its state_dict() and restore it "
                "with load_state_dict().")
    return (f"leafgrad.save cannot store an object of type {type(x).__module__}."
            f"{type(x).__qualname__} (at {where}). Checkpoints are safetensors files: they "
            "hold tensors, NumPy arrays, None/bool/int/float/str, lists, tuples, dicts, "
            "OrderedDicts and Counters of those, dtypes, devices and torch.Size, and never "
            "pickled objects." + hint)


def unflatten(tree, arrays: dict):
    """Rebuild the object from ``tree`` and the loaded ``arrays`` (name -> ndarray).

    Raises KeyError(name) when the tree names a tensor the file lacks and ValueError on a
    node it does not know; the caller turns both into CheckpointError.
    """
    from ..nn.parameter import Parameter
    used: set = set()

    def take(name):
        if not isinstance(name, str) or name not in arrays:
            raise KeyError(name)
        used.add(name)
        return arrays[name]

    def build(node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, dict):
            if "tensor" in node:
                t = _wrap(take(node["tensor"]))
                if node.get("requires_grad", False):
                    t.requires_grad_(True)
                return t
            if "parameter" in node:
                return Parameter(_wrap(take(node["parameter"])),
                                 bool(node.get("requires_grad", False)))
            if "ndarray" in node:
                return take(node["ndarray"])
            if "list" in node:
                return [build(v) for v in node["list"]]
            if "tuple" in node:
                return tuple(build(v) for v in node["tuple"])
            if "dict" in node or "odict" in node or "counter" in node:
                kind = next(k for k in ("dict", "odict", "counter") if k in node)
                pairs = node[kind]
                out = {"dict": dict, "odict": OrderedDict, "counter": Counter}[kind]()
                for k, v in pairs:
                    out[build(k)] = build(v)
                for k, v in node.get("attrs", {}).items():
                    setattr(out, k, build(v))
                return out
            if "numpy" in node:
                return np.dtype(node["numpy"]).type(build(node["value"]))
            if "float" in node:
                return float(node["float"])
            if "dtype" in node:
                return _dt.to_dtype(node["dtype"])
            if "size" in node:
                return Size(node["size"])
            if "device" in node:
                return device(node["device"])
        raise ValueError(f"unknown structure node {str(node)[:80]}")

    obj = build(tree)
    unused = sorted(set(arrays) - used)
    if unused:
        raise ValueError(f"tensor(s) {unused[:5]} are in the file but not in its structure")
    return obj
