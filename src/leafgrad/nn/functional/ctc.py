"""``F.ctc_loss``: connectionist temporal classification, composed as ATen's ``ctc_loss``:
the ``_ctc_loss`` record (ops/ctc.py, grad_fn ``CtcLossBackward0``), then ``where`` for
``zero_infinity``, then the reduction (``mean`` divides each loss by its target length,
clamped to at least 1, before averaging), and a squeeze for unbatched input.

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> lp = torch.zeros(3, 1, 3).log_softmax(2)
>>> F.ctc_loss(lp, torch.tensor([[1, 2]]), torch.tensor([3]), torch.tensor([2]))
tensor(0.8432)
"""
from __future__ import annotations

from ...tensor import Tensor
from ._common import reduction_enum

__all__ = ["ctc_loss"]


def _lengths(value, name: str):
    """Lengths given as a tensor (integral, any shape: its values in order) or as a sequence
    of ints -> tuple of ints."""
    if isinstance(value, Tensor):
        if value.dtype.is_floating_point or value.dtype.is_complex or \
                str(value.dtype) == "torch.bool":
            raise RuntimeError(f"{name} must be integral")
        return tuple(int(v) for v in value.reshape(-1).tolist())
    return tuple(int(v) for v in value)


def _arg_name(value) -> str:
    """How PyTorch's argument parser names a value's type in its messages."""
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def _arg_desc(value) -> str:
    """The parser's longer description: sequences list their elements' types."""
    if isinstance(value, tuple):
        return f"tuple of ({', '.join(_arg_desc(v) for v in value)})"
    if isinstance(value, list):
        return f"list of [{', '.join(_arg_desc(v) for v in value)}]"
    return _arg_name(value)


_CTC_SIGNATURES = (
    ("tuple of ints", "(Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of "
                      "ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, "
                      "bool zero_infinity = False)"),
    ("Tensor", "(Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, "
               "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = "
               "False)"))


def _int_seq(value) -> bool:
    return isinstance(value, (list, tuple)) and all(
        isinstance(v, int) or (isinstance(v, Tensor) and v.dim() == 0 and not
                               v.is_floating_point()) for v in value)


def _check_length_types(args) -> None:
    """PyTorch's ``ctc_loss`` has two overloads: both lengths sequences of ints, or both
    tensors; any other mix (a tuple and a tensor, say) is the parser's TypeError."""
    il, tl = args[2], args[3]
    if (isinstance(il, Tensor) and isinstance(tl, Tensor)) or (_int_seq(il) and _int_seq(tl)):
        return
    lines = [f"ctc_loss() received an invalid combination of arguments - got "
             f"({', '.join(_arg_name(a) for a in args)}), but expected one of:"]
    for kind, signature in _CTC_SIGNATURES:
        marks = [_arg_name(a) for a in args[:2]]
        for length in (il, tl):   # the int-sequence overload marks even a good sequence
            ok = kind == "Tensor" and isinstance(length, Tensor)
            marks.append(_arg_desc(length) if ok else f"!{_arg_desc(length)}!")
        marks += [f"!{_arg_name(a)}!" for a in args[4:]]   # as PyTorch marks them
        lines.append(f" * {signature}")
        lines.append(f"      didn't match because some of the arguments have invalid types: "
                     f"({', '.join(marks)})")
    raise TypeError("\n".join(lines) + "\n")


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """CTC loss of ``log_probs`` (T, N, C) or (T, C) against ``targets`` (N, S) padded or
    concatenated (sum(target_lengths),). ``reduction='mean'`` divides each loss by its
    target length before averaging over the batch."""
    from ...ops.ctc import CTC_LOSS   # on first use: keeps import leafgrad short
    code = reduction_enum(reduction)
    _check_length_types((log_probs, targets, input_lengths, target_lengths, blank, code,
                         zero_infinity))
    il = _lengths(input_lengths, "input_lengths")
    tl = _lengths(target_lengths, "target_lengths")
    if log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    res = CTC_LOSS.public(lp, targets._data if isinstance(targets, Tensor) else targets, il, tl,
                          blank, zero_infinity)
    if zero_infinity:
        res = _zero_inf(res)
    if code == 1:
        return (res / res.new_tensor(tl, dtype=res.dtype).clamp_min(1)).mean()
    if code == 2:
        return res.sum()
    return res if batched else res.squeeze(0)


def _zero_inf(res):
    """``where(res == inf, zeros({}), res)`` (grad_fn WhereBackward0)."""
    from ...ops.registry import RECORDS
    return RECORDS["where"].public(res == float("inf"), res.new_zeros(()), res)
