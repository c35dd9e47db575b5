import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    x.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    (x * 2).backward()
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    torch.ones(2).backward()
except RuntimeError as e:
    print("RuntimeError:", e)

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.sigmoid()
b.mul_(2)
try:
    b.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    torch.tensor([1, 2], requires_grad=True)
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    x.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    torch.autograd.grad((x * 2).sum(), [x, torch.ones(1, requires_grad=True)])
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    torch.ones(2, 3) @ torch.ones(4)
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    torch.mm(torch.ones(2, 3), torch.ones(2, 3))
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([0.0, 1.0]))
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    torch.nn.functional.mse_loss(torch.zeros(2, 3, requires_grad=True), torch.zeros(2, 3, dtype=torch.long))
except RuntimeError as e:
    print("RuntimeError:", e)

leaf = torch.zeros(3, requires_grad=True)
try:
    leaf[0] = 1.0
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.no_grad():
    leaf[0] = 1.0
print(leaf)

z = torch.ones(2, requires_grad=True)
print(z.grad)
w = z * 3
print(w.detach().requires_grad, w.data.requires_grad)
try:
    torch.nn.functional.nll_loss(torch.zeros(2, 3), torch.tensor([0, 5]))
except IndexError as e:
    print("IndexError:", e)
try:
    torch.zeros(2, 3).max(dim=2)
except IndexError as e:
    print("IndexError:", e)
y = torch.ones(3, requires_grad=True) * 2
y.sum().backward()
print(y.grad)
