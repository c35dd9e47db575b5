"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode, thread-locality."""
from __future__ import annotations

import threading

import torch

import leafgrad
from oracle import same_on_both


def test_no_grad_and_enable_grad_nesting():
    def prog(t):
        x = t.ones(2, requires_grad=True)
        out = []
        with t.no_grad():
            out.append((x * 2).requires_grad)
            out.append(t.is_grad_enabled())
            with t.enable_grad():
                out.append((x * 2).requires_grad)
            out.append((x * 2).requires_grad)
        out.append((x * 2).requires_grad)
        return out
    same_on_both(prog)


def test_modes_as_decorators():
    def prog(t):
        @t.no_grad()
        def f(x):
            return x * 2

        @t.no_grad
        def g(x):
            return x * 2

        @t.enable_grad()
        def h(x):
            return x * 2

        @t.set_grad_enabled(False)
        def k(x):
            return x * 2
        x = t.ones(2, requires_grad=True)
        with t.no_grad():
            inner = h(x).requires_grad
        return [f(x).requires_grad, g(x).requires_grad, inner, k(x).requires_grad,
                t.is_grad_enabled()]
    same_on_both(prog)


def test_set_grad_enabled_plain_call_and_context():
    def prog(t):
        x = t.ones(2, requires_grad=True)
        t.set_grad_enabled(False)
        a = (x * 2).requires_grad
        t.set_grad_enabled(True)
        with t.set_grad_enabled(False):
            b = (x * 2).requires_grad
        return [a, b, (x * 2).requires_grad, repr(t.set_grad_enabled(True))]
    same_on_both(prog)


def test_modes_restored_when_an_exception_leaves_the_block():
    def prog(t):
        try:
            with t.no_grad():
                raise ValueError("boom")
        except ValueError:
            pass
        try:
            with t.inference_mode():
                raise ValueError("boom")
        except ValueError:
            pass
        return [t.is_grad_enabled(), t.is_inference_mode_enabled()]
    same_on_both(prog)


def test_factories_with_requires_grad_inside_no_grad():
    def prog(t):
        with t.no_grad():
            z = t.ones(2, requires_grad=True)
            w = t.tensor([1.0], requires_grad=True)
        return [z.requires_grad, w.requires_grad, z.is_leaf]
    same_on_both(prog)


def test_inference_mode_tensors_and_errors():
    def prog(t):
        with t.inference_mode():
            x = t.ones(2)
            inside = [x.is_inference(), (x * 2).requires_grad, t.is_inference_mode_enabled(),
                      t.is_grad_enabled()]
            with t.inference_mode(False):
                nested = [t.is_inference_mode_enabled(), t.ones(1).is_inference()]
        w = t.ones(2, requires_grad=True)
        return [inside, nested, x.is_inference(), t.ones(2).is_inference(),
                (x + w).requires_grad]
    same_on_both(prog)

    def make(t):
        with t.inference_mode():
            return t.ones(2)
    same_on_both(lambda t: make(t) * t.ones(2, requires_grad=True))
    same_on_both(lambda t: make(t).add_(1))
    same_on_both(lambda t: make(t)._version)
    same_on_both(lambda t: make(t).requires_grad_())

    def inplace_inside(t):
        x = make(t)
        with t.inference_mode():
            x.add_(1)
        return x
    same_on_both(inplace_inside)


def test_inference_mode_decorator():
    def prog(t):
        @t.inference_mode()
        def f():
            return t.is_inference_mode_enabled()

        @t.inference_mode
        def g():
            return t.ones(1).is_inference()
        return [f(), g(), t.is_inference_mode_enabled()]
    same_on_both(prog)


def test_grad_mode_is_thread_local():
    for lib in (leafgrad, torch):
        seen = {}

        def worker(lib=lib):
            x = lib.ones(2, requires_grad=True)
            seen["grad_enabled"] = lib.is_grad_enabled()
            seen["records"] = (x * 2).requires_grad
        with lib.no_grad():
            th = threading.Thread(target=worker)
            th.start()
            th.join()
            assert not lib.is_grad_enabled()
        assert seen == {"grad_enabled": True, "records": True}, lib.__name__


def test_two_threads_backpropagate_at_once():
    results = {}

    def worker(k):
        x = leafgrad.tensor([float(k), 1.0], requires_grad=True)
        for _ in range(200):
            x.grad = None
            y = (x * x * k).sum()
            y.backward()
        results[k] = x.grad.tolist()
    threads = [threading.Thread(target=worker, args=(k,)) for k in (1, 2, 3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == {k: [2.0 * k * k, 2.0 * k] for k in (1, 2, 3)}
