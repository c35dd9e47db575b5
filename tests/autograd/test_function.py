"""Custom ``autograd.Function``: each program runs on leafgrad and on PyTorch, outcomes compared."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
import torch
from oracle import grad_fn_names, same_on_both

import leafgrad


def _square(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return 2 * x * grad
    return Square


def _scale(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.k, None
    return Scale


def test_forward_backward_values_names_and_ctx():
    def prog(t):
        x = t.tensor([1.0, -2.0, 3.0], requires_grad=True)
        F = _square(t)
        y = F.apply(x)
        node = y.grad_fn
        info = [type(node).__name__, node.name(), y.requires_grad, y.is_leaf,
                node.saved_tensors[0] is x, node.needs_input_grad, repr(y), grad_fn_names(y)]
        y.sum().backward()
        return info + [x.grad]
    same_on_both(prog)


def test_ctx_is_the_node_and_forward_runs_without_grad():
    def prog(t):
        seen = []

        class F(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                seen.append(t.is_grad_enabled())
                ctx.marker = 5
                return (x * 2).requires_grad
            @staticmethod
            def backward(ctx, g):
                return g

        class G(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                seen.append(type(ctx).__name__)
                return x * 2
            @staticmethod
            def backward(ctx, g):
                seen.append(ctx.marker)
                return g * ctx.marker
        x = t.tensor([1.0, 2.0], requires_grad=True)
        seen.append(F.apply(x))
        y = G.apply(x)
        y.grad_fn.marker = 7
        y.sum().backward()
        return seen + [x.grad, y.grad_fn.marker]
    same_on_both(prog)


def test_non_tensor_arguments_and_needs_input_grad():
    def prog(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        c = t.tensor([3.0, 4.0])
        y = _scale(t).apply(x, 3.0)
        y.sum().backward()
        seen = []

        class Mix(t.autograd.Function):
            @staticmethod
            def forward(ctx, a, k, b):
                seen.append(ctx.needs_input_grad)
                return a * b * k
            @staticmethod
            def backward(ctx, g):
                return g, None, g
        z = Mix.apply(c, 2, x)
        z.sum().backward()
        return [x.grad, len(y.grad_fn.next_functions), grad_fn_names(z), seen]
    same_on_both(prog)


def test_no_graph_without_grad():
    def prog(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        F = _square(t)
        with t.no_grad():
            a = F.apply(x)
        b = F.apply(t.tensor([1.0, 2.0]))
        return [a.requires_grad, a.grad_fn is None, b.requires_grad, b]
    same_on_both(prog)


def test_multiple_outputs_and_non_tensor_outputs():
    def prog(t):
        got = []

        class Split(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3, 7

            @staticmethod
            def backward(ctx, ga, gb, gc):
                got.append([ga, gb, gc])
                return ga * 2 + gb * 3
        x = t.tensor([1.0, 2.0], requires_grad=True)
        a, b, n = Split.apply(x)
        info = [a.output_nr, b.output_nr, a.grad_fn is b.grad_fn, n]
        b.sum().backward()   # a gets no gradient: materialized as zeros
        return info + got + [x.grad]
    same_on_both(prog)


def test_set_materialize_grads_false_passes_none():
    def prog(t):
        got = []

        class Two(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, ga, gb):
                got.append([ga is None, gb])
                return gb * 3
        x = t.tensor([1.0, 2.0], requires_grad=True)
        _, b = Two.apply(x)
        b.sum().backward()
        return got + [x.grad]
    same_on_both(prog)


def test_mark_non_differentiable():
    def prog(t):
        got = []

        class SortLike(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                idx = x * 0
                ctx.mark_non_differentiable(idx)
                return x * 2, idx

            @staticmethod
            def backward(ctx, g, gidx):
                got.append(gidx)
                return g * 2
        x = t.tensor([1.0, 2.0], requires_grad=True)
        v, i = SortLike.apply(x)
        info = [v.requires_grad, i.requires_grad, i.grad_fn is None]
        v.sum().backward()
        return info + got + [x.grad]
    same_on_both(prog)


def test_mark_dirty_in_place_forward():
    def prog(t):
        class Double_(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x = t.tensor([1.0, 2.0], requires_grad=True)
        w = x * 1
        r = Double_.apply(w)
        info = [r is w, w._version, grad_fn_names(w), w]
        w.sum().backward()
        plain = t.tensor([1.0, 2.0])
        p = Double_.apply(plain)
        return info + [x.grad, p is plain, plain._version]
    same_on_both(prog)


def test_mark_dirty_errors():
    def leaf(t):
        class D(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x
            @staticmethod
            def backward(ctx, g):
                return g
        return D.apply(t.tensor([1.0, 2.0], requires_grad=True))
    same_on_both(leaf)

    def not_returned(t):
        class D(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x * 1
            @staticmethod
            def backward(ctx, g):
                return g
        return D.apply(t.tensor([1.0, 2.0], requires_grad=True) * 1)
    same_on_both(not_returned)


def test_returning_an_input_gives_a_view():
    def prog(t):
        class Ident(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 10
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = Ident.apply(x)
        info = [y is x, y._base is x, grad_fn_names(y)]
        y.sum().backward()
        with t.no_grad():
            z = Ident.apply(x)
        plain = t.ones(2)
        p = Ident.apply(plain)
        p.add_(1)
        return info + [x.grad, z is x, z._base is None, z.requires_grad, p is plain,
                       p._base is plain, plain, plain._version]
    same_on_both(prog)


def test_saved_tensors_freed_after_backward():
    def access_after(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = _square(t).apply(x)
        y.sum().backward()
        return y.grad_fn.saved_tensors
    same_on_both(access_after)

    def backward_twice(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        s = _square(t).apply(x).sum()
        s.backward()
        s.backward()
    same_on_both(backward_twice)

    def nothing_saved_runs_twice(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        s = _scale(t).apply(x, 2.0).sum()
        s.backward()
        s.backward()
        return x.grad
    same_on_both(nothing_saved_runs_twice)

    def nothing_saved_still_freed(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = _scale(t).apply(x, 2.0)
        y.sum().backward()
        return y.grad_fn.saved_tensors
    same_on_both(nothing_saved_still_freed)

    def retained(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = _square(t).apply(x)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return [x.grad, y.grad_fn.saved_tensors[0] is x]
    same_on_both(retained)


def test_saved_output_and_intermediate():
    def prog(t):
        got = []

        class Exp(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                tmp = x * 2
                ctx.save_for_backward(y, tmp, None)
                return y

            @staticmethod
            def backward(ctx, g):
                y, tmp, nothing = ctx.saved_tensors
                got.append([y.requires_grad, type(y.grad_fn).__name__, tmp, nothing])
                return g * y
        x = t.tensor([0.0, 1.0], requires_grad=True)
        out = Exp.apply(x)
        info = [type(out.grad_fn.saved_tensors[0].grad_fn).__name__]
        out.sum().backward()
        return info + got + [x.grad]
    same_on_both(prog)


def test_version_counter_errors_on_saved_tensors():
    def saved_input(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        w = x.sigmoid()
        y = _square(t).apply(w)
        w.mul_(2)
        y.sum().backward()
    same_on_both(saved_input)

    def saved_output(t):
        class SO(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.save_for_backward(y)
                return y
            @staticmethod
            def backward(ctx, g):
                y, = ctx.saved_tensors
                return g * y
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = SO.apply(x)
        y.mul_(2)
        y.sum().backward()
    same_on_both(saved_output)

    def saved_leaf(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        c = t.tensor([1.0, 2.0])
        y = _square(t).apply(c) * x
        c.add_(1)
        y.sum().backward()
    same_on_both(saved_leaf)


def test_save_for_backward_rejects_non_tensors():
    def prog(t):
        class Bad(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(3)
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return g
        Bad.apply(t.tensor([1.0], requires_grad=True))
    same_on_both(prog)


def _returning(lib, make_grad, n_args=1):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, *rest):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return make_grad(lib, g)
    return F


@pytest.mark.parametrize("make_grad", [
    lambda t, g: (g, g),                    # one too many
    lambda t, g: (),                        # none
    lambda t, g: t.ones(3),                 # wrong shape
    lambda t, g: 3,                         # not a tensor
    lambda t, g: (g, None),                 # extra None: accepted
    lambda t, g: t.ones(4, 2),              # broadcast: summed back
    lambda t, g: None,                      # no gradient
], ids=["too-many", "none", "shape", "int", "extra-none", "broadcast", "None"])
def test_backward_return_checks(make_grad):
    def prog(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        _returning(t, make_grad).apply(x).sum().backward()
        return x.grad
    same_on_both(prog)


def test_backward_return_checks_with_non_tensor_args():
    def prog(t, grads):
        class F(t.autograd.Function):
            @staticmethod
            def forward(ctx, k, x, y):
                return x * k * y
            @staticmethod
            def backward(ctx, g):
                return grads(t, g)
        x = t.tensor([1.0, 2.0], requires_grad=True)
        F.apply(2, x, t.ones(2)).sum().backward()
        return x.grad
    same_on_both(lambda t: prog(t, lambda t, g: (None, t.ones(3), None)))
    same_on_both(lambda t: prog(t, lambda t, g: (g, g, None)))
    # a gradient for an input that needs none is dropped, whatever its shape
    same_on_both(lambda t: prog(t, lambda t, g: (None, g, t.ones(5))))
    same_on_both(lambda t: prog(t, lambda t, g: (None, g, 5)))


def test_new_style_setup_context():
    def prog(t):
        seen = []

        class Mul(t.autograd.Function):
            @staticmethod
            def forward(x, k=2.0):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, k = inputs
                seen.append([type(inputs).__name__, len(inputs), type(output).__name__])
                ctx.save_for_backward(x)
                ctx.k = k

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * ctx.k * x, None
        x = t.tensor([1.0, 2.0], requires_grad=True)
        Mul.apply(x).sum().backward()
        Mul.apply(x, k=3.0).sum().backward()
        return seen + [x.grad]
    same_on_both(prog)


def test_kwargs_to_old_style_forward():
    def prog(t):
        class K(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, scale=2.0):
                return x * scale
            @staticmethod
            def backward(ctx, g):
                return g
        x = t.tensor([1.0, 2.0], requires_grad=True)
        return [K.apply(x, scale=3.0), K.apply(x)]
    same_on_both(prog)


def test_double_backward_through_a_function():
    def prog(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = _square(t).apply(x).sum()
        g, = t.autograd.grad(y, x, create_graph=True)
        info = [g, grad_fn_names(g)]
        g2, = t.autograd.grad(g.sum(), x)
        return info + [g2]
    same_on_both(prog)


def test_once_differentiable():
    def make(t):
        class Once(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @t.autograd.function.once_differentiable
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g
        return Once

    def plain(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        g, = t.autograd.grad(make(t).apply(x).sum(), x, create_graph=True)
        return [g, g.requires_grad]
    same_on_both(plain)

    def twice(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        v = t.ones(2, requires_grad=True)
        g, = t.autograd.grad(make(t).apply(x), x, v, create_graph=True)
        info = [g.requires_grad, grad_fn_names(g)]
        try:
            g.sum().backward()
        except RuntimeError as e:
            info.append(str(e))
        return info
    same_on_both(twice)


def test_node_hooks_and_metadata():
    def prog(t):
        seen = []

        class Two(t.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x + y, x * y

            @staticmethod
            def backward(ctx, ga, gb):
                return ga, gb
        x = t.tensor([1.0, 2.0], requires_grad=True)
        a, b = Two.apply(x, x)
        a.grad_fn.register_hook(lambda gi, go: seen.append(("post", gi, go)))
        a.grad_fn.register_prehook(lambda go: seen.append(("pre", go)))
        (a + b).sum().backward()
        return seen + [x.grad, a.grad_fn.metadata]
    same_on_both(prog)


def test_errors_of_the_base_class():
    def no_forward(t):
        class C(t.autograd.Function):
            @staticmethod
            def backward(ctx, g):
                return g
        return C.apply(t.ones(1, requires_grad=True))
    same_on_both(no_forward)

    def no_backward(t):
        class C(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
        C.apply(t.ones(1, requires_grad=True)).sum().backward()
    same_on_both(no_backward)

    def legacy_call(t):
        class C(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
        with pytest.warns(DeprecationWarning):
            c = C()
        return c(t.ones(1))
    same_on_both(legacy_call)


def test_backward_class_and_module_names():
    for lib in (leafgrad, torch):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return g
        assert F._backward_cls.__name__ == "FBackward"
        assert F._backward_cls._forward_cls is F
        assert issubclass(F._backward_cls, lib.autograd.function.BackwardCFunction)
        assert issubclass(F._backward_cls, lib.autograd.function.FunctionCtx)
        assert repr(F.apply(lib.ones(1, requires_grad=True)).grad_fn).startswith(
            f"<{lib.__name__}.autograd.function.FBackward object at 0x")


def test_gradient_dtype_follows_the_input():
    def prog(t):
        class F(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return g.double()
        x = t.tensor([1.0, 2.0], requires_grad=True)
        F.apply(x).sum().backward()
        return x.grad
    same_on_both(prog)


def test_graph_is_collected():
    # The node holds its saved output as an array, not the output tensor: no reference cycle.
    class Exp(leafgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y
    gc.disable()
    try:
        x = leafgrad.tensor(np.ones(3), requires_grad=True)
        y = Exp.apply(x)
        ref = weakref.ref(y)
        node_ref = weakref.ref(y.grad_fn)
        del y
        assert ref() is None and node_ref() is None
    finally:
        gc.enable()
