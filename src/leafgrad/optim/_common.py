"""Shared checks for the optimizers added beside the first five (Adadelta, Adamax, NAdam,
RAdam, Rprop, ASGD, LBFGS): PyTorch's messages for a tensor ``lr``, ``capturable`` on the
CPU, and ``differentiable``.

Note [foreach, capturable, differentiable on the CPU]
PyTorch on the CPU runs the same single-tensor loop whatever ``foreach`` says (its
multi-tensor loop gives the same values up to rounding), so ``foreach`` is only stored.
``capturable=True`` is for CUDA graphs: PyTorch's ``step()`` raises an AssertionError when
the parameters live on the CPU, and so do we. ``differentiable=True`` would need the step to
build a graph through the update; leafgrad's optimizers update the arrays in place, so they
raise NotImplementedError instead of silently dropping the graph.
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor, _wrap

__all__ = ["check_lr", "to_scalar", "check_step_flags", "zeros_like", "SUPPORTED_DEVICES"]

SUPPORTED_DEVICES = "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']"


def check_lr(lr) -> None:
    """``Tensor lr must be 1-element`` / ``Invalid learning rate: ...``, as PyTorch checks."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def to_scalar(value):
    """A tensor hyper-parameter (``lr=torch.tensor(0.01)``) as a 0-d array of its dtype:
    PyTorch keeps it a 0-d tensor, so ``lr / bias_correction`` rounds in float32 there and
    must here too."""
    return value._data.reshape(()) if isinstance(value, Tensor) else value


def check_step_flags(group: dict, what: str = "params and state_steps",
                     devices: str = SUPPORTED_DEVICES) -> None:
    """Raise as PyTorch's CPU step does for ``capturable`` (see Note [foreach, capturable,
    differentiable on the CPU])."""
    if group.get("capturable"):
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: "
                             f"{devices}.")
    if group.get("differentiable"):
        raise NotImplementedError("leafgrad's optimizers update parameters in place without "
                                  "recording a graph; differentiable=True is not supported")


def zeros_like(param: np.ndarray) -> Tensor:
    return _wrap(np.zeros_like(param))
