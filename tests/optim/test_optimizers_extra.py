"""Adadelta, Adamax, NAdam, RAdam, Rprop, ASGD against PyTorch 2.13: 10-step float64 (and
float32) trajectories with parameters whose grad is None on some steps and zero on others,
state names and values, state dicts, versions, hyper-parameter errors, capturable."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import leafgrad

SHAPES = [(3, 2), (4,), (2,)]

CONFIGS = [
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1)),
    ("Adadelta", dict(lr=0.5, maximize=True)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1, eps=1e-3)),
    ("Adamax", dict(lr=0.05, maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.05, weight_decay=0.2, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.05, maximize=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.05, betas=(0.5, 0.6), weight_decay=0.1)),    # rho_t > 5 early
    ("RAdam", dict(lr=0.05, betas=(0.5, 0.6), weight_decay=0.2, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.05, betas=(0.5, 0.6), maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2))),
    ("Rprop", dict(lr=0.05, maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=0, maximize=True, foreach=True)),
    # maximize together with (coupled and decoupled) weight decay
    ("Adadelta", dict(lr=0.5, maximize=True, weight_decay=0.1)),
    ("Adamax", dict(lr=0.05, maximize=True, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, maximize=True, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.05, betas=(0.5, 0.6), maximize=True, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=2, maximize=True, weight_decay=0.1, foreach=True)),
    ("ASGD", dict(lr=0.05, t0=2, maximize=True, weight_decay=0.1)),
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
        assert list(sm) == list(st)
        for key in st:
            vm, vt = sm[key], st[key]
            assert str(vm.dtype) == str(vt.dtype), key
            assert tuple(vm.shape) == tuple(vt.shape), key
            np.testing.assert_allclose(vm.numpy(), vt.numpy(), rtol=rtol, atol=rtol,
                                       err_msg=key)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kwargs", CONFIGS)
def test_trajectory_matches_torch(name, kwargs, dtype):
    rtol = 1e-12 if dtype == "float64" else 1e-5
    pm, pt = make_params(leafgrad, dtype), make_params(torch, dtype)
    mine = getattr(leafgrad.optim, name)(pm, **kwargs)
    theirs = getattr(torch.optim, name)(pt, **kwargs)
    assert mine.defaults == theirs.defaults
    for step in range(10):
        grads = grads_for(step)
        set_grads(leafgrad, pm, grads, dtype)
        set_grads(torch, pt, grads, dtype)
        assert mine.step() is None and theirs.step() is None
        for i, (a, b) in enumerate(zip(pm, pt)):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol,
                                       atol=rtol, err_msg=f"step {step} param {i}")
            assert a._version == b._version, f"step {step} param {i} version"
        compare_state(mine, theirs, pm, pt, rtol)


def test_default_dtype_float64_scalar_state():
    old = torch.get_default_dtype()
    try:
        for lib in (leafgrad, torch):
            lib.set_default_dtype(lib.float64)
        test_trajectory_matches_torch("NAdam", dict(lr=0.05), "float64")
        test_trajectory_matches_torch("ASGD", dict(lr=0.05, t0=2), "float64")
    finally:
        torch.set_default_dtype(old)
        leafgrad.set_default_dtype(getattr(leafgrad, str(old).split(".")[1]))


@pytest.mark.parametrize("name,kwargs", [CONFIGS[1], CONFIGS[7], CONFIGS[11], CONFIGS[15],
                                         CONFIGS[18], CONFIGS[4]])
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
    assert {k: list(v) for k, v in sd_m["state"].items()} == \
        {k: list(v) for k, v in sd_t["state"].items()}
    # Fresh optimizers over copies of the parameters, loaded from the saved states, continue
    # alike (loading casts float state such as NAdam's mu_product to the parameter's dtype,
    # in both libraries).
    pm2 = [leafgrad.nn.Parameter(p.detach().clone()) for p in pm]
    pt2 = [torch.nn.Parameter(p.detach().clone()) for p in pt]
    mine2 = getattr(leafgrad.optim, name)(pm2, lr=123.0)
    theirs2 = getattr(torch.optim, name)(pt2, lr=123.0)
    mine2.load_state_dict(copy.deepcopy(sd_m))
    theirs2.load_state_dict(copy.deepcopy(sd_t))
    compare_state(mine2, theirs2, pm2, pt2, 1e-12)
    for step in range(3, 6):
        for lib, params in ((leafgrad, pm), (leafgrad, pm2), (torch, pt), (torch, pt2)):
            set_grads(lib, params, grads_for(step), "float64")
        for opt in (mine, mine2, theirs, theirs2):
            opt.step()
    for a, b, c, d in zip(pm, pm2, pt, pt2):
        np.testing.assert_allclose(a.detach().numpy(), c.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(b.detach().numpy(), d.detach().numpy(), rtol=1e-12)


def error_of(fn):
    try:
        fn()
    except Exception as e:
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("call", [
    "Adadelta([w], lr=-1)", "Adadelta([w], rho=1.5)", "Adadelta([w], eps=-1.0)",
    "Adadelta([w], weight_decay=-1)",
    "Adamax([w], lr=-0.1)", "Adamax([w], betas=(1.0, 0.9))", "Adamax([w], eps=-1)",
    "NAdam([w], betas=(0.9, 1.0))", "NAdam([w], momentum_decay=-1)",
    "NAdam([w], weight_decay=-1)",
    "RAdam([w], lr=-1)", "RAdam([w], betas=(-0.1, 0.9))",
    "Rprop([w], lr=-1)", "Rprop([w], etas=(1.5, 1.2))", "Rprop([w], etas=(0.5, 0.9))",
    "ASGD([w], lr=-1)", "ASGD([w], weight_decay=-1)",
    "Adamax([w], lr=lib.tensor([0.1, 0.2]))",
])
def test_constructor_errors_match_torch(call):
    outcomes = []
    for lib in (leafgrad, torch):
        w = lib.nn.Parameter(lib.ones(2))
        outcomes.append(error_of(lambda: eval(call, {"w": w, "lib": lib, **vars(lib.optim)})))
    assert outcomes[0] is not None and outcomes[0] == outcomes[1]


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD"])
def test_capturable_on_cpu_fails_like_torch_and_repr(name):
    outcomes = []
    for lib in (leafgrad, torch):
        w = lib.nn.Parameter(lib.ones(2))
        opt = getattr(lib.optim, name)([w], capturable=True)
        opt.step()              # no gradient yet: nothing to check
        w.grad = lib.ones(2)
        outcomes.append((repr(opt), error_of(opt.step)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD"])
def test_tensor_lr(name):
    """A float32 0-d tensor lr stays a tensor in PyTorch's arithmetic (float32 rounding)."""
    pm, pt = make_params(leafgrad, "float64"), make_params(torch, "float64")
    mine = getattr(leafgrad.optim, name)(pm, lr=leafgrad.tensor(0.05), weight_decay=0.1) \
        if name not in ("Rprop",) else leafgrad.optim.Rprop(pm, lr=leafgrad.tensor(0.05))
    theirs = getattr(torch.optim, name)(pt, lr=torch.tensor(0.05), weight_decay=0.1) \
        if name not in ("Rprop",) else torch.optim.Rprop(pt, lr=torch.tensor(0.05))
    for step in range(3):
        set_grads(leafgrad, pm, grads_for(step), "float64")
        set_grads(torch, pt, grads_for(step), "float64")
        mine.step()
        theirs.step()
    for a, b in zip(pm, pt):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
