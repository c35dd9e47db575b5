"""MLP training steps: W3 (small) and W4 (large).

One step: forward through Linear -> ReLU -> ... -> Linear, cross-entropy (mean), backward,
SGD step, zero_grad. Written once for ``lib`` in the idiomatic form (``nn.Linear``,
``nn.functional.cross_entropy``, ``optim.SGD``), with a tensor-ops fallback for a leafgrad that
lacks those modules yet. The variant is chosen by probing leafgrad, and torch runs the same
variant so both do the same work. The NumPy floor is the same math with a hand-written
backward.
"""
from __future__ import annotations

import itertools

import numpy as np

from .harness import Case
from .libs import failure, missing_attrs, to_numpy, works

LR = 0.01
NN_FEATURES = ["nn.Linear", "nn.Parameter", "nn.functional.cross_entropy", "optim.SGD"]


def make_data(sizes: list[int], batch: int, seed: int = 0) -> dict:
    """Inputs, labels and initial parameters (PyTorch's default init bounds) as NumPy arrays.

    Every implementation starts from copies of these.
    """
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in itertools.pairwise(sizes):
        bound = 1.0 / np.sqrt(fan_in)
        weight = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
        bias = rng.uniform(-bound, bound, fan_out).astype(np.float32)
        params.append((weight, bias))
    x = rng.standard_normal((batch, sizes[0]), dtype=np.float32)
    y = rng.integers(0, sizes[-1], batch, dtype=np.int64)
    return {"params": params, "x": x, "y": y}


# ---- choosing the variant -------------------------------------------------------------------

def _probe_ops(lib) -> dict | None:
    """Which tensor ops the fallback can use on lib, or None when matmul is missing.

    Returns choices for log-softmax ("log_softmax" or "exp-sum-log") and for picking each
    row's target ("index", "gather" or "one-hot").
    """
    a = lib.tensor(np.ones((2, 3), np.float32), requires_grad=True)
    b = lib.tensor(np.ones((4, 3), np.float32))
    if not works(lambda: (a @ b.T).sum().backward()):
        return None
    if works(lambda: a.log_softmax(1).sum().backward()):
        log_softmax = "log_softmax"
    else:
        log_softmax = "exp-sum-log"
    labels = lib.tensor(np.array([0, 2], np.int64))
    if works(lambda: a[lib.arange(2), labels].sum().backward()):
        pick = "index"
    elif works(lambda: a.gather(1, labels.reshape(2, 1)).sum().backward()):
        pick = "gather"
    else:
        pick = "one-hot"
    return {"log_softmax": log_softmax, "pick": pick}


def _probe_nn(lib):
    """One step of a 3 -> 2 network in the idiomatic variant; raises where lib cannot."""
    data = {"params": [(np.ones((2, 3), np.float32), np.zeros(2, np.float32))],
            "x": np.ones((4, 3), np.float32), "y": np.array([0, 1, 1, 0], np.int64)}
    step, _ = _lib_nn(lib, data)
    step()


def choose_variant(leafgrad) -> tuple[str, dict | None, str | None]:
    """(variant label, fallback choices, skip reason) for running MLPs on this leafgrad.

    The idiomatic variant when leafgrad has the modules and a tiny step of it runs; else the
    tensor-ops fallback when leafgrad has matmul; else a reason to skip.
    """
    missing = missing_attrs(leafgrad, NN_FEATURES)
    why_not_nn = ("lacks " + ", ".join(missing)) if missing else failure(
        lambda: _probe_nn(leafgrad))
    if why_not_nn is None:
        return "nn", None, None
    ops = _probe_ops(leafgrad)
    if ops is None:
        return "", None, (f"nn variant: leafgrad {why_not_nn}; "
                          "fallback: leafgrad lacks Tensor @ Tensor (matmul)")
    label = f"ops: matmul+relu+{ops['log_softmax']}+{ops['pick']}+no_grad SGD"
    return label, ops, None


# ---- the lib implementation (leafgrad or torch) ---------------------------------------------

def _lib_nn(lib, data):
    """Idiomatic: nn.Linear layers, F.cross_entropy, optim.SGD."""
    layers = []
    for weight, bias in data["params"]:
        layer = lib.nn.Linear(weight.shape[1], weight.shape[0])
        layer.weight = lib.nn.Parameter(lib.tensor(weight))
        layer.bias = lib.nn.Parameter(lib.tensor(bias))
        layers.append(layer)
    params = [p for layer in layers for p in (layer.weight, layer.bias)]
    opt = lib.optim.SGD(params, lr=LR)
    x, y = lib.tensor(data["x"]), lib.tensor(data["y"])
    cross_entropy = lib.nn.functional.cross_entropy
    last = len(layers) - 1

    def step():
        h = x
        for i, layer in enumerate(layers):
            h = layer(h)
            if i < last:
                h = lib.relu(h)
        loss = cross_entropy(h, y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    return step, params


def _lib_ops(lib, data, ops):
    """Fallback: the same network from tensor ops, SGD by hand under no_grad."""
    layers = [(lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True))
              for w, b in data["params"]]
    params = [p for pair in layers for p in pair]
    x, y = lib.tensor(data["x"]), lib.tensor(data["y"])
    batch, classes = data["x"].shape[0], data["params"][-1][0].shape[0]
    rows = lib.arange(batch)
    y_col = y.reshape(batch, 1)
    onehot = lib.tensor(np.eye(classes, dtype=np.float32)[data["y"]])
    last = len(layers) - 1

    def log_softmax(z):
        if ops["log_softmax"] == "log_softmax":
            return z.log_softmax(1)
        # logits here are small, so the unshifted form does not overflow
        return z - z.exp().sum(1, keepdim=True).log()

    def pick(logp):
        if ops["pick"] == "index":
            return logp[rows, y]
        if ops["pick"] == "gather":
            return logp.gather(1, y_col)
        return (logp * onehot).sum(1)

    def step():
        h = x
        for i, (w, b) in enumerate(layers):
            h = h @ w.T + b
            if i < last:
                h = lib.relu(h)
        loss = -pick(log_softmax(h)).mean()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p.sub_(p.grad * LR)
        for p in params:
            p.grad = None
        return loss

    return step, params


# ---- the NumPy floor ------------------------------------------------------------------------

def _numpy_floor(data):
    """Forward, cross-entropy, backward and SGD by hand: the least work for one step."""
    params = [[w.copy(), b.copy()] for w, b in data["params"]]
    x, y = data["x"], data["y"]
    batch = x.shape[0]
    rows = np.arange(batch)
    lr = np.float32(LR)
    last = len(params) - 1

    def step():
        acts, pre = [x], []
        h = x
        for i, (w, b) in enumerate(params):
            z = h @ w.T + b
            pre.append(z)
            h = np.maximum(z, 0) if i < last else z
            acts.append(h)
        shifted = h - h.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        total = exp.sum(axis=1, keepdims=True)
        loss = -(shifted[rows, y] - np.log(total[:, 0])).mean()
        grad = exp / total  # d loss / d logits = (softmax - onehot) / batch
        grad[rows, y] -= 1
        grad /= batch
        for i in range(last, -1, -1):
            w, b = params[i]
            grad_w = grad.T @ acts[i]
            grad_b = grad.sum(axis=0)
            if i > 0:  # the input x needs no gradient
                grad = (grad @ w) * (pre[i - 1] > 0)
            w -= lr * grad_w
            b -= lr * grad_b
        return loss

    flat = [p for pair in params for p in pair]
    return step, flat


def build_mlp(impl: str, lib, sizes: list[int], batch: int, variant: tuple) -> Case:
    """A Case running `n` training steps of the MLP with the given layer sizes."""
    label, ops, _ = variant
    data = make_data(sizes, batch)
    if impl == "numpy":
        step, params = _numpy_floor(data)
    elif ops is None:
        step, params = _lib_nn(lib, data)
    else:
        step, params = _lib_ops(lib, data, ops)
    state = {}

    def run(n):
        for _ in range(n):
            loss = step()
        state["loss"] = loss

    initial = [to_numpy(p) for p in params]

    def result():
        # the change of each parameter, so a wrong gradient is not hidden by the much larger
        # parameter values it is added to
        out = {"loss": to_numpy(state["loss"])}
        for i, (p, p0) in enumerate(zip(params, initial)):
            out[f"update{i}"] = to_numpy(p) - p0
        return out

    return Case(run=run, result=result, units=1, variant=label if impl != "numpy" else "",
                extra={"step": step})
