"""Semantics and values fuzz mismatches of session 6 (seed 15, and seed 14's leftovers), helper
sem6.

Each test runs the same statements on leafgrad and on torch (``oracle.same_on_both``) and
compares what they observe: values, dtypes, grad_fn names, and errors (type and text).
"""
from __future__ import annotations

import pytest
from oracle import same_on_both


def _backward(out):
    """``out.sum().backward()`` as an observation: None, or the error it raised."""
    try:
        out.sum().backward()
    except Exception as exc:   # noqa: BLE001 - the error is what is compared
        return exc
    return None


# -- what a node saves is what PyTorch's formula saves, so an in-place change of it is caught
# at backward (fuzz seed 15 #18: sgn saves its input and result though its real gradient is 0)
_SAVES = {
    "sgn": lambda L, a, b: L.sgn(a),
    "sign": lambda L, a, b: L.sign(a),
    "erfinv": lambda L, a, b: L.erfinv(a * 0.5),
    "frexp": lambda L, a, b: L.frexp(a),
    "ldexp_int": lambda L, a, b: L.ldexp(a, L.tensor([1, 2, -1])),
    "pow_const_exp": lambda L, a, b: L.pow(a, b.detach()),
    "pow_const_base": lambda L, a, b: L.pow(b.detach().abs(), a),
    "div_const": lambda L, a, b: L.div(b.detach(), a),
}


@pytest.mark.parametrize("case", sorted(_SAVES))
@pytest.mark.parametrize("change", ["input", "output0", "output1", "none"])
def test_saved_tensors_changed_in_place(case, change):
    def run(L):
        x = L.tensor([0.5, -1.5, 2.0], dtype=L.float64, requires_grad=True)
        y = L.tensor([1.0, 2.0, 0.5], dtype=L.float64, requires_grad=True)
        a, b = x * 1, y * 1
        outs = _SAVES[case](L, a, b)
        outs = list(outs) if isinstance(outs, tuple) else [outs]
        with L.no_grad():
            if change == "input":
                a.add_(1)
            elif change.startswith("output") and int(change[-1]) < len(outs):
                outs[int(change[-1])].add_(1)
        err = _backward(outs[0])
        return err, None if x.grad is None else x.grad.numpy(force=True).tolist()
    same_on_both(run)


def test_sgn_saved_after_div_():
    # the fuzz program: a float16 sum, sgn of it, then the sum divided in place
    def run(L):
        x = L.tensor([0.8276, 0.831, 0.664], dtype=L.float16, requires_grad=True)
        s = x.nansum(0, keepdim=True)
        t = s.sgn()
        s.div_(L.tensor(0.8413, dtype=L.float16))
        return _backward(t)
    same_on_both(run)


# -- pow's self gradient is grad * exponent * self ** (exponent - 1): PyTorch's ``exponent - 1``
# refuses a bool exponent at backward (fuzz seed 15 #11: x ** mask) -------------------------
_POW_BOOL = {
    "dunder": lambda L, x, m: x ** m,
    "function": lambda L, x, m: L.pow(x, m),
    "method_0d": lambda L, x, m: x.pow(m[0, 0]),
    "inplace": lambda L, x, m: (x * 1).pow_(m[:1]),
    "float64": lambda L, x, m: x.double() ** m,
    "int_exponent": lambda L, x, m: x ** m.int(),
    "bool_base": lambda L, x, m: m ** x,
    "float_power": lambda L, x, m: L.float_power(x, m),
}


@pytest.mark.parametrize("case", sorted(_POW_BOOL))
def test_pow_bool_exponent_backward(case):
    def run(L):
        x = L.tensor([[0.5, -1.5, 2.0]], requires_grad=True)
        m = L.tensor([[True, False, True], [False, False, True]])
        y = _POW_BOOL[case](L, x, m)
        return y, type(y.grad_fn).__name__, _backward(y), x.grad
    same_on_both(run)
