"""torch.func's reverse-mode transforms against PyTorch 2.13 (issue 3 point 5)."""
from __future__ import annotations

import torch as real_torch

import leafgrad
from oracle import same_on_both


def _f(lib):
    return lib.func


def test_grad_and_nested_grad():
    def prog(t):
        x = t.tensor([1.0, 2.0, 3.0], dtype=t.float64)
        f = t.func.grad(lambda v: (v.sin() * v).sum())
        second = t.func.grad(lambda v: t.func.grad(lambda y: y.sin())(v))(t.tensor(1.0))
        return [f(x), second, f(x).requires_grad]
    same_on_both(prog)


def test_grad_argnums_unused_and_aux():
    def prog(t):
        x = t.tensor([1.0, 2.0, 3.0])
        y = x + 1
        return [t.func.grad(lambda a, b: (a * b).sum(), argnums=1)(x, y),
                t.func.grad(lambda a, b: a.sum(), argnums=(0, 1))(x, y),
                t.func.grad_and_value(lambda a: ((a * 2).sum(), a * 3), has_aux=True)(x)]
    same_on_both(prog)


def test_grad_needs_a_scalar():
    same_on_both(lambda t: t.func.grad(lambda a: a * 2)(t.ones(3)))


def test_vjp_and_jacrev_and_hessian():
    def prog(t):
        x = t.tensor([1.0, 2.0, 3.0], dtype=t.float64)
        out, fn = t.func.vjp(lambda v: v.sin(), x)
        return [out, fn(t.ones(3, dtype=t.float64)),
                t.func.jacrev(lambda v: v.sin() * v.sum())(x),
                t.func.jacrev(lambda a, b: a * b, argnums=(0, 1))(x, x + 1),
                t.func.hessian(lambda v: (v ** 3).sum() + v.prod())(x)]
    same_on_both(prog)


def test_transforms_leave_inputs_alone():
    for lib in (leafgrad, real_torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        g = lib.func.grad(lambda v: (v * v).sum())(x)
        assert x.grad is None
        assert g.tolist() == [2.0, 4.0]
