"""OneCycleLR and ReduceLROnPlateau against PyTorch 2.13: lr (and momentum) sequences, errors."""
from __future__ import annotations

import warnings

import pytest
import torch

import leafgrad
from oracle import same_on_both


def _opt(lib, kind="sgd", groups=1):
    params = [lib.nn.Parameter(lib.zeros(2)) for _ in range(groups)]
    spec = [{"params": [p]} for p in params]
    if kind == "sgd":
        return lib.optim.SGD(spec, lr=0.1, momentum=0.9)
    return lib.optim.Adam(spec, lr=0.1)


@pytest.mark.parametrize("kind", ["sgd", "adam"])
@pytest.mark.parametrize("kwargs", [
    dict(max_lr=1.0, total_steps=20),
    dict(max_lr=[1.0, 0.5], total_steps=17, anneal_strategy="linear"),
    dict(max_lr=0.3, epochs=3, steps_per_epoch=5, three_phase=True, pct_start=0.25),
    dict(max_lr=0.3, total_steps=10, cycle_momentum=False, div_factor=10.0),
])
def test_one_cycle_sequences(kind, kwargs):
    def prog(t):
        groups = 2 if isinstance(kwargs.get("max_lr"), list) else 1
        opt = _opt(t, kind, groups)
        sched = t.optim.lr_scheduler.OneCycleLR(opt, **kwargs)
        seen = []
        total = kwargs.get("total_steps") or kwargs["epochs"] * kwargs["steps_per_epoch"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(total - 1):
                opt.step()
                sched.step()
                g = opt.param_groups[0]
                seen.append((round(g["lr"], 12), round(g["betas"][0] if kind == "adam"
                                                       else g["momentum"], 12)))
            opt.step()
            sched.step()
        return seen
    same_on_both(prog)


def test_one_cycle_errors():
    for kwargs in (dict(max_lr=1.0), dict(max_lr=1.0, total_steps=0),
                   dict(max_lr=1.0, total_steps=5, pct_start=1.5),
                   dict(max_lr=1.0, total_steps=5, anneal_strategy="step")):
        same_on_both(lambda t: t.optim.lr_scheduler.OneCycleLR(_opt(t), **kwargs))

    def too_many(t):
        opt = _opt(t)
        sched = t.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
        for _ in range(4):
            opt.step()
            sched.step()
    same_on_both(too_many)


@pytest.mark.parametrize("kwargs", [
    dict(), dict(mode="max", factor=0.5, patience=1), dict(threshold_mode="abs", threshold=0.1,
                                                           patience=0, cooldown=2),
    dict(patience=1, min_lr=0.02, factor=0.3),
])
def test_reduce_on_plateau_sequences(kwargs):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.8, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.9,
               0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]

    def prog(t):
        opt = _opt(t)
        sched = t.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        seen = []
        for m in metrics:
            opt.step()
            sched.step(m)
            seen.append((round(opt.param_groups[0]["lr"], 12), sched.num_bad_epochs,
                         sched.get_last_lr()))
        return seen
    same_on_both(prog)


def test_reduce_on_plateau_errors():
    same_on_both(lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(_opt(t), factor=1.0))
    same_on_both(lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(_opt(t), mode="up"))
    same_on_both(lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(_opt(t),
                                                                  threshold_mode="x"))
    same_on_both(lambda t: t.optim.lr_scheduler.ReduceLROnPlateau(_opt(t), min_lr=[0, 0]))


def test_reduce_on_plateau_takes_a_tensor_metric():
    for lib in (leafgrad, torch):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
        sched.step(lib.tensor(1.0))
        sched.step(lib.tensor(2.0))
        assert opt.param_groups[0]["lr"] == pytest.approx(0.01)
