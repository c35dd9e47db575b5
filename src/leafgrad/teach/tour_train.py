"""Tour sections 9-10: train a small classifier; the debugging checklist.

The helpers here keep the tour's training loop short and free of optional packages: a
progress reporter (a tqdm bar on stderr when tqdm is installed, plain lines otherwise; the
lines on stdout are the same either way), a text sparkline, a loss-curve PNG when matplotlib
is installed, and a text map of the learned decision regions.
"""
from __future__ import annotations

import importlib.util

from .tour import section

__all__ = ["Progress", "decision_map", "save_loss_plot", "sparkline"]

_BARS = "▁▂▃▄▅▆▇█"


class Progress:
    """``for step in Progress(n): ...; bar.report(loss)``; prints a line every ``every`` steps.

    With tqdm installed a bar runs on stderr too; the printed lines go to stdout through
    ``tqdm.write`` so they do not tear the bar.
    """

    def __init__(self, total: int, desc: str = "training", every: int = 50):
        self.total, self.desc, self.every = total, desc, every
        self.step = 0
        self.bar = None
        if importlib.util.find_spec("tqdm") is not None:
            from tqdm import tqdm
            self.bar = tqdm(total=total, desc=desc, leave=False)

    def __iter__(self):
        for i in range(self.total):
            self.step = i
            yield i
        if self.bar is not None:
            self.bar.close()

    def report(self, loss: float) -> None:
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(loss=f"{loss:.4f}", refresh=False)
        if self.step % self.every == 0 or self.step == self.total - 1:
            line = f"  {self.desc} step {self.step + 1:4d}/{self.total}  loss {loss:.4f}"
            if self.bar is not None:
                self.bar.write(line)
            else:
                print(line, flush=True)


def sparkline(values, width: int = 60) -> str:
    """``values`` as one line of block characters, averaged into ``width`` buckets; low is
    short. Scaled to [min, max] of the bucket means.

    >>> sparkline([4, 3, 2, 1], width=4)
    '█▆▃▁'
    """
    values = list(values)
    n = len(values)
    width = min(width, n)
    means = []
    for b in range(width):
        chunk = values[b * n // width:(b + 1) * n // width]
        means.append(sum(chunk) / len(chunk))
    lo, hi = min(means), max(means)
    span = (hi - lo) or 1.0
    return "".join(_BARS[min(len(_BARS) - 1, int((m - lo) / span * (len(_BARS) - 1) + 0.5))]
                   for m in means)


def save_loss_plot(values, path: str) -> str:
    """Write the loss curve to ``path`` with matplotlib; say where, or why not."""
    if importlib.util.find_spec("matplotlib") is None:
        return "(matplotlib is not installed: no PNG; `pip install matplotlib` adds it)"
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(range(1, len(values) + 1), values)
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy loss")
    ax.set_yscale("log")
    ax.set_title("leafgrad tour: training loss")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return f"loss curve saved to {path}"


def decision_map(model, X, y, rows: int = 18, cols: int = 48) -> str:
    """The plane as characters: the class the model predicts at each cell (a, b, c), with the
    training points drawn over it in capitals (A, B, C)."""
    import leafgrad as torch
    letters = "abcdefgh"
    lo = X.min(0).values - 0.1
    hi = X.max(0).values + 0.1
    xs = torch.linspace(lo[0].item(), hi[0].item(), cols)
    ys = torch.linspace(hi[1].item(), lo[1].item(), rows)
    grid = torch.stack((xs.repeat(rows), ys.reshape(rows, 1).expand(rows, cols).reshape(-1)),
                       dim=1)
    with torch.no_grad():
        pred = model(grid).argmax(1).reshape(rows, cols).tolist()
    canvas = [[letters[c] for c in row] for row in pred]
    for (px, py), label in zip(X.tolist(), y.tolist()):
        col = round((px - lo[0].item()) / (hi[0].item() - lo[0].item()) * (cols - 1))
        row = round((hi[1].item() - py) / (hi[1].item() - lo[1].item()) * (rows - 1))
        canvas[row][col] = letters[label].upper()
    return "\n".join("  " + "".join(row) for row in canvas)


@section("train", "train a small classifier on a 2-D spiral")
def train(t):
    t.say("""
        Everything so far, put to work: three interleaved spiral arms in the plane, one
        class each, and a small MLP trained with Adam on cross-entropy. The loop is the
        standard one: forward, zero_grad, backward, step. The data comes from the seeded
        generator, so every run prints the same numbers.
        """)
    t.run("""
        import leafgrad.nn.functional as F
        from leafgrad.teach.tour_train import Progress, sparkline, save_loss_plot, decision_map
        _ = torch.manual_seed(0)
        points, labels = [], []
        for arm in range(3):
            radius = torch.linspace(0.1, 1.0, 60)
            angle = torch.linspace(0.0, 5.0, 60) + 2.094 * arm + 0.12 * torch.randn(60)
            points.append(torch.stack((radius * angle.sin(), radius * angle.cos()), dim=1))
            labels.append(torch.full((60,), arm, dtype=torch.long))
        X, y = torch.cat(points), torch.cat(labels)
        order = torch.randperm(len(X))
        train_idx, test_idx = order[:144], order[144:]
        X.shape, y.shape, [(y == arm).sum().item() for arm in range(3)]
        """)
    t.run("""
        model = torch.nn.Sequential(
            torch.nn.Linear(2, 32), torch.nn.Tanh(),
            torch.nn.Linear(32, 32), torch.nn.Tanh(),
            torch.nn.Linear(32, 3))
        optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
        sum(p.numel() for p in model.parameters())
        """)
    t.run("""
        losses = []
        progress = Progress(250)
        for step in progress:
            loss = F.cross_entropy(model(X[train_idx]), y[train_idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            progress.report(losses[-1])
        """)
    t.say("""
        Accuracy on the training points and on the 36 held-out ones, measured under
        no_grad (nothing to differentiate) with the model in eval mode (no dropout here,
        but it is the habit that matters).
        """)
    t.run(f"""
        model.eval()
        with torch.no_grad():
            train_acc = (model(X[train_idx]).argmax(1) == y[train_idx]).float().mean().item()
            test_acc = (model(X[test_idx]).argmax(1) == y[test_idx]).float().mean().item()
        print(f"train accuracy {{train_acc:.1%}}, test accuracy {{test_acc:.1%}}")
        print("loss", sparkline(losses), f"{{losses[0]:.3f}} -> {{losses[-1]:.4f}}")
        print(save_loss_plot(losses, {t.options.get('plot', 'leafgrad-tour-loss.png')!r}))
        print(decision_map(model, X, y))
        """)


@section("checklist", "when a gradient looks wrong: a checklist")
def checklist(t):
    t.say("""
        When training misbehaves, check in this order before touching the learning rate:

          1. Is the loss still a tensor connected to the graph? (loss.grad_fn is not None;
             .item(), .detach(), .numpy() or a no_grad block cut it.)
          2. Does the parameter take part in that graph? (It is reachable through
             next_functions; torch.autograd.grad(loss, p) does not complain.)
          3. Is its .grad None because it was not retained (non-leaf), not produced
             (unused, or cleared), or is it a genuine zero?
          4. Were gradients cleared once per update, or accumulated on purpose and
             scaled to the whole effective batch?
          5. Did an in-place change or a second backward trip the graph's checks? Read the
             version numbers in the message; do not silence it with .data.
          6. Is the derivative right? gradcheck your own Functions in float64.

        A backward pass that runs proves that derivatives were computed for this graph, not
        that the labels, masks or objective were the right ones.
        """)
    t.run("""
        w = torch.tensor(2.0, requires_grad=True)
        loss = torch.tensor(w.square().item() * 3)
        loss.grad_fn, loss.requires_grad
        loss = 3 * w.square()
        loss.grad_fn.name(), torch.autograd.grad(loss, w)
        """)
