"""``gradcheck`` and ``gradgradcheck``: analytical gradients against finite differences.

For every input that requires grad and every differentiable output, the numerical Jacobian
comes from central differences (each element of the input's storage nudged by ``eps`` in
place, then restored) and the analytical one from ``autograd.grad`` with one unit seed per
output element. They must agree within ``atol + rtol * |numerical|``. The Jacobian of output
``i`` with respect to input ``j`` is a ``(numel(input j), numel(output i))`` tensor, printed
in the failure message as PyTorch prints it.

>>> import leafgrad as torch
>>> x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
>>> torch.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
True
>>> torch.autograd.gradgradcheck(lambda t: (t * t * t).sum(), (x,))
True

``fast_mode`` is accepted and runs the same (slow, exact) check; forward-mode and batched
checks need forward AD / vmap, which leafgrad does not have, and raise NotImplementedError.
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor, _wrap
from . import engine as _engine
from . import grad as _grad  # defined before autograd/__init__ imports this module

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


_NONDET_NOTE = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

_UNDEFINED_WARNING = (
    "Backwards compatibility: New undefined gradient support checking feature is enabled by "
    "default, but it may break existing callers of this function. If this is true for you, "
    'you can call this function with "check_undefined_grad=False" to disable the feature')


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _diff_inputs(inputs):
    """The inputs that require grad, looking inside nested sequences as PyTorch does."""
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            if x._requires_grad:
                out.append(x)
        elif isinstance(x, (list, tuple)):
            out.extend(_diff_inputs(x))
    return out


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _check_inputs(inputs) -> None:
    any_requires = False
    for idx, inp in enumerate(inputs):
        if isinstance(inp, Tensor) and inp._requires_grad:
            if inp._data.dtype != np.float64 and inp._data.dtype != np.complex128:
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating "
                    "point or complex. This check will likely fail if all the inputs are not of "
                    "double precision floating point or complex. ", UserWarning, stacklevel=4)
            if any(st == 0 and sz > 1
                   for st, sz in zip(inp._data.strides, inp._data.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck.")
            any_requires = True
    if not any_requires:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")


# -- numerical Jacobians -----------------------------------------------------------------

def _output_arrays(func, inputs):
    return [np.array(o._data, copy=True) if isinstance(o, Tensor) else None
            for o in _as_tuple(func(*inputs))]


def _check_same(a, b, idx, eps) -> None:
    if a.shape != b.shape:
        raise AssertionError(
            f"Expected `func` to return outputs with the same shape when inputs are perturbed "
            f"on index {idx} by {eps}, but got: shapes {_size(a.shape)} and {_size(b.shape)}.")
    if a.dtype != b.dtype:
        raise AssertionError(
            f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
            f"on index {idx} by {eps}, but got: dtypes {_dt.from_numpy_dtype(a.dtype)} and "
            f"{_dt.from_numpy_dtype(b.dtype)}.")


def _size(shape) -> str:
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


def _numerical_jacobians(func, inputs, outputs, eps):
    """``result[j][i]``: d output i / d input j (the j-th input requiring grad), as arrays.

    Each element of the input's array is changed in place (the tensor object the function
    receives is the caller's own, as PyTorch does through ``.data``), without a version bump.
    """
    result = []
    for inp in _diff_inputs(inputs):
        data = inp._data
        per_output = [np.zeros((data.size, o._data.size), o._data.dtype)
                      if isinstance(o, Tensor) and o._data.dtype.kind in "fc" else None
                      for o in outputs]
        for d_idx, idx in enumerate(np.ndindex(data.shape)):
            orig = data[idx].copy()
            try:
                data[idx] = orig - eps
                outa = _output_arrays(func, inputs)
                data[idx] = orig + eps
                outb = _output_arrays(func, inputs)
            finally:
                data[idx] = orig
            for k, (a, b) in enumerate(zip(outa, outb)):
                if per_output[k] is None:
                    continue
                _check_same(a, b, idx, eps)
                per_output[k][d_idx] = ((b - a) / (2 * eps)).reshape(-1)
        result.append(per_output)
    return result


# -- analytical Jacobians ----------------------------------------------------------------

def _analytical_rows(output, diff_inputs):
    """``rows[j][r]``: the gradient of input j for a unit seed at output element r."""
    flat = np.zeros(output._data.size, output._data.dtype)
    rows = [[] for _ in diff_inputs]
    for r in range(flat.size):
        flat[:] = 0
        flat[r] = 1
        seed = _wrap(flat.reshape(output._data.shape).copy())
        grads = _grad(output, diff_inputs, seed, retain_graph=True, allow_unused=True)
        for j, g in enumerate(grads):
            rows[j].append(None if g is None else np.array(g._data, copy=True))
    return rows


def _stack(rows, diff_inputs, numel_out):
    """Jacobians ``(numel(input), numel(output))`` in each input's dtype, and two checks."""
    jacobians = []
    sizes_ok = dtypes_ok = True
    for inp, cols in zip(diff_inputs, rows):
        jac = np.zeros((inp._data.size, numel_out), inp._data.dtype)
        for r, g in enumerate(cols):
            if g is None:
                continue
            if g.shape != inp._data.shape:
                sizes_ok = False
            elif g.dtype != inp._data.dtype:
                dtypes_ok = False
            jac[:, r] = g.reshape(-1)
        jacobians.append(jac)
    return jacobians, sizes_ok, dtypes_ok


def _analytical_jacobians(inputs, output, nondet_tol, check_grad_dtypes):
    diff_inputs = _diff_inputs(inputs)
    numel = output._data.size
    first, sizes_ok, dtypes_ok = _stack(_analytical_rows(output, diff_inputs), diff_inputs, numel)
    second, _, _ = _stack(_analytical_rows(output, diff_inputs), diff_inputs, numel)
    reentrant = all(a.size == 0 or np.abs(a - b).max() <= nondet_tol
                    for a, b in zip(first, second))
    # PyTorch 2.13 swaps its two flags here, so a wrong size reads as a dtype mismatch (only
    # with check_grad_dtypes) and a wrong dtype as a wrong size; kept for identical results.
    if not sizes_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not dtypes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            + _NONDET_NOTE)
    return first


def _allclose(a, n, rtol, atol) -> bool:
    dtype = np.promote_types(a.dtype, n.dtype)
    a = a.astype(dtype)
    n = n.astype(dtype)
    return bool(np.all(np.abs(a - n) <= atol + rtol * np.abs(n)))


def _mismatch(analytical, numerical, i, j) -> str:
    return (f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
            f"numerical:{_wrap(numerical)!r}\nanalytical:{_wrap(analytical)!r}\n")


def _slow_check(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                nondet_tol) -> None:
    func_out = _as_tuple(func_out)
    numerical = _numerical_jacobians(func, inputs, func_out, eps)
    if not outputs:
        # No differentiable output: the function must not depend on its inputs.
        for per_output in numerical:
            for jac in per_output:
                if jac is not None and np.count_nonzero(jac) > 0:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    # numerical[j][k] -> by output (only those requiring grad), then by input
    by_output = [[numerical[j][k] for j in range(len(numerical))]
                 for k, o in enumerate(func_out) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobians(inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, by_output[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch(a, n, i, j))


# -- checks run after the Jacobians ------------------------------------------------------

def _zeros_like(o):
    return _wrap(np.zeros(o._data.shape, o._data.dtype))


def _test_backward_mul_by_grad_output(outputs, inputs) -> None:
    diff_inputs = _diff_inputs(inputs)
    grads = _grad(outputs, diff_inputs, [_zeros_like(o) for o in outputs], allow_unused=True)
    for gi, di in zip(grads, diff_inputs):
        if gi is None:
            continue
        if np.any(gi._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi._data.dtype != di._data.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi._data.shape != di._data.shape:
            raise GradcheckError("grad is incorrect size")


def _test_undefined_grad(func, inputs) -> None:
    """Every backward must accept undefined (None) output gradients: zeros or None out."""
    diff_inputs = _diff_inputs(inputs)

    def check(outs, undefined):
        seeds = [None if k in undefined else _zeros_like(o) for k, o in enumerate(outs)]
        try:
            grads = _engine.execute(list(outs), seeds, False, False, inputs=diff_inputs,
                                    accumulate=False)
        except RuntimeError as e:
            warnings.warn(_UNDEFINED_WARNING, UserWarning, stacklevel=5)
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. Please look at "
                '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'
            ) from e
        for g in grads:
            if g is not None and np.any(g._data != 0):
                warnings.warn(_UNDEFINED_WARNING, UserWarning, stacklevel=5)
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads "
                    'are undefined or zero. Please look at "Notes about undefined output '
                    'gradients" in "tools/autograd/derivatives.yaml"')

    outs = [o for o in _differentiable_outputs(func(*inputs)) if isinstance(o, Tensor)]
    check(outs, set(range(len(outs))))
    if len(outs) > 1:
        for k in range(len(outs)):
            check(_differentiable_outputs(func(*inputs)), {k})


# -- public API ---------------------------------------------------------------------------

def gradcheck(func, inputs, *, eps: float = 1e-06, atol: float = 1e-05, rtol: float = 0.001,
              raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against finite differences.

    Returns True, or raises GradcheckError (returns False with ``raise_exception=False``).

    >>> import leafgrad as torch
    >>> x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(torch.exp, (x,))
    True
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    try:
        return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                          check_grad_dtypes, check_batched_grad, check_batched_forward_grad,
                          check_forward_ad, check_backward_ad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
               check_grad_dtypes, check_batched_grad, check_batched_forward_grad,
               check_forward_ad, check_backward_ad) -> bool:
    if check_forward_ad or check_batched_forward_grad:
        raise NotImplementedError("leafgrad has no forward-mode AD: gradcheck with "
                                  "check_forward_ad=True is not supported")
    if check_batched_grad:
        raise NotImplementedError("leafgrad has no vmap: gradcheck with check_batched_grad=True "
                                  "is not supported")
    tupled = _as_tuple(inputs)
    _check_inputs(tupled)
    func_out = func(*tupled)
    outputs = _differentiable_outputs(func_out)
    _slow_check(func, func_out, tupled, outputs, eps, rtol, atol, check_grad_dtypes,
                nondet_tol)
    if not check_backward_ad:
        return True
    _test_backward_mul_by_grad_output(outputs, tupled)
    if check_undefined_grad:
        _test_undefined_grad(func, tupled)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-06, atol: float = 1e-05,
                  rtol: float = 0.001, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """Check second derivatives: ``gradcheck`` of the vector-Jacobian product of ``func``.

    Without ``grad_outputs``, random ones (uniform in [-1, 1), requiring grad) are drawn.

    >>> import leafgrad as torch
    >>> x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradgradcheck(torch.sigmoid, (x,))
    True
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_rev_over_rev to be True")
    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*tupled))
        grad_outs = tuple(_random_grad_output(o) for o in outputs)
    else:
        grad_outs = _as_tuple(grad_outputs)
    n_out = len(grad_outs)
    diff_arg_idx = {i for i, x in enumerate(tupled) if isinstance(x, Tensor) and x._requires_grad}
    diff_go_idx = {i for i, x in enumerate(grad_outs) if x.requires_grad}

    def vjp(*args):
        in_args = tuple(x.requires_grad_() if i in diff_arg_idx else x
                        for i, x in enumerate(args[:-n_out]))
        outs = _differentiable_outputs(func(*in_args))
        gos = tuple(x.requires_grad_() if i in diff_go_idx else x
                    for i, x in enumerate(args[-n_out:]))
        diff_args = tuple(x for i, x in enumerate(in_args) if i in diff_arg_idx)
        grads = _grad(outs, diff_args, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(vjp, tupled + grad_outs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


def _random_grad_output(o):
    """A random gradient like ``torch.testing.make_tensor(low=-1, high=1)``, requiring grad."""
    # Imported here: leafgrad.random needs the op registry, which is still loading when the
    # autograd package (home of graph.py) is first imported.
    import leafgrad.random as random_module
    dtype = o._data.dtype if o._data.dtype.kind in "fc" else np.dtype(np.float64)
    data = _random_uniform(random_module, o._data.shape, dtype)
    t = _wrap(data)
    t._requires_grad = True
    return t


def _random_uniform(random_module, shape, dtype):
    """Uniform in [-1, 1) from the default generator, so ``manual_seed`` fixes it."""
    return random_module._uniform_array(shape, dtype, -1.0, 1.0)
