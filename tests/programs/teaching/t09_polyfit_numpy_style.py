import torch

# linear regression, grad.zero_() style, float64
X = torch.linspace(0, 1, 50, dtype=torch.float64).unsqueeze(1)
Y = 3.0 * X + 0.5 + 0.1 * torch.cos(17 * X)
w = torch.zeros(1, 1, dtype=torch.float64, requires_grad=True)
b = torch.zeros(1, dtype=torch.float64, requires_grad=True)
lr = 0.5
for epoch in range(200):
    pred = X @ w + b
    loss = ((pred - Y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
    w.grad.zero_()
    b.grad.zero_()
    if epoch % 40 == 0:
        print(f"epoch {epoch:3d} loss {loss.item():.8f}")
print(w, b)
print(w.grad, b.grad)
print(loss)

# polynomial via x.pow(p) features and nn.Linear + Flatten
x = torch.linspace(-1, 1, 100)
yt = 1 - 2 * x + 0.5 * x ** 3
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape, xx.dtype)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
with torch.no_grad():
    model[0].weight.fill_(0.1)
    model[0].bias.fill_(0.0)
loss_fn = torch.nn.MSELoss(reduction='sum')
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, yt)
    if t % 50 == 49:
        print(t, round(loss.item(), 4))
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= 1e-3 * param.grad
linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.4f} + {linear_layer.weight[:, 0].item():.4f} x + {linear_layer.weight[:, 1].item():.4f} x^2 + {linear_layer.weight[:, 2].item():.4f} x^3')
print(model)
