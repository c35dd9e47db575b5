"""Issue 3 small gaps, each run as the same program on leafgrad and PyTorch 2.13: saved numbers
(``_saved_other`` of ``x * 3`` is a tensor, ``_saved_alpha`` a number), AccumulateGrad's name,
``Tensor.copy_``, and ``.grad`` under ``backward(create_graph=True)`` (CopyBackwards, leaf
gradients summed before hooks and accumulation)."""
from __future__ import annotations

import warnings

import pytest

from oracle import grad_fn_names, same_on_both


def _saved(node):
    """Every ``_saved_*`` attribute of a node: tensors as (dtype, values), the rest as is."""
    out = {}
    for name in sorted(a for a in dir(node) if a.startswith("_saved_")):
        value = getattr(node, name)
        if hasattr(value, "dtype"):
            value = (str(value.dtype).split(".")[-1], value.detach().tolist())
        out[name] = value
    return out


SAVED_EXPRS = [
    "x * 3", "x * 3.0", "3 * x", "x * True", "x.mul(y)", "t.mul(2, x)", "x / 3", "x / 3.0",
    "3 / x", "x.true_divide(2)", "x + 3", "x.add(2, alpha=2)", "x.add(y, alpha=2)", "x - 3",
    "x.sub(2, alpha=3)", "3 - x", "t.rsub(x, 2)", "x ** 3", "x ** 3.0", "3 ** x", "x.pow(0.5)",
    "t.clamp(x, 0, 1)", "t.clamp(x, min=0.7)", "x.clamp_min(0.7)", "t.where(x > 1, x, 0.0)",
    "t.lerp(x, y, 0.5)", "x.masked_fill(x > 1, 2.0)", "t.xlogy(x, 2)", "t.xlogy(2, x)",
    "(x * 1).mul_(2)", "(x * 1).add_(2, alpha=3)", "(x * 1).div_(2)", "t.maximum(x, y)",
    "t.nn.functional.elu(x, 0.5)", "t.nn.functional.selu(x)", "t.nn.functional.relu6(x)",
    "t.nn.functional.softplus(x, 2)", "t.nn.functional.leaky_relu(x, 0.2)",
    "t.nn.functional.hardtanh(x, 0.6, 0.9)", "t.nn.functional.smooth_l1_loss(x, y, beta=2)",
    "t.nn.functional.huber_loss(x, y, delta=2)", "t.nn.functional.elu(x * 1, inplace=True)",
    "t.nn.functional.selu(x * 1, inplace=True)",
]


@pytest.mark.parametrize("expr", SAVED_EXPRS)
def test_saved_values_read_back_as_in_pytorch(expr):
    def prog(t):
        x = t.tensor([0.75, 1.25, 1.5], dtype=t.float64, requires_grad=True)
        y = t.tensor([1.0, 0.5, 2.0], dtype=t.float64)
        r = eval(expr)
        return type(r.grad_fn).__name__, _saved(r.grad_fn)
    same_on_both(prog)


def test_saved_number_parameter_survives_backward():
    # a node that saved only numbers can run again, and still shows them
    def prog(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.add(2, alpha=3)
        y.sum().backward()
        y.sum().backward()
        return y.grad_fn._saved_alpha, x.grad
    same_on_both(prog)


def test_accumulate_grad_names():
    def prog(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        acc = (x * 2).grad_fn.next_functions[0][0]
        return (acc.name(), type(acc).__name__, repr(acc).split(" object at ")[0],
                acc.next_functions, acc.variable is x, (x * 2).grad_fn.name())
    same_on_both(prog)


def test_copy_():
    def prog(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = t.zeros(2, 3, dtype=t.float64)
        r = out.copy_(x * 2)
        r.sum().backward()
        return r is out, r, out._version, grad_fn_names(r), x.grad
    same_on_both(prog)

    def into_non_leaf(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        y.copy_(t.tensor([5.0, 6.0]))
        (y * y).sum().backward()
        return y, grad_fn_names(y), x.grad
    same_on_both(into_non_leaf)

    def casts_and_numbers(t):
        i = t.zeros(3, dtype=t.int64)
        i.copy_(t.tensor([1.7, -2.5, 3.0]))
        f = t.zeros(2).copy_(3)
        return i, f

    same_on_both(casts_and_numbers)
    same_on_both(lambda t: t.zeros(2, 3).copy_(t.ones(4)))
    same_on_both(lambda t: t.zeros(2, 3).copy_(t.ones(2, 2, 3)))
    same_on_both(lambda t: t.ones(2, requires_grad=True).copy_(t.zeros(2)))


def _create_graph_backward(prog):
    def run(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return prog(t)
    same_on_both(run)


def test_grad_under_create_graph_is_a_copy():
    def first_and_second(t):
        x = t.tensor([1.0, -2.0, 0.5], requires_grad=True)
        w = t.tensor([0.5, 1.5, 2.0], requires_grad=True)
        (x * w * x).sum().backward(create_graph=True)
        first = (x.grad, x.grad.is_leaf, x.grad.requires_grad, grad_fn_names(x.grad))
        (x * w * x).sum().backward(create_graph=True)
        return first, x.grad, grad_fn_names(x.grad)
    _create_graph_backward(first_and_second)

    def no_history(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.sum().backward(create_graph=True)
        (x * 2).sum().backward(create_graph=True)
        return x.grad, x.grad.grad_fn is None, x.grad.requires_grad
    _create_graph_backward(no_history)

    def retained(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        (y * y).sum().backward(create_graph=True)
        return y.grad, grad_fn_names(y.grad), grad_fn_names(x.grad)
    _create_graph_backward(retained)

    def double_backward_through_grad(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        (x ** 3).sum().backward(create_graph=True)
        g = x.grad
        x.grad = None
        g.sum().backward()
        return x.grad
    _create_graph_backward(double_backward_through_grad)


def test_leaf_hooks_run_once_on_the_summed_gradient():
    def prog(t):
        seen = []
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: seen.append(g.tolist()))
        x.register_post_accumulate_grad_hook(lambda p: seen.append(("post", p.grad.tolist())))
        (x * x + x).sum().backward()
        (x * 3 + x).sum().backward()
        return seen, x.grad
    same_on_both(prog)

    def doubling_hook(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: g * 2)
        y = (x * x).sum() + x.sum()
        return t.autograd.grad(y, x)
    same_on_both(doubling_hook)



DOUBLE_BACKWARD = {
    "mul": "x * w", "mul_number": "x * 3", "div": "x / w", "rdiv": "3 / x", "square": "x ** 2",
    "cube": "x ** 3", "pow_tensor": "x ** w", "rpow": "2 ** x", "exp": "x.exp()",
    "tanh": "x.tanh()", "sigmoid": "x.sigmoid()", "log": "x.log()", "sin": "x.sin()",
    "sqrt": "x.sqrt()", "matmul": "x @ w", "relu": "x.relu()", "softmax": "x.softmax(1)",
    "log_softmax": "x.log_softmax(1)", "log1p": "x.log1p()", "expm1": "x.expm1()",
    "atan": "x.atan()", "asin": "(x / 3).asin()", "tan": "x.tan()", "log2": "x.log2()",
    "log10": "x.log10()", "exp2": "x.exp2()", "erf": "x.erf()", "var": "x.var()",
    "silu": "t.nn.functional.silu(x)", "elu": "t.nn.functional.elu(x)",
    "mse": "t.nn.functional.mse_loss(x, w.detach())", "where": "t.where(x > 1, x, w)",
}


@pytest.mark.parametrize("name", sorted(DOUBLE_BACKWARD))
def test_double_backward_nodes_as_pytorch(name):
    """The graph of a gradient taken with create_graph=True has PyTorch's nodes (the Scalar
    overloads MulBackward1 / AddBackward1 / SubBackward1 where PyTorch's formulas use them)."""
    def prog(t):
        x = t.tensor([[0.6, 0.9, 1.2], [1.4, 0.7, 1.1], [0.8, 1.3, 0.95]], dtype=t.float64,
                     requires_grad=True)
        w = t.tensor([[0.2, 0.5, 0.9], [0.3, 0.1, 0.7], [0.6, 0.4, 0.8]], dtype=t.float64,
                     requires_grad=True)
        y = eval(DOUBLE_BACKWARD[name])
        gx, = t.autograd.grad(y.sum(), x, create_graph=True)
        ggx, = t.autograd.grad(gx.sum(), x)
        return grad_fn_names(gx), gx, ggx
    same_on_both(prog)


def test_next_functions_list_differentiable_inputs_only():
    def prog(t):
        x = t.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = t.tensor([0.5, 0.5, 0.5], requires_grad=True)
        nodes = [t.where(x > 0, x, y).grad_fn, x.masked_fill(x > 0, 1.0).grad_fn,
                 t.gather(x, 0, t.tensor([0, 1])).grad_fn,
                 t.clamp(x, t.zeros(3), t.ones(3)).grad_fn, t.cat([x, y]).grad_fn,
                 x.index_select(0, t.tensor([2])).grad_fn]
        return [[(type(f).__name__ if f is not None else None, nr)
                 for f, nr in node.next_functions] for node in nodes]
    same_on_both(prog)
