"""Scale (issue 8): deep chains, wide fan-out and long training loops, at the default
recursion limit and in flat memory.

Every traversal in leafgrad (backward, freeing a graph, dropping it) must be iterative: a
100,000-op chain is 100 times deeper than Python's default recursion limit.
"""
from __future__ import annotations

import gc
import math
import sys
import tracemalloc

import pytest

import leafgrad as lg

DEEP = 100_000
WIDE = 10_000


@pytest.fixture(autouse=True)
def default_recursion_limit():
    # the test proves nothing if someone raised the limit: pin it to CPython's default
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def test_100k_op_chain_backward():
    x = lg.tensor(1.0, dtype=lg.float64, requires_grad=True)
    y = x
    c = 1.0 + 1.0 / DEEP
    for i in range(DEEP):
        # alternate two ops so the chain is not one repeated node type
        y = y * c if i % 2 == 0 else y + 0.5
    y.backward()
    # d/dx of ((x*c + .5)*c + .5)... is c ** (number of multiplications)
    assert math.isclose(x.grad.item(), c ** (DEEP // 2), rel_tol=1e-9)
    assert y.grad_fn is not None


def test_100k_op_chain_autograd_grad_and_retain_graph():
    x = lg.tensor([1.0, 2.0], dtype=lg.float64, requires_grad=True)
    y = x
    for _ in range(DEEP):
        y = y * 1.0
    total = y.sum()
    (g,) = lg.autograd.grad(total, x, retain_graph=True)
    assert g.tolist() == [1.0, 1.0]
    total.backward()   # the retained graph runs a second time
    assert x.grad.tolist() == [1.0, 1.0]


def test_dropping_a_100k_op_graph_does_not_recurse():
    x = lg.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(DEEP // 3):
        y = y.exp() * 0.0 + 1.0   # 3 ops a step, saved tensors in every node
    del y   # freeing the nodes one by one must not overflow the C stack or the limit
    gc.collect()
    z = x * 2
    z.backward()
    assert x.grad.item() == 2.0


def test_100k_chain_second_order():
    # create_graph over a long chain: the backward graph is itself 100k ops deep
    x = lg.tensor(0.5, dtype=lg.float64, requires_grad=True)
    y = x
    for _ in range(DEEP // 4):
        y = y * 1.0
    y = y * y   # d/dx = 2x, d2/dx2 = 2
    (g,) = lg.autograd.grad(y, x, create_graph=True)
    (gg,) = lg.autograd.grad(g, x)
    assert math.isclose(g.item(), 1.0) and math.isclose(gg.item(), 2.0)


def test_10k_way_fanout_from_a_leaf():
    x = lg.tensor([1.0, -2.0], dtype=lg.float64, requires_grad=True)
    outs = [x * float(i) for i in range(WIDE)]
    total = lg.stack(outs).sum()
    total.backward()
    expected = WIDE * (WIDE - 1) / 2
    assert x.grad.tolist() == [expected, expected]


def test_10k_way_fanout_from_an_inner_node_summed_as_a_chain():
    # fan-out of a non-leaf (gradients accumulate in the engine) and a 10k-deep sum chain
    x = lg.tensor(0.3, dtype=lg.float64, requires_grad=True)
    h = x.exp()
    total = h * 0.0
    for i in range(WIDE):
        total = total + h * (1.0 if i % 2 else 2.0)
    total.backward()
    assert math.isclose(x.grad.item(), math.exp(0.3) * 1.5 * WIDE, rel_tol=1e-12)


class _Trainer:
    """A tiny model trained by SGD with momentum; ``run(n)`` takes n steps."""

    def __init__(self):
        lg.manual_seed(0)
        self.model = lg.nn.Linear(4, 1)
        self.opt = lg.optim.SGD(self.model.parameters(), lr=0.02, momentum=0.9)
        self.xs = lg.randn(8, 4)
        self.ys = self.xs.sum(1, keepdim=True) * 0.5 + 1.0
        self.loss = None

    def run(self, steps):
        for _ in range(steps):
            self.opt.zero_grad()
            loss = lg.nn.functional.mse_loss(self.model(self.xs), self.ys)
            loss.backward()
            self.opt.step()
        self.loss = loss.item()


def test_memory_is_flat_over_a_10k_step_training_loop():
    trainer = _Trainer()
    trainer.run(200)   # warm caches (scalar arrays, lazily imported modules)
    gc.collect()
    objects_before = len(gc.get_objects())
    trainer.run(7_800)   # untraced: tracemalloc makes each step about 4 times slower
    gc.collect()
    objects_after = len(gc.get_objects())
    tracemalloc.start()
    try:
        trainer.run(1_000)
        gc.collect()
        traced_1, _ = tracemalloc.get_traced_memory()
        trainer.run(1_000)
        gc.collect()
        traced_2, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # no Python objects pile up over 7,800 steps, and no bytes over the last 1,000 steps (a
    # leak of 16 bytes a step would show as 16 KB)
    assert objects_after - objects_before < 50, (objects_before, objects_after)
    assert traced_2 - traced_1 < 16 * 1024, (traced_1, traced_2)
    assert trainer.loss < 1e-3   # and it did train
