"""Attention in ``torch.nn.functional``: ``scaled_dot_product_attention`` and
``multi_head_attention_forward`` (the computation behind ``nn.MultiheadAttention``).

Both are composites of leafgrad ops that follow PyTorch's own reference computations (see
Note [Attention as PyTorch computes it]); values and gradients are PyTorch's, the ``grad_fn``
names are those of the pieces.

>>> import leafgrad as torch
>>> import leafgrad.nn.functional as F
>>> q = torch.ones(1, 2, 4)
>>> F.scaled_dot_product_attention(q, q, torch.arange(8.0).view(1, 2, 4))
tensor([[[2., 3., 4., 5.],
         [2., 3., 4., 5.]]])

Note [Attention as PyTorch computes it]
``scaled_dot_product_attention`` is ATen's math backend: q and k^T are each scaled by
sqrt(scale) before the product (for stability), a boolean mask (True = may attend) or the
causal mask becomes -inf, a float mask is added, and the softmax is "safe": a row whose
scores are all -inf gives zeros, not NaN, and no gradient. ``multi_head_attention_forward``
with ``need_weights=True`` is PyTorch's explicit path (q scaled by 1/sqrt(head_dim), then
``softmax``, where a fully masked row *is* NaN, as in PyTorch); with ``need_weights=False``
it calls ``scaled_dot_product_attention``. Boolean masks in MultiheadAttention mean the
opposite (True = ignore) and are turned into float -inf masks first (``_canonical_mask``).
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ... import ops as _ops
from ...tensor import Tensor, _wrap
from .activation import softmax
from .layers import dropout, linear, pad

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]

_FUNCTIONS = _ops.registry.FUNCTIONS
_cat = _FUNCTIONS["cat"]
_bmm = _FUNCTIONS["bmm"]
_CPP_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double",
              "int8": "signed char", "int16": "short int", "int32": "int", "int64": "long int",
              "uint8": "unsigned char", "bool": "bool"}


def _cpp(dtype) -> str:
    return _CPP_NAMES.get(dtype.name, dtype.name)


def _check_sdpa(query, key, value, attn_mask, is_causal) -> None:
    # ATen's validate_sdpa_input, in its order.
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cpp(query.dtype)} key.dtype: {_cpp(key.dtype)} and value.dtype: "
            f"{_cpp(value.dtype)} instead.")
    if attn_mask is not None:
        mdt = attn_mask.dtype
        if not (mdt.name in ("bool", "float32") or mdt == query.dtype):
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but "
                f"got attn_mask.dtype: {_cpp(mdt)} and  query.dtype: {_cpp(query.dtype)} "
                "instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} "
            "instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")


def _repeat_heads(t, groups: int):
    """``t.repeat_interleave(groups, dim=-3)`` (each key/value head serves ``groups`` query
    heads) from expand + reshape."""
    shape = tuple(t.shape)
    expanded = t.unsqueeze(-3).expand(*shape[:-2], groups, *shape[-2:])
    return expanded.reshape(*shape[:-3], shape[-3] * groups, *shape[-2:])


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(q k^T * scale + mask) @ v`` over the last two dims (L queries, S keys).

    ``attn_mask``: bool (True = may attend) or float (added), broadcast to (..., L, S);
    ``is_causal``: query i attends to keys j <= i (top-left aligned); ``scale`` defaults to
    1/sqrt(E); ``dropout_p`` drops attention weights whenever it is > 0 (this function has
    no training flag); ``enable_gqa``: key/value heads (dim -3) are shared by groups of
    query heads. Rows whose keys are all masked give zeros.
    """
    _check_sdpa(query, key, value, attn_mask, is_causal)
    if enable_gqa and query.dim() >= 3 and key.size(-3) != query.size(-3):
        hq, hk, hv = query.size(-3), key.size(-3), value.size(-3)
        if hq % hk != 0 or hq % hv != 0:
            raise RuntimeError("Number of heads in key and value must divide the number of "
                               "heads in ")
        key = _repeat_heads(key, hq // hk)
        value = _repeat_heads(value, hq // hv)
    L, S = query.size(-2), key.size(-2)
    scale_value = 1.0 / math.sqrt(query.size(-1)) if scale is None else float(scale)
    factor = math.sqrt(abs(scale_value))
    q = query * (-factor if scale_value < 0 else factor)
    scores = q.matmul(key.transpose(-2, -1) * factor)
    masked = False
    if is_causal:
        allowed = _wrap(np.tril(np.ones((L, S), dtype=bool)))
        scores = scores.masked_fill(allowed.logical_not(), float("-inf"))
        masked = True
    elif attn_mask is not None:
        if attn_mask.dtype.is_floating_point:
            if attn_mask.dtype != scores.dtype:
                attn_mask = attn_mask.to(scores.dtype)
            scores = scores + attn_mask
        else:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        masked = True
    if masked:
        # The safe softmax: an all -inf row gives zeros (and a zero gradient), not NaN.
        dead = np.isneginf(scores._data).all(-1, keepdims=True)
        if dead.any():
            dead_t = _wrap(dead)
            attn = softmax(scores.masked_fill(dead_t, 0.0), -1).masked_fill(dead_t, 0.0)
        else:
            attn = softmax(scores, -1)
    else:
        attn = softmax(scores, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return attn.matmul(value)


# -- multi-head attention -----------------------------------------------------------------
def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name: str, other_type, other_name: str, target_type,
                    check_other: bool = True):
    """A bool mask (True = ignore) becomes a float mask of ``target_type`` with -inf where
    True; a float mask passes through. Warns when the two masks' dtypes differ."""
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype.name != "bool" and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      "Use same type for both instead.", stacklevel=3)
    if not is_float:
        data = np.where(mask._data, -np.inf, 0.0).astype(target_type.np)
        mask = _wrap(data)
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """PyTorch's shape checks; returns whether the input is batched."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D "
                f"but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                f"but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or "
                f"1-D but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or "
                    f"3-D but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v through the packed (3E, E) projection; one ``linear`` for self-attention."""
    E = q.size(-1)
    if k is v:
        if q is k:
            return linear(q, w, b).chunk(3, -1)
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        k_proj, v_proj = linear(k, w_kv, b_kv).chunk(2, -1)
        return linear(q, w_q, b_q), k_proj, v_proj
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """q, k, v through separate projections (kdim/vdim different from embed_dim)."""
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    checks = [(w_q, (Eq, Eq), "query weights"), (w_k, (Eq, Ek), "key weights"),
              (w_v, (Eq, Ev), "value weights")]
    for w, shape, what in checks:
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {what} shape of {shape}, but got {w.shape}")
    for bias, what in ((b_q, "query bias"), (b_k, "key bias"), (b_v, "value bias")):
        if bias is not None and tuple(bias.shape) != (Eq,):
            raise AssertionError(f"expecting {what} shape of {(Eq,)}, but got {bias.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v,
                                 add_zero_attn: bool, dropout_p: float, out_proj_weight,
                                 out_proj_bias, training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None,
                                 use_separate_proj_weight: bool = False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True,
                                 is_causal: bool = False):
    """Multi-head attention on (L, N, E) query and (S, N, E_k/E_v) key/value (or unbatched
    2-D); returns ``(attn_output, attn_weights or None)``. See ``nn.MultiheadAttention``."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None          # the hint alone reaches scaled_dot_product_attention
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False     # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for w, n in ((q_proj_weight, "q"), (k_proj_weight, "k"), (v_proj_weight, "v")):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {n}_proj_weight "
                                     "is None")
        b_q, b_k, b_v = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                 v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            expected = (bsz * num_heads, tgt_len, src_len)
            if tuple(attn_mask.shape) != expected:
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {expected}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _cat([k, bias_k.repeat(1, bsz, 1)])
        v = _cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # (len, N, E) -> (N * heads, len, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, bsz, num_heads, head_dim, "static_k")
    v = _heads(v, static_v, bsz, num_heads, head_dim, "static_v")
    if add_zero_attn:
        zero = _wrap(np.zeros((bsz * num_heads, 1, head_dim), dtype=k._data.dtype))
        k = _cat([k, zero], 1)
        v = _cat([v, zero.to(v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len)
                            .expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(head_dim))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        weights = _bmm(q_scaled, k.transpose(-2, -1))
        if attn_mask is not None:
            weights = attn_mask + weights           # baddbmm(attn_mask, q, k^T)
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = _bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    if not is_batched:
        out = out.squeeze(1)
    return out, None


def _heads(t, static, bsz: int, num_heads: int, head_dim: int, name: str):
    """(S, N, E) -> (N * heads, S, head_dim), or the given static keys/values."""
    if static is None:
        return t.reshape(t.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if static.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got "
                             f"{static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got "
                             f"{static.size(2)}")
    return static
