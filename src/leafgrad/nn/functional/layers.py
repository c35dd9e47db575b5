"""Layer functions of ``torch.nn.functional``: linear, dropout, embedding, layer_norm, pad,
normalize, one_hot (see Note [Primitive or composite]).

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> F.one_hot(torch.tensor([0, 2]))
tensor([[1, 0, 0],
        [0, 0, 1]])
"""
from __future__ import annotations

import math

import numpy as np

from ...ops.linalg import addmm_public as _addmm   # torch.addmm
from ...ops.linear_fused import linear_2d as _linear_2d
from ...ops.nn_layers import CONSTANT_PAD_ND, EMBEDDING, LAYER_NORM, _indices, \
    embedding_renorm_
from ...tensor import Tensor, _wrap
from .padding import pad_nonconstant

__all__ = [
    "bilinear",
    "dropout",
    "embedding",
    "layer_norm",
    "linear",
    "normalize",
    "one_hot",
    "pad",
]


def _torch():
    import leafgrad
    return leafgrad


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``, as one ``addmm`` for 2-D input like PyTorch."""
    if input._data.ndim == 0 or weight._data.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input._data.ndim}D and {weight._data.ndim}D")
    if bias is None:
        return input.matmul(weight.t())
    if input._data.ndim == 2:
        out = _linear_2d(input, weight, bias)   # Note [Fused linear] in ops/linear_fused.py
        return out if out is not None else _addmm(bias, input, weight.t())
    # at::linear: a bias addmm can take (1-d once squeezed, contiguous) over a contiguous
    # input: the leading dims folded into one matrix, addmm, viewed back
    # (_flatten_nd_linear); otherwise matmul, then the bias added in place (seed 133: an
    # expanded 1-d input is not contiguous: AddBackward0 over matmul's nodes)
    fusable = (bias.dim() == 1 or bias.squeeze().dim() == 1) and bias.is_contiguous()
    if fusable and input.is_contiguous():
        sizes = tuple(input.shape)
        flat = input.reshape(math.prod(sizes[:-1]), sizes[-1])
        out = _torch().addmm(bias, flat, weight.t())
        return out.view(*sizes[:-1], out.shape[1])
    return input.matmul(weight.t()).add_(bias)


def _check_bilinear(input1, input2, weight, bias):
    """at::bilinear's checks, in its order (sizes read as ``size(d)``, with its errors; the
    right side of each comparison is read first, as the build evaluates it)."""
    n1, n2 = input1.dim(), input2.dim()
    if n1 != n2:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {n1} and {n2}")
    for i in range(n1 - 1):
        if input1.size(i) != input2.size(i):
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {input1.size(i)} and {input2.size(i)}")
    for k, x in ((1, input1), (2, input2)):
        want = weight.size(k)
        got = x.size(x.dim() - 1)
        if got != want:
            raise RuntimeError(f"bilinear(): input{k} size does not match weight size: got "
                               f"{got} but expected {want}")
    if bias is not None:
        want = weight.size(0)
        if bias.size(0) != want:
            raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                               f"{bias.size(0)} but expected {want}")


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None):
    # y_k = x1^T W_k x2 + b_k
    named = [("input1", input1), ("input2", input2), ("weight", weight)]
    if bias is not None:
        named.append(("bias", bias))
    if any(t.dtype != input1.dtype for _, t in named):
        from ...ops.conv import _C_NAMES   # PyTorch names the C++ types here
        got = ", ".join(f"{n}: {_C_NAMES.get(str(t.dtype)[6:], str(t.dtype)[6:])}"
                        for n, t in named)
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    _check_bilinear(input1, input2, weight, bias)
    # at::bilinear: both inputs flattened to rows, one _trilinear (TrilinearBackward0), the
    # result reshaped back, then the bias added (fuzz seed 142: its grad_fn)
    from ...ops.nn_layers import TRILINEAR
    out_size = tuple(input1.shape[:-1]) + (weight.shape[0],)
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    out = TRILINEAR.public(x1, weight, x2, [1, 3], [0], [1, 2], [2, 3]).reshape(out_size)
    return out if bias is None else out + bias


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``; the
    identity (the same tensor) when not training."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    torch = _torch()
    if p == 1.0:
        mask = torch.zeros_like(input)
    else:
        mask = torch.empty_like(input).bernoulli_(1 - p).div_(1 - p)
    if inplace:
        return input.mul_(mask)
    return input * mask


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` picked by the integer ``input``; the ``padding_idx`` row gets no
    gradient."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    if max_norm is not None:
        # PyTorch renormalizes the picked rows in place, outside autograd (its checks first)
        from ...grad_mode import no_grad
        with no_grad():
            embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    _indices(input)   # Long or Int, else PyTorch's message naming the type
    if sparse:
        raise NotImplementedError("leafgrad has no sparse tensors: use embedding(sparse=False)")
    return EMBEDDING.public(weight, input, -1 if padding_idx is None else padding_idx,
                            scale_grad_by_freq, sparse)


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalize over the trailing ``normalized_shape`` dims (biased variance), then scale
    and shift (one ``NativeLayerNormBackward0`` node, as in PyTorch)."""
    if isinstance(normalized_shape, int):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        "of ints, not int")
    return LAYER_NORM.public(input, list(normalized_shape), weight, bias, eps)


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad)//2`` dims: ``pad = (left, right, top, bottom, ...)``
    (negative amounts crop); ``mode`` 'constant' (with ``value``), 'reflect', 'replicate' or
    'circular' (see ``padding.py``)."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the "
                           "input dimension but got padding length "
                           f"{len(pad)} and input of dimension {input.dim()}")
    if mode != "constant":
        return pad_nonconstant(input, pad, mode, value)
    value = 0.0 if value is None else value
    return CONSTANT_PAD_ND.public(input, list(pad), value)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out=None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim`` (written into ``out`` if given)."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    import leafgrad
    return leafgrad.div(input, denom, out=out)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding along a new last dim (no gradient: an index op)."""
    data = tensor._data
    if data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if data.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return _wrap(np.zeros(data.shape + (num_classes,), dtype=np.int64))
    if data.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(data.max()) + 1
    elif data.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = (data[..., None] == np.arange(num_classes, dtype=np.int64)).astype(np.int64)
    return _wrap(out)

