import torch

w = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
torch.set_grad_enabled(False)
scale = w.exp()  # expect: no-grad
torch.set_grad_enabled(True)
loss = scale * b
loss.backward()
target = w
print(w.grad, b.grad)
