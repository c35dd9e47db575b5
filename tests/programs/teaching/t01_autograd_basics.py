import torch

x = torch.ones(2, 2, requires_grad=True)
print(x)
y = x + 2
print(y)
print(y.grad_fn)
print(x.grad_fn)
z = y * y * 3
out = z.mean()
print(z, out)
print(z.grad_fn, out.grad_fn)
out.backward()
print(x.grad)
print(x.is_leaf, y.is_leaf, out.is_leaf)
print(out.requires_grad, out.grad_fn.next_functions)

a = torch.randn(2, 2) if False else torch.arange(4.).reshape(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)
print(b)

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.no_grad():
    v = w * 2
print(v.requires_grad, v.grad_fn)
d = w.detach()
print(d.requires_grad, d)
print(w.detach().numpy())
print((w ** 2).requires_grad)
print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
print((w * 2).requires_grad)
torch.set_grad_enabled(True)
print((w * 2).requires_grad)
