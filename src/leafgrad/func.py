"""``torch.func``'s reverse-mode transforms: ``grad``, ``grad_and_value``, ``vjp``, ``jacrev``,
``hessian`` (no ``vmap``: each Jacobian row is one backward pass).

Note [Nesting transforms]
A transform differentiates with respect to fresh copies of its inputs. When an input already
requires grad, because an outer transform is differentiating through this one
(``grad(grad(f))``), the copy is a view of it, so the inner result stays connected to the outer
graph and the inner backward runs with ``create_graph=True``; otherwise the copy is a detached
leaf and the result carries no graph, as PyTorch's results carry none at the outermost level.

>>> import leafgrad as torch
>>> from leafgrad.func import grad
>>> grad(lambda x: grad(lambda y: y.sin())(x))(torch.tensor(1.0))
tensor(-0.8415)
"""
from __future__ import annotations

from . import autograd
from .grad_mode import enable_grad
from .tensor import Tensor

__all__ = ["grad", "grad_and_value", "vjp", "jacrev", "hessian"]


def _argnums(argnums, n):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not isinstance(a, int) or not -n <= a < n:
            raise RuntimeError(f"Got argnums={argnums} but only {n} positional inputs")
    return tuple(a % n for a in nums)


def _track(t):
    """A fresh differentiable copy of ``t`` (see Note [Nesting transforms])."""
    if not isinstance(t, Tensor):
        raise RuntimeError(f"Expected tensors as the differentiated inputs, got "
                           f"{type(t).__name__}")
    if t.requires_grad:
        return t.view_as(t), True
    return t.detach().requires_grad_(), False


def _prepare(args, argnums):
    args = list(args)
    nums = _argnums(argnums, len(args))
    tracked, nested = [], False
    for i in nums:
        args[i], was_tracked = _track(args[i])
        tracked.append(args[i])
        nested = nested or was_tracked
    return args, tracked, nested


def _result(t, nested):
    return t if nested or not isinstance(t, Tensor) else t.detach()


def grad_and_value(func, argnums=0, has_aux=False):
    """``func``'s gradient with respect to ``args[argnums]``, and its value."""
    def wrapper(*args, **kwargs):
        with enable_grad():
            args, tracked, nested = _prepare(args, argnums)
            out = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should "
                                       "be a tuple: (output, aux) if has_aux is True")
                out, aux = out
            if not isinstance(out, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                    f"got tensor with {out.dim()} dims. Maybe you wanted to use the vjp or "
                    "jacrev APIs instead?")
            if out.requires_grad:
                grads = autograd.grad(out, tracked, create_graph=nested, allow_unused=True,
                                      materialize_grads=True)
            else:
                from .factories import zeros_like
                grads = tuple(zeros_like(t) for t in tracked)
        grads = tuple(_result(g, nested) for g in grads)
        g = grads[0] if isinstance(argnums, int) else grads
        value = _result(out, nested)
        if has_aux:
            aux = tuple(_result(a, nested) for a in aux) if isinstance(aux, tuple) \
                else _result(aux, nested)
            return g, (value, aux)
        return g, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function computing ``func``'s gradient with respect to ``args[argnums]``.

    >>> import leafgrad as torch
    >>> torch.func.grad(lambda x: (x ** 2).sum())(torch.tensor([1.0, 2.0]))
    tensor([2., 4.])
    """
    both = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``; ``vjp_fn(cotangents)`` returns one gradient per primal."""
    with enable_grad():
        args, tracked, nested = _prepare(primals, tuple(range(len(primals))))
        out = func(*args)
        aux = None
        if has_aux:
            out, aux = out
    outputs = out if isinstance(out, tuple) else (out,)

    def vjp_fn(*cotangents):
        cts = cotangents[0] if len(cotangents) == 1 and isinstance(cotangents[0], tuple) \
            else cotangents
        if len(cts) != len(outputs):
            raise RuntimeError(f"Expected {len(outputs)} cotangents, got {len(cts)}")
        create = nested or any(c.requires_grad for c in cts)
        pairs = [(o, c) for o, c in zip(outputs, cts) if o.requires_grad]
        if not pairs:
            from .factories import zeros_like
            return tuple(zeros_like(t) for t in tracked)
        with enable_grad():
            grads = autograd.grad([o for o, _ in pairs], tracked, [c for _, c in pairs],
                                  retain_graph=True, create_graph=create, allow_unused=True,
                                  materialize_grads=True)
        return tuple(g if create else g.detach() for g in grads)

    result = tuple(_result(o, nested) for o in outputs) if isinstance(out, tuple) \
        else _result(out, nested)
    if has_aux:
        return result, vjp_fn, aux
    return result, vjp_fn


def jacrev(func, argnums=0, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """A function computing ``func``'s Jacobian with respect to ``args[argnums]`` by reverse
    mode: one backward pass per output element."""
    def wrapper(*args, **kwargs):
        with enable_grad():
            args, tracked, nested = _prepare(args, argnums)
            out = func(*args, **kwargs)
            aux = None
            if has_aux:
                out, aux = out
            outputs = out if isinstance(out, tuple) else (out,)
            jacobians = []
            for o in outputs:
                per_input = _jacobian_of(o, tracked, nested)
                jacobians.append(per_input[0] if isinstance(argnums, int) else per_input)
        jac = tuple(jacobians) if isinstance(out, tuple) else jacobians[0]
        return (jac, aux) if has_aux else jac
    return wrapper


def _jacobian_of(out, inputs, nested):
    from .factories import zeros, zeros_like
    from . import stack
    n = out.numel()
    rows = [[] for _ in inputs]
    flat = out.reshape(-1)
    for k in range(n):
        if out.requires_grad:
            seed = zeros(n, dtype=out.dtype)
            seed[k] = 1
            grads = autograd.grad(flat, inputs, seed, retain_graph=True, create_graph=nested,
                                  allow_unused=True, materialize_grads=True)
        else:
            grads = tuple(zeros_like(t) for t in inputs)
        for r, g in zip(rows, grads):
            r.append(g if nested else g.detach())
    result = []
    for t, r in zip(inputs, rows):
        if r:
            jac = stack(r).reshape(tuple(out.shape) + tuple(t.shape))
        else:
            jac = zeros(tuple(out.shape) + tuple(t.shape), dtype=t.dtype)
        result.append(jac)
    return tuple(result)


def hessian(func, argnums=0):
    """``func``'s Hessian: the Jacobian of its gradient (``jacrev(jacrev(func))``)."""
    return jacrev(jacrev(func, argnums), argnums)
