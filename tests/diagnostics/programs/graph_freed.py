import torch

w = torch.tensor(2.0, requires_grad=True)
loss = w * w
loss.backward()  # expect: graph-freed
try:
    loss.backward()
except RuntimeError as exc:
    print("error:", str(exc)[:40])
