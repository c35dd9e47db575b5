"""Semantics and values fuzz mismatches of session 5 (seeds 12 and 13), helper sem5.

Each test runs the same statements on leafgrad and on torch (``oracle.same_on_both``, or an
exact comparison where the last bits matter) and compares what they observe.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad
from oracle import same_on_both


# -- cross: PyTorch computes each component as fma(a_i, b_j, -(a_j * b_i)), so cross(x, x) is a
# tiny rounding error whose sign orders a later topk (fuzz seed 13 x6) -----------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("parallel", [None, 1.0, 0.5, -3.0])
@pytest.mark.parametrize("call", ["linalg", "dim0"])
def test_cross_bits(dtype, parallel, call):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((3, 7)) * 3).astype(dtype)
    b = rng.standard_normal((3, 7)).astype(dtype) if parallel is None else \
        (a * parallel).astype(dtype)
    if call == "linalg":
        a, b = a.T.copy(), b.T.copy()
    out = []
    for L in (leafgrad, torch):
        x, y = L.tensor(a), L.tensor(b)
        r = L.linalg.cross(x, y) if call == "linalg" else L.cross(x, y, dim=0)
        out.append(r.numpy())
    np.testing.assert_array_equal(out[0], out[1])


def test_cross_then_topk_order():
    def run(L):
        x = L.tensor([9.494043, -1.2060031, 0.6151151], requires_grad=True)
        v, i = L.linalg.cross(x, x).topk(3, largest=False)
        return i.tolist(), (v > 0).tolist(), (v < 0).tolist()
    same_on_both(run)


def _nan_safe(L, t):
    """(isnan mask, values with NaN as 0): NaN != NaN in the comparison."""
    return None if t is None else (t.isnan(), L.nan_to_num(t, nan=0.0, posinf=9e9, neginf=-9e9))


# -- vector_norm's backward is PyTorch's norm_backward op for op: at a zero norm the first
# derivative is 0 and the second NaN (cosine_similarity of a zero vector, fuzz seed 12 x20) ---
@pytest.mark.parametrize("ord", [2, 3, 1.5, 0.5])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), (-1, False)])
@pytest.mark.parametrize("zero", ["all", "row", "none"])
def test_vector_norm_double_backward_at_zero(ord, dim, keepdim, zero):
    def run(L):
        data = [[0.5, -1.25, 2.0], [0.0, 0.0, 0.0]]
        if zero == "all":
            data = [[0.0] * 3] * 2
        elif zero == "none":
            data[1] = [0.25, 0.0, -3.0]
        x = L.tensor(data, dtype=L.float64, requires_grad=True)
        n = L.linalg.vector_norm(x, ord, dim, keepdim)
        g, = L.autograd.grad((n * 1.5).sum(), x, create_graph=True)
        gg, = L.autograd.grad((g * L.linspace(-1, 1, 6, dtype=L.float64).reshape(2, 3)).sum(),
                              x, allow_unused=True)
        return _nan_safe(L, g), type(g.grad_fn).__name__, _nan_safe(L, gg)
    same_on_both(run)


@pytest.mark.parametrize("shape", [(), (3,)])
def test_cosine_similarity_zero_double_backward(shape):
    def run(L):
        x = L.zeros(shape, dtype=L.float64, requires_grad=True)
        c = L.nn.functional.cosine_similarity(x * 1, x * 1, dim=0)
        g, = L.autograd.grad(c, x, create_graph=True)
        gg, = L.autograd.grad((g * 1.5).sum(), x, allow_unused=True)
        return _nan_safe(L, g), _nan_safe(L, gg)
    same_on_both(run)


# -- det of 1x1 matrices: PyTorch's backward is the incoming gradient reshaped (no graph back
# to A under create_graph; 1 at a zero matrix) (fuzz seed 12 x13) ----------------------------
@pytest.mark.parametrize("shape", [(1, 1), (3, 1, 1), (2, 2)])
@pytest.mark.parametrize("grad_grad", [False, True])
def test_det_1x1_backward(shape, grad_grad):
    def run(L):
        data = np.arange(1, 1 + int(np.prod(shape)), dtype=np.float64).reshape(shape) - 1.5
        data[..., 0, 0] = 0.0 if shape[0] == 3 else data[..., 0, 0]
        A = L.tensor(data, requires_grad=True)
        w = L.linspace(0.5, 2.0, int(np.prod(shape[:-2])), dtype=L.float64,
                       requires_grad=grad_grad).reshape(shape[:-2])
        g, = L.autograd.grad(L.linalg.det(A), A, w * 1, create_graph=True)
        names = []
        fn = g.grad_fn
        while fn is not None and len(names) < 4:
            names.append(type(fn).__name__)
            fn = fn.next_functions[0][0] if fn.next_functions else None
        # (for n > 1 PyTorch's graph is a solve; leafgrad's differs inside, values agree)
        return g, g.requires_grad, names if shape[-1] == 1 else None
    same_on_both(run)


# -- pdist's backward is its own op under create_graph (PdistBackwardBackward0), for every p and
# also with no pairs: the gradient requires grad; differentiating it raises (fuzz seed 13 x4) -
@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 0.5, 3.0, float("inf")])
@pytest.mark.parametrize("rows", [1, 3])
def test_pdist_backward_records_its_node(p, rows):
    def run(L):
        data = [[0.3, 1.2], [0.5, -1.0], [0.3, 0.1]][:rows]
        x = L.tensor(data, requires_grad=True)
        d = L.nn.functional.pdist(x, p=p)
        w = L.linspace(0.5, 1.5, d.numel())
        g, = L.autograd.grad(d, x, w, create_graph=True)
        names = [None if f is None else type(f).__name__ for f, _ in g.grad_fn.next_functions]
        try:
            L.autograd.grad(g.sum(), x)
            err = None
        except Exception as exc:   # noqa: BLE001
            err = (type(exc).__name__, str(exc))
        return g, g.requires_grad, type(g.grad_fn).__name__, names, err
    same_on_both(run)


# -- cumprod over a dim of size 1 (or of at most one element): PyTorch's backward passes the
# gradient unchanged, so under create_graph it does not require grad (fuzz seed 13 x2) -------
@pytest.mark.parametrize("shape,dim", [((1, 1), 0), ((3, 1), 1), ((1,), 0), ((), 0),
                                       ((3, 1), 0), ((0, 2), 1)])
def test_cumprod_size_one_backward(shape, dim):
    def run(L):
        x = L.linspace(-0.5, 1.5, int(np.prod(shape))).reshape(shape).requires_grad_()
        y = x.cumprod(dim)
        g, = L.autograd.grad(y, x, L.ones(shape) * 2, create_graph=True)
        return g, g.requires_grad, None if g.grad_fn is None else type(g.grad_fn).__name__
    same_on_both(run)


# -- max_pool1d of an unbatched input when no gradient is needed: PyTorch's max_pool1d_impl
# squeezes its result in place, a fresh tensor at version 1 (fuzz seed 12 x11) ---------------
@pytest.mark.parametrize("shape", [(1, 3), (2, 4), (1, 2, 3)])
@pytest.mark.parametrize("mode", ["plain", "grad", "no_grad", "indices"])
def test_max_pool1d_result_version(shape, mode):
    def run(L):
        x = L.linspace(-1, 1, int(np.prod(shape))).reshape(shape)
        if mode in ("grad", "no_grad"):
            x.requires_grad_()
        F = L.nn.functional
        with L.no_grad() if mode == "no_grad" else L.enable_grad():
            y = F.max_pool1d(x, 2, stride=1, padding=1, return_indices=mode == "indices")
        y = y[0] if mode == "indices" else y
        return y, y._version, y._base is None, y.requires_grad
    same_on_both(run)


# -- clamp's backward is PyTorch's where(mask, grad, 0) (WhereBackward0 under create_graph), a NaN
# input getting 0 where PyTorch's mask says so; nan_to_num's is grad * isfinite(self);
# hardtanh's passes the gradient at NaN (fuzz seed 12 x4) ------------------------------------
_BOUNDED = {
    "minmax": lambda L, x, lo, hi: x.clamp(-1, 1), "min": lambda L, x, lo, hi: x.clamp(min=-1),
    "max": lambda L, x, lo, hi: x.clamp(max=1), "tmin": lambda L, x, lo, hi: x.clamp(min=lo),
    "tmax": lambda L, x, lo, hi: x.clamp(max=hi), "tminmax": lambda L, x, lo, hi: x.clamp(lo, hi),
    "clamp_min": lambda L, x, lo, hi: x.clamp_min(0.1),
    "clamp_max": lambda L, x, lo, hi: x.clamp_max(0.1),
    "clamp_min_t": lambda L, x, lo, hi: x.clamp_min(lo),
    "clamp_max_t": lambda L, x, lo, hi: x.clamp_max(hi),
    "clip_crossed": lambda L, x, lo, hi: x.clip(1, -1),
    "hardtanh": lambda L, x, lo, hi: L.nn.functional.hardtanh(x),
    "relu6": lambda L, x, lo, hi: L.nn.functional.relu6(x),
    "nan_to_num": lambda L, x, lo, hi: x.nan_to_num(),
}


@pytest.mark.parametrize("case", sorted(_BOUNDED))
@pytest.mark.parametrize("nan", [False, True])
def test_bounded_backward_names_and_nan(case, nan):
    def run(L):
        bad = float("nan") if nan else 0.2
        x = L.tensor([[-1.5, bad, 2.0, float("inf")]], dtype=L.float64, requires_grad=True)
        lo = L.tensor([[-1.0, 0.5, bad, 0.0]], dtype=L.float64, requires_grad=True)
        hi = L.tensor([[1.0, 1.5, 1.0, bad]], dtype=L.float64, requires_grad=True)
        y = _BOUNDED[case](L, x, lo, hi)
        w = L.tensor([[1.0, 2.0, 3.0, float("inf")]], dtype=L.float64, requires_grad=True)
        gs = L.autograd.grad((y * w).nan_to_num(posinf=7.0).sum(), [x, lo, hi],
                             create_graph=True, allow_unused=True)
        return [None if g is None else (type(g.grad_fn).__name__,) + _nan_safe(L, g) for g in gs]
    same_on_both(run)


# -- einsum of two or more operands under create_graph: each gradient ends in the node PyTorch's
# ends in (SqueezeBackward1 for an operand lacking a label, else PermuteBackward0) (fuzz
# seed 13: 'MulBackward0' != 'PermuteBackward0') --------------------------------------------
@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("i,i->", [(3,), (3,)]), ("ij,j", [(2, 3), (3,)]),
    ("...j,jk->...k", [(2, 2, 3), (3, 2)]), ("ij,k->ijk", [(2, 3), (2,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]), ("...i,...i->...", [(3,), (2, 3)]),
    ("...i,...i->...", [(1, 1), (1, 1)]), ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,ij->", [(1, 3), (2, 3)]), ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)])])
def test_einsum_gradient_last_node(eq, shapes):
    def run(L):
        ops = [L.linspace(0.5, 2, int(np.prod(s)), dtype=L.float64).reshape(s).requires_grad_()
               for s in shapes]
        r = L.einsum(eq, *ops)
        gs = L.autograd.grad(r, ops, L.ones_like(r) * 1.5, create_graph=True)
        gg = L.autograd.grad(sum((g * g).sum() for g in gs), ops, allow_unused=True)
        return [(g, type(g.grad_fn).__name__) for g in gs], gg
    same_on_both(run)


# -- prod's backward reads the saved result as PyTorch's (grad * result / self without zeros): a
# second backward through the freed graph fails, an in-place change of the result is caught,
# and the all-elements gradient with zeros ends in ViewBackward0 (fuzz seed 12 x3 and seed 13
# x2 'output 0 of Prod1') ------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["all", "dim", "dim_keep"])
@pytest.mark.parametrize("zeros", [0, 1, 2])
def test_prod_backward_uses_saved_result(kind, zeros):
    def run(L):
        x = L.tensor([-3.8, 1.47, 0.0567][:3 - zeros] + [0.0] * zeros, requires_grad=True)
        p = x.prod() if kind == "all" else x.prod(-1, keepdim=kind == "dim_keep")
        g, = L.autograd.grad(p, [x], L.ones_like(p), create_graph=True, retain_graph=False)
        try:
            second = L.autograd.grad((g * g).sum(), [x])
        except RuntimeError as exc:
            second = str(exc)[:50]
        names = [type(g.grad_fn).__name__] + [None if f is None else type(f).__name__
                                             for f, _ in g.grad_fn.next_functions]
        return g, names, second
    same_on_both(run)


@pytest.mark.parametrize("kind", ["all", "dim", "dim_keep"])
def test_prod_result_changed_in_place(kind):
    def run(L):
        x = L.tensor([[1.5, 2.0], [0.5, -1.0]], requires_grad=True)
        p = x.prod() if kind == "all" else x.prod(1, keepdim=kind == "dim_keep")
        p.add_(1)
        try:
            p.sum().backward()
        except RuntimeError as exc:
            return str(exc)
        return x.grad
    same_on_both(run)


# -- what a node saves decides which in-place change fails the backward, and the first node to
# fail (newest first) names the tensor: sort saves its indices, not self (fuzz seed 12: 'output
# 0 of AsStrided' != 'output 0 of Exp'); gather and cummax/cummin save self, as PyTorch ----
_SAVES = {
    "sort": lambda x: x.sort(0)[0], "msort": lambda x: x.msort(),
    "kthvalue": lambda x: x.kthvalue(2, 0)[0], "median_dim": lambda x: x.median(0)[0],
    "mode": lambda x: x.mode(0)[0], "max_dim": lambda x: x.max(0)[0],
    "cummax": lambda x: x.cummax(0)[0], "cummin": lambda x: x.cummin(1)[0],
    "topk": lambda x: x.topk(2, 0)[0], "quantile": lambda x: x.quantile(0.3, 0),
    "gather": lambda x: x.gather(0, x.argsort(0)), "prod": lambda x: x.prod(0),
}


@pytest.mark.parametrize("name", sorted(_SAVES))
def test_saved_input_changed_in_place(name):
    def run(L):
        b = L.tensor([[0.5, 2.0], [1.5, -1.0], [0.25, 3.0]], requires_grad=True)
        x = b * 1
        y = _SAVES[name](x)
        x.add_(1)
        try:
            y.sum().backward()
        except RuntimeError as exc:
            return str(exc)
        return b.grad
    same_on_both(run)


def test_quantile_then_in_place_names_the_exp_output():
    def run(L):
        b = L.tensor(-2.93, requires_grad=True)
        t = (b * 0).masked_fill(b != b, 1.0)
        t.exp_()
        q = t.quantile(1.0, interpolation="higher")
        t.div_(q)
        try:
            t.backward(retain_graph=True, create_graph=True)
        except RuntimeError as exc:
            return str(exc)
        return b.grad
    same_on_both(run)


# -- matrix_exp: exp for 1x1 matrices (exp(-inf) = 0, PyTorch's shortcut), NaN for a larger
# matrix holding inf/NaN (was OverflowError; fuzz seed 12) ----------------------------------
@pytest.mark.parametrize("value", [float("-inf"), float("inf"), float("nan"), 0.5])
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 1, 1)])
def test_matrix_exp_non_finite(value, shape):
    def run(L):
        r = L.linalg.matrix_exp(L.full(shape, value, dtype=L.float64))
        return _nan_safe(L, r)
    same_on_both(run)


def test_matrix_exp_batch_with_one_non_finite():
    def run(L):
        A = L.tensor([[[1.0, float("-inf")], [0.0, 1.0]], [[0.5, 0.2], [0.1, 0.3]]],
                     dtype=L.float64)
        return _nan_safe(L, L.linalg.matrix_exp(A))
    same_on_both(run)


# -- clamp with tensor bounds: each input's gradient combines two masks in place as PyTorch's,
# failing when the second broadcasts the first larger (fuzz seed 13: "output with shape [1]
# doesn't match the broadcast shape [2]") ----------------------------------------------------
@pytest.mark.parametrize("shapes", [((1,), (2,), (1,)), ((1,), (1,), (2,)), ((2,), (1,), (1,)),
                                    ((1,), (2,), (2,)), ((2, 1), (1,), (2, 2))])
@pytest.mark.parametrize("wants", ["self", "min", "max", "all"])
def test_clamp_tensor_bounds_backward_shapes(shapes, wants):
    def run(L):
        x, lo, hi = (L.linspace(-1, 1, int(np.prod(s))).reshape(s) for s in shapes)
        lo, hi = lo - 0.5, hi + 0.25
        ts = {"self": x, "min": lo, "max": hi}
        wrt = list(ts.values()) if wants == "all" else [ts[wants]]
        for t in wrt:
            t.requires_grad_()
        y = x.clamp(lo, hi)
        try:
            return L.autograd.grad(y, wrt, L.ones_like(y))
        except RuntimeError as exc:
            return str(exc)
    same_on_both(run)


# -- a node whose saved output is needed only by an input that needs no gradient (copysign of a
# constant by a tensor that requires grad): the backward runs (was IndexError: tuple index out
# of range; fuzz seed 13) ---------------------------------------------------------------------
@pytest.mark.parametrize("self_value", ["bool", "float", "float_grad"])
def test_copysign_other_only_backward(self_value):
    def run(L):
        a = {"bool": L.tensor([False, True]), "float": L.tensor([1.5, -2.0]),
             "float_grad": L.tensor([1.5, -2.0], requires_grad=True)}[self_value]
        b = L.tensor([2.5, -0.5], requires_grad=True)
        y = L.copysign(a, b)
        y.backward(L.ones(2))
        return y, b.grad, a.grad
    same_on_both(run)
