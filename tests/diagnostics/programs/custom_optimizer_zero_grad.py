import torch


class DecayingSGD(torch.optim.Optimizer):
    """A user's optimizer, defined after diagnostics were turned on."""

    def __init__(self, params, lr, decay):
        super().__init__(params, {"lr": lr, "weight_decay": decay})

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.add_(p.grad + group["weight_decay"] * p, alpha=-group["lr"])


class Clipped(DecayingSGD):
    def step(self, closure=None):
        return super().step(closure)


w = torch.nn.Parameter(torch.ones(2))
b = torch.nn.Parameter(torch.ones(1))
opt = Clipped([w, b], lr=0.1, decay=0.01)
(w.sum() + b.sum()).backward()
opt.zero_grad(set_to_none=False)
(b * 2).sum().backward()
opt.step()  # expect: zero-grad-updated
print(w.tolist())
