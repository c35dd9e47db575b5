"""ConstantLR, MultiplicativeLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR,
SequentialLR and ChainedScheduler against PyTorch 2.13: lr (and momentum) sequences over
~30 steps, state dicts, warnings, errors."""
from __future__ import annotations

import warnings

import pytest
import torch
from oracle import same_on_both

import leafgrad


def _opt(lib, kind="sgd", groups=1):
    params = [lib.nn.Parameter(lib.zeros(2)) for _ in range(groups)]
    spec = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(params)]
    if kind == "sgd":
        return lib.optim.SGD(spec, lr=0.1, momentum=0.9)
    return lib.optim.Adam(spec, lr=0.1)


SIMPLE = [
    ("ConstantLR", dict()),
    ("ConstantLR", dict(factor=0.5, total_iters=7)),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.95)),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 1.0 if e % 3 else 0.5)),
    ("PolynomialLR", dict()),
    ("PolynomialLR", dict(total_iters=20, power=2.0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=5)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.01)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=[0.1, 0.3], step_size_up=3, step_size_down=5,
                      mode="triangular2")),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4, mode="exp_range",
                      gamma=0.9)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, cycle_momentum=False,
                      scale_fn=lambda x: 0.5 ** x, scale_mode="iterations")),
]


@pytest.mark.parametrize("kind", ["sgd", "adam"])
@pytest.mark.parametrize("name,kwargs", SIMPLE)
def test_sequences(name, kwargs, kind):
    def prog(t):
        opt = _opt(t, kind, groups=2)
        sched = getattr(t.optim.lr_scheduler, name)(opt, **kwargs)
        seen = [[round(x, 12) for x in sched.get_last_lr()]]
        for _ in range(30):
            opt.step()
            sched.step()
            g = opt.param_groups[0]
            seen.append([round(x, 12) for x in sched.get_last_lr()]
                        + [round(g["lr"], 12), round(g["betas"][0] if kind == "adam"
                                                     else g["momentum"], 12)])
        state = sched.state_dict()
        return seen, sorted(state), state["last_epoch"]
    same_on_both(prog)


def test_warm_restarts_fractional_epochs():
    def prog(t):
        opt = _opt(t)
        sched = t.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
        seen = []
        for epoch in range(8):
            for i in range(4):
                opt.step()
                sched.step(epoch + i / 4)
                seen.append((round(sched.get_last_lr()[0], 12), sched.last_epoch,
                             round(float(sched.T_cur), 12), sched.T_i))
        return seen
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_on_both(prog)


@pytest.mark.parametrize("which", ["sequential", "chained", "sequential3"])
def test_combinators(which):
    def prog(t):
        S = t.optim.lr_scheduler
        opt = _opt(t, groups=2)
        if which == "sequential":
            sched = S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.1, total_iters=4),
                                         S.ExponentialLR(opt, gamma=0.9)], milestones=[5])
        elif which == "sequential3":
            sched = S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.5, total_iters=3),
                                         S.CosineAnnealingLR(opt, T_max=6),
                                         S.StepLR(opt, step_size=3, gamma=0.5)],
                                   milestones=[4, 12])
        else:
            sched = S.ChainedScheduler([S.ConstantLR(opt, factor=0.1, total_iters=2),
                                        S.ExponentialLR(opt, gamma=0.9)])
        seen = [[round(x, 12) for x in sched.get_last_lr()]]
        for _ in range(30):
            opt.step()
            sched.step()
            seen.append([round(x, 12) for x in sched.get_last_lr()])
        state = sched.state_dict()
        return seen, sorted(state), [sorted(s) for s in state["_schedulers"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_on_both(prog)


def test_state_dict_roundtrip():
    def prog(t):
        S = t.optim.lr_scheduler
        out = []
        for make in (lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3),
                     lambda o: S.PolynomialLR(o, total_iters=9),
                     lambda o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.5, total_iters=2),
                                                  S.ExponentialLR(o, gamma=0.8)], [3])):
            opt = _opt(t)
            sched = make(opt)
            for _ in range(5):
                opt.step()
                sched.step()
            saved = sched.state_dict()
            opt2 = _opt(t)
            opt2.load_state_dict(opt.state_dict())
            sched2 = make(opt2)
            sched2.load_state_dict(saved)
            for _ in range(5):
                for o, s in ((opt, sched), (opt2, sched2)):
                    o.step()
                    s.step()
            out.append((sched.get_last_lr(), sched2.get_last_lr()))
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_on_both(prog)


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


@pytest.mark.parametrize("name,kwargs", [SIMPLE[0], SIMPLE[2], SIMPLE[4], SIMPLE[8]])
def test_step_before_optimizer_step_warns(name, kwargs):
    def prog(t):
        opt = _opt(t)
        sched = getattr(t.optim.lr_scheduler, name)(opt, **kwargs)
        return _warnings_of(sched.step), _warnings_of(sched.get_lr)
    same_on_both(prog)


@pytest.mark.parametrize("code", [
    "S.ConstantLR(opt, factor=1.5)",
    "S.MultiplicativeLR(opt, lr_lambda=3)",
    "S.MultiplicativeLR(opt, lr_lambda=[lambda e: 1.0] * 2)",
    "S.CosineAnnealingWarmRestarts(opt, T_0=0)",
    "S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0)",
    "S.CosineAnnealingWarmRestarts(opt, T_0=2, eta_min='x')",
    "S.CosineAnnealingWarmRestarts(opt, T_0=2).step(-1)",
    "S.CyclicLR(opt, 0.1, 1.0, mode='sawtooth')",
    "S.CyclicLR(opt, [0.1, 0.2], 1.0)",
    "S.CyclicLR(lib.optim.Adagrad(opt.param_groups[0]['params']), 0.1, 1.0)",
    "S.SequentialLR(opt, [], milestones=[])",
    "S.SequentialLR(opt, [S.StepLR(opt, 2)], milestones=[3])",
    "S.SequentialLR(opt, [S.StepLR(opt, 2), S.ReduceLROnPlateau(opt)], milestones=[3])",
    "S.SequentialLR(opt, [S.StepLR(opt, 2), 1], milestones=[3])",
    "S.ChainedScheduler([])",
    "S.ChainedScheduler([S.StepLR(opt, 2), S.StepLR(other, 2)])",
])
def test_errors(code):
    def prog(t):
        opt = _opt(t)
        other = t.optim.SGD([t.nn.Parameter(t.zeros(1))], lr=0.1)
        eval(code, {"S": t.optim.lr_scheduler, "opt": opt, "other": other, "lib": t})
        return "no error"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_on_both(prog)


def test_exports():
    for name in ("ConstantLR", "MultiplicativeLR", "PolynomialLR", "CosineAnnealingWarmRestarts",
                 "CyclicLR", "SequentialLR", "ChainedScheduler"):
        assert name in leafgrad.optim.lr_scheduler.__all__
        assert issubclass(getattr(leafgrad.optim.lr_scheduler, name),
                          leafgrad.optim.lr_scheduler.LRScheduler)
        assert issubclass(getattr(torch.optim.lr_scheduler, name),
                          torch.optim.lr_scheduler.LRScheduler)
