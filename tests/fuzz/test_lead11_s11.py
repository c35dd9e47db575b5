"""Findings of session 11 fixed by the lead (fuzz seed 130 and on)."""
from __future__ import annotations

import pytest
from oracle import same_on_both


# -- label smoothing over zero classes: PyTorch divides the smoothing by the class count in
# double (inf; the empty loss never reads it), leafgrad raised Python's ZeroDivisionError
# (seed 130) -------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(0,), (1, 0), (2, 0), (0, 3), (2, 0, 3)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("targets", ["probs", "indices"])
def test_label_smoothing_over_zero_classes(shape, reduction, targets):
    def run(L):
        x = L.zeros(shape, dtype=L.float64, requires_grad=True)
        if targets == "probs":
            t = L.zeros(shape, dtype=L.float64)
        else:
            t = L.zeros((shape[0],) + shape[2:] if len(shape) > 1 else (), dtype=L.long)
        try:
            loss = L.nn.functional.cross_entropy(x, t, reduction=reduction,
                                                 label_smoothing=0.1)
        except (RuntimeError, IndexError) as exc:
            return (type(exc).__name__, str(exc))
        out = [tuple(loss.shape), str(loss.detach().numpy().tolist()), type(loss.grad_fn).__name__]
        loss.sum().backward()
        return out + [tuple(x.grad.shape)]
    same_on_both(run)


# -- embedding_bag over an empty weight of 2+ columns: PyTorch's fast (FBGEMM) path and its
# message; leafgrad read the column stride off NumPy's strides of an empty array (0) and took
# the slow path's message (seed 130) --------------------------------------------------------------
@pytest.mark.parametrize("shape", [(0, 1), (0, 3), (0, 0), (2, 0)])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("idx", [[0], [5], [0, 0, 1]])
def test_embedding_bag_empty_weight(shape, mode, idx):
    def run(L):
        w = L.zeros(shape)
        try:
            r = L.nn.functional.embedding_bag(L.tensor(idx), w, L.tensor([0]), mode=mode)
        except RuntimeError as exc:
            return str(exc)
        return tuple(r.shape)
    same_on_both(run)
