import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * x
h.retain_grad()
g = h.exp()
s = g.sum()
s.backward()
print(h.grad)
print(x.grad)
print(g.grad)
print(h.retains_grad, g.retains_grad, x.retains_grad)

# grad of intermediate via autograd.grad
x2 = torch.tensor(3.0, requires_grad=True)
y2 = x2 ** 3
(dy,) = torch.autograd.grad(y2, x2, create_graph=True)
print(dy)
(d2y,) = torch.autograd.grad(dy, x2)
print(d2y)

# hooks
t = torch.tensor([1.0, -1.0], requires_grad=True)
u = t * 3
u.register_hook(lambda grad: print("hook saw", grad))
u.sum().backward()
print(t.grad)

# jacobian
def f(x):
    return x ** 2 + x.sin()
J = torch.autograd.functional.jacobian(f, torch.tensor([0.0, 1.0, 2.0]))
print(J)
H = torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]))
print(H)
out, vjp = torch.autograd.functional.vjp(f, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.5]))
print(out, vjp)
