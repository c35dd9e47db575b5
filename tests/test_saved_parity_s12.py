"""What each op saves for backward, against PyTorch: for every record's samples, one input
(a non-leaf copy) is changed in place after the forward, then gradients are taken. PyTorch
raises its version-counter error exactly when it saved that input; otherwise its gradients
are those of the original values. leafgrad must agree on both: a gradient that differs
without an error would be a silently wrong gradient (einsum's was, fuzz seed 159), and an
error PyTorch does not raise (or a missing one) is a difference users see."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import leafgrad
from leafgrad.ops.registry import RECORDS
from oracle import to_both
from test_ops_registry import Maker, _as_list, _run

_NAMES = sorted(name for name, rec in RECORDS.items()
                if rec.samples is not None and rec.differentiable)
_SHAPES = [(3, 4), (3, 4), (3, 4), (3, 4)]


def _outcome(lib, call, sample, k):
    """Change the k-th float input after the forward; the error (kind, is it a version
    error) or the gradients."""
    side = 0 if lib is leafgrad else 1
    args = [to_both(a)[side] for a in sample.args]
    kwargs = {key: to_both(v)[side] for key, v in sample.kwargs.items()}
    tensor = (leafgrad.Tensor, torch.Tensor)
    leaves = [a for a in args if isinstance(a, tensor) and a.requires_grad]
    copies = []
    for i, a in enumerate(args):
        if isinstance(a, tensor) and a.requires_grad:
            args[i] = a * 1
            copies.append(args[i])
    if k >= len(copies):
        return None
    try:
        outs = [o for o in _as_list(_run(lib, call, tuple(args), kwargs))
                if isinstance(o, tensor) and o.requires_grad]
        if not outs:
            return None
        with lib.no_grad():
            copies[k].mul_(1.5).add_(0.25)
        total = sum((o.double() * (i + 1.0)).sum() for i, o in enumerate(outs))
        grads = lib.autograd.grad(total, leaves, allow_unused=True)
    except RuntimeError as exc:
        return ("error", "modified by an inplace operation" in str(exc))
    return ("grads", [None if g is None else g.detach().double().numpy() for g in grads])


@pytest.mark.parametrize("name", _NAMES)
def test_changed_input_after_forward(name):
    rec = RECORDS[name]
    samples = rec.samples(Maker(np.random.default_rng(0)), _SHAPES)
    for sample in samples:
        call = sample.call or (rec.functions[0] if rec.functions else "Tensor." + rec.methods[0])
        if not sample.grad or call.endswith("_"):
            continue
        floats = [a for a in sample.args if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
        for k in range(len(floats)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mine = _outcome(leafgrad, call, sample, k)
                theirs = _outcome(torch, call, sample, k)
            if theirs is None:
                continue
            assert mine is not None, f"{call} sample {sample.args[:1]} input {k}"
            assert mine[0] == theirs[0], f"{call} input {k}: {mine} vs torch {theirs}"
            if mine[0] == "error":
                assert mine[1] == theirs[1], f"{call} input {k}: {mine} vs torch {theirs}"
            else:
                for a, b in zip(mine[1], theirs[1]):
                    assert (a is None) == (b is None)
                    if b is not None:
                        np.testing.assert_allclose(a, b, atol=1e-6, rtol=1e-6, equal_nan=True,
                                                   err_msg=f"{call} input {k}")
