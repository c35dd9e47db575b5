"""A two-layer MLP on scikit-learn's 8x8 digits: an ordinary PyTorch program.

    python examples/mlp_digits.py             # real PyTorch
    leafgrad run examples/mlp_digits.py       # the same file on leafgrad
    leafgrad run examples/mlp_digits.py --quick

Standardised inputs, a seeded train/test split and a DataLoader that shuffles with its own
seeded generator, Adam with a cosine learning-rate schedule, cross-entropy with label
smoothing; ends with the test accuracy (about 98%).
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from _common import load_digits_split, progress


class MLP(nn.Module):
    def __init__(self, n_in=64, n_hidden=256, n_out=10):
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.fc2 = nn.Linear(n_hidden, n_out)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        predicted = model(x).argmax(dim=1)
    model.train()
    return (predicted == y).float().mean().item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="a tiny run (3 epochs)")
    parser.add_argument("--no-progress", action="store_true", help="no tqdm bar")
    args = parser.parse_args()
    epochs = 3 if args.quick else args.epochs

    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = load_digits_split(seed=0)
    x_train, y_train = torch.from_numpy(x_train), torch.from_numpy(y_train)
    x_test, y_test = torch.from_numpy(x_test), torch.from_numpy(y_test)
    print(f"train {tuple(x_train.shape)}, test {tuple(x_test.shape)}")

    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    model = MLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
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
