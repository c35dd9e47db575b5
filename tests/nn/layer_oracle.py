"""Run one nn.functional call on leafgrad and on torch, compare outputs, grad_fn names, first
and second derivatives (used by test_conv.py, test_pooling.py, test_batchnorm.py)."""
from __future__ import annotations

import numpy as np
import torch

import leafgrad

TOL = {"float64": {"atol": 1e-10, "rtol": 1e-9}, "float32": {"atol": 2e-5, "rtol": 2e-4}}


def both(value, dtype="float64", requires_grad=True):
    """A NumPy array -> (leafgrad tensor, torch tensor) in ``dtype``; None and other values
    pass through unchanged."""
    if not isinstance(value, np.ndarray):
        return value, value
    a = value.astype(dtype) if value.dtype.kind == "f" else value
    rg = requires_grad and a.dtype.kind == "f"
    return (leafgrad.tensor(a.copy(), requires_grad=rg), torch.tensor(a.copy(),
                                                                        requires_grad=rg))


def close(mine, theirs, dtype, what):
    assert str(mine.dtype) == str(theirs.dtype), f"{what}: {mine.dtype} != {theirs.dtype}"
    assert tuple(mine.shape) == tuple(theirs.shape), \
        f"{what}: {tuple(mine.shape)} != {tuple(theirs.shape)}"
    a = mine.detach().numpy()
    b = theirs.detach().numpy()
    if a.dtype.kind in "biu":
        np.testing.assert_array_equal(a, b, err_msg=what)
    else:
        np.testing.assert_allclose(a, b, equal_nan=True, err_msg=what, **TOL[dtype])


def name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def check(fn: str, args: tuple, kwargs: dict | None = None, dtype: str = "float64",
          second: bool = True, seed: int = 0):
    """Call ``F.<fn>(*args, **kwargs)`` on both; float arrays in ``args`` become tensors
    requiring grad. Compares output 0 (and any further outputs), grad_fn, the gradients of
    every tensor argument for a random cotangent, and (``second``) the gradients of
    ``sum(grads * w)`` w.r.t. the inputs and the cotangent."""
    kwargs = kwargs or {}
    pairs = [both(a, dtype) for a in args]
    mine_args = [p[0] for p in pairs]
    their_args = [p[1] for p in pairs]
    mine = getattr(leafgrad.nn.functional, fn)(*mine_args, **kwargs)
    theirs = getattr(torch.nn.functional, fn)(*their_args, **kwargs)
    if isinstance(theirs, tuple):
        for i, (m, t) in enumerate(zip(mine, theirs)):
            close(m, t, dtype, f"{fn} output {i}")
        mine, theirs = mine[0], theirs[0]
    close(mine, theirs, dtype, f"{fn} output")
    assert name(mine) == name(theirs), f"{fn}: grad_fn {name(mine)} != {name(theirs)}"
    leaves = [i for i, t in enumerate(their_args)
              if isinstance(t, torch.Tensor) and t.requires_grad]
    if not leaves or not theirs.requires_grad:
        return mine, theirs
    rng = np.random.default_rng(seed)
    cot = rng.standard_normal(tuple(theirs.shape)).astype(dtype)
    cot_m = leafgrad.tensor(cot, requires_grad=second)
    cot_t = torch.tensor(cot, requires_grad=second)
    gm = leafgrad.autograd.grad(mine, [mine_args[i] for i in leaves], cot_m,
                                create_graph=second, allow_unused=True)
    gt = torch.autograd.grad(theirs, [their_args[i] for i in leaves], cot_t,
                             create_graph=second, allow_unused=True)
    for i, a, b in zip(leaves, gm, gt):
        assert (a is None) == (b is None), f"{fn}: grad of arg {i} None-ness"
        if b is not None:
            close(a, b, dtype, f"{fn} grad of arg {i}")
    if not second:
        return mine, theirs
    total_m = total_t = 0
    for a, b in zip(gm, gt):
        if b is not None:
            w = rng.standard_normal(tuple(b.shape)).astype(dtype)
            total_m = total_m + (a * leafgrad.tensor(w)).sum()
            total_t = total_t + (b * torch.tensor(w)).sum()
    targets_m = [mine_args[i] for i in leaves] + [cot_m]
    targets_t = [their_args[i] for i in leaves] + [cot_t]
    ggm = leafgrad.autograd.grad(total_m, targets_m, allow_unused=True)
    ggt = torch.autograd.grad(total_t, targets_t, allow_unused=True)
    for i, (a, b) in enumerate(zip(ggm, ggt)):
        if b is None:
            assert a is None or not np.any(a.detach().numpy()), f"{fn}: grad-grad {i}"
        elif a is None:
            assert not np.any(b.detach().numpy()), f"{fn}: grad-grad {i} missing"
        else:
            close(a, b, dtype, f"{fn} grad-grad {i}")
    return mine, theirs


def same_error(fn_mine, fn_theirs):
    """Both raise: same exception type and message."""
    err_t = err_m = None
    try:
        fn_theirs()
    except Exception as e:  # noqa: BLE001
        err_t = e
    try:
        fn_mine()
    except Exception as e:  # noqa: BLE001
        err_m = e
    assert err_t is not None, "torch did not raise"
    assert err_m is not None, f"leafgrad did not raise; torch raised {err_t!r}"
    assert type(err_m).__name__ == type(err_t).__name__, (err_m, err_t)
    assert str(err_m) == str(err_t), f"\nmine:   {err_m}\ntheirs: {err_t}"


def copy_state(mine, theirs) -> None:
    """Load the torch module's parameters and buffers into the leafgrad module."""
    mine.load_state_dict({k: leafgrad.tensor(v.detach().numpy().copy())
                          for k, v in theirs.state_dict().items()})
