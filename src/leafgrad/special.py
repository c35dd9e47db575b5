"""``torch.special``: PyTorch's special-function namespace, as names for leafgrad's ops.

Each name resolves, on first use, to the leafgrad op PyTorch's function is an alias of
(``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``, ``psi`` is ``digamma``...), so
values, gradients and ``grad_fn`` names are those ops'. A name whose op leafgrad does not
have yet raises AttributeError, as any missing attribute does.

>>> import leafgrad as torch
>>> x = torch.tensor([0.0, 2.0], requires_grad=True)
>>> y = torch.special.expit(x)
>>> y.grad_fn.name()
'SigmoidBackward0'
>>> torch.special.gammaln(torch.tensor([4.0]))
tensor([1.7918])
"""
from __future__ import annotations

import sys

from .ops import registry

# torch.special name -> the leafgrad (torch.*) op it stands for; the op may also be
# registered under its ATen name ``special_<name>``, tried second.
_ALIASES = {
    "expit": "sigmoid", "logit": "logit", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv",
    "erfcx": "erfcx", "exp2": "exp2", "expm1": "expm1", "log1p": "log1p", "round": "round",
    "log_softmax": "log_softmax", "softmax": "softmax", "logsumexp": "logsumexp",
    "xlogy": "xlogy", "xlog1py": "xlog1py", "sinc": "sinc", "gammaln": "lgamma",
    "digamma": "digamma", "psi": "digamma", "polygamma": "polygamma",
    "multigammaln": "mvlgamma", "entr": "entr", "ndtr": "ndtr", "ndtri": "ndtri",
    "log_ndtr": "log_ndtr", "i0": "i0", "i0e": "i0e", "i1": "i1", "i1e": "i1e",
    "zeta": "zeta", "gammainc": "igamma", "gammaincc": "igammac",
}


def round(input, *, decimals: int = 0, out=None):
    """``torch.special.round``: always the ``decimals`` overload (``RoundBackward1``)."""
    root = sys.modules[__name__.rsplit(".", 1)[0]]
    if out is not None:
        return root.round(input, decimals=decimals, out=out)
    return root.round(input, decimals=decimals)


def _resolve(name: str):
    """The op ``torch.special.<name>`` stands for, or None when leafgrad lacks it."""
    if name == "round":
        return round
    target = _ALIASES.get(name)
    if target is None:
        return None
    root = sys.modules[__name__.rsplit(".", 1)[0]]
    for candidate in (target, "special_" + name):
        fn = root.__dict__.get(candidate, registry.FUNCTIONS.get(candidate))
        if fn is not None:
            return fn
    rec = registry.RECORDS.get("special_" + name)   # an op only torch.special names (i1)
    return None if rec is None else rec.public


def __getattr__(name: str):
    fn = _resolve(name)
    if fn is None:
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
    globals()[name] = fn
    return fn


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = sorted(n for n in _ALIASES if _resolve(n) is not None)
