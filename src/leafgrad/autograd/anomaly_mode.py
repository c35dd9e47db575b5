"""Anomaly detection: ``torch.autograd.detect_anomaly`` and ``set_detect_anomaly``.

While enabled, every node records the Python stack of the forward call that made it (in
``node.metadata["traceback_"]``, as PyTorch does), and the engine runs each node through
``_run_node``: if the node's backward raises, a warning shows that forward stack before the
error goes on; with ``check_nan`` a NaN in any gradient the node returns is an error.

The switch is one global flag (``graph.anomaly``, not per thread, as in PyTorch), so the normal
path pays a single boolean test per node made and per node run.

>>> import warnings
>>> import leafgrad as torch
>>> x = torch.tensor([-1.0, 4.0], requires_grad=True)
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     with torch.autograd.detect_anomaly():
...         y = x.sqrt().sum()
...         y.backward()
Traceback (most recent call last):
  ...
RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
"""
from __future__ import annotations

import os
import sys
import warnings

import numpy as np

from ..tensor import Tensor
from . import engine as _engine
from .graph import anomaly as _state

# As in PyTorch; the is_* queries and set_anomaly_enabled are exported as torch.<name>.
__all__ = ["detect_anomaly", "set_detect_anomaly"]

_ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and "
                    "should only be enabled for debugging.")
_NO_FORWARD_INFO = ("No forward pass information available. Enable detect anomaly during forward "
                    "pass for more information.")

# Frames inside the leafgrad package are left out of recorded stacks: PyTorch's ops run in C++,
# so its traces end at the user's line that called the op.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

# The engine's loop; its local ``node`` is the node being evaluated (see _forward_stack).
_ENGINE_LOOP = _engine._execute.__code__


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on (``torch.is_anomaly_enabled``)."""
    return _state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks gradients for NaN (``torch.is_anomaly_check_nan_enabled``)."""
    return _state.check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off (``torch.set_anomaly_enabled``), without a warning."""
    _set(enabled, check_nan)


def _set(mode: bool, check_nan: bool) -> None:
    _state.record = _record_forward_stack
    _state.run_node = _run_node
    _state.enabled = bool(mode)
    _state.check_nan = bool(check_nan)


class detect_anomaly:
    """Context manager that turns anomaly detection on inside its block.

    As in PyTorch 2.13 it is not a decorator, and entering it warns that anomaly detection
    slows things down.

    >>> import warnings
    >>> import leafgrad as torch
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with torch.autograd.detect_anomaly():
    ...         print(torch.is_anomaly_enabled())
    True
    >>> torch.is_anomaly_enabled()
    False
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = _state.enabled
        self.check_nan = check_nan
        self.prev_check_nan = _state.check_nan
        warnings.warn(_ENABLED_WARNING, UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        _set(True, self.check_nan)

    def __exit__(self, *args) -> None:
        _set(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Set anomaly detection on or off: at once when called, and back when used with ``with``.

    >>> import leafgrad as torch
    >>> with torch.autograd.set_detect_anomaly(True):
    ...     print(torch.is_anomaly_enabled())
    True
    >>> torch.is_anomaly_enabled()
    False
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _state.enabled
        self.prev_check_nan = _state.check_nan
        _set(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        _set(self.prev, self.prev_check_nan)


# -- what the engine and the dispatcher call while anomaly mode is on -----------------------

def _is_internal(frame) -> bool:
    """A leafgrad frame: a module of the package, or code it generated with ``exec``
    (the ops' public wrappers, whose globals carry no ``__name__``)."""
    name = frame.f_globals.get("__name__")
    if name is None:
        return True
    return name == "leafgrad" or name.startswith("leafgrad.") or \
        os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR)


def _forward_stack():
    """The current Python stack as ``traceback.format_stack`` lines, without leafgrad frames,
    and the node the engine is running (None outside a backward)."""
    frame = sys._getframe(1)
    frames = []
    parent = None
    while frame is not None:
        if frame.f_code is _ENGINE_LOOP:
            # Made during a backward (create_graph): PyTorch names the node being evaluated.
            parent = frame.f_locals.get("node")
        elif not _is_internal(frame):
            frames.append((frame, frame.f_lineno))
        frame = frame.f_back
    frames.reverse()
    import traceback   # only with anomaly mode on: kept out of ``import leafgrad``
    return traceback.StackSummary.extract(frames).format(), parent


def _record_forward_stack(node) -> None:
    """Called for every node made while anomaly mode is on."""
    stack, parent = _forward_stack()
    meta = node.metadata
    meta["traceback_"] = stack
    if parent is not None:
        meta["parent_"] = parent


def _error_messages(node) -> list:
    """``Error detected in X. Traceback of forward call...``, then one message per parent
    (the node whose backward made X, with create_graph), as PyTorch warns them."""
    meta = node._metadata or {}
    stack = meta.get("traceback_")
    if stack is None:
        return [f"Error detected in {node.name()}. {_NO_FORWARD_INFO}"]
    texts = [f"Error detected in {node.name()}. Traceback of forward call that caused the "
             "error:\n" + "".join(stack)]
    parent = meta.get("parent_")
    while parent is not None:
        pmeta = parent._metadata or {}
        pstack = pmeta.get("traceback_")
        if pstack is None:
            break
        texts.append(f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of "
                     "forward call that induced the previous calculation:\n" + "".join(pstack))
        parent = pmeta.get("parent_")
    return texts


def _run_node(node, grads, create_graph):
    """The engine's ``node.apply`` under anomaly mode."""
    try:
        grad_inputs = node.apply(grads, create_graph)
        if _state.check_nan and grad_inputs is not None:
            for i, g in enumerate(grad_inputs):
                if isinstance(g, Tensor) and g._data.dtype.kind in "fc" and \
                        np.isnan(g._data).any():
                    raise RuntimeError(
                        f"Function '{node.name()}' returned nan values in its {i}th output.")
    except Exception:
        level = _user_stacklevel()
        for text in _error_messages(node):
            warnings.warn(text, UserWarning, stacklevel=level)
        raise
    return grad_inputs


def _user_stacklevel() -> int:
    """The stacklevel that points a warning at the first caller outside leafgrad."""
    level = 1
    frame = sys._getframe(1)   # the function calling warnings.warn: stacklevel 1
    while frame is not None and _is_internal(frame):
        frame = frame.f_back
        level += 1
    return level
