# resuming training from a checkpoint: model, optimizer and scheduler state (OneCycleLR,
# MultiStepLR, LambdaLR, ReduceLROnPlateau) saved to a temp dir, reloaded, and training
# continues exactly as if never interrupted; DataLoader options newcomers copy from tutorials
import os
import tempfile
import torch
from torch import nn
from torch.optim import lr_scheduler as S
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(17)
X, y = torch.randn(40, 5), torch.randn(40, 1)
loader = DataLoader(TensorDataset(X, y), batch_size=8, shuffle=True, num_workers=2,
                    generator=torch.Generator().manual_seed(4))
print(loader.num_workers, loader.prefetch_factor, len(loader))


def make(kind):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
    if kind == "onecycle":
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
        sched = S.OneCycleLR(opt, max_lr=0.05, total_steps=30)
    elif kind == "multistep":
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
        sched = S.MultiStepLR(opt, milestones=[4, 8, 12], gamma=0.5)
    elif kind == "lambda":
        opt = torch.optim.RMSprop(model.parameters(), lr=0.01)
        sched = S.LambdaLR(opt, lambda step: 1.0 / (1 + 0.1 * step))
    else:
        opt = torch.optim.Adam(model.parameters(), lr=0.02)
        sched = S.ReduceLROnPlateau(opt, factor=0.5, patience=0)
    return model, opt, sched


def train_steps(model, opt, sched, n, per_batch):
    losses = []
    for _ in range(n):
        total = 0.0
        for xb, yb in loader:
            loss = nn.functional.mse_loss(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if per_batch:
                sched.step()
            total += loss.item()
        if not per_batch:
            if isinstance(sched, S.ReduceLROnPlateau):
                sched.step(round(total, 1))
            else:
                sched.step()
        losses.append(f"{total / len(loader):.5f}")
    return losses


with tempfile.TemporaryDirectory() as tmp:
    for kind in ("onecycle", "multistep", "lambda", "plateau"):
        per_batch = kind == "onecycle"
        model, opt, sched = make(kind)
        first = train_steps(model, opt, sched, 3, per_batch)
        path = os.path.join(tmp, f"{kind}.pt")
        torch.save({"epoch": 3, "model": model.state_dict(), "opt": opt.state_dict(),
                    "sched": sched.state_dict()}, path)
        loader.generator.manual_seed(100)   # the same shuffles after the checkpoint
        rest = train_steps(model, opt, sched, 3, per_batch)
        model2, opt2, sched2 = make(kind)
        ckpt = torch.load(path)
        model2.load_state_dict(ckpt["model"])
        opt2.load_state_dict(ckpt["opt"])
        sched2.load_state_dict(ckpt["sched"])
        loader.generator.manual_seed(100)
        resumed = train_steps(model2, opt2, sched2, 3, per_batch)
        print(kind, first, rest == resumed, torch.equal(model[0].weight, model2[0].weight))
        print("  lr", opt2.param_groups[0]["lr"], "last", sched2._last_lr if kind == "plateau" else sched2.get_last_lr())
        print("  sched keys", list(ckpt["sched"].keys()))
    print(ckpt["sched"]["best"], ckpt["sched"]["num_bad_epochs"], type(torch.load(os.path.join(tmp, "multistep.pt"))["sched"]["milestones"]).__name__)
    print(torch.load(os.path.join(tmp, "onecycle.pt"))["sched"]["_schedule_phases"][0])
    print(torch.load(os.path.join(tmp, "lambda.pt"))["sched"]["lr_lambdas"])
    print(torch.load(os.path.join(tmp, "onecycle.pt"))["opt"]["param_groups"][0]["betas"])

for bad in [dict(prefetch_factor=2), dict(persistent_workers=True), dict(num_workers=-1),
            dict(num_workers=2, prefetch_factor=-1), dict(timeout=-1),
            dict(shuffle=True, sampler=range(40)), dict(batch_size=None, drop_last=True)]:
    try:
        DataLoader(TensorDataset(X, y), **bad)
        print(bad, "ok")
    except ValueError as e:
        print(bad, "ValueError:", e)
