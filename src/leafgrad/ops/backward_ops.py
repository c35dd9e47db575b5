"""Ops that exist to be backward formulas (PyTorch's ``tanh_backward``, ``sigmoid_backward``,
``_prelu_kernel_backward``), and ``joint_output`` for backward ops with several outputs.

One op instead of three on every backward step through an activation, and, being ops with
their own derivatives, double backward through them still works (their grad_fn names are
PyTorch's: ``TanhBackwardBackward0``, ``SigmoidBackwardBackward0``).

Note [Joint backward ops]
Some PyTorch formulas compute the gradients of several inputs in one call of a backward op
with several outputs (``_prelu_kernel_backward``, ``native_layer_norm_backward``...): under
create_graph those gradients share one node, ``<Op>BackwardBackward0``. leafgrad's node calls
one formula per input, one after another in one ``OpNode.apply``, with the same ``grad`` and
saved tensors; each formula asks ``joint_output`` for its output, which runs the op once for
them (keyed by those arguments' identities) and forgets it once every output was taken. A
formula asking again for an output already taken (a new backward pass) runs the op again.
"""
from __future__ import annotations

import threading

import numpy as np

from .registry import defop

FAMILY = "backward"


def tanh_backward(grad_output, output):
    """``grad_output * (1 - output**2)``: the gradient of tanh given its output."""
    # a 0-d one of the output's dtype: the same loop and values as the Python 1, without
    # NumPy's conversion of a Python number (a third of this function's time on one element)
    return grad_output * (_ONES.get(output.dtype, 1) - output * output)


_ONES = {np.dtype(t): np.ones((), t) for t in (np.float16, np.float32, np.float64)}
for _one in _ONES.values():
    _one.flags.writeable = False


def tanh_backward_grad_output(grad, output):
    return tanh_backward(grad, output)


def tanh_backward_output(grad, grad_output, output):
    return grad * grad_output * output * -2


TANH_BACKWARD = defop(
    "tanh_backward", tanh_backward, inputs=("grad_output", "output"),
    derivatives={"grad_output": tanh_backward_grad_output, "output": tanh_backward_output},
    grad_fn_name="TanhBackwardBackward0", methods=(), functions=(), family=FAMILY)


def sigmoid_backward(grad_output, output):
    """``grad_output * output * (1 - output)``: the gradient of sigmoid given its output."""
    return grad_output * (output - output * output)


def sigmoid_backward_grad_output(grad, output):
    return sigmoid_backward(grad, output)


def sigmoid_backward_output(grad, grad_output, output):
    return grad * grad_output * (1 - 2 * output)


SIGMOID_BACKWARD = defop(
    "sigmoid_backward", sigmoid_backward, inputs=("grad_output", "output"),
    derivatives={"grad_output": sigmoid_backward_grad_output,
                 "output": sigmoid_backward_output},
    grad_fn_name="SigmoidBackwardBackward0", methods=(), functions=(), family=FAMILY)

tanh_backward_op = TANH_BACKWARD.public
sigmoid_backward_op = SIGMOID_BACKWARD.public


# -- one backward-op call shared by a node's formulas (Note [Joint backward ops]) ---------------
class _Joint(threading.local):
    key = ()
    outputs = None
    pending = frozenset()


_LAST = _Joint()


def joint_output(key: tuple, which: int, n: int, run):
    """Output ``which`` of ``run()`` (a call of an ``n``-output backward op), run once for the
    formulas that pass the same ``key`` objects."""
    last = _LAST
    if (which in last.pending and len(key) == len(last.key)
            and all(a is b for a, b in zip(key, last.key))):
        last.pending = last.pending - {which}
        out = last.outputs[which]
        if not last.pending:   # every formula served: let the tensors go
            last.key, last.outputs = (), None
        return out
    outputs = run()
    last.key, last.outputs, last.pending = key, outputs, frozenset(range(n)) - {which}
    return outputs[which]


def no_gradient(grads):
    """An input PyTorch's node has an edge for but no derivative."""
    return None


def keep_none(grads, metas):
    """The outputs' gradients as they come (None for an unused one): the formulas skip it."""
    return list(grads)


# -- _prelu_kernel_backward ----------------------------------------------------------------------
def prelu_kernel_backward(grad_output, self, weight):
    """(grad_self, grad_weight) of ``_prelu_kernel``; grad_weight has self's shape (the engine
    sums it down to the weight's)."""
    pos = self > 0
    gs = np.where(pos, grad_output, grad_output * weight)
    gw = np.where(pos, 0, grad_output * self)
    dtype = np.result_type(grad_output, self, weight)
    return gs.astype(dtype, copy=False), gw.astype(dtype, copy=False)


def _pkb_grad_output(grads, self, weight):
    gg_self, gg_weight = grads
    pos = self > 0
    if gg_self is None:
        return gg_weight.new_zeros(()).where(pos, gg_weight * self)
    other = gg_self * weight if gg_weight is None else gg_self * weight + gg_weight * self
    return gg_self.where(pos, other)


def _pkb_self(grads, grad_output, self):
    gg_weight = grads[1]
    if gg_weight is None:   # PyTorch's zeros_like(self), not an undefined gradient
        return self.new_zeros(self.shape)
    return grad_output.new_zeros(()).where(self > 0, grad_output * gg_weight)


def _pkb_weight(grads, grad_output, self, weight_shape):
    gg_self = grads[0]
    if gg_self is None:   # PyTorch's zeros (of self's shape, summed to the weight's)
        return grad_output.new_zeros(tuple(weight_shape))
    from ..autograd.graph import sum_to   # (a several-output node's gradients are not
    # reduced to the inputs' shapes by the engine: the broadcast weight's, as PyTorch's)
    g = grad_output.new_zeros(()).where(self > 0, grad_output * gg_self)
    return g if tuple(g.shape) == tuple(weight_shape) else sum_to(g, tuple(weight_shape))


PRELU_KERNEL_BACKWARD = defop(
    "_prelu_kernel_backward", prelu_kernel_backward, inputs=("grad_output", "self", "weight"),
    derivatives={"grad_output": _pkb_grad_output, "self": _pkb_self, "weight": _pkb_weight},
    n_outputs=2, materialize=keep_none, methods=(), functions=(), family=FAMILY)
PRELU_KERNEL_BACKWARD.node_class.n_outputs = 2
