"""``autograd.functional``: values, structure, graph flags and errors compared with PyTorch."""
from __future__ import annotations

import inspect

import pytest
import torch
from oracle import same_on_both

import leafgrad

NAMES = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _flags(value):
    """requires_grad of every tensor in a nested result (the graph the caller gets back)."""
    if isinstance(value, (tuple, list)):
        return [_flags(v) for v in value]
    return value.requires_grad


def _x(t):
    return t.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], dtype=t.float64)


def _y(t):
    return t.tensor([0.5, 2.0, -1.5], dtype=t.float64)


def cube_sum(x):
    return (x * x * x).sum()


def mixed(x, y):
    return (x * y).exp().sum() + (y * y).sum() * 3


def two_outputs(x, y):
    return x * y, (x + y).sigmoid()


def test_signatures_and_exports():
    for name in NAMES:
        mine = inspect.signature(getattr(leafgrad.autograd.functional, name))
        theirs = inspect.signature(getattr(torch.autograd.functional, name))
        assert str(mine) == str(theirs)
    assert sorted(leafgrad.autograd.functional.__all__) == sorted(torch.autograd.functional.__all__)


@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp(create_graph):
    def prog(t):
        F = t.autograd.functional
        x, y = _x(t), _y(t)
        a = F.vjp(lambda u: u * u, x, t.ones(2, 3, dtype=t.float64), create_graph=create_graph)
        b = F.vjp(two_outputs, (x, y), (t.ones(2, 3, dtype=t.float64),
                                         _x(t) * 0.5), create_graph=create_graph)
        c = F.vjp(cube_sum, x, create_graph=create_graph)
        return [a, b, c, _flags([a, b, c])]
    same_on_both(prog)


@pytest.mark.parametrize("create_graph", [False, True])
def test_jvp(create_graph):
    def prog(t):
        F = t.autograd.functional
        x, y = _x(t), _y(t)
        a = F.jvp(lambda u: u * u, x, _x(t) * 2, create_graph=create_graph)
        b = F.jvp(two_outputs, (x, y), (t.ones(2, 3, dtype=t.float64), _y(t)),
                  create_graph=create_graph)
        c = F.jvp(lambda u: u.exp() * 2, t.tensor(0.5, dtype=t.float64),
                  create_graph=create_graph)
        return [a, b, c, _flags([a, b, c])]
    same_on_both(prog)


@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian(create_graph):
    def prog(t):
        F = t.autograd.functional
        x, y = _x(t), _y(t)
        a = F.jacobian(lambda u: u * u, x, create_graph=create_graph)
        b = F.jacobian(two_outputs, (x, y), create_graph=create_graph)
        c = F.jacobian(mixed, (x, y), create_graph=create_graph)
        d = F.jacobian(lambda u: (u * 3, ), y, create_graph=create_graph)
        e = F.jacobian(lambda u, w: u * 2, (y, y * 1), create_graph=create_graph)
        return [a, b, c, d, e, _flags([a, b, c, d, e])]
    same_on_both(prog)


@pytest.mark.parametrize("create_graph", [False, True])
def test_hessian(create_graph):
    def prog(t):
        F = t.autograd.functional
        a = F.hessian(cube_sum, _x(t), create_graph=create_graph)
        b = F.hessian(mixed, (_x(t), _y(t)), create_graph=create_graph)
        return [a, b, _flags([a, b])]
    same_on_both(prog)


@pytest.mark.parametrize("create_graph", [False, True])
def test_vhp_and_hvp(create_graph):
    def prog(t):
        F = t.autograd.functional
        out = []
        for fn in (F.vhp, F.hvp):
            out.append(fn(cube_sum, _x(t), _x(t) * -1, create_graph=create_graph))
            out.append(fn(mixed, (_x(t), _y(t)), (_x(t), _y(t) * 2),
                          create_graph=create_graph))
            out.append(fn(lambda u: (u * u * u).sum(), t.tensor([2.0], dtype=t.float64),
                          create_graph=create_graph))
        return out + [_flags(out)]
    same_on_both(prog)


def test_inputs_that_require_grad_keep_their_graph_only_with_create_graph():
    def prog(t):
        F = t.autograd.functional
        w = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        _, plain = F.vjp(lambda u: u * u, w, t.ones(2, dtype=t.float64))
        _, kept = F.vjp(lambda u: u * u, w, t.ones(2, dtype=t.float64), create_graph=True)
        kept.sum().backward()
        return [plain.requires_grad, kept.requires_grad, w.grad]
    same_on_both(prog)


def test_zeros_for_unused_inputs_and_strict_mode():
    def lenient(t):
        F = t.autograd.functional
        return [F.vjp(lambda u, w: u * 2, (_y(t), _y(t)), _y(t)),
                F.jacobian(lambda u, w: u * 2, (_y(t), _y(t))),
                F.hessian(lambda u, w: (u * u).sum(), (_y(t), _y(t)))]
    same_on_both(lenient)

    for call in [
        lambda t: t.autograd.functional.vjp(lambda u, w: u * 2, (_y(t), _y(t)), _y(t),
                                            strict=True),
        lambda t: t.autograd.functional.jacobian(lambda u, w: u * 2, (_y(t), _y(t)),
                                                 strict=True),
        lambda t: t.autograd.functional.jvp(lambda u: u.detach(), _y(t), _y(t), strict=True),
        lambda t: t.autograd.functional.hessian(lambda u: (u * 2).sum(), _y(t), strict=True),
        lambda t: t.autograd.functional.vhp(lambda u, w: (u * u).sum(), (_y(t), _y(t)),
                                            (_y(t), _y(t)), strict=True),
        lambda t: t.autograd.functional.jacobian(lambda u: u.detach(), _y(t), strict=True),
    ]:
        same_on_both(call)


def test_argument_errors():
    F = "autograd.functional"
    for expr in [
        lambda t: t.autograd.functional.vjp(lambda u: u * 2, _y(t)),
        lambda t: t.autograd.functional.vjp(lambda u: u * 2, _y(t), t.ones(2, dtype=t.float64)),
        lambda t: t.autograd.functional.vjp(two_outputs, (_y(t), _y(t)), (_y(t),)),
        lambda t: t.autograd.functional.vjp(two_outputs, (_y(t), _y(t)),
                                            (_y(t), t.ones(2, dtype=t.float64))),
        lambda t: t.autograd.functional.jvp(lambda u: u * 2, _y(t)),
        lambda t: t.autograd.functional.jvp(lambda u: u * 2, _y(t), (_y(t), _y(t))),
        lambda t: t.autograd.functional.jacobian(lambda u: u * 2, [1.0, 2.0]),
        lambda t: t.autograd.functional.jacobian(lambda u: 3.0, _y(t)),
        lambda t: t.autograd.functional.jacobian(lambda u: u, (_y(t), 2)),
        lambda t: t.autograd.functional.jacobian(lambda u: u, _y(t), strategy="sideways"),
        lambda t: t.autograd.functional.hessian(lambda u: u * 2, _y(t)),
        lambda t: t.autograd.functional.hessian(lambda u: (u.sum(), u.sum()), _y(t)),
        lambda t: t.autograd.functional.vhp(lambda u: u * 2, _y(t), _y(t)),
        lambda t: t.autograd.functional.hvp(lambda u: (u.sum(),), _y(t), _y(t)),
        lambda t: t.autograd.functional.hvp(lambda u: u.sum(), _y(t)),
    ]:
        same_on_both(expr)
    del F


def test_forward_mode_is_reported_as_missing():
    x = leafgrad.tensor([1.0, 2.0])
    with pytest.raises(NotImplementedError, match="forward-mode"):
        leafgrad.autograd.functional.jacobian(lambda u: u * 2, x, strategy="forward-mode")
