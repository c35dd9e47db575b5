import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
h = torch.tensor(w * 2)  # expect: new-leaf
loss = (h * b).sum()
loss.backward()
target = w
print(w.grad)
