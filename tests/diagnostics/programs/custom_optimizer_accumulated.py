import torch


class PlainSGD(torch.optim.Optimizer):
    def __init__(self, params, lr):
        super().__init__(params, {"lr": lr})

    def step(self, closure=None):
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p -= group["lr"] * p.grad


class Momentum(torch.optim.SGD):
    pass


torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
head = torch.nn.Linear(1, 1)
opt = PlainSGD(model.parameters(), lr=0.1)
opt2 = Momentum(head.parameters(), lr=0.1, momentum=0.9)
x = torch.tensor([[1.0, 2.0]])
for step in range(3):
    opt2.zero_grad()
    loss = head(model(x)).pow(2).sum()
    loss.backward()  # expect: accumulated
    opt.step()
    opt2.step()
print(round(loss.item(), 4))
