"""Issue 2, point 5: the engine's rules, each run as the same program on leafgrad and PyTorch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import leafgrad
from oracle import clean_message, grad_fn_names, same_on_both


def test_requires_grad_only_for_float_dtypes():
    same_on_both(lambda t: t.tensor([1, 2], requires_grad=True))
    same_on_both(lambda t: t.tensor([1, 2]).requires_grad_())
    def setter(t):
        x = t.tensor([1, 2])
        x.requires_grad = True
    same_on_both(setter)
    same_on_both(lambda t: t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
                 .requires_grad)


def test_leaf_and_non_leaf():
    def prog(t):
        w = t.tensor(2.0, requires_grad=True)
        h = w.square()
        c = t.tensor(3.0)
        return [w.is_leaf, h.is_leaf, c.is_leaf, (c * 2).is_leaf, w.grad_fn is None,
                h.requires_grad, (c * 2).requires_grad, grad_fn_names(3 * h)]
    same_on_both(prog)


def test_accumulate_grad_node_is_shared_and_points_at_the_leaf():
    for lib in (leafgrad, torch):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        assert type(acc).__name__ == "AccumulateGrad"
        assert acc.variable is x
        assert (x * 3).grad_fn.next_functions[0][0] is acc
        assert y.grad_fn.next_functions[1] == (None, 0)


def test_accumulation_across_fresh_graphs_and_clearing():
    def prog(t):
        p = t.tensor(2.0, requires_grad=True)
        p.square().backward()
        first = p.grad.clone()
        p.square().backward()
        second = p.grad.clone()
        p.grad = None
        p.square().backward()
        return [first, second, p.grad]
    assert same_on_both(prog)[1][3] == 8.0


def test_grad_assignment_checks():
    def wrong_size(t):
        x = t.ones(2, requires_grad=True)
        x.grad = t.ones(3)
    def wrong_type(t):
        x = t.ones(2, requires_grad=True)
        x.grad = 3
    def ok(t):
        x = t.ones(2, requires_grad=True)
        x.grad = t.ones(2) * 5
        (x * 2).sum().backward()
        return x.grad
    same_on_both(wrong_size)
    same_on_both(wrong_type)
    same_on_both(ok)


def test_retain_grad_and_non_leaf_grad_warning():
    def prog(t):
        w = t.tensor(2.0, requires_grad=True)
        h = w.square()
        h.retain_grad()
        g = w * 5
        (3 * h + g).backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            missing = g.grad
        return [h.grad, h.retains_grad, g.retains_grad, missing,
                [clean_message(str(c.message)) for c in caught], w.grad]
    mine = same_on_both(prog)
    assert "is not a leaf Tensor" in mine[4][0]
    same_on_both(lambda t: t.ones(2).retain_grad())


def test_retain_grad_accumulates_over_two_backwards():
    def prog(t):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        h = w * 3
        h.retain_grad()
        out = (h * h).sum()
        out.backward(retain_graph=True)
        out.backward()
        return [h.grad, w.grad]
    same_on_both(prog)


def test_backward_with_gradient_seed_is_a_vjp():
    def prog(t):
        p = t.tensor(2.0, requires_grad=True)
        outputs = t.stack((p.square(), 3 * p))
        outputs.backward(t.tensor([1.0, 2.0]))
        return p.grad
    assert same_on_both(prog)[3] == 10.0


def test_autograd_grad_returns_and_does_not_touch_grad():
    def prog(t):
        p = t.tensor(2.0, requires_grad=True)
        outputs = t.stack((p.square(), 3 * p))
        d, = t.autograd.grad(outputs, p, grad_outputs=t.tensor([1.0, 2.0]))
        return [d, p.grad, d.requires_grad, d.grad_fn is None]
    same_on_both(prog)


def test_autograd_backward_function_and_inputs():
    def prog(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        b = t.tensor([3.0, 4.0], requires_grad=True)
        out = (a * b).sum()
        t.autograd.backward(out, inputs=[a])
        return [a.grad, b.grad]
    same_on_both(prog)

    def tensor_inputs(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        b = t.tensor([3.0, 4.0], requires_grad=True)
        mid = a * b
        (mid * mid).sum().backward(inputs=[b, mid])
        return [a.grad, b.grad]
    same_on_both(tensor_inputs)


def test_grad_of_intermediate_tensor():
    def prog(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        mid = a * 3
        out = (mid * mid).sum()
        g_mid, g_a = t.autograd.grad(out, [mid, a])
        return [g_mid, g_a, a.grad]
    same_on_both(prog)


def test_allow_unused_and_materialize_grads():
    def unused(t):
        a = t.tensor(1.0, requires_grad=True)
        b = t.tensor(1.0, requires_grad=True)
        return t.autograd.grad(a * 2, [a, b])
    same_on_both(unused)
    same_on_both(lambda t: t.autograd.grad(
        t.tensor(1.0, requires_grad=True) * 2,
        [t.tensor(1.0, requires_grad=True)], allow_unused=True))

    def materialize(t):
        a = t.tensor([1.0, 2.0], requires_grad=True)
        b = t.tensor([1.0, 2.0], requires_grad=True)
        return t.autograd.grad((a * 2).sum(), [a, b], materialize_grads=True)
    same_on_both(materialize)


def test_error_messages():
    def non_scalar(t):
        (t.ones(2, requires_grad=True) * 2).backward()
    def no_grad_fn(t):
        t.ones(2).sum().backward()
    def second_output_no_grad(t):
        x = t.ones(2, requires_grad=True)
        t.autograd.backward([x.sum(), t.ones(1).sum()])
    def seed_shape(t):
        (t.ones(2, requires_grad=True) * 2).backward(t.ones(3))
    def grad_no_grad_outputs(t):
        x = t.ones(2, requires_grad=True)
        t.autograd.grad(x * 2, x)
    def not_requiring(t):
        x = t.ones(2, requires_grad=True)
        t.autograd.grad((x * 2).sum(), t.ones(2))
    def empty_inputs(t):
        (t.ones(2, requires_grad=True) * 2).sum().backward(inputs=[])
    def detached(t):
        x = t.ones(2, requires_grad=True)
        (x * 2).detach().sum().backward()
    for prog in (non_scalar, no_grad_fn, second_output_no_grad, seed_shape,
                 grad_no_grad_outputs, not_requiring, empty_inputs, detached):
        result = same_on_both(prog)
        assert result[0] == "error", prog.__name__


def test_second_order_without_create_graph_has_no_grad_fn():
    def prog(t):
        x = t.tensor(2.0, requires_grad=True)
        g, = t.autograd.grad(x ** 3, x)
        return [g, g.requires_grad]
    assert same_on_both(prog)[1] is False

    def again(t):
        x = t.tensor(2.0, requires_grad=True)
        g, = t.autograd.grad(x ** 3, x)
        t.autograd.grad(g, x)
    assert same_on_both(again)[0] == "error"


def test_gradients_reduced_to_input_shape_and_cast_to_input_dtype():
    def prog(t):
        a = t.ones(3, 1, requires_grad=True)
        b = t.ones(4, dtype=t.float64, requires_grad=True)
        c = t.tensor(2.0, requires_grad=True)
        out = a * b * c
        out.sum().backward()
        return [out.dtype, a.grad, b.grad, c.grad]
    same_on_both(prog)


def test_fan_out_accumulates():
    def prog(t):
        x = t.tensor([1.0, -2.0], requires_grad=True)
        y = x * 2
        out = (y * y + y * 3 + x).sum()
        out.backward()
        return x.grad
    same_on_both(prog)


def test_non_differentiable_ops_have_no_grad_fn():
    def prog(t):
        x = t.tensor([1.0, -2.0], requires_grad=True)
        return [(x > 0).grad_fn is None, (x > 0).requires_grad, (x == x).dtype]
    same_on_both(prog)


def test_deep_chain_is_iterative():
    x = leafgrad.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.backward()
    assert x.grad.item() == 1.0


def test_backward_twice_errors_only_where_tensors_were_saved():
    def twice_exp(t):
        x = t.ones(2, requires_grad=True)
        y = x.exp().sum()
        y.backward()
        y.backward()
    def twice_add(t):
        x = t.ones(2, requires_grad=True)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        return x.grad
    def twice_scalar_mul(t):
        x = t.ones(2, requires_grad=True)
        y = (x * 2).sum()
        y.backward()
        y.backward()
        return x.grad
    def saved_after_free(t):
        x = t.ones(2, requires_grad=True)
        y = x.exp()
        before = y.grad_fn._saved_result
        y.sum().backward()
        return [before, y.grad_fn._saved_result]
    def retained(t):
        x = t.ones(2, requires_grad=True)
        y = x.exp().sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    assert same_on_both(twice_exp)[0] == "error"
    same_on_both(twice_add)
    same_on_both(twice_scalar_mul)
    assert same_on_both(saved_after_free)[0] == "error"
    same_on_both(retained)


def test_saved_result_is_the_output_with_its_grad_fn():
    for lib in (leafgrad, torch):
        x = lib.ones(2, requires_grad=True)
        y = x.exp()
        saved = y.grad_fn._saved_result
        assert saved.grad_fn is y.grad_fn
        assert saved.data_ptr() == y.data_ptr()


def test_version_counter_error_for_modified_saved_output():
    def prog(t):
        x = t.ones(2, requires_grad=True)
        y = x.sigmoid()
        y.mul_(2)
        y.sum().backward()
    def saved_input(t):
        x = t.ones(2, requires_grad=True)
        a = x + 1
        b = a * a
        a.add_(1)
        b.sum().backward()
    def constant_input(t):
        x = t.ones(2, requires_grad=True)
        c = t.ones(2)
        b = x * c
        c.add_(1)
        b.sum().backward()
    for p in (prog, saved_input, constant_input):
        assert same_on_both(p)[0] == "error", p.__name__


def test_inplace_on_leaf_requiring_grad():
    def prog(t):
        x = t.ones(2, requires_grad=True)
        x.add_(1)
    same_on_both(prog)

    def under_no_grad(t):
        x = t.ones(2, requires_grad=True)
        with t.no_grad():
            x.add_(1)
        return [x, x._version, x.requires_grad, x.is_leaf]
    same_on_both(under_no_grad)


def test_inplace_on_non_leaf_is_differentiated():
    def prog(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.mul_(y)
        y.add_(1)
        y.exp_()
        y.sum().backward()
        return [x.grad, grad_fn_names(y), y._version]
    same_on_both(prog)


def test_grads_do_not_alias_each_other_or_the_seed():
    def prog(t):
        a = t.zeros(2, requires_grad=True)
        b = t.zeros(2, requires_grad=True)
        seed = t.ones(2)
        (a + b).backward(seed)
        seed.mul_(10)
        a.grad.mul_(3)
        return [a.grad, b.grad, a.grad.data_ptr() == b.grad.data_ptr()]
    same_on_both(prog)

    def leaf_seed(t):
        a = t.zeros(2, requires_grad=True)
        seed = t.ones(2)
        a.backward(seed)
        seed.mul_(10)
        return a.grad
    same_on_both(leaf_seed)


def test_backward_inside_no_grad_uses_graph_built_outside():
    def prog(t):
        x = t.tensor(3.0, requires_grad=True)
        y = x * x
        with t.no_grad():
            y.backward()
        return x.grad
    same_on_both(prog)


def test_create_graph_gives_second_derivative():
    def prog(t):
        c = t.tensor(2.0, dtype=t.float64, requires_grad=True)
        first, = t.autograd.grad(c.pow(3), c, create_graph=True)
        second, = t.autograd.grad(first, c)
        return [first, second, first.grad_fn is not None]
    assert same_on_both(prog)[1][3] == 12.0


_WARN_ONCE = """
import sys, warnings
sys.path.insert(0, {src!r})
import {lib} as t
x = t.tensor(2.0, requires_grad=True)
counts = []
for _ in range(2):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (x ** 3).backward(create_graph=True)
    counts.append(sum("create a reference cycle" in str(w.message) for w in caught))
print(counts)
"""


def test_backward_create_graph_warns_once_per_process_as_pytorch():
    import os
    import subprocess
    import sys
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    outs = [subprocess.run([sys.executable, "-c", _WARN_ONCE.format(src=src, lib=lib)],
                           capture_output=True, text=True, check=True).stdout
            for lib in ("leafgrad", "torch")]
    assert outs[0] == outs[1] == "[1, 0]\n"


def test_backward_create_graph_grad_has_graph():
    for lib in (leafgrad, torch):
        x = lib.tensor(2.0, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x ** 3).backward(create_graph=True)
        assert x.grad.requires_grad
        g = x.grad
        x.grad = None
        g.backward()
        np.testing.assert_allclose(x.grad.item(), 12.0)


def test_integer_and_float_mix_promotes_and_backprops():
    def prog(t):
        w = t.tensor([0.5, 1.5], requires_grad=True)
        i = t.tensor([1, 2])
        out = (w * i + i).sum()
        out.backward()
        return [out, w.grad]
    same_on_both(prog)


def test_tensor_hooks_on_leaf_and_non_leaf():
    def prog(t):
        seen = []
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        hy = y.register_hook(lambda g: seen.append(("y", g.clone())) or g * 2)
        x.register_hook(lambda g: seen.append(("x", g.clone())))
        (y * y).sum().backward(retain_graph=True)
        hy.remove()
        first = x.grad.clone()
        (y * y).sum().backward()
        return [seen, first, x.grad]
    same_on_both(prog)


def test_hook_errors():
    same_on_both(lambda t: t.ones(2).register_hook(lambda g: g))

    def wrong_size(t):
        x = t.ones(2, requires_grad=True)
        x.register_hook(lambda g: t.ones(3))
        (x * 2).sum().backward()
    same_on_both(wrong_size)


def test_post_accumulate_grad_hook():
    def prog(t):
        seen = []
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.clone()))
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        return seen
    same_on_both(prog)
    same_on_both(lambda t: (t.ones(2, requires_grad=True) * 2)
                 .register_post_accumulate_grad_hook(lambda p: None))


def test_node_hooks():
    def prog(t):
        seen = []
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.grad_fn.register_prehook(lambda go: seen.append(("pre", go[0].clone())))
        y.grad_fn.register_hook(lambda gi, go: seen.append(("post", gi[0].clone())))
        y.sum().backward()
        return [seen, x.grad]
    same_on_both(prog)
