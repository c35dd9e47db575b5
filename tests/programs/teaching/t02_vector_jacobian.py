import torch

x = torch.linspace(-1.0, 1.0, 3, requires_grad=True)
y = x * 2
i = 0
while y.data.norm() < 1000:
    y = y * 2
    i += 1
print(y)
print(i)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)

print(x.requires_grad)
print((x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

q = torch.tensor([2., 3.], requires_grad=True)
r = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * q ** 3 - r ** 2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9 * q ** 2 == q.grad)
print(-2 * r == r.grad)
print(Q.grad_fn.next_functions)
