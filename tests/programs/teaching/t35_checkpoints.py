# saving and loading checkpoints with torch.save / torch.load in a temporary directory
import os
import tempfile
import torch
from torch import nn

torch.manual_seed(2)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 5, bias=False)   # the batch norm shifts
        self.bn = nn.BatchNorm1d(5)
        self.fc2 = nn.Linear(5, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
x, y = torch.randn(16, 3), torch.randint(0, 2, (16,))
for epoch in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
print(f"loss {loss.item():.5f}")
print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\t", model.state_dict()[param_tensor].size())
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "checkpoint.pt")
    torch.save({
        "epoch": 3,
        "model_state_dict": model.state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
        "scheduler_state_dict": scheduler.state_dict(),
        "loss": loss,
        "notes": ["tuple", (1, 2.5), {"nested": torch.arange(3)}],
    }, path)
    print(os.path.exists(path), os.path.getsize(path) > 0)
    model2 = Net()
    optimizer2 = torch.optim.SGD(model2.parameters(), lr=0.05, momentum=0.9)
    scheduler2 = torch.optim.lr_scheduler.ExponentialLR(optimizer2, gamma=0.9)
    checkpoint = torch.load(path, weights_only=True)
    print(sorted(checkpoint), checkpoint["epoch"], checkpoint["loss"], checkpoint["notes"])
    print(model2.load_state_dict(checkpoint["model_state_dict"]))
    optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
    scheduler2.load_state_dict(checkpoint["scheduler_state_dict"])
    print(optimizer2.param_groups[0]["lr"], scheduler2.get_last_lr(), scheduler2.last_epoch)
    print(optimizer2.state_dict()["state"][0]["momentum_buffer"])
    model.eval()
    model2.eval()
    with torch.no_grad():
        print(torch.equal(model(x), model2(x)))

    # whole-tensor and list saves, and a file object
    tpath = os.path.join(d, "tensors.pt")
    torch.save([torch.ones(2, dtype=torch.int16), torch.tensor(3.5, dtype=torch.float64),
                torch.tensor([True, False])], tpath)
    print(torch.load(tpath))
    with open(tpath, "wb") as f:
        torch.save({"w": model.fc1.weight.detach()[:2]}, f)
    with open(tpath, "rb") as f:
        print(torch.load(f)["w"].shape)
    # strict loading of a mismatched state dict
    sd = model.state_dict()
    sd.pop("fc2.bias")
    sd["extra.weight"] = torch.zeros(1)
    try:
        model2.load_state_dict(sd)
    except RuntimeError as e:
        print("RuntimeError:", e)
    print(model2.load_state_dict(sd, strict=False))
    sd = model.state_dict()
    sd["fc1.weight"] = torch.zeros(4, 3)
    try:
        model2.load_state_dict(sd)
    except RuntimeError as e:
        print("RuntimeError:", e)
