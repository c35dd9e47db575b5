# learning-rate schedules a tutorial plots (warmup, one-cycle, cosine restarts, chained) and the
# optimizers side by side on the same problem
import torch
from torch import nn, optim
from torch.optim import lr_scheduler as sch

torch.manual_seed(0)


def run(make_sched, steps=12, lr=0.1, opt_cls=optim.SGD, **opt_kw):
    w = nn.Parameter(torch.tensor([1.0, -1.0]))
    opt = opt_cls([w], lr=lr, **opt_kw)
    s = make_sched(opt)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        (w ** 2).sum().backward()
        opt.step()
        s.step()
        out.append(round(s.get_last_lr()[0], 6))
    return type(s).__name__, out


print(*run(lambda o: sch.LinearLR(o, start_factor=0.25, total_iters=4)))
print(*run(lambda o: sch.ConstantLR(o, factor=0.5, total_iters=3)))
print(*run(lambda o: sch.OneCycleLR(o, max_lr=1.0, total_steps=12)))
print(*run(lambda o: sch.OneCycleLR(o, max_lr=0.5, total_steps=12, anneal_strategy="linear", three_phase=True)))
print(*run(lambda o: sch.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2, eta_min=0.01)))
print(*run(lambda o: sch.CosineAnnealingLR(o, T_max=6)))
print(*run(lambda o: sch.PolynomialLR(o, total_iters=8, power=2.0)))
print(*run(lambda o: sch.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3)))
print(*run(lambda o: sch.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2"), momentum=0.9))
print(*run(lambda o: sch.SequentialLR(o, [sch.LinearLR(o, 0.1, total_iters=3), sch.ExponentialLR(o, 0.8)], milestones=[3])))
print(*run(lambda o: sch.ChainedScheduler([sch.ConstantLR(o, 0.5, total_iters=4), sch.ExponentialLR(o, 0.9)])))
print(*run(lambda o: sch.MultiplicativeLR(o, lambda epoch: 0.95)))
print(*run(lambda o: sch.LambdaLR(o, lambda step: min(1.0, (step + 1) / 5) * 0.5 ** (step // 6))))

# warmup by hand: the transformer schedule
d_model, warmup = 16, 4
w = nn.Parameter(torch.ones(2))
opt = optim.Adam([w], lr=1.0, betas=(0.9, 0.98), eps=1e-9)
noam = sch.LambdaLR(opt, lambda step: d_model ** -0.5 * min((step + 1) ** -0.5, (step + 1) * warmup ** -1.5))
lrs = []
for _ in range(8):
    opt.step()
    noam.step()
    lrs.append(f"{opt.param_groups[0]['lr']:.5f}")
print(lrs, noam.state_dict()["last_epoch"])

# ReduceLROnPlateau on a validation loss that stops improving
w = nn.Parameter(torch.ones(1))
opt = optim.SGD([w], lr=1.0)
plateau = sch.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1, threshold=0.01)
for val in [1.0, 0.9, 0.95, 0.92, 0.91, 0.89, 0.9, 0.9, 0.9]:
    plateau.step(val)
    print(val, opt.param_groups[0]["lr"], plateau.num_bad_epochs)

# the optimizers on the same least-squares problem
X = torch.randn(32, 5)
y = X @ torch.tensor([1.0, -2.0, 0.5, 3.0, 0.0]) + 0.1 * torch.randn(32)
configs = [
    (optim.SGD, dict(lr=0.05)),
    (optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True)),
    (optim.SGD, dict(lr=0.05, weight_decay=0.01, dampening=0.1, momentum=0.5)),
    (optim.Adam, dict(lr=0.1)),
    (optim.Adam, dict(lr=0.1, amsgrad=True, weight_decay=0.01)),
    (optim.AdamW, dict(lr=0.1)),
    (optim.RMSprop, dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True)),
    (optim.Adagrad, dict(lr=0.5, lr_decay=0.01)),
    (optim.Adadelta, dict(lr=1.0)),
    (optim.Adamax, dict(lr=0.1)),
    (optim.NAdam, dict(lr=0.1)),
    (optim.RAdam, dict(lr=0.1)),
    (optim.Rprop, dict(lr=0.01)),
    (optim.ASGD, dict(lr=0.05)),
]
for cls, kw in configs:
    torch.manual_seed(1)
    model = nn.Linear(5, 1)
    opt = cls(model.parameters(), **kw)
    for step in range(15):
        opt.zero_grad()
        loss = ((model(X).squeeze(1) - y) ** 2).mean()
        loss.backward()
        opt.step()
    print(f"{cls.__name__:9s} {str(kw):60s} loss {loss.item():.4f} w0 {model.weight[0, 0].item():.4f}")
print(optim.Adam(model.parameters(), lr=1e-3))
print(optim.SGD([{"params": model.weight}, {"params": model.bias, "lr": 0.5}], lr=0.1, momentum=0.9))
lbfgs_model = nn.Linear(5, 1)
lbfgs = optim.LBFGS(lbfgs_model.parameters(), lr=1, max_iter=20, history_size=5)


def closure():
    lbfgs.zero_grad()
    loss = ((lbfgs_model(X).squeeze(1) - y) ** 2).mean()
    loss.backward()
    return loss


for _ in range(3):
    print(f"LBFGS loss {lbfgs.step(closure).item():.5f}")
