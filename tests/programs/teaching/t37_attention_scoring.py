# d2l.ai attention scoring: masked softmax, additive and scaled dot-product attention, einsum
import math
import torch
from torch import nn

torch.manual_seed(4)


def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_lens):
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    shape = X.shape
    if valid_lens.dim() == 1:
        valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
    return nn.functional.softmax(X.reshape(shape), dim=-1)


print(masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3])))
print(masked_softmax(torch.rand(2, 2, 4), torch.tensor([[1, 3], [2, 4]])))


class AdditiveAttention(nn.Module):
    def __init__(self, num_hiddens, dropout):
        super().__init__()
        self.W_k = nn.LazyLinear(num_hiddens, bias=False)
        self.W_q = nn.LazyLinear(num_hiddens, bias=False)
        self.w_v = nn.LazyLinear(1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        features = queries.unsqueeze(2) + keys.unsqueeze(1)
        features = torch.tanh(features)
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


queries = torch.normal(0, 1, (2, 1, 20))
keys = torch.normal(0, 1, (2, 10, 2))
values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
valid_lens = torch.tensor([2, 6])
attention = AdditiveAttention(num_hiddens=8, dropout=0.1)
print(attention)
attention.eval()
print(attention(queries, keys, values, valid_lens))
print(attention.attention_weights.shape, attention.attention_weights.sum(-1))
print(attention, attention.W_q.weight.shape)


class DotProductAttention(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


queries = torch.normal(0, 1, (2, 1, 2))
attention = DotProductAttention(dropout=0.5)
attention.eval()
print(attention(queries, keys, values, valid_lens))
ref = nn.functional.scaled_dot_product_attention(queries, keys, values)
print(torch.allclose(ref, DotProductAttention(0.0)(queries, keys, values), atol=1e-6))
causal = nn.functional.scaled_dot_product_attention(keys, keys, values, is_causal=True)
print(causal[0, :3, :2])

# einsum, the tutorial examples
a = torch.arange(6.).reshape(2, 3)
b = torch.arange(12.).reshape(3, 4)
print(torch.einsum("ij,jk->ik", a, b), torch.einsum("ij->ji", a), torch.einsum("ij->", a))
print(torch.einsum("ii->i", torch.eye(3) * 2), torch.einsum("i,j->ij", torch.ones(2), torch.arange(3.)))
x = torch.randn(2, 3, 4, requires_grad=True)
y = torch.randn(2, 4, 5)
z = torch.einsum("bij,bjk->bik", x, y)
print(z.shape, torch.allclose(z, torch.bmm(x, y)), z.grad_fn.name())
z.sum().backward()
print(x.grad.shape, torch.allclose(x.grad, y.sum(-1).unsqueeze(1).expand(2, 3, 4)))
print(torch.einsum("b h q d, b h k d -> b h q k", torch.ones(1, 2, 3, 4), torch.ones(1, 2, 5, 4)).shape)
print(torch.einsum("...ij,...jk", torch.ones(3, 2, 2), torch.ones(2, 2)).shape)

# torch.where and masking idioms
s = torch.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
print(torch.where(s > 0, s, torch.zeros_like(s)), torch.where(s > 0, s, 0.0))
print(torch.where(s < 0), s[s < 0], (s < 0).sum(), (s > 0).any(dim=1), (s > -5).all())
print(s.masked_fill(s < 0, float("-inf")).softmax(-1))
t = s.clone()
t[t < 0] = 0
print(t, s.clamp(min=0), torch.relu(s).equal(t))
print(torch.nonzero(s > 0), torch.argwhere(s > 0).shape, s.masked_select(s > 2))
tri = torch.tril(torch.ones(4, 4))
print(tri, torch.triu(torch.ones(3, 3), diagonal=1).bool())
att = torch.randn(4, 4).masked_fill(tri == 0, float("-inf"))
print(torch.softmax(att, dim=-1))
print(torch.where(torch.isnan(torch.tensor([1.0, float("nan")])), -1.0, 2.0))
