"""Reflection and replication padding: ``reflection_pad{1,2,3}d``, ``replication_pad{1,2,3}d``.

Each op is a record named like ATen's (grad_fn ``ReflectionPad2DBackward0``...); its derivative
calls the op's ``*_backward`` record, whose own derivative is the padding again (the backward of
a linear map is its adjoint), so ``create_graph=True`` works and records PyTorch's
``ReflectionPad2DBackwardBackward0``. Circular padding is not an op in PyTorch (it is a
composite of slice copies, grad_fn ``CopySlices``) and lives in ``nn/functional/padding.py``.

Note [Padding one dim at a time]
Both paddings are separable: padding a (D, H, W) block is padding W, then H, then D. Along one
dim, output position ``i`` reads input position ``src(i - left)`` where ``src`` reflects (``-1``
-> ``1``) or clamps (``-1`` -> ``0``) indices that fall outside. So the forward is one
``np.take`` per padded dim, and the backward copies the output's core slice back and adds the
few border positions one by one (a loop over the padding amount, never over pixels).
Negative amounts crop, as in PyTorch.

>>> import leafgrad as torch
>>> torch.nn.functional.pad(torch.arange(4.).view(1, 4), (2, 1), mode="reflect")
tensor([[2., 1., 0., 1., 2., 3., 2.]])
"""
from __future__ import annotations

import numpy as np

from .pointwise_common import zeros_grad
from .registry import Sample, defop

FAMILY = "padding"

__all__ = ["PAD_RECORDS", "source_index"]


def source_index(size: int, left: int, right: int, mode: str):
    """For each output position along one dim, the input position it reads."""
    j = np.arange(size + left + right) - left
    if mode == "replicate":
        return np.clip(j, 0, size - 1)
    j = np.abs(j)                                   # reflect at the first element
    return np.where(j >= size, 2 * (size - 1) - j, j)   # and at the last


def _dims(ndim: int, padding):
    """(axis, left, right) per padded dim: ``padding`` lists the last dim first."""
    for k in range(len(padding) // 2):
        yield ndim - 1 - k, padding[2 * k], padding[2 * k + 1]


def _pad(x, padding, mode):
    src = x
    for axis, left, right in _dims(x.ndim, padding):
        if left or right:
            x = np.take(x, source_index(x.shape[axis], left, right, mode), axis=axis)
    # a new tensor even when nothing is padded, as PyTorch's (never the input's memory)
    return np.array(x) if x is src else np.ascontiguousarray(x)


def _unpad(g, shape, padding, mode):
    """The adjoint of ``_pad``: each output position's gradient added to the input position it
    read (see Note [Padding one dim at a time])."""
    src = g
    for axis, left, right in reversed(list(_dims(g.ndim, padding))):
        if not (left or right):
            continue
        size = shape[axis]
        src = source_index(size, left, right, mode)
        out_len = len(src)
        start, stop = max(left, 0), min(out_len, left + size)   # the core: src(i) == i - left
        gx = np.zeros(g.shape[:axis] + (size,) + g.shape[axis + 1:], g.dtype)
        lead = (slice(None),) * axis
        if stop > start:
            gx[lead + (slice(start - left, stop - left),)] = g[lead + (slice(start, stop),)]
        for i in list(range(start)) + list(range(stop, out_len)):
            gx[lead + (src[i],)] += g[lead + (i,)]
        g = gx
    return np.array(g) if g is src else g


def _kernel_name(kind: str, n: int) -> str:
    return f"{kind}_pad{n}d"


def _check_dtype(x, kind, n):
    if x.dtype == np.bool_:
        raise NotImplementedError(f'"{_kernel_name(kind, n)}" not implemented for \'Bool\'')


def _forward(kind, mode, n):
    def pad(self, padding):
        _check_dtype(self, kind, n)
        return _pad(self, padding, mode)
    pad.__name__ = _kernel_name(kind, n)
    pad.__doc__ = f"{mode.capitalize()} padding of the last {n} dim(s) (ATen's {pad.__name__})."
    return pad


def _backward(mode):
    def pad_backward(grad_output, self, padding):
        """The adjoint of the padding: gradients of the border copies added to their source."""
        return _unpad(grad_output, self.shape, padding, mode)
    return pad_backward


def _self_formula(name):
    def pad_self(grad, self, padding):
        return PAD_RECORDS[name + "_backward"].public(grad, self, padding)
    return pad_self


def _grad_output_formula(name):
    def pad_backward_grad_output(grad, padding):
        return PAD_RECORDS[name].public(grad, padding)
    return pad_backward_grad_output


def _samples(mode, n):
    shapes = {1: [((2, 3, 5), [2, 1]), ((3, 4), [-1, 3])],
              2: [((2, 3, 4, 5), [1, 2, 3, 0]), ((2, 4, 4), [-1, 2, 1, 3])],
              3: [((1, 2, 3, 4, 4), [1, 2, 2, 0, 1, 1]), ((2, 4, 3, 3), [2, -1, 1, 2, 2, 1])]}

    def samples(make, _shapes):
        return [Sample((make(shape), pads), {"mode": mode}, call="nn.functional.pad")
                for shape, pads in shapes[n]]
    return samples


PAD_RECORDS: dict = {}
for _kind, _mode in (("reflection", "reflect"), ("replication", "replicate")):
    for _n in (1, 2, 3):
        _name = _kernel_name(_kind, _n)
        _title = f"{_kind.capitalize()}Pad{_n}D"
        PAD_RECORDS[_name] = defop(
            _name, _forward(_kind, _mode, _n), derivatives={"self": _self_formula(_name)},
            dtype="same", grad_fn_name=f"{_title}Backward0", methods=(), functions=(),
            family=FAMILY, samples=_samples(_mode, _n))
        PAD_RECORDS[_name + "_backward"] = defop(
            _name + "_backward", _backward(_mode), inputs=("grad_output", "self"),
            derivatives={"grad_output": _grad_output_formula(_name), "self": zeros_grad},
            dtype="same", grad_fn_name=f"{_title}BackwardBackward0", methods=(),
            functions=(), family=FAMILY)
del _kind, _mode, _n, _name, _title
