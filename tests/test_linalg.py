"""Matrix products and norms against PyTorch 2.13: every matmul rank case (values, grad_fn
name of the output, first and second derivatives), shape/dtype errors, einsum, norms."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import leafgrad
from oracle import assert_same_error, assert_same_tensor, grad_fn_name

RNG = np.random.default_rng(0)


def pair(shape, dtype=np.float64, requires_grad=True):
    a = RNG.standard_normal(shape).astype(dtype)
    return (leafgrad.tensor(a.copy(), requires_grad=requires_grad),
            torch.tensor(a.copy(), requires_grad=requires_grad))


def check_both(fn, *shapes, atol=1e-6):
    """fn on both libraries with fresh inputs: output, grad_fn name, grads, grad-grads."""
    pairs = [pair(s) for s in shapes]
    ms = [p[0] for p in pairs]
    ts = [p[1] for p in pairs]
    om, ot = fn(leafgrad, *ms), fn(torch, *ts)
    assert_same_tensor(om, ot, atol=atol)
    assert grad_fn_name(om) == grad_fn_name(ot), (grad_fn_name(om), grad_fn_name(ot))
    seed = RNG.standard_normal(tuple(ot.shape))
    gm = leafgrad.autograd.grad(om, ms, leafgrad.tensor(seed), create_graph=True)
    gt = torch.autograd.grad(ot, ts, torch.tensor(seed), create_graph=True)
    for a, b in zip(gm, gt):
        assert_same_tensor(a, b, atol=atol, what="grad")
    vs = [RNG.standard_normal(tuple(b.shape)) for b in gt]
    tot_m = sum((a * leafgrad.tensor(v)).sum() for a, v in zip(gm, vs))
    tot_t = sum((b * torch.tensor(v)).sum() for b, v in zip(gt, vs))
    assert tot_m.requires_grad == tot_t.requires_grad
    if not tot_t.requires_grad:          # linear in each input: no second-order graph
        return
    ggm = leafgrad.autograd.grad(tot_m, ms, allow_unused=True)
    ggt = torch.autograd.grad(tot_t, ts, allow_unused=True)
    for a, b in zip(ggm, ggt):
        if b is None:
            assert a is None or not a.detach().numpy().any()
        else:
            assert_same_tensor(a, b, atol=1e-5, what="grad-grad")


MATMUL_SHAPES = [
    ((3,), (3,)),                 # DotBackward0
    ((2, 3), (3,)),               # MvBackward0
    ((3,), (3, 4)),               # SqueezeBackward4
    ((2, 3), (3, 4)),             # MmBackward0
    ((4, 2, 3), (4, 3, 5)),       # UnsafeViewBackward0
    ((4, 2, 3), (3, 5)),
    ((4, 2, 3), (3,)),
    ((3,), (4, 3, 5)),
    ((2, 3), (4, 3, 5)),          # CloneBackward0
    ((2, 1, 2, 3), (4, 3, 2)),    # broadcast batch
    ((4, 2, 3), (1, 3, 5)),
    ((1, 2, 3), (5, 3, 2)),
    ((5, 4, 2, 3), (3,)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_every_rank_case(sa, sb):
    check_both(lambda L, a, b: a @ b, sa, sb)
    check_both(lambda L, a, b: L.matmul(a, b), sa, sb)


@pytest.mark.parametrize("name,sa,sb", [("mm", (2, 3), (3, 4)), ("bmm", (2, 2, 3), (2, 3, 4)),
                                        ("mv", (2, 3), (3,)), ("dot", (3,), (3,)),
                                        ("outer", (3,), (2,)), ("ger", (2,), (3,))])
def test_named_products(name, sa, sb):
    check_both(lambda L, a, b: getattr(L, name)(a, b), sa, sb)
    check_both(lambda L, a, b: getattr(a, name)(b), sa, sb)


def test_addmm():
    check_both(lambda L, c, a, b: L.addmm(c, a, b), (4,), (2, 3), (3, 4))
    check_both(lambda L, c, a, b: L.addmm(c, a, b, beta=0.5, alpha=2.0), (2, 4), (2, 3), (3, 4))
    check_both(lambda L, c, a, b: c.addmm(a, b), (2, 4), (2, 3), (3, 4))


def test_matmul_float32_and_int():
    for dtype in (np.float32, np.int64, np.int32):
        a = (RNG.standard_normal((3, 4)) * 3).astype(dtype)
        b = (RNG.standard_normal((4, 2)) * 3).astype(dtype)
        assert_same_tensor(leafgrad.tensor(a) @ leafgrad.tensor(b),
                           torch.tensor(a) @ torch.tensor(b), atol=1e-5)


@pytest.mark.parametrize("fn,sa,sb,dtb", [
    ("matmul", (2, 3), (4, 5), None), ("matmul", (2, 3), (4,), None),
    ("matmul", (3,), (4,), None), ("matmul", (3,), (4, 5), None),
    ("matmul", (2, 2, 3), (3, 4, 5), None), ("matmul", (2, 2, 3), (2, 4, 5), None),
    ("matmul", (2, 3), (2, 4, 5), None), ("matmul", (2, 2, 3), (4,), None),
    ("matmul", (2, 2, 3), (4, 5), None), ("matmul", (), (3,), None),
    ("matmul", (2, 3), (3, 4), np.float32), ("matmul", (3,), (3,), np.float32),
    ("matmul", (2, 3), (3,), np.float32), ("matmul", (3,), (3, 4), np.float32),
    ("matmul", (2, 2, 3), (3, 4), np.float32), ("matmul", (2, 3), (2, 3, 4), np.float32),
    ("mm", (2, 3), (4, 5), None), ("mm", (3,), (3, 3), None), ("mm", (2, 3), (3,), None),
    ("bmm", (2, 2, 3), (3, 3, 5), None), ("bmm", (2, 3), (3, 5), None),
    ("bmm", (2, 2, 3), (2, 3, 5), np.float32), ("mv", (2, 3), (4,), None),
    ("mv", (3,), (3,), None), ("dot", (3,), (4,), None), ("dot", (2, 3), (3,), None),
    ("outer", (2, 2), (3,), None), ("einsum_bad", (2, 3), (4, 5), None),
])
def test_product_errors_match_torch(fn, sa, sb, dtb):
    a = RNG.standard_normal(sa)
    b = RNG.standard_normal(sb).astype(dtb or np.float64)

    def call(L):
        x, y = L.tensor(a), L.tensor(b)
        if fn == "einsum_bad":
            return L.einsum("ij,jk", x, y)
        return getattr(L, fn)(x, y)
    assert_same_error(lambda: call(leafgrad), lambda: call(torch))


def test_matmul_with_a_number_is_a_type_error():
    x, t = pair((2, 3))
    assert_same_error(lambda: x @ 3, lambda: t @ 3, (TypeError,))
    assert_same_error(lambda: 3 @ x, lambda: 3 @ t, (TypeError,))
    assert_same_error(lambda: leafgrad.matmul(x, 3), lambda: torch.matmul(t, 3), (TypeError,))


def test_matmul_saves_operands_with_version_checks():
    a = leafgrad.ones(2, 3, requires_grad=True)
    b = leafgrad.ones(3, 2) * 2
    out = a @ b
    b.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("i,i->", [(3,), (3,)]), ("ij,j", [(2, 3), (3,)]), ("...j,jk->...k", [(2, 2, 3), (3, 2)]),
    ("ij->ji", [(2, 3)]), ("ij->j", [(2, 3)]), ("ij,k->ijk", [(2, 3), (2,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]), ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]),
    ("ij", [(2, 3)]), ("ij,kj", [(2, 3), (4, 3)]),
])
def test_einsum(eq, shapes):
    check_both(lambda L, *ops: L.einsum(eq, *ops), *shapes)
    check_both(lambda L, *ops: L.einsum(eq, list(ops)), *shapes)


# -- norms ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda L, x: x.norm(), lambda L, x: x.norm(1), lambda L, x: x.norm(3),
    lambda L, x: x.norm(0.5), lambda L, x: x.norm(math.inf), lambda L, x: x.norm(-math.inf),
    lambda L, x: x.norm("fro"), lambda L, x: x.norm(dim=1), lambda L, x: x.norm(2, 0, True),
    lambda L, x: L.norm(x, p=1, dim=(0, 1)), lambda L, x: x.norm(dtype=L.float64),
])
def test_norms(call):
    check_both(call, (3, 4), atol=1e-5)


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, math.inf])
def test_norm_gradient_at_zero_is_zero(p):
    m = leafgrad.zeros(3, requires_grad=True)
    t = torch.zeros(3, requires_grad=True)
    m.norm(p).backward()
    t.norm(p).backward()
    assert_same_tensor(m.grad, t.grad)


def test_norm_dtype_narrowing_errors_like_torch():
    m, t = pair((3,))
    assert_same_error(lambda: m.norm(dtype=leafgrad.float32), lambda: t.norm(dtype=torch.float32))
    m32 = leafgrad.tensor([3.0, 4.0])
    t32 = torch.tensor([3.0, 4.0])
    assert_same_tensor(m32.norm(dtype=leafgrad.float64), t32.norm(dtype=torch.float64))


def test_norm_zero_order_has_no_gradient_and_integer_norm_errors():
    m, t = pair((3,))
    gm, = leafgrad.autograd.grad(m.norm(0), m, allow_unused=True)
    gt, = torch.autograd.grad(t.norm(0), t, allow_unused=True)
    assert gm is None and gt is None
    assert_same_error(lambda: leafgrad.tensor([1, 2]).norm(), lambda: torch.tensor([1, 2]).norm())


def test_large_matmul_backward_stays_in_blas_layout():
    # the 2-D backward products keep float32 and the operands' shapes (W4's hot path)
    leafgrad.manual_seed(0)
    x = leafgrad.randn(64, 128)
    w = leafgrad.randn(32, 128, requires_grad=True)
    b = leafgrad.randn(32, requires_grad=True)
    out = leafgrad.addmm(b, x, w.t())
    assert grad_fn_name(out) == "AddmmBackward0"
    out.sum().backward()
    assert w.grad.dtype == leafgrad.float32 and tuple(w.grad.shape) == (32, 128)
    # float32 sums of 64 terms: the BLAS summation order differs, so an absolute margin too
    np.testing.assert_allclose(w.grad.numpy(), np.ones((32, 64), np.float32) @ x.numpy(),
                               rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(b.grad.numpy(), np.full(32, 64.0), rtol=1e-6)


@pytest.mark.parametrize("sa,sb", [((2, 3), (4, 3, 2)), ((1, 2, 3), (5, 3, 2)), ((1, 3), (5, 3, 2)),
                                   ((2, 3), (5, 3, 1)), ((1, 2, 3), (1, 3, 2)),
                                   ((1, 2, 3), (4, 5, 3, 2)), ((5, 3, 2), (1, 2, 3))])
@pytest.mark.parametrize("ra,rb", [(True, True), (True, False), (False, True)])
def test_batched_matmul_node_depends_on_which_operand_requires_grad(sa, sb, ra, rb):
    a, ta = pair(sa, requires_grad=ra)
    b, tb = pair(sb, requires_grad=rb)
    assert grad_fn_name(a @ b) == grad_fn_name(ta @ tb)
    assert_same_tensor(a @ b, ta @ tb)


@pytest.mark.parametrize("call", [
    lambda L, x: L.linalg.vector_norm(x), lambda L, x: L.linalg.vector_norm(x, 1, dim=1),
    lambda L, x: L.linalg.vector_norm(x, math.inf, dim=(0, 1), keepdim=True),
    lambda L, x: L.linalg.norm(x), lambda L, x: L.linalg.norm(x, "fro"),
    lambda L, x: L.linalg.norm(x, 3, dim=1), lambda L, x: L.linalg.matmul(x, x.mT),
])
def test_torch_linalg_namespace(call):
    check_both(call, (3, 4), atol=1e-5)
