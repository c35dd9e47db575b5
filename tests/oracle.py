"""Helpers to run the same thing on leafgrad and on PyTorch 2.13 (the oracle) and compare."""
from __future__ import annotations

import numpy as np
import torch

import leafgrad


def to_both(value, requires_grad=True):
    """A NumPy array -> (leafgrad tensor, torch tensor); other values pass through."""
    if isinstance(value, np.ndarray):
        rg = requires_grad and value.dtype.kind == "f"
        a = leafgrad.tensor(value.copy(), requires_grad=rg)
        b = torch.tensor(value.copy(), requires_grad=rg)
        return a, b
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        pairs = [to_both(v, requires_grad) for v in value]
        return type(value)(p[0] for p in pairs), type(value)(p[1] for p in pairs)
    if isinstance(value, leafgrad.dtype):
        return value, getattr(torch, value.name)
    return value, value


def np_of(t):
    # force: both libraries' ZeroTensor grads (sgn's) refuse numpy()
    return t.detach().numpy(force=True)


def assert_same_tensor(mine, theirs, atol=1e-6, rtol=1e-5, what=""):
    assert isinstance(mine, leafgrad.Tensor), f"{what}: expected a Tensor, got {type(mine)}"
    assert str(mine.dtype) == str(theirs.dtype), f"{what}: dtype {mine.dtype} != {theirs.dtype}"
    assert tuple(mine.shape) == tuple(theirs.shape), \
        f"{what}: shape {tuple(mine.shape)} != {tuple(theirs.shape)}"
    a, b = np_of(mine), np_of(theirs)
    if a.dtype.kind in "biu":
        np.testing.assert_array_equal(a, b, err_msg=what)
    else:
        np.testing.assert_allclose(a, b, atol=atol, rtol=rtol, equal_nan=True, err_msg=what)


def grad_fn_name(t):
    fn = t.grad_fn
    return None if fn is None else type(fn).__name__


def assert_same_error(fn_mine, fn_theirs, exc_types=(Exception,)):
    """Both raise: same exception type name and same text."""
    err_theirs = err_mine = None
    try:
        fn_theirs()
    except exc_types as e:
        err_theirs = e
    try:
        fn_mine()
    except exc_types as e:
        err_mine = e
    assert err_theirs is not None, "torch did not raise"
    assert err_mine is not None, f"leafgrad did not raise (torch raised {err_theirs!r})"
    assert type(err_mine).__name__ == type(err_theirs).__name__, (err_mine, err_theirs)
    assert str(err_mine) == str(err_theirs), f"\nmine:   {err_mine}\ntheirs: {err_theirs}"


def normalize(value):
    """Turn an observation into plain data comparable across leafgrad and torch."""
    if isinstance(value, (leafgrad.Tensor, torch.Tensor)):
        arr = value.detach().numpy(force=True)   # (a ZeroTensor refuses numpy())
        return ("tensor", str(value.dtype), tuple(value.shape),
                np.round(arr.astype(np.float64), 5).tolist() if arr.dtype.kind == "f"
                else arr.tolist())
    if isinstance(value, BaseException):
        return ("error", type(value).__name__, clean_message(str(value)))
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(normalize(v) for v in value)
    if isinstance(value, (leafgrad.Size, torch.Size)):
        return tuple(value)
    if isinstance(value, (leafgrad.dtype, torch.dtype)):
        return str(value)
    return value


def clean_message(text: str) -> str:
    """Drop what comes from PyTorch's C++ build rather than its API: the "(Triggered
    internally at ...)" suffix, and the capital O PyTorch puts on the first version-counter
    error of a process only."""
    import re
    text = re.sub(r" \(Triggered internally at [^)]*\.\)$", "", text)
    if text.startswith("One of the variables needed"):
        text = "o" + text[1:]
    return text


def run_both(program):
    """Run ``program(lib)`` on leafgrad and torch; return both normalized observations.

    ``program`` returns any structure of tensors, numbers, strings, None. An exception it
    raises is an observation too (type and text), so error behaviour is compared as well.
    """
    out = []
    for lib in (leafgrad, torch):
        try:
            result = program(lib)
        except Exception as exc:  # noqa: BLE001 - the exception is what we compare
            result = exc
        out.append(normalize(result))
    return out[0], out[1]


def same_on_both(program):
    mine, theirs = run_both(program)
    assert mine == theirs, f"\nleafgrad: {mine}\ntorch:    {theirs}"
    return mine


def grad_fn_names(t):
    """The names of ``t.grad_fn`` and its next functions, depth-first (an inspectable shape)."""
    out = []
    stack = [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None:
            out.append(None)
            continue
        out.append(type(fn).__name__)
        stack.extend(f for f, _ in reversed(fn.next_functions))
    return out
