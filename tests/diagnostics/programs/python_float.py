import torch

w = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
s = float(w.detach() * 3)  # expect: python-number
loss = s * b
loss.backward()
target = w
print(w.grad)
