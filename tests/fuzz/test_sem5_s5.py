"""Semantics and values fuzz mismatches of session 5 (seeds 12 and 13), helper sem5.

Each test runs the same statements on leafgrad and on torch (``oracle.same_on_both``, or an
exact comparison where the last bits matter) and compares what they observe.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from oracle import same_on_both

import leafgrad


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
        t = (b * 0).masked_fill(b.isnan(), 1.0)
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


# -- the fuzz programs of the causes above, replayed whole (tests/fuzz/programs.difference):
# each must now run alike on leafgrad and torch (seeds 12 and 13 of session 5) ------------
_PROGRAMS = [
    # seed 12 x29 trace[2][2].values:
    "Program(leaves=[Leaf(shape=(), dtype='float32', requires_grad=False, seed=769, scale=1.0), Leaf(shape=(3,), dtype='float64', requires_grad=False, seed=3854, scale=1.0), Leaf(shape=(), dtype='int64', requires_grad=False, seed=10278, scale=3.0), Leaf(shape=(1, 4, 3), dtype='float64', requires_grad=True, seed=12830, scale=1.0)], steps=[Step(op='sigmoid', seed=65536, no_grad=False), Step(op='inplace_unary', seed=565, no_grad=False), Step(op='loss_extra', seed=5276, no_grad=False), Step(op='addcmul', seed=647, no_grad=False)], ending=Ending(kind='none', seed=1591, retain_graph=False, create_graph=False, twice=True, allow_unused=None, give_gradient=False))",
    # seed 12 x20 trace[4][1][0].values:
    "Program(leaves=[Leaf(shape=(), dtype='float64', requires_grad=True, seed=366, scale=1.0)], steps=[Step(op='rearrange', seed=624, no_grad=False), Step(op='remainder', seed=37912, no_grad=False), Step(op='distance', seed=2503, no_grad=False)], ending=Ending(kind='grad', seed=3356, retain_graph=True, create_graph=True, twice=False, allow_unused=True, give_gradient=False))",
    # seed 12 x13 trace[5][1][3].requires_grad: leafgrad True != torch False
    "Program(leaves=[Leaf(shape=(4, 1), dtype='float32', requires_grad=True, seed=2051, scale=0.1), Leaf(shape=(), dtype='bool', requires_grad=False, seed=3959, scale=1.0), Leaf(shape=(1, 4, 1), dtype='float32', requires_grad=True, seed=3, scale=1.0), Leaf(shape=(), dtype='float32', requires_grad=True, seed=550, scale=0.1)], steps=[Step(op='linalg_square', seed=377, no_grad=False), Step(op='linalg_square', seed=377, no_grad=False), Step(op='eq', seed=531, no_grad=False), Step(op='fmin', seed=1160, no_grad=True)], ending=Ending(kind='backward', seed=1003, retain_graph=True, create_graph=True, twice=False, allow_unused=True, give_gradient=True))",
    # seed 12 x11 trace[3][2]._version: leafgrad 0 != torch 1
    "Program(leaves=[Leaf(shape=(1,), dtype='int64', requires_grad=False, seed=13384, scale=3.0), Leaf(shape=(), dtype='float32', requires_grad=True, seed=42126, scale=3.0), Leaf(shape=(), dtype='float64', requires_grad=False, seed=65536, scale=1.0)], steps=[Step(op='inplace_binary', seed=65535, no_grad=False), Step(op='log1p', seed=35, no_grad=True), Step(op='cast', seed=232, no_grad=False), Step(op='pooling', seed=624, no_grad=False), Step(op='positive', seed=860, no_grad=False), Step(op='clamp_tensor', seed=154, no_grad=False), Step(op='round_decimals', seed=624, no_grad=False)], ending=Ending(kind='backward', seed=473, retain_graph=True, create_graph=False, twice=False, allow_unused=True, give_gradient=False))",
    # seed 12 x9 trace lengths 8 != 7
    "Program(leaves=[Leaf(shape=(), dtype='bool', requires_grad=False, seed=2639, scale=0.1), Leaf(shape=(), dtype='float32', requires_grad=False, seed=1165, scale=0.1), Leaf(shape=(), dtype='float16', requires_grad=True, seed=198, scale=1.0), Leaf(shape=(1, 1, 1), dtype='float32', requires_grad=True, seed=46, scale=0.1)], steps=[Step(op='getitem', seed=836, no_grad=False), Step(op='embedding', seed=179, no_grad=False), Step(op='scan', seed=449, no_grad=False), Step(op='fmin', seed=510, no_grad=False)], ending=Ending(kind='grad', seed=36289, retain_graph=True, create_graph=True, twice=False, allow_unused=False, give_gradient=True))",
    # seed 12 x4 trace[2][1][2].grad_fn: leafgrad 'MaskedFillBackward0' != torch 'Where
    "Program(leaves=[Leaf(shape=(), dtype='float32', requires_grad=True, seed=901, scale=3.0), Leaf(shape=(1, 2), dtype='float32', requires_grad=True, seed=52487, scale=1.0), Leaf(shape=(), dtype='float64', requires_grad=True, seed=237, scale=1.0), Leaf(shape=(1, 1), dtype='float64', requires_grad=True, seed=6781, scale=0.1)], steps=[Step(op='clamp', seed=43317, no_grad=False), Step(op='linalg_square', seed=1276, no_grad=False)], ending=Ending(kind='grad', seed=9952, retain_graph=False, create_graph=True, twice=False, allow_unused=True, give_gradient=False))",
    # seed 12 x3 trace[7][1]: only torch raised ('E', 'RuntimeError', 'Trying to backwa
    "Program(leaves=[Leaf(shape=(3,), dtype='float32', requires_grad=True, seed=11052, scale=3.0)], steps=[Step(op='activation', seed=550, no_grad=False), Step(op='cast', seed=65536, no_grad=False), Step(op='reduce_dim', seed=217, no_grad=False), Step(op='index_ops', seed=39, no_grad=True), Step(op='activation', seed=217, no_grad=True)], ending=Ending(kind='grad', seed=10324, retain_graph=False, create_graph=True, twice=True, allow_unused=None, give_gradient=False))",
    # seed 12 x2 trace[6][2]: ('E', 'OverflowError', 'cannot convert float infinity to 
    "Program(leaves=[Leaf(shape=(), dtype='float16', requires_grad=False, seed=2181, scale=1.0), Leaf(shape=(1, 2), dtype='float64', requires_grad=False, seed=394, scale=1.0), Leaf(shape=(), dtype='float32', requires_grad=False, seed=85, scale=1.0), Leaf(shape=(1, 1), dtype='float32', requires_grad=False, seed=5966, scale=1.0)], steps=[Step(op='loss', seed=1785, no_grad=True), Step(op='inplace_unary', seed=541, no_grad=False), Step(op='reduce_values_indices', seed=1765, no_grad=False), Step(op='loss_extra', seed=1164, no_grad=False), Step(op='linalg_square', seed=304, no_grad=False), Step(op='log', seed=299, no_grad=False), Step(op='linalg_square', seed=541, no_grad=False), Step(op='linalg_square', seed=304, no_grad=False)], ending=Ending(kind='grad', seed=497, retain_graph=True, create_graph=True, twice=True, allow_unused=False, give_gradient=True))",
    # seed 12 x2 trace[7][1][2]: leafgrad 'one of the variables needed for gradient com
    "Program(leaves=[Leaf(shape=(), dtype='float32', requires_grad=True, seed=48007, scale=1.0), Leaf(shape=(), dtype='float32', requires_grad=True, seed=54008, scale=3.0)], steps=[Step(op='inplace_binary', seed=54008, no_grad=False), Step(op='unique_search', seed=15130, no_grad=False), Step(op='inplace_binary', seed=117, no_grad=False), Step(op='index_ops', seed=8926, no_grad=False), Step(op='inplace_unary', seed=404, no_grad=False), Step(op='unique_search', seed=15130, no_grad=False), Step(op='inplace_binary', seed=54008, no_grad=False)], ending=Ending(kind='backward', seed=5700, retain_graph=True, create_graph=True, twice=False, allow_unused=True, give_gradient=False))",
    # seed 13 x13 trace[1][2].values:
    "Program(leaves=[Leaf(shape=(1, 4, 4), dtype='float32', requires_grad=False, seed=123, scale=1.0), Leaf(shape=(4, 1, 1), dtype='float64', requires_grad=True, seed=324, scale=1.0)], steps=[Step(op='activation', seed=630, no_grad=False), Step(op='clamp_tensor', seed=41568, no_grad=True), Step(op='rearrange', seed=1736, no_grad=False), Step(op='activation', seed=17836, no_grad=False)], ending=Ending(kind='grad', seed=466, retain_graph=None, create_graph=False, twice=False, allow_unused=True, give_gradient=True))",
    # seed 13 x6 trace[1][2][1].values:
    "Program(leaves=[Leaf(shape=(3,), dtype='float32', requires_grad=True, seed=10967, scale=3.0)], steps=[Step(op='linalg_products', seed=4, no_grad=False), Step(op='reduce_values_indices', seed=12323, no_grad=False), Step(op='relu', seed=14440, no_grad=False)], ending=Ending(kind='backward', seed=10637, retain_graph=False, create_graph=True, twice=False, allow_unused=None, give_gradient=True))",
    # seed 13 x4 trace[6][1][2].requires_grad: leafgrad False != torch True
    "Program(leaves=[Leaf(shape=(), dtype='float32', requires_grad=False, seed=782, scale=1.0), Leaf(shape=(), dtype='float64', requires_grad=True, seed=28585, scale=1.0), Leaf(shape=(), dtype='float32', requires_grad=True, seed=217, scale=0.1)], steps=[Step(op='distance', seed=1183, no_grad=False), Step(op='triangular', seed=19385, no_grad=False), Step(op='triangular', seed=384, no_grad=True), Step(op='loss_extra', seed=31, no_grad=False)], ending=Ending(kind='backward', seed=200, retain_graph=None, create_graph=True, twice=True, allow_unused=True, give_gradient=True))",
    # seed 13 x4 trace[8][1]: only torch raised ('E', 'RuntimeError', "output with shap
    "Program(leaves=[Leaf(shape=(), dtype='float32', requires_grad=True, seed=960, scale=1.0), Leaf(shape=(2,), dtype='float32', requires_grad=True, seed=24743, scale=3.0)], steps=[Step(op='acos', seed=513, no_grad=False), Step(op='special', seed=652, no_grad=False), Step(op='pad', seed=322, no_grad=False), Step(op='clamp_tensor', seed=317, no_grad=False), Step(op='log10', seed=679, no_grad=False), Step(op='index_ops', seed=35319, no_grad=False), Step(op='clamp_tensor', seed=317, no_grad=False), Step(op='scatter_family', seed=822, no_grad=False)], ending=Ending(kind='grad', seed=52431, retain_graph=False, create_graph=False, twice=True, allow_unused=False, give_gradient=True))",
    # seed 13 x2 trace[6][1][0].requires_grad: leafgrad True != torch False
    "Program(leaves=[Leaf(shape=(1, 1), dtype='float32', requires_grad=True, seed=67, scale=1.0)], steps=[Step(op='pooling', seed=580, no_grad=False), Step(op='scan', seed=14627, no_grad=False), Step(op='narrow_split', seed=5157, no_grad=True), Step(op='linalg_products', seed=5311, no_grad=True)], ending=Ending(kind='backward', seed=33258, retain_graph=None, create_graph=True, twice=True, allow_unused=True, give_gradient=False))",
    # seed 13 x2 trace[5][1]: only torch raised ('E', 'RuntimeError', 'one of the varia
    "Program(leaves=[Leaf(shape=(1, 2), dtype='float32', requires_grad=True, seed=439, scale=1.0), Leaf(shape=(4, 1), dtype='float64', requires_grad=True, seed=108, scale=1.0)], steps=[Step(op='pooling', seed=382, no_grad=False), Step(op='reduce_all', seed=723, no_grad=False), Step(op='activation', seed=664, no_grad=False), Step(op='reduce_dim', seed=382, no_grad=False), Step(op='inplace_binary', seed=9390, no_grad=True)], ending=Ending(kind='backward', seed=55369, retain_graph=None, create_graph=True, twice=True, allow_unused=True, give_gradient=True))",
    # seed 13 x2 trace[5][1]: only torch raised ('E', 'RuntimeError', 'one of the varia
    "Program(leaves=[Leaf(shape=(1, 2), dtype='float32', requires_grad=True, seed=439, scale=1.0), Leaf(shape=(4, 1), dtype='float64', requires_grad=True, seed=108, scale=1.0)], steps=[Step(op='pooling', seed=382, no_grad=False), Step(op='reduce_all', seed=723, no_grad=False), Step(op='activation', seed=2, no_grad=False), Step(op='reduce_dim', seed=382, no_grad=False), Step(op='inplace_binary', seed=9390, no_grad=True)], ending=Ending(kind='backward', seed=55369, retain_graph=None, create_graph=True, twice=True, allow_unused=None, give_gradient=True))",
    # seed 13 x2 trace[5][1]: only torch raised ('E', 'RuntimeError', 'one of the varia
    "Program(leaves=[Leaf(shape=(1, 2), dtype='float32', requires_grad=True, seed=439, scale=1.0), Leaf(shape=(4, 2), dtype='float64', requires_grad=True, seed=108, scale=1.0)], steps=[Step(op='pooling', seed=382, no_grad=False), Step(op='reduce_all', seed=723, no_grad=False), Step(op='reduce_dim', seed=2, no_grad=False), Step(op='reduce_dim', seed=382, no_grad=False), Step(op='inplace_binary', seed=9390, no_grad=True)], ending=Ending(kind='backward', seed=55369, retain_graph=None, create_graph=True, twice=True, allow_unused=None, give_gradient=True))",
    # seed 13 x1 trace[8][1]: only leafgrad raised ('E', 'IndexError', 'tuple index out
    "Program(leaves=[Leaf(shape=(2,), dtype='int64', requires_grad=False, seed=6, scale=1.0), Leaf(shape=(1,), dtype='float32', requires_grad=True, seed=839, scale=3.0), Leaf(shape=(1, 1), dtype='float32', requires_grad=False, seed=2881, scale=1.0)], steps=[Step(op='getitem', seed=260, no_grad=False), Step(op='dunder_scalar', seed=3158, no_grad=False), Step(op='linalg_products', seed=0, no_grad=False), Step(op='pointwise_extra', seed=14401, no_grad=False), Step(op='embedding', seed=593, no_grad=False), Step(op='pointwise_extra', seed=14401, no_grad=False), Step(op='div_mode', seed=266, no_grad=True), Step(op='rearrange', seed=3792, no_grad=False)], ending=Ending(kind='backward', seed=831, retain_graph=False, create_graph=False, twice=False, allow_unused=False, give_gradient=True))",
    # seed 13 x1 trace[4][1][2]: None != ('T', 'float32', (), False, True, None, None, 
    "Program(leaves=[Leaf(shape=(2,), dtype='float32', requires_grad=True, seed=512, scale=1.0), Leaf(shape=(1, 3, 1, 2), dtype='float32', requires_grad=True, seed=79, scale=3.0)], steps=[Step(op='activation', seed=8320, no_grad=False), Step(op='reduce_all', seed=2, no_grad=False)], ending=Ending(kind='grad', seed=44509, retain_graph=True, create_graph=True, twice=True, allow_unused=True, give_gradient=False))",
    # seed 13 x1 trace[5][2]._version: leafgrad 0 != torch 1
    "Program(leaves=[Leaf(shape=(), dtype='float32', requires_grad=True, seed=11293, scale=1.0), Leaf(shape=(), dtype='float32', requires_grad=False, seed=740, scale=1.0)], steps=[Step(op='loss', seed=0, no_grad=False), Step(op='scan_extra', seed=3989, no_grad=True), Step(op='scatter_family', seed=11139, no_grad=True), Step(op='getitem', seed=725, no_grad=False), Step(op='logical_xor', seed=34231, no_grad=False), Step(op='pooling', seed=1359, no_grad=False), Step(op='add_alpha', seed=19692, no_grad=False), Step(op='transpose', seed=165, no_grad=False)], ending=Ending(kind='none', seed=18887, retain_graph=True, create_graph=False, twice=True, allow_unused=None, give_gradient=True))",
    # seed 13 x1 trace lengths 11 != 12
    "Program(leaves=[Leaf(shape=(1, 2, 1), dtype='float64', requires_grad=True, seed=20215, scale=3.0)], steps=[Step(op='linalg_products', seed=1, no_grad=False), Step(op='mul', seed=13644, no_grad=False), Step(op='pointwise_extra', seed=554, no_grad=False), Step(op='linalg_products', seed=372, no_grad=False), Step(op='pooling', seed=11061, no_grad=False), Step(op='mul', seed=3766, no_grad=False), Step(op='linalg_square', seed=515, no_grad=False), Step(op='getitem', seed=254, no_grad=True)], ending=Ending(kind='grad', seed=4419, retain_graph=False, create_graph=True, twice=False, allow_unused=True, give_gradient=True))",
    # seed 13 x1 trace[8][1][0].grad_fn: leafgrad 'MulBackward0' != torch 'PermuteBackw
    "Program(leaves=[Leaf(shape=(1, 1), dtype='float64', requires_grad=True, seed=798, scale=1.0), Leaf(shape=(), dtype='float64', requires_grad=True, seed=1016, scale=1.0)], steps=[Step(op='linalg_square', seed=3156, no_grad=False), Step(op='meshgrid', seed=65536, no_grad=False), Step(op='loss_extra', seed=621, no_grad=True), Step(op='add_alpha', seed=4511, no_grad=False), Step(op='matmul', seed=65535, no_grad=False), Step(op='pointwise_extra', seed=1035, no_grad=False), Step(op='matmul', seed=196, no_grad=False), Step(op='reduce_all', seed=3733, no_grad=False)], ending=Ending(kind='grad', seed=9543, retain_graph=None, create_graph=True, twice=False, allow_unused=True, give_gradient=True))",
    # seed 13 (rerun) x11 values: cdist inf-norm with NaN
    "Program(leaves=[Leaf(shape=(1, 4, 1, 1), dtype='float64', requires_grad=False, seed=163, scale=1.0), Leaf(shape=(1, 4, 4, 2, 1), dtype='bool', requires_grad=False, seed=3367, scale=1.0), Leaf(shape=(1, 2), dtype='float32', requires_grad=True, seed=31, scale=1.0)], steps=[Step(op='pointwise_extra', seed=55, no_grad=False), Step(op='ge', seed=27, no_grad=False), Step(op='add_alpha', seed=65535, no_grad=False), Step(op='pointwise_extra', seed=55, no_grad=False), Step(op='distance', seed=488, no_grad=False)], ending=Ending(kind='grad', seed=1034, retain_graph=None, create_graph=False, twice=True, allow_unused=None, give_gradient=True))",
    # seed 13 (rerun) x3 values: atan2 at the origin
    "Program(leaves=[Leaf(shape=(1,), dtype='bool', requires_grad=False, seed=4218, scale=3.0), Leaf(shape=(1, 1), dtype='float32', requires_grad=True, seed=696, scale=3.0), Leaf(shape=(1, 1), dtype='float64', requires_grad=True, seed=37881, scale=0.1)], steps=[Step(op='loss_extra', seed=375, no_grad=False), Step(op='atan2', seed=65536, no_grad=False), Step(op='index_ops', seed=0, no_grad=True), Step(op='dunder_tensor', seed=53546, no_grad=False)], ending=Ending(kind='backward', seed=315, retain_graph=None, create_graph=False, twice=False, allow_unused=True, give_gradient=True))",
    # seed 13 (rerun) x1 requires_grad: var without dof times grad
    "Program(leaves=[Leaf(shape=(), dtype='float32', requires_grad=False, seed=37885, scale=0.1), Leaf(shape=(), dtype='float32', requires_grad=True, seed=763, scale=0.1), Leaf(shape=(), dtype='float32', requires_grad=True, seed=1170, scale=0.1)], steps=[Step(op='triangular', seed=7276, no_grad=False), Step(op='matmul', seed=390, no_grad=False), Step(op='index_ops', seed=4999, no_grad=False), Step(op='sgn', seed=111, no_grad=False), Step(op='reduce_dim', seed=20194, no_grad=False), Step(op='relu', seed=163, no_grad=False), Step(op='atan2', seed=13, no_grad=False), Step(op='bitwise_or', seed=54887, no_grad=False)], ending=Ending(kind='backward', seed=65535, retain_graph=False, create_graph=True, twice=True, allow_unused=True, give_gradient=False))",
]


@pytest.mark.parametrize("text", _PROGRAMS)
def test_fuzz_program_replays(text):
    import warnings

    from .programs import Ending, Leaf, Program, Step, difference  # noqa: F401 (eval)
    program = eval(text)   # a Program repr written above
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert difference(program) is None


# -- mode of slices holding NaN: PyTorch's CPU kernel std::sort-s (value, index) pairs by value
# (NaN unordered) and takes the first longest run (fuzz seed 13: only leafgrad raised IndexError)
def test_mode_with_nan():
    rng = np.random.default_rng(13)
    rows = [[float("nan")], [float("nan"), 0.38, float("nan")], [1.0, float("nan"), 1.0]]
    for n in (3, 8, 17, 33):
        a = rng.integers(0, 4, n).astype(np.float64)
        a[rng.random(n) < 0.3] = np.nan
        rows.append(a.tolist())

    def run(L):
        out = []
        for row in rows:
            r = L.tensor(row).mode(-1, keepdim=True)
            out.append((r.values.isnan().tolist(), L.nan_to_num(r.values).tolist(),
                        r.indices.tolist()))
        return out
    same_on_both(run)


# -- (values, indices) ops save the returned index tensor itself, as PyTorch: changing it in
# place fails the backward (fuzz seed 13: '[torch.LongTensor []] is at version 1') ----------
@pytest.mark.parametrize("name", ["min", "max", "kthvalue", "median", "mode", "nanmedian",
                                  "cummax", "cummin"])
@pytest.mark.parametrize("shape,keepdim", [((), False), ((3,), False), ((2, 3), True)])
def test_indices_changed_in_place(name, shape, keepdim):
    def run(L):
        n = int(np.prod(shape))
        x = L.tensor([0.5, -1.0, 2.0, 0.25, 3.0, 1.0][:n]).reshape(shape).requires_grad_()
        if name in ("cummax", "cummin"):
            v, i = getattr(x, name)(-1)
        elif name == "kthvalue":
            v, i = x.kthvalue(1, -1, keepdim)
        else:
            v, i = getattr(x, name)(-1, keepdim)
        saved = tuple(v.grad_fn._saved_indices.shape)
        i.floor_()
        try:
            v.sum().backward()
        except RuntimeError as exc:
            return saved, str(exc)
        return saved, x.grad
    same_on_both(run)


# -- atan2's backward: PyTorch's 1 / (self^2 + other^2) is masked to 0 where the sum is 0, so
# the gradient at the origin is 0, not NaN (fuzz seed 13: nan != 0 after l1_loss(x, x)) -----
@pytest.mark.parametrize("point", [(0.0, 0.0), (0.0, 2.0), (1e-200, 0.0), (1e-170, 1e-170),
                                   (float("inf"), 1.0), (3.0, float("inf")), (-1.5, 0.5)])
def test_atan2_backward_at_zero(point):
    def run(L):
        a = L.tensor(point[0], dtype=L.float64, requires_grad=True)
        b = L.tensor(point[1], dtype=L.float64, requires_grad=True)
        g = L.autograd.grad(L.atan2(a, b), [a, b], create_graph=True)
        names = [[type(f).__name__ for f, _ in x.grad_fn.next_functions] for x in g]
        return [_nan_safe(L, x) for x in g], names
    same_on_both(run)


# -- cdist's kernel and NaN: the inf-norm folds max(agg, |d|) from 0 (a NaN difference never
# wins), the 0-norm sums min(ceil(|d|), 1) (NaN makes it NaN) (fuzz seed 13) ----------------
@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
def test_cdist_nan(p):
    def run(L):
        nan = float("nan")
        a = L.tensor([[nan, 0.5], [0.3, 0.2]], dtype=L.float64)
        b = L.tensor([[0.1, 0.2], [nan, nan], [0.4, nan], [0.3, 0.2]], dtype=L.float64)
        return _nan_safe(L, L.cdist(a, b, p=p, compute_mode="donot_use_mm_for_euclid_dist"))
    same_on_both(run)


# -- var/std without degrees of freedom (over all elements, or a 0-d input): PyTorch's backward
# is grad * where(self == mean, nan, inf), so a gradient with history gives one with history,
# and its sign follows grad; std goes through the same var backward (fuzz seed 13) --------
@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean", "var_dim0d"])
@pytest.mark.parametrize("data,corr", [([1.0, 2.0], 2), ([1.0, 1.0, 3.0], 5), ([0.5], 1)])
@pytest.mark.parametrize("gv", [-3.0, 0.0, 2.0])
def test_var_std_no_dof_backward(name, data, corr, gv):
    def run(L):
        x = L.tensor(data, requires_grad=True)
        y = {"var": lambda: x.var(correction=corr), "std": lambda: x.std(correction=corr),
             "var_mean": lambda: L.var_mean(x, correction=corr)[0],
             "std_mean": lambda: L.std_mean(x, correction=corr)[0],
             "var_dim0d": lambda: x[0].var(-1)}[name]()
        w = L.tensor(gv, requires_grad=True)
        g, = L.autograd.grad(y, x, w * 1, create_graph=True)
        return _nan_safe(L, g), g.requires_grad
    same_on_both(run)


# -- slogdet of a matrix whose LU holds NaN: PyTorch's sign is 0 (the product of sgn(diag(U)))
# (fuzz seed 13 rerun: sign 1 != 0) -----------------------------------------------------------
def test_slogdet_sign_with_nan():
    def run(L):
        nan = float("nan")
        out = []
        for A in ([[nan]], [[nan, 1.0], [2.0, 3.0]], [[-2.0]], [[0.0]], [[float("inf")]],
                  [[[1.0, 2.0], [3.0, 4.0]], [[nan, 0.0], [0.0, 1.0]]]):
            sign, logabs = L.linalg.slogdet(L.tensor(A, dtype=L.float64))
            out.append((sign.abs(), logabs.isnan()))
        return out
    same_on_both(run)


# -- logit's gradient is PyTorch's where(inside, grad / (x (1 - x)), nan or 0): WhereBackward0
# under create_graph, not MaskedFillBackward0 (fuzz seed 14) ------------------------------------
@pytest.mark.parametrize("eps", [None, 0.2])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_logit_gradient_is_a_where(eps, dtype):
    def run(L):
        x = L.tensor([0.1, 0.5, 0.95, 1.5, -0.2, float("nan")], requires_grad=True,
                     dtype=getattr(L, dtype))
        g, = L.autograd.grad(L.logit(x, eps).sum(), x, create_graph=True)
        h, = L.autograd.grad(g.sum(), x)
        names = [type(g.grad_fn).__name__] + [None if f is None else type(f).__name__
                                             for f, _ in g.grad_fn.next_functions]
        # NaN marked by a number: the oracle compares lists, where nan != nan
        return g.detach().nan_to_num(nan=-7.0), h.nan_to_num(nan=-7.0), names
    same_on_both(run)
