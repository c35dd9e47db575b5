"""The fuzzer's op table: public PyTorch calls, each a small function ``fn(L, r, *xs)``.

``L`` is the library (``leafgrad`` or ``torch``), ``r`` a :class:`Choices` seeded the same way
for both, ``xs`` the input tensors. Every choice an op makes (a dim, a scalar, a method or
function spelling) goes through ``r``, so both libraries make the same call while the
shapes agree. Ops may be called on inputs they do not accept: both libraries must then raise
the same exception type with the same text.
"""
from __future__ import annotations

import random

__all__ = ["Choices", "OPS", "Op"]


class Choices:
    """Seeded choices that depend only on the seed and on tensor metadata."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.log: list = []

    def _note(self, v):
        self.log.append(v)
        return v

    def pick(self, seq):
        return self._note(self.rng.choice(list(seq)))

    def flip(self, p=0.5) -> bool:
        return self._note(self.rng.random() < p)

    def int(self, lo, hi):
        """An integer in [lo, hi]."""
        return self._note(self.rng.randint(lo, hi))

    def dim(self, x, bad=0.03):
        """A dim of ``x`` (negative ones too); rarely one out of range."""
        nd = max(x.dim(), 1)
        if self.rng.random() < bad:
            return self._note(self.rng.choice([nd, -nd - 1]))
        return self._note(self.rng.randrange(-nd, nd))

    def index(self, size, bad=0.03):
        if size == 0 or self.rng.random() < bad:
            return self._note(self.rng.choice([size, -size - 1]))
        return self._note(self.rng.randrange(-size, size))

    def scalar(self):
        return self.pick([2, -1, 0.5, 1.5, 3, 0, -2.5, 1e-3, True])

    def perm(self, n):
        p = list(range(n))
        self.rng.shuffle(p)
        return self._note(p)


class Op:
    """One entry: ``arity`` tensor inputs, a ``want`` filter used to pick them, ``inplace``
    (prefers non-leaf targets), ``fn`` the call."""

    def __init__(self, name, arity, fn, want=None, inplace=False, weight=1.0):
        self.name, self.arity, self.fn = name, arity, fn
        self.want, self.inplace, self.weight = want, inplace, weight


OPS: dict = {}


def op(name, arity=1, want="float", inplace=False, weight=1.0):
    def deco(fn):
        OPS[name] = Op(name, arity, fn, want, inplace, weight)
        return fn
    return deco


def _call(L, r, x, name, *args, **kwargs):
    """``x.name(...)`` or ``L.name(x, ...)``: both spellings are public."""
    if hasattr(L, name) and r.flip():
        return getattr(L, name)(x, *args, **kwargs)
    return getattr(x, name)(*args, **kwargs)


# -- unary pointwise ----------------------------------------------------------------------------
_UNARY = ["neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu",
          "reciprocal", "exp2", "expm1", "log1p", "log2", "log10", "rsqrt", "sign", "floor",
          "ceil", "trunc", "frac", "atan", "asin", "acos", "sinh", "cosh", "erf", "erfc",
          "square", "sgn", "round", "asinh", "atanh", "acosh", "tan", "logit", "nan_to_num",
          "positive"]
for _name in _UNARY:
    op(_name, weight=0.25)(lambda L, r, x, _n=_name: _call(L, r, x, _n))


@op("round_decimals", weight=0.2)
def _round_decimals(L, r, x):
    return x.round(decimals=r.pick([0, 1, 2, -1]))


@op("clamp")
def _clamp(L, r, x):
    lo, hi = r.pick([(-0.5, 0.5), (None, 0.3), (-0.2, None), (1.0, -1.0), (None, None)])
    return _call(L, r, x, r.pick(["clamp", "clip"]), lo, hi)


@op("clamp_tensor", arity=3)
def _clamp_tensor(L, r, x, lo, hi):
    return x.clamp(min=lo if r.flip(0.8) else None, max=hi if r.flip(0.8) else None)


@op("activation", weight=3)
def _activation(L, r, x):
    F = L.nn.functional
    kind = r.pick(["softplus", "gelu", "gelu_tanh", "silu", "elu", "leaky_relu", "relu6",
                   "hardtanh", "softsign", "mish", "logsigmoid", "selu", "celu", "hardswish",
                   "hardsigmoid", "tanhshrink", "softmin", "normalize", "glu", "dropout0"])
    if kind == "softplus":
        return F.softplus(x, beta=r.pick([1, 2, 0.5]), threshold=r.pick([20, 1, 0.5]))
    if kind == "gelu_tanh":
        return F.gelu(x, approximate="tanh")
    if kind == "leaky_relu":
        return F.leaky_relu(x, r.pick([0.01, 0.2, -0.5]))
    if kind == "softmin":
        return F.softmin(x, dim=r.dim(x))
    if kind == "normalize":
        return F.normalize(x, p=r.pick([1, 2, 3]), dim=r.dim(x))
    if kind == "glu":
        return F.glu(x, dim=r.dim(x))
    if kind == "dropout0":
        return F.dropout(x, p=0.0, training=r.flip())
    return getattr(F, kind)(x)


# -- binary pointwise ---------------------------------------------------------------------------
_BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "remainder",
           "fmod", "floor_divide", "hypot", "fmax", "fmin", "true_divide"]
for _name in _BINARY:
    op(_name, arity=2, weight=0.6)(lambda L, r, x, y, _n=_name: _call(L, r, x, _n, y))

_COMPARE = ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"]
for _name in _COMPARE:
    op(_name, arity=2, want=None, weight=0.2)(lambda L, r, x, y, _n=_name: _call(L, r, x, _n, y))

for _name in ["bitwise_and", "bitwise_or", "bitwise_xor"]:
    op(_name, arity=2, want="intbool", weight=0.2)(
        lambda L, r, x, y, _n=_name: _call(L, r, x, _n, y))


@op("add_alpha", arity=2)
def _add_alpha(L, r, x, y):
    return _call(L, r, x, r.pick(["add", "sub"]), y, alpha=r.pick([2, -0.5, 1]))


@op("div_mode", arity=2, weight=0.5)
def _div_mode(L, r, x, y):
    return _call(L, r, x, "div", y, rounding_mode=r.pick(["floor", "trunc", None]))


_DUNDERS = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
            "__rtruediv__", "__pow__", "__rpow__", "__floordiv__", "__mod__", "__lt__",
            "__ge__", "__eq__", "__neg__", "__abs__"]


@op("dunder_scalar", arity=1, want=None, weight=2)
def _dunder_scalar(L, r, x):
    name = r.pick(_DUNDERS)
    if name in ("__neg__", "__abs__"):
        return getattr(x, name)()
    return getattr(x, name)(r.scalar())


@op("dunder_tensor", arity=2, want=None, weight=2)
def _dunder_tensor(L, r, x, y):
    name = r.pick(["__add__", "__sub__", "__mul__", "__truediv__", "__pow__", "__matmul__",
                   "__lt__", "__and__", "__or__"])
    return getattr(x, name)(y)


@op("where", arity=2)
def _where(L, r, x, y):
    cond = x > 0 if r.flip(0.8) else y.bool()
    if r.flip(0.2):
        return L.where(cond, x, r.scalar())
    return L.where(cond, x, y) if r.flip() else x.where(cond, y)


@op("lerp", arity=2, weight=0.5)
def _lerp(L, r, x, y):
    return L.lerp(x, y, r.pick([0.3, 0.0, 1.5]))


@op("lerp_tensor", arity=3, weight=0.5)
def _lerp_tensor(L, r, x, y, w):
    return x.lerp(y, w)


# -- reductions ---------------------------------------------------------------------------------
@op("reduce_all", weight=2)
def _reduce_all(L, r, x):
    name = r.pick(["sum", "mean", "prod", "amax", "amin", "max", "min", "median", "norm",
                   "logsumexp_all", "std", "var", "all", "any", "argmax", "nansum"])
    if name == "logsumexp_all":
        return L.logsumexp(x, dim=tuple(range(x.dim())))
    return _call(L, r, x, name)


@op("reduce_dim", weight=4)
def _reduce_dim(L, r, x):
    name = r.pick(["sum", "mean", "prod", "amax", "amin", "logsumexp", "std", "var", "all",
                   "any", "argmax", "argmin", "nansum", "norm"])
    d = r.dim(x)
    if name in ("sum", "mean", "amax", "amin", "nansum") and x.dim() >= 2 and r.flip(0.3):
        d = (0, -1)
    kw = {"keepdim": r.flip()}
    if name in ("std", "var") and r.flip():
        kw["correction"] = r.pick([0, 1, 2])
    if name == "norm":
        return x.norm(p=r.pick([1, 2, 3, float("inf")]), dim=d, **kw)
    return _call(L, r, x, name, d, **kw)


@op("reduce_values_indices", weight=1.5)
def _reduce_vi(L, r, x):
    name = r.pick(["max", "min", "median", "sort", "topk"])
    d = r.dim(x)
    if name == "sort":
        return x.sort(dim=d, descending=r.flip())
    if name == "topk":
        k = r.int(0, max(1, x.shape[d] if -x.dim() <= d < x.dim() and x.dim() else 1))
        return x.topk(k, dim=d, largest=r.flip())
    if name == "median" and 0 in x.stride():
        # PyTorch 2.13's median(dim) reads uninitialised memory on a stride-0 (expanded)
        # input (values like 4.57e-41 come back), so give it a contiguous copy
        x = x.contiguous()
    return _call(L, r, x, name, d, keepdim=r.flip())


@op("scan", weight=1.5)
def _scan(L, r, x):
    name = r.pick(["cumsum", "cumprod", "softmax", "log_softmax"])
    return _call(L, r, x, name, r.dim(x))


# -- shape and view ops -------------------------------------------------------------------------
def _factor_shape(r, shape):
    n = 1
    for s in shape:
        n *= s
    if n == 0:
        return r.pick([(0,), (-1,), (0, 3)])
    out = []
    rest = n
    while rest > 1 and len(out) < 3:
        divs = [d for d in range(2, rest + 1) if rest % d == 0]
        d = r.pick(divs)
        out.append(d)
        rest //= d
    if rest > 1:
        out.append(rest)
    if out and r.flip(0.3):
        out[r.int(0, len(out) - 1)] = -1
    if r.flip(0.2):
        out.insert(0, 1)
    return tuple(out)


@op("view", want=None, weight=2)
def _view(L, r, x):
    shape = _factor_shape(r, tuple(x.shape))
    # x.view() without sizes is a TypeError in torch only: always pass the sizes
    return getattr(x, r.pick(["view", "reshape"]))(*shape if shape else ((),))


@op("transpose", want=None, weight=1.5)
def _transpose(L, r, x):
    how = r.pick(["transpose", "t", "T", "mT", "permute", "movedim"])
    if how == "transpose":
        return x.transpose(r.dim(x), r.dim(x))
    if how == "t":
        return x.t()
    if how == "T":
        if x.dim() == 2:
            return x.T
        return x.permute(*reversed(range(x.dim()))) if x.dim() else x.permute(())
    if how == "mT":
        return x.mT
    if how == "movedim":
        return x.movedim(r.dim(x), r.dim(x))
    return x.permute(*r.perm(x.dim())) if x.dim() else x.permute(())


@op("squeeze", want=None)
def _squeeze(L, r, x):
    how = r.pick(["unsqueeze", "squeeze", "squeeze_dim", "flatten", "unflatten"])
    if how == "unsqueeze":
        return x.unsqueeze(r.int(-x.dim() - 1, x.dim()))
    if how == "squeeze":
        return x.squeeze()
    if how == "squeeze_dim":
        return x.squeeze(r.dim(x))
    if how == "unflatten":
        d = r.dim(x)
        return x.unflatten(d, (1, -1))
    return x.flatten()


@op("expand", want=None)
def _expand(L, r, x):
    shape = list(x.shape)
    new = [(r.pick([2, 3]) if s == 1 else s) if r.flip(0.7) else -1 for s in shape]
    if r.flip(0.3):
        new.insert(0, 2)
    if r.flip(0.5):
        return x.expand(*new) if new else x.expand(())
    return L.broadcast_to(x, tuple(s if s != -1 else o for s, o in
                                   zip(new, [None] * (len(new) - len(shape)) + shape)))


@op("getitem", want=None, weight=3)
def _getitem(L, r, x):
    kind = r.pick(["int", "slice", "ellipsis_none", "int_slice", "bool_mask", "index_tensor",
                   "tail"])
    if x.dim() == 0:
        return x[...] if r.flip() else x[None]
    n = x.shape[0]
    if kind == "int":
        return x[r.index(n)]
    if kind == "slice":
        a, b = r.int(-n - 1, n + 1), r.int(-n - 1, n + 1)
        return x[a:b:r.pick([1, 1, 2, 3])]
    if kind == "ellipsis_none":
        return x[..., None, ::2] if r.flip() else x[None, ..., -1:]
    if kind == "int_slice" and x.dim() >= 2:
        return x[:, r.index(x.shape[1])]
    if kind == "bool_mask":
        return x[x > 0] if x.dtype != L.bool else x[x]
    if kind == "index_tensor":
        idx = L.tensor([r.index(n, bad=0.02) for _ in range(r.int(0, 4))], dtype=L.long)
        return x[idx] if r.flip() else x[:, idx] if x.dim() >= 2 else x[idx, ...]
    return x[1:]


@op("narrow_split", want=None, weight=1.5)
def _narrow_split(L, r, x):
    how = r.pick(["narrow", "split", "chunk", "unbind", "split_sizes"])
    d = r.dim(x)
    size = x.shape[d] if x.dim() and -x.dim() <= d < x.dim() else 1
    if how == "narrow":
        start = r.int(-size, size)
        return x.narrow(d, start, r.int(0, max(0, size - start if start >= 0 else -start)))
    if how == "split":
        parts = x.split(r.int(1, 3), dim=d)
    elif how == "chunk":
        parts = x.chunk(r.int(1, 3), dim=d)
    elif how == "split_sizes":
        parts = x.split([1, size - 1], dim=d) if size >= 1 else x.split([0], dim=d)
    else:
        parts = x.unbind(d)
    return tuple(parts)


@op("join", arity=2, want=None)
def _join(L, r, x, y):
    d = r.dim(x) if r.flip(0.8) else r.int(-x.dim() - 1, x.dim())
    return getattr(L, r.pick(["cat", "stack", "cat"]))([x, y] if r.flip(0.8) else [x, y, x], d)


@op("rearrange", want=None)
def _rearrange(L, r, x):
    how = r.pick(["flip", "roll", "repeat", "contiguous", "clone", "tile"])
    if how == "flip":
        return x.flip(r.dim(x))
    if how == "roll":
        return x.roll(r.int(-3, 3), r.dim(x)) if r.flip(0.8) else x.roll(1)
    if how == "repeat":
        return x.repeat(*[r.int(1, 2) for _ in range(x.dim() + r.int(0, 1))])
    if how == "tile":
        return x.tile((r.int(1, 2),))
    return getattr(x, how)()


@op("detach", want=None, weight=0.5)
def _detach(L, r, x):
    return x.detach()


@op("cast", want=None, weight=1)
def _cast(L, r, x):
    how = r.pick(["float", "double", "long", "bool", "int", "to64", "to32", "type_as_self"])
    if how == "to64":
        return x.to(L.float64)
    if how == "to32":
        return x.to(dtype=L.float32)
    if how == "type_as_self":
        return x.type_as(x)
    return getattr(x, how)()


# -- indexing ops -------------------------------------------------------------------------------
def _long_index(L, r, n, count):
    return L.tensor([r.index(n, bad=0.01) if n else 0 for _ in range(count)], dtype=L.long)


@op("index_ops", want=None, weight=2)
def _index_ops(L, r, x):
    how = r.pick(["index_select", "gather", "take", "masked_select", "masked_fill",
                  "scatter_add", "index_add", "scatter"])
    if x.dim() == 0:
        return x.masked_fill(x != x, 1.0)
    d = r.dim(x)
    n = x.shape[d] if -x.dim() <= d < x.dim() else 1
    if how == "index_select":
        return x.index_select(d, _long_index(L, r, n, r.int(0, 3)))
    if how == "gather":
        shape = list(x.shape)
        idx = L.tensor([r.index(n, bad=0.01) if n else 0 for _ in range(x.numel())],
                       dtype=L.long).view(*shape) if x.numel() else L.zeros(shape, dtype=L.long)
        return x.gather(d, idx)
    if how == "take":
        return x.take(_long_index(L, r, x.numel(), r.int(0, 3)))
    if how == "masked_select":
        return x.masked_select(x > 0.5)
    if how == "masked_fill":
        return x.masked_fill(x > 0, r.scalar())
    if how == "scatter":
        idx = L.zeros(x.shape, dtype=L.long)
        return x.scatter(d, idx, x * 2)
    if how == "scatter_add":
        idx = L.zeros(x.shape, dtype=L.long)
        return x.scatter_add(d, idx, x)
    return x.index_add(d, _long_index(L, r, n, 1), x.narrow(d, 0, 1) if n else x)


# -- linear algebra -----------------------------------------------------------------------------
@op("matmul", arity=2, weight=2)
def _matmul(L, r, x, y):
    how = r.pick(["matmul", "matmul_t", "mm", "mv", "dot", "bmm", "einsum", "outer"])
    if how == "matmul":
        return L.matmul(x, y) if r.flip() else x @ y
    if how == "matmul_t":
        return x @ y.transpose(-1, -2) if y.dim() >= 2 else x @ x.transpose(-1, -2)
    if how == "einsum":
        return L.einsum("...i,...i->...", x, y)
    return getattr(L, how)(x, y)


# -- losses (other helpers own them; the fuzzer only compares) ----------------------------------
@op("loss", arity=2, weight=1)
def _loss(L, r, x, y):
    F = L.nn.functional
    name = r.pick(["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                   "binary_cross_entropy_with_logits", "kl_div"])
    reduction = r.pick(["mean", "sum", "none"])
    if x.shape != y.shape:
        y = y.expand_as(x) if r.flip(0.7) else y
    if name == "binary_cross_entropy_with_logits":
        return F.binary_cross_entropy_with_logits(x, y.sigmoid(), reduction=reduction)
    return getattr(F, name)(x, y, reduction=reduction)


# -- in-place ops (on non-leaves, views, leaves: errors compared) -------------------------------
@op("inplace_unary", inplace=True, want=None, weight=3)
def _inplace_unary(L, r, x):
    name = r.pick(["exp_", "neg_", "relu_", "sigmoid_", "tanh_", "zero_", "abs_", "sqrt_",
                   "square_", "clamp_", "fill_", "mul_scalar", "add_scalar", "pow_",
                   "clamp_min_", "floor_", "detach_", "requires_grad_", "retain_grad",
                   "register_hook", "masked_fill_"])
    if name == "clamp_":
        return x.clamp_(-0.5, 0.5)
    if name == "clamp_min_":
        return x.clamp_min_(0.1)
    if name == "fill_":
        return x.fill_(r.scalar())
    if name == "mul_scalar":
        return x.mul_(r.scalar())
    if name == "add_scalar":
        return x.add_(r.scalar(), alpha=r.pick([1, 2]))
    if name == "pow_":
        return x.pow_(r.pick([2, 0.5, 3]))
    if name == "masked_fill_":
        return x.masked_fill_(x > 0.2, r.scalar())
    if name == "requires_grad_":
        return x.requires_grad_(r.flip(0.7))
    if name == "retain_grad":
        return x.retain_grad()
    if name == "register_hook":
        x.register_hook(lambda g: g * 2)
        return None
    return getattr(x, name)()


@op("inplace_binary", arity=2, inplace=True, want=None, weight=3)
def _inplace_binary(L, r, x, y):
    name = r.pick(["add_", "sub_", "mul_", "div_", "iadd", "imul", "isub", "setitem",
                   "setitem_scalar", "lerp_", "maximum_setitem", "masked_fill_tensor"])
    if name == "iadd":
        x += y
        return x
    if name == "imul":
        x *= y
        return x
    if name == "isub":
        x -= y
        return x
    if name == "setitem":
        if x.dim() == 0:
            x[...] = y
        else:
            x[r.index(x.shape[0])] = y
        return x
    if name == "setitem_scalar":
        if x.dim() == 0:
            x[...] = r.scalar()
        else:
            x[r.int(0, x.shape[0]):] = r.scalar()
        return x
    if name == "lerp_":
        return x.lerp_(y, 0.25)
    if name == "maximum_setitem":
        x[x < y] = 0.0
        return x
    if name == "masked_fill_tensor":
        return x.masked_fill_(x > 0, y.sum())
    return getattr(x, name)(y)


# the widened table (linear algebra, special functions, nn ops, ...) registers itself into OPS
from . import ops_table_extra  # noqa: E402,F401
