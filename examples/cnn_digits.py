"""A small CNN on scikit-learn's 8x8 digits: an ordinary PyTorch program.

    python examples/cnn_digits.py             # real PyTorch
    leafgrad run examples/cnn_digits.py       # the same file on leafgrad
    leafgrad run examples/cnn_digits.py --quick

Each image is a 1x8x8 tensor: conv 3x3 -> ReLU -> max-pool -> conv 3x3 -> ReLU -> linear.
Adam with a cosine learning-rate schedule, cross-entropy with label smoothing; ends with the
test accuracy (about 99%).
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from _common import load_digits_split, progress


class SmallCNN(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1),   # 16 x 8 x 8
            nn.ReLU(),
            nn.MaxPool2d(2),                              # 16 x 4 x 4
            nn.Conv2d(16, 32, kernel_size=3, padding=1),  # 32 x 4 x 4
            nn.ReLU(),
        )
        # a second pooling (to 2x2) costs about a point of accuracy on images this small
        self.classifier = nn.Linear(32 * 4 * 4, n_classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        predicted = model(x).argmax(dim=1)
    model.train()
    return (predicted == y).float().mean().item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="a tiny run (3 epochs)")
    parser.add_argument("--no-progress", action="store_true", help="no tqdm bar")
    args = parser.parse_args()
    epochs = 3 if args.quick else args.epochs

    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = load_digits_split(seed=0)
    # (n, 64) -> (n, 1, 8, 8): one channel of 8x8 pixels
    x_train = torch.from_numpy(x_train).reshape(-1, 1, 8, 8)
    x_test = torch.from_numpy(x_test).reshape(-1, 1, 8, 8)
    y_train, y_test = torch.from_numpy(y_train), torch.from_numpy(y_test)
    print(f"train {tuple(x_train.shape)}, test {tuple(x_test.shape)}")

    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    model = SmallCNN()
    print(f"{sum(p.numel() for p in model.parameters())} parameters")
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)

    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        total, count = 0.0, 0
        for xb, yb in progress(loader, f"epoch {epoch}", not args.no_progress):
            loss = F.cross_entropy(model(xb), yb, label_smoothing=0.1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(yb)
            count += len(yb)
        scheduler.step()
        print(f"epoch {epoch:2d}  loss {total / count:.4f}  "
              f"test accuracy {accuracy(model, x_test, y_test):.2%}")
    print(f"trained {epochs} epochs in {time.perf_counter() - start:.1f}s")
    print(f"final test accuracy: {accuracy(model, x_test, y_test):.2%}")


if __name__ == "__main__":
    main()
