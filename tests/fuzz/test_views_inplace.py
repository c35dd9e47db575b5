"""Views, in-place changes, version counters and the engine: regressions the fuzzer found.

Each test runs the same small program on leafgrad and on torch (``oracle.run_both``: values,
dtypes, exception types and messages) and needs them to agree.
"""
from __future__ import annotations

import warnings

import numpy as np

import pytest
import torch

import leafgrad
from oracle import run_both, same_on_both

torch.set_num_threads(1)
leafgrad.set_num_threads(1)   # both sides alike: some messages follow the thread count


# -- x[index] = value: PyTorch's copy_to and its overlap check (ops/overlap.py) -------------------
# copy_to drops *all* the value's leading size-1 dims when the shapes differ and expands the
# rest to the target: the expand's strides decide whether copy_ sees a full (allowed) or a
# partial (refused) overlap. Strides of size-1 dims count, as in PyTorch.
_SHAPES = [(1,), (1, 1), (1, 1, 1), (1, 2), (2, 1), (1, 1, 2), (1, 2, 1), (2, 1, 1), (3,),
           (2, 2), (1, 2, 2)]
_INDICES = [0, (0, 0), slice(None), slice(0, 1), (slice(None), 0), Ellipsis, (Ellipsis, 0),
            (None, 0), (0, None), (slice(None), None)]
_VALUES = {
    "x": lambda x: x,
    "unsqueeze": lambda x: x.unsqueeze(0),
    "t": lambda x: x.t() if x.dim() == 2 else x.reshape(1, -1),
    "flat": lambda x: x.reshape(-1),
    "view3": lambda x: x.view(1, 1, -1),
    "last1": lambda x: x[..., :1],
    "first": lambda x: x.flatten()[0:1],
    "expand": lambda x: x.expand(2, *x.shape),
    "sum": lambda x: x.sum(),
    "row_col": lambda x: x[0].unsqueeze(-1),
    "squeeze": lambda x: x.squeeze(),
    "none0": lambda x: x[None, 0],
    "slice1": lambda x: x[0:1],
}


def _setitem_outcome(L, shape, index, value):
    x = L.ones(shape) * 2
    try:
        x[index] = _VALUES[value](x)
    except Exception as exc:   # noqa: BLE001 - the error is the observation
        return type(exc).__name__, str(exc)
    return x.tolist(), x._version


@pytest.mark.parametrize("shape", _SHAPES, ids=str)
def test_setitem_overlapping_value_like_torch(shape):
    for index in _INDICES:
        for value in _VALUES:
            try:
                torch.ones(shape)[index]
                _VALUES[value](torch.ones(shape))
            except Exception:   # noqa: BLE001 - not a valid statement for this shape
                continue
            theirs = _setitem_outcome(torch, shape, index, value)
            assert _setitem_outcome(leafgrad, shape, index, value) == theirs, (index, value)


@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 1, 1), (1, 1, 3)], ids=str)
@pytest.mark.parametrize("requires_grad", [False, True])
def test_setitem_self_into_first_row(shape, requires_grad):
    # fuzz group "x[0] = x on a one-element tensor": allowed for (1,), refused for (1, 1)
    def run(L):
        x = L.ones(shape, requires_grad=requires_grad) * 2
        x[0] = x
        return x, x._version, type(x.grad_fn).__name__
    same_on_both(run)


@pytest.mark.parametrize("statement", [
    "x[0] = torch.ones(1, 2)", "x[0] = torch.ones(1, 1, 1, 2)", "x[0] = torch.ones(1, 1, 1, 3)",
    "x[[0]] = torch.ones(1, 1, 1, 2)", "x[[0]] = torch.ones(1, 1, 2)",
    "x[[0]] = torch.ones(2, 3)"])
def test_setitem_value_shape_messages(statement):
    # the messages name the value with all its leading size-1 dims dropped
    def run(L):
        env = {"torch": L, "x": L.ones(1, 1, 3)}
        exec(statement, env)   # noqa: S102 - a statement from the list above
        return env["x"]
    same_on_both(run)


@pytest.mark.parametrize("statement", [
    "x.add_(x.t())", "x.copy_(x.t())", "x[0:1].add_(x[None, 0])", "x[None, 0].mul_(x[0:1])",
    "x[0, None].copy_(x[None, 0])", "x[:, 0].add_(x[0:1, 0])"])
def test_inplace_overlap_compares_size1_strides(statement):
    # a (2, 1) tensor and its transpose are the same memory with the same strides: a full
    # overlap, so the output-shape check speaks; views with other size-1 strides overlap
    # partially (PyTorch compares all strides)
    def run(L):
        env = {"torch": L, "x": L.ones(2, 1) * 2}
        exec(statement, env)   # noqa: S102
        return env["x"]
    same_on_both(run)


# -- autograd.grad: which nodes run (and are freed) -------------------------------------------------
_CAPTURE_PROGRAMS = {
    # the wanted input is the output itself: its node does not run, so it is not freed
    "self_then_leaf": lambda L, x, g: (L.autograd.grad(y := x.clamp(min=-0.2), [y], g),
                                       L.autograd.grad(y, [x], g)),
    "inner_then_outer": lambda L, x, g: (L.autograd.grad(z := (y := x.exp()) * y, [y], g),
                                         L.autograd.grad(z, [x], g)),
    "inner_then_inner_node": lambda L, x, g: (L.autograd.grad(z := (y := x.exp()) * y, [y], g),
                                              L.autograd.grad(y, [x], g)),
    "two_roots": lambda L, x, g: (L.autograd.grad([y := x.exp(), y.sin()], [y], [g, g]),
                                  L.autograd.grad(y, [x], g)),
    "create_graph_twice": lambda L, x, g: (
        L.autograd.grad(y := x.clamp(min=-0.2), [y], g, create_graph=True, retain_graph=False),
        L.autograd.grad(y, [y], g, create_graph=True, retain_graph=False)),
}


@pytest.mark.parametrize("name", sorted(_CAPTURE_PROGRAMS))
def test_grad_of_a_non_leaf_runs_only_needed_nodes(name):
    def run(L):
        x = L.tensor([1.5, -2.0, 3.0], requires_grad=True)
        return _CAPTURE_PROGRAMS[name](L, x, L.ones(3))
    same_on_both(run)


def test_hooks_of_captured_nodes():
    # a node that does not run gets its tensor hooks (captured after them) but not its own
    # prehooks; a node that runs is captured before its tensor hooks
    def run(L):
        ran = []
        x = L.tensor([1.5, -2.0, 3.0], requires_grad=True)
        y = x * 1
        z = y.sin()
        w = z * 2
        for t in (y, z, w):
            t.grad_fn.register_prehook(lambda gs, t=t: ran.append(t.grad_fn.name()))
        y.register_hook(lambda g: g * 10)
        out = [L.autograd.grad(w, [z], L.ones(3), retain_graph=True),
               L.autograd.grad(w, [w, y], L.ones(3), retain_graph=True),
               L.autograd.grad(w, [y, x], L.ones(3), retain_graph=True),
               L.autograd.grad(w, [y], L.ones(3), retain_graph=True)]
        y.retain_grad()
        out.append(L.autograd.grad(w, [y, x], L.ones(3), retain_graph=True))
        return out, y.grad, ran
    same_on_both(run)


@pytest.mark.parametrize("op", ["max", "min", "median", "nanmedian", "kthvalue", "mode",
                                "cummax", "cummin", "embedding", "index_fill"])
def test_saved_index_tensors_are_freed(op):
    # PyTorch saves these ops' indices as tensors: a second backward without retain_graph fails
    calls = {
        "max": lambda L, x: x.max(0)[0], "min": lambda L, x: x.min(0)[0],
        "median": lambda L, x: x.median(0)[0], "nanmedian": lambda L, x: x.nanmedian(0)[0],
        "kthvalue": lambda L, x: x.kthvalue(1, 0)[0], "mode": lambda L, x: x.mode(0)[0],
        "cummax": lambda L, x: x.cummax(0)[0], "cummin": lambda L, x: x.cummin(0)[0],
        "embedding": lambda L, x: L.nn.functional.embedding(L.tensor([0]), x.reshape(-1, 1)),
        "index_fill": lambda L, x: x.index_fill(0, L.tensor([0]), 1.0)}

    def run(L):
        x = L.tensor([1.5, -2.0, 3.0, 0.5], requires_grad=True)
        y = calls[op](L, x).sum()
        y.backward()
        y.backward()
    same_on_both(run)


# -- version-counter errors ---------------------------------------------------------------------------
_INPLACE = {
    "pow_number": lambda L, y: y.pow_(2), "pow_tensor": lambda L, y: y.pow_(L.tensor(2.)),
    "masked_fill_number": lambda L, y: y.masked_fill_(y > 1.6, 2.),
    "masked_fill_tensor": lambda L, y: y.masked_fill_(y > 1.6, L.tensor(2.)),
    "clamp_number": lambda L, y: y.clamp_(min=0.),
    "clamp_tensor": lambda L, y: y.clamp_(min=L.tensor(0.)),
    "index_fill_tensor": lambda L, y: y.index_fill_(0, L.tensor([0]), L.tensor(1.)),
    "fill_number": lambda L, y: y.fill_(1.), "fill_tensor": lambda L, y: y.fill_(L.tensor(1.)),
    "lerp_tensor": lambda L, y: y.lerp_(L.ones(2), L.ones(2)), "zero": lambda L, y: y.zero_(),
}


@pytest.mark.parametrize("name", sorted(_INPLACE))
def test_version_error_names_the_overload(name):
    # "which is output 0 of Clamp1": PyTorch drops "Backward0" but keeps another overload number
    def run(L):
        y = L.tensor([1.5, 2.0], requires_grad=True) * 1
        w = y * y
        _INPLACE[name](L, y)
        w.sum().backward()
    same_on_both(run)


_DETACH = {
    "saved_input": lambda L, x: ((y := x * 1).sin(), y.detach_())[0],
    "saved_other": lambda L, x: (x * (y := x.exp()), y.detach_())[0],
    "saved_output": lambda L, x: ((y := x.exp()), y.detach_())[0],
    "detached_before_saving": lambda L, x: ((y := x * 1).detach_(), y.sin() * x)[1],
    "not_saved": lambda L, x: ((y := x * 1) + 1, y.detach_())[0],
    "both_sides": lambda L, x: ((y := x * 1) * y, y.detach_())[0],
}


@pytest.mark.parametrize("name", sorted(_DETACH))
def test_saved_tensor_detached_in_place(name):
    # a saved non-leaf detached in place since: PyTorch refuses to use it (not an output)
    def run(L):
        x = L.tensor([1.5, -2.0], requires_grad=True)
        out = _DETACH[name](L, x)
        out.sum().backward()
        return x.grad
    same_on_both(run)


# -- in-place changes of views autograd forbids changing ------------------------------------------
@pytest.mark.parametrize("base_requires_grad", [False, True])
@pytest.mark.parametrize("dtype", ["float", "long"])
@pytest.mark.parametrize("made_in_no_grad", [False, True])
@pytest.mark.parametrize("other_requires_grad", [False, True])
@pytest.mark.parametrize("op", ["mul_", "add_", "copy_", "zero_", "setitem"])
def test_multi_output_view_changed_in_place(base_requires_grad, dtype, made_in_no_grad,
                                            other_requires_grad, op):
    # refused as soon as any input requires grad (copy_: only into a float tensor); without a
    # history of its own the view "was created in no_grad mode", whatever made it
    def run(L):
        b = (L.ones(4, 1) * 3).to(getattr(L, dtype))
        if base_requires_grad and dtype == "float":
            b = b.requires_grad_() * 1
        if made_in_no_grad:
            with L.no_grad():
                v = b.split(2)[1]
        else:
            v = b.split(2)[1]
        o = L.ones(2, 1, requires_grad=other_requires_grad)
        if op == "zero_":
            v.zero_()
        elif op == "setitem":
            v[0] = o[0]
        else:
            getattr(v, op)(o)
        return v, v.requires_grad, type(v.grad_fn).__name__
    same_on_both(run)


_INT_HISTORY = {
    "setitem_tensor": lambda L, y, x: y.__setitem__(0, x), "setitem_number": lambda L, y, x:
    y.__setitem__(0, 3), "masked_fill_": lambda L, y, x: y.masked_fill_(y == 0, x),
    "add_": lambda L, y, x: y.add_(1), "mul_": lambda L, y, x: y.mul_(x),
    "masked_fill": lambda L, y, x: y.masked_fill(y == 0, x), "select": lambda L, y, x: y[0],
    "sum": lambda L, y, x: y.sum(), "float": lambda L, y, x: y.float(),
    "clone": lambda L, y, x: y.clone(), "add_float": lambda L, y, x: y + 1.5,
    "zero_": lambda L, y, x: y.zero_(), "fill_": lambda L, y, x: y.fill_(x),
    "view": lambda L, y, x: y.view(4), "index_put": lambda L, y, x: y.__setitem__([0], 3),
}


@pytest.mark.parametrize("name", sorted(_INT_HISTORY))
def test_integer_tensor_with_history(name):
    # masked_fill_ / fill_ / x[i] = 0-d give an integer tensor a history in PyTorch; any op then
    # recording a node on an integer output is refused ("Autograd not support dtype: Long")
    def run(L):
        x = L.tensor(2.5, requires_grad=True)
        y = L.zeros(2, 2).long()
        y.masked_fill_(y == 0, x)
        out = _INT_HISTORY[name](L, y, x)
        out = y if out is None else out
        return out, out.requires_grad, type(out.grad_fn).__name__, y._version
    same_on_both(run)


@pytest.mark.parametrize("statement", [
    "y = torch.zeros(2, 2).long(); y[0] = x", "y = torch.zeros(2, 2).long(); y[[0]] = x",
    "y = torch.zeros(2, 2).long(); y[0] = x[0]", "y = torch.zeros(2, 2); y[[0]] = x.double()",
    "y = torch.zeros(2, 2).bool(); y[:, [1]] = x[0]", "y = torch.zeros(2).long(); y.copy_(x)",
    "y = torch.zeros(2, 2).long(); y[0].copy_(x)"])
def test_setitem_and_copy_into_other_dtypes(statement):
    # index_put_ casts nothing; copy_ into an integer tensor records nothing; fill_ (a 0-d
    # value) records even there
    def run(L):
        env = {"torch": L, "x": L.ones(2, requires_grad=True)}
        exec(statement, env)   # noqa: S102
        y = env["y"]
        return y, y.requires_grad, type(y.grad_fn).__name__
    same_on_both(run)


# -- roots and inputs that are views whose base changed in place since ------------------------------
_STALE = {
    "root_select": lambda L, x: ((w := (v := x * 1)[0]), v.mul_(2), w.backward(), x.grad)[3],
    "grad_of_slice": lambda L, x: ((w := (v := x * 1)[0:2]), v.mul_(2),
                                   L.autograd.grad(w.sum(), [w, x]))[2],
    "input_used_before": lambda L, x: ((w := (v := x * 1)[0:2]), (o := w * 3), v.mul_(2),
                                       L.autograd.grad(o.sum(), [w, x]))[3],
    "split_input": lambda L, x: ((v := x * 1).split(2), v.mul_(2), L.autograd.grad(
        x.sum() * 1, [x, v.split(2)[0]], allow_unused=True))[2],
    "split_root": lambda L, x: ((ab := (v := x * 1).split(2)), v.mul_(2),
                                ab[1].backward(L.ones(1)))[2],
    "split_input_before_requires_grad_check": lambda L, x: (
        (ab := (v := x * 1).split(2)), (c := ab[1] * 1), v.mul_(2),
        L.autograd.grad(c.sum(), [x, ab[1], v.detach()]))[3],
}


@pytest.mark.parametrize("name", sorted(_STALE))
def test_stale_view_roots_and_inputs(name):
    # PyTorch reads each root's and input's gradient edge, regrowing a stale view's history
    # (AsStridedBackward0 through the CopySlices) or refusing a multi-output view
    def run(L):
        x = L.tensor([1., 2., 3.], requires_grad=True)
        return _STALE[name](L, x)
    same_on_both(run)


def test_is_leaf_of_a_stale_multi_output_view():
    # is_leaf reads grad_fn, which refuses a split output whose base changed in place
    def run(L):
        v = L.tensor([1., 2., 3.], requires_grad=True) * 1
        a, b = v.split(2)
        v.mul_(2)
        return b.requires_grad, b._version, b.is_leaf
    same_on_both(run)


@pytest.mark.parametrize("equation,shapes", [
    ("ij->ji", [(2, 3)]), ("ij->ij", [(2, 3)]), ("ii->i", [(3, 3)]),
    ("ij,jk->ik", [(2, 3), (3, 2)]), ("...i,...i->...", [(1, 2, 3, 2), (1, 2, 3, 2)]),
    ("ij,j->i", [(2, 3), (3,)])])
def test_einsum_result_is_a_view(equation, shapes):
    # PyTorch's einsum returns a view (of the operand, or of its bmm's output): changing it in
    # place goes through CopySlices, and a permutation's changes reach the operand
    def run(L):
        xs = [(L.arange(float(np.prod(s))).reshape(s) + 1).requires_grad_() for s in shapes]
        ys = [x * 1 for x in xs]
        y = L.einsum(equation, *ys)
        y.mul_(2)
        out = (y * y).sum()
        grads = L.autograd.grad(out, xs)
        with L.no_grad():
            z = L.einsum(equation, *ys)
        return (y, type(y.grad_fn).__name__, ys[0]._version, type(ys[0].grad_fn).__name__,
                grads, z.requires_grad, z._version)
    same_on_both(run)


@pytest.mark.parametrize("shapes", [((3,), (3, 2)), ((3,), (2, 3, 2)), ((2, 3), (3,)),
                                    ((3,), (3,)), ((2, 3), (3, 2)), ((1, 2, 3), (3,))])
def test_matmul_result_version(shapes):
    # 1-D @ 2-D is unsqueeze(0).mm(other).squeeze_(0) in PyTorch: the result is at version 1
    def run(L):
        a = L.ones(*shapes[0], requires_grad=True)
        y = a @ L.ones(*shapes[1])
        return y._version, type(y.grad_fn).__name__
    same_on_both(run)


@pytest.mark.parametrize("indices", [[], [0], [-1], [3], [1, 1], [0, 2], [-1, 3], 1, 2])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_tensor_split_views(indices, dim):
    # slices between the indices (negative ones wrapped), each a SliceBackward0 even when it
    # is the whole range
    def run(L):
        x = L.ones(2, 2, 1, requires_grad=True) * 1
        return [(o.shape, type(o.grad_fn).__name__) for o in L.tensor_split(x, indices, dim)]
    same_on_both(run)


@pytest.mark.parametrize("inputs", ["b", "y", "b_y", "y_sum", "y_times_2"])
def test_div_by_itself_in_place(inputs):
    # y.div_(y) saves y as other (then changed in place): PyTorch raises when DivBackward0 runs,
    # not when only y itself is wanted (its node does not run)
    def run(L):
        b = L.tensor([1.5, -2.0, 3.0], requires_grad=True)
        y = b.abs()
        y.div_(y)
        g = L.ones(3)
        return {"b": lambda: L.autograd.grad(y, [b], g),
                "y": lambda: L.autograd.grad(y, [y], g),
                "b_y": lambda: L.autograd.grad(y, [b, y], g),
                "y_sum": lambda: L.autograd.grad(y.sum(), [y]),
                "y_times_2": lambda: L.autograd.grad(y * 2, [y], g)}[inputs]()
    same_on_both(run)


@pytest.mark.parametrize("op", ["sigmoid_", "exp_", "tanh_", "relu_", "sqrt_"])
@pytest.mark.parametrize("later", ["setitem", "base_add", "other_view", "none", "view_gone"])
def test_saved_output_of_an_in_place_op_on_a_view(op, later):
    # the op saved its output, which is the view's storage (the base's version counter): a
    # later change of the view or its base is caught when the node runs; the message names
    # the view's node (AsStrided) while it lives, as PyTorch's weak reference does
    def run(L):
        x = L.tensor([1., 2., 3.], requires_grad=True)
        base = x * 1
        v = base[0:2]
        getattr(v, op)()
        with L.no_grad():
            if later == "setitem":
                v[0] = 5.
            elif later == "base_add":
                base.add_(1)
            elif later == "other_view":
                base[2:].mul_(2)
            elif later == "view_gone":
                del v
                base.add_(1)
        return L.autograd.grad(base.sum(), x)
    same_on_both(run)
