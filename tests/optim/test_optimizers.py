"""Optimizers against PyTorch: 10-step float64 (and float32) trajectories from the same
start and the same gradients, with parameters whose grad is None on some steps and zero on
others; state, state dicts, versions, hyper-parameter errors."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import leafgrad

SHAPES = [(3, 2), (4,), (2,)]

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.05, maximize=True, eps=1e-3)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.05, weight_decay=0.3, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1,
                     initial_accumulator_value=0.2)),
]


def grads_for(step, seed=0):
    """Gradients of step ``step``: p0 random, p1 zero (still a gradient), p2 None on odd
    steps."""
    rng = np.random.default_rng(seed + step)
    g = [rng.standard_normal(SHAPES[0]), np.zeros(SHAPES[1]), rng.standard_normal(SHAPES[2])]
    if step % 2 == 1:
        g[2] = None
    return g


def make_params(lib, dtype):
    rng = np.random.default_rng(42)
    return [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(dtype)))
            for s in SHAPES]


def set_grads(lib, params, grads, dtype):
    for p, g in zip(params, grads):
        p.grad = None if g is None else lib.tensor(g.astype(dtype))


def compare_state(mine, theirs, pm, pt, rtol):
    for a, b in zip(pm, pt):
        sm, st = mine.state.get(a, {}), theirs.state.get(b, {})
        assert sorted(sm) == sorted(st)
        for key in st:
            vm, vt = sm[key], st[key]
            if isinstance(vt, torch.Tensor):
                assert str(vm.dtype) == str(vt.dtype), key
                np.testing.assert_allclose(vm.numpy(), vt.numpy(), rtol=rtol, atol=rtol,
                                           err_msg=key)
            else:
                assert vm == vt, key


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kwargs", CONFIGS)
def test_trajectory_matches_torch(name, kwargs, dtype):
    rtol = 1e-12 if dtype == "float64" else 1e-5
    pm, pt = make_params(leafgrad, dtype), make_params(torch, dtype)
    mine = getattr(leafgrad.optim, name)(pm, **kwargs)
    theirs = getattr(torch.optim, name)(pt, **kwargs)
    for step in range(10):
        grads = grads_for(step)
        set_grads(leafgrad, pm, grads, dtype)
        set_grads(torch, pt, grads, dtype)
        assert mine.step() is None and theirs.step() is None
        for i, (a, b) in enumerate(zip(pm, pt)):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol,
                                       atol=rtol, err_msg=f"step {step} param {i}")
            assert a._version == b._version, f"step {step} param {i} version"
            assert a.is_leaf and a.requires_grad and a.grad_fn is None
        compare_state(mine, theirs, pm, pt, rtol)


@pytest.mark.parametrize("name,kwargs", CONFIGS[1:3] + CONFIGS[6:7] + CONFIGS[11:12])
def test_state_dict_roundtrip_continues_trajectory(name, kwargs):
    pm, pt = make_params(leafgrad, "float64"), make_params(torch, "float64")
    mine = getattr(leafgrad.optim, name)(pm, **kwargs)
    theirs = getattr(torch.optim, name)(pt, **kwargs)
    for step in range(3):
        set_grads(leafgrad, pm, grads_for(step), "float64")
        set_grads(torch, pt, grads_for(step), "float64")
        mine.step()
        theirs.step()
    sd_m, sd_t = mine.state_dict(), theirs.state_dict()
    assert sd_m["param_groups"] == sd_t["param_groups"]
    assert sorted(sd_m["state"]) == sorted(sd_t["state"])
    # A fresh optimizer over copies of the parameters, loaded from the saved state,
    # continues exactly where the first one would have.
    pm2 = [leafgrad.nn.Parameter(p.detach().clone()) for p in pm]
    mine2 = getattr(leafgrad.optim, name)(pm2, lr=123.0)
    mine2.load_state_dict(copy.deepcopy(sd_m))
    assert mine2.param_groups[0]["lr"] == kwargs["lr"]
    for step in range(3, 6):
        for params in (pm, pm2):
            set_grads(leafgrad, params, grads_for(step), "float64")
        set_grads(torch, pt, grads_for(step), "float64")
        mine.step()
        mine2.step()
        theirs.step()
    for a, b, c in zip(pm, pm2, pt):
        np.testing.assert_allclose(a.detach().numpy(), c.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(b.detach().numpy(), c.detach().numpy(), rtol=1e-12)


def test_param_groups_and_add_param_group():
    a, b = leafgrad.nn.Parameter(leafgrad.ones(2)), leafgrad.nn.Parameter(leafgrad.ones(3))
    at, bt = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(3))
    mine = leafgrad.optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1,
                              momentum=0.9)
    theirs = torch.optim.SGD([{"params": [at]}, {"params": bt, "lr": 0.5}], lr=0.1,
                             momentum=0.9)
    strip = [{k: v for k, v in g.items() if k != "params"} for g in mine.param_groups]
    strip_t = [{k: v for k, v in g.items() if k != "params"} for g in theirs.param_groups]
    assert strip == strip_t
    assert repr(mine) == repr(theirs)
    c, ct = leafgrad.nn.Parameter(leafgrad.ones(1)), torch.nn.Parameter(torch.ones(1))
    mine.add_param_group({"params": c, "momentum": 0.0})
    theirs.add_param_group({"params": ct, "momentum": 0.0})
    assert repr(mine) == repr(theirs)
    assert mine.state_dict()["param_groups"] == theirs.state_dict()["param_groups"]


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("call", [
    "SGD([], lr=0.1)",
    "SGD([w * 2], lr=0.1)",
    "SGD(w, lr=0.1)",
    "SGD([w], lr=-1)",
    "SGD([w], lr=0.1, momentum=-0.5)",
    "SGD([w], lr=0.1, weight_decay=-1)",
    "SGD([w], lr=0.1, nesterov=True)",
    "SGD([w], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)",
    "SGD([{'params': [w]}, {'params': [w]}], lr=0.1)",
    "SGD([{'params': {w}}], lr=0.1)",
    "SGD([1.0], lr=0.1)",
    "Adam([w], lr=-0.1)",
    "Adam([w], eps=-1.0)",
    "Adam([w], betas=(1.0, 0.9))",
    "Adam([w], betas=(0.9, -0.1))",
    "Adam([w], weight_decay=-0.1)",
    "AdamW([w], lr=-0.1)",
    "RMSprop([w], alpha=-0.1)",
    "RMSprop([w], momentum=-0.1)",
    "Adagrad([w], lr_decay=-0.1)",
    "Adagrad([w], initial_accumulator_value=-0.1)",
    "Adagrad([w], eps=-1.0)",
])
def test_constructor_errors_match_torch(call):
    outcomes = []
    for lib in (leafgrad, torch):
        w = lib.nn.Parameter(lib.ones(2))
        outcomes.append(error_of(lambda: eval(call, {"w": w, **vars(lib.optim)})))
    assert outcomes[0] is not None and outcomes[0] == outcomes[1]


def test_zero_grad_and_none_skip():
    for lib in (leafgrad, torch):
        w = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.5)
        opt.step()                                   # no grad at all: nothing moves
        assert w.tolist() == [1.0, 1.0] and len(opt.state) == 0 and w._version == 0
        w.grad = lib.zeros(2)                        # a zero grad is still a grad
        opt.step()
        assert w.tolist() != [1.0, 1.0]
        g = w.grad
        opt.zero_grad(set_to_none=False)
        assert w.grad is g and w.grad.tolist() == [0.0, 0.0]
        opt.zero_grad()
        assert w.grad is None


def test_training_loop_with_module_matches_torch():
    def build(lib):
        lib_nn = lib.nn
        return lib_nn.Sequential(lib_nn.Linear(3, 5), lib_nn.Tanh(), lib_nn.Linear(5, 1))
    mine, theirs = build(leafgrad).double(), build(torch).double()
    mine.load_state_dict({k: leafgrad.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    opt_m = leafgrad.optim.Adam(mine.parameters(), lr=0.05)
    opt_t = torch.optim.Adam(theirs.parameters(), lr=0.05)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((16, 3)), rng.standard_normal((16, 1))
    for _ in range(10):
        for model, opt, lib in ((mine, opt_m, leafgrad), (theirs, opt_t, torch)):
            opt.zero_grad()
            loss = ((model(lib.tensor(x)) - lib.tensor(y)) ** 2).mean()
            loss.backward()
            opt.step()
    for (n, a), (_, b) in zip(mine.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   err_msg=n)


def test_step_closure_and_hooks():
    w = leafgrad.nn.Parameter(leafgrad.tensor([2.0]))
    opt = leafgrad.optim.SGD([w], lr=0.25)
    seen = []
    opt.register_step_pre_hook(lambda o, a, k: seen.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: seen.append("post"))

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 4.0 and w.item() == 1.0 and seen == ["pre", "post"]
