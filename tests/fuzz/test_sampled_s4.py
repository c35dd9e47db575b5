"""Regressions found by the CI fuzz test's seeded programs (``sample_program``, issue 8),
each the smallest direct reproducer, run on leafgrad and torch by ``same_on_both``."""
from __future__ import annotations

import pytest

from oracle import same_on_both


def _nextafter_grads(L, same, dtype):
    x = L.tensor([0.5, 1.0, 1.0], dtype=getattr(L, dtype), requires_grad=True)
    other = x if same else L.tensor([0.5, 2.0, float("nan")], dtype=x.dtype)
    L.nextafter(x, other).sum().backward()
    return x.grad


@pytest.mark.parametrize("same", [True, False])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nextafter_has_no_gradient_where_self_equals_other(same, dtype):
    # nextafter(x, x) is x's own value: PyTorch's gradient is grad * (self != other)
    same_on_both(lambda L: _nextafter_grads(L, same, dtype))


def test_nextafter_double_backward():
    def program(L):
        x = L.tensor([0.5, 1.0], dtype=L.float64, requires_grad=True)
        y = L.nextafter(x, L.tensor([0.5, 3.0], dtype=L.float64))
        (g,) = L.autograd.grad((y * y).sum(), x, create_graph=True)
        return g, L.autograd.grad(g.sum(), x)[0]
    same_on_both(program)


_POW_CASES = {
    "tensor_tensor": lambda L: (L.tensor([0., 2., 3.], requires_grad=True),
                                L.tensor([1., 0., -2.], requires_grad=True)),
    "int_base_f64_exponent": lambda L: (L.tensor([0, 2, 3]),
                                        L.tensor([1., 0., -2.], dtype=L.float64,
                                                 requires_grad=True)),
    "f32_base_f64_exponent": lambda L: (L.tensor([0., 2., 3.], requires_grad=True),
                                        L.tensor([1., 0., -2.], dtype=L.float64,
                                                 requires_grad=True)),
    "zero_number_base": lambda L: (0.0, L.tensor([1., 0., -2.], requires_grad=True)),
    "number_base": lambda L: (2.0, L.tensor([1., 0., -2.], requires_grad=True)),
}


@pytest.mark.parametrize("case", sorted(_POW_CASES))
def test_pow_exponent_gradient_graph(case):
    # PyTorch's exponent gradient is grad * where(cond, 0, result * log(self)) (MulBackward0
    # over WhereBackward0, not a masked_fill), with self cast to the result's dtype first
    from oracle import grad_fn_names

    def program(L):
        base, exponent = _POW_CASES[case](L)
        wanted = [t for t in (base, exponent) if isinstance(t, L.Tensor) and t.requires_grad]
        grads = L.autograd.grad((base ** exponent).sum(), wanted, create_graph=True)
        return [(grad_fn_names(g), g) for g in grads]
    same_on_both(program)


@pytest.mark.parametrize("dtype", ["bool", "int64"])
@pytest.mark.parametrize("how", ["backward", "grad"])
def test_implicit_gradient_of_a_non_float_output_with_history(dtype, how):
    # masked_fill_ gives an integer/bool tensor a history; an implicit seed needs a float
    # output (CI fuzz seed 173)
    def program(L):
        v = L.tensor(1.0, requires_grad=True)
        y = L.zeros((), dtype=getattr(L, dtype)).masked_fill_(L.tensor(True), v)
        if how == "backward":
            y.backward()
            return v.grad
        return L.autograd.grad(y, v)
    same_on_both(program)


@pytest.mark.parametrize("shape", [(1, 2), (0, 2), (2, 0)])
def test_pdist_backward_of_half(shape):
    def program(L):
        x = L.ones(shape, dtype=L.float16, requires_grad=True)
        L.pdist(x).sum().backward()
        return x.grad
    same_on_both(program)


def test_std_gradient_is_zero_where_std_is_zero_even_for_infinite_grads():
    # PyTorch's std backward masks (grad / (2 std)) where std == 0: 0, not inf * 0 = NaN
    # (a division by a zero std sends an infinite gradient back; 10k fuzz run, seed 11)
    def program(L):
        x = L.tensor([1.5, 1.5], requires_grad=True)
        y = L.tensor([2.0]) / x.std()
        (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
        w = L.tensor([[1.5, 1.5], [1., 2.]], requires_grad=True)
        (h,) = L.autograd.grad((w.std(1) * L.tensor([float("inf"), 1.])).sum(), w,
                               create_graph=True)
        return g, h, L.autograd.grad(h.sum(), w)[0]
    same_on_both(program)


_TOPK_CASES = [
    ([2.0] * 4, 2, True, True), ([2.0] * 6, 3, True, True), ([2.0] * 6, 3, False, True),
    ([1.0, 2.0, 2.0, 1.0, 2.0, 1.0, 2.0], 4, True, True),
    ([1.0, 5.0, 3.0, 4.0, 2.0], 3, True, False),
    ([1.0, float("nan"), 1.0, float("nan"), 0.0], 3, True, True),
    ([1.0, float("nan"), 1.0, float("nan"), 0.0], 3, False, True),
    ([float(i % 3) for i in range(40)], 9, True, True),
    ([float(i % 5) for i in range(130)], 2, True, True),
    ([float(i % 4) for i in range(70)], 1, False, True), ([0.0, -0.0, 0.0, -0.0], 2, True, True),
]


@pytest.mark.parametrize("case", range(len(_TOPK_CASES)))
def test_topk_order_among_ties_and_unsorted(case):
    # PyTorch's topk leaves equal values (and sorted=False results) in the order its C++
    # selection (nth_element / partial_sort, then sort) moves them (10k fuzz run, seed 11)
    values, k, largest, srt = _TOPK_CASES[case]

    def program(L):
        x = L.tensor([values, values[::-1]], dtype=L.float64, requires_grad=True)
        v, i = x.topk(k, dim=1, largest=largest, sorted=srt)
        (v * L.arange(v.numel(), dtype=v.dtype).reshape(v.shape)).sum().backward()
        return i, x.grad
    same_on_both(program)


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_maximum_minimum_gradient_with_nan(name):
    # PyTorch: where(self == other, grad / 2, grad).masked_fill_(loses, 0): where a side is
    # NaN both get the whole gradient (10k fuzz run, seed 11)
    def program(L):
        nan = float("nan")
        a = L.tensor([nan, 1., nan, 2., 1.], requires_grad=True)
        b = L.tensor([1., nan, nan, 2., 3.], requires_grad=True)
        getattr(L, name)(a, b).backward(L.tensor([1., 2., 3., 4., 5.]))
        return a.grad, b.grad
    same_on_both(program)
