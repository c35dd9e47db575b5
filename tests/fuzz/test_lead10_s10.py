"""Findings of session 10 fixed by the lead (fuzz seed 119 and on)."""
from __future__ import annotations

import pytest
from oracle import same_on_both


# -- pixel_unshuffle of an empty input: PyTorch's CPU kernel returns a clone, the input's shape
# kept (not the unshuffled shape); its backward (pixel_shuffle) then misses that shape, and the
# engine's check raises (seed 119) --------------------------------------------------------------
@pytest.mark.parametrize("shape", [(1, 1, 2, 0), (4, 2, 0), (0, 4, 2), (2, 2, 0, 2), (8, 2, 0),
                                   (1, 3, 0), (0, 2, 2)])
@pytest.mark.parametrize("fn", ["pixel_unshuffle", "pixel_shuffle"])
def test_pixel_shuffles_of_empty_inputs(shape, fn):
    def run(L):
        x = L.zeros(shape, requires_grad=True)
        try:
            y = getattr(L.nn.functional, fn)(x, 2)
        except RuntimeError as exc:
            return ("forward", str(exc))
        out = [tuple(y.shape), y.stride(), type(y.grad_fn).__name__]
        try:
            y.sum().backward()
            out.append(tuple(x.grad.shape))
        except RuntimeError as exc:
            out.append(str(exc))
        return out
    same_on_both(run)
