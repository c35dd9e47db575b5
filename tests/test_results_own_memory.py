"""A result that is not a view owns its memory: no op record returns an array that shares
memory with one of its inputs (an in-place change of one would otherwise show in the other,
which PyTorch's copies never do). Checked over every record's samples, at shapes where
reshapes and axis moves are no-ops (size-1 dims), where NumPy hands back views most."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import leafgrad
from leafgrad.ops.registry import RECORDS
from oracle import to_both
from test_ops_registry import Maker, _as_list, _run, _tensors

SHAPES = [[(2, 3), (2, 3), (3,), (2, 1)], [(1, 1, 1), (1, 1, 1), (1,), (1,)], [(), (), (), ()]]
CHECKED = sorted(name for name, rec in RECORDS.items()
                 if rec.samples is not None and not rec.view)


@pytest.mark.parametrize("name", CHECKED)
def test_result_owns_its_memory(name):
    rec = RECORDS[name]
    for shapes in SHAPES:
        try:
            samples = rec.samples(Maker(np.random.default_rng(0)), shapes)
        except Exception:   # noqa: BLE001 - a record's samples need not fit every shape
            continue
        for sample in samples:
            call = sample.call or (rec.functions[0] if rec.functions
                                   else "Tensor." + rec.methods[0])
            if call.endswith("_"):
                continue
            args = tuple(to_both(a)[0] for a in sample.args)
            kwargs = {k: to_both(v)[0] for k, v in sample.kwargs.items()}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    outs = _as_list(_run(leafgrad, call, args, kwargs))
            except Exception:   # noqa: BLE001 - errors are compared elsewhere
                continue
            inputs = _tensors(list(args) + list(kwargs.values()))
            for out in outs:
                if not isinstance(out, leafgrad.Tensor) or out._base is not None:
                    continue
                for x in inputs:
                    assert out is x or not np.shares_memory(out._data, x._data), (
                        f"{call} at {shapes[0]}: the result shares memory with an input")


@pytest.mark.parametrize("call", ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
                                  "rot90"])
def test_identity_like_calls_copy(call):
    import torch
    for L in (leafgrad, torch):
        x = L.ones(1, 1, 1, 1)
        if call == "rot90":
            y = L.rot90(x, 0)
        else:
            y = getattr(L.nn.functional, call)(x, 1)
        y.mul_(3)
        assert x.tolist() == [[[[1.0]]]], (L.__name__, call)
