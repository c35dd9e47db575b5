# the parametrizations tutorial: symmetric / skew-symmetric / orthogonal (matrix exponential,
# Cayley) weights, chaining, caching, right_inverse, removing parametrizations
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as parametrize

torch.manual_seed(9)


def symmetric(X):
    return X.triu() + X.triu(1).transpose(-1, -2)


X = torch.rand(3, 3)
A = symmetric(X)
print(torch.dist(A, A.T))


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
A = layer.weight
print(torch.dist(A, A.T))
print(layer)
print(type(layer).__name__, parametrize.type_before_parametrizations(layer).__name__)
print([n for n, _ in layer.named_parameters()], list(layer.state_dict().keys()))
print(layer.parametrizations.weight.original.shape, parametrize.is_parametrized(layer),
      parametrize.is_parametrized(layer, "bias"))


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


cnn = nn.Conv2d(in_channels=5, out_channels=8, kernel_size=3)
parametrize.register_parametrization(cnn, "weight", Skew())
print(cnn.weight[0, 1])
print(cnn.weight[2, 2])
out = cnn(torch.randn(1, 5, 6, 6))
out.sum().backward()
print(out.shape, cnn.parametrizations.weight.original.grad.shape, cnn.weight.grad_fn.name())


class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        return torch.linalg.solve(self.Id - X, self.Id + X)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
parametrize.register_parametrization(layer, "weight", CayleyMap(3))
X = layer.weight
print(torch.allclose(X.T @ X, torch.eye(3), atol=1e-6))
print(layer.parametrizations.weight)


class MatrixExponential(nn.Module):
    def forward(self, X):
        return torch.matrix_exp(X)


layer_orthogonal = nn.Linear(3, 3)
parametrize.register_parametrization(layer_orthogonal, "weight", Skew())
parametrize.register_parametrization(layer_orthogonal, "weight", MatrixExponential())
X = layer_orthogonal.weight
print(torch.allclose(X.T @ X, torch.eye(3), atol=1e-6))
layer_spd = nn.Linear(3, 3)
parametrize.register_parametrization(layer_spd, "weight", Symmetric())
parametrize.register_parametrization(layer_spd, "weight", MatrixExponential())
X = layer_spd.weight
print(torch.dist(X, X.T) < 1e-5, (torch.linalg.eigvalsh(X) > 0.).all())


class NoisyParametrization(nn.Module):
    def forward(self, X):
        print("Computing the Parametrization")
        return X


layer = nn.Linear(4, 4)
parametrize.register_parametrization(layer, "weight", NoisyParametrization())
print("Here, layer.weight is recomputed every time we call it")
foo = layer.weight + layer.weight.T
bar = layer.weight.sum()
with parametrize.cached():
    print("Here, it is computed just the first time layer.weight is called")
    foo = layer.weight + layer.weight.T
    bar = layer.weight.sum()


class CayleyMapInv(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        return torch.linalg.solve(self.Id - X, self.Id + X)

    def right_inverse(self, A):
        return torch.linalg.solve(A + self.Id, self.Id - A)


class SkewInv(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu(1)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", SkewInv())
parametrize.register_parametrization(layer, "weight", CayleyMapInv(3))
X = torch.rand(3, 3)
X = X - X.T
Q = torch.linalg.solve(torch.eye(3) - X, torch.eye(3) + X) if False else torch.matrix_exp(X)
print(torch.dist(Q.T @ Q, torch.eye(3)) < 1e-5)
layer.weight = Q
print(torch.dist(layer.weight, Q) < 1e-5)


class PruningParametrization(nn.Module):
    def __init__(self, X, p_drop=0.2):
        super().__init__()
        mask = torch.full_like(X, 1.0 - p_drop)
        self.mask = torch.bernoulli(mask)

    def forward(self, X):
        return X * self.mask

    def right_inverse(self, A):
        return A


layer = nn.Linear(3, 4)
X = torch.rand_like(layer.weight)
print(f"Initialization matrix:\n{X}")
parametrize.register_parametrization(layer, "weight", PruningParametrization(layer.weight))
layer.weight = X
print(f"\nInitialized weight:\n{layer.weight}")

layer = nn.Linear(3, 3)
print("Before:")
print(layer)
print(layer.weight)
parametrize.register_parametrization(layer, "weight", Skew())
print("\nParametrized:")
print(layer)
print(layer.weight)
parametrize.remove_parametrizations(layer, "weight")
print("\nAfter. Weight has skew-symmetric values but it is unconstrained:")
print(layer)
print(layer.weight)
layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
print(type(layer).__name__, isinstance(layer.weight, nn.Parameter), layer.weight.shape)
try:
    parametrize.remove_parametrizations(layer, "weight")
except ValueError as e:
    print("ValueError:", e)
try:
    parametrize.register_parametrization(nn.Linear(2, 2), "weight", nn.Linear(2, 3))
except ValueError as e:
    print("ValueError:", e)
try:
    layer = nn.Linear(2, 2)
    parametrize.register_parametrization(layer, "weight", Skew())
    layer.weight = torch.zeros(2, 2)
except RuntimeError as e:
    print("RuntimeError:", e)
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
loss = layer(torch.ones(1, 2)).pow(2).sum()
loss.backward()
opt.step()
print(layer.weight, layer.parametrizations.weight.original)
