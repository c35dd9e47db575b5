"""Save a trained model's state_dict and load it into a fresh model: an ordinary PyTorch
program.

    python examples/save_load.py              # real PyTorch
    leafgrad run examples/save_load.py        # the same file on leafgrad
    leafgrad run examples/save_load.py --quick --path model.pt

Trains the MLP of ``mlp_digits.py`` briefly, ``torch.save(model.state_dict(), path)``, builds
a new MLP (different random weights), ``load_state_dict(torch.load(path))``, and checks that
both give exactly the same predictions.

Under leafgrad the file is a safetensors file (leafgrad never pickles): real PyTorch reads
it with ``safetensors.torch.load_file(path)``, not ``torch.load``.
"""
import argparse
import os
import tempfile

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from _common import load_digits_split
from mlp_digits import MLP, accuracy


def train(model, loader, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, epochs + 1):
        total, count = 0.0, 0
        for xb, yb in loader:
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(yb)
            count += len(yb)
        print(f"epoch {epoch}  loss {total / count:.4f}")


def save_and_reload(model, x_test, y_test, path):
    torch.save(model.state_dict(), path)
    print(f"saved {len(model.state_dict())} tensors to {os.path.basename(path)} "
          f"({os.path.getsize(path)} bytes)")

    fresh = MLP()   # new random weights: it disagrees with the trained model...
    with torch.no_grad():
        print("fresh model agrees before loading:",
              torch.equal(fresh(x_test).argmax(1), model(x_test).argmax(1)))
    fresh.load_state_dict(torch.load(path))   # ...until it loads the saved state
    fresh.eval()
    model.eval()
    with torch.no_grad():
        same_logits = torch.equal(fresh(x_test), model(x_test))
    print("loaded model gives identical predictions:", same_logits)
    print(f"test accuracy: trained {accuracy(model, x_test, y_test):.2%}, "
          f"loaded {accuracy(fresh, x_test, y_test):.2%}")
    return same_logits


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a tiny run (1 epoch)")
    parser.add_argument("--path", help="where to save (default: a temporary file)")
    args = parser.parse_args()
    epochs = 1 if args.quick else args.epochs

    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = load_digits_split(seed=0)
    x_train, y_train = torch.from_numpy(x_train), torch.from_numpy(y_train)
    x_test, y_test = torch.from_numpy(x_test), torch.from_numpy(y_test)
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    model = MLP()
    train(model, loader, epochs)

    if args.path:
        ok = save_and_reload(model, x_test, y_test, args.path)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            ok = save_and_reload(model, x_test, y_test, os.path.join(tmp, "mlp.pt"))
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
