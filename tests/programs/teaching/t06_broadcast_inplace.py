import torch

a = torch.arange(3.).reshape(3, 1)
b = torch.arange(2.)
print(a + b)
print(a * b, (a - b).shape)
print(torch.tensor([1, 2, 3]) + 0.5)
print(torch.tensor([1, 2, 3]) / 2)
print(torch.tensor([1, 2, 3]) // 2)
print(torch.tensor([1, 2, 3]) * True)
print(torch.tensor([True, False]) + torch.tensor([True, True]))
print(torch.tensor([1, 2], dtype=torch.int32) + torch.tensor([1, 2]))
print((torch.tensor([1, 2], dtype=torch.int32) + 1.5).dtype)
print(torch.tensor([1.0], dtype=torch.float64) + torch.tensor([1.0]))
x = torch.ones(2, 3)
x.mul_(2).add_(1)
print(x)
x.zero_()
print(x)
x.fill_(3)
x[0] += 1
print(x)
x.clamp_(max=3.5)
print(x)
try:
    torch.ones(2, 3) + torch.ones(3, 2)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.ones(2, 3) @ torch.ones(2, 3)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.ones(2, 3).view(4)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.ones(2, 3).t().view(6)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    i = torch.tensor([1, 2])
    i.add_(0.5)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.ones(3)[5]
except IndexError as e:
    print("IndexError:", e)
try:
    torch.cat([torch.ones(2, 3), torch.ones(2, 2)])
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.ones(2).item()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.ones(2, 2).reshape(3, -1)
except RuntimeError as e:
    print("RuntimeError:", e)
