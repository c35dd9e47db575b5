"""Shared oracle check for the shape and indexing tests: run one function on leafgrad and on
PyTorch, compare outputs, grad_fn chains, view-ness, gradients and second derivatives.

``compare(fn, *args)`` calls ``fn(lib, *tensors)`` with ``lib`` = leafgrad / torch. Float
arrays become tensors requiring grad. The gradient seeds also require grad, so the second
pass differentiates the backward formulas themselves (select_backward, index_put, ...), which
a plain ``x``-only second derivative of a linear op would never run.
"""
from __future__ import annotations

import numpy as np
import torch

import leafgrad
from oracle import assert_same_error, assert_same_tensor, to_both


def chain(t, depth=4):
    """grad_fn names along the first input edge (PyTorch's view chain, e.g. Slice <- Select)."""
    out = []
    fn = t.grad_fn
    while fn is not None and len(out) < depth:
        name = type(fn).__name__
        if name == "AccumulateGrad":
            break
        out.append(name)
        nxt = [f for f, _ in fn.next_functions if f is not None]
        fn = nxt[0] if nxt else None
    return out


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def compare(fn, *args, grad=True, check_view=True, atol=1e-6):
    """Run ``fn`` on both libraries and compare everything autograd can see."""
    pairs = [to_both(a) for a in args]
    mine = _outputs(fn(leafgrad, *[p[0] for p in pairs]))
    theirs = _outputs(fn(torch, *[p[1] for p in pairs]))
    assert len(mine) == len(theirs)
    for i, (m, t) in enumerate(zip(mine, theirs)):
        assert_same_tensor(m, t, atol=atol, what=f"output {i}")
        assert chain(m) == chain(t), f"output {i}: {chain(m)} != {chain(t)}"
        if check_view:
            assert (m._base is not None) == (t._base is not None), f"output {i} view-ness"
    if not grad:
        return mine, theirs
    m_in = [p[0] for p in pairs if isinstance(p[0], leafgrad.Tensor) and p[0].requires_grad]
    t_in = [p[1] for p in pairs if isinstance(p[1], torch.Tensor) and p[1].requires_grad]
    idx = [i for i, t in enumerate(theirs) if t.requires_grad]
    assert idx == [i for i, m in enumerate(mine) if m.requires_grad]
    if not idx or not t_in:
        return mine, theirs
    rng = np.random.default_rng(0)
    seeds = [rng.standard_normal(tuple(theirs[i].shape)) for i in idx]
    m_seed = [leafgrad.tensor(s, dtype=mine[i].dtype, requires_grad=True)
              for s, i in zip(seeds, idx)]
    t_seed = [torch.tensor(s, dtype=theirs[i].dtype, requires_grad=True)
              for s, i in zip(seeds, idx)]
    m_g = leafgrad.autograd.grad([mine[i] for i in idx], m_in, m_seed, create_graph=True,
                                 allow_unused=True)
    t_g = torch.autograd.grad([theirs[i] for i in idx], t_in, t_seed, create_graph=True,
                              allow_unused=True)
    for k, (a, b) in enumerate(zip(m_g, t_g)):
        assert (a is None) == (b is None), f"grad {k} None-ness"
        if b is not None:
            assert_same_tensor(a, b, atol=atol, what=f"grad {k}")
    live = [(a, b) for a, b in zip(m_g, t_g) if b is not None and b.requires_grad]
    if not live:
        return mine, theirs
    ws = [rng.standard_normal(tuple(b.shape)) for _, b in live]
    m_tot = sum((a * leafgrad.tensor(w, dtype=a.dtype)).sum() for (a, _), w in zip(live, ws))
    t_tot = sum((b * torch.tensor(w, dtype=b.dtype)).sum() for (_, b), w in zip(live, ws))
    m_gg = leafgrad.autograd.grad(m_tot, m_seed + m_in, allow_unused=True)
    t_gg = torch.autograd.grad(t_tot, t_seed + t_in, allow_unused=True)
    for k, (a, b) in enumerate(zip(m_gg, t_gg)):
        if b is None or a is None:
            other = a if b is None else b
            assert other is None or not np.any(other.detach().numpy()), f"grad-grad {k}"
            continue
        assert_same_tensor(a, b, atol=max(atol, 1e-5), what=f"grad-grad {k}")
    return mine, theirs


def same_error(fn, *args):
    """``fn(lib, *tensors)`` raises the same exception type and text on both libraries."""
    pairs = [to_both(a, requires_grad=False) for a in args]
    assert_same_error(lambda: fn(leafgrad, *[p[0] for p in pairs]),
                      lambda: fn(torch, *[p[1] for p in pairs]))


def arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)
