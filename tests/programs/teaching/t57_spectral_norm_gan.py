# spectral normalization (torch.nn.utils.parametrizations.spectral_norm) in an SNGAN-style
# discriminator: the power-iteration estimate of sigma against the exact singular values
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.parametrizations import spectral_norm

torch.manual_seed(5)
lin = spectral_norm(nn.Linear(6, 4))
print(lin)
print([n for n, _ in lin.named_parameters()], [n for n, _ in lin.named_buffers()])
sn = lin.parametrizations.weight[0]
print(sn.dim, sn.n_power_iterations, sn.eps, sn._u.shape, sn._v.shape)
W = lin.parametrizations.weight.original
print(f"sigma exact {torch.linalg.svdvals(W.detach())[0].item():.5f}")
w = lin.weight
print(f"norm of normalized weight {torch.linalg.matrix_norm(w.detach(), ord=2).item():.5f}", w.grad_fn.name())
print(sn._u, sn._v)

conv = spectral_norm(nn.Conv2d(2, 3, 3), n_power_iterations=2)
deconv = spectral_norm(nn.ConvTranspose2d(3, 2, 4, stride=2))
print(conv.parametrizations.weight[0].dim, deconv.parametrizations.weight[0].dim,
      deconv.parametrizations.weight[0]._u.shape)
bias_sn = spectral_norm(nn.Linear(3, 3), name="bias")
print(bias_sn.bias, bias_sn.bias.norm().item())


class SNDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            spectral_norm(nn.Conv2d(1, 4, 4, 2, 1)), nn.LeakyReLU(0.1),
            spectral_norm(nn.Conv2d(4, 8, 4, 2, 1)), nn.LeakyReLU(0.1),
            nn.Flatten(), spectral_norm(nn.Linear(8 * 2 * 2, 1)))

    def forward(self, x):
        return self.net(x)


D = SNDiscriminator()
G = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Unflatten(1, (1, 8, 8)))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.0, 0.9))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.0, 0.9))
real = torch.rand(8, 1, 8, 8) * 2 - 1
for step in range(4):
    z = torch.randn(8, 4)
    fake = G(z)
    d_loss = F.relu(1.0 - D(real)).mean() + F.relu(1.0 + D(fake.detach())).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = -D(G(z)).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    print(f"step {step}: hinge D {d_loss.item():.4f} G {g_loss.item():.4f}")
last = D.net[5]
print(f"{torch.linalg.matrix_norm(last.weight.detach(), ord=2).item():.4f}")
D.eval()
u_before = D.net[0].parametrizations.weight[0]._u.clone()
with torch.no_grad():
    D(real)
print(torch.equal(u_before, D.net[0].parametrizations.weight[0]._u))
D.train()
with torch.no_grad():
    D(real)
print(torch.equal(u_before, D.net[0].parametrizations.weight[0]._u))
print(list(D.state_dict().keys())[:4])
for bad in [lambda: spectral_norm(nn.Linear(2, 2), name="nope"),
            lambda: spectral_norm(nn.Linear(2, 2), n_power_iterations=0),
            lambda: spectral_norm(nn.Linear(2, 2), dim=3)]:
    try:
        bad()
    except (ValueError, IndexError) as e:
        print(type(e).__name__, e)

# the older hook-based API, still common in GAN code
old = nn.utils.spectral_norm(nn.Linear(5, 3))
print([n for n, _ in old.named_parameters()], [n for n, _ in old.named_buffers()])
print(type(old.weight).__name__, old.weight_u.shape, old.weight_v.shape, len(old._forward_pre_hooks))
y = old(torch.randn(2, 5))
print(y.grad_fn.name(), old.weight.grad_fn.name(), f"{torch.linalg.matrix_norm(old.weight.detach(), ord=2).item():.4f}")
y.sum().backward()
print(old.weight_orig.grad.shape, old.weight_u)
old.eval()
u = old.weight_u.clone()
old(torch.randn(2, 5))
print(torch.equal(u, old.weight_u), list(old.state_dict().keys()))
tconv = nn.utils.spectral_norm(nn.ConvTranspose2d(3, 2, 3))
print(tconv.weight_u.shape, tconv.weight_v.shape)
nn.utils.remove_spectral_norm(old)
print([n for n, _ in old.named_parameters()], [n for n, _ in old.named_buffers()], type(old.weight).__name__)
for bad in [lambda: nn.utils.remove_spectral_norm(old),
            lambda: nn.utils.spectral_norm(nn.utils.spectral_norm(nn.Linear(2, 2))),
            lambda: nn.utils.spectral_norm(nn.Linear(2, 2, bias=False), name="bias")]:
    try:
        bad()
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
