import math
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(1)
n, d, c = 64, 12, 4
x_train = torch.randn(n, d)
y_train = torch.randint(0, c, (n,))
weights = torch.randn(d, c) / math.sqrt(d)
weights.requires_grad_()
bias = torch.zeros(c, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


bs = 16
xb = x_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll
yb = y_train[0:bs]
print(loss_func(preds, yb))


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


print(accuracy(preds, yb))
lr = 0.5
epochs = 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
print(loss_func(model(xb), yb), accuracy(model(xb), yb))
loss_func = F.cross_entropy
print(loss_func(xb @ weights + bias, yb))


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(d, c) / math.sqrt(d))
        self.bias = nn.Parameter(torch.zeros(c))

    def forward(self, xb):
        return xb @ self.weights + self.bias


m = Mnist_Logistic()
print(loss_func(m(xb), yb))
opt = torch.optim.SGD(m.parameters(), lr=lr)
for epoch in range(3):
    for i in range((n - 1) // bs + 1):
        xb, yb = x_train[i * bs:(i + 1) * bs], y_train[i * bs:(i + 1) * bs]
        loss = loss_func(m(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    print(epoch, f"{loss.item():.4f}")
print(m.weights.grad, m.bias.grad)
print(torch.allclose(F.softmax(m(xb[:2]), dim=1).sum(1), torch.ones(2)))
print(F.one_hot(torch.tensor([0, 2, 1]), 3))
print(F.relu(torch.tensor([-1.0, 2.0])), F.sigmoid(torch.tensor([0.0])), torch.tanh(torch.tensor([0.0])))
print(F.nll_loss(F.log_softmax(torch.tensor([[1.0, 2.0, 0.5]]), dim=1), torch.tensor([1])))
print(F.binary_cross_entropy(torch.tensor([0.25, 0.75]), torch.tensor([0.0, 1.0])))
print(F.binary_cross_entropy_with_logits(torch.tensor([0.5, -1.0]), torch.tensor([1.0, 0.0])))
