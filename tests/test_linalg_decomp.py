"""Decompositions and the linear-algebra ops the registry cannot compare directly, against
PyTorch 2.13: gauge-invariant functions of svd / eigh outputs (Note [Gauge of
decompositions]), first derivatives of cdist (PyTorch has no second), errors and messages for
singular / non-square / non-positive-definite inputs, composites (matrix_power, matrix_norm,
lstsq, matrix_rank, torch.svd)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import leafgrad
from oracle import assert_same_error

RNG = np.random.default_rng(1234)


def _compare(fn_t, fn_l, *arrays, second=True, atol=1e-8):
    """Values, first and second derivatives of fn on both libraries (float64)."""
    tt = [torch.tensor(a, requires_grad=True) for a in arrays]
    ll = [leafgrad.tensor(a, requires_grad=True) for a in arrays]
    ot, ol = fn_t(*tt), fn_l(*ll)
    ot = list(ot) if isinstance(ot, (tuple, list)) else [ot]
    ol = list(ol) if isinstance(ol, (tuple, list)) else [ol]
    for a, b in zip(ol, ot):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=atol)
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
    seeds = [RNG.standard_normal(tuple(o.shape)) for o in ot]
    gt = torch.autograd.grad(ot, tt, [torch.tensor(s) for s in seeds], create_graph=second)
    gl = leafgrad.autograd.grad(ol, ll, [leafgrad.tensor(s) for s in seeds],
                                create_graph=second)
    for a, b in zip(gl, gt):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=atol)
    if not second:
        return
    vs = [RNG.standard_normal(tuple(g.shape)) for g in gt]
    total = sum((g * torch.tensor(v)).sum() for g, v in zip(gt, vs))
    if not total.requires_grad:    # a linear function: the second derivative is zero
        mine = sum((g * leafgrad.tensor(v)).sum() for g, v in zip(gl, vs))
        if mine.requires_grad:
            for a in leafgrad.autograd.grad(mine, ll, allow_unused=True):
                assert a is None or np.allclose(a.numpy(), 0, atol=1e-12)
        return
    ggt = torch.autograd.grad(total, tt)
    ggl = leafgrad.autograd.grad(sum((g * leafgrad.tensor(v)).sum() for g, v in zip(gl, vs)),
                                 ll)
    for a, b in zip(ggl, ggt):
        np.testing.assert_allclose(a.numpy(force=True), b.numpy(force=True), atol=1e-6)


def _sym(shape):
    x = RNG.standard_normal(shape)
    return x + np.swapaxes(x, -1, -2)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_gauge_invariant(shape, full):
    def f(lib):
        def g(A):
            U, S, Vh = lib.linalg.svd(A, full_matrices=full)
            k = S.shape[-1]
            U, Vh = U[..., :k], Vh[..., :k, :]
            # U f(S) Vh and the projector U U^T do not depend on the signs
            return (U * (S * S).unsqueeze(-2)) @ Vh, U @ U.mT, S
        return g
    _compare(f(torch), f(leafgrad), RNG.standard_normal(shape))


def test_torch_svd_returns_v():
    a = RNG.standard_normal((4, 3))
    U, S, V = leafgrad.svd(leafgrad.tensor(a, requires_grad=True))
    assert V.shape == (3, 3) and type(V.grad_fn).__name__ == "TransposeBackward0"
    np.testing.assert_allclose(((U * S) @ V.mT).detach().numpy(), a, atol=1e-12)
    U, S, V = leafgrad.svd(leafgrad.tensor(a), some=False)
    Ut, St, Vt = torch.svd(torch.tensor(a), some=False)
    assert tuple(U.shape) == tuple(Ut.shape) and tuple(V.shape) == tuple(Vt.shape)
    ul, _, vl = leafgrad.svd(leafgrad.tensor(a), compute_uv=False)
    ut, _, vt = torch.svd(torch.tensor(a), compute_uv=False)
    np.testing.assert_array_equal(ul.numpy(), ut.numpy())
    np.testing.assert_array_equal(vl.numpy(), vt.numpy())


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_gauge_invariant(shape, uplo):
    def f(lib):
        def g(A):
            w, V = lib.linalg.eigh(A, UPLO=uplo)
            return (V * w.exp().unsqueeze(-2)) @ V.mT, w
        return g
    _compare(f(torch), f(leafgrad), _sym(shape))


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, math.inf])
def test_cdist_first_derivative(p):
    a, b = RNG.standard_normal((2, 3, 2)), RNG.standard_normal((2, 4, 2))
    _compare(lambda x, y: torch.cdist(x, y, p=p), lambda x, y: leafgrad.cdist(x, y, p=p),
             a, b, second=False)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(n):
    a = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    _compare(lambda x: torch.linalg.matrix_power(x, n),
             lambda x: leafgrad.linalg.matrix_power(x, n), a)


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf])
def test_matrix_norm(ord):
    a = RNG.standard_normal((2, 3, 4))
    _compare(lambda x: torch.linalg.matrix_norm(x, ord),
             lambda x: leafgrad.linalg.matrix_norm(x, ord), a)
    _compare(lambda x: torch.linalg.matrix_norm(x, ord, dim=(0, 2), keepdim=True),
             lambda x: leafgrad.linalg.matrix_norm(x, ord, dim=(0, 2), keepdim=True), a)


def test_lstsq_and_rank():
    a, b = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))
    for driver in (None, "gelsd"):
        mine = leafgrad.linalg.lstsq(leafgrad.tensor(a), leafgrad.tensor(b), driver=driver)
        theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
        for m, t in zip(mine, theirs):
            assert m.dtype.__repr__() == t.dtype.__repr__()
            np.testing.assert_allclose(m.numpy(), t.numpy(), atol=1e-10)
    low = RNG.standard_normal((4, 2)) @ RNG.standard_normal((2, 4))
    assert leafgrad.linalg.matrix_rank(leafgrad.tensor(low)).item() == \
        torch.linalg.matrix_rank(torch.tensor(low)).item() == 2


def _err(fn_name, *arrays, lib_attr="linalg", **kwargs):
    t = [torch.tensor(a) for a in arrays]
    m = [leafgrad.tensor(a) for a in arrays]
    tf = getattr(getattr(torch, lib_attr) if lib_attr else torch, fn_name)
    mf = getattr(getattr(leafgrad, lib_attr) if lib_attr else leafgrad, fn_name)
    assert_same_error(lambda: mf(*m, **kwargs), lambda: tf(*t, **kwargs))


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "cholesky", "eigh", "matrix_exp"])
def test_square_errors(name):
    _err(name, np.ones((2, 3)))
    _err(name, np.ones(3))


def test_singular_and_not_positive_definite():
    _err("inv", np.ones((3, 3)))
    _err("inv", np.stack([np.eye(3), np.ones((3, 3))]))
    _err("solve", np.ones((3, 3)), np.ones(3))
    _err("cholesky", -np.eye(3))
    _err("cholesky", np.stack([np.eye(3), np.ones((3, 3))]))
    _err("inv", np.ones((3, 3), dtype=np.int64))
    _err("solve", np.eye(3), np.ones((4, 3)))
    info = leafgrad.linalg.inv_ex(leafgrad.tensor(np.ones((3, 3)))).info
    assert info.item() == torch.linalg.inv_ex(torch.ones(3, 3)).info.item()
    assert isinstance(leafgrad.linalg.LinAlgError("x"), RuntimeError)


def test_logdet_negative_and_singular():
    for a in (np.diag([-1.0, 2.0]), np.zeros((2, 2)), np.diag([1.0, 2.0])):
        np.testing.assert_array_equal(leafgrad.logdet(leafgrad.tensor(a)).numpy(),
                                      torch.logdet(torch.tensor(a)).numpy())


@pytest.mark.parametrize("case", range(9))
def test_statistics(case):
    y = RNG.standard_normal((3, 5))
    x = np.sort(RNG.standard_normal(5))
    calls = [
        (lambda L, a: L.cov(a), (y,)),
        (lambda L, a: L.cov(a, correction=0), (y,)),
        (lambda L, a: L.cov(a, fweights=L.tensor([1, 2, 1, 3, 1]),
                            aweights=L.tensor([0.5, 1.0, 2.0, 1.0, 0.3], dtype=L.float64)),
         (y,)),
        (lambda L, a: L.corrcoef(a), (y,)),
        (lambda L, a: L.trapezoid(a), (y,)),
        (lambda L, a, b: L.trapezoid(a, b), (y, x)),
        (lambda L, a: L.trapz(a, dx=0.5, dim=0), (y,)),
        (lambda L, a: L.cumulative_trapezoid(a), (y,)),
        (lambda L, a, b: L.cumulative_trapezoid(a, b), (y, x)),
    ]
    fn, arrays = calls[case]
    _compare(lambda *t: fn(torch, *t), lambda *t: fn(leafgrad, *t), *arrays)


@pytest.mark.parametrize("ord", [2, -2, "nuc", 1, math.inf, "fro"])
def test_linalg_norm_matrix_orders(ord):
    a = RNG.standard_normal((3, 4))
    _compare(lambda x: torch.linalg.norm(x, ord), lambda x: leafgrad.linalg.norm(x, ord), a)
    if ord == "nuc":
        _compare(lambda x: torch.norm(x, "nuc"), lambda x: leafgrad.norm(x, "nuc"), a)


def test_lu_family():
    a = RNG.standard_normal((2, 4, 4))
    b = RNG.standard_normal((2, 4, 2))
    mine = leafgrad.linalg.lu_factor(leafgrad.tensor(a))
    theirs = torch.linalg.lu_factor(torch.tensor(a))
    np.testing.assert_allclose(mine.LU.numpy(), theirs.LU.numpy(), atol=1e-12)
    np.testing.assert_array_equal(mine.pivots.numpy(), theirs.pivots.numpy())
    for m, t in zip(leafgrad.lu_unpack(*mine), torch.lu_unpack(*theirs)):
        np.testing.assert_allclose(m.numpy(), t.numpy(), atol=1e-12)
    # lu_solve composes solve_triangular: values and gradients as torch (grad_fn differs)
    tt = [torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)]
    ll = [leafgrad.tensor(a, requires_grad=True), leafgrad.tensor(b, requires_grad=True)]
    for adjoint in (False, True):
        xt = torch.linalg.lu_solve(*torch.linalg.lu_factor(tt[0]), tt[1], adjoint=adjoint)
        xl = leafgrad.linalg.lu_solve(*leafgrad.linalg.lu_factor(ll[0]), ll[1],
                                      adjoint=adjoint)
        np.testing.assert_allclose(xl.detach().numpy(), xt.detach().numpy(), atol=1e-10)
        gt = torch.autograd.grad(xt.sum(), tt)
        gl = leafgrad.autograd.grad(xl.sum(), ll)
        for g1, g2 in zip(gl, gt):
            np.testing.assert_allclose(g1.numpy(), g2.numpy(), atol=1e-10)
    _err("lu_factor", np.ones((3, 3)))
    _err("lu_factor", np.zeros((2, 3, 3)))
    info_m = leafgrad.linalg.lu_factor_ex(leafgrad.tensor(np.zeros((2, 2)))).info
    assert info_m.item() == torch.linalg.lu_factor_ex(torch.zeros(2, 2)).info.item()


def test_misc_composites():
    x, y = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    _compare(lambda a, b: torch.linalg.vecdot(a, b), lambda a, b: leafgrad.linalg.vecdot(a, b),
             x, y)
    _compare(lambda a: torch.linalg.vander(a), lambda a: leafgrad.linalg.vander(a), x)
    _compare(lambda a: torch.linalg.vander(a, N=2), lambda a: leafgrad.linalg.vander(a, N=2), x)
    a4 = RNG.standard_normal((6, 2, 3)) + np.eye(6).reshape(6, 2, 3) * 3
    t = torch.linalg.tensorinv(torch.tensor(a4), ind=1)
    m = leafgrad.linalg.tensorinv(leafgrad.tensor(a4), ind=1)
    np.testing.assert_allclose(m.numpy(), t.numpy(), atol=1e-12)
    A = RNG.standard_normal((2, 3, 6)) + np.eye(6).reshape(2, 3, 6) * 3
    B = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(
        leafgrad.linalg.tensorsolve(leafgrad.tensor(A), leafgrad.tensor(B)).numpy(),
        torch.linalg.tensorsolve(torch.tensor(A), torch.tensor(B)).numpy(), atol=1e-12)
    _compare(lambda a: torch.nuclear_norm(a), lambda a: leafgrad.nuclear_norm(a),
             RNG.standard_normal((3, 4)))


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, math.inf])
def test_pdist_first_derivative(p):
    _compare(lambda x: torch.pdist(x, p=p), lambda x: leafgrad.pdist(x, p=p),
             RNG.standard_normal((4, 3)), second=False)


@pytest.mark.parametrize("name", ["solve", "eig", "symeig", "matrix_rank", "lstsq"])
def test_removed_functions(name):
    a = np.eye(2)
    args = (a, a) if name in ("solve", "lstsq") else (a,)
    _err(name, *args, lib_attr=None)


def test_solve_left_false_errors():
    _err("solve", np.eye(3), np.ones((2, 4)), left=False)
    _err("solve", np.eye(3), np.ones(3), left=False)
    _err("solve", np.eye(3), np.ones((4, 2)))


def test_det_gradient_at_singular_matrices():
    # PyTorch 2.13 answers zeros where det is exactly 0 (and the true gradient elsewhere)
    for a in (np.ones((2, 2)), np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 1.0, 1.0]]),
              np.stack([2 * np.eye(3), np.zeros((3, 3))])):
        t = torch.tensor(a, requires_grad=True)
        m = leafgrad.tensor(a, requires_grad=True)
        torch.linalg.det(t).sum().backward()
        leafgrad.linalg.det(m).sum().backward()
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), atol=1e-12)
