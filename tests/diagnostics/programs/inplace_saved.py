import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.sigmoid()
b.mul_(2)  # expect: inplace-saved
try:
    b.sum().backward()
except RuntimeError as exc:
    print("error:", str(exc)[:60])
