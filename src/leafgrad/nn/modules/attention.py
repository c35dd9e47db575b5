"""``nn.MultiheadAttention``.

Parameters as in PyTorch: ``in_proj_weight`` (3E, E) and ``in_proj_bias`` (3E) when key and
value have the query's width, else ``q_proj_weight``/``k_proj_weight``/``v_proj_weight``;
``out_proj`` (a Linear); ``bias_k``/``bias_v`` with ``add_bias_kv``. The computation is
``F.multi_head_attention_forward``.

>>> import leafgrad as torch
>>> mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
>>> x = torch.randn(3, 5, 8)
>>> out, weights = mha(x, x, x)
>>> out.shape, weights.shape
(torch.Size([3, 5, 8]), torch.Size([3, 5, 5]))

PyTorch also has a fused inference "fast path" (eval mode, no gradient needed, batch_first
self-attention); it gives the same values, so leafgrad always takes the general path.
"""
from __future__ import annotations

from ...factories import empty
from .. import functional as F
from ..functional.attention import _canonical_mask, _none_or_dtype
from ..init import constant_, xavier_normal_, xavier_uniform_
from ..parameter import Parameter
from .linear_extra import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim // num_heads`` features each.

    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)`` returns ``(attn_output, attn_weights)``;
    boolean masks mark positions to IGNORE (True), float masks are added to the scores.
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        kw = {} if dtype is None else {"dtype": dtype}
        if device is not None:
            kw["device"] = device
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            xavier_uniform_(self.in_proj_weight)
        else:
            xavier_uniform_(self.q_proj_weight)
            xavier_uniform_(self.k_proj_weight)
            xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            constant_(self.in_proj_bias, 0.0)
            constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights: bool = True,
                attn_mask=None, average_attn_weights: bool = True, is_causal: bool = False):
        is_batched = query.dim() == 3
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                           _none_or_dtype(attn_mask), "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if self.batch_first and is_batched:
            # Keep the identities (query is key is value) that pick the packed projection.
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            out = out.transpose(1, 0)
        return out, weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """The (mask, mask_type) pair PyTorch's fused path takes: 1 = key padding only,
        2 = an attention mask expanded to (N, heads, L, L), plus the padding if given."""
        mask_type = None
        merged = None
        if key_padding_mask is not None:
            mask_type = 1
            merged = key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(
                    batch_size, self.num_heads, -1, -1)
            merged = expanded
            if key_padding_mask is not None:
                merged = expanded + key_padding_mask.view(batch_size, 1, 1, seq_len).expand(
                    -1, self.num_heads, -1, -1)
        return merged, mask_type
