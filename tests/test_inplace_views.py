"""In-place changes through views are differentiated through the base, as in PyTorch."""
from __future__ import annotations

from oracle import grad_fn_names, same_on_both


def test_inplace_on_a_view_of_a_non_leaf():
    def prog(t):
        x = t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = x * 2
        v = y[0]
        v.mul_(y[1].detach())
        w = y.t()[1]
        w.add_(x[0, :2] * 3)
        (y * y).sum().backward()
        return [y, x.grad, type(y.grad_fn).__name__, type(v.grad_fn).__name__,
                grad_fn_names(y), y._version]
    same_on_both(prog)


def test_view_of_a_constant_modified_with_a_tensor_that_requires_grad():
    def prog(t):
        a = t.ones(3)
        b = t.tensor([2.0, 3.0, 4.0], requires_grad=True)
        v = a[:2]
        v.mul_(b[:2])
        (a * t.tensor([1.0, 10.0, 100.0])).sum().backward()
        return [a, a.requires_grad, b.grad, grad_fn_names(a)]
    same_on_both(prog)


def test_stale_view_after_base_changed_in_place():
    # the old view's history must follow the base's new values, never the old ones
    def prog(t):
        x = t.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x * 2
        v = y[:2]
        y.mul_(3)
        (v * v).sum().backward()
        return [x.grad, type(v.grad_fn).__name__]
    same_on_both(prog)


def test_setitem_on_non_leaf():
    def prog(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = t.tensor(5.0, requires_grad=True)
        y = x * 1
        y[0] = s * 2
        y[1:] *= 4
        y.sum().backward()
        return [y, x.grad, s.grad]
    same_on_both(prog)


def test_view_inplace_errors():
    def multi(t):
        x = t.ones(4, requires_grad=True)
        a, b = (x * 1).split(2)
        b.mul_(2)
    def no_grad_view(t):
        y = t.ones(4, requires_grad=True) * 1
        with t.no_grad():
            v = y[:2]
        v.mul_(2)
    def leaf_view(t):
        x = t.ones(3, requires_grad=True)
        x[0] = 3
    def leaf_view_method(t):
        x = t.ones(3, requires_grad=True)
        x[:2].mul_(2)
    for prog in (multi, no_grad_view, leaf_view, leaf_view_method):
        assert same_on_both(prog)[0] == "error", prog.__name__


def test_views_under_no_grad_modified_under_no_grad_is_fine():
    def prog(t):
        x = t.ones(4, requires_grad=True)
        with t.no_grad():
            v = x[:2]
            v.mul_(2)
        (x * 1).sum().backward()
        return [x, x.grad, x._version]
    same_on_both(prog)


def test_retain_grad_follows_inplace():
    def prog(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.mul_(3)
        (y * y).sum().backward()
        return [y.grad, x.grad]
    same_on_both(prog)


def test_detach_shares_version_but_is_not_a_view():
    def prog(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        d = y.detach()
        d.zero_()
        return [d._base is None, y._version, d._version]
    same_on_both(prog)

    def detached_change_is_caught(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.detach().zero_()
        y.sum().backward()
    assert same_on_both(detached_change_is_caught)[0] == "error"

    def data_change_is_not(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.data.zero_()
        y.sum().backward()
        return x.grad
    same_on_both(data_change_is_not)


def test_copyslices_frees_its_op_and_second_backward_raises():
    def prog(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        w = t.tensor([3.0, 4.0], requires_grad=True)
        y = x * 1
        v = y.view(2)
        v.lerp_(w, 0.25)
        out = (y * 1).sum()
        out.backward(retain_graph=True)
        first = [x.grad.clone(), w.grad.clone()]
        y.sum().backward()
        y.sum().backward()
    assert same_on_both(prog)[0] == "error"

    def twice_mul(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        y[:1].mul_(x[:1])
        y.sum().backward()
        y.sum().backward()
    assert same_on_both(twice_mul)[0] == "error"
