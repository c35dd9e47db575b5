"""Regressions from the seed-15 10k fuzz run (issue 8, session 6) in the reductions, searches
and indexing: unique with NaNs and 0-sized dims, the order of PyTorch's dim/size/dtype checks
(median, nanmedian, kthvalue, trace, histc, bincount, searchsorted), ...

Each statement runs in leafgrad and in torch (``test_widened._run``): both must raise the same
exception type and first line, or give the same value, dtype, shape, grad_fn and version.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad

from .test_widened import _run

NAN = "float('nan')"

STATEMENTS = [
    # unique sorts with std::sort (NaN largest, unstable): each NaN is its own value, placed
    # where the sort leaves it; -0. and 0. are one value, the first in the sort's order
    f"y = torch.unique(torch.tensor([0.5, {NAN}, 0.2, {NAN}, 0.9, 0.2]))",
    f"y = torch.unique(torch.tensor([0.5, {NAN}, 0.2, {NAN}, 0.9, 0.2]), "
    "return_inverse=True)[1]",
    f"y = torch.unique(torch.tensor([0.5, {NAN}, 0.2, {NAN}, 0.9, 0.2]), "
    "return_counts=True)[1]",
    f"y = torch.unique(torch.tensor([{NAN}, 1., {NAN}, -0., 0., 2.] * 4), "
    "return_inverse=True)[1]",
    "y = torch.unique(torch.tensor([0., -0., 1., 2.] * 5)).copysign(torch.tensor(1.))",
    "y = torch.unique(torch.tensor([-0., 0., 1., 2.] * 5)).copysign(torch.tensor(1.))",
    # unique along a dim: rows sorted lexicographically by < and > (a NaN decides nothing)
    f"y = torch.unique(torch.tensor([[[[0.5, 0.7, 0.9, {NAN}]]]]), dim=3)",
    f"y = torch.unique(torch.tensor([0.5, {NAN}, 0.2, {NAN}, 0.9, 0.2]), dim=0)",
    f"y = torch.unique(torch.tensor([0.5, {NAN}, 0.2, {NAN}, 0.9, 0.2]), dim=0, "
    "return_inverse=True)[1]",
    f"y = torch.unique(torch.tensor([[1., {NAN}], [1., {NAN}], [0., 2.], [{NAN}, 0.], "
    "[1., 3.]]), dim=0)",
    f"y = torch.unique(torch.tensor([[1., {NAN}], [1., {NAN}], [0., 2.], [{NAN}, 0.], "
    "[1., 3.]]), dim=0, return_counts=True)[1]",
    f"y = torch.unique(torch.tensor([float('inf'), {NAN}, -float('inf'), 1.]), dim=0)",
    f"y = torch.unique(torch.tensor([{NAN}, 1., 2., 3., 4., 5., 6., 7., 8., 9., {NAN}, 0., "
    f"-1., -2., {NAN}, 3., 2., 1., {NAN}, 5.]), dim=0, return_inverse=True)[1]",
    # unique_consecutive: a NaN equals nothing
    f"y = torch.unique_consecutive(torch.tensor([{NAN}, {NAN}, 1., 1.]))",
    f"y = torch.unique_consecutive(torch.tensor([[{NAN}, 1.], [{NAN}, 1.], [2., 1.]]), dim=0)",
    # unique along a dim checks the 0-sized dims
    "y = torch.unique(torch.zeros(0, 1), dim=-1)",
    "y = torch.unique(torch.zeros(0, 1), dim=1, return_counts=True)[1]",
    "y = torch.unique(torch.zeros(0, 1), dim=0, return_inverse=True)[1]",
    "y = torch.unique(torch.zeros(0, 0), dim=0)",
    "y = torch.unique_consecutive(torch.zeros(2, 0), dim=0)",
    "y = torch.unique_consecutive(torch.zeros(0, 3), dim=0, return_counts=True)[1]",
    # median / nanmedian / kthvalue: dim in range, then of non-zero size, then k, then dtype
    "y = torch.tensor([True]).nanmedian(1)[0]",
    "y = torch.tensor(True).nanmedian(1)[0]",
    "y = torch.tensor([True]).median(-2)[0]",
    "y = torch.zeros(2, 0, dtype=torch.bool).median(0)[0]",
    "y = torch.zeros(2, 0, dtype=torch.bool).nanmedian(1)[0]",
    "y = torch.zeros(2, 0).nanmedian(-1)[0]",
    "y = torch.tensor([], dtype=torch.bool).nanmedian()",
    "y = torch.zeros(2, 0).kthvalue(1, 1)[0]",
    "y = torch.zeros(2, 0).kthvalue(0, -1)[0]",
    "y = torch.zeros(2, 0, dtype=torch.bool).kthvalue(3, 0)[0]",
    "y = torch.tensor(True).kthvalue(2, -1)[0]",
    # trace: the kernel's dtype before the matrix check
    "y = torch.tensor(True).trace()",
    "y = torch.tensor([True, False]).trace()",
    "y = torch.zeros(2, 2, 2, dtype=torch.bool).trace()",
    # bincount: dtype, minlength, an empty input (int64 zeros, whatever the weights), shape
    "y = torch.bincount(torch.tensor([], dtype=torch.long), weights=torch.tensor([]))",
    "y = torch.bincount(torch.tensor([], dtype=torch.long), weights=torch.tensor([1., 2.]), "
    "minlength=3)",
    "y = torch.bincount(torch.tensor([], dtype=torch.uint8), "
    "weights=torch.tensor([], dtype=torch.float64, requires_grad=True))",
    "y = torch.bincount(torch.tensor([[1]]), minlength=-1)",
    "y = torch.bincount(torch.tensor([-1]), minlength=-1)",
    "y = torch.bincount(torch.zeros(0, 2, dtype=torch.long))",
    # histc: bins, then the range, then the dtype (the edges' linspace, then the kernel)
    "y = torch.histc(torch.tensor([True]), bins=-1)",
    "y = torch.histc(torch.tensor([1]), bins=0)",
    "y = torch.histc(torch.tensor([1.]), bins=-1)",
    "y = torch.histc(torch.tensor([1.]), min=2, max=1)",
    "y = torch.histc(torch.tensor([1]), min=2, max=1)",
    "y = torch.histc(torch.tensor([True]), min=-float('inf'), max=1)",
    "y = torch.histc(torch.tensor([float('inf')]))",
    "y = torch.histc(torch.tensor([-float('inf')]).double())",
    f"y = torch.histc(torch.tensor([{NAN}, 1.]))",
    f"y = torch.histc(torch.tensor([1.]), min={NAN}, max=2)",
    # searchsorted: the argument checks, then the common dtype's kernel
    "y = torch.searchsorted(torch.tensor(True), torch.tensor(True))",
    "y = torch.searchsorted(torch.tensor(1.), torch.tensor([1.]))",
    "y = torch.searchsorted(torch.tensor([[True]]), torch.tensor([True, False]))",
    "y = torch.searchsorted(torch.tensor([[1.]]), torch.tensor([[[1., 0.]]]))",
    "y = torch.searchsorted(torch.tensor([True]), 1)",
    "y = torch.searchsorted(torch.tensor([True]), True)",
    "y = torch.searchsorted(torch.tensor([1., 2.]), torch.tensor([1.5]), "
    "sorter=torch.tensor([1.]))",
    "y = torch.searchsorted(torch.tensor([1., 2.]), torch.tensor([1.5]), "
    "sorter=torch.tensor([1., 0.]))",
    "y = torch.searchsorted(torch.tensor([True, False]), torch.tensor([True]), "
    "sorter=torch.tensor([1, 0]))",
    "y = torch.searchsorted(torch.tensor([1., 2.]), torch.tensor([1.5]), "
    "sorter=torch.tensor([1, 2]))",
    # index_select: dim, index rank, a 0-d self's one index, index dtype; an empty matrix
    # checks its indexing dim's size, then the bounds (the kernel's message)
    "y = torch.zeros(2, 0).index_select(1, torch.tensor([0, 0, 0]))",
    "y = torch.zeros(2, 0).index_select(1, torch.tensor([0], dtype=torch.int32))",
    "y = torch.zeros(2, 0).index_select(1, torch.tensor([], dtype=torch.long))",
    "y = torch.zeros(2, 0).index_select(0, torch.tensor([5]))",
    "y = torch.zeros(2, 0, 3).index_select(2, torch.tensor([1, 7]))",
    "y = torch.zeros(0, 2, dtype=torch.bool).index_select(0, torch.tensor(0))",
    "y = torch.tensor(1.).index_select(0, torch.tensor([], dtype=torch.long))",
    "y = torch.tensor(1.).index_select(-1, torch.tensor([0, 0]))",
    "y = torch.tensor(1.).index_select(0, torch.tensor([0., 1.]))",
    "y = torch.tensor(1.).index_select(3, torch.tensor([[0, 1]]))",
    "y = torch.zeros(2).index_select(3, torch.tensor([[0.]]))",
    # unflatten: sizes non-empty, then the dim (a 0-d tensor's range is [-1, 0])
    "y = torch.tensor(1.).unflatten(-2, (1,))",
    "y = torch.tensor(1.).unflatten(1, (1,))",
    "y = torch.tensor(1.).unflatten(-1, (1,))",
    "y = torch.tensor(1.).unflatten(0, ())",
    "y = torch.zeros(2).unflatten(5, ())",
    # masked_scatter broadcasts self with the mask; masked_scatter_ expands the mask to self
    "y = torch.zeros(1, 1, 2).masked_scatter(torch.tensor([[[[[True, False]]]], "
    "[[[[False, True]]]]]), torch.arange(4.))",
    "y = torch.zeros(2, requires_grad=True).masked_scatter(torch.tensor([[True, False], "
    "[True, True]]), torch.arange(4.))",
    "y = torch.zeros(()).masked_scatter(torch.tensor([True, True]), torch.arange(4.))",
    "y = torch.zeros(2, 1).masked_scatter(torch.tensor([True, False, True]), torch.arange(4.))",
    "y = torch.zeros(2).masked_scatter(torch.tensor([True, True, True]), torch.arange(2.))",
    "y = torch.zeros(2).masked_scatter(torch.tensor([1, 1]), torch.arange(2.))",
    "y = torch.zeros(2).masked_scatter(torch.tensor([1, 1], dtype=torch.uint8), "
    "torch.arange(2.))",
    "y = torch.zeros(2).masked_scatter_(torch.tensor([1, 1, 1]), torch.arange(2))",
    "y = torch.zeros(2, 1).masked_scatter_(torch.tensor([True, False]), torch.arange(4.))",
    "y = torch.zeros(2).masked_scatter_(torch.tensor([[1, 1]]), torch.arange(2.))",
    "y = torch.zeros(()).masked_scatter_(torch.tensor([True]), torch.arange(2.))",
    "y = torch.zeros(2, requires_grad=True).masked_scatter_(torch.tensor([1, 2, 3]), "
    "torch.arange(2))",
    # a 0-d tensor has dims -1 and 0 only: prod(dim), argsort, flatten check them (seed 16)
    "y = torch.tensor(3).prod(-2, keepdim=True)",
    "y = torch.tensor(True).prod(1)",
    "y = torch.tensor(3.).prod(-2, dtype=torch.float64)",
    "y = torch.tensor(3).argsort(-2)",
    "y = torch.tensor(3).argsort(1, descending=True)",
    "y = torch.tensor(3.).flatten(1, 0)",
    "y = torch.tensor(3.).flatten(0, -2)",
    "y = torch.tensor(3.).flatten(-1, 0)",
    # clamp_ family: clamp's own promotion check (any dtype change refused) and its None
    # check come before the overlap checks; integer bounds must fit the dtype (seed 17)
    "y = torch.tensor([True]).expand(3).clamp_(-0.5, 0.5)",
    "y = torch.tensor([1]).expand(3).clamp_(-0.5, 0.5)",
    "y = torch.tensor([True]).expand(3).clamp_min_(0.1)",
    "y = torch.tensor([True]).expand(3).clamp_(0, 1)",
    "y = torch.tensor([1, 2]).expand(2, 2).clip_(min=None, max=None)",
    "y = torch.tensor([1], dtype=torch.uint8).clamp(0, 300)",
    "y = torch.tensor([1], dtype=torch.uint8).clamp(-255)",
    "y = torch.tensor([1], dtype=torch.uint8).clamp(-256)",
    "y = torch.tensor([1], dtype=torch.int8).clamp(max=-129)",
    "y = torch.tensor([1], dtype=torch.uint8).clamp_min(300)",
    # cumsum_ / cumprod_: dim, then dtype (self's), then overlap; int32 stays int32
    "y = torch.tensor([1, 2], dtype=torch.int32).cumsum_(0)",
    "y = torch.tensor([True]).cumsum_(5)",
    "y = torch.tensor([True]).cumsum_(0)",
    "y = torch.tensor([True]).cumprod_(0, dtype=torch.float32)",
    "y = torch.tensor([1.]).expand(3).cumsum_(0)",
    "y = torch.tensor([1]).expand(3).cumsum_(0, dtype=torch.float32)",
    "y = torch.tensor([1., 2.], requires_grad=True).cumsum_(7)",
    "y = torch.tensor([1., 2., 3.], requires_grad=True) * 1; y.cumprod_(0)",
    "y = torch.tensor(3.).cumprod_(1)",
    # index_fill with a tensor value: its gradient is index_select of the unique indices,
    # so a negative index fails in backward (seed 18)
    "x = torch.ones(1, dtype=torch.float64, requires_grad=True); v = torch.tensor(2., "
    "dtype=torch.float64, requires_grad=True); x.index_fill(0, torch.tensor([-1]), v)"
    ".sum().backward(); y = x.grad",
    "x = torch.ones(2, 3, requires_grad=True); v = torch.tensor(2., requires_grad=True); "
    "x.index_fill(1, torch.tensor([2, 0, 2]), v).sum().backward(); y = v.grad",
    "x = torch.ones(2, 3, requires_grad=True); v = torch.tensor(2., requires_grad=True); "
    "y = torch.autograd.grad(x.index_fill(1, torch.tensor([1]), v).pow(2).sum(), v, "
    "create_graph=True)[0]",
    # a fill value converts to the tensor's dtype with c10's overflow check (seed 19)
    "y = torch.tensor([1, 2]).masked_fill(torch.tensor([True, False]), "
    "torch.tensor(float('nan')))",
    "y = torch.tensor([1, 2]).masked_fill(torch.tensor([False, False]), float('inf'))",
    "y = torch.tensor([1, 2], dtype=torch.int32).masked_fill(torch.tensor([True]), 3e9)",
    "y = torch.tensor([1, 2], dtype=torch.uint8).masked_fill(torch.tensor([True]), -1)",
    "y = torch.tensor([1, 2], dtype=torch.uint8).masked_fill(torch.tensor([True]), -1.5)",
    "y = torch.tensor([1, 2], dtype=torch.uint8).masked_fill(torch.tensor([True]), -256)",
    "y = torch.tensor([1, 2], dtype=torch.int64).masked_fill(torch.tensor([True]), 2.0 ** 63)",
    "y = torch.tensor([1., 2.]).half().masked_fill(torch.tensor([True]), torch.tensor(1e10))",
    "y = torch.tensor([1., 2.]).half().masked_fill(torch.tensor([True]), float('inf'))",
    "y = torch.tensor([True, False]).masked_fill(torch.tensor([True]), float('nan'))",
    "y = torch.tensor([1, 2]).index_fill(0, torch.tensor([0]), float('nan'))",
    "y = torch.tensor([1, 2], dtype=torch.uint8).index_fill(0, torch.tensor([0]), 300)",
    "y = torch.tensor([1, 2]).scatter(0, torch.tensor([0]), float('nan'))",
    "y = torch.tensor([1, 2], dtype=torch.int16).scatter(0, torch.tensor([0]), 70000)",
    # searchsorted / bucketize run PyTorch's binary search: NaN compares false, so it goes
    # right; unsorted boundaries land where that search lands (seed 20)
    "y = torch.bucketize(torch.tensor(0.3), torch.tensor([float('nan')]))",
    "y = torch.bucketize(torch.tensor([float('nan'), 1., 3.]), "
    "torch.tensor([0., float('nan'), 2.]))",
    "y = torch.searchsorted(torch.tensor([0., 2., float('nan')]), "
    "torch.tensor([float('nan'), 1., 3.]), right=True)",
    "y = torch.searchsorted(torch.tensor([[3., 0., 2., 1.], [0., 5., 1., 1.]]), "
    "torch.tensor([[1.5, 0.], [1., 4.]]))",
    "y = torch.searchsorted(torch.tensor([1, 2, 3]), 2.5, out_int32=True)",
    "y = torch.searchsorted(torch.tensor([], dtype=torch.float64), torch.tensor([1.]))",
    # median(dim): a slice with a NaN gives its first NaN (seed 21)
    "y = torch.tensor([[1., float('nan'), 2., float('nan')]]).median(1)[1]",
    "y = torch.tensor([[3., 1., 2., float('nan')], [float('nan'), float('nan'), 1., 0.]])"
    ".median(0)[0]",
    "y = torch.tensor([[3., 1., 2., float('nan')], [float('nan'), float('nan'), 1., 0.]])"
    ".median(1, keepdim=True)[1]",
    "x = torch.tensor([[float('nan'), 1., 2.]], requires_grad=True); x.median(1)[0].sum()"
    ".backward(); y = x.grad * 1",   # (PyTorch builds .grad in place: its version differs)
    # scatter_reduce amax/amin: self's element counts among the ties even when
    # include_self=False leaves it out (it gets no gradient) (seed 22)
    "x = torch.tensor([1.5, 2.], requires_grad=True); s = torch.tensor([1.5, 1.5, 0.5], "
    "requires_grad=True); x.scatter_reduce(0, torch.tensor([0, 0, 1]), s, 'amax', "
    "include_self=False).sum().backward(); y = s.grad * 1",
    "x = torch.tensor([1.5, 2.], requires_grad=True); s = torch.tensor([1.5, 1.5, 0.5], "
    "requires_grad=True); x.scatter_reduce(0, torch.tensor([0, 0, 1]), s, 'amin', "
    "include_self=False).sum().backward(); y = x.grad * 1",
    # max() / min() / median(): zeros with grad / count filled in at the ties (NaN ties when
    # the result is NaN): other places stay 0 even for a NaN grad (seed 23, and the
    # MaskedFillBackward1 grad_fn of seeds 14, 16, 17, 21)
    "x = torch.tensor([1., 3., 3., 2.], requires_grad=True); "
    "y = torch.autograd.grad(x.max(), x, torch.tensor(float('nan')))[0]",
    "x = torch.tensor([1., float('nan'), 3., float('nan')], requires_grad=True); "
    "y = torch.autograd.grad(x.min(), x)[0]",
    "x = torch.tensor([1., 3., 3., 2.], requires_grad=True); w = torch.tensor(2., "
    "requires_grad=True); y = torch.autograd.grad(x.median(), x, w, create_graph=True)[0]",
    # x[index] = v: the in-place checks (leaf, view of a leaf) before the advanced indices'
    "x = torch.zeros(2, 2, requires_grad=True); x[torch.ones(3, dtype=torch.bool)] = 0.; y = x",
    "x = torch.zeros(2, 2, requires_grad=True); x[torch.tensor([5])] = 0.; y = x",
    "x = torch.zeros(2, 2, requires_grad=True); x[torch.tensor([0.5])] = 0.; y = x",
    "x = torch.zeros(2, 2, requires_grad=True); x[[0, 1], [0, 5]] = 0.; y = x",
    "x = torch.zeros(2, 2, requires_grad=True); x[None, torch.tensor([9])] = 0.; y = x",
    "x = torch.zeros(2, 2, requires_grad=True); x[5, torch.ones(2, dtype=torch.bool)] = 0.; "
    "y = x",
    "x = torch.zeros(2, 2); x[torch.ones(1, 3, dtype=torch.bool)] = 0.; y = x",
    "x = torch.zeros(2, 2); x[torch.ones(2, 2, dtype=torch.bool)] = torch.ones(7); y = x",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_red6_like_torch(statement):
    assert _run(leafgrad, statement) == _run(torch, statement)


def test_lerp_rounds_as_pytorch():
    # PyTorch's kernel: float32 arithmetic for float16, a fused multiply-add on the side of
    # the smaller weight, one rounding to the dtype (fuzz seed 15: float16 lerp values)
    rng = np.random.default_rng(15)
    for dtype in ("float16", "float32", "float64"):
        a, b, w = (rng.standard_normal(300).astype(dtype) * s for s in (1, 3, 1))
        for L_weight in ("tensor", 0.3, 0.7, 2.5, -0.7):
            outs = []
            for L in (leafgrad, torch):
                weight = L.tensor(w) if L_weight == "tensor" else L_weight
                outs.append(L.tensor(a).lerp(L.tensor(b), weight).numpy())
            np.testing.assert_array_equal(outs[0], outs[1])


def _unique_outputs(L, fn, a, **kw):
    out = getattr(L, fn)(L.tensor(a), return_inverse=True, return_counts=True, **kw)
    return [t.numpy().tobytes() + str(t.shape).encode() for t in out]


def test_unique_matches_torch_with_nans_and_signed_zeros():
    # NaNs and -0. over lengths on both sides of std::sort's insertion-sort threshold
    rng = np.random.default_rng(6)
    pool = np.array([np.nan, 1.0, 2.0, -0.0, 0.0])
    for _ in range(120):
        shape = tuple(int(n) for n in rng.integers(1, 24, int(rng.integers(1, 3))))
        a = rng.choice(pool, shape).astype(rng.choice(["float32", "float64", "float16"]))
        kw = {} if rng.random() < 0.4 else {"dim": int(rng.integers(0, a.ndim))}
        for fn in ("unique", "unique_consecutive"):
            assert _unique_outputs(leafgrad, fn, a, **kw) == _unique_outputs(torch, fn, a, **kw)
