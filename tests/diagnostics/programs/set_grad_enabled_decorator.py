import torch


@torch.set_grad_enabled(False)
def features(x):
    return x.tanh()  # expect: no-grad


w = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
loss = (features(w) * b).sum()
loss.backward()
target = w
print(w.grad)
