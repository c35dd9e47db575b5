"""PyTorch's tensor repr (placeholder: full formatting lands with the printing work)."""
from __future__ import annotations

import numpy as np

__all__: list = []


def tensor_repr(t) -> str:
    data = t._data
    if data.dtype.kind == "f":
        body = np.array2string(data, separator=", ", precision=4, floatmode="maxprec_equal")
    else:
        body = np.array2string(data, separator=", ")
    suffix = []
    if data.dtype != np.float32 and data.dtype != np.int64 and data.dtype != np.bool_:
        suffix.append(f"dtype={t.dtype}")
    if t._grad_fn is not None:
        suffix.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + ", ".join([body] + suffix) + ")"
