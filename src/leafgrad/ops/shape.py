"""Shape ops: views (reshape, view, expand, transpose, ...) and joins (cat, stack)."""
from __future__ import annotations

import numpy as np

from .registry import defop, bind_method, export_function
from ..tensor import Tensor

FAMILY = "shape"


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _infer(shape, numel):
    shape = [int(s) for s in shape]
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of"
                               f" size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of "
                           f"size {numel}")
    return tuple(shape)


def reshape_op(self, shape):
    """Reshape; a view where the strides allow, else a copy."""
    return np.reshape(self, _infer(shape, np.size(self)))


def reshape_self(grad, self_shape):
    return grad.reshape(self_shape)


_reshape = defop("reshape", reshape_op, derivatives={"self": reshape_self}, dtype="same",
                 grad_fn_name="ViewBackward0", view=True, methods=(), functions=(),
                 family=FAMILY)


def reshape(self, *shape):
    return _reshape.public(self, _shape_arg(shape))


def _reshape_fn(input, shape):
    return _reshape.public(input, tuple(shape))


bind_method("reshape", reshape)
export_function("reshape", _reshape_fn)


def view_op(self, shape):
    """A view with a new shape; errors when the strides do not allow it (as PyTorch)."""
    shape = _infer(shape, np.size(self))
    out = self.view()
    try:
        out.shape = shape
    except AttributeError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride "
                           "(at least one dimension spans across two contiguous subspaces). "
                           "Use .reshape(...) instead.") from None
    return out


_view = defop("view", view_op, derivatives={"self": reshape_self}, dtype="same", view=True,
              methods=(), functions=(), family=FAMILY)


def view(self, *shape):
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, int)):
        from ..dtypes import to_dtype
        raise NotImplementedError(f"view(dtype) is not supported by leafgrad "
                                  f"({to_dtype(shape[0])})")
    return _view.public(self, _shape_arg(shape))


bind_method("view", view)


def expand_op(self, size):
    """Broadcast to ``size`` without copying (-1 keeps a dim)."""
    nd = np.ndim(self)
    size = tuple(size)
    if len(size) < nd:
        raise RuntimeError(
            f"expand(torch.FloatTensor{{[{', '.join(map(str, np.shape(self)))}]}}, size=[{', '.join(map(str, size))}]): the "
            "number of sizes provided ({len(size)}) must be greater or equal to the number of "
            f"dimensions in the tensor ({nd})")
    lead = len(size) - nd
    target = []
    for i, s in enumerate(size):
        if s == -1:
            if i < lead:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                    f"non-existing dimension {i}")
            s = np.shape(self)[i - lead]
        target.append(s)
    try:
        return np.broadcast_to(self, tuple(target))
    except ValueError:
        for i in range(nd):
            have, want = np.shape(self)[i], target[lead + i]
            if have != 1 and have != want:
                raise RuntimeError(
                    f"The expanded size of the tensor ({want}) must match the existing size "
                    f"({have}) at non-singleton dimension {lead + i}.  Target sizes: "
                    f"[{', '.join(map(str, size))}].  Tensor sizes: "
                    f"[{', '.join(map(str, np.shape(self)))}]") from None
        raise


def expand_self(grad, self_shape):
    from ..autograd.graph import sum_to
    return sum_to(grad, self_shape)


_expand = defop("expand", expand_op, derivatives={"self": expand_self}, dtype="same",
                view=True, methods=(), functions=(), family=FAMILY)


def expand(self, *size):
    return _expand.public(self, _shape_arg(size))


def expand_as(self, other):
    return _expand.public(self, tuple(other.shape))


bind_method("expand", expand)
bind_method("expand_as", expand_as)


def stack(tensors, dim=0):
    """Join tensors along a new dimension."""
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    return np.stack(tensors, axis=dim)


def stack_tensors(grad, tensors_shapes, dim):
    return grad.unbind(dim)


defop("stack", stack, inputs=("tensors",), list_input=True,
      derivatives={"tensors": stack_tensors}, methods=(), family=FAMILY)
del Tensor
