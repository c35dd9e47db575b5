"""``torch.autograd``: ``backward`` and ``grad`` over the shared engine.

>>> import leafgrad as torch
>>> p = torch.tensor(2.0, requires_grad=True)
>>> out = torch.stack((p.square(), 3 * p))
>>> torch.autograd.grad(out, p, grad_outputs=torch.tensor([1.0, 2.0]))
(tensor(10.),)
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import errors
from ..grad_mode import (enable_grad, inference_mode, is_grad_enabled, no_grad,
                         set_grad_enabled)
from ..tensor import Tensor, Size, _wrap
from . import graph
from .engine import execute
from .graph import Node

__all__ = ["backward", "grad", "Node", "graph", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "is_grad_enabled", "Function", "function", "gradcheck",
           "gradgradcheck", "detect_anomaly", "set_detect_anomaly", "anomaly_mode",
           "functional"]


_warned = {"create_graph": False}


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _make_seeds(outputs, grad_outputs, is_grads_batched=False):
    seeds = []
    for i, out in enumerate(outputs):
        g = grad_outputs[i] if grad_outputs is not None else None
        if g is None:
            if out._requires_grad:
                if out._data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if out._data.dtype.kind != "f":   # an integer/bool result with history
                    raise RuntimeError(f"grad can be implicitly created only for real scalar "
                                       f"outputs but got {out.dtype}")
                seeds.append(_wrap(np.ones(out._data.shape, out._data.dtype)))
            else:
                seeds.append(None)
        else:
            if not isinstance(g, Tensor):
                raise TypeError("gradients can be either Tensors or None, but got "
                                f"{type(g).__name__}")
            if g._data.shape != out._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)}"
                    f" and output[{i}] has a shape of {Size(out._data.shape)}.")
            if g._data.dtype != out._data.dtype and out._data.dtype.kind == "f":
                g = g.to(out.dtype)
            seeds.append(g)
    return seeds


def _fresh(t):
    """Read ``t``'s gradient edge as PyTorch does: a view whose base changed in place since
    gets its history regrown first (or refused, for views that cannot be: ops/views.py)."""
    if t._base is not None and t._vc[0] != t._view_version:
        t.grad_fn   # noqa: B018 - the property regrows it


def _check_inputs(inputs):
    for t in inputs:
        _fresh(t)
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")


def _check_roots(outputs):
    for i, out in enumerate(outputs):
        _fresh(out)
        # a view made under no_grad of a tensor that requires grad says requires_grad=True,
        # yet as an output it has no gradient edge, so PyTorch refuses it (ops/views.py)
        if not out._requires_grad or (out._grad_fn is None and out._meta is not None
                                      and out._meta.get("no_grad_view")):
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None) -> None:
    """Accumulate gradients of ``tensors`` into the leaves' ``.grad`` (or only ``inputs``)."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    outputs = _as_tuple(tensors)
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grad_tensors = _as_tuple(grad_tensors)
    if grad_tensors is not None and len(grad_tensors) != len(outputs):
        raise RuntimeError(f"got {len(grad_tensors)} tensors and {len(outputs)} gradients")
    seeds = _make_seeds(outputs, grad_tensors)
    _check_roots(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph and not _warned["create_graph"]:
        _warned["create_graph"] = True   # PyTorch warns once per process (TORCH_WARN_ONCE)
        warnings.warn(errors.CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    if inputs is not None:
        _check_inputs(inputs)
    execute(outputs, seeds, retain_graph, create_graph, inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False,
         materialize_grads=False):
    """Return d(outputs)/d(inputs) (a vector-Jacobian product) without touching ``.grad``."""
    if is_grads_batched:
        raise NotImplementedError("leafgrad does not implement is_grads_batched (it needs vmap)")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    single = isinstance(inputs, Tensor)
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grad_outputs = _as_tuple(grad_outputs)
    if grad_outputs is not None and len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got "
                           f"{len(grad_outputs)} grad_outputs and {len(outputs)} outputs")
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"grad(): inputs must be Tensors, got {type(t).__name__}")
    # PyTorch's order: seeds, then the outputs, then the inputs
    seeds = _make_seeds(outputs, grad_outputs)
    _check_roots(outputs)
    _check_inputs(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    result = execute(outputs, seeds, retain_graph, create_graph, inputs=inputs,
                     accumulate=False)
    out = []
    for i, g in enumerate(result):
        if g is None:
            if materialize_grads:
                from ..factories import zeros_like
                g = zeros_like(inputs[i])
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior.")
        elif not create_graph and g._grad_fn is not None:
            g = g.detach()
        out.append(g)
    del single
    return tuple(out)


# Layer 5 (custom Function, gradcheck, anomaly mode) is built on grad/backward above. As in
# PyTorch, ``autograd.gradcheck`` is the function while ``autograd.gradcheck`` in sys.modules
# (``from torch.autograd.gradcheck import GradcheckError``) is the module.
from . import function, anomaly_mode  # noqa: E402
from .function import Function  # noqa: E402
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: E402
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402


def __getattr__(name: str):
    """``autograd.functional`` (jacobian, hessian, ...) loads on first use (issue 5)."""
    if name == "functional":
        import importlib
        return importlib.import_module(".functional", __name__)   # also binds it here
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | {"functional"})
