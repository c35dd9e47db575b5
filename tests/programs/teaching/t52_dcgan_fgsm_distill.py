# DCGAN building blocks (ConvTranspose2d, weights_init), an FGSM adversarial attack, and
# knowledge distillation with KLDivLoss, as the official tutorials write them
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(999)
nz, ngf, ndf, nc = 8, 4, 4, 1


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input)


netG = Generator()
netG.apply(weights_init)
print(netG)
netD = Discriminator()
netD.apply(weights_init)
criterion = nn.BCELoss()
fixed_noise = torch.randn(4, nz, 1, 1)
real_label, fake_label = 1., 0.
optimizerD = optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))
real_data = torch.rand(16, 1, 16, 16) * 2 - 1
for i in range(3):
    netD.zero_grad()
    real_cpu = real_data
    b_size = real_cpu.size(0)
    label = torch.full((b_size,), real_label, dtype=torch.float)
    output = netD(real_cpu).view(-1)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = output.mean().item()
    noise = torch.randn(b_size, nz, 1, 1)
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach()).view(-1)
    errD_fake = criterion(output, label)
    errD_fake.backward()
    D_G_z1 = output.mean().item()
    errD = errD_real + errD_fake
    optimizerD.step()
    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake).view(-1)
    errG = criterion(output, label)
    errG.backward()
    D_G_z2 = output.mean().item()
    optimizerG.step()
    print(f"[{i}/3]\tLoss_D: {errD.item():.4f}\tLoss_G: {errG.item():.4f}\tD(x): {D_x:.4f}\tD(G(z)): {D_G_z1:.4f} / {D_G_z2:.4f}")
with torch.no_grad():
    fake = netG(fixed_noise).detach().cpu()
print(fake.shape, f"{fake.min().item():.3f} {fake.max().item():.3f}")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 5)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.fc1 = nn.Linear(8 * 2 * 2, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        x = x.view(-1, 8 * 2 * 2)
        return F.log_softmax(self.fc1(x), dim=1)


def fgsm_attack(image, epsilon, data_grad):
    sign_data_grad = data_grad.sign()
    perturbed_image = image + epsilon * sign_data_grad
    perturbed_image = torch.clamp(perturbed_image, 0, 1)
    return perturbed_image


model = Net()
model.eval()
images = torch.rand(6, 1, 18, 18)
targets = torch.randint(0, 10, (6,))
for epsilon in [0, 0.05, 0.1, 0.3]:
    correct = 0
    changed = 0
    for data, target in zip(images, targets):
        data = data.unsqueeze(0)
        target = target.unsqueeze(0)
        data.requires_grad = True
        output = model(data)
        init_pred = output.max(1, keepdim=True)[1]
        loss = F.nll_loss(output, target)
        model.zero_grad()
        loss.backward()
        data_grad = data.grad.data
        perturbed_data = fgsm_attack(data, epsilon, data_grad)
        output = model(perturbed_data)
        final_pred = output.max(1, keepdim=True)[1]
        correct += int(final_pred.item() == target.item())
        changed += int(final_pred.item() != init_pred.item())
    print(f"Epsilon: {epsilon}\tTest Accuracy = {correct} / {len(images)} changed {changed}")

teacher = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
student = nn.Sequential(nn.Linear(8, 6), nn.ReLU(), nn.Linear(6, 3))
X = torch.randn(64, 8)
y = (X[:, 0] > 0).long() + (X[:, 1] > 0).long()
T, soft_target_loss_weight, ce_loss_weight = 2, 0.25, 0.75
ce_loss = nn.CrossEntropyLoss()
opt = optim.Adam(student.parameters(), lr=0.01)
teacher.eval()
student.train()
for epoch in range(5):
    with torch.no_grad():
        teacher_logits = teacher(X)
    student_logits = student(X)
    soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1)
    soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1)
    soft_targets_loss = torch.sum(soft_targets * (soft_targets.log() - soft_prob)) / soft_prob.size()[0] * (T ** 2)
    kl = nn.KLDivLoss(reduction="batchmean")(soft_prob, soft_targets) * T ** 2
    label_loss = ce_loss(student_logits, y)
    loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"Epoch {epoch + 1}, Loss: {loss.item():.4f} kl {kl.item():.4f} same {torch.allclose(kl, soft_targets_loss, atol=1e-5)}")
cos = nn.CosineEmbeddingLoss()(teacher[0](X[:4]), teacher[0](X[:4]).flip(0), torch.tensor([1.0, -1.0, 1.0, -1.0]))
print(f"{cos.item():.4f}", F.kl_div(soft_prob, soft_targets, reduction="sum", log_target=False).item() > 0)
