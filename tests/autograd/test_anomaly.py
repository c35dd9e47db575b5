"""Anomaly mode: flags, warnings (with the forward traces), NaN errors, compared with PyTorch.

Both libraries run the same program from the same lines of this file, so the recorded forward
stacks agree once frames inside the libraries themselves are dropped (PyTorch keeps its own
Python frames, e.g. ``Function.apply``; leafgrad drops all of its own).
"""
from __future__ import annotations

import re
import warnings

import pytest
import torch
from oracle import same_on_both

import leafgrad

_LIB_FRAME = re.compile(r'  File "[^"]*(/site-packages/torch/|/src/leafgrad/)[^\n]*\n(    [^\n]*\n)?')


def _clean(text: str) -> str:
    text = re.sub(r" \(Triggered internally at [^)]*\.\)$", "", text)
    return _LIB_FRAME.sub("", text)


def observed(program):
    """Run ``program(t)`` recording warnings and the error: [result, error, warnings]."""
    def wrapped(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result, error = program(t), None
            except Exception as e:  # noqa: BLE001 - compared as an outcome
                result, error = None, [type(e).__name__, str(e)]
        seen = [f"{w.category.__name__}: {_clean(str(w.message))}" for w in caught
                if w.category is UserWarning]
        return [result, error, seen]
    return wrapped


@pytest.fixture(autouse=True)
def _anomaly_off():
    yield
    leafgrad.autograd.set_detect_anomaly(False)
    torch.autograd.set_detect_anomaly(False)


def test_flags_and_set_detect_anomaly():
    def prog(t):
        out = [t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()]
        mode = t.autograd.set_detect_anomaly(True)
        out += [type(mode).__name__, t.is_anomaly_enabled()]
        t.autograd.set_detect_anomaly(False)
        out.append(t.is_anomaly_enabled())
        with t.autograd.set_detect_anomaly(True, check_nan=False):
            out += [t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()]
            with t.autograd.detect_anomaly():
                out += [t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()]
            out += [t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()]
        out += [t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()]
        t.set_anomaly_enabled(True)
        out.append(t.is_anomaly_enabled())
        t.set_anomaly_enabled(False)
        return out + [sorted(t.autograd.anomaly_mode.__all__)]
    same_on_both(observed(prog))


def test_detect_anomaly_is_not_a_decorator():
    def prog(t):
        @t.autograd.detect_anomaly()
        def f():
            return 1
    same_on_both(observed(prog))


def test_nan_in_backward():
    def prog(t):
        x = t.tensor([-1.0, 4.0], requires_grad=True)
        with t.autograd.detect_anomaly():
            y = x.sqrt()
            y.sum().backward()
    same_on_both(observed(prog))


def test_nan_through_nested_calls_and_check_nan_off():
    def inner(x):
        return x.sqrt()

    def outer(x):
        return inner(x) * 2

    def prog(t):
        x = t.tensor([-1.0, 4.0], requires_grad=True)
        with t.autograd.detect_anomaly():
            outer(x).sum().backward()
    same_on_both(observed(prog))

    def no_check(t):
        x = t.tensor([-1.0, 4.0], requires_grad=True)
        with t.autograd.detect_anomaly(check_nan=False):
            outer(x).sum().backward()
        return repr(x.grad)   # NaN != NaN: compare the printed text
    same_on_both(observed(no_check))


def test_no_forward_information():
    def prog(t):
        y = t.tensor([-1.0, 4.0], requires_grad=True).sqrt()
        with t.autograd.detect_anomaly():
            y.sum().backward()
    same_on_both(observed(prog))


def test_version_error_hint_under_anomaly_mode():
    def prog(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.autograd.detect_anomaly():
            y = x.sigmoid()
            y.mul_(2)
            y.sum().backward()
    same_on_both(observed(prog))

    def after(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.sigmoid()
        y.mul_(2)
        y.sum().backward()
    same_on_both(observed(after))


def test_error_in_custom_function_backward():
    def prog(t):
        class F(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                raise ValueError("boom")
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.autograd.detect_anomaly():
            F.apply(x).sum().backward()
    same_on_both(observed(prog))


def test_parent_trace_for_nodes_made_in_backward():
    def prog(t):
        class F(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 1

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * (x * 0).sqrt() + g
        x = t.tensor([0.0, 4.0], requires_grad=True)
        with t.autograd.detect_anomaly():
            y = F.apply(x)
            g, = t.autograd.grad(y.sum(), x, create_graph=True)
            return [g, t.autograd.grad(g.sum(), x)]
    same_on_both(observed(prog))


def test_metadata_holds_the_trace():
    def prog(t):
        x = t.tensor([1.0], requires_grad=True)
        plain = (x * x).sqrt()
        with t.autograd.detect_anomaly():
            y = (x * x).sqrt()
            g, = t.autograd.grad(y.sum(), x, create_graph=True)
        meta = y.grad_fn.metadata
        return [plain.grad_fn.metadata, sorted(meta), type(meta["traceback_"]).__name__,
                all(isinstance(line, str) for line in meta["traceback_"]),
                _clean("".join(meta["traceback_"])).splitlines()[-1],
                type(g.grad_fn.metadata["parent_"]).__name__]
    same_on_both(observed(prog))
