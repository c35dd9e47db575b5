"""Semantic fuzz mismatches (shapes, requires_grad, grad_fn names, version errors): regressions.

Each test runs the same statements on leafgrad and on torch (``oracle.same_on_both``) and
compares the result's shape, dtype, values, requires_grad and grad_fn name.
"""
from __future__ import annotations

import pytest
import torch

import leafgrad
from oracle import same_on_both

torch.set_num_threads(1)
leafgrad.set_num_threads(1)   # both sides alike: some messages follow the thread count


def _meta(t):
    """What the fuzzer compares besides values: requires_grad and the grad_fn name."""
    return (t, t.requires_grad, None if t.grad_fn is None else t.grad_fn.name())


# -- quantile of a 0-d input: keepdim=True adds no dim (the result stays as for keepdim=False)
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
@pytest.mark.parametrize("q", [0.5, "t"])
@pytest.mark.parametrize("kw", [{"dim": -1, "keepdim": True}, {"dim": 0, "keepdim": True},
                                {"keepdim": True}, {"dim": 0}])
def test_quantile_0d_keepdim(fn, q, kw):
    def run(L):
        x = L.tensor(2.5, requires_grad=True)
        qq = L.tensor([0.1, 0.9]) if q == "t" else q
        return _meta(getattr(L, fn)(x, qq, interpolation="lower", **kw))
    same_on_both(run)


# -- Tensor.unfold of a 0-d tensor with size 0: an empty window, shape (0,), gradient 0 ----------
@pytest.mark.parametrize("size,step", [(0, 1), (0, 2), (1, 1), (1, 2)])
def test_unfold_0d_size(size, step):
    def run(L):
        x = L.tensor(1.5, requires_grad=True)
        y = x.unfold(-1, size, step)
        y.sum().backward()
        return _meta(y), x.grad
    same_on_both(run)


# -- index_fill with a value tensor that requires grad: the result requires grad, and the value
# gets the filled positions' gradients (each once, even with duplicated indices)
@pytest.mark.parametrize("index", [[1], [], [0, 2, 0]])
@pytest.mark.parametrize("self_grad", [False, True])
def test_index_fill_value_requires_grad(index, self_grad):
    def run(L):
        v = L.tensor(2.0, dtype=L.float16, requires_grad=True)
        x = L.arange(6.0).reshape(2, 3).requires_grad_(self_grad)
        r = x.index_fill(1, L.tensor(index, dtype=L.long), v * 1)
        grads = L.autograd.grad((r * r).sum(), [v], create_graph=True)
        return _meta(r), grads, L.autograd.grad(grads[0], [v])
    same_on_both(run)


def test_index_fill_inplace_value_requires_grad():
    def run(L):
        v = L.tensor(2.0, dtype=L.float64, requires_grad=True)
        x = L.zeros(3)
        x.index_fill_(0, L.tensor([1]), v * 2)
        x.sum().backward()
        return _meta(x), v.grad
    same_on_both(run)


# -- a convolution's weight gradient under create_graph requires grad when the weight does (it is
# an input of PyTorch's ConvolutionBackwardBackward0), even with input and grad_output constant
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("kw", [{"stride": 2, "padding": 1}, {}])
def test_conv_weight_grad_requires_grad(transposed, kw):
    def run(L):
        F = L.nn.functional
        x = L.ones(1, 1, 3)
        w = L.full((1, 2, 1) if transposed else (2, 1, 1), 0.5, requires_grad=True)
        y = (F.conv_transpose1d if transposed else F.conv1d)(x, w, **kw)
        g, = L.autograd.grad(y, [w], L.ones_like(y), create_graph=True)
        gg = L.autograd.grad((g * g).sum(), [w], allow_unused=True)
        return _meta(g), gg
    same_on_both(run)


# -- a gradient summed down to a 0-d input under create_graph is one full sum (SumBackward0),
# before any dtype cast, and expand's backward to a 0-d shape sums even a 0-d gradient
_TO_0D = {
    "mul_2d": lambda L, a: a * L.tensor([[-0.4]], requires_grad=True),
    "mul_1d": lambda L, a: a * L.tensor([-0.4, 2.0], requires_grad=True),
    "expand_0d": lambda L, a: a.expand(()) * 3.0,
    "expand_1d": lambda L, a: a.expand(2) * L.tensor([-0.4, 2.0]),
    "hypot_f64": lambda L, a: L.hypot(a.expand(()), L.tensor([[-0.4]], dtype=L.float64)),
}


@pytest.mark.parametrize("case", sorted(_TO_0D))
def test_sum_to_0d_grad_fn(case):
    def run(L):
        a = L.tensor(1.8, requires_grad=True)
        g, = L.autograd.grad(_TO_0D[case](L, a).sum(), [a], create_graph=True)
        names, fn = [], g.grad_fn
        while fn is not None and len(names) < 4:
            names.append(fn.name())
            fn = fn.next_functions[0][0] if fn.next_functions else None
        return _meta(g), names
    same_on_both(run)


# -- circular padding copies its core through slices even when no dim grows: CopySlices over a
# SliceBackward0 of the input, as PyTorch's C++ narrow (Python indexing would skip full slices)
@pytest.mark.parametrize("shape,pads", [((1, 1, 1), [0, 0]), ((1, 1, 3), [0, 0]),
                                        ((1, 1, 3), [1, 0]), ((1, 2, 2), [0, 0, 0, 0]),
                                        ((1, 2, 2), [0, 1, 0, 0]), ((1, 2, 3), [-1, 1, 0, 0])])
def test_circular_pad_grad_fn(shape, pads):
    def run(L):
        x = L.arange(float(shape[1] * shape[2])).reshape(shape).requires_grad_()
        y = L.nn.functional.pad(x * 1, pads, mode="circular")
        nexts = [f.name() if f is not None else None for f, _ in y.grad_fn.next_functions]
        y.backward(L.arange(float(y.numel())).reshape(y.shape))
        return _meta(y), y._version, nexts, x.grad
    same_on_both(run)


# -- max pooling saves only its input (PyTorch: input and indices), so changing the pooled
# output in place afterwards (relu_/neg_, or exp_ under no_grad) leaves the backward valid
@pytest.mark.parametrize("return_indices", [False, True])
@pytest.mark.parametrize("no_grad", [False, True])
@pytest.mark.parametrize("dims", [2, 3])
def test_max_pool_output_modified_in_place(return_indices, no_grad, dims):
    def run(L):
        F = L.nn.functional
        base = L.tensor([[1., 5, 2, 0], [3, 4, -1, 7], [2, 2, 9, 1], [0, 8, 3, 3]])
        x = (base.reshape(1, 1, 4, 4) if dims == 2 else base.reshape(1, 1, 2, 2, 4))
        x = x.clone().requires_grad_()
        pool = F.max_pool2d if dims == 2 else F.max_pool3d
        y = pool(x, 2, return_indices=return_indices)
        y = y[0] if return_indices else y
        if no_grad:
            with L.no_grad():
                y.exp_()
        else:
            y.relu_()
        y.sum().backward()
        return _meta(y), y._version, x.grad
    same_on_both(run)
