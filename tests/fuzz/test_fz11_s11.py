"""Findings of session 11's fresh fuzz seeds 131 onwards (helper fz11), each against torch."""
from __future__ import annotations

import numpy as np
import pytest
import leafgrad
import torch
from oracle import run_both


def same(run):
    """``run(lib)`` on both libraries; NaN-safe (compared as text)."""
    mine, theirs = run_both(run)
    assert repr(mine) == repr(theirs), f"\nleafgrad: {mine}\ntorch:    {theirs}"
    return mine


# -- trigamma (polygamma(1, x)) is ATen's series in the kernel's type: at the negative integers
# sin(pi x) is not 0 in floating point, so the values are large and finite, inf only at 0
# (seed 131: float32 trigamma(-2) = 3.23e14, leafgrad gave inf) --------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64"])
def test_trigamma_at_poles_and_beyond(dtype):
    values = [-2.0, -1.0, -0.0, 0.0, -3.0, -20.0, -4096.0, -3.5, -1e6, -1e6 - 0.5, 0.25, 0.5,
              1.0, 7.25, 1e3, np.inf, -np.inf, np.nan]
    if dtype == "int64":
        values = [-2, -1, 0, -3, -20, -4096, 1, 5]

    def run(L):
        x = L.tensor(values, dtype=getattr(L, dtype))
        out = L.polygamma(1, x)
        return [out.dtype, [float(v) for v in out.tolist()]]
    mine, theirs = run_both(run)
    a, b = np.array(mine[1]), np.array(theirs[1])
    assert mine[0] == theirs[0]
    np.testing.assert_allclose(a, b, rtol=1e-6 if dtype != "float64" else 1e-14)
    assert repr(np.isnan(a).tolist()) == repr(np.isnan(b).tolist())


def test_trigamma_random_close_to_torch():
    # ATen's truncated series, not the exact function: float64 within 1e-14 relative
    rng = np.random.default_rng(131)
    a = rng.standard_normal(4000) * rng.choice([0.1, 1.0, 10.0, 1000.0], 4000)
    for dt in ("float32", "float64"):
        x = a.astype(dt)
        mine = leafgrad.polygamma(1, leafgrad.tensor(x)).numpy()
        theirs = torch.polygamma(1, torch.tensor(x)).numpy()
        np.testing.assert_allclose(mine, theirs, rtol=1e-5 if dt == "float32" else 1e-14)


def test_digamma_backward_at_negative_integer():
    # digamma's derivative is trigamma: the gradient at -2 is PyTorch's large finite value
    def run(L):
        x = L.tensor([-2.0, -1.0, 0.5], requires_grad=True)
        x.digamma().sum().backward()
        return [float(v) for v in x.grad.tolist()]
    mine, theirs = run_both(run)
    np.testing.assert_allclose(mine, theirs, rtol=1e-6)


# -- label smoothing with no classes: C++'s label_smoothing / n_classes is inf, the loss NaN
# (seed 131: leafgrad raised ZeroDivisionError) ---------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("reduction", ["sum", "mean", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_label_smoothing_no_classes(dtype, reduction, weighted):
    def run(L):
        out = []
        for shape, target in (((0,), L.tensor(-100)), ((2, 0), L.tensor([-100, -100]))):
            x = L.zeros(shape, dtype=getattr(L, dtype), requires_grad=True)
            w = L.ones(0, dtype=getattr(L, dtype)) if weighted else None
            loss = L.nn.functional.cross_entropy(x, target, weight=w, reduction=reduction,
                                                 label_smoothing=0.2)
            loss.sum().backward()
            out += [loss, loss.grad_fn.name(), x.grad]
        return out
    same(run)


# -- grid_sample's input gradient skips out-of-bounds taps (mask_scatter_add / safe_add): an
# inf or NaN incoming gradient there adds nothing (seed 131: leafgrad multiplied it by 0: NaN) --
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("dims,mode", [(d, m) for d in (2, 3)
                                       for m in ("bilinear", "nearest", "bicubic")
                                       if d == 2 or m != "bicubic"])   # (bicubic: 2-d only)
def test_grid_sample_nonfinite_gradient_at_out_of_bounds_taps(mode, padding, align, dims):
    rng = np.random.default_rng(7)
    spatial = (3, 4) if dims == 2 else (2, 3, 4)
    inp = rng.standard_normal((1, 2) + spatial).astype(np.float32)
    grid = (rng.standard_normal((1, 2, 3) + ((1,) if dims == 3 else ()) + (dims,)) * 1.3)
    grid = grid.astype(np.float32)
    grid[0, 0, 0] = [-0.3] + [-1.6] * (dims - 1)    # out of bounds in y (and z)
    grid[0, 1, 2] = [1.7] * dims                    # out of bounds everywhere
    up = rng.standard_normal((1, 2, 2, 3) + ((1,) if dims == 3 else ())).astype(np.float32)
    up[0, 0].reshape(-1)[0] = np.inf
    up[0, 1].reshape(-1)[0] = -np.inf
    up[0, 0].reshape(-1)[5] = np.nan

    outs = []
    for L in (leafgrad, torch):
        x = L.tensor(inp, requires_grad=True)
        g = L.tensor(grid, requires_grad=True)
        out = L.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding,
                                          align_corners=align)
        gx, gg = L.autograd.grad(out, (x, g), L.tensor(up))
        outs.append([t.detach().numpy() for t in (out, gx, gg)])
    for k, (a, b) in enumerate(zip(*outs)):
        assert np.array_equal(np.isnan(a), np.isnan(b)), (k, a, b)
        assert np.array_equal(np.where(np.isinf(a), np.sign(a), 0),
                              np.where(np.isinf(b), np.sign(b), 0)), (k, a, b)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        if not (mode == "bicubic" and k == 2):
            # (the sign of a zero bicubic grid gradient follows ATen's per-channel
            # accumulation order, which leafgrad does not replay)
            zeros = b == 0
            assert np.array_equal(np.signbit(a[zeros]), np.signbit(b[zeros])), (k, a, b)


# -- the fuzz table: the nuclear norm's gradient U Vh of a rank-deficient matrix is any
# completion of the null-space bases (NumPy's and MKL's differ by O(1), both right): its
# forward only there (seed 132) -----------------------------------------------------------------
_SEED_132_NUCLEAR = (
    "Program(leaves=[Leaf(shape=(), dtype='float16', requires_grad=True, seed=0, "
    "scale=3.0), Leaf(shape=(3,), dtype='float64', requires_grad=True, seed=15801, "
    "scale=3.0)], steps=[Step(op='linalg_products', seed=39053, no_grad=False), "
    "Step(op='statistics', seed=7412, no_grad=False), Step(op='where', seed=7412, "
    "no_grad=False)], ending=Ending(kind='grad', seed=7412, retain_graph=True, "
    "create_graph=False, twice=False, allow_unused=True, give_gradient=True))")


def test_nuclear_norm_of_rank_deficient_matrix_forward_only():
    from tests.fuzz.ops_table_more import _polar_unsettled
    w = np.array([1.0, 2.0, -0.5])
    rank1 = torch.tensor(np.outer(w, w), requires_grad=True)
    assert _polar_unsettled(rank1) and _polar_unsettled(leafgrad.tensor(rank1.detach().numpy(),
                                                                        requires_grad=True))
    well = torch.tensor([[2.0, 0.5, 0.0], [0.1, 1.0, 0.3], [0.0, 0.2, 3.0]], requires_grad=True)
    assert not _polar_unsettled(well) and not _polar_unsettled(torch.zeros(3, 3,
                                                                           requires_grad=True))
    # where it is settled the gradient is still compared with torch
    def run(L):
        x = L.tensor(well.detach().numpy(), requires_grad=True)
        L.nuclear_norm(x).backward()
        return x.grad
    same(run)


def test_seed_132_nuclear_norm_program():
    import warnings
    from tests.fuzz import programs as P
    program = eval(_SEED_132_NUCLEAR, vars(P))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trace = P.run_program(torch, program)
        assert any(t[0] == "step" and t[1] == "statistics" for t in trace)
        assert P.difference(program) is None


# -- lerp's fused multiply-add keeps the sign of an exact zero: lerp(-0., 4.1, -0.) is -0.
# (seed 133: leafgrad's float64 error-free fma gave +0, and a later 1 / x the wrong infinity) --
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_lerp_signed_zeros(dtype):
    vals = [-0.0, 0.0, 4.1, -4.1, 1.0, -1.0, 0.7, 2.0]

    def run(L):
        a = L.tensor(vals, dtype=getattr(L, dtype))
        x, y, w = (t.reshape(-1) for t in L.meshgrid(a, a, a, indexing="ij"))
        out = [L.lerp(x, y, w), L.lerp(x, y, -0.0), L.lerp(x, y, 0.0), L.lerp(x, y, 0.7)]
        return [str((1 / o).tolist()) for o in out]   # the sign of a zero as +-inf
    same(run)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("n", [1, 7, 8, 15, 17, 33, 70])
def test_lerp_zero_signs_vector_lanes_and_tail(dtype, n):
    # ATen's vector loop computes fmadd(w - 1, end - self, end), its scalar tail
    # end - (end - self) * (1 - w): at w == 1 the zero product's sign differs
    def run(L):
        dt = getattr(L, dtype)
        x = L.full((n,), -0.0, dtype=dt)
        ones = L.ones(n, dtype=dt)
        m = L.full((3, n), -0.0, dtype=dt)
        out = [L.lerp(x, x, ones), L.lerp(x, x, 1.0), L.lerp(x, x, L.tensor(1.0, dtype=dt)),
               L.lerp(m.t(), m.t(), 1.0), L.lerp(m, x, ones), L.lerp(x, -x, 0.75)]
        return [str((1 / o).tolist()) for o in out]
    same(run)


# -- F.linear as at::linear: addmm on the folded input only where the bias is fusable (1-d
# once squeezed, contiguous) and the input contiguous; otherwise matmul then add_ (seed 133:
# nn.Linear on an expanded 1-d input gave ViewBackward0 over AddmmBackward0, PyTorch
# AddBackward0 over matmul's nodes) ---------------------------------------------------------------
_LINEAR_INPUTS = {
    "1d": lambda L, mk: mk(L, (3,)), "1d_expanded": lambda L, mk: mk(L, ()).expand(3),
    "1d_step": lambda L, mk: mk(L, (6,))[::2], "3d": lambda L, mk: mk(L, (2, 4, 3)),
    "3d_expanded": lambda L, mk: mk(L, ()).expand(1, 4, 3), "4d": lambda L, mk: mk(L, (2, 2, 2, 3)),
    "empty3d": lambda L, mk: mk(L, (0, 2, 3)),
}
_LINEAR_BIASES = {
    "1d": lambda L, mk: mk(L, (2,)), "0d": lambda L, mk: mk(L, ()),
    "row": lambda L, mk: mk(L, (1, 2)), "big": lambda L, mk: mk(L, (5, 2)),
    "col": lambda L, mk: mk(L, (2, 1)), "1d_step": lambda L, mk: mk(L, (4,))[::2],
}


def _mk(L, shape):
    n = int(np.prod(shape))
    return L.arange(float(n)).reshape(shape).mul(0.1).requires_grad_()


@pytest.mark.parametrize("inp", list(_LINEAR_INPUTS))
@pytest.mark.parametrize("bias", list(_LINEAR_BIASES))
@pytest.mark.parametrize("weight_1d", [False, True])
def test_linear_fold_or_matmul_add(inp, bias, weight_1d):
    from oracle import grad_fn_names

    def run(L):
        x = _LINEAR_INPUTS[inp](L, _mk)
        w = _mk(L, (3,) if weight_1d else (2, 3))
        y = L.nn.functional.linear(x, w, _LINEAR_BIASES[bias](L, _mk))
        y.sum().backward()
        return [y, y.stride(), grad_fn_names(y), w.grad]
    same(run)


# -- upsampling's backward adds each output's gradient onto the positions it read (ATen's
# kernels), not a product with the dense interpolation matrix: an inf or NaN gradient reaches
# only those (seed 132: nearest 2 -> 1 gave NaN to the position no output read) ------------------
@pytest.mark.parametrize("mode,dims,dtype", [
    (m, d, dt) for m, d in (("nearest", 1), ("nearest", 2), ("nearest", 3), ("nearest-exact", 2),
                            ("linear", 1), ("bilinear", 2), ("trilinear", 3), ("bicubic", 2))
    for dt in ("float32", "float64", "float16")
    if not (dt == "float16" and m == "bicubic")])   # (no float16 bicubic kernel on CPU)
@pytest.mark.parametrize("size", [1, 2, 5])
def test_upsample_backward_nonfinite_gradient(mode, dims, dtype, size):
    rng = np.random.default_rng(size)
    inp = rng.standard_normal((1, 2) + (3,) * dims)
    kw = {} if mode.startswith("nearest") else {"align_corners": False}

    def run(L):
        dt = getattr(L, dtype)
        x = L.tensor(inp, dtype=dt, requires_grad=True)
        y = L.nn.functional.interpolate(x, size=(size,) * dims, mode=mode, **kw)
        g = L.ones_like(y).reshape(-1)
        g[0] = float("nan")
        g[-1] = float("inf")
        (gx,) = L.autograd.grad(y, x, g.reshape(y.shape))
        return gx
    same(run)


# -- views of a tensor an in-place op gave a history report requires_grad through their base
# (PyTorch: is_view() && base.requires_grad()) and regrow an AsStridedBackward0 history (seed
# 134: a view of a 0-d tensor changed by masked_fill_ went on as a constant: no gradient) ------
_WRITES = {
    "add_": lambda L, a, w: a.add_(w),
    "mul_": lambda L, a, w: a.mul_(w),
    "masked_fill_": lambda L, a, w: a.masked_fill_(a > 0, w.sum()),
    "copy_": lambda L, a, w: a.copy_(w.expand(a.shape)),
    "setitem": lambda L, a, w: a.__setitem__(..., w),
    "view_add_": lambda L, a, w: a.view(-1)[:1].add_(w),   # through another view: CopySlices
}
_VIEWS = {
    "ellipsis": lambda L, a: a[...], "slice": lambda L, a: a.view(-1)[-1:],
    "view_of_view": lambda L, a: a.view(-1)[-1:].view(()),
    "no_grad": None,
}


@pytest.mark.parametrize("write", list(_WRITES))
@pytest.mark.parametrize("view", list(_VIEWS))
@pytest.mark.parametrize("shape", [(), (2, 3)])
def test_views_follow_base_given_history_in_place(write, view, shape):
    from oracle import grad_fn_names

    def run(L):
        a = L.ones(shape)
        if view == "no_grad":
            with L.no_grad():
                v = a.view(-1)[-1:]
        else:
            v = _VIEWS[view](L, a)
            if view == "view_of_view" and shape:
                v = a.view(-1)[-1:]
        w = L.tensor(2.0, requires_grad=True)
        _WRITES[write](L, a, w)
        out = [v.requires_grad]
        try:
            y = L.where(L.ones(v.shape, dtype=L.bool), v, 0.5) * 3
            out += [y.requires_grad, grad_fn_names(y), v.is_leaf]
            out.append(L.autograd.grad(y.sum(), w, allow_unused=True))
        except RuntimeError as exc:
            out.append(exc)
        out.append([a.requires_grad, v.requires_grad])
        return out
    same(run)


# -- the fuzz table: torch 2.13's multi_margin_loss / multilabel_margin_loss reduce an empty
# batch to uninitialized memory (seed 133: 2.4e-38 once, 0 the next run): their elementwise
# form only there ------------------------------------------------------------------------------
_SEED_133_MARGIN = (
    "Program(leaves=[Leaf(shape=(), dtype='float32', requires_grad=True, seed=15705, "
    "scale=1.0), Leaf(shape=(1, 1), dtype='float32', requires_grad=True, seed=450, "
    "scale=0.1)], steps=[Step(op='clamp', seed=187, no_grad=True), Step(op='getitem', "
    "seed=1052, no_grad=True), Step(op='class_loss', seed=65535, no_grad=False), "
    "Step(op='getitem', seed=1052, no_grad=True)], ending=Ending(kind='grad', seed=2, "
    "retain_graph=False, create_graph=False, twice=False, allow_unused=True, "
    "give_gradient=True))")


def test_margin_losses_of_empty_batch_drawn_elementwise():
    import warnings
    from tests.fuzz import programs as P
    program = eval(_SEED_133_MARGIN, vars(P))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for L in (torch, leafgrad):
            step = P.run_program(L, program)[2]
            assert step[1] == "class_loss" and step[2][0] == "T" and step[2][2] == (0,)
        assert P.difference(program) is None


# -- histc finds the bin by division in the input's dtype (seed 135: float32 -0.0634542 over
# its own range [x - 1, x + 1] is bin 1 of 4 in PyTorch; leafgrad divided in double: bin 2) ----
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_histc_bins_by_division_in_dtype(dtype):
    rng = np.random.default_rng(135)
    data = [(rng.standard_normal(300) * rng.choice([0.01, 1, 10], 300)).astype(dtype)
            for _ in range(3)]
    singles = list(rng.standard_normal(40).astype(dtype)) + [-0.06345421, -1e-8, 1e-8, 0.5]

    def run(L):
        out = []
        for bins in (1, 3, 4, 7, 100):
            for lo, hi in ((0, 0), (-1, 1), (-0.3, 0.7)):
                for a in data:
                    out.append(L.histc(L.tensor(a), bins, lo, hi))
            for v in singles:
                out.append(L.histc(L.tensor([v], dtype=getattr(L, dtype)), bins, 0, 0))
        return out
    same(run)


# -- an op without a derivative (NotImplemented node) on an integer tensor with a history
# leaves its integer output without one, unrefused (seed 135: t // 2 raised "Autograd not
# support dtype: Long"); in place the tensor keeps its own history ---------------------------------
_INT_OPS = {
    "floordiv": lambda L, t, w: t // 2, "floordiv_t": lambda L, t, w: t // L.tensor([2, 3, 4]),
    "floor_divide": lambda L, t, w: L.floor_divide(t, 2),
    "remainder_scalar_self": lambda L, t, w: L.remainder(5, t),
    "heaviside": lambda L, t, w: L.heaviside(t, L.ones(2, 3, dtype=L.long)),
    "bincount": lambda L, t, w: L.bincount(t.flatten()),
    "remainder": lambda L, t, w: L.remainder(t, L.ones(2, 3, dtype=L.long)),
    "floordiv_float": lambda L, t, w: t // w, "then_mul": lambda L, t, w: (t // 2) * 2,
    "ifloordiv": lambda L, t, w: t.__ifloordiv__(2),
}


@pytest.mark.parametrize("op", list(_INT_OPS))
def test_not_implemented_ops_on_integer_tensor_with_history(op):
    from oracle import grad_fn_name

    def run(L):
        w = L.tensor(2.0, requires_grad=True)
        t = L.zeros(2, 3, dtype=L.long)
        t.fill_(w)
        r = _INT_OPS[op](L, t, w)
        return [r, r.requires_grad, grad_fn_name(r), grad_fn_name(t)]
    same(run)


# -- roll of an empty tensor is a clone before any dim is read (seed 135: dims=-5 on a 4-d
# empty tensor raised in leafgrad) -------------------------------------------------------------
@pytest.mark.parametrize("shifts,dims", [(2, -5), ((1, 2), (0, 9)), (1, 7), ((1,), (-1,)),
                                         ((1, 2), (0,)), (3, None), ((), ())])
@pytest.mark.parametrize("shape", [(0, 1, 1, 4), (2, 0), (3, 2)])
def test_roll_of_empty_tensor(shifts, dims, shape):
    from oracle import grad_fn_name

    def run(L):
        x = L.ones(shape, dtype=L.float16).requires_grad_()
        y = x.roll(shifts, dims) if dims is not None else x.roll(shifts)
        out = [y, grad_fn_name(y)]
        y.sum().backward()
        return out + [x.grad]
    same(run)


# -- batch norm of a 1-d input reads its size(1): PyTorch's dim error, not a Python IndexError
# (seed 137) --------------------------------------------------------------------------------------
@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("stats", [False, True])
@pytest.mark.parametrize("affine", [False, True])
def test_batch_norm_of_1d_input(training, stats, affine):
    def run(L):
        rm = L.zeros(0) if stats else None
        rv = L.ones(0) if stats else None
        w = L.ones(3) if affine else None
        return L.nn.functional.batch_norm(L.ones(3), rm, rv, weight=w, training=training)
    same(run)


# -- float16 var/std (Welford's) sum in float and round once (seed 137: var over 3 halves was
# 1 ulp off: shifted, squared and summed in half) ----------------------------------------------
@pytest.mark.parametrize("shape,dim", [((6, 3), -1), ((6, 3), 0), ((5, 7), None), ((4, 1), -1),
                                       ((2, 3, 4), (0, 2)), ((40,), 0), ((3, 300), 1)])
@pytest.mark.parametrize("correction", [0, 1])
def test_half_variance_rounds_once(shape, dim, correction):
    import warnings
    a = (np.random.default_rng(137).standard_normal(shape) * 3).astype(np.float16)
    args = (dim,) if dim is not None else ()

    def run(L):
        x = L.tensor(a)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [L.var(x, *args, correction=correction), L.std(x, *args, correction=correction),
                    L.var_mean(x, *args, correction=correction),
                    L.std_mean(x, *args, correction=correction)]
    same(run)
