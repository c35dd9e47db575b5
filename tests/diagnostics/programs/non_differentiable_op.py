import torch

w = torch.tensor([0.3, 0.7], requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
m = w > 0.5  # expect: non-differentiable-op
loss = (m * b).sum()
loss.backward()
target = w
print(w.grad)
