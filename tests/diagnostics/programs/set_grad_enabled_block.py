import torch

w = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
with torch.set_grad_enabled(False):
    h = w * 3  # expect: no-grad
with torch.set_grad_enabled(True):
    k = b * 2
loss = h * b + k
loss.backward()
target = w
print(w.grad)
