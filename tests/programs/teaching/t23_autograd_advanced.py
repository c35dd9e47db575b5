import torch
from torch import nn

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
g, = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), create_graph=True)
print(g)
h, = torch.autograd.grad(g.sum(), x)
print(h)
v = torch.tensor([1.0, 0.0, -1.0])
out, jvp = torch.autograd.functional.jvp(lambda t: t.sin() * 2, (x.detach(),), (v,))
print(out, jvp)
_, hvp = torch.autograd.functional.hvp(lambda t: (t ** 3).sum(), x.detach(), v)
print(hvp)

lin = nn.Linear(2, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -1.0], [0.5, 2.0]]))
    lin.bias.fill_(0.1)
seen = []
handle = lin.register_forward_hook(lambda m, i, o: seen.append(o.shape))
lin.register_full_backward_hook(lambda m, gi, go: print("grad_output", go))
out = lin(torch.tensor([[1.0, 2.0]], requires_grad=True))
out.sum().backward()
print(seen)
handle.remove()
lin(torch.zeros(1, 2))
print(len(seen))
print(lin.weight.grad, lin.bias.grad)

a = torch.tensor(2.0, requires_grad=True)
b = a * a
c = b.detach()
c.add_(1)
print(b, c)
b2 = a.clone()
print(b2.grad_fn, b2.requires_grad)
with torch.inference_mode():
    d = a * 2
print(d.requires_grad, d.is_inference())


@torch.no_grad()
def f(t):
    return t * 2


print(f(a).requires_grad)
with torch.enable_grad():
    print((a * 1).requires_grad)
with torch.set_grad_enabled(False):
    print((a * 1).requires_grad)
z = torch.zeros(3, requires_grad=True)
z.sum().backward()
print(z.grad)
z.grad = None
print(z.grad)
w = torch.ones(2, requires_grad=True)
w.register_hook(lambda g: g * 10)
(w * 3).sum().backward()
print(w.grad)
print(torch.autograd.grad((w * w).sum(), w, retain_graph=True))
try:
    torch.autograd.grad((w * 2).sum(), torch.ones(2, requires_grad=True))
except RuntimeError as e:
    print("RuntimeError:", e)
print(torch.autograd.grad((w * 2).sum(), [w, torch.ones(2, requires_grad=True)], allow_unused=True))
with torch.autograd.set_detect_anomaly(True):
    q = torch.tensor([1.0], requires_grad=True)
    (q * 2).backward()
print(q.grad)
