import leafgrad as torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
h = (w * b).tanh()
h.retain_grad()
h.register_hook(lambda g: g * 1)
w.register_hook(lambda g: g * 1)
loss = h.sum() + (w ** 2).mean() + (b.exp() * w).sum()
with torch.no_grad():
    b.mul_(1.0)
