import torch

w = torch.tensor(1.0, requires_grad=True)
for i in range(2):
    loss = (w * 3 - 1) ** 2
    loss.backward()
    if w.grad is None:
        print("no gradient at step", i)
        break
    w = w - 0.1 * w.grad  # expect: reassigned
target = w
