import torch

w = torch.tensor(1.0, requires_grad=True)  # expect: no-backward
loss = w * 2
target = w
print(w.grad)
