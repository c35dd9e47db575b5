"""``torch.nn.utils.rnn``: variable-length batches for the recurrent layers.

A ``PackedSequence`` holds the time steps of a batch of sequences of different lengths
without padding: ``data`` stacks, time step by time step, the rows of the sequences still
running (``batch_sizes[t]`` of them, longest sequences first), so the recurrent layers never
compute on padding and their final hidden state is each sequence's true last step.

>>> import leafgrad as torch
>>> from leafgrad.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
>>> x = torch.tensor([[1., 4.], [2., 5.], [3., 0.]])       # (T=3, B=2), second has length 2
>>> packed = pack_padded_sequence(x, [3, 2])
>>> packed.data, packed.batch_sizes
(tensor([1., 4., 2., 5., 3.]), tensor([2, 2, 1]))
>>> pad_packed_sequence(packed, padding_value=-1.0)[0]
tensor([[ 1.,  4.],
        [ 2.,  5.],
        [ 3., -1.]])

Note [Packing as one op]
``pack_padded_sequence`` is one node, ``PackPaddedSequenceBackward0`` as in PyTorch (an
autograd Function, not an op record: records are registered when ``leafgrad.ops`` loads, and
``nn`` loads later): the forward gathers the running rows with one NumPy index, and the
gradient scatters them back (rows of padding get zero) with leafgrad ops, so it is itself
differentiable. Unpacking is what PyTorch's composite does: a tensor filled
with ``padding_value`` and one slice assignment per run of equal batch sizes (``CopySlices``).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ... import ops as _ops
from ...autograd.function import Function
from ...factories import arange, empty_like, zeros
from ...grad_mode import is_grad_enabled
from ...tensor import Tensor, _wrap, bump_version

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]

_F = _ops.registry.FUNCTIONS


def _positions(batch_sizes, steps: int, batch: int, batch_first: bool) -> np.ndarray:
    """For each packed row, its flat position in the padded (T, B) (or (B, T)) grid."""
    t = np.repeat(np.arange(len(batch_sizes)), batch_sizes)
    b = np.concatenate([np.arange(n) for n in batch_sizes]) if len(batch_sizes) else t
    return b * steps + t if batch_first else t * batch + b


def _batch_sizes(lengths) -> np.ndarray:
    lengths = np.asarray(lengths, dtype=np.int64)
    return (lengths[None, :] > np.arange(int(lengths[0]))[:, None]).sum(1).astype(np.int64)


def _pack_grad(grad, input_shape, lengths, batch_first):
    """The gradient of packing: each packed row's gradient back at its padded position,
    zeros at the padding (leafgrad ops, so it can be differentiated again)."""
    steps, batch = (input_shape[1], input_shape[0]) if batch_first else input_shape[:2]
    idx = _positions(_batch_sizes(lengths), steps, batch, batch_first)
    # every grid position reads its packed row; padding reads an appended zero row
    source = np.full(steps * batch, len(idx), dtype=np.int64)
    source[idx] = np.arange(len(idx))
    zero_row = zeros((1,) + tuple(grad.shape[1:]), dtype=grad.dtype)
    rows = _F["cat"]([grad, zero_row], 0)
    return _F["index_select"](rows, 0, _wrap(source)).view(input_shape)


class _PackPaddedSequence(Function):
    """``_pack_padded_sequence`` (Note [Packing as one op])."""

    @staticmethod
    def forward(ctx, input, lengths, batch_first):
        shape = tuple(input.shape)
        steps, batch = (shape[1], shape[0]) if batch_first else shape[:2]
        idx = _positions(_batch_sizes(lengths), steps, batch, batch_first)
        ctx.input_shape, ctx.lengths, ctx.batch_first = shape, lengths, batch_first
        return _wrap(input._data.reshape((steps * batch,) + shape[2:])[idx])

    @staticmethod
    def backward(ctx, grad):
        return _pack_grad(grad, ctx.input_shape, ctx.lengths, ctx.batch_first), None, None


class _PackNode(_PackPaddedSequence._backward_cls):
    """The node named as PyTorch names it (a built-in node there, so no module in repr)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"


_PackNode.__name__ = _PackNode.__qualname__ = "PackPaddedSequenceBackward0"
_PackPaddedSequence._backward_cls = _PackNode


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)``; build it with
    ``pack_padded_sequence`` or ``pack_sequence``, not directly."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should "
                    "never be created manually. They should be instantiated by functions like "
                    "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                    "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise AssertionError("expected data to be a list or tuple of length 2")
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        """``data.to(...)``; the index tensors only follow a device change."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args, **kwargs) -> PackedSequence:
        return self.to(*args, device="cpu", **kwargs)

    def cuda(self, *args, **kwargs) -> PackedSequence:
        return self.to(*args, device="cuda", **kwargs)

    def pin_memory(self) -> PackedSequence:
        return self

    def double(self) -> PackedSequence:
        return self._cast("float64")

    def float(self) -> PackedSequence:
        return self._cast("float32")

    def half(self) -> PackedSequence:
        return self._cast("float16")

    def bfloat16(self) -> PackedSequence:
        return self._cast("bfloat16")

    def long(self) -> PackedSequence:
        return self._cast("int64")

    def int(self) -> PackedSequence:
        return self._cast("int32")

    def short(self) -> PackedSequence:
        return self._cast("int16")

    def char(self) -> PackedSequence:
        return self._cast("int8")

    def byte(self) -> PackedSequence:
        return self._cast("uint8")

    def _cast(self, name: str) -> PackedSequence:
        from ... import dtypes as _dt
        return self.to(dtype=getattr(_dt, name))

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    output = empty_like(permutation)
    output._data[permutation._data] = np.arange(permutation.numel(), dtype=output._data.dtype)
    return output


def _lengths_array(lengths) -> np.ndarray:
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{lengths.dim()}D cpu Long tensor")
        return lengths._data.astype(np.int64)
    return np.asarray([int(v) for v in lengths], dtype=np.int64)


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded (T, B, *) batch (``batch_first``: (B, T, *)) of sequences whose true
    lengths are ``lengths``; ``enforce_sorted=False`` sorts them (longest first) for you
    and records the permutation."""
    lengths_np = _lengths_array(lengths)
    sorted_indices = None
    if not enforce_sorted:
        lengths_t = _wrap(lengths_np.copy())
        lengths_t, sorted_indices = lengths_t.sort(descending=True)
        lengths_np = lengths_t._data
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    steps, batch = ((input.shape[1], input.shape[0]) if batch_first
                    else (input.shape[0], input.shape[1]))
    if len(lengths_np) != batch:
        raise RuntimeError("Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lengths_np)} (batch_size={batch})")
    if lengths_np[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if np.any(np.diff(lengths_np) > 0):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability.")
    if lengths_np[0] > steps:
        # PyTorch reads past the end of the input here; leafgrad refuses.
        raise RuntimeError(f"pack_padded_sequence: a length ({int(lengths_np[0])}) is longer "
                           f"than the padded sequence ({steps} time steps)")
    lengths_key = tuple(int(v) for v in lengths_np)
    data = _PackPaddedSequence.apply(input, lengths_key, bool(batch_first))
    batch_sizes = _wrap(_batch_sizes(lengths_np))
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length=None):
    """The inverse of ``pack_padded_sequence``: ``(padded, lengths)``, padded to the longest
    sequence (or to ``total_length``) with ``padding_value``, in the original batch order."""
    batch_sizes = sequence.batch_sizes._data
    max_seq_length = len(batch_sizes)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{max_seq_length}")
        max_seq_length = total_length
    data = sequence.data
    rest = tuple(data.shape[1:])
    max_batch = int(batch_sizes[0])
    output = data.new_full((max_seq_length, max_batch) + rest, padding_value)
    # one slice assignment per run of equal batch sizes (Note [Packing as one op])
    offset, start, steps = 0, 0, len(batch_sizes)
    for i in range(1, steps + 1):
        if i == steps or batch_sizes[i] != batch_sizes[start]:
            bs = int(batch_sizes[start])
            n = bs * (i - start)
            output[start:i, :bs] = data[offset:offset + n].view((i - start, bs) + rest)
            offset += n
            start = i
    lengths = (batch_sizes[None, :] > np.arange(max_batch)[:, None]).sum(1).astype(np.int64)
    if batch_first:
        output = output.transpose(0, 1)
    unsorted = sequence.unsorted_indices
    if unsorted is not None:
        output = output.index_select(0 if batch_first else 1, unsorted)
        lengths = lengths[unsorted._data]
    return output, _wrap(lengths)


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack tensors of shapes (L_i, *) into (max L, B, *) (``batch_first``: (B, max L, *)),
    padding with ``padding_value`` on the right (or the left)."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    first = sequences[0]
    max_len = max(s.shape[0] for s in sequences)
    trailing = tuple(first.shape[1:])
    n = len(sequences)
    shape = (n, max_len) + trailing if batch_first else (max_len, n) + trailing
    out = first.new_full(shape, padding_value)
    for i, seq in enumerate(sequences):
        length = seq.shape[0]
        rows = slice(0, length) if padding_side == "right" else slice(max_len - length, max_len)
        if batch_first:
            out[i, rows] = seq
        else:
            out[rows, i] = seq
    return out


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False):
    """The list of unpadded sequences: row ``i`` cut to ``lengths[i]`` steps.

    As PyTorch's, it transposes ``padded_sequences`` in place when ``batch_first`` is False.
    """
    if not batch_first:
        _transpose_in_place(padded_sequences)
    max_length = padded_sequences.shape[1]
    idx = arange(max_length)
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths)]


def _transpose_in_place(t: Tensor) -> None:
    """``t.transpose_(0, 1)``: PyTorch's unpad_sequence changes its argument so."""
    if t._requires_grad and t._grad_fn is None and is_grad_enabled():
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation.")
    swapped = t.transpose(0, 1)
    t._data = swapped._data
    if swapped._grad_fn is not None:
        # PyTorch names this node TransposeBackward1 (the in-place overload)
        t._grad_fn, t._output_nr = swapped._grad_fn, swapped._output_nr
    bump_version(t)


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """``pack_padded_sequence(pad_sequence(sequences), lengths)`` for a list of tensors."""
    lengths = _wrap(np.asarray([s.size(0) for s in sequences], dtype=np.int64))
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
