"""Findings of session 11 fixed by the lead (fuzz seed 130 and on)."""
from __future__ import annotations

import warnings

import pytest
from oracle import same_on_both


# -- label smoothing over zero classes: PyTorch divides the smoothing by the class count in
# double (inf; the empty loss never reads it), leafgrad raised Python's ZeroDivisionError
# (seed 130) -------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(0,), (1, 0), (2, 0), (0, 3), (2, 0, 3)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("targets", ["probs", "indices"])
def test_label_smoothing_over_zero_classes(shape, reduction, targets):
    def run(L):
        x = L.zeros(shape, dtype=L.float64, requires_grad=True)
        if targets == "probs":
            t = L.zeros(shape, dtype=L.float64)
        else:
            t = L.zeros((shape[0],) + shape[2:] if len(shape) > 1 else (), dtype=L.long)
        try:
            loss = L.nn.functional.cross_entropy(x, t, reduction=reduction,
                                                 label_smoothing=0.1)
        except (RuntimeError, IndexError) as exc:
            return (type(exc).__name__, str(exc))
        out = [tuple(loss.shape), str(loss.detach().numpy().tolist()), type(loss.grad_fn).__name__]
        loss.sum().backward()
        return out + [tuple(x.grad.shape)]
    same_on_both(run)


# -- embedding_bag over an empty weight of 2+ columns: PyTorch's fast (FBGEMM) path and its
# message; leafgrad read the column stride off NumPy's strides of an empty array (0) and took
# the slow path's message (seed 130) --------------------------------------------------------------
@pytest.mark.parametrize("shape", [(0, 1), (0, 3), (0, 0), (2, 0)])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("idx", [[0], [5], [0, 0, 1]])
def test_embedding_bag_empty_weight(shape, mode, idx):
    def run(L):
        w = L.zeros(shape)
        try:
            r = L.nn.functional.embedding_bag(L.tensor(idx), w, L.tensor([0]), mode=mode)
        except RuntimeError as exc:
            return str(exc)
        return tuple(r.shape)
    same_on_both(run)


# -- module constructors with sizes of zero or below: PyTorch's checks and their order (seed 150:
# Bilinear(0, ...) divided by zero in reset_parameters; a survey of every module taking sizes
# found FractionalMaxPool3d's kernel_size check) --------------------------------------------------
@pytest.mark.parametrize("cls,args,kw", [
    ("Bilinear", (0, 3, 2), {}), ("Bilinear", (0, 0, 0), {}), ("Bilinear", (3, 0, 2), {}),
    ("Bilinear", (3, 3, 0), {}), ("Bilinear", (-1, 3, 2), {}), ("Bilinear", (0, 3, 2),
                                                                 {"bias": False}),
    ("FractionalMaxPool3d", (0,), {}), ("FractionalMaxPool3d", (-1,), {"output_size": 2}),
    ("FractionalMaxPool3d", ((2, 0, 2),), {"output_ratio": 0.5}),
    ("FractionalMaxPool3d", (2,), {}), ("FractionalMaxPool2d", (0,), {}),
    ("FractionalMaxPool2d", (0,), {"output_size": 2}),
])
def test_module_constructor_checks(cls, args, kw):
    def run(L):
        try:
            m = getattr(L.nn, cls)(*args, **kw)
        except (ValueError, RuntimeError) as exc:
            return (type(exc).__name__, str(exc))
        return sorted((k, tuple(v.shape)) for k, v in m.state_dict().items())
    same_on_both(run)


@pytest.mark.parametrize("kind", ["UninitializedParameter", "UninitializedBuffer"])
@pytest.mark.parametrize("attr", ["shape", "size", "numel", "dim"])
def test_uninitialized_shape(kind, attr):
    """A lazy module's parameter before its first call: no shape (PyTorch's errors), size()
    is torch.Size([0])."""
    def run(L):
        p = getattr(L.nn, kind)()
        try:
            v = getattr(p, attr)
            return str(tuple(v() if callable(v) else v) if attr != "numel" and attr != "dim"
                       else v())
        except (ValueError, RuntimeError) as exc:
            return (type(exc).__name__, str(exc))
    same_on_both(run)


def test_lazy_linear_weight_shape_before_and_after():
    def run(L):
        m = L.nn.LazyLinear(3)
        try:
            before = tuple(m.weight.shape)
        except RuntimeError as exc:
            before = str(exc)
        m(L.ones(2, 4))
        return before, tuple(m.weight.shape), type(m.weight).__name__
    same_on_both(run)


# -- grid_sample / affine_grid of an empty batch: reshapes with -1 failed on zero elements (a
# NumPy ValueError leaked; seed 151) ---------------------------------------------------------------
_EMPTY_GRIDS = [((0, 1, 1, 3), (0, 1, 3, 2)), ((0, 1, 2, 2), (0, 2, 2, 2)),
                ((0, 2, 3, 3), (0, 1, 1, 2)), ((0, 1, 1, 3), (0, 0, 3, 2)),
                ((0, 1, 2, 2, 2), (0, 1, 1, 1, 3)), ((2, 1, 2, 2), (2, 0, 2, 2)),
                ((1, 0, 2, 2), (1, 1, 1, 2))]


@pytest.mark.parametrize("ishape,gshape,mode", [
    (i, g, m) for i, g in _EMPTY_GRIDS for m in ("nearest", "bilinear", "bicubic")
    if len(i) == 4 or m != "bicubic"])   # (bicubic is 2-d only)
def test_grid_sample_empty(ishape, gshape, mode):
    def run(L):
        x = L.zeros(ishape, dtype=L.float64, requires_grad=True)
        g = L.zeros(gshape, dtype=L.float64, requires_grad=True)
        try:
            y = L.nn.functional.grid_sample(x, g, mode=mode, align_corners=False)
            y.sum().backward()
        except RuntimeError as exc:
            return str(exc)
        return tuple(y.shape), tuple(x.grad.shape), tuple(g.grad.shape)
    same_on_both(run)


@pytest.mark.parametrize("size", [(0, 1, 2, 2), (0, 2, 3), (0, 1, 2, 2, 2)])
def test_affine_grid_empty_batch(size):
    def run(L):
        theta_shape = {4: (0, 2, 3), 3: (0, 1, 2), 5: (0, 3, 4)}[len(size)]
        th = L.zeros(theta_shape, dtype=L.float64, requires_grad=True)
        try:
            gr = L.nn.functional.affine_grid(th, size, align_corners=False)
            gr.sum().backward()
        except RuntimeError as exc:
            return str(exc)
        return tuple(gr.shape), tuple(th.grad.shape)
    same_on_both(run)


# -- linear with in_features == 0 (or any zero leading dim): PyTorch folds the leading dims by
# their product, not -1 (a reshape with -1 fails on zero elements; seed 153) -----------------------
@pytest.mark.parametrize("xs,ws,dt", [((0,), (3, 0), None), ((2, 0), (3, 0), None),
                                      ((2, 4, 0), (3, 0), None), ((0,), (3, 0), "float64"),
                                      ((4, 0, 2), (3, 2), None), ((0, 2), (3, 2), None)])
def test_linear_zero_features(xs, ws, dt):
    def run(L):
        x = L.zeros(xs, dtype=getattr(L, dt) if dt else None, requires_grad=True)
        w = L.zeros(ws, requires_grad=True)
        b = L.ones(3, requires_grad=True)
        try:
            y = L.nn.functional.linear(x, w, b)
            y.sum().backward()
        except RuntimeError as exc:
            return str(exc)
        return (tuple(y.shape), type(y.grad_fn).__name__, y.detach().numpy().tolist(),
                tuple(x.grad.shape), b.grad.tolist())
    same_on_both(run)


# -- the in-place samplers' dtype checks (seed 153: geometric_ on bool filled where PyTorch's
# kernel refuses) ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name,args", [("geometric_", (0.3,)), ("geometric_", (1.5,)),
                                       ("exponential_", ()), ("cauchy_", ()),
                                       ("log_normal_", ()), ("bernoulli_", (0.5,)),
                                       ("uniform_", ()), ("normal_", ()), ("random_", ())])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64", "float16",
                                   "float32", "float64"])
def test_sampler_dtype_checks(name, args, dtype):
    def run(L):
        x = L.zeros(3, dtype=getattr(L, dtype))
        try:
            getattr(x, name)(*args)
        except (RuntimeError, NotImplementedError) as exc:
            return (type(exc).__name__, str(exc))
        return str(x.dtype)
    same_on_both(run)


# -- padding='same' with a kernel of size 0: C++'s truncating division (left 0, right -1) and
# the left crop by constant_pad_nd (seed 154) ------------------------------------------------------
@pytest.mark.parametrize("xs,ws,d", [((1, 3, 1), (1, 3, 0), 1), ((1, 3, 4), (1, 3, 0), 1),
                                     ((1, 3, 4), (1, 3, 0), 2), ((1, 3, 4), (2, 3, 2), 1),
                                     ((1, 3, 4), (2, 3, 4), 3), ((1, 3, 4, 5), (2, 3, 0, 2), 1),
                                     ((1, 3, 4, 5), (2, 3, 2, 3), (2, 1))])
def test_same_padding_kernel_sizes(xs, ws, d):
    def run(L):
        x = L.ones(xs, requires_grad=True)
        w = L.ones(ws, requires_grad=True)
        f = L.nn.functional.conv1d if len(xs) == 3 else L.nn.functional.conv2d
        try:
            y = f(x, w, padding="same", dilation=d)
            y.sum().backward()
        except RuntimeError as exc:
            return str(exc)
        return tuple(y.shape), y.sum().item(), tuple(x.grad.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_on_both(run)


# -- float16 var/std in float (ATen's accumulation type): squares above 65504 made inf
# (seed 155) ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["std", "var", "std_all", "var_mean", "std_mean", "var0"])
def test_half_variance_in_float(fn):
    data = [[449.5, 472.8, 16.16, 17.0], [1, 2, 3, 4], [300, 300, 300, 300]]

    def run(L):
        t = L.tensor(data, dtype=L.float16)
        out = {"std": lambda: t.std(1), "var": lambda: t.var(1), "std_all": lambda: t.std(),
               "var_mean": lambda: L.var_mean(t, 1)[0], "std_mean": lambda: L.std_mean(t)[0],
               "var0": lambda: t.var(1, correction=0)}[fn]()
        return str(out.numpy().tolist())
    same_on_both(run)


# -- max pooling where a window sees only padding (dilation past the input): -inf and an index
# past the plane; its gradient is zero, not NumPy's IndexError (fuzz seed 138, helper fz11) -----
@pytest.mark.parametrize("shape,k,s,p,d", [((1, 1, 1, 1), 2, 1, 1, 2), ((1, 1, 1), 2, 1, 1, 2),
                                           ((1, 1, 1, 1, 1), 2, 1, 1, 2),
                                           ((1, 1, 1, 3), 2, 1, 1, 2)])
def test_max_pool_window_of_padding(shape, k, s, p, d):
    def run(L):
        x = L.ones(shape).requires_grad_()
        f = {3: L.nn.functional.max_pool1d, 4: L.nn.functional.max_pool2d,
             5: L.nn.functional.max_pool3d}[len(shape)]
        try:
            y, i = f(x, k, s, p, d, ceil_mode=True, return_indices=True)
        except RuntimeError as exc:
            return str(exc)
        y.sum().backward()
        return (str(y.detach().numpy().tolist()), i.numpy().tolist(),
                x.grad.numpy().tolist())
    same_on_both(run)


# -- a built-in node that no gradient reaches still unpacks its saved values, as PyTorch's engine
# calls it: version errors and "backward through the graph a second time" there, and its saved
# values freed (seed 156: slogdet's sign output over an input changed in place) ------------------
@pytest.mark.parametrize("case", ["sign_over_inplace", "logabsdet_over_inplace",
                                  "sign_then_logabsdet", "twice_through_unreached",
                                  "retain_then_again", "grad_of_sign"])
def test_nodes_reached_without_gradients(case):
    def run(L):
        x = L.tensor([[2.0, 1.0], [0.5, 3.0]], dtype=L.float64, requires_grad=True)
        try:
            if case.endswith("over_inplace"):
                s, ld = L.linalg.slogdet(x)
                ld.div_(ld)
                y = x / ld
                out = L.linalg.slogdet(y)[0 if case.startswith("sign") else 1]
                out.backward()
            elif case == "sign_then_logabsdet":
                s, ld = L.linalg.slogdet(x.exp())
                s.backward()
                ld.backward()
            elif case == "twice_through_unreached":
                a = x.exp()
                s, ld = L.linalg.slogdet(a)
                (ld + s).backward()
                s.backward()
            elif case == "retain_then_again":
                s, ld = L.linalg.slogdet(x.exp())
                s.backward(retain_graph=True)
                ld.backward()
            else:
                s, ld = L.linalg.slogdet(x.exp())
                g = L.autograd.grad(s, x, allow_unused=True)
                return str(g)
        except RuntimeError as exc:
            return str(exc)[:80]
        return str(x.grad)
    same_on_both(run)
