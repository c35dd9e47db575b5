"""Run one expression on leafgrad and on PyTorch (the oracle) and compare the outcomes.

``assert_same("torch.tensor([1, 2.5])")`` evaluates the text twice, with ``torch`` bound to
leafgrad and then to real torch, and checks that both return equal things (tensors: dtype,
shape, values bit for bit, requires_grad, is_leaf) or both raise the same exception type with
the same message, and that both emit the same warnings.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import torch

import leafgrad

_TRIGGERED = re.compile(r" \(Triggered internally at .*\)$", re.S)


def outcome(module, expr: str, env: dict | None = None):
    """(result, exception, [(warning class name, text)]) of ``eval(expr)``."""
    scope = {"torch": module, "np": np}
    if env:
        scope.update({k: (v(module) if callable(v) else v) for k, v in env.items()})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, error = eval(expr, scope), None
        except Exception as exc:  # noqa: BLE001  (the outcome is what we compare)
            result, error = None, exc
    seen = [(w.category.__name__, _TRIGGERED.sub("", str(w.message))) for w in caught]
    return result, error, seen


def assert_same_value(mine, theirs, what: str, exact: bool = True, atol: float = 0.0):
    if isinstance(theirs, torch.Tensor):
        assert isinstance(mine, leafgrad.Tensor), f"{what}: got {type(mine).__name__}"
        assert str(mine.dtype) == str(theirs.dtype), f"{what}: {mine.dtype} != {theirs.dtype}"
        assert tuple(mine.shape) == tuple(theirs.shape), \
            f"{what}: shape {tuple(mine.shape)} != {tuple(theirs.shape)}"
        assert mine.requires_grad == theirs.requires_grad, f"{what}: requires_grad differs"
        assert mine.is_leaf == theirs.is_leaf, f"{what}: is_leaf differs"
        a, b = mine.detach().numpy(), theirs.detach().numpy()
        if exact:
            np.testing.assert_array_equal(a, b, err_msg=what)
        else:
            np.testing.assert_allclose(a, b, atol=atol, rtol=1e-6, err_msg=what)
    elif isinstance(theirs, (tuple, list)):
        assert type(mine).__name__ == type(theirs).__name__, \
            f"{what}: {type(mine).__name__} != {type(theirs).__name__}"
        assert len(mine) == len(theirs), f"{what}: length {len(mine)} != {len(theirs)}"
        for i, (m, t) in enumerate(zip(mine, theirs)):
            assert_same_value(m, t, f"{what}[{i}]", exact, atol)
    elif isinstance(theirs, (torch.device, torch.Size)):
        assert repr(mine) == repr(theirs), f"{what}: {mine!r} != {theirs!r}"
    elif isinstance(theirs, torch.dtype):
        assert str(mine) == str(theirs), f"{what}: {mine} != {theirs}"
    elif isinstance(theirs, np.ndarray):
        assert isinstance(mine, np.ndarray), f"{what}: got {type(mine).__name__}"
        assert mine.dtype == theirs.dtype, f"{what}: {mine.dtype} != {theirs.dtype}"
        np.testing.assert_array_equal(mine, theirs, err_msg=what)
    elif isinstance(theirs, float) and not exact:
        assert type(mine) is float and abs(mine - theirs) <= atol + 1e-6 * abs(theirs), what
    else:
        assert type(mine).__name__ == type(theirs).__name__, \
            f"{what}: {type(mine).__name__} != {type(theirs).__name__}"
        assert mine == theirs or (mine != mine and theirs != theirs), \
            f"{what}: {mine!r} != {theirs!r}"


def assert_same(expr: str, env: dict | None = None, exact: bool = True, atol: float = 0.0,
                messages: bool = True):
    """leafgrad and torch agree on ``expr``: value, or exception type and text; warnings."""
    mine, my_err, my_warn = outcome(leafgrad, expr, env)
    theirs, their_err, their_warn = outcome(torch, expr, env)
    if their_err is not None:
        assert my_err is not None, f"{expr}: torch raised {their_err!r}, leafgrad returned " \
                                   f"{mine!r}"
        assert type(my_err).__name__ == type(their_err).__name__, \
            f"{expr}: {my_err!r} != {their_err!r}"
        if messages:
            assert str(my_err) == str(their_err), \
                f"{expr}:\nmine:   {my_err}\ntheirs: {their_err}"
    else:
        assert my_err is None, f"{expr}: leafgrad raised {my_err!r}, torch gave {theirs!r}"
        assert_same_value(mine, theirs, expr, exact, atol)
    assert my_warn == their_warn, f"{expr}: warnings\nmine:   {my_warn}\ntheirs: {their_warn}"
