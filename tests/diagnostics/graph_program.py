import leafgrad as torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
h = (w * b).tanh()
h.retain_grad()
loss = h.sum() + (w ** 2).mean()
loss.backward()
