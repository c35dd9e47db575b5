import torch

w = torch.tensor([1.0, 2.0])  # expect: requires-grad-false
b = torch.tensor(1.0, requires_grad=True)
loss = (w * b).sum()
loss.backward()
target = w
print(w.grad)
