import torch
from torch import nn

model = nn.Linear(4, 2)
cases = [
    ("int input to Linear", lambda: model(torch.arange(8).reshape(2, 4))),
    ("double input to Linear", lambda: model(torch.ones(2, 4, dtype=torch.float64))),
    ("wrong features", lambda: model(torch.ones(2, 3))),
    ("CE float target shape", lambda: nn.CrossEntropyLoss()(torch.zeros(2, 3), torch.zeros(2))),
    ("CE target out of range", lambda: nn.CrossEntropyLoss()(torch.zeros(2, 3), torch.tensor([0, 3]))),
    ("view non-contiguous", lambda: torch.ones(2, 3).t().view(-1)),
    ("stack different shapes", lambda: torch.stack([torch.ones(2), torch.ones(3)])),
    ("bmm 2-D", lambda: torch.bmm(torch.ones(2, 2), torch.ones(2, 2))),
    ("item of many", lambda: torch.ones(3).item()),
    ("numpy with grad", lambda: torch.ones(2, requires_grad=True).numpy()),
    ("grad of int", lambda: torch.tensor([1, 2]).requires_grad_()),
    ("bool of many", lambda: bool(torch.ones(2))),
    ("index out of range", lambda: torch.zeros(2, 2)[2]),
    ("conv channels", lambda: nn.Conv2d(3, 4, 3)(torch.zeros(1, 1, 5, 5))),
    ("conv too small", lambda: nn.Conv2d(1, 1, 5)(torch.zeros(1, 1, 3, 3))),
    ("optimizer empty", lambda: torch.optim.SGD([], lr=0.1)),
    ("optimizer bad lr", lambda: torch.optim.SGD(model.parameters(), lr=-1)),
    ("embedding index", lambda: nn.Embedding(3, 2)(torch.tensor([3]))),
    ("reshape invalid", lambda: torch.zeros(6).reshape(4, -1)),
    ("cat dim", lambda: torch.cat([torch.zeros(2)], dim=1)),
    ("to unknown device", lambda: torch.zeros(1).to("tpu")),
    ("leaf in-place under grad", lambda: nn.Parameter(torch.zeros(2)).mul_(2)),
]
for name, fn in cases:
    try:
        fn()
        print(name, "-> ok")
    except Exception as e:
        print(f"{name} -> {type(e).__name__}: {e}")
