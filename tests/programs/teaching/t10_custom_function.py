import math
import torch


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


x = torch.linspace(-math.pi, math.pi, 200)
# target computed in double and rounded once (float32 sin itself differs in the last bit:
# PyTorch uses SLEEF kernels, see the teaching-programs report)
y = torch.sin(x.double()).float()
a = torch.full((), 0.0, requires_grad=True)
b = torch.full((), -1.0, requires_grad=True)
c = torch.full((), 0.0, requires_grad=True)
d = torch.full((), 0.3, requires_grad=True)
learning_rate = 5e-6
for t in range(500):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f'Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)')
out = LegendrePolynomial3.apply(torch.tensor([0.5], requires_grad=True))
print(out.grad_fn.__class__.__name__, out.requires_grad)


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.save_for_backward(inp)
        return inp.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        inp, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[inp < 0] = 0
        return grad_input


class ScaleBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


t = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
r = MyReLU.apply(t)
s = ScaleBy.apply(r, 3.0)
s.sum().backward()
print(r, s)
print(t.grad)
print(torch.autograd.gradcheck(MyReLU.apply, (torch.tensor([-1.0, 0.5, 2.0], dtype=torch.double, requires_grad=True),)))


class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g, g

try:
    Bad.apply(torch.ones(2, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
