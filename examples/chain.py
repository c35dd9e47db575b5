"""The chain w -> h = w**2 -> L = 3h, run unmodified on leafgrad with `leafgrad run`."""
import torch

w = torch.tensor(2.0, requires_grad=True)
h = w.square()
h.retain_grad()
loss = 3 * h
loss.backward()
print("w =", w)
print("h =", h)
print("loss =", loss)
print("dL/dh =", h.grad)
print("dL/dw =", w.grad)
