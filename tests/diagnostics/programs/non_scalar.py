import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
y = w * 2
try:
    y.backward()  # expect: non-scalar
except RuntimeError as exc:
    print("error:", exc)
