import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3  # expect: not-leaf
loss = h.sum()
loss.backward()
target = h
print(h.grad)
