"""optim.swa_utils against PyTorch 2.13: AveragedModel (default running mean, EMA avg_fn
and multi_avg_fn, use_buffers), SWALR lr sequences, update_bn, errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from oracle import same_on_both

import leafgrad


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(),
                             lib.nn.Linear(4, 1)).double()


def _sync(mine, theirs):
    mine.load_state_dict({k: leafgrad.tensor(v.numpy()) for k, v in
                          theirs.state_dict().items()})


@pytest.mark.parametrize("mode", ["default", "ema", "ema_multi", "swa_multi", "buffers"])
def test_averaged_model_matches_torch(mode):
    models, swas = [], []
    for lib in (leafgrad, torch):
        model = _model(lib)
        U = lib.optim.swa_utils
        kwargs = {"default": {}, "ema": {"avg_fn": U.get_ema_avg_fn(0.9)},
                  "ema_multi": {"multi_avg_fn": U.get_ema_multi_avg_fn(0.8)},
                  "swa_multi": {"multi_avg_fn": U.get_swa_multi_avg_fn()},
                  "buffers": {"use_buffers": True}}[mode]
        models.append(model)
        swas.append(kwargs)
    _sync(models[0], models[1])
    swas = [lib.optim.swa_utils.AveragedModel(m, **kw)
            for lib, m, kw in zip((leafgrad, torch), models, swas)]
    opts = [lib.optim.SGD(m.parameters(), lr=0.1) for lib, m in zip((leafgrad, torch), models)]
    rng = np.random.default_rng(0)
    for _ in range(5):
        x = rng.standard_normal((8, 3))
        for lib, m, opt, swa in zip((leafgrad, torch), models, opts, swas):
            opt.zero_grad()
            m(lib.tensor(x)).pow(2).mean().backward()
            opt.step()
            swa.update_parameters(m)
    sd_m, sd_t = swas[0].state_dict(), swas[1].state_dict()
    assert list(sd_m) == list(sd_t)
    for k in sd_t:
        np.testing.assert_allclose(sd_m[k].numpy(), sd_t[k].numpy(), rtol=1e-12, err_msg=k)
        assert str(sd_m[k].dtype) == str(sd_t[k].dtype), k
    x = rng.standard_normal((4, 3))
    for s in swas:
        s.eval()
    np.testing.assert_allclose(swas[0](leafgrad.tensor(x)).detach().numpy(),
                               swas[1](torch.tensor(x)).detach().numpy(), rtol=1e-12)


def test_update_bn_matches_torch():
    models = [_model(leafgrad), _model(torch)]
    _sync(*models)
    rng = np.random.default_rng(1)
    batches = [rng.standard_normal((6, 3)) for _ in range(4)]
    for lib, m in zip((leafgrad, torch), models):
        m.eval()
        loader = [(lib.tensor(b), 0) for b in batches]
        lib.optim.swa_utils.update_bn(loader, m)
        assert not m.training and m[1].momentum == 0.1
    sd_m, sd_t = models[0].state_dict(), models[1].state_dict()
    for k in sd_t:
        np.testing.assert_allclose(sd_m[k].numpy(), sd_t[k].numpy(), rtol=1e-12, err_msg=k)


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.05), dict(swa_lr=[0.05, 0.5], anneal_epochs=4,
                                                            anneal_strategy="linear"),
                                    dict(swa_lr=0.01, anneal_epochs=0)])
def test_swalr_sequences(kwargs):
    def prog(t):
        params = [t.nn.Parameter(t.zeros(1)) for _ in range(2)]
        opt = t.optim.SGD([{"params": [params[0]]}, {"params": [params[1]], "lr": 0.3}],
                          lr=1.0)
        sched = t.optim.swa_utils.SWALR(opt, **kwargs)
        seen = [[round(v, 12) for v in sched.get_last_lr()]]
        for _ in range(15):
            opt.step()
            sched.step()
            seen.append([round(v, 12) for v in sched.get_last_lr()])
        return seen, sorted(sched.state_dict())
    same_on_both(prog)


@pytest.mark.parametrize("code", [
    "U.SWALR(opt, swa_lr=0.1, anneal_strategy='step')",
    "U.SWALR(opt, swa_lr=0.1, anneal_epochs=-1)",
    "U.SWALR(opt, swa_lr=[0.1, 0.2])",
    "U.get_ema_avg_fn(1.5)",
    "U.get_ema_multi_avg_fn(-0.1)",
    "U.AveragedModel(t.nn.Linear(1, 1), avg_fn=U.get_swa_avg_fn(), "
    "multi_avg_fn=U.get_swa_multi_avg_fn())",
])
def test_errors(code):
    def prog(t):
        opt = t.optim.SGD([t.nn.Parameter(t.zeros(1))], lr=0.1)
        eval(code, {"U": t.optim.swa_utils, "opt": opt, "t": t})
        return "no error"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_on_both(prog)
