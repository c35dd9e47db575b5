"""W6: one training step of a small CNN on 64 x 1 x 28 x 28.

conv 3x3 (1 -> 32) -> ReLU -> conv 3x3 (32 -> 32) -> ReLU -> max-pool 2 -> flatten ->
Linear (32*12*12 -> 10) -> cross-entropy (mean) -> backward -> SGD step -> zero_grad.
No padding, stride 1. Runs only when leafgrad has the modules; otherwise it is reported as
skipped with the missing names. The NumPy floor uses im2col convolutions and a hand-written
backward.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .harness import Case
from .libs import failure, missing_attrs, to_numpy

LR = 0.01
BATCH, CHANNELS, SIDE, CLASSES = 64, 32, 28, 10
POOLED = (SIDE - 4) // 2  # two 3x3 convs without padding, then a 2x2 pool: 28 -> 24 -> 12
FEATURES = ["nn.Conv2d", "nn.Linear", "nn.Parameter", "nn.functional.max_pool2d",
            "nn.functional.cross_entropy", "optim.SGD"]


def skip_reason(leafgrad) -> str | None:
    """None when leafgrad has the modules and a tiny step runs; else why W6 is skipped."""
    missing = missing_attrs(leafgrad, FEATURES)
    if missing:
        return "leafgrad lacks " + ", ".join(missing)
    why = failure(lambda: _probe(leafgrad))
    return f"leafgrad fails a tiny conv step: {why}" if why else None


def _probe(lib):
    """One step of the network on 2 images (weights of the real shapes, small batch)."""
    data = make_data()
    data = {"params": data["params"], "x": data["x"][:2], "y": data["y"][:2]}
    step, _ = _lib_cnn(lib, data)
    step()


def make_data(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)

    def uniform(shape, fan_in):
        bound = 1.0 / np.sqrt(fan_in)
        return rng.uniform(-bound, bound, shape).astype(np.float32)

    flat = CHANNELS * POOLED * POOLED
    return {
        "params": [
            uniform((CHANNELS, 1, 3, 3), 9), uniform(CHANNELS, 9),
            uniform((CHANNELS, CHANNELS, 3, 3), CHANNELS * 9), uniform(CHANNELS, CHANNELS * 9),
            uniform((CLASSES, flat), flat), uniform(CLASSES, flat),
        ],
        "x": rng.standard_normal((BATCH, 1, SIDE, SIDE), dtype=np.float32),
        "y": rng.integers(0, CLASSES, BATCH, dtype=np.int64),
    }


def _lib_cnn(lib, data):
    nn, F = lib.nn, lib.nn.functional
    w1, b1, w2, b2, w3, b3 = data["params"]
    conv1, conv2 = nn.Conv2d(1, CHANNELS, 3), nn.Conv2d(CHANNELS, CHANNELS, 3)
    fc = nn.Linear(w3.shape[1], CLASSES)
    for module, weight, bias in ((conv1, w1, b1), (conv2, w2, b2), (fc, w3, b3)):
        module.weight = nn.Parameter(lib.tensor(weight))
        module.bias = nn.Parameter(lib.tensor(bias))
    params = [p for m in (conv1, conv2, fc) for p in (m.weight, m.bias)]
    opt = lib.optim.SGD(params, lr=LR)
    x, y = lib.tensor(data["x"]), lib.tensor(data["y"])

    def step():
        h = lib.relu(conv1(x))
        h = lib.relu(conv2(h))
        h = F.max_pool2d(h, 2)
        loss = F.cross_entropy(fc(h.reshape(h.shape[0], -1)), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    return step, params


# ---- the NumPy floor ------------------------------------------------------------------------

def _im2col(x):
    """(N, C, H, W) -> (N*OH*OW, C*9) patches of a 3x3 valid convolution."""
    n, c, h, w = x.shape
    patches = sliding_window_view(x, (3, 3), axis=(2, 3))  # N, C, OH, OW, 3, 3
    return patches.transpose(0, 2, 3, 1, 4, 5).reshape(n * (h - 2) * (w - 2), c * 9)


def _conv_forward(x, weight, bias):
    n, _, h, w = x.shape
    cols = _im2col(x)
    out = cols @ weight.reshape(weight.shape[0], -1).T + bias
    return out.reshape(n, h - 2, w - 2, -1).transpose(0, 3, 1, 2), cols


def _conv_backward(grad, cols, weight, x_shape, need_input_grad):
    """Gradients of a 3x3 valid convolution: (weight, bias, input or None)."""
    out_ch = weight.shape[0]
    grad_mat = grad.transpose(0, 2, 3, 1).reshape(-1, out_ch)
    grad_w = (grad_mat.T @ cols).reshape(weight.shape)
    grad_b = grad_mat.sum(axis=0)
    if not need_input_grad:
        return grad_w, grad_b, None
    n, c, h, w = x_shape
    oh, ow = h - 2, w - 2
    grad_cols = (grad_mat @ weight.reshape(out_ch, -1)).reshape(n, oh, ow, c, 3, 3)
    grad_x = np.zeros(x_shape, dtype=grad.dtype)
    for i in range(3):  # col2im: each kernel offset adds its shifted slice
        for j in range(3):
            grad_x[:, :, i:i + oh, j:j + ow] += grad_cols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return grad_w, grad_b, grad_x


def _pool_forward(x):
    """2x2 max-pool; the argmax picks the first maximum in row-major window order, as
    PyTorch does."""
    n, c, h, w = x.shape
    windows = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5)
    windows = windows.reshape(n, c, h // 2, w // 2, 4)
    index = windows.argmax(axis=-1)
    return np.take_along_axis(windows, index[..., None], axis=-1)[..., 0], index


def _pool_backward(grad, index, x_shape):
    n, c, h, w = x_shape
    windows = np.zeros((n, c, h // 2, w // 2, 4), dtype=grad.dtype)
    np.put_along_axis(windows, index[..., None], grad[..., None], axis=-1)
    return windows.reshape(n, c, h // 2, w // 2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(x_shape)


def _numpy_floor(data):
    params = [p.copy() for p in data["params"]]
    x, y = data["x"], data["y"]
    rows = np.arange(BATCH)
    lr = np.float32(LR)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        z1, cols1 = _conv_forward(x, w1, b1)
        a1 = np.maximum(z1, 0)
        z2, cols2 = _conv_forward(a1, w2, b2)
        a2 = np.maximum(z2, 0)
        pooled, index = _pool_forward(a2)
        flat = pooled.reshape(BATCH, -1)
        logits = flat @ w3.T + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        total = exp.sum(axis=1, keepdims=True)
        loss = -(shifted[rows, y] - np.log(total[:, 0])).mean()
        grad = exp / total
        grad[rows, y] -= 1
        grad /= BATCH
        grad_w3, grad_b3 = grad.T @ flat, grad.sum(axis=0)
        grad = (grad @ w3).reshape(pooled.shape)
        grad = _pool_backward(grad, index, a2.shape) * (z2 > 0)
        grad_w2, grad_b2, grad = _conv_backward(grad, cols2, w2, a1.shape, True)
        grad = grad * (z1 > 0)
        grad_w1, grad_b1, _ = _conv_backward(grad, cols1, w1, x.shape, False)
        for p, g in zip(params, (grad_w1, grad_b1, grad_w2, grad_b2, grad_w3, grad_b3)):
            p -= lr * g
        return loss

    return step, params


def build_w6(impl: str, lib) -> Case:
    data = make_data()
    step, params = _numpy_floor(data) if impl == "numpy" else _lib_cnn(lib, data)
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

    return Case(run=run, result=result, units=1, variant="nn" if impl != "numpy" else "",
                extra={"step": step})
