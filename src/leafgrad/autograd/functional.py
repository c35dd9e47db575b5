"""``torch.autograd.functional``: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``vhp``, ``hvp``.

Everything is built on reverse mode (``autograd.grad``). ``jvp`` and ``hvp`` use the double
backward trick: the vector-Jacobian product ``u -> J^T u`` is linear in ``u``, so
differentiating it with respect to ``u`` (seeded by ``v``) gives ``J v``.

Inputs are taken as they are given: each is replaced by a fresh leaf (``detach()``) or, with
``create_graph``, by a view that keeps its history, so the results can be differentiated again.

>>> import leafgrad as torch
>>> from leafgrad.autograd.functional import jacobian, hessian
>>> x = torch.tensor([1.0, 2.0])
>>> jacobian(lambda t: t * t, x)
tensor([[2., 0.],
        [0., 4.]])
>>> hessian(lambda t: (t * t * t).sum(), x)
tensor([[ 6.,  0.],
        [ 0., 12.]])
"""
from __future__ import annotations

import numpy as np

from ..grad_mode import enable_grad, set_grad_enabled
from ..grad_mode import state as _mode
from ..tensor import Tensor, _wrap
from . import grad as _grad  # defined before autograd/__init__ imports this module

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


# -- argument handling -------------------------------------------------------------------

def _tensors(value, arg_name, fn_name):
    """(was it a tuple, the tensors as a tuple), with PyTorch's TypeError for non-tensors."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = (f"the value at index {i} has type {type(el)}" if is_tuple
                     else f"the given {arg_name} has type {type(el)}")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where}.")
    return is_tuple, items


def _prepare(tensors, create_graph, need_graph):
    """Fresh leaves (requiring grad if ``need_graph``), or views keeping history."""
    out = []
    for t in tensors:
        if create_graph and t._requires_grad:
            out.append(t.view(tuple(t._data.shape)))
        else:
            leaf = t.detach()
            leaf.requires_grad_(need_graph)
            out.append(leaf)
    return tuple(out)


def _finish(values, create_graph):
    """Results are detached unless a graph was asked for (nested tuples for jacobians)."""
    if isinstance(values[0], Tensor) or values[0] is None:
        return values if create_graph else tuple(v.detach() for v in values)
    return tuple(_finish(v, create_graph) for v in values)


def _unpack(result, was_tuple):
    """Undo the tupling: ``was_tuple`` is one flag, or (outer, inner) for jacobians."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(r[0] for r in result)
        return result if outer else result[0]
    return result if was_tuple else result[0]


def _check_v(v, others, others_tuple):
    if len(others) != len(v):
        if others_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(others)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, others)):
        if el_v._data.shape != el_other._data.shape:
            prefix = f"Entry {idx} in " if others_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {el_other.size()} but "
                               f"got {el_v.size()}.")


_STRICT_MESSAGES = {
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when running "
                "in strict mode."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs."),
}


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t._requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[kind].format(i=i))


def _vjp_of(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad; None where nothing flows."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    keep = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o._requires_grad]
    if not keep:
        return (None,) * len(inputs)
    return _grad(tuple(o for o, _ in keep), inputs, tuple(g for _, g in keep),
                 allow_unused=True, create_graph=create_graph, retain_graph=retain_graph)


_ZERO_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
                         "in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward mode "
                         "AD.",
}


def _zeros_like(t, requires_grad=False):
    z = _wrap(np.zeros(t._data.shape, t._data.dtype))
    z._requires_grad = requires_grad
    return z


def _fill_zeros(grads, refs, strict, create_graph, stage):
    """Missing gradients become zeros (or, in strict mode, PyTorch's errors)."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MESSAGES[stage].format(i=i))
            g = _zeros_like(refs[i])
        elif strict and create_graph and not g._requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        out.append(g)
    return tuple(out)


def _outputs_of(func, inputs, fn_name, strict):
    is_tuple, outputs = _tensors(func(*inputs), "outputs of the user-provided function",
                                 fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    return is_tuple, outputs


def _check_scalar_function(outputs, is_tuple, fn_name):
    if is_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0]._data.size != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")


def _v_or_default(v, others, others_tuple, create_graph, fn_name, none_message):
    if v is not None:
        _, v = _tensors(v, "v", fn_name)
        v = _prepare(v, create_graph, need_graph=False)
        _check_v(v, others, others_tuple)
        return v
    if len(others) != 1 or others[0]._data.size != 1:
        raise RuntimeError(none_message)
    return None


_V_FOR_INPUT = ("The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element.")


# -- the public functions ----------------------------------------------------------------

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(``func(inputs)``, ``v^T J``): the vector-Jacobian product at ``inputs``.

    >>> import leafgrad as torch
    >>> from leafgrad.autograd.functional import vjp
    >>> vjp(lambda x: x * x, torch.tensor([1.0, 3.0]), torch.tensor([1.0, 1.0]))
    (tensor([1., 9.]), tensor([2., 6.]))
    """
    with enable_grad():
        inputs_tuple, inputs = _tensors(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _outputs_of(func, inputs, "vjp", strict)
        v = _v_or_default(v, outputs, outputs_tuple, create_graph, "vjp",
                          "The vector v can only be None if the user-provided function returns "
                          "a single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else _mode.grad_enabled):
        grads = _vjp_of(outputs, inputs, v, create_graph=create_graph)
        result = _fill_zeros(grads, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(result, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(``func(inputs)``, ``J v``): the Jacobian-vector product, by the double backward trick.

    >>> import leafgrad as torch
    >>> from leafgrad.autograd.functional import jvp
    >>> jvp(lambda x: x * x, torch.tensor([1.0, 3.0]), torch.tensor([1.0, 0.5]))
    (tensor([1., 9.]), tensor([2., 3.]))
    """
    with enable_grad():
        inputs_tuple, inputs = _tensors(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _v_or_default(v, inputs, inputs_tuple, create_graph, "jvp", _V_FOR_INPUT)
        outputs_tuple, outputs = _outputs_of(func, inputs, "jvp", strict)
        # The vjp is linear in its seed, whose value therefore never matters: zeros.
        seeds = tuple(_zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _vjp_of(outputs, inputs, seeds, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else _mode.grad_enabled):
        grads = _vjp_of(grad_inputs, seeds, v, create_graph=create_graph)
        result = _fill_zeros(grads, outputs, strict, create_graph, "back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(result, create_graph), outputs_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: entry ``[i][j]`` has shape
    ``output_i.shape + input_j.shape`` (plain tensors when not given tuples).

    >>> import leafgrad as torch
    >>> from leafgrad.autograd.functional import jacobian
    >>> jacobian(lambda a, b: a * b, (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])))
    (tensor([[3., 0.],
            [0., 4.]]), tensor([[1., 0.],
            [0., 2.]]))
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        raise NotImplementedError("leafgrad has no forward-mode AD (it needs vmap): use "
                                  'jacobian(..., strategy="reverse-mode")')
    with enable_grad():
        inputs_tuple, inputs = _tensors(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _outputs_of(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or "
                "`vectorize=False`.")
        # vectorize=True only batches the same row-by-row products in PyTorch; the values are
        # the same, so the rows are computed one at a time here too.
        import leafgrad
        result = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = np.zeros(out._data.size, out._data.dtype)
            for j in range(flat.size):
                flat[:] = 0
                flat[j] = 1
                seed = _wrap(flat.reshape(out._data.shape).copy())
                grads = _vjp_of((out,), inputs, (seed,), create_graph=create_graph,
                                retain_graph=True)
                for k, (g, inp) in enumerate(zip(grads, inputs)):
                    if g is not None:
                        if strict and create_graph and not g._requires_grad:
                            raise RuntimeError(
                                "The jacobian of the user-provided function is independent of "
                                f"input {i}. This is not allowed in strict mode when "
                                "create_graph=True.")
                        rows[k].append(g)
                    else:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {k}. This is not allowed in strict mode.")
                        rows[k].append(_zeros_like(inp))
            result.append(tuple(
                _stack_rows(leafgrad, r, out, inp) for r, inp in zip(rows, inputs)))
        result = _finish(tuple(result), create_graph)
        return _unpack(result, (outputs_tuple, inputs_tuple))


def _stack_rows(lib, rows, out, inp):
    shape = tuple(out._data.shape) + tuple(inp._data.shape)
    if not rows:   # an output without elements
        return _wrap(np.zeros(shape, inp._data.dtype)).view(shape)
    return lib.stack(rows, 0).view(shape)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: entry ``[i][j]`` has shape
    ``input_i.shape + input_j.shape``.

    >>> import leafgrad as torch
    >>> from leafgrad.autograd.functional import hessian
    >>> hessian(lambda x: (x * x).sum(), torch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 2.]])
    """
    inputs_tuple, inputs = _tensors(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_function(*inp):
        out = func(*inp)
        is_tuple, outs = _tensors(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if is_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out._data.size != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jacobian_function(*inp):
        jac = jacobian(scalar_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(jacobian_function, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(result, (inputs_tuple, inputs_tuple))


def _scalar_gradient(func, inputs, v, create_graph, strict, name):
    """What vhp and hvp share: checked inputs and ``v``, the scalar output, and its gradient
    with a graph (so it can be differentiated again). Runs under enable_grad."""
    inputs_tuple, inputs = _tensors(inputs, "inputs", name)
    inputs = _prepare(inputs, create_graph, need_graph=True)
    v = _v_or_default(v, inputs, inputs_tuple, create_graph, name, _V_FOR_INPUT)
    outputs_tuple, outputs = _outputs_of(func, inputs, name, strict)
    _check_scalar_function(outputs, outputs_tuple, name)
    jac = _vjp_of(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(``func(inputs)``, ``v^T H``) for a scalar function.

    >>> import leafgrad as torch
    >>> from leafgrad.autograd.functional import vhp
    >>> vhp(lambda x: (x * x * x).sum(), torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
    (tensor(9.), tensor([ 6., 12.]))
    """
    with enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _scalar_gradient(
            func, inputs, v, create_graph, strict, "vhp")
    with set_grad_enabled(True if create_graph else _mode.grad_enabled):
        grads = _vjp_of(jac, inputs, v, create_graph=create_graph)
        result = _fill_zeros(grads, inputs, strict, create_graph, "double_back")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(result, create_graph), inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(``func(inputs)``, ``H v``) for a scalar function, by the double backward trick.

    >>> import leafgrad as torch
    >>> from leafgrad.autograd.functional import hvp
    >>> hvp(lambda x: (x * x * x).sum(), torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))
    (tensor(9.), tensor([6., 0.]))
    """
    with enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _scalar_gradient(
            func, inputs, v, create_graph, strict, "hvp")
        seeds = tuple(_zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _vjp_of(jac, inputs, seeds, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else _mode.grad_enabled):
        grads = _vjp_of(double_back, seeds, v, create_graph=create_graph)
        result = _fill_zeros(grads, inputs, strict, create_graph, "double_back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(result, create_graph), inputs_tuple))
