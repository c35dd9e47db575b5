"""LR schedulers against PyTorch: the lr sequence over 12 epochs, two param groups."""
from __future__ import annotations

import warnings

import pytest
import torch

import leafgrad

SCHEDULERS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=5, eta_min=0.01)),
    ("LambdaLR", dict(lr_lambda=lambda epoch: 1.0 / (epoch + 1))),
    ("LinearLR", dict(start_factor=0.25, total_iters=4)),
    ("LinearLR", dict(start_factor=1.0, end_factor=0.5, total_iters=3)),
]


def lr_sequence(lib, name, kwargs):
    w1, w2 = lib.nn.Parameter(lib.ones(1)), lib.nn.Parameter(lib.ones(1))
    opt = lib.optim.SGD([{"params": [w1]}, {"params": [w2], "lr": 0.5}], lr=0.1)
    sched = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
    seq = [sched.get_last_lr()]
    for _ in range(12):
        opt.step()
        sched.step()
        seq.append(sched.get_last_lr() + [g["lr"] for g in opt.param_groups])
    return seq, sched


@pytest.mark.parametrize("name,kwargs", SCHEDULERS)
def test_lr_sequence_matches_torch(name, kwargs):
    mine, sched_m = lr_sequence(leafgrad, name, kwargs)
    theirs, sched_t = lr_sequence(torch, name, kwargs)
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        assert a == pytest.approx(b, rel=1e-12)
    assert sched_m.last_epoch == sched_t.last_epoch
    assert sched_m.base_lrs == sched_t.base_lrs


def test_step_before_optimizer_warns_like_torch():
    messages = []
    for lib in (leafgrad, torch):
        w = lib.nn.Parameter(lib.ones(1))
        opt = lib.optim.SGD([w], lr=0.1)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()
        messages.append([str(c.message) for c in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


def test_linear_lr_errors_match_torch():
    for kwargs in (dict(start_factor=0.0), dict(end_factor=1.5)):
        errors = []
        for lib in (leafgrad, torch):
            opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
            try:
                lib.optim.lr_scheduler.LinearLR(opt, **kwargs)
            except ValueError as e:
                errors.append(str(e))
        assert len(errors) == 2 and errors[0] == errors[1]
