# micrograd's sanity checks against torch (double tensors, legacy constructor), then a tiny
# VAE with the reparameterisation trick and a KL term
import torch
from torch import nn
import torch.nn.functional as F

x = torch.Tensor([-4.0]).double()
x.requires_grad = True
z = 2 * x + 2 + x
q = z.relu() + z * x
h = (z * z).relu()
y = h + q + q * x
y.backward()
xpt, ypt = x, y
print(ypt.data.item(), xpt.grad.item(), x.dtype, torch.Tensor([1, 2]).dtype, torch.Tensor(2, 3).shape)

a = torch.Tensor([-4.0]).double()
b = torch.Tensor([2.0]).double()
a.requires_grad = True
b.requires_grad = True
c = a + b
d = a * b + b ** 3
c = c + c + 1
c = c + 1 + c + (-a)
d = d + d * 2 + (b + a).relu()
d = d + 3 * d + (b - a).relu()
e = c - d
f = e ** 2
g = f / 2.0
g = g + 10.0 / f
g.backward()
apt, bpt, gpt = a, b, g
tol = 1e-6
print(f"{gpt.data.item():.6f}", f"{apt.grad.item():.6f}", f"{bpt.grad.item():.6f}")
print(abs(gpt.data.item() - 24.70408163265306) < tol, abs(apt.grad.item() - 138.83381924198252) < tol)
print(torch.DoubleTensor([1.5]), torch.FloatTensor(2).shape, torch.LongTensor([1, 2]), torch.BoolTensor([True]))
print(isinstance(x, torch.DoubleTensor), isinstance(x, torch.FloatTensor), x.type(), x.float().type())

torch.manual_seed(8)
data = torch.cat([torch.randn(64, 6) * 0.3 + 1.0, torch.randn(64, 6) * 0.3 - 1.0])


class VAE(nn.Module):
    def __init__(self, d=6, h=12, latent=2):
        super().__init__()
        self.fc1 = nn.Linear(d, h)
        self.fc21 = nn.Linear(h, latent)
        self.fc22 = nn.Linear(h, latent)
        self.fc3 = nn.Linear(latent, h)
        self.fc4 = nn.Linear(h, d)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return self.fc4(h3)

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    mse = F.mse_loss(recon_x, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return mse + kld, kld


model = VAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loader = torch.utils.data.DataLoader(data, batch_size=32, shuffle=True)
for epoch in range(1, 6):
    model.train()
    train_loss = 0
    for batch_idx, xb in enumerate(loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(xb)
        loss, kld = loss_function(recon_batch, xb, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    print(f"====> Epoch: {epoch} Average loss: {train_loss / len(loader.dataset):.4f} (last KLD {kld.item():.3f})")
model.eval()
with torch.no_grad():
    sample = torch.randn(4, 2)
    print(model.decode(sample).shape)
    mu, logvar = model.encode(data[:2])
    q = torch.distributions.Normal(mu, torch.exp(0.5 * logvar))
    p = torch.distributions.Normal(torch.zeros_like(mu), torch.ones_like(mu))
    analytic = torch.distributions.kl_divergence(q, p).sum(-1)
    manual = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=-1)
    print(torch.allclose(analytic, manual, atol=1e-5), analytic.shape)
