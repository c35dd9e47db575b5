"""Ops that exist to be backward formulas (PyTorch's ``tanh_backward``, ``sigmoid_backward``).

One op instead of three on every backward step through an activation, and, being ops with
their own derivatives, double backward through them still works (their grad_fn names are
PyTorch's: ``TanhBackwardBackward0``, ``SigmoidBackwardBackward0``).
"""
from __future__ import annotations

from .registry import defop

FAMILY = "backward"


def tanh_backward(grad_output, output):
    """``grad_output * (1 - output**2)``: the gradient of tanh given its output."""
    return grad_output * (1 - output * output)


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
