"""Chain workloads: W1 seed chain, W2 op overhead, W5 deep chain.

These measure what an autograd engine costs per operation when the arithmetic itself is
nearly free: building graph nodes, dispatching, saving tensors, walking the graph backward.
Each ``build_*`` takes ``impl`` ("leafgrad", "torch" or "numpy") and ``lib`` (the module for
the first two) and returns a ``Case``; the lib code is written once for both libraries.
"""
from __future__ import annotations

import numpy as np

from .harness import Case
from .libs import to_numpy

# ---- W1: the seed chain (w -> h = w^2 -> loss = 3h) -----------------------------------------


def build_w1(impl: str, lib) -> Case:
    """The DESIGN seed program: w = 2, h = w.square(), loss = 3h, backward, clear the grad."""
    state = {}

    if impl == "numpy":
        def run(n):
            for _ in range(n):
                w = np.array(2.0, dtype=np.float32)
                h = np.square(w)
                loss = 3 * h
                # backward by hand: dloss/dh = 3, dh/dw = 2w
                grad = np.float32(3.0) * (2 * w)
            state["loss"], state["grad"] = loss, grad
    else:
        def run(n):
            for _ in range(n):
                w = lib.tensor(2.0, requires_grad=True)
                h = w.square()
                loss = 3 * h
                loss.backward()
                grad = w.grad
                w.grad = None
            state["loss"], state["grad"] = loss, grad

    def result():
        return {"loss": to_numpy(state["loss"]), "grad": to_numpy(state["grad"])}

    return Case(run=run, result=result, units=1)


# ---- W2 / W5: chains of elementwise ops -----------------------------------------------------

W2_OPS = 100
W2_CONSTS = (1.0001, 0.001)  # x * 1.0001, x + 0.001, tanh, repeated
W5_OPS = 10_000
# W5 adds 1e-6 rather than 0.001: with 0.001 the values settle on tanh's fixed point near 0.144
# and 3,333 tanh derivatives multiply the gradient down to ~1e-31, where float32 nears
# subnormals (slow on some CPUs, and meaningless). With 1e-6 gradients stay in [6e-6, 1.4].
W5_CONSTS = (1.0001, 1e-6)


def _chain_lib(x, n_ops, mul, add):
    y = x
    for k in range(n_ops):
        r = k % 3
        if r == 0:
            y = y * mul
        elif r == 1:
            y = y + add
        else:
            y = y.tanh()
    return y


def _chain_numpy(x, n_ops, mul, add):
    """Forward keeping what backward needs (tanh outputs), then backward by hand."""
    mul32, add32 = np.float32(mul), np.float32(add)
    saved = []
    y = x
    for k in range(n_ops):
        r = k % 3
        if r == 0:
            y = y * mul32
        elif r == 1:
            y = y + add32
        else:
            y = np.tanh(y)
            saved.append(y)
    total = y.sum()
    grad = np.ones_like(y)
    for k in reversed(range(n_ops)):
        r = k % 3
        if r == 0:
            grad = grad * mul32
        elif r == 2:
            t = saved.pop()
            grad = grad * (1 - t * t)
        # add: gradient passes through unchanged
    return total, grad


def _build_chain(impl, lib, x0, n_ops, consts):
    state = {}
    mul, add = consts
    if impl == "numpy":
        def run(n):
            for _ in range(n):
                total, grad = _chain_numpy(x0, n_ops, mul, add)
            state["loss"], state["grad"] = total, grad
    else:
        x = lib.tensor(x0, requires_grad=True)

        def run(n):
            for _ in range(n):
                x.grad = None
                total = _chain_lib(x, n_ops, mul, add).sum()
                total.backward()
            state["loss"], state["grad"] = total, x.grad

    def result():
        return {"loss": to_numpy(state["loss"]), "grad": to_numpy(state["grad"])}

    return Case(run=run, result=result, units=n_ops)


def build_w2(impl: str, lib) -> Case:
    """100 elementwise ops on a 1-element float32 tensor, then .sum().backward(); per op."""
    x0 = np.array([0.5], dtype=np.float32)
    return _build_chain(impl, lib, x0, W2_OPS, W2_CONSTS)


def build_w5(impl: str, lib) -> Case:
    """10,000 elementwise ops on a 1,000-element float32 tensor, forward + backward, at the
    default recursion limit (a recursive engine overflows here)."""
    x0 = np.linspace(-1.0, 1.0, 1000, dtype=np.float32)
    case = _build_chain(impl, lib, x0, W5_OPS, W5_CONSTS)
    case.units = 1  # reported per run of the whole chain
    return case
