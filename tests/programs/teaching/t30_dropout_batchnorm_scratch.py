# d2l.ai style: dropout and batch normalization written from scratch, then the nn versions
import torch
from torch import nn

torch.manual_seed(0)


def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)


X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print(dropout_layer(X, 0.0))
print(dropout_layer(X, 0.5))
print(dropout_layer(X, 1.0))

drop = nn.Dropout(0.5)
print(drop, drop.training)
print(drop(X))
drop.eval()
print(drop(X), drop.training)
print(nn.functional.dropout(X, p=0.25, training=True))
x = torch.ones(4, 4, requires_grad=True)
y = nn.functional.dropout(x, 0.5)
y.sum().backward()
print(y.grad_fn.name(), x.grad)


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data


class BatchNorm(nn.Module):
    def __init__(self, num_features, num_dims):
        super().__init__()
        shape = (1, num_features) if num_dims == 2 else (1, num_features, 1, 1)
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)

    def forward(self, X):
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            self.moving_var = self.moving_var.to(X.device)
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean,
            self.moving_var, eps=1e-5, momentum=0.1)
        return Y


bn = BatchNorm(3, num_dims=4)
print(bn)
print([name for name, _ in bn.named_parameters()], list(bn.state_dict()))
X = torch.randn(4, 3, 5, 5) * 2 + 1
Y = bn(X)
print(Y.shape, f"{Y.mean().item():.4f}", f"{Y.std().item():.4f}")
print(bn.moving_mean.flatten(), bn.moving_var.flatten())
Y.pow(2).sum().backward()
print(bn.gamma.grad.flatten(), bn.beta.grad.flatten())

ref = nn.BatchNorm2d(3)
print(ref, ref.running_mean, ref.num_batches_tracked)
Yr = ref(X)
print("same as scratch:", torch.allclose(Yr, Y, atol=1e-5))
print(ref.running_mean, ref.running_var)
print([n for n, _ in ref.named_buffers()], sum(p.numel() for p in ref.parameters()))
ref.eval()
print(ref(X[:1, :, :2, :2]))
with torch.no_grad():
    print(bn(X[:1, :, :2, :2]))

net = nn.Sequential(
    nn.Linear(10, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(16, 3))
print(net)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
data = torch.randn(32, 10)
target = torch.randint(0, 3, (32,))
for step in range(6):
    net.train()
    loss = nn.functional.cross_entropy(net(data), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    net.eval()
    with torch.no_grad():
        acc = (net(data).argmax(1) == target).float().mean()
    print(f"step {step} loss {loss.item():.4f} eval acc {acc.item():.3f}")
print(net[1].running_mean[:4], net[1].num_batches_tracked)
