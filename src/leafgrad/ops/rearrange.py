"""Copies that move or repeat entries: repeat/tile, flip, roll (never views in PyTorch).

>>> import leafgrad as torch
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> x.repeat(2).grad_fn.name(), x.flip(0).grad_fn.name(), x.roll(1).grad_fn.name()
('RepeatBackward0', 'FlipBackward0', 'RollBackward0')
"""
from __future__ import annotations

import numpy as np

from .iter_layout import CONTIG, SELF
from .registry import Sample, bind_method, defop, export_function
from .shape import at_least, dims_arg, size_arg, wrap_dim
from ..errors import shape_str
from ..tensor import _wrap

FAMILY = "shape"


def repeat_op(self, repeats):
    """``self`` tiled ``repeats[i]`` times along each dim (new leading dims allowed)."""
    if len(repeats) < self.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than "
                           "number of dimensions of tensor")
    padded = (1,) * (len(repeats) - self.ndim) + self.shape
    target = [r * s for r, s in zip(repeats, padded)]
    for t in target:
        if t < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {t}: "
                               f"{shape_str(target)}")
    return np.tile(self.reshape(padded), repeats)


def repeat_self(grad, self_shape, repeats):
    """As PyTorch's repeat_backward: the new leading dims summed one by one, then each
    repeated dim split into (repeat, size) and the repeats summed in one go."""
    if 0 in repeats:
        out = _wrap(np.zeros(self_shape, dtype=grad._data.dtype))
        out._vc[0] = 1   # (PyTorch's zeros come from a fill in place)
        return out
    extra = len(repeats) - len(self_shape)
    for _ in range(extra):
        grad = grad.sum(0)
    size, dims = [], []
    for d, s in enumerate(self_shape):
        if repeats[d + extra] != 1:
            size.append(repeats[d + extra])
            dims.append(len(size) - 1)
        size.append(s)
    if tuple(size) != tuple(grad._data.shape):
        grad = grad.reshape(size)
    return grad.sum(tuple(dims)) if dims else grad


def _repeat_samples(make, shapes):
    s = shapes[0]
    return [Sample((make(s), (2,) * len(s)), call="Tensor.repeat"),
            Sample((make(s),) + (1, 3) + (2,) * len(s), call="Tensor.repeat"),
            Sample((make(s), (2, 1)), call="tile"), Sample((make(s), (3,)), call="Tensor.tile")]


_repeat = defop("repeat", repeat_op, derivatives={"self": repeat_self}, dtype="same",
                methods=(), functions=(), samples=_repeat_samples, family=FAMILY)


def repeat(self, *sizes):
    """``x.repeat(2, 3)``: tile ``x`` 2 times along dim 0 and 3 along dim 1."""
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    return _repeat.public(self, size_arg(sizes))


def tile(input, dims):
    """Like ``repeat``, with missing leading repeats taken as 1."""
    dims = size_arg((dims,)) if isinstance(dims, (tuple, list)) else (int(dims),)
    n = input._data.ndim
    if len(dims) < n:
        dims = (1,) * (n - len(dims)) + dims
    return _repeat.public(input, dims)


def _tile_method(self, *dims):
    return tile(self, size_arg(dims))


bind_method("repeat", repeat)
bind_method("tile", _tile_method)
export_function("tile", tile)


def flip_op(self, dims):
    """A copy with the order reversed along ``dims``."""
    axes = dims_arg(dims, self.ndim)
    return np.flip(self, axes).copy() if self.ndim else self.copy()


def flip_self(grad, dims):
    return grad.flip(dims)


_flip = defop("flip", flip_op, derivatives={"self": flip_self}, dtype="same", methods=(),
              functions=(), family=FAMILY,
              samples=lambda make, shapes: [
                  Sample((make(at_least(shapes[0], 1)), (0,)), call="flip"),
                  Sample((make(at_least(shapes[0], 1)), -1), call="Tensor.flip"),
                  Sample((make(shapes[0]), tuple(range(len(shapes[0])))), call="flip")],
              layout=SELF)


def flip(self, *dims):
    """``x.flip(0)``, ``x.flip(0, 1)`` or ``torch.flip(x, (0, 1))``."""
    return _flip.public(self, size_arg(dims))


bind_method("flip", flip)
export_function("flip", flip)


def roll_op(self, shifts, dims=None):
    """A copy with entries shifted cyclically (over the flattened tensor without dims)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               "dims:0")
        return np.roll(self.reshape(-1), shifts[0]).reshape(self.shape)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if self.size == 0:   # roll_cpu returns a clone of an empty tensor before it reads a dim
        return self.copy()   # (one dim at a time: none is checked; seed 135)
    if self.ndim == 0:   # PyTorch wraps roll's dims without the 0-d allowance
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    return np.roll(self, shifts, tuple(wrap_dim(d, self.ndim) for d in dims))


def roll_self(grad, shifts, dims):
    back = -shifts if isinstance(shifts, int) else tuple(-s for s in shifts)
    return grad.roll(back, dims)


defop("roll", roll_op, layout=CONTIG, derivatives={"self": roll_self}, dtype="same", family=FAMILY,
      samples=lambda make, shapes: [Sample((make(shapes[0]), 1)),
                                    Sample((make(at_least(shapes[0], 1)), (2,), (-1,))),
                                    Sample((make(at_least(shapes[0], 2)), (1, -3), (0, 1)),
                                           call="Tensor.roll")])
