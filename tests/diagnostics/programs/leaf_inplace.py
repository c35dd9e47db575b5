import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    w.add_(1)  # expect: leaf-inplace
except RuntimeError as exc:
    print("error:", exc)
