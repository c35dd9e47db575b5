"""Threads (issue 8): grad mode is per thread, and separate graphs backpropagate at once.

As in PyTorch, ``no_grad`` / ``enable_grad`` / ``set_grad_enabled`` set a thread-local flag:
one thread's ``no_grad`` block must not turn off recording in another.
"""
from __future__ import annotations

import threading

import numpy as np
import torch

import leafgrad as lg

N_ITER = 200


def test_grad_mode_is_per_thread():
    inside = threading.Event()
    checked = threading.Event()
    seen = {}

    def worker():
        with lg.no_grad():
            seen["worker_enabled"] = lg.is_grad_enabled()
            inside.set()
            checked.wait(10)
            x = lg.ones(2, requires_grad=True)
            seen["worker_records"] = (x * 2).requires_grad

    t = threading.Thread(target=worker)
    t.start()
    assert inside.wait(10)
    # the worker sits in no_grad right now; this thread still records
    seen["main_enabled"] = lg.is_grad_enabled()
    y = lg.ones(2, requires_grad=True) * 2
    seen["main_records"] = y.requires_grad
    checked.set()
    t.join(10)
    assert seen == {"worker_enabled": False, "worker_records": False,
                    "main_enabled": True, "main_records": True}


def test_new_threads_start_with_grad_enabled():
    result = {}
    with lg.no_grad():
        t = threading.Thread(target=lambda: result.setdefault("on", lg.is_grad_enabled()))
        t.start()
        t.join(10)
    assert result == {"on": True}   # as PyTorch: the mode does not travel to new threads


def test_set_grad_enabled_in_one_thread_only():
    barrier = threading.Barrier(2, timeout=10)
    out = {}

    def off():
        lg.set_grad_enabled(False)
        barrier.wait()            # both threads are now in their own mode
        out["off"] = lg.is_grad_enabled()
        barrier.wait()
        lg.set_grad_enabled(True)

    def on():
        barrier.wait()
        out["on"] = lg.is_grad_enabled()
        barrier.wait()

    threads = [threading.Thread(target=off), threading.Thread(target=on)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert out == {"off": False, "on": True}


def _expected_grads(seed):
    """The gradients of the worker's function, computed by PyTorch."""
    rng = np.random.default_rng(seed)
    w = torch.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    x = torch.tensor(rng.standard_normal((5, 4)))
    loss = (x @ w).tanh().pow(2).sum() + w.exp().mean()
    loss.backward()
    return w.grad.numpy()


def _worker(seed, barrier, results, errors):
    try:
        rng = np.random.default_rng(seed)
        w = lg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
        x = lg.tensor(rng.standard_normal((5, 4)))
        barrier.wait()   # start together so the two backward passes overlap
        grads = []
        for i in range(N_ITER):
            w.grad = None
            if i % 2:
                with lg.no_grad():   # a no_grad block in one thread must not leak
                    _ = w * 2
            loss = (x @ w).tanh().pow(2).sum() + w.exp().mean()
            loss.backward()
            grads.append(w.grad.numpy().copy())
        results[seed] = grads
    except Exception as exc:   # noqa: BLE001 - reported by the main thread
        errors.append(exc)


def test_two_threads_backward_separate_graphs_at_once():
    seeds = (1, 2)
    barrier = threading.Barrier(len(seeds), timeout=10)
    results, errors = {}, []
    threads = [threading.Thread(target=_worker, args=(s, barrier, results, errors))
               for s in seeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    for s in seeds:
        expected = _expected_grads(s)
        assert len(results[s]) == N_ITER
        for g in results[s]:
            np.testing.assert_allclose(g, expected, rtol=1e-12, atol=1e-12)
