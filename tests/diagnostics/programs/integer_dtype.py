import torch

w = torch.tensor([1.5, 2.5], requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
k = w.long()  # expect: integer-dtype
loss = (k * b).sum()
loss.backward()
target = w
print(w.grad)
