"""Helpers for the nn/optim/data oracle tests: same weights in both, compare everything."""
from __future__ import annotations

import numpy as np
import torch

import leafgrad


def lg(t: torch.Tensor, requires_grad=None) -> leafgrad.Tensor:
    """A leafgrad copy of a torch tensor (same dtype, values, requires_grad)."""
    rg = t.requires_grad if requires_grad is None else requires_grad
    return leafgrad.tensor(t.detach().numpy().copy(), requires_grad=rg)


def copy_weights(mine, theirs) -> None:
    """Load the torch module's state into the leafgrad module (same dotted names)."""
    mine.load_state_dict({k: lg(v) for k, v in theirs.state_dict().items()})


def assert_close(mine, theirs, atol=1e-6, rtol=1e-5, what=""):
    assert mine is not None and theirs is not None, f"{what}: {mine!r} vs {theirs!r}"
    assert str(mine.dtype) == str(theirs.dtype), f"{what}: {mine.dtype} != {theirs.dtype}"
    assert tuple(mine.shape) == tuple(theirs.shape), f"{what}: {mine.shape} != {theirs.shape}"
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), atol=atol,
                               rtol=rtol, err_msg=what)


def tol(dtype: str) -> dict:
    return {"atol": 1e-12, "rtol": 1e-10} if dtype == "float64" else {"atol": 1e-5,
                                                                      "rtol": 1e-4}


def compare_module(mine, theirs, x: np.ndarray, dtype: str = "float64", grad_input=True,
                   out_grad_seed: int = 0):
    """Forward both on x, backward a fixed random cotangent, compare output, input grad
    and every parameter grad by name."""
    xt = torch.tensor(x, requires_grad=grad_input)
    xm = leafgrad.tensor(x.copy(), requires_grad=grad_input)
    out_t = theirs(xt)
    out_m = mine(xm)
    t = tol(dtype)
    assert_close(out_m, out_t, what="output", **t)
    cot = np.random.default_rng(out_grad_seed).standard_normal(tuple(out_t.shape))
    cot = cot.astype(x.dtype)
    out_t.backward(torch.tensor(cot))
    out_m.backward(leafgrad.tensor(cot))
    if grad_input:
        assert_close(xm.grad, xt.grad, what="input grad", **t)
    mine_params = dict(mine.named_parameters())
    for name, p in theirs.named_parameters():
        assert name in mine_params, name
        if p.grad is None:
            assert mine_params[name].grad is None, name
        else:
            assert_close(mine_params[name].grad, p.grad, what=f"grad of {name}", **t)
    return out_m, out_t


def same_error(fn_mine, fn_theirs):
    """Both raise the same exception type with the same text."""
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
