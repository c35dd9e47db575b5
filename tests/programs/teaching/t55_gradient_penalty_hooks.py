# WGAN-GP's gradient penalty (autograd.grad with create_graph), gradient hooks for clipping and
# logging, MAML-style second-order updates, and Hessians, as tutorials and papers' code do
import torch
from torch import nn, autograd

torch.manual_seed(3)
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
G = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
lambda_gp = 10


def compute_gradient_penalty(D, real_samples, fake_samples):
    alpha = torch.rand(real_samples.size(0), 1)
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = torch.ones(real_samples.shape[0], 1, requires_grad=False)
    gradients = autograd.grad(outputs=d_interpolates, inputs=interpolates, grad_outputs=fake,
                              create_graph=True, retain_graph=True, only_inputs=True)[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


for step in range(6):
    real = torch.randn(32, 2) * 0.5 + torch.tensor([2.0, -1.0])
    z = torch.randn(32, 2)
    fake = G(z)
    opt_d.zero_grad()
    gp = compute_gradient_penalty(D, real, fake.detach())
    d_loss = -torch.mean(D(real)) + torch.mean(D(fake.detach())) + lambda_gp * gp
    d_loss.backward()
    opt_d.step()
    if step % 2 == 0:
        opt_g.zero_grad()
        g_loss = -torch.mean(D(G(z)))
        g_loss.backward()
        opt_g.step()
    print(f"[{step}] D loss: {d_loss.item():.4f} GP: {gp.item():.4f} G loss: {g_loss.item():.4f}")
print(d_loss.grad_fn.name(), gp.grad_fn.name())

# hooks: clamp every gradient on its way, and record norms
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
norms = []
for name, p in model.named_parameters():
    p.register_hook(lambda grad: torch.clamp(grad, -0.1, 0.1))
    p.register_hook(lambda grad, name=name: norms.append((name, round(grad.norm().item(), 4))))
x = torch.randn(5, 3, requires_grad=True)
h = x.register_hook(lambda g: g * 0)
out = model(x).pow(2).sum() * 10
out.backward()
print(norms)
print(model[0].weight.grad.abs().max().item() <= 0.1, x.grad.abs().sum().item())
h.remove()
x.grad = None
model(x).sum().backward()
print(x.grad.abs().sum().item() > 0)
acts = []
y = model[0](x)
y.retain_grad()
y.register_hook(lambda g: acts.append(g.shape))
model[2](torch.relu(y)).sum().backward()
print(acts, y.grad.shape)
post = []
if hasattr(torch.Tensor, "register_post_accumulate_grad_hook"):
    model[0].bias.register_post_accumulate_grad_hook(lambda p: post.append(p.grad.shape))
    model(x).sum().backward()
print(post)

# MAML: an inner SGD step kept in the graph, outer loss differentiated through it
w = torch.tensor([[0.5], [-0.3]], requires_grad=True)
b = torch.zeros(1, requires_grad=True)
meta_opt = torch.optim.SGD([w, b], lr=0.1)
for it in range(3):
    xs, ys = torch.randn(8, 2), torch.randn(8, 1)
    xq, yq = torch.randn(8, 2), torch.randn(8, 1)
    inner = ((xs @ w + b - ys) ** 2).mean()
    gw, gb = autograd.grad(inner, (w, b), create_graph=True)
    w_fast, b_fast = w - 0.4 * gw, b - 0.4 * gb
    outer = ((xq @ w_fast + b_fast - yq) ** 2).mean()
    meta_opt.zero_grad()
    outer.backward()
    meta_opt.step()
    print(f"it {it}: inner {inner.item():.5f} outer {outer.item():.5f} |dw| {w.grad.norm().item():.5f}")


def f(x):
    return (x ** 3).sum() + (x[0] * x[1]).sin()


x = torch.tensor([0.5, -1.0])
print(autograd.functional.hessian(f, x))
print(autograd.functional.jacobian(lambda t: t.exp() * t[0], x))
xr = x.clone().requires_grad_(True)
g, = autograd.grad(f(xr), xr, create_graph=True)
H = torch.stack([autograd.grad(g[i], xr, retain_graph=True)[0] for i in range(2)])
print(g, H)
v = torch.tensor([1.0, 2.0])
_, hvp = autograd.functional.hvp(f, x, v)
print(hvp, torch.allclose(hvp, H @ v))
