"""Observations for tests that run leafgrad in a subprocess (tests/fuzz/test_fz8_s8.py): no
torch import here, so each child starts in a fraction of a second."""
from __future__ import annotations

import math

import numpy as np

inf = math.inf


def _plain(value):
    """A JSON-able observation: tensors as (dtype, shape, values with NaN as a string)."""
    if hasattr(value, "detach") and hasattr(value, "dtype"):   # a tensor of either
        arr = np.asarray(value.detach().numpy(), dtype=np.float64)
        vals = [("nan" if math.isnan(v) else round(v, 5)) for v in arr.reshape(-1).tolist()]
        return [str(value.dtype).split(".")[-1], list(value.shape), vals]
    if isinstance(value, BaseException):
        return ["error", type(value).__name__, str(value)]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _observe(lib, exprs):
    out = []
    for expr in exprs:
        try:
            out.append(_plain(eval(expr, {"torch": lib, "inf": inf})))
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            out.append(_plain(exc))
    return out
