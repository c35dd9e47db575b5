import torch

w = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
with torch.no_grad():
    h = w * 3  # expect: no-grad
loss = h * b
loss.backward()
target = w
print(w.grad)
