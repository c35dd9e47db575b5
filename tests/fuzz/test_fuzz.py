"""Differential fuzzing in CI: random programs on leafgrad and torch must agree (issue 8).

``test_random_programs`` runs a bounded number of Hypothesis-drawn programs (more with
``python -m tests.fuzz --examples N``). The other tests are regressions for bugs the fuzzer
found, each written as the smallest direct reproducer.
"""
from __future__ import annotations

import warnings

import pytest
import torch

import leafgrad
from oracle import assert_same_tensor

from .programs import Ending, Leaf, Program, Step, check, sample_program

torch.set_num_threads(1)
leafgrad.set_num_threads(1)   # both sides alike: some messages follow the thread count


# CI runs the same 200 programs every time, drawn from plain seeded RNGs (sample_program), so
# that a failure is a change in leafgrad, and what `pytest tests/fuzz/test_fuzz.py` runs alone is
# exactly what the whole suite runs (a derandomized Hypothesis draw was not: it differed inside
# the full suite). ``python -m tests.fuzz`` draws new programs with Hypothesis.
@pytest.mark.parametrize("seed", range(200))
def test_random_programs(seed):
    program = sample_program(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(program)


def _both(fn):
    out = []
    for lib in (leafgrad, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append(fn(lib))
    return out


# -- regressions found by the fuzzer -------------------------------------------------------------
def test_0d_min_grad_keeps_dtype_with_create_graph():
    # the tie mask was float64 and promoted a 0-d float32 gradient
    def run(L):
        x = L.tensor(1.5, requires_grad=True)
        x.min().backward(L.tensor(0.3), create_graph=True)
        return x.grad
    mine, theirs = _both(run)
    assert_same_tensor(mine, theirs)


@pytest.mark.parametrize("case", ["inputs_no_grad", "non_scalar"])
def test_autograd_grad_checks_outputs_before_inputs(case):
    def run(L):
        x = L.ones(3)
        out = x * 2 if case == "inputs_no_grad" else L.ones(3, requires_grad=True) * 2
        try:
            L.autograd.grad(out, [x])
        except RuntimeError as exc:
            return str(exc)
    mine, theirs = _both(run)
    assert mine == theirs


def test_div_rounding_mode_none_is_divbackward2():
    def run(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = L.div(x, x + 1, rounding_mode=None)
        y.sum().backward()
        return type(y.grad_fn).__name__, y, x.grad
    (n1, y1, g1), (n2, y2, g2) = _both(run)
    assert n1 == n2
    assert_same_tensor(y1, y2)
    assert_same_tensor(g1, g2)


def test_movedim_of_0d_tensor():
    def run(L):
        x = L.tensor(2.0, requires_grad=True)
        y = x.movedim(0, -1)
        return type(y.grad_fn).__name__, y
    (n1, y1), (n2, y2) = _both(run)
    assert n1 == n2
    assert_same_tensor(y1, y2)


def test_python_abs():
    mine, theirs = _both(lambda L: abs(L.tensor([-1.5, 2.0], requires_grad=True)))
    assert_same_tensor(mine, theirs)
    assert type(mine.grad_fn).__name__ == type(theirs.grad_fn).__name__


@pytest.mark.parametrize("value_shape", [(1,), (1, 1)])
def test_setitem_with_grad_drops_leading_ones_of_value(value_shape):
    def run(L):
        x = L.zeros(3, requires_grad=True) * 1
        v = L.full(value_shape, 5.0, requires_grad=True)
        x[1] = v
        x.sum().backward()
        return x, v.grad
    (x1, g1), (x2, g2) = _both(run)
    assert_same_tensor(x1, x2)
    assert_same_tensor(g1, g2)


def test_setitem_through_view_of_0d_base():
    def run(L):
        leaf = L.tensor(1.5, requires_grad=True)
        a = leaf * 1
        v = a.flatten()
        v[0] = v * 2
        names = type(v.grad_fn).__name__, type(a.grad_fn).__name__
        a.backward()
        return names, v, a, leaf.grad
    (n1, *t1), (n2, *t2) = _both(run)
    assert n1 == n2
    for m, t in zip(t1, t2):
        assert_same_tensor(m, t)


def test_amax_dim_of_0d_grad_keeps_dtype():
    def run(L):
        x = L.tensor(0.5, requires_grad=True)
        x.sum(0, True).amax(0, True).backward(L.tensor(1.0), create_graph=True)
        return x.grad
    mine, theirs = _both(run)
    assert_same_tensor(mine, theirs)


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.glu(L.ones(2, 3), 1),
    lambda L: L.tensor(1.0).unflatten(0, (1, -1)),
    lambda L: L.tensor(1.0).narrow(0, 0, 1),
    lambda L: L.ones(3) * L.ones(2, 2),
])
def test_errors_found_by_fuzzing_are_torchs(call):
    errors = []
    for lib in (leafgrad, torch):
        try:
            call(lib)
        except Exception as exc:   # noqa: BLE001
            errors.append(exc)
    assert len(errors) == 2
    assert type(errors[0]) is RuntimeError and type(errors[1]) is RuntimeError, errors
    assert str(errors[1]).startswith(str(errors[0]).split("\n")[0]), errors


def test_round_with_decimals_zero_is_roundbackward1():
    def run(L):
        x = L.tensor([0.4, 1.6], requires_grad=True)
        return [type(y.grad_fn).__name__ for y in (x.round(), x.round(decimals=0),
                                                    L.round(x, decimals=0))]
    mine, theirs = _both(run)
    assert mine == theirs


@pytest.mark.parametrize("call", [
    lambda L: L.arange(3.0).index_select(0, L.tensor([-1])),   # no negative indices
    lambda L: L.tensor(float("nan")).softmax(0),
    lambda L: L.tensor(float("inf")).log_softmax(0),
])
def test_0d_softmax_and_index_select_found_by_fuzzing(call):
    out = []
    for lib in (leafgrad, torch):
        try:
            out.append(call(lib))
        except Exception as exc:   # noqa: BLE001
            out.append(exc)
    if isinstance(out[1], Exception):
        assert type(out[0]) is type(out[1]) and str(out[0]) == str(out[1]), out
    else:
        assert_same_tensor(out[0], out[1])


def test_detach_inplace_refuses_views():
    def run(L):
        out = []
        for make in (lambda: L.ones(2, 2).t(), lambda: L.ones(2, requires_grad=True)[0],
                     lambda: L.ones(2).detach()):
            try:
                out.append(make().detach_().requires_grad)
            except RuntimeError as exc:
                out.append(str(exc))
        return out
    mine, theirs = _both(run)
    assert mine == theirs


@pytest.mark.parametrize("x, lo, hi", [(1.0, 1.0, 1.0), (0.0, 1.0, 1.0), (2.0, 1.0, 1.0),
                                       (1.5, 2.0, 1.0), (1.0, 1.0, 2.0)])
def test_clamp_tensor_bounds_grads_on_ties(x, lo, hi):
    # min == max: PyTorch gives the max bound a gradient only where self > max or max < min
    def run(L):
        t = [L.tensor(v, requires_grad=True) for v in (x, lo, hi)]
        t[0].clamp(t[1], t[2]).backward()
        return [v.grad.item() for v in t]
    mine, theirs = _both(run)
    assert mine == theirs


def test_setitem_number_on_0d_view_zeroes_the_gradient():
    def run(L):
        x = L.tensor(1.5, requires_grad=True)
        y = x * 2
        v = y.view(())
        v[...] = 0.5
        v.backward()
        return x.grad
    mine, theirs = _both(run)
    assert_same_tensor(mine, theirs)


@pytest.mark.parametrize("bounds", ["both", "min", "max", "both_bounds_only"])
def test_clamp_tensor_backward_refuses_self_smaller_than_output(bounds):
    # PyTorch's ClampBackward0 builds its mask in place: with both bounds it fails when max
    # broadcasts self (and min) to a larger shape
    def run(L):
        e = L.tensor([0.5], requires_grad=True)
        x = L.tensor([[0.5], [-3.3]], requires_grad=True)
        lo = e * 1 if bounds != "both_bounds_only" else e.detach()
        c = (e.clamp(min=lo, max=x) if bounds.startswith("both") else
             e.clamp(min=x) if bounds == "min" else e.clamp(max=x))
        try:
            c.sum().backward()
        except RuntimeError as exc:
            return str(exc)
        return e.grad.tolist(), x.grad.tolist()
    mine, theirs = _both(run)
    assert mine == theirs


@pytest.mark.parametrize("shape, dim, correction", [((), -1, 1), ((), None, 1), ((1,), None, 1),
                                                    ((2,), None, 2), ((2,), None, 3),
                                                    ((1,), 0, 1)])
def test_var_without_degrees_of_freedom_grad_has_no_graph(shape, dim, correction):
    # var over all elements with n <= correction: PyTorch's gradient is NaN where self equals
    # its mean, inf elsewhere, computed without the incoming gradient (no graph)
    def run(L):
        x = L.tensor([1.0, 2.0], dtype=L.float64)[:shape[0] if shape else 1].reshape(shape)
        x.requires_grad_()
        y = x.var(correction=correction) if dim is None else x.var(dim, correction=correction)
        y.sum().backward(create_graph=True)
        return x.grad.requires_grad, x.grad.detach().reshape(-1).tolist()
    (rg1, v1), (rg2, v2) = _both(run)
    assert rg1 == rg2
    assert str(v1) == str(v2)
