"""Fuzz mismatches earlier sessions left open, fixed by left11 (session 11)."""
from __future__ import annotations

import pytest
from oracle import same_on_both


def _steps(L, v, op, after, seed_shape, root, grad):
    y = v * 3
    with L.no_grad():
        op(L, y)
    z = y if root else after(L, y)
    seed = None if seed_shape is None else L.ones(seed_shape)
    if grad:
        return L.autograd.grad(z, v, seed)
    z.backward(seed)
    return v.grad


def _set_data(L, y):
    y.data = L.ones(2)


def _set_data3(L, y):
    y.data = L.ones(1, 1, 2)


# -- a tensor that changed its shape under no_grad but kept its grad_fn (squeeze_, unsqueeze_,
# t_, transpose_, .data =): PyTorch's engine checks the gradients it hands that node against the
# shape its output had (the root's without the "Function X returned an" prefix), summing a
# broadcast one down; leafgrad gave leaves gradients of the wrong shape (fz128 x3) ------------------
@pytest.mark.parametrize("op", [
    lambda L, y: y.squeeze_(0), lambda L, y: y.squeeze_(), lambda L, y: y.squeeze_((0,)),
    lambda L, y: y.unsqueeze_(0), lambda L, y: y.unsqueeze_(-1), lambda L, y: y.t_(),
    lambda L, y: y.transpose_(0, 1), lambda L, y: y.swapdims_(0, 1), _set_data, _set_data3],
    ids=["squeeze_0", "squeeze_", "squeeze_dims", "unsqueeze_0", "unsqueeze_-1", "t_",
         "transpose_", "swapdims_", "data", "data3"])
@pytest.mark.parametrize("after", [
    None, lambda L, y: (y * 2).sum(), lambda L, y: (y.exp() * 2).sum(),
    lambda L, y: (y * L.tensor([[1.0], [2.0]])).sum()], ids=["root", "mul", "exp", "bcast"])
@pytest.mark.parametrize("grad", [False, True])
def test_gradient_checked_against_reshaped_output(op, after, grad):
    def run(L):
        v = L.tensor([[0.5, 2.0]], requires_grad=True)
        shape = None
        if after is None:   # the root itself: a gradient of its present shape
            probe = v * 3
            with L.no_grad():
                op(L, probe)
            shape = tuple(probe.shape)
        return _steps(L, v, op, after, shape, after is None, grad)
    same_on_both(run)


def test_root_gradient_index_counts_roots():
    def run(L):
        v = L.tensor([[0.5, 2.0]], requires_grad=True)
        a = v * 2
        b = v * 3
        with L.no_grad():
            b.squeeze_()
        return L.autograd.grad([a, b], v, [L.ones(1, 2), L.ones(2)])
    same_on_both(run)


def test_seed_128_squeeze_of_vm_under_no_grad():
    # the fuzz program: vm's squeeze_(0) node (SqueezeBackward4), then squeeze_((0,)) with grad
    # mode off; backward from a 0-d gradient
    from .programs import Ending, Leaf, Program, Step, check  # noqa: F401
    check(eval(SEED_128_SQUEEZE))


SEED_128_SQUEEZE = "Program(leaves=[Leaf(shape=(), dtype='int64', requires_grad=False, seed=168, scale=1.0), Leaf(shape=(), dtype='float16', requires_grad=True, seed=102, scale=1.0), Leaf(shape=(4, 1), dtype='int64', requires_grad=False, seed=304, scale=1.0), Leaf(shape=(1,), dtype='int64', requires_grad=False, seed=42698, scale=0.1)], steps=[Step(op='erfc', seed=798, no_grad=False), Step(op='activation', seed=65535, no_grad=False), Step(op='reciprocal', seed=511, no_grad=False), Step(op='linalg_square', seed=8867, no_grad=False), Step(op='fold_unfold', seed=11966, no_grad=False), Step(op='pointwise_rare', seed=249, no_grad=False), Step(op='inplace_shape', seed=3628, no_grad=True), Step(op='rearrange', seed=27431, no_grad=False)], ending=Ending(kind='backward', seed=65535, retain_graph=False, create_graph=True, twice=False, allow_unused=False, give_gradient=True))"
