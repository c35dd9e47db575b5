"""LBFGS against PyTorch 2.13: float64 trajectories (plain and strong-Wolfe line search,
small history, tolerances), closure call counts, state keys and values, versions, errors."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import torch

import leafgrad

CONFIGS = [
    dict(),
    dict(lr=0.5, max_iter=7),
    dict(history_size=3, max_iter=10, max_eval=12),
    dict(line_search_fn="strong_wolfe"),
    dict(line_search_fn="strong_wolfe", history_size=2, max_iter=5),
    dict(tolerance_grad=1e-3, tolerance_change=1e-4, line_search_fn="strong_wolfe"),
]


def problem(lib, dtype="float64"):
    """A mild Rosenbrock in 2-d plus a small least-squares fit (well enough conditioned
    that rounding differences in dot products do not grow over 4 steps), and a third
    parameter whose grad stays None, which LBFGS treats as zero."""
    x = lib.nn.Parameter(lib.tensor([-0.8, 1.0], dtype=getattr(lib, dtype)))
    rng = np.random.default_rng(0)
    A, b = rng.standard_normal((5, 3)), rng.standard_normal(5)
    w = lib.nn.Parameter(lib.tensor(rng.standard_normal(3), dtype=getattr(lib, dtype)))
    unused = lib.nn.Parameter(lib.zeros(2, dtype=getattr(lib, dtype)))
    A, b = lib.tensor(A, dtype=getattr(lib, dtype)), lib.tensor(b, dtype=getattr(lib, dtype))
    calls = []

    def closure_for(opt):
        def closure():
            opt.zero_grad()
            loss = (1 - x[0]) ** 2 + 5 * (x[1] - x[0] ** 2) ** 2 + ((A @ w - b) ** 2).sum()
            loss.backward()
            calls.append(loss.item())
            return loss
        return closure
    return [x, w, unused], closure_for, calls


def state_view(opt, first):
    st = opt.state[first]
    out = {}
    for k, v in st.items():
        if isinstance(v, list):
            out[k] = [None if e is None else np.asarray(e.tolist()) for e in v]
        elif hasattr(v, "tolist"):
            out[k] = np.asarray(v.tolist())
        else:
            out[k] = v
    return out


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_trajectory_matches_torch(kwargs):
    runs = []
    for lib in (leafgrad, torch):
        params, closure_for, calls = problem(lib)
        opt = lib.optim.LBFGS(params, **kwargs)
        closure = closure_for(opt)
        traj = []
        with warnings.catch_warnings():
            warnings.simplefilter("error")          # no warning in either library
            for _ in range(4):
                loss = opt.step(closure)
                traj.append((loss.item(), [p.detach().numpy().copy() for p in params],
                             [p._version for p in params]))
        runs.append((traj, calls, state_view(opt, params[0]), opt))
    (tm, cm, sm, om), (tt, ct, st, ot) = runs
    assert len(cm) == len(ct)
    np.testing.assert_allclose(cm, ct, rtol=1e-9)
    for (lm, pm, vm), (lt, pt, vt) in zip(tm, tt):
        np.testing.assert_allclose(lm, lt, rtol=1e-9)
        for a, b in zip(pm, pt):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
        assert vm == vt
    assert list(sm) == list(st)
    for key in st:
        if isinstance(st[key], list):
            assert len(sm[key]) == len(st[key]), key
            for a, b in zip(sm[key], st[key]):
                assert (a is None) == (b is None), key
                if a is not None:
                    np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-10, err_msg=key)
        else:
            np.testing.assert_allclose(sm[key], st[key], rtol=1e-7, atol=1e-10, err_msg=key)
    assert om.defaults == ot.defaults
    assert om.state_dict()["param_groups"] == ot.state_dict()["param_groups"]


def test_state_dict_roundtrip_continues():
    """A fresh LBFGS over copies of the parameters, loaded from a state dict mid-run,
    continues as the original does (and as PyTorch's)."""
    results = []
    for lib in (leafgrad, torch):
        params, closure_for, _ = problem(lib)
        opt = lib.optim.LBFGS(params, history_size=4, max_iter=3)
        opt.step(closure_for(opt))
        params2, closure_for2, _ = problem(lib)
        with lib.no_grad():
            for p, q in zip(params, params2):
                q.copy_(p)
        opt2 = lib.optim.LBFGS(params2, history_size=4, max_iter=3)
        opt2.load_state_dict(copy.deepcopy(opt.state_dict()))
        for o, c in ((opt, closure_for(opt)), (opt2, closure_for2(opt2))):
            for _ in range(2):
                o.step(c)
        results.append(([p.detach().numpy().copy() for p in params],
                        [p.detach().numpy().copy() for p in params2]))
    (a1, a2), (b1, b2) = results
    for x, y, z, w in zip(a1, a2, b1, b2):
        np.testing.assert_allclose(x, y, rtol=1e-12)
        np.testing.assert_allclose(x, z, rtol=1e-9)
        np.testing.assert_allclose(y, w, rtol=1e-9)


@pytest.mark.parametrize("call", [
    "LBFGS([w], lr=-1)",
    "LBFGS([{'params': [w]}, {'params': [v]}])",
    "LBFGS([w], line_search_fn='armijo').step(closure)",
])
def test_errors_match_torch(call):
    outcomes = []
    for lib in (leafgrad, torch):
        w = lib.nn.Parameter(lib.ones(2))
        v = lib.nn.Parameter(lib.ones(2))

        def closure():
            loss = (w * w).sum()
            w.grad = None
            loss.backward()
            return loss
        try:
            eval(call, {"w": w, "v": v, "closure": closure, **vars(lib.optim)})
            outcomes.append(None)
        except Exception as e:
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[0] is not None and outcomes[0] == outcomes[1]


def test_converged_returns_first_loss_without_iterating():
    for lib in (leafgrad, torch):
        w = lib.nn.Parameter(lib.zeros(2))
        opt = lib.optim.LBFGS([w])
        n = []

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            n.append(1)
            return loss
        assert opt.step(closure).item() == 0.0 and len(n) == 1
        assert opt.state[w]["func_evals"] == 1 and opt.state[w]["n_iter"] == 0
