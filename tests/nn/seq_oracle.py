"""Oracle helper for layers with several inputs and outputs (recurrent, attention): run
leafgrad and torch on the same arrays, compare every output, then backward the same random
cotangents and compare the gradients of every float input and every parameter."""
from __future__ import annotations

import numpy as np
import torch
from nn_helpers import assert_close, copy_weights, tol

import leafgrad


def build_pair(build, dtype: str):
    """``build(lib)`` for both libraries, torch's weights copied into leafgrad's."""
    mine, theirs = build(leafgrad), build(torch)
    if dtype == "float64":
        mine.double()
        theirs.double()
    copy_weights(mine, theirs)
    return mine, theirs


def _convert(lib, value, grad: bool):
    if isinstance(value, tuple):
        return tuple(_convert(lib, v, grad) for v in value)
    if isinstance(value, np.ndarray):
        rg = grad and value.dtype.kind == "f"
        return lib.tensor(value.copy(), requires_grad=rg)
    return value


def _flatten(value):
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flatten(v)]
    return [value]


def compare_call(mine, theirs, args, kwargs=None, dtype="float64", call=None, grad=True,
                 seed=0, **tolerance):
    """Call both with ``args``/``kwargs`` (numpy arrays -> tensors, float ones requiring grad),
    compare outputs (None must match None), input grads and parameter grads."""
    kwargs = kwargs or {}
    call = call or (lambda m, *a, **k: m(*a, **k))
    args_t = [_convert(torch, a, grad) for a in args]
    args_m = [_convert(leafgrad, a, grad) for a in args]
    kw_t = {k: _convert(torch, v, grad) for k, v in kwargs.items()}
    kw_m = {k: _convert(leafgrad, v, grad) for k, v in kwargs.items()}
    out_t = _flatten(call(theirs, *args_t, **kw_t))
    out_m = _flatten(call(mine, *args_m, **kw_m))
    t = dict(tol(dtype), **tolerance)
    assert len(out_t) == len(out_m)
    for i, (a, b) in enumerate(zip(out_m, out_t)):
        if b is None:
            assert a is None, f"output {i}: torch gave None"
            continue
        assert_close(a, b, what=f"output {i}", **t)
    if not grad:
        return out_m, out_t
    rng = np.random.default_rng(seed)
    loss_t = loss_m = 0
    for a, b in zip(out_m, out_t):
        if b is None or not b.requires_grad:
            continue
        cot = rng.standard_normal(tuple(b.shape)).astype(dtype)
        loss_t = loss_t + (b * torch.tensor(cot)).sum()
        loss_m = loss_m + (a * leafgrad.tensor(cot)).sum()
    loss_t.backward()
    loss_m.backward()
    ins_t = [x for x in _flatten(args_t) + _flatten(list(kw_t.values()))
             if isinstance(x, torch.Tensor) and x.requires_grad]
    ins_m = [x for x in _flatten(args_m) + _flatten(list(kw_m.values()))
             if isinstance(x, leafgrad.Tensor) and x.requires_grad]
    for i, (a, b) in enumerate(zip(ins_m, ins_t)):
        if b.grad is None:
            assert a.grad is None, f"input {i}"
        else:
            assert_close(a.grad, b.grad, what=f"grad of input {i}", **t)
    mine_params = dict(mine.named_parameters())
    for name, p in theirs.named_parameters():
        if p.grad is None:
            assert mine_params[name].grad is None, name
        else:
            assert_close(mine_params[name].grad, p.grad, what=f"grad of {name}", **t)
    return out_m, out_t
