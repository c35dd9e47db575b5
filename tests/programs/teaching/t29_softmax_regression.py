# d2l.ai style softmax regression from scratch with an Accumulator and accuracy helpers
import torch
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(1)
num_inputs, num_outputs = 16, 4
centers = torch.randn(num_outputs, num_inputs) * 2
y_all = torch.randint(0, num_outputs, (240,))
X_all = centers[y_all] + torch.randn(240, num_inputs)
train_iter = DataLoader(TensorDataset(X_all[:200], y_all[:200]), batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(3))
test_iter = DataLoader(TensorDataset(X_all[200:], y_all[200:]), batch_size=32)

W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)

X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(X.sum(0, keepdims=True), X.sum(1, keepdims=True))


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdims=True)
    return X_exp / partition


X = torch.normal(0, 1, (2, 5))
X_prob = softmax(X)
print(X_prob, X_prob.sum(1))


def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])


def cross_entropy(y_hat, y):
    return -torch.log(y_hat[range(len(y_hat)), y])


print(cross_entropy(y_hat, y))


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


print(accuracy(y_hat, y) / len(y))


class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def evaluate_accuracy(net, data_iter):
    metric = Accumulator(2)
    with torch.no_grad():
        for X, y in data_iter:
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


print(f"initial test acc {evaluate_accuracy(net, test_iter):.3f}")


def updater(batch_size, lr=0.1):
    with torch.no_grad():
        for param in [W, b]:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


for epoch in range(5):
    metric = Accumulator(3)
    for X, y in train_iter:
        y_hat = net(X)
        l = cross_entropy(y_hat, y)
        l.sum().backward()
        updater(X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    test_acc = evaluate_accuracy(net, test_iter)
    print(f"epoch {epoch + 1}: loss {metric[0] / metric[2]:.4f}, "
          f"train acc {metric[1] / metric[2]:.3f}, test acc {test_acc:.3f}")
print(W.grad.abs().sum(), b)
preds = net(X_all[200:208]).argmax(axis=1)
print("true ", y_all[200:208].tolist())
print("preds", preds.tolist())
