import torch

try:
    w = torch.tensor([1, 2], requires_grad=True)  # expect: integer-dtype
except RuntimeError as exc:
    print("error:", exc)
