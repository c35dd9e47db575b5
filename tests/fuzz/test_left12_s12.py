"""Findings of earlier fuzz campaigns fixed by left12 in session 12 (issue 8)."""
from __future__ import annotations

import random

import numpy as np

import pytest
from oracle import same_on_both


# -- which node a version error names for the output an in-place op on a view saved: the view's
# regrown node while it lives, else the op's own. The op's node keeps its first edge (the view's
# history before the op) and CopySlices holds the op's node, so the view's node lives until a
# backward without retain_graph runs that CopySlices and frees it; something else holding the
# view's node (``keep = t * 1``) keeps it alive (fuzz seed 156 x5; seed 80's lead8 case 4) ----
def _named(L, case, retain):
    x = L.ones(3, requires_grad=True)
    b = x * 1
    v = b[0:2]
    keep = []
    if case == "inplace_again":
        v.tanh_()
        v.pow_(0.5)
    elif case == "base_changed":
        v.tanh_()
        b.mul_(2)
    elif case == "add_after":
        v.tanh_()
        v.add_(1)
    elif case == "view_deleted":
        v.tanh_()
        del v
        b.mul_(2)
        v = b
    elif case == "grad_fn_read":
        v.tanh_()
        b.mul_(2)
        _ = v.grad_fn
    elif case == "exp_twice":
        v.exp_()
        v.pow_(0.5)
        v.pow_(0.5)
    elif case == "kept":
        v.sigmoid_()
        keep.append(v * 1)
        v.mul_(2)
    elif case == "view_of_view":
        w = v[1:]
        w.exp_()
        v.sin_()
        w.mul_(2)
    elif case == "stale_then_inplace":   # the op reads the view's regrown node (old_value)
        v.relu_()
        b.sin_()
        v.sin_()
    elif case == "setitem":              # v[0] = ... keeps v's node through its first edge
        v.sigmoid_()
        v[0] = x[1] * 2
    elif case == "setitem_stale":
        v.tanh_()
        b.div_(x[2] + 1)
        v[0] = x[1] * 2
    elif case == "setitem_twice":
        b.sin_()
        v.sqrt_()
        v[0] = x[1] * 2
        v[0] = x[1] * 2
    else:   # two views
        v.sigmoid_()
        w = b[1:2]
        w.exp_()
        b.mul_(2)
    loss = b.sum() + v.sum()
    for k in keep:
        loss = loss + k.sum()
    out = []
    for _ in range(2):
        try:
            loss.backward(retain_graph=retain)
            out.append(x.grad)
        except RuntimeError as exc:
            out.append(str(exc))
    return out


@pytest.mark.parametrize("retain", [False, True])
@pytest.mark.parametrize("case", ["inplace_again", "base_changed", "add_after", "view_deleted",
                                  "grad_fn_read", "exp_twice", "kept", "view_of_view",
                                  "stale_then_inplace", "setitem", "setitem_stale",
                                  "setitem_twice", "two_views"])
def test_version_error_names_view_node(case, retain):
    same_on_both(lambda L: _named(L, case, retain))


_OPS = ["exp_", "tanh_", "sigmoid_", "mul2", "add1", "pow_", "sin_", "relu_", "div_", "set",
        "copy", "sqrt_", "clamp_"]


def _program(seed):
    r = random.Random(seed)
    steps = []
    nviews = 0
    for _ in range(r.randint(2, 7)):
        k = r.random()
        if k < 0.25 or nviews == 0:
            steps.append(("view", r.randint(-1, nviews - 1), r.choice(["row", "t", "slice",
                                                                        "flat"])))
            nviews += 1
        elif k < 0.7:
            steps.append(("op", r.randint(-1, nviews - 1), r.choice(_OPS)))
        elif k < 0.8:
            steps.append(("keep", r.randint(-1, nviews - 1),
                          r.choice(["mul", "clone", "view", "exp"])))
        elif k < 0.87:
            steps.append(("gradfn", r.randint(0, nviews - 1)))
        elif k < 0.94:
            steps.append(("del", r.randint(0, nviews - 1)))
        else:
            steps.append(("op", -1, r.choice(_OPS)))
    return (steps, r.choice([False, True]), r.choice(["base", "view", "both"]),
            r.choice([1, 1, 2, "grad"]))


def _run_program(L, steps, retain, target, times):
    x = L.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]], requires_grad=True)
    b = x * 1
    views, keeps, out = [], [], []
    for step in steps:
        s = b if step[1] < 0 else views[step[1]]
        if s is None:
            if step[0] == "view":
                views.append(None)
            continue
        try:
            if step[0] == "view":
                how = step[2]
                if how == "row":
                    v = s[0] if s.dim() > 1 else s[0:2]
                elif how == "t":
                    v = s.t() if s.dim() == 2 else s[1:]
                elif how == "slice":
                    v = s[1:]
                else:
                    v = s.view(-1) if s.is_contiguous() else s.unsqueeze(0)
                views.append(v)
            elif step[0] == "op":
                op = step[2]
                if op == "mul2":
                    s.mul_(2)
                elif op == "add1":
                    s.add_(1)
                elif op == "pow_":
                    s.pow_(0.5)
                elif op == "div_":
                    s.div_(x[0, 0] + 1)
                elif op == "set":
                    s[0] = x[1, 1] * 2
                elif op == "copy":
                    s.copy_(s.detach() * x[2, 2])
                elif op == "clamp_":
                    s.clamp_(0.2, 0.7)
                else:
                    getattr(s, op)()
            elif step[0] == "keep":
                how = step[2]
                keeps.append(s * 1 if how == "mul" else s.clone() if how == "clone"
                             else s.view(s.shape) if how == "view" else s.exp())
            elif step[0] == "gradfn":
                out.append(type(s.grad_fn).__name__)
            else:
                views[step[1]] = None
        except RuntimeError as exc:
            out.append(str(exc))
            if step[0] == "view":
                views.append(None)
    live = [v for v in views if v is not None]
    loss = b.sum() if target == "base" or not live else \
        live[-1].sum() if target == "view" else b.sum() + live[-1].sum()
    for k in keeps:
        loss = loss + k.sum()
    for _ in range(1 if times == 1 else 2):
        try:
            if times == "grad":
                g = L.autograd.grad(loss, [x], retain_graph=retain)[0]
            else:
                loss.backward(retain_graph=retain)
                g = x.grad
            out.append([round(float(v), 3) for v in g.flatten()])
        except RuntimeError as exc:
            out.append(str(exc))
    return out


@pytest.mark.parametrize("seed", range(160))
def test_views_inplace_programs(seed):
    """Random chains of views, views of views, in-place ops on them and their bases (saving
    their output or a clone of their input), nodes kept alive by other ops, deleted views,
    setitem, with and without retain_graph: same errors and gradients as PyTorch."""
    program = _program(seed)
    same_on_both(lambda L: _run_program(L, *program))


# -- normalization forwards as PyTorch's CPU kernels combine their statistics (fuzz seeds 151,
# 152, 154: a channel or group of one value left PyTorch's rounding residue where leafgrad gave
# 0). layer_norm: (x - mean) * rstd, then * gamma + beta fused (a bias alone: one fma of
# x - mean, rstd and beta); batch_norm: alpha = invstd * gamma, beta - mean * alpha fused, then
# x * alpha + that fused; group_norm with an affine: scale = rstd * gamma, -scale * mean + beta
# fused, then scale * x + that fused (rstd from the float variance in double). Bits compared
# where the statistics are exact (one value per row/channel/group, equal values) and for
# batch_norm in eval mode (given statistics) -----------------------------------------------
def _bits(t):
    return [float(v).hex() for v in t.detach().reshape(-1).tolist()]


def _norm_args(L, rng, shape, c, dtype, mode, equal=False):
    dt = getattr(L, dtype)
    x = rng.standard_normal(shape) * 3 + 0.7
    if equal:   # one value with few bits: the sums of the mean are exact in both
        x = np.full(shape, 1.375)
    w = L.tensor(rng.standard_normal(c), dtype=dt) if "w" in mode else None
    b = L.tensor(rng.standard_normal(c), dtype=dt) if "b" in mode else None
    return L.tensor(x, dtype=dt), w, b


_MODES = ["", "w", "b", "wb"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize("shape,equal", [((5, 1), False), ((2, 3, 1), False), ((4, 3), True),
                                         ((3, 7), True)])
def test_layer_norm_bits(dtype, mode, shape, equal):
    def run(L):
        x, w, b = _norm_args(L, np.random.default_rng(7), shape, shape[-1], dtype, mode, equal)
        y = L.nn.functional.layer_norm(x, (shape[-1],), w, b, eps=1e-5)
        return _bits(y), _bits(y * 1e12)
    same_on_both(run)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize("shape", [(1, 3), (1, 2, 1), (1, 4, 1, 1)])
def test_batch_norm_train_bits(dtype, mode, shape):
    def run(L):
        x, w, b = _norm_args(L, np.random.default_rng(3), shape, shape[1], dtype, mode)
        y = L.nn.functional.batch_norm(x, None, None, w, b, training=True)
        return _bits(y), _bits(y * 1e12)
    same_on_both(run)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize("shape", [(1, 3), (4, 3), (2, 3, 5), (3, 2, 4, 4), (6, 16)])
def test_batch_norm_eval_bits(dtype, mode, shape):
    def run(L):
        rng = np.random.default_rng(11)
        x, w, b = _norm_args(L, rng, shape, shape[1], dtype, mode)
        dt = getattr(L, dtype)
        rm = L.tensor(rng.standard_normal(shape[1]), dtype=dt)
        rv = L.tensor(rng.random(shape[1]) + 0.3, dtype=dt)
        y = L.nn.functional.batch_norm(x, rm, rv, w, b, training=False, eps=1e-3)
        return _bits(y)
    same_on_both(run)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize("shape,groups,equal", [((1, 3), 3, False), ((2, 4, 1), 4, False),
                                                ((2, 4), 2, True), ((2, 6, 3), 3, True),
                                                ((1, 4, 2, 2), 2, True)])
def test_group_norm_bits(dtype, mode, shape, groups, equal):
    def run(L):
        x, w, b = _norm_args(L, np.random.default_rng(5), shape, shape[1], dtype, mode, equal)
        y = L.nn.functional.group_norm(x, groups, w, b, eps=1e-5)
        return _bits(y), _bits(y * 1e12)
    same_on_both(run)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_norm_layers_one_value_residue_backward(dtype):
    """The fuzz's form: a later op amplifies the residue (here a division by a tiny value)."""
    def run(L):
        dt = getattr(L, dtype)
        x = L.tensor([[0.37], [1.9]], dtype=dt, requires_grad=True)
        w = L.tensor([1.3], dtype=dt, requires_grad=True)
        b = L.tensor([-0.2], dtype=dt, requires_grad=True)
        xs = x.reshape(1, 2)
        y = (L.nn.functional.batch_norm(xs, None, None, w.expand(2), b.expand(2), training=True)
             + L.nn.functional.group_norm(xs, 2, w.expand(2), b.expand(2)))
        z = (y - b * 2) * 1e15
        z.sum().backward()
        return _bits(z), x.grad, w.grad, b.grad
    same_on_both(run)


# -- views made under no_grad (and views of them, made either way) changed in place with grad
# mode on or off, through themselves, their view's base or the root: PyTorch's CreationMeta
# errors, or the change and its gradient (seed 155); an expanded view's own views written in
# place (NumPy refused its read-only memory a writable alias: a wrong overlap error) ----------
_CM_VIEWS = ["slice", "unbind", "split", "chunk", "t", "view", "detach", "diag", "expand",
             "select", "narrow", "unflatten"]


def _cm_view(t, how):
    if how == "slice":
        return t[0:2]
    if how in ("unbind", "split", "chunk"):
        return (t.unbind(0) if how == "unbind" else t.split(1, 0) if how == "split"
                else t.chunk(2, 0))[0]
    if how == "t":
        return t.t() if t.dim() == 2 else t[:]
    if how == "view":
        return t.view(t.shape)
    if how == "detach":
        return t.detach()
    if how == "diag":
        return t.diagonal() if t.dim() == 2 else t[1:]
    if how == "expand":
        return t.expand(t.shape)
    if how == "select":
        return t[0]
    if how == "narrow":
        return t.narrow(0, 0, 1)
    return t.unflatten(0, (1, t.shape[0]))


def _cm_program(L, base_rg, v1, m1, v2, m2, op, opmode, other_rg):
    def mode(m):
        return L.no_grad() if m == "no_grad" else L.enable_grad()
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=base_rg)
    b = x * 1 if base_rg else x.clone()
    out = []
    try:
        with mode(m1):
            a = _cm_view(b, v1)
        with mode(m2):
            c = _cm_view(a, v2)
        o = L.tensor(2.0, requires_grad=other_rg)
        with mode(opmode):
            if op == "mul_":
                c.mul_(o)
            elif op == "a_mul_":
                a.mul_(o)
            elif op == "b_mul_":
                b.mul_(o)
            elif op == "zero_":
                c.zero_()
            else:
                c[...] = o
        out += [c.requires_grad, type(c.grad_fn).__name__, a.requires_grad,
                type(a.grad_fn).__name__]
        s = c.sum() + a.sum() + b.sum()
        out.append(type(s.grad_fn).__name__)
        if s.requires_grad:
            s.backward()
            out.append(x.grad)
    except RuntimeError as exc:
        out.append(str(exc))
    return out


def _cm_cases(n, seed):
    r = random.Random(seed)
    for _ in range(n):
        yield (r.choice([True, False]), r.choice(_CM_VIEWS), r.choice(["grad", "no_grad"]),
               r.choice(_CM_VIEWS), r.choice(["grad", "no_grad"]),
               r.choice(["mul_", "a_mul_", "b_mul_", "zero_", "set"]),
               r.choice(["grad", "no_grad"]), r.choice([False, True]))


@pytest.mark.parametrize("case", list(_cm_cases(200, 155)))
def test_no_grad_views_changed_in_place(case):
    same_on_both(lambda L: _cm_program(L, *case))


@pytest.mark.parametrize("sub", ["diag", "row", "t", "col", "self", "unsqueeze"])
@pytest.mark.parametrize("shape", [(2, 2), (1, 3)])
def test_expanded_view_subviews_written(sub, shape):
    def run(L):
        b = L.arange(float(np.prod(shape))).reshape(shape)
        a = b.expand(2, shape[1]) if shape[0] == 1 else b.expand(b.shape)
        c = {"diag": lambda: a.diagonal(), "row": lambda: a[0], "t": lambda: a.t(),
             "col": lambda: a[:, 0], "self": lambda: a, "unsqueeze": lambda: a.unsqueeze(0)}[sub]()
        try:
            c.mul_(2)
        except RuntimeError as exc:
            return str(exc)
        return b, c
    same_on_both(run)


# -- F.bilinear as at::bilinear: inputs flattened to rows, one _trilinear (TrilinearBackward0,
# whose gradients are _trilinear again), reshaped back, the bias added (fuzz seed 142) --------
def _names(t, depth=5):
    out, stack = [], [(t.grad_fn, 0)]
    while stack:
        fn, d = stack.pop()
        if fn is None:
            out.append(None)
            continue
        out.append(type(fn).__name__)
        if d < depth:
            stack.extend((g, d + 1) for g, _ in reversed(fn.next_functions))
    return out


@pytest.mark.parametrize("xs,ys", [((2, 3), (2, 4)), ((1, 3), (1, 4)), ((2, 1, 3), (2, 1, 4)),
                                   ((3,), (4,)), ((0, 3), (0, 4))])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("rg", ["x", "w", "all"])
def test_bilinear_graph(xs, ys, bias, rg):
    def run(L):
        rng = np.random.default_rng(1)
        dt = L.float64
        x = L.tensor(rng.standard_normal(xs), dtype=dt, requires_grad=rg in ("x", "all"))
        y = L.tensor(rng.standard_normal(ys), dtype=dt, requires_grad=rg == "all")
        w = L.tensor(rng.standard_normal((2, xs[-1], ys[-1])), dtype=dt,
                     requires_grad=rg in ("w", "all"))
        b = L.tensor(rng.standard_normal(2), dtype=dt, requires_grad=True) if bias else None
        try:
            r = L.nn.functional.bilinear(x, y, w, b)
        except RuntimeError as exc:
            return str(exc)
        inputs = [t for t in (x, y, w) if t.requires_grad]
        gs = L.autograd.grad((r * r).sum(), inputs, create_graph=True)
        second = L.autograd.grad(sum(g.sum() for g in gs), inputs, allow_unused=True)
        return (_names(r), r, [_names(g) for g in gs], gs,
                [None if g is None else g for g in second])
    same_on_both(run)


# -- a view made under no_grad, viewed again and saved by an op, whose base then changes in place:
# PyTorch's unpack reads the saved view's grad_fn, which raises the CreationMeta error (not the
# version error); reading grad_fn under no_grad raises it too (fuzz seed 155) -----------------
@pytest.mark.parametrize("case", ["pool", "mul", "exp", "none", "gradfn_nograd", "gradfn",
                                  "unbind_saved", "retain"])
def test_saved_no_grad_view_of_view(case):
    def run(L):
        x = L.ones(2, requires_grad=True) * 1
        if case == "unbind_saved":
            u = x.unbind(0)[0].unsqueeze(0)
        else:
            with L.no_grad():
                v = x[0:1]
            u = v.unsqueeze(0)
        try:
            y = (L.nn.functional.max_pool1d(u, 1) if case == "pool" else u.exp()
                 if case == "exp" else u * 2 if case == "none" else u * u)
            x.mul_(2)
            if case == "gradfn_nograd":
                with L.no_grad():
                    return type(u.grad_fn).__name__
            if case == "gradfn":
                return type(u.grad_fn).__name__
            y.sum().backward(retain_graph=case == "retain")
            return "ok"
        except RuntimeError as exc:
            return str(exc)
    same_on_both(run)


# -- group_norm of a float16 input with a float32 weight: PyTorch's mixed-type forward saves mean
# and rstd in float32, so the gradients are float32 and the engine casts the input's back to
# float16 (ToCopyBackward0 under create_graph; fuzz seed 138) -----------------------------------
@pytest.mark.parametrize("shape,groups", [((2, 4, 3), 2), ((1, 2), 1), ((2, 2, 2), 2),
                                          ((1, 6, 2), 3)])
@pytest.mark.parametrize("wb", ["w", "wb"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_group_norm_mixed_types(shape, groups, wb, create_graph):
    def run(L):
        rng = np.random.default_rng(2)
        x = L.tensor(rng.standard_normal(shape), dtype=L.float16, requires_grad=True)
        c = shape[1]
        w = L.tensor(rng.standard_normal(c), dtype=L.float32, requires_grad=True)
        b = L.tensor(rng.standard_normal(c), dtype=L.float32, requires_grad=True) \
            if "b" in wb else None
        y = L.nn.functional.group_norm(x, groups, w, b)
        inputs = [t for t in (x, w, b) if t is not None]
        gs = L.autograd.grad((y.float() ** 2).sum(), inputs, create_graph=create_graph)
        # (the input's gradient cancels in float16: compared to 0.01)
        out = [y, [(g.dtype, type(g.grad_fn).__name__) for g in gs],
               [round(float(v), 2) for v in gs[0].reshape(-1).tolist()],
               [g.float() for g in gs[1:]]]
        if create_graph:   # (float16 rounding noise of ~1e-4 relative: compared to 0.1)
            g2 = L.autograd.grad(gs[1].sum(), [w])[0]
            out.append((g2.dtype, [round(float(v), 1) for v in g2.tolist()]))
        return out
    same_on_both(run)
