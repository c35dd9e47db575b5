# fine-tuning tricks: freezing a backbone, a new head, gradient accumulation, activation
# checkpointing (torch.utils.checkpoint), inference_mode, per-group learning rates
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(21)
backbone = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 16), nn.ReLU())
head = nn.Linear(16, 3)
for p in backbone.parameters():
    p.requires_grad = False
model = nn.Sequential(backbone, head)
print(sum(p.numel() for p in model.parameters()), sum(p.numel() for p in model.parameters() if p.requires_grad))
print([n for n, p in model.named_parameters() if p.requires_grad])
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
X, y = torch.randn(48, 6), torch.randint(0, 3, (48,))
accum = 3
for epoch in range(3):
    model.train()
    opt.zero_grad()
    for i in range(6):
        xb, yb = X[i * 8:(i + 1) * 8], y[i * 8:(i + 1) * 8]
        loss = nn.functional.cross_entropy(model(xb), yb) / accum
        loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
    sched.step()
    print(f"epoch {epoch} last loss {loss.item() * accum:.4f} lr {sched.get_last_lr()[0]:.4f}",
          backbone[0].weight.grad is None, head.weight.grad is None)
with torch.inference_mode():
    model.eval()
    out = model(X[:4])
print(out.requires_grad, out.is_inference(), torch.is_inference_mode_enabled())

# unfreeze and use two parameter groups
for p in backbone.parameters():
    p.requires_grad_(True)
opt = torch.optim.Adam([{"params": backbone.parameters(), "lr": 1e-4},
                        {"params": head.parameters()}], lr=1e-2)
print([g["lr"] for g in opt.param_groups], len(opt.param_groups[0]["params"]))

# activation checkpointing gives the same values and gradients
model.train()
x = torch.randn(5, 6, requires_grad=True)
torch.manual_seed(3)
plain = model(x)
plain.sum().backward()
g_plain = (x.grad.clone(), backbone[0].weight.grad.clone())
for reentrant in (True, False):
    x.grad = None
    model.zero_grad()
    torch.manual_seed(3)
    out = checkpoint(backbone, x, use_reentrant=reentrant)
    out = head(out)
    out.sum().backward()
    print(reentrant, torch.equal(out, plain), torch.equal(x.grad, g_plain[0]),
          torch.equal(backbone[0].weight.grad, g_plain[1]))
print(checkpoint(backbone, x, use_reentrant=True).grad_fn.name())
torch.manual_seed(3)
out = checkpoint_sequential(backbone, 2, x, use_reentrant=False)
print(out.shape, out.grad_fn.name(), torch.rand(2))


def block(a, scale):
    return torch.tanh(a) * scale


y = checkpoint(block, x, 2.0, use_reentrant=True)
y.pow(2).mean().backward()
print(y.grad_fn.name(), x.grad.abs().sum() > 0)
try:
    checkpoint(block, x, 2.0, use_reentrant=True, extra=1)
except ValueError as e:
    print("ValueError:", e)
