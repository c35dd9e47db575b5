"""Views and in-place changes, checked against PyTorch: double backward through CopySlices and
as_strided, x[i] = v as an in-place change of a view, views made under no_grad, and
``ctx.mark_dirty`` on a view (ops/views.py, ops/scatter.py, autograd/function.py)."""
from __future__ import annotations

import pytest
import torch

import leafgrad
from oracle import grad_fn_names, same_on_both

X = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]


def _names(t, g):
    return [type(g.grad_fn).__name__ if g.grad_fn is not None else None]


# -- double backward through an in-place change of a view (CopySlices) -------------------------
def _inplace_program(t, x):
    y = x * 1
    y[0].mul_(y[1].clone())                      # in-place op on a select view
    y.t()[1:3].mul_(x[:, 1:3].t() ** 2)          # on a slice of a transposed view
    y[2] = x[0] ** 2                             # setitem: copy_ into a view
    y[1, ::2] = 0.5                              # setitem: fill_ into a strided view
    y[:, [0, 3]] = x[:, [1, 2]] * 3              # setitem: index_put_ into a view
    return (y * y).sum()


def test_double_backward_through_copyslices():
    def prog(t):
        x = t.tensor(X, dtype=t.float64, requires_grad=True)
        out = _inplace_program(t, x)
        g, = t.autograd.grad(out, x, create_graph=True)
        (g * g).sum().backward()
        return [out, g, x.grad, g.requires_grad]
    same_on_both(prog)


def test_gradcheck_and_gradgradcheck_through_copyslices():
    for lib in (leafgrad, torch):
        x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
        f = lambda x, lib=lib: _inplace_program(lib, x)   # noqa: E731
        assert lib.autograd.gradcheck(f, (x,))
        assert lib.autograd.gradgradcheck(f, (x,))


def test_copyslices_of_a_constant_base_with_create_graph():
    # the base needs no gradient, the in-place op's other input does
    def prog(t):
        w = t.tensor([2.0, 3.0], requires_grad=True)
        a = t.ones(2, 3)
        a[:, 1].mul_(w ** 2)
        g, = t.autograd.grad((a * a).sum(), w, create_graph=True)
        h, = t.autograd.grad(g.sum(), w)
        return [a, g, h, a.requires_grad, type(a.grad_fn).__name__]
    same_on_both(prog)


def test_the_brief_example_raises_as_pytorch():
    # y[1] is saved by mul_ and then changed by the same in-place op: a version error
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        y = x * 1
        y[0].mul_(y[1])
        return t.autograd.grad(y.sum(), x, create_graph=True)
    assert same_on_both(prog)[0] == "error"


# -- as_strided ---------------------------------------------------------------------------------
@pytest.mark.parametrize("size,stride,offset,layout", [
    ((2, 2), (4, 1), 1, "c"),
    ((3, 2), (1, 1), 0, "c"),          # overlapping reads: gradients add up
    ((2, 3), (0, 1), 2, "c"),          # stride 0
    ((3, 2), (1, 3), 1, "t"),          # on a transposed (column-major) base
])
def test_as_strided_values_grads_and_double_backward(size, stride, offset, layout):
    def prog(t):
        x = t.arange(12.0, dtype=t.float64).reshape(3, 4).requires_grad_()
        base = x if layout == "c" else x.t()
        v = base.as_strided(size, stride, offset)
        g, = t.autograd.grad((v ** 3).sum(), x, create_graph=True)
        h, = t.autograd.grad((g * g).sum(), x)
        return [v, g, h, type(v.grad_fn).__name__, type(g.grad_fn).__name__]
    same_on_both(prog)


def test_as_strided_out_of_bounds_message():
    def prog(t):
        return t.ones(3, 4).as_strided((3, 3), (4, 1), 5)
    assert same_on_both(prog)[0] == "error"


def test_gradgradcheck_as_strided():
    x = leafgrad.randn(6, dtype=leafgrad.float64, requires_grad=True)
    assert leafgrad.autograd.gradgradcheck(lambda a: a.as_strided((3, 2), (1, 1)), (x,))


def test_inplace_on_view_of_a_column_major_base():
    # the base is a non-C-contiguous root: NumPy keeps x.t()'s layout in x.t() * 1
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        y = x.t() * 1
        y[1].mul_(2)
        y[:, 0] = 7.0
        (y * y).sum().backward()
        return [y, x.grad, grad_fn_names(y)]
    same_on_both(prog)


# -- x[index] = value: which node PyTorch records -----------------------------------------------
@pytest.mark.parametrize("shape,index,value", [
    ((), Ellipsis, 3.0), ((), (), 3.0), ((), Ellipsis, "t0"), ((3,), Ellipsis, 3.0),
    ((3,), Ellipsis, "t0"), ((1,), Ellipsis, "t1"), ((3,), Ellipsis, "t1"), ((3,), 0, 3.0),
    ((2, 3), (0, 1), 3.0), ((2, 3), (slice(1, None), [0]), 2.0), ((3,), [0, 1], 2.0),
    ((3,), None, 2.0),
])
def test_setitem_grad_fn_and_grads_match(shape, index, value):
    def prog(t):
        x = t.ones(shape, requires_grad=True)
        y = x * 2
        v = (t.tensor(4.0, requires_grad=True) if value == "t0" else
             t.tensor([4.0], requires_grad=True) if value == "t1" else value)
        y[index] = v
        (y * y).sum().backward()
        return [y, x.grad, v.grad if isinstance(v, t.Tensor) else None,
                type(y.grad_fn).__name__, y.grad_fn.name(), grad_fn_names(y)]
    same_on_both(prog)


def test_setitem_into_a_view_of_a_view():
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        y = x * 1
        v = y[1]
        v[1:3] = t.tensor([-1.0, -2.0], requires_grad=True) * x[0, :2]
        (y * y).sum().backward()
        return [y, x.grad, type(v.grad_fn).__name__, type(y.grad_fn).__name__, y._version,
                v._version]
    same_on_both(prog)


# -- views made under no_grad of a tensor that requires grad ------------------------------------
@pytest.mark.parametrize("leaf", [True, False])
def test_no_grad_view_requires_grad_but_gets_no_gradient(leaf):
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        y = x if leaf else x * 1
        with t.no_grad():
            v = y[0]
            u = y.view(12)
        out = (v * 2).sum() + (u * y.reshape(12)).sum()
        m = v * 3
        out.backward()
        return [v.requires_grad, v.is_leaf, v.grad_fn, v._version, u.requires_grad,
                m.requires_grad, [None if f is None else type(f).__name__
                                  for f, _ in m.grad_fn.next_functions],
                x.grad, v.grad]
    same_on_both(prog)


def test_no_grad_view_is_unused_in_autograd_grad():
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        with t.no_grad():
            v = x[0]
        return t.autograd.grad((v * 2).sum(), v)
    assert same_on_both(prog)[0] == "error"

    def allowed(t):
        x = t.tensor(X, requires_grad=True)
        with t.no_grad():
            v = x[0]
        return t.autograd.grad((v * 2).sum(), [v, x], allow_unused=True)
    same_on_both(allowed)


def test_no_grad_view_requires_grad_flag():
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        with t.no_grad():
            u = x[0]
            v = x[1]
            d = x.detach()[0]
        u.requires_grad_(False)
        v.requires_grad_(True)
        (v * 2).sum().backward()
        return [u.requires_grad, d.requires_grad, v.grad, x.grad]
    same_on_both(prog)


@pytest.mark.parametrize("case", ["direct_leaf", "direct", "chain", "indirect", "chain_indirect",
                                  "multi_chain", "multi_indirect", "setitem"])
def test_view_errors_match(case):
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        y = x * 1
        if case == "direct_leaf":
            with t.no_grad():
                v = x[0]
            v.mul_(2)
        elif case == "direct":
            with t.no_grad():
                v = y[0]
            v.add_(1)
        elif case == "chain":
            with t.no_grad():
                v = y[0]
            v.unsqueeze(0)[0][1:].mul_(2)
        elif case == "indirect":
            with t.no_grad():
                v = y[0]
                y[1].mul_(2)
            return v + 1
        elif case == "chain_indirect":
            with t.no_grad():
                v = y[0]
            w = v[1:]
            y.mul_(2)
            return w + 1
        elif case == "multi_chain":
            a, b = y.unbind(0)[:2]
            a[1:].mul_(2)
        elif case == "multi_indirect":
            a = y.unbind(0)[0]
            y.mul_(2)
            return a * 1
        elif case == "setitem":
            with t.no_grad():
                v = y[0]
            v[1] = 5.0
        return "no error"
    assert same_on_both(prog)[0] == "error"


def test_no_grad_view_changed_under_no_grad_then_used_without_grad():
    def prog(t):
        x = t.tensor(X, requires_grad=True)
        with t.no_grad():
            v = x[0]
            x[1].mul_(2)
            w = v + 1
        return [w, w.requires_grad, x._version, v._version]
    same_on_both(prog)


# -- ctx.mark_dirty on an input that is a view --------------------------------------------------
def _functions(t):
    class Scale(t.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.mark_dirty(a)
            ctx.save_for_backward(a.clone(), b)
            a.mul_(b)
            return a

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, (g * a).sum(0) if g.dim() > b.dim() else g * a

    class Both(t.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.mark_dirty(a)
            return a, a * 2

        @staticmethod
        def backward(ctx, g, h):
            return g + 2 * h
    return Scale, Both


def test_mark_dirty_on_a_view_rebases_the_base():
    def prog(t):
        Scale, _ = _functions(t)
        x = t.tensor(X, dtype=t.float64, requires_grad=True)
        w = t.tensor([1.5, -2.0, 0.5, 3.0], dtype=t.float64, requires_grad=True)
        y = x * 1
        v = y[1]
        out = Scale.apply(v, w)
        z = (y * y).sum()
        gx, gw = t.autograd.grad(z, (x, w), create_graph=True)
        (gx.sum() + (gw * gw).sum()).backward()
        return [out is v, type(v.grad_fn).__name__, type(y.grad_fn).__name__,
                [type(f).__name__ for f, _ in y.grad_fn.next_functions], y._version,
                v._version, y, gx, gw, x.grad, w.grad]
    same_on_both(prog)


def test_mark_dirty_on_a_view_of_a_constant():
    def prog(t):
        Scale, _ = _functions(t)
        c = t.ones(2, 4)
        w = t.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        Scale.apply(c[1], w)
        (c * c).sum().backward()
        return [c.requires_grad, type(c.grad_fn).__name__, w.grad]
    same_on_both(prog)


@pytest.mark.parametrize("case", ["leaf_view", "no_grad_view", "multi_view", "two_outputs"])
def test_mark_dirty_on_a_view_errors(case):
    def prog(t):
        Scale, Both = _functions(t)
        x = t.tensor(X, requires_grad=True)
        w = t.ones(4, requires_grad=True)
        y = x * 1
        if case == "leaf_view":
            Scale.apply(x[0], w)
        elif case == "no_grad_view":
            with t.no_grad():
                v = y[0]
            Scale.apply(v, w)
        elif case == "multi_view":
            Scale.apply(y.unbind(0)[0], w)
        else:
            Both.apply(y[0])
        return "no error"
    assert same_on_both(prog)[0] == "error"


def test_mark_dirty_on_a_view_under_no_grad():
    def prog(t):
        _, Both = _functions(t)
        x = t.tensor(X, requires_grad=True)
        y = x * 1
        with t.no_grad():
            a, b = Both.apply(y[0])
        return [a.grad_fn, type(y.grad_fn).__name__, y, a._version]
    same_on_both(prog)


# -- view node names --------------------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    "x.reshape(6, 4)", "x.transpose(0, 1).reshape(3, 2, 4)", "x[:, :2].reshape(2, 2, 2, 2)",
    "x[:, 0].reshape(8)", "x[:, 0].reshape(2, 2, 2)", "x.permute(2, 0, 1).reshape(4, 6)",
    "x[0].t().reshape(4, 3)", "x[:, :, ::2].reshape(6, 2)", "x.unsqueeze(0).reshape(2, 3, 4)",
    "x[..., -4:]", "x[None, ..., -1:]", "x[:, -100:]", "x[:, :100]", "x[:, 0:3]", "x[-2:]",
    "x[..., ::1]", "x[:]", "x[...]",
])
def test_view_grad_fn_names(expr):
    def prog(t):
        x = t.arange(24.0).reshape(2, 3, 4).requires_grad_()
        y = eval(expr)
        (y * y).sum().backward()
        return [y, type(y.grad_fn).__name__, y._base is not None, x.grad]
    same_on_both(prog)


def test_as_strided_on_a_view_counts_the_offset_from_the_storage_start():
    def prog(t):
        x = t.arange(8.0, requires_grad=True)
        y = x * 1
        v = y[2:]
        w = v.as_strided((2, 2), (1, 2), 3)
        u = t.as_strided(v, (3,), (1,))
        (w * w).sum().backward()
        return [w, u, w.storage_offset(), u.storage_offset(), type(w.grad_fn).__name__,
                x.grad]
    same_on_both(prog)


# -- what a second backward without retain_graph finds freed ------------------------------------
@pytest.mark.parametrize("case", ["index", "mask", "index_put", "setitem_index", "setitem_mask",
                                  "setitem_slice", "setitem_int", "setitem_all", "view_mul_"])
@pytest.mark.parametrize("retain", [False, True])
def test_second_backward_after_indexing_and_views(case, retain):
    def prog(t):
        x = t.tensor([0.5, 1.5, 2.5], requires_grad=True)
        v = t.tensor([3.0, 4.0], requires_grad=True)
        idx = t.tensor([0, 2])
        if case == "index":
            y = x[idx]
        elif case == "mask":
            y = x[x > 1]
        elif case == "index_put":
            y = x.index_put((idx,), v)
        else:
            y = x.clone()
            if case == "setitem_index":
                y[idx] = v
            elif case == "setitem_mask":
                y[t.tensor([True, False, True])] = v
            elif case == "setitem_slice":
                y[1:] = v
            elif case == "setitem_int":
                y[0] = 2.0
            elif case == "setitem_all":
                y[...] = 2.0
            else:
                y[:2].mul_(2)
        y.sum().backward(retain_graph=retain)
        y.sum().backward()
        return [x.grad, v.grad]
    same_on_both(prog)


def test_views_made_in_inference_mode_of_normal_tensors():
    def prog(t):
        x = t.ones(3, 2, requires_grad=True)
        y = x * 1
        z = t.ones(3)
        with t.inference_mode():
            v = y[0]
            u = y[2]
            u.mul_(2)
            q = z[0]
        (v * 2).sum().backward()
        q.mul_(2)
        return [v.requires_grad, v.is_leaf, v.is_inference(), v._version, u.is_inference(),
                u._version, q.is_inference(), q.requires_grad, x.grad, z]
    same_on_both(prog)

    def direct(t):
        y = t.ones(3, 2, requires_grad=True) * 1
        with t.inference_mode():
            v = y[0]
        v.mul_(2)
    assert same_on_both(direct)[0] == "error"

    def indirect(t):
        y = t.ones(3, 2, requires_grad=True) * 1
        with t.inference_mode():
            w = y[1]
        y.mul_(2)
        return w + 1
    assert same_on_both(indirect)[0] == "error"


def test_setitem_checks_and_integer_targets():
    def int_target(t):
        x = t.zeros(2, 3, dtype=t.int64)
        v = t.tensor([1.5, 2.5, 3.5], requires_grad=True)
        x[1] = v
        return [x, x.requires_grad, x.grad_fn]
    same_on_both(int_target)

    def shape_before_leaf(t):   # the value is expanded before copy_'s autograd check
        x = t.ones(2, 3, requires_grad=True)
        x[0] = t.ones(2, 3)
    assert same_on_both(shape_before_leaf)[0] == "error"

    def leaf_before_index_put_shape(t):
        x = t.ones(2, 3, requires_grad=True)
        x[t.tensor([0, 1])] = t.ones(4, 3)
    assert same_on_both(leaf_before_index_put_shape)[0] == "error"
