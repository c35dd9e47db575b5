import torch

w = torch.tensor(1.0, requires_grad=True)
v = torch.tensor(2.0, requires_grad=True)
loss = w * 3
loss.backward()  # expect: not-used
target = v
print(v.grad)
