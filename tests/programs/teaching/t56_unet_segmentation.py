# a tiny U-Net for segmentation masks: double convs, max-pool down, transposed-conv / bilinear
# up, skip connections with F.pad to match sizes, Dice + BCE loss, IoU metric
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(12)


class DoubleConv(nn.Module):
    def __init__(self, in_channels, out_channels, mid_channels=None):
        super().__init__()
        if not mid_channels:
            mid_channels = out_channels
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, mid_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(mid_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.double_conv(x)


class Down(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.maxpool_conv = nn.Sequential(nn.MaxPool2d(2), DoubleConv(in_channels, out_channels))

    def forward(self, x):
        return self.maxpool_conv(x)


class Up(nn.Module):
    def __init__(self, in_channels, out_channels, bilinear=True):
        super().__init__()
        if bilinear:
            self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
            self.conv = DoubleConv(in_channels, out_channels, in_channels // 2)
        else:
            self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
            self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
        x = torch.cat([x2, x1], dim=1)
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, n_channels, n_classes, bilinear=False):
        super().__init__()
        factor = 2 if bilinear else 1
        self.inc = DoubleConv(n_channels, 4)
        self.down1 = Down(4, 8)
        self.down2 = Down(8, 16 // factor)
        self.up1 = Up(16, 8 // factor, bilinear)
        self.up2 = Up(8, 4, bilinear)
        self.outc = nn.Conv2d(4, n_classes, kernel_size=1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x = self.up1(x3, x2)
        x = self.up2(x, x1)
        return self.outc(x)


def dice_coeff(input, target, epsilon=1e-6):
    sum_dim = (-1, -2)
    inter = 2 * (input * target).sum(dim=sum_dim)
    sets_sum = input.sum(dim=sum_dim) + target.sum(dim=sum_dim)
    sets_sum = torch.where(sets_sum == 0, inter, sets_sum)
    dice = (inter + epsilon) / (sets_sum + epsilon)
    return dice.mean()


images = torch.rand(4, 1, 14, 14)
yy, xx = torch.meshgrid(torch.arange(14), torch.arange(14), indexing="ij")
masks = ((yy - 7) ** 2 + (xx - 7) ** 2 < 20).float().expand(4, 1, 14, 14).clone()
images = images * 0.5 + masks * 0.5
for bilinear in (False, True):
    torch.manual_seed(0)
    model = UNet(1, 1, bilinear=bilinear)
    print(f"bilinear={bilinear} params={sum(p.numel() for p in model.parameters())}", model.up1.up)
    opt = torch.optim.RMSprop(model.parameters(), lr=1e-3, weight_decay=1e-8, momentum=0.9)
    criterion = nn.BCEWithLogitsLoss()
    for step in range(4):
        logits = model(images)
        loss = criterion(logits, masks) + (1 - dice_coeff(torch.sigmoid(logits), masks))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"  step {step}: loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        pred = (torch.sigmoid(model(images)) > 0.5).float()
        inter = (pred * masks).sum()
        union = ((pred + masks) > 0).float().sum()
        print(f"  IoU {(inter / union).item():.4f}", pred.shape, logits.shape)

x = torch.arange(16.).view(1, 1, 4, 4)
print(F.interpolate(x, scale_factor=2, mode="nearest")[0, 0, :2])
print(F.interpolate(x, size=(3, 5), mode="bilinear", align_corners=False))
print(F.interpolate(x, scale_factor=0.5, mode="area"), F.interpolate(x, size=6, mode="bicubic", align_corners=True)[0, 0, 0])
print(F.pad(x, (1, 1, 2, 0), mode="reflect")[0, 0], F.pad(x, (1, 1, 0, 2), mode="replicate").shape, F.pad(x, (1, 1, 1, 1), mode="circular")[0, 0, 0])
up = nn.ConvTranspose2d(1, 1, 3, stride=2, padding=1)
print(up(x).shape, up(x, output_size=[8, 8]).shape)
print(F.avg_pool2d(x, 3, stride=2, ceil_mode=True), F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)[1])
print(F.adaptive_avg_pool2d(x, (3, 3)), F.unfold(x, 2, stride=2).shape, F.pixel_shuffle(torch.arange(8.).view(1, 8, 1, 1), 2).shape)
