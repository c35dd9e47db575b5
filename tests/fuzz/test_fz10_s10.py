"""Findings of session 10's fresh fuzz seeds 120-125 (helper fz10), each against torch."""
from __future__ import annotations

import numpy as np
import pytest
from oracle import same_on_both


# -- expand keeps PyTorch's strides on size-1 dims (NumPy's broadcast_to zeroes them): the
# overlap checks of a write compare strides, so two meshgrid grids of one 0-d tensor
# (strides (1, 1), one storage) refuse ``a[-1] = b`` in PyTorch (seed 120) ----------------------
@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_of_zero_dim_setitem_overlap(indexing):
    def run(L):
        s = L.tensor(1.5)
        a, b = L.meshgrid(s, s, indexing=indexing)
        out = [a.stride(), b.stride()]
        try:
            a[-1] = b
            out.append(a)
        except RuntimeError as exc:
            out.append(exc)
        return out
    same_on_both(run)


@pytest.mark.parametrize("shape,transpose,target", [
    ((), False, (1, 1)), ((1,), False, (1, 1)), ((1,), False, (2, 1, 1)),
    ((1, 1), False, (1, 1, 2)), ((1, 1), True, (2, 1, 2)), ((2, 1), True, (1, 1, 2)),
    ((1, 3), False, (1, 1, 3)), ((3, 1), True, (2, 1, 1, 3)), ((1, 1, 3), True, (1, 2, 1, 3)),
    ((2, 3), True, (1, 3, 2)), ((1,), False, (1,)), ((2,), False, (1, 2)),
])
def test_expand_strides_and_writes(shape, transpose, target):
    # strides, then the writes whose overlap checks read them: x[0] = x[-1] (the same memory:
    # copy_ returns early in PyTorch), copy_ onto itself, fill_ through the view
    base = np.arange(1.0, 1.0 + int(np.prod([s + 1 for s in shape])), dtype=np.float32)
    base = base.reshape([s + 1 for s in shape])

    def run(L):
        t = L.tensor(base)[tuple(slice(0, s) for s in shape)]
        if transpose and t.dim() >= 2:
            t = t.transpose(0, 1)
        e = t.expand(target)
        out = [e.stride(), e.is_contiguous(), e.storage_offset()]
        for write in (lambda: e.__setitem__(0, e[-1]), lambda: e[0].copy_(e[-1]),
                      lambda: e.copy_(e), lambda: e.fill_(2.0)):
            try:
                write()
                out.append(e.clone())
            except RuntimeError as exc:
                out.append(exc)
        return out
    same_on_both(run)


def test_copy_onto_itself_records_and_bumps():
    def run(L):
        x = L.tensor([0.5], requires_grad=True).clone()
        e = x.expand(1, 1, 3)
        e[0].copy_(e[-1])
        y = x * 2
        y.sum().backward()
        return x._version, type(x.grad_fn).__name__, e.stride()
    same_on_both(run)


# -- shrink_backward (hard- and softshrink): a NaN input passes the gradient in PyTorch's scalar
# loop but gives 0 in its vector loop; which elements run vectorized follows TensorIterator's
# walk (seed 120: a NaN from log1p through hardshrink). The lanes follow the iteration order,
# also for the max/min signed-zero ties that share them (a transposed operand) --------------------
@pytest.mark.parametrize("fn", ["hardshrink", "softshrink"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("n", [5, 9, 17, 33, 40])
@pytest.mark.parametrize("layout", ["c", "t", "col"])
@pytest.mark.parametrize("upstream", ["given", "sum"])
def test_shrink_backward_nan_lanes(fn, dtype, n, layout, upstream):
    arr = np.random.default_rng(n).standard_normal((n, 3))
    arr[::3] = np.nan

    def run(L):
        x = L.tensor(arr.astype(dtype), requires_grad=True)
        v = x if layout == "c" else x.t() if layout == "t" else x[:, :1]
        y = getattr(L.nn.functional, fn)(v, 0.5)
        if upstream == "sum":
            y.sum().backward()
        else:
            y.backward(L.arange(1.0, y.numel() + 1).reshape(tuple(y.shape)).to(y.dtype))
        return x.grad
    same_on_both(run)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("shape,how", [((9, 20), "tt"), ((8, 20), "tt"), ((17, 9, 5), "pp"),
                                       ((1, 9, 17), "tp"), ((8, 20, 8), "pp"), ((9, 40), "tc")])
def test_max_min_zero_ties_follow_iteration_order(dtype, shape, how):
    rng = np.random.default_rng(sum(shape))
    a = np.where(rng.random(shape) < 0.6, 0.0, -0.0)
    b = -a

    def lay(L, arr, h):
        t = L.tensor(arr.astype(dtype))
        if h == "t":
            t = t.transpose(-1, -2)
        elif h == "p":
            t = t.permute(2, 0, 1)
        return t

    def run(L):
        x, y = lay(L, a, how[0]), lay(L, b, how[1])
        if x.shape != y.shape:
            y = y.reshape(x.shape) if y.numel() == x.numel() else y
        return [L.signbit(f(x, y)) for f in (L.maximum, L.minimum, L.Tensor.clamp_min)]
    same_on_both(run)


# -- vector_norm of an empty tensor with an inf/negative order: an out-of-range dim raises
# PyTorch's IndexError before the empty-reduction check (leafgrad indexed the shape first and
# leaked "tuple index out of range"; seed 121) ----------------------------------------------------
@pytest.mark.parametrize("p", [float("inf"), float("-inf"), -1.0, 2.0])
@pytest.mark.parametrize("dim", [-7, 6, (0, -7), -2, 1, (0, 1)])
def test_empty_norm_dim_checked_first(p, dim):
    def run(L):
        return L.norm(L.ones(2, 0, 1, 1, 1, 2), p=p, dim=dim)
    same_on_both(run)


# -- prod in PyTorch's order (Note [Product order] in ops/reduction.py): the vectorized inner
# reduction's lanes, float16 rounded at every product; NumPy's order (and its float32
# accumulator for float16) differed in the last bits (seed 121) -----------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((5,), None), ((33,), None), ((100,), None), ((3, 70), 1),
                                       ((5, 7), 1), ((70, 3), 0), ((9, 17), None), ((2, 80), -1)])
def test_prod_bits(dtype, shape, dim):
    x = np.exp(np.random.default_rng(sum(shape)).standard_normal(shape) * 0.05).astype(dtype)

    def run(L):
        t = L.tensor(x)
        r = t.prod() if dim is None else t.prod(dim)
        return r.numpy().view({"float16": np.uint16, "float32": np.uint32,
                               "float64": np.uint64}[dtype]).tolist()
    same_on_both(run)


# -- index_put: values must broadcast TO the indexed result ((4, 0) into (1, 0) is refused; a
# NumPy ValueError leaked, or the wrong message came; seed 122) -----------------------------------
@pytest.mark.parametrize("xs", [(4, 0), (4, 2)])
@pytest.mark.parametrize("vs", [(4, 0), (3, 0), (1, 0), (0,), (2,), (3, 2), (1, 1, 2)])
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_value_shape(xs, vs, accumulate):
    def run(L):
        values = L.ones(vs, dtype=L.float64)
        return L.zeros(xs, dtype=L.float64).index_put((L.tensor([1]),), values,
                                                      accumulate=accumulate)
    same_on_both(run)


# -- layer_norm of a float16 input with a float32 weight: the input's gradient is float16, as
# PyTorch's kernel gives (leafgrad's formula promoted it to float32; seed 122) --------------------
@pytest.mark.parametrize("with_bias", [False, True])
def test_layer_norm_mixed_dtype_grad_dtype(with_bias):
    def run(L):
        x = L.tensor([0.5, -1.0, 2.0], dtype=L.float16, requires_grad=True)
        w = L.tensor([1.5, 0.5, 2.0], requires_grad=True)
        b = L.tensor([0.1, 0.2, 0.3], requires_grad=True) if with_bias else None
        y = L.nn.functional.layer_norm(x, (3,), w, b, eps=0.1)
        g = L.autograd.grad(y, [x, w], L.ones(3, dtype=y.dtype))
        return [str(t.dtype) for t in g], y.dtype
    same_on_both(run)


# -- clamp with number bounds converts them to a float16/float32 tensor's type with c10's
# overflow check: a finite bound beyond the range raises (seed 122: the harness's
# clamp(-1e30, 1e30) of a float16 matrix) ---------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64"])
@pytest.mark.parametrize("call", ["clamp_both", "clamp_min_kw", "clamp_min", "clamp_max", "clip",
                                  "clamp_", "clamp_min_"])
@pytest.mark.parametrize("bound", [1e30, -65520.0, 65504.0, 3.4028235e38, float("inf"), 1e39])
def test_clamp_bound_overflow(dtype, call, bound):
    def run(L):
        x = L.tensor([1.0, -2.0]).to(getattr(L, dtype))
        f = {"clamp_both": lambda: x.clamp(-abs(bound), abs(bound)),
             "clamp_min_kw": lambda: x.clamp(min=bound), "clamp_min": lambda: x.clamp_min(bound),
             "clamp_max": lambda: x.clamp_max(bound), "clip": lambda: x.clip(bound),
             "clamp_": lambda: x.clone().clamp_(bound),
             "clamp_min_": lambda: x.clone().clamp_min_(bound)}[call]
        return f()
    same_on_both(run)


# -- dist of empty tensors with an inf or negative order raises as PyTorch's vector_norm (no
# identity), where leafgrad returned 0 (or leaked NumPy's "zero-size array" ValueError; seed 123)
@pytest.mark.parametrize("p", [float("inf"), float("-inf"), -1.0, -2, 0.0, 2.0])
@pytest.mark.parametrize("shapes", [((0,), (0,)), ((0,), (1,)), ((0,), ()), ((2, 0), (0,))])
def test_dist_empty(p, shapes):
    def run(L):
        return L.dist(L.ones(shapes[0]), L.ones(shapes[1]), p)
    same_on_both(run)


# -- harness: nanmedian(dim) of an expanded input has no oracle (PyTorch reads memory it did not
# set; Note [median of an expanded input] in ops_table_extra.py): both sides get a contiguous
# copy, so the program compares (seed 123, x5) ----------------------------------------------------
SEED_123_NANMEDIAN = "Program(leaves=[Leaf(shape=(1, 4, 1), dtype='float32', requires_grad=True, seed=38, scale=3.0), Leaf(shape=(1, 1, 1, 3), dtype='float16', requires_grad=True, seed=376, scale=0.1)], steps=[Step(op='clamp', seed=65536, no_grad=False), Step(op='addcmul', seed=51018, no_grad=False), Step(op='expand', seed=140, no_grad=True), Step(op='sub', seed=500, no_grad=False), Step(op='minimum', seed=8381, no_grad=False), Step(op='unique_search', seed=45674, no_grad=False), Step(op='predicates', seed=46628, no_grad=False)], ending=Ending(kind='grad', seed=55, retain_graph=True, create_graph=True, twice=False, allow_unused=True, give_gradient=False))"


def test_nanmedian_of_expanded_input_is_compared_contiguous():
    import torch
    e = torch.tensor([[1.0], [2.0], [3.0]]).expand(3, 2)
    assert 0 in e.stride()   # (the harness's condition holds on torch's side)
    from .programs import Ending, Leaf, Program, Step, check  # noqa: F401
    check(eval(SEED_123_NANMEDIAN))


# -- polygamma at infinities: n = 1 gives 0 at +inf and NaN at -inf, n >= 2 NaN at +inf (ATen's
# zeta: 0 * inf) and +-inf at -inf (a pole); leafgrad gave 0 and hung at -inf (its zeta climbed
# from -inf towards its shift forever; seed 124) --------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_polygamma_infinities(n, dtype):
    def run(L):
        x = L.tensor([float("inf"), float("-inf"), float("nan")]).to(getattr(L, dtype))
        y = L.polygamma(n, x)
        return L.isnan(y), L.isinf(y), L.signbit(y) & ~L.isnan(y)   # (a NaN's sign aside)
    same_on_both(run)


# -- the 3-d upsampling kernels' names for integer inputs: a channels-last-3d input of more than
# 3 channels (an (N, C, 1, 1, 1) tensor is one) takes the channels-last kernel (seed 124) ---------
@pytest.mark.parametrize("shape,cl", [((3, 4, 1, 1, 1), False), ((3, 4, 2, 2, 2), False),
                                      ((3, 4, 2, 2, 2), True), ((3, 3, 1, 1, 1), False),
                                      ((2, 5, 2, 1, 1), True)])
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "trilinear"])
@pytest.mark.parametrize("dtype", ["bool", "int64", "uint8"])
def test_upsample_3d_kernel_names(shape, cl, mode, dtype):
    def run(L):
        x = L.ones(shape, dtype=getattr(L, dtype))
        if cl:
            x = x.permute(0, 2, 3, 4, 1).contiguous().permute(0, 4, 1, 2, 3)
        return L.nn.functional.interpolate(x, scale_factor=1.5, mode=mode)
    same_on_both(run)


# -- embedding's weight gradient with an empty embedding dim (a (4, 0) weight): NumPy's
# reshape(-1, 0) leaked a ValueError (seed 124) ---------------------------------------------------
@pytest.mark.parametrize("idx", [[[3, 0], [1, 3]], [], [2]])
@pytest.mark.parametrize("pad", [None, -1, 0])
@pytest.mark.parametrize("create_graph", [False, True])
def test_embedding_backward_empty_dim(idx, pad, create_graph):
    def run(L):
        w = L.zeros((4, 0), dtype=L.float64, requires_grad=True)
        y = L.nn.functional.embedding(L.tensor(idx, dtype=L.long), w, padding_idx=pad)
        g, = L.autograd.grad(y, [w], L.ones(y.shape, dtype=L.float64), create_graph=create_graph)
        return g
    same_on_both(run)


# -- glu checks the dim and the halving before the dtype (a bool input with dim 2 raises
# IndexError, not the kernel's NotImplementedError; seed 125) -------------------------------------
@pytest.mark.parametrize("shape,dtype", [((1, 3), "bool"), ((1, 4), "bool"), ((), "bool"),
                                         ((1, 3), "int64"), ((2, 2), "float32")])
@pytest.mark.parametrize("dim", [-1, 0, 1, 2, -3])
def test_glu_checks_before_dtype(shape, dtype, dim):
    def run(L):
        return L.nn.functional.glu(L.ones(shape, dtype=getattr(L, dtype)), dim)
    same_on_both(run)
