# d2l.ai "builders' guide": layers and blocks, parameter management, init, shared params, custom
# layers, hooks, apply, ModuleList/ModuleDict, file I/O of parameters
import io
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
X = torch.rand(size=(2, 4))
print(net[0].weight)
print(net(X).shape, net[2].weight.shape)
print(net[2].state_dict())
print(type(net[2].bias), net[2].bias.data)
print(net[2].weight.grad is None)
print([(name, param.shape) for name, param in net.named_parameters()])


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(20, 256)
        self.out = nn.Linear(256, 10)

    def forward(self, X):
        return self.out(F.relu(self.hidden(X)))


class MySequential(nn.Module):
    def __init__(self, *args):
        super().__init__()
        for idx, module in enumerate(args):
            self.add_module(str(idx), module)

    def forward(self, X):
        for module in self.children():
            X = module(X)
        return X


class FixedHiddenMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.rand_weight = torch.rand((20, 20))
        self.linear = nn.Linear(20, 20)

    def forward(self, X):
        X = self.linear(X)
        X = F.relu(X @ self.rand_weight + 1)
        X = self.linear(X)
        while X.abs().sum() > 1:
            X /= 2
        return X.sum()


X = torch.rand(2, 20)
print(MLP()(X).shape, MySequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 10))(X).shape)
print(f"{FixedHiddenMLP()(X).item():.6f}")


def block1():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4), nn.ReLU())


def block2():
    net = nn.Sequential()
    for i in range(2):
        net.add_module(f"block {i}", block1())
    return net


rgnet = nn.Sequential(block2(), nn.Linear(4, 1))
print(rgnet)
print(rgnet[0][1][0].bias.data)
print([n for n, _ in rgnet.named_modules()][:5])


def init_normal(module):
    if type(module) == nn.Linear:
        nn.init.normal_(module.weight, mean=0, std=0.01)
        nn.init.zeros_(module.bias)


def init_constant(module):
    if type(module) == nn.Linear:
        nn.init.constant_(module.weight, 1)
        nn.init.zeros_(module.bias)


def init_xavier(module):
    if type(module) == nn.Linear:
        nn.init.xavier_uniform_(module.weight)


def init_42(module):
    if type(module) == nn.Linear:
        nn.init.constant_(module.weight, 42)


net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
net.apply(init_normal)
print(net[0].weight.data[0], net[0].bias.data[0])
net.apply(init_constant)
print(net[0].weight.data[0], net[0].bias.data[0])
net[0].apply(init_xavier)
net[2].apply(init_42)
print(net[0].weight.data[0])
print(net[2].weight.data)


def my_init(module):
    if type(module) == nn.Linear:
        print("Init", *[(name, param.shape) for name, param in module.named_parameters()][0])
        nn.init.uniform_(module.weight, -10, 10)
        module.weight.data *= module.weight.data.abs() >= 5


net.apply(my_init)
print(net[0].weight[:2])
net[0].weight.data[:] += 1
net[0].weight.data[0, 0] = 42
print(net[0].weight.data[0])
for fn in (nn.init.kaiming_uniform_, nn.init.kaiming_normal_, nn.init.xavier_normal_,
           nn.init.orthogonal_, nn.init.trunc_normal_):
    w = torch.empty(3, 4)
    fn(w)
    print(fn.__name__, w[0])
print(nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh"))

shared = nn.LazyLinear(8)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.LazyLinear(1))
net(X)
print(net[2].weight.data[0] == net[4].weight.data[0])
net[2].weight.data[0, 0] = 100
print(net[2].weight.data[0] == net[4].weight.data[0], len(list(net.parameters())))


class CenteredLayer(nn.Module):
    def forward(self, X):
        return X - X.mean()


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


layer = CenteredLayer()
print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
net = nn.Sequential(nn.Linear(8, 128), CenteredLayer())
Y = net(torch.rand(4, 8))
print(f"{Y.mean().item():.1e}" if abs(Y.mean().item()) > 1e-6 else "mean ~ 0")
linear = MyLinear(5, 3)
print(linear.weight, linear(torch.rand(2, 5)))

acts = {}


def hook(name):
    def fn(module, inp, out):
        acts[name] = (tuple(inp[0].shape), tuple(out.shape))
    return fn


mlp = MLP()
handles = [m.register_forward_hook(hook(n)) for n, m in mlp.named_children()]
mlp(torch.rand(3, 20))
print(acts)
for h in handles:
    h.remove()
grads = []
mlp.out.register_full_backward_hook(lambda m, gi, go: grads.append((gi[0].shape, go[0].shape)))
mlp(torch.rand(3, 20)).sum().backward()
print(grads)
pre = mlp.hidden.register_forward_pre_hook(lambda m, inp: (inp[0] * 0,))
print(mlp(torch.ones(1, 20)).equal(mlp.out(F.relu(mlp.hidden.bias)).unsqueeze(0)))
pre.remove()

layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
layers.append(nn.Tanh())
heads = nn.ModuleDict({"cls": nn.Linear(3, 2), "reg": nn.Linear(3, 1)})
print(layers, heads, len(layers), list(heads.keys()), "cls" in heads)
params = nn.ParameterList([nn.Parameter(torch.ones(2)) for _ in range(2)])
pdict = nn.ParameterDict({"a": nn.Parameter(torch.zeros(1))})
print(params, pdict)

buf = io.BytesIO()
clone_src = MLP()
torch.save(clone_src.state_dict(), buf)
buf.seek(0)
clone = MLP()
clone.load_state_dict(torch.load(buf))
clone.eval()
X = torch.randn(size=(2, 20))
print(clone(X) == clone_src(X))
x = torch.arange(4)
buf = io.BytesIO()
torch.save([x, torch.zeros(4)], buf)
buf.seek(0)
print(torch.load(buf))
print(sum(p.numel() for p in MLP().parameters()), MLP().training, MLP().eval().training)
print(nn.Sequential(nn.Linear(2, 2)).requires_grad_(False)[0].weight.requires_grad)
m = MLP()
m.hidden.weight.requires_grad_(False)
print([n for n, p in m.named_parameters() if p.requires_grad])
m.zero_grad(set_to_none=True)
print(m.hidden.bias.grad, m.get_submodule("out"), m.get_parameter("out.bias").shape)
