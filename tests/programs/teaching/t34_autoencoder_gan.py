# an autoencoder on toy 2-D manifold data, then a GAN-style loop with two optimizers
import torch
from torch import nn

torch.manual_seed(5)
t = torch.rand(256, 1) * 6.28
data = torch.cat([torch.cos(t), torch.sin(t), 0.5 * torch.cos(2 * t), 0.25 * t], dim=1)
print(data.shape, data[:2])

encoder = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
decoder = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 4))
autoencoder = nn.Sequential(encoder, decoder)
print(autoencoder)
opt = torch.optim.Adam(autoencoder.parameters(), lr=1e-2)
criterion = nn.MSELoss()
for epoch in range(40):
    recon = autoencoder(data)
    loss = criterion(recon, data)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch} recon loss {loss.item():.5f}")
with torch.no_grad():
    z = encoder(data[:3])
    print("codes", z)
    print("recon", decoder(z))
print(autoencoder[0][0].weight.grad.shape, autoencoder[1][2].bias.grad)

# GAN: a generator learns to produce samples like N(3, 0.5)
G = nn.Sequential(nn.Linear(1, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
D = nn.Sequential(nn.Linear(1, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid())
opt_g = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
bce = nn.BCELoss()
real_label, fake_label = 1.0, 0.0
for step in range(60):
    real = 3 + 0.5 * torch.randn(32, 1)
    noise = torch.randn(32, 1)
    fake = G(noise)
    D.zero_grad()
    out_real = D(real).view(-1)
    err_real = bce(out_real, torch.full((32,), real_label))
    err_real.backward()
    out_fake = D(fake.detach()).view(-1)
    err_fake = bce(out_fake, torch.full((32,), fake_label))
    err_fake.backward()
    err_d = err_real + err_fake
    opt_d.step()
    G.zero_grad()
    out = D(fake).view(-1)
    err_g = bce(out, torch.full((32,), real_label))
    err_g.backward()
    opt_g.step()
    if step % 15 == 0:
        print(f"[{step}] Loss_D: {err_d.item():.4f} Loss_G: {err_g.item():.4f} "
              f"D(x): {out_real.mean().item():.4f} D(G(z)): {out_fake.mean().item():.4f} / {out.mean().item():.4f}")
with torch.no_grad():
    samples = G(torch.randn(500, 1))
print(f"generated mean {samples.mean().item():.3f} std {samples.std().item():.3f}")
print(type(err_d.grad_fn).__name__, err_g.requires_grad, fake.grad_fn.name())
logits_d = nn.Sequential(*list(D.children())[:-1])
print(logits_d, nn.BCEWithLogitsLoss()(logits_d(real).view(-1), torch.ones(32)).item() > 0)
