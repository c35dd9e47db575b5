"""Findings of session 8 fixed by helper la8: lstsq's batch broadcasting (fuzz seed 77),
kron's layout for strided inputs."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from oracle import same_on_both


# -- linalg.lstsq broadcasts A's batch against B's shape less its last dim when B has one dim
# fewer (a matrix B (m, k) with A (1, m, n) gives an (m, n, k) solution), then copies B into
# the solution buffer of that batch (PyTorch's errors where it does not fit); empty batches,
# empty matrices and no columns of B keep their shapes; the empty solution keeps its buffer's
# strides (seed 77: a (1, 0, 1) solution where PyTorch has (0, 0, 1)) ------------------------
_PAIRS = [((1, 2, 2), (2, 1)), ((1, 3, 2), (3, 1)), ((1, 3, 2), (3, 2)), ((3, 2, 2), (2, 1)),
          ((1, 1, 3, 2), (3, 3, 4)), ((1, 1, 3, 2), (5, 3, 4)), ((2, 1, 3, 2), (1, 3, 4)),
          ((1, 1, 1, 2), (3, 1, 4)), ((1, 1, 2), (3, 1, 4)), ((1, 0, 1), (0, 1)),
          ((1, 0, 2), (0, 5)), ((0, 0, 1), (0, 1)), ((1, 0, 2), (1, 0)), ((3, 0, 2), (3, 0)),
          ((0, 3, 2), (0, 3)), ((1, 3, 2), (0, 3, 2)), ((3, 2), (3, 0)), ((1, 3, 2), (3, 0)),
          ((3, 3, 2), (1, 3, 0)), ((2, 3, 2), (2, 3)), ((3, 2), (3,)), ((2, 3), (2, 4)),
          ((4, 3, 2, 2), (3, 2, 1)), ((4, 1, 2, 2), (4, 3, 2)), ((2, 3, 2), (3, 4))]


def _arr(shape, seed):
    a = np.random.RandomState(seed).uniform(-1, 1, shape)
    if len(shape) >= 2 and min(shape[-2:]):
        i = np.arange(min(shape[-2:]))
        a[..., i, i] += 3.0   # full rank: every driver's rank and solution agree
    return a


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd"])
@pytest.mark.parametrize("ash,bsh", _PAIRS)
def test_lstsq_batch_broadcast(ash, bsh, driver):
    a0, b0 = _arr(ash, 1), np.random.RandomState(2).uniform(-1, 1, bsh)

    def run(L):
        A = L.tensor(a0, requires_grad=True)
        B = L.tensor(b0, requires_grad=True)
        r = L.linalg.lstsq(A, B, driver=driver)
        out = [r.solution, r.solution.stride(), r.singular_values]
        batch = r.solution.shape[:A.ndim - 2]   # (the broadcast batch has A's batch rank)
        if np.prod(batch) or not np.prod(A.shape[:-2]):   # (else torch's rank: uninitialised,
            out += [r.rank, r.residuals]                   # and the residuals depend on it)
        s = r.solution
        loss = (s * L.arange(s.numel(), dtype=L.float64).reshape(s.shape)).sum()
        if r.residuals.numel():
            loss = loss + r.residuals.sum() * 0.5
        return out + list(L.autograd.grad(loss, [A, B], allow_unused=True))
    same_on_both(run)


def test_lstsq_of_padded_empty_batch_program():
    from .programs import Ending, Leaf, Program, Step, difference  # noqa: F401 (eval)
    assert difference(eval(LSTSQ_EMPTY_BATCH)) is None


LSTSQ_EMPTY_BATCH = "Program(leaves=[Leaf(shape=(1,), dtype='float64', requires_grad=True, seed=2276, scale=0.1)], steps=[Step(op='transpose', seed=0, no_grad=False), Step(op='linalg_solve', seed=964, no_grad=False), Step(op='pad', seed=668, no_grad=True), Step(op='pad', seed=5294, no_grad=False), Step(op='pad', seed=668, no_grad=True), Step(op='linalg_solve', seed=32, no_grad=False)], ending=Ending(kind='grad', seed=4763, retain_graph=False, create_graph=True, twice=False, allow_unused=False, give_gradient=True))"


# -- kron is PyTorch's composite: mul of two interleaved views (TensorIterator's layout), then a
# *view*, which fails for some strided inputs, or gives a non-contiguous result -----------------
def _strided(L, shape, how):
    n = int(np.prod(shape))
    if how == "c" or len(shape) == 0:
        return L.arange(float(n)).reshape(shape)
    if how == "t":
        return L.arange(float(n)).reshape(shape[::-1]).permute(*range(len(shape) - 1, -1, -1))
    if how == "s":
        return L.arange(float(2 * n)).reshape(shape[:-1] + (2 * shape[-1],))[..., ::2]
    if how == "e":
        return L.arange(float(shape[-1])).expand(shape)
    return L.arange(float(2 * n)).reshape((2 * shape[0],) + shape[1:])[::2]   # "f"


_KRON_SHAPES = [(), (2,), (1,), (0,), (2, 2), (2, 3), (1, 2), (3, 1), (2, 0), (2, 1, 2),
                (1, 2, 2)]


@pytest.mark.parametrize("sa,sb", list(itertools.product(_KRON_SHAPES, repeat=2))[::3])
@pytest.mark.parametrize("how", ["tc", "ct", "tt", "sc", "ts", "ec", "te", "fs", "cf"])
def test_kron_layout(sa, sb, how):
    def run(L):
        r = L.kron(_strided(L, sa, how[0]), _strided(L, sb, how[1]))
        try:
            flat = r.view(-1).shape
        except RuntimeError as e:
            flat = str(e)
        return r, r.stride(), r.is_contiguous(), flat
    same_on_both(run)


def test_kron_gradient_of_strided_inputs():
    def run(L):
        a = L.arange(6.0).reshape(3, 2).requires_grad_()
        b = L.arange(4.0).reshape(2, 2).requires_grad_()
        r = L.kron(a.mT, b.mT)
        return r, r.stride(), r.grad_fn.name(), L.autograd.grad((r * r).sum(), [a, b])
    same_on_both(run)


# -- i0 of float32, half, integer and bool inputs is PyTorch's float kernel: the Cephes series
# in float32 times exp(|x|) in float32: i0(0) is 0.99999994 (so floor gives 0), and it
# overflows to inf from |x| ~ 88.7 on ------------------------------------------------------------
@pytest.mark.parametrize("dt", ["bool", "uint8", "int8", "int16", "int64", "float16", "float32"])
@pytest.mark.parametrize("fn", ["i0", "special.i0", "Tensor.i0"])
def test_i0_float_kernel(dt, fn):
    def run(L):
        x = L.tensor([0, 1, 3, 88, 89, 100, -128, 700]).to(getattr(L, dt))
        r = x.i0() if fn == "Tensor.i0" else (L.special.i0(x) if "." in fn else L.i0(x))
        return r.dtype, r.floor(), r.isinf(), r < 1, r.ceil()
    same_on_both(run)


# -- binary_cross_entropy checks its target's range after its input's (a NaN fails too) (fuzz
# seed 102) --------------------------------------------------------------------------------------
@pytest.mark.parametrize("x", [0.5, float("nan"), 1.5])
@pytest.mark.parametrize("t", [0.25, float("nan"), 1.5, -0.1])
@pytest.mark.parametrize("dt", ["float32", "float64", "float16"])
def test_bce_target_range(x, t, dt):
    def run(L):
        inp = L.tensor([x, 0.5], dtype=getattr(L, dt))
        return L.nn.functional.binary_cross_entropy(inp, L.tensor([t, 0.5], dtype=inp.dtype))
    same_on_both(run)
