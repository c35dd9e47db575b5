"""Graphs are freed by reference counting alone: saved arrays go at backward, nodes with the
last tensor that holds them (issue 3 point 1, issue 5 point 3)."""
from __future__ import annotations

import gc
import tracemalloc
import weakref

import numpy as np

import leafgrad as torch


def _graph():
    x = torch.ones(1000, requires_grad=True)
    w = torch.full((1000,), 2.0, requires_grad=True)
    h = (x * w).exp()          # saves x, w and its own result
    loss = (h * h).sum()       # saves h twice
    return x, w, h, loss


def test_saved_arrays_released_at_backward_without_gc():
    gc.disable()
    try:
        x, w, h, loss = _graph()
        saved = weakref.ref(h._data)
        node = weakref.ref(h.grad_fn)
        del h
        assert saved() is not None        # the graph keeps the saved output alive
        loss.backward()
        assert saved() is None            # freed by backward, no collector needed
        assert node() is not None         # the node itself lives until the loss goes
        del loss
        assert node() is None             # no reference cycles
        assert x.grad is not None and w.grad is not None
    finally:
        gc.enable()


def test_retain_graph_keeps_saved_values_until_the_graph_goes():
    gc.disable()
    try:
        x, w, h, loss = _graph()
        saved = weakref.ref(h._data)
        del h
        loss.backward(retain_graph=True)
        assert saved() is not None
        loss.backward()
        assert saved() is None
    finally:
        gc.enable()


def test_autograd_grad_frees_too():
    gc.disable()
    try:
        x, w, h, loss = _graph()
        saved = weakref.ref(h._data)
        del h
        torch.autograd.grad(loss, [x])
        assert saved() is None
    finally:
        gc.enable()


def test_dropping_an_unused_graph_frees_it_without_gc():
    gc.disable()
    try:
        x, w, h, loss = _graph()
        node = weakref.ref(loss.grad_fn)
        saved = weakref.ref(h._data)
        del h, loss
        assert node() is None and saved() is None
    finally:
        gc.enable()


def test_hooks_and_retain_grad_do_not_leak():
    gc.disable()
    try:
        x, w, h, loss = _graph()
        h.retain_grad()
        handle = h.register_hook(lambda g: g * 1)
        node = weakref.ref(loss.grad_fn)
        loss.backward()
        assert h.grad is not None
        handle.remove()
        del loss
        assert node() is None
    finally:
        gc.enable()


def test_traced_memory_falls_back_after_backward():
    x = torch.ones(100_000, requires_grad=True)
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        y = x
        for _ in range(20):
            y = (y * 1.0001).tanh()       # each step saves a 400 kB array
        loss = y.sum()
        del y
        held, _ = tracemalloc.get_traced_memory()
        loss.backward()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    graph_bytes = held - base
    assert graph_bytes > 20 * 100_000 * 4          # the graph really held its arrays
    assert after - base < 0.1 * graph_bytes + 2 * 100_000 * 8   # released at backward
    assert np.allclose(x.grad.numpy()[:3], x.grad.numpy()[0])
