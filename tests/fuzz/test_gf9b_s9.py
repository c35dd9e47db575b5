"""Findings of session 9 fixed by helper gf9b: fuzz seed 210 (matrix_exp of empty inputs,
var_mean's Welford mean of non-finite data) and create_graph gradient graphs of pointwise ops."""
from __future__ import annotations

import warnings

import pytest
from oracle import same_on_both, grad_fn_names


def _show(x):
    """An inspectable, NaN-comparable view of a tensor."""
    return (str(x.dtype).split(".")[-1], tuple(x.shape), repr(x.detach().reshape(-1).tolist()))


# -- linalg.matrix_exp of an empty matrix or batch: an empty result (float16's path reshaped a
# size-0 array, seed 210) --------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64"])
@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
def test_matrix_exp_empty(dtype, shape):
    def run(L):
        x = L.zeros(shape, dtype=getattr(L, dtype))
        try:
            if x.is_floating_point():
                x.requires_grad_()
            r = L.linalg.matrix_exp(x)
            out = [_show(r), type(r.grad_fn).__name__, _show(L.matrix_exp(x.detach()))]
            if x.requires_grad:
                out.append(_show(L.autograd.grad(r.sum(), x)[0]))
            return out
        except Exception as exc:   # noqa: BLE001 - the error is the observation
            return (type(exc).__name__, str(exc))
    same_on_both(run)


# -- var_mean / std_mean: PyTorch's mean output is Welford's running mean: NaN once an infinite
# running mean meets a later element, so only a slice whose one non-finite value is an infinity
# in its last place has an infinite mean (seed 210) ------------------------------------------
INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_var_mean_non_finite(fn, dtype):
    rows = [[2.25, INF, INF], [2.25, 2.25, INF], [INF, INF, INF], [INF, 1.0], [1.0, -INF],
            [INF], [NAN], [1.0, NAN], [INF, -INF], [1.0, 2.0]]

    def run(L):
        out = []
        f = getattr(L, fn)
        for v in rows:
            x = L.tensor(v, dtype=getattr(L, dtype))
            for r in (f(x), f(x, 0), f(x.reshape(1, -1), 1, keepdim=True),
                      f(x.reshape(-1, 1), 0, correction=0)):
                out.append([_show(t) for t in r])
        x = L.tensor([[1.0, INF], [2.0, 3.0]], dtype=getattr(L, dtype))
        for r in (f(x, 0), f(x.t(), 1), f(x.t()), f(x, (0, 1)), f(x.t().expand(2, 2, 2), (0, 1)),
                  f(x.t().expand(2, 2, 2), (0, 2))):
            out.append([_show(t) for t in r])
        return out
    same_on_both(run)


# -- var / std / var_mean / std_mean of 1- and 2-element inputs, every correction: values,
# gradients and (create_graph) the gradient's graph: var_mean / std_mean add the mean's part to a
# promoted variance part and cast the sum (ToCopyBackward0 over AddBackward0) ----------------
@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_var_small_inputs(fn, dtype):
    def run(L):
        warnings.simplefilter("ignore")
        out = []
        for v in ([1.5], [1.5, 1.5], [1.0, 2.0]):
            for shape in ((-1,), (1, -1)):
                for dim, keepdim in ((None, False), (0, False), (-1, True)):
                    for correction in (0, 1, 2):
                        x = L.tensor(v, dtype=getattr(L, dtype)).reshape(shape).requires_grad_()
                        kw = {"correction": correction}
                        if dim is not None:
                            kw.update(dim=dim, keepdim=keepdim)
                        r = getattr(L, fn)(x, **kw)
                        outs = r if isinstance(r, tuple) else (r,)
                        seeds = [L.ones_like(o, requires_grad=True) for o in outs]
                        g = L.autograd.grad(outs, x, seeds, create_graph=True)[0]
                        out.append(([_show(o) for o in outs], _show(g), grad_fn_names(g)))
        return out
    same_on_both(run)
