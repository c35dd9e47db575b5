import torch

w = torch.nn.Parameter(torch.ones(2))
b = torch.nn.Parameter(torch.ones(1))
opt = torch.optim.SGD([w, b], lr=0.1, weight_decay=0.01)
(w.sum() + b.sum()).backward()
opt.zero_grad(set_to_none=False)
(b * 2).sum().backward()
opt.step()  # expect: zero-grad-updated
print(w.tolist())
