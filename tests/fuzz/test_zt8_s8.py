"""Session 8, zt8: PyTorch's ZeroTensor gradients ("ZeroTensors are immutable", seed 27 x11).

``sgn`` of a real input has an immutable "efficient zero tensor" as its gradient: a leaf's
``.grad`` may be one (``_is_zerotensor()``), a second backward accumulating into it or any
in-place change of it raises, and it stays one through the ops PyTorch gives a zero-tensor
rule (mul, div, add of two, views) and the formulas made of them. Each statement runs on
leafgrad and torch and compares values, ``_is_zerotensor()``, error types and texts."""
from __future__ import annotations

import copy
import io
import pickle

import numpy as np
import pytest
from oracle import same_on_both


def _x(L, dtype="float32"):
    return L.tensor([0.5, -1.5, 2.0], dtype=getattr(L, dtype), requires_grad=True)


def _zt(t):
    """What a user sees of a tensor: zero-tensor flag, values (signs of zeros too), dtype."""
    if t is None:
        return None
    arr = t.detach().numpy(force=True)
    return (t._is_zerotensor(), str(t.dtype), tuple(t.shape), arr.tolist(),
            np.signbit(arr).tolist() if arr.dtype.kind == "f" else None, t.requires_grad,
            None if t.grad_fn is None else type(t.grad_fn).__name__)


def _sgn_grad(L, dtype="float32"):
    x = _x(L, dtype)
    x.sgn().sum().backward()
    return x


# -- the brief's statements ------------------------------------------------------------------
def test_second_backward_refused():
    def run(L):
        x = _x(L)
        y = x.sgn().sum()
        y.backward(retain_graph=True)
        first = (_zt(x.grad), str(x.grad))
        try:
            y.backward()
        except RuntimeError as e:
            return first, str(e), _zt(x.grad)
        return first, None
    same_on_both(run)


@pytest.mark.parametrize("create_graph", [False, True])
def test_autograd_grad_is_zerotensor(create_graph):
    same_on_both(lambda L: _zt(_grad_of(L, create_graph)))


def _grad_of(L, create_graph):
    x = _x(L)
    return L.autograd.grad(x.sgn().sum(), x, create_graph=create_graph)[0]


def test_floor_plus_x_not_zero():
    def run(L):
        x = _x(L)
        (x.floor() + x).sum().backward()
        a = _x(L)
        (a.sgn() + a).sum().backward()   # zero tensor + gradient: the gradient
        b = _x(L)
        (b.sgn() + b.sgn()).sum().backward()   # two zero tensors: one
        return _zt(x.grad), _zt(a.grad), _zt(b.grad)
    same_on_both(run)


@pytest.mark.parametrize("opt", ["SGD_momentum", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_optimizers_read_zero_grads(opt):
    def run(L):
        x = _sgn_grad(L)
        o = (L.optim.SGD([x], lr=0.1, momentum=0.9) if opt == "SGD_momentum"
             else getattr(L.optim, opt)([x], lr=0.1))
        o.step()
        o.step()
        return _zt(x.grad), x.detach().numpy().tolist()
    same_on_both(run)


# -- the engine: accumulation, hooks, retain_grad ----------------------------------------------
def test_gradient_into_zero_grad_refused():
    def run(L):
        x = _sgn_grad(L)
        try:
            (x * 2).sum().backward()
        except RuntimeError as e:
            return str(e)
    same_on_both(run)


def test_zero_into_gradient_accumulates():
    def run(L):
        x = _x(L)
        (x * 2).sum().backward()
        x.sgn().sum().backward()
        y = _sgn_grad(L)
        y.sgn().sum().backward(create_graph=True)   # out of place under create_graph
        return _zt(x.grad), _zt(y.grad)
    same_on_both(run)


@pytest.mark.parametrize("hook", ["none", "keep", "double", "plus1", "clone"])
def test_leaf_hook(hook):
    def run(L):
        x = _x(L)
        seen = []
        fns = {"none": lambda g: seen.append(g._is_zerotensor()), "keep": seen.append,
               "double": lambda g: g * 2, "plus1": lambda g: g + 1, "clone": lambda g: g.clone()}
        x.register_hook(fns[hook])
        x.sgn().sum().backward()
        return _zt(x.grad), [s if isinstance(s, bool) else _zt(s) for s in seen]
    same_on_both(run)


def test_post_accumulate_hook_and_retain_grad():
    def run(L):
        x = _x(L)
        seen = []
        x.register_post_accumulate_grad_hook(lambda p: seen.append(_zt(p.grad)))
        a = x * 1
        a.retain_grad()
        a.register_hook(lambda g: seen.append(_zt(g)))
        a.sgn().sum().backward(retain_graph=True)
        out = [seen, _zt(a.grad), _zt(x.grad)]
        try:
            a.sgn().sum().backward()
        except RuntimeError as e:
            out.append(str(e))
        return out
    same_on_both(run)


_CHAINS = {
    "mul": lambda L, x: x * 3, "mul_neg": lambda L, x: x * -3, "neg": lambda L, x: -x,
    "exp": lambda L, x: x.exp(), "sin": lambda L, x: x.sin(), "log": lambda L, x: x.abs().log(),
    "sqrt": lambda L, x: x.abs().sqrt(), "abs": lambda L, x: x.abs(), "pow2": lambda L, x: x ** 2,
    "square": lambda L, x: x.square(), "reciprocal": lambda L, x: x.reciprocal(),
    "div": lambda L, x: x / 2, "rdiv": lambda L, x: 1 / x, "add": lambda L, x: x + 1,
    "sub": lambda L, x: x - 1, "rsub": lambda L, x: 1 - x, "clone": lambda L, x: x.clone(),
    "view": lambda L, x: x.view(3, 1), "t": lambda L, x: x.view(1, 3).t(),
    "unsqueeze": lambda L, x: x.unsqueeze(1), "expand": lambda L, x: x.unsqueeze(0).expand(2, 3),
    "expand_as": lambda L, x: x[:1].expand(3), "slice": lambda L, x: x[1:],
    "select": lambda L, x: x[0], "index": lambda L, x: x[[0, 1]], "to": lambda L, x: x.double(),
    "half": lambda L, x: x.half(), "relu": lambda L, x: x.relu(), "sgn": lambda L, x: x.sgn(),
    "sum": lambda L, x: x.sum(), "mean": lambda L, x: x.mean(), "cat": lambda L, x: L.cat([x, x]),
    "stack": lambda L, x: L.stack([x, x]), "matmul": lambda L, x: x @ L.ones(3, 2),
    "mul_inf": lambda L, x: x * float("inf"), "where": lambda L, x: L.where(x > 0, x, 0.0),
    "clamp": lambda L, x: x.clamp(-1, 1), "sigmoid": lambda L, x: x.sigmoid(),
    "tanh": lambda L, x: x.tanh(), "gelu": lambda L, x: L.nn.functional.gelu(x),
    "silu": lambda L, x: L.nn.functional.silu(x), "softmax": lambda L, x: x.softmax(0),
    "log_softmax": lambda L, x: x.log_softmax(0), "amax": lambda L, x: x.amax(),
    "max": lambda L, x: x.max(), "norm": lambda L, x: x.norm(), "cumsum": lambda L, x: x.cumsum(0),
    "mul_x": lambda L, x: x * x, "addcmul": lambda L, x: L.addcmul(x, x, x),
    "lerp": lambda L, x: L.lerp(x, L.ones(3), 0.3), "repeat": lambda L, x: x.repeat(2),
    "flip": lambda L, x: x.flip(0), "permute": lambda L, x: x.view(1, 3).permute(1, 0),
    "linear": lambda L, x: L.nn.functional.linear(x, L.ones(2, 3)),
    "f64_mul": lambda L, x: x * L.ones(3, dtype=L.float64), "deg2rad": lambda L, x: x.deg2rad(),
    "exp2": lambda L, x: x.exp2(), "rsqrt": lambda L, x: x.abs().rsqrt(),
    "dot": lambda L, x: L.dot(x, L.ones(3)), "cross": lambda L, x: L.linalg.cross(x, L.ones(3)),
    "var": lambda L, x: x.var(), "prod": lambda L, x: x.prod(0),
}


@pytest.mark.parametrize("name", sorted(_CHAINS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zero_gradient_through_op(name, dtype):
    # the leaf's gradient after an op and sgn: a zero tensor where PyTorch's formula keeps it
    def run(L):
        x = _x(L, dtype)
        _CHAINS[name](L, x).sgn().sum().backward(retain_graph=True)
        return _zt(x.grad)
    same_on_both(run)


@pytest.mark.parametrize("name", ["std", "std_dim", "std_mean", "norm3", "dist3", "aminmax_both",
                                  "norm2", "norm1", "norm_inf", "norm05", "dist2", "var_mean"])
def test_formulas_that_write_into_the_gradient(name):
    # PyTorch's std / p-norm (p > 1, not 2) / aminmax formulas masked_fill_ a product of the
    # incoming zero tensor: they refuse it
    ops = {"std": lambda L, x: x.std(), "std_dim": lambda L, x: x.std(1),
           "std_mean": lambda L, x: L.std_mean(x)[0], "norm3": lambda L, x: x.norm(3),
           "dist3": lambda L, x: L.dist(x, L.ones(2, 3), 3),
           "aminmax_both": lambda L, x: sum(x.aminmax()),
           "norm2": lambda L, x: x.norm(),
           "norm1": lambda L, x: x.norm(1), "norm_inf": lambda L, x: x.norm(float("inf")),
           "norm05": lambda L, x: x.norm(0.5), "dist2": lambda L, x: L.dist(x, L.ones(2, 3)),
           "var_mean": lambda L, x: L.var_mean(x)[0]}

    def run(L):
        x = L.tensor([[0.5, -1.5, 2.0], [1.0, 3.0, -2.0]], dtype=L.float64, requires_grad=True)
        return _zt(L.autograd.grad(ops[name](L, x).sgn(), x)[0])
    same_on_both(run)


# -- in-place changes of a zero tensor -------------------------------------------------------
_INPLACE = {
    "zero_": lambda L, g: g.zero_(), "add_": lambda L, g: g.add_(1), "mul_": lambda L, g: g.mul_(2),
    "iadd": lambda L, g: g.__iadd__(1), "fill_": lambda L, g: g.fill_(1),
    "fill_t": lambda L, g: g.fill_(L.tensor(1.0)), "copy_": lambda L, g: g.copy_(L.ones(3)),
    "copy_bad": lambda L, g: g.copy_(L.ones(4)), "setitem": lambda L, g: g.__setitem__(0, 1.0),
    "setitem_t": lambda L, g: g.__setitem__(slice(0, 2), L.ones(2)),
    "setitem_0d": lambda L, g: g.__setitem__(slice(0, 2), L.tensor(1.0)),
    "setitem_0d_at": lambda L, g: g.__setitem__(0, L.tensor(1.0)),
    "setitem_adv": lambda L, g: g.__setitem__([0], 1.0),
    "setitem_all": lambda L, g: g.__setitem__(..., 1.0),
    "data_add_": lambda L, g: g.data.add_(1), "detach_zero_": lambda L, g: g.detach().zero_(),
    "view_add_": lambda L, g: g.view(3).add_(1),
    "expand_add_": lambda L, g: g.expand(2, 3).add_(1),
    "expand_zero_": lambda L, g: g.expand(2, 3).zero_(),
    "abs_": lambda L, g: g.abs_(), "uniform_": lambda L, g: g.uniform_(),
    "normal_": lambda L, g: g.normal_(), "clamp_": lambda L, g: g.clamp_(0, 1),
    "masked_fill_": lambda L, g: g.masked_fill_(g == 0, 1.0),
    "index_put_": lambda L, g: g.index_put_((L.tensor([0]),), L.tensor(1.0)),
    "scatter_": lambda L, g: g.scatter_(0, L.tensor([0]), 1.0),
    "add_bad": lambda L, g: g.add_(L.ones(4)), "exp_": lambda L, g: g.exp_(),
    "relu_": lambda L, g: g.relu_(), "sub_": lambda L, g: g.sub_(1), "div_": lambda L, g: g.div_(2),
    "pow_": lambda L, g: g.pow_(2), "lerp_": lambda L, g: g.lerp_(L.ones(3), 0.5),
    "addcmul_": lambda L, g: g.addcmul_(L.ones(3), L.ones(3)),
    "index_fill_": lambda L, g: g.index_fill_(0, L.tensor([0]), 1.0),
    "index_add_": lambda L, g: g.index_add_(0, L.tensor([0]), L.ones(1)),
    "cumsum_": lambda L, g: g.cumsum_(0), "nan_to_num_": lambda L, g: g.nan_to_num_(),
    "out": lambda L, g: L.add(L.ones(3), 1, out=g),
    "unsqueeze_": lambda L, g: g.detach().unsqueeze_(0), "t_": lambda L, g: g.detach().t_(),
    "squeeze_": lambda L, g: g.detach().squeeze_(),
    "requires_grad_": lambda L, g: g.detach().requires_grad_(),
    "requires_grad_add_": lambda L, g: g.detach().requires_grad_().add_(1),
    "nonleaf_copy_": lambda L, g: (g.detach().requires_grad_() * 2).copy_(L.ones(3)),
    "zero_grad": lambda L, g: None, "clip_grad_norm_": lambda L, g: None,
    "clip_grad_value_": lambda L, g: None,
}


@pytest.mark.parametrize("name", sorted(_INPLACE))
def test_inplace_on_zero_grad(name):
    def run(L):
        x = _sgn_grad(L)
        try:
            if name == "zero_grad":
                L.optim.SGD([x], lr=0.1).zero_grad(set_to_none=False)
                out = x.grad
            elif name == "clip_grad_norm_":
                out = L.nn.utils.clip_grad_norm_([x], 1.0)
            elif name == "clip_grad_value_":
                out = L.nn.utils.clip_grad_value_([x], 1.0)
            else:
                out = _INPLACE[name](L, x.grad)
        except (RuntimeError, TypeError) as e:
            return type(e).__name__, str(e), _zt(x.grad)
        return _zt(out) if out is not None else None, _zt(x.grad)
    same_on_both(run)


# -- what a zero tensor is in other ops ----------------------------------------------------
_OPS = {
    "clone": lambda L, z: z.clone(), "detach": lambda L, z: z.detach(), "data": lambda L, z: z.data,
    "mul2": lambda L, z: z * 2, "plus1": lambda L, z: z + 1, "neg": lambda L, z: -z,
    "eq": lambda L, z: z == 0, "sum": lambda L, z: z.sum(), "to64": lambda L, z: z.double(),
    "float": lambda L, z: z.float(), "z_div0": lambda L, z: z / 0, "z_mul_nan": lambda L, z: z * float("nan"),
    "g_div_z": lambda L, z: L.ones(3) / z, "z_sub_g": lambda L, z: z - L.tensor([0.0, 1.0, -0.0]),
    "z_add_g": lambda L, z: z + L.tensor([-0.0, 1.0, 2.0]),
    "g_add_z": lambda L, z: L.tensor([-0.0, 1.0, 2.0]) + z, "z_add_z": lambda L, z: z + z,
    "z_mul_z": lambda L, z: z * z, "z_add_g_alpha": lambda L, z: L.add(z, L.tensor([-0.0, 1.0, 2.0]), alpha=2),
    "fancy": lambda L, z: z[[0, 1]], "mask": lambda L, z: z[z == 0], "unbind": lambda L, z: z.unbind()[0],
    "chunk": lambda L, z: z.chunk(3)[0], "contig": lambda L, z: z.view(3, 1).t().contiguous(),
    "sum_keep": lambda L, z: z.sum(0, keepdim=True), "dot": lambda L, z: L.dot(z, L.ones(3)),
    "matmul_vv": lambda L, z: z @ L.ones(3), "matmul_mv": lambda L, z: L.ones(2, 3) @ z,
    "where": lambda L, z: L.where(z > 0, z, 1.0), "into_copy_": lambda L, z: L.ones(3).copy_(z),
    "expand": lambda L, z: z.expand(2, 3), "reshape": lambda L, z: z.reshape(3, 1),
    "item": lambda L, z: z[0].item(), "str": lambda L, z: str(z), "repr": lambda L, z: repr(z * 2),
    "stride": lambda L, z: z.stride(), "is_contiguous": lambda L, z: z.is_contiguous(),
    "numpy_force": lambda L, z: z.numpy(force=True).tolist(),
}


@pytest.mark.parametrize("name", sorted(_OPS))
def test_ops_on_zero_grad(name):
    def run(L):
        out = _OPS[name](L, _sgn_grad(L).grad)
        return _zt(out) if hasattr(out, "_is_zerotensor") else out
    same_on_both(run)


@pytest.mark.parametrize("name", ["numpy", "tolist", "pickle", "deepcopy", "asarray"])
def test_zero_tensor_refuses_conversion(name):
    def run(L):
        z = _sgn_grad(L).grad
        try:
            {"numpy": lambda: z.numpy(), "tolist": z.tolist, "pickle": lambda: pickle.dumps(z),
             "deepcopy": lambda: copy.deepcopy(z), "asarray": lambda: np.asarray(z)}[name]()
        except RuntimeError as e:
            return str(e)
    same_on_both(run)


def test_save_refuses_zero_tensor():
    import leafgrad
    import torch
    out = []
    for L in (leafgrad, torch):
        try:
            L.save(_sgn_grad(L).grad, io.BytesIO())
        except RuntimeError as e:
            out.append(str(e))
    assert out[0] == out[1]


def test_efficientzerotensor_function():
    def run(L):
        z = L._efficientzerotensor((2, 3), dtype=L.float64)
        return _zt(z), _zt(z * L.ones(2, 3)), _zt(L._efficientzerotensor(2))
    same_on_both(run)


# -- the fuzz programs (seed 27) ---------------------------------------------------------------
@pytest.mark.parametrize("program", ["SEED27_TWICE", "SEED27_GRAD"])
def test_seed27_programs(program):
    from .programs import Ending, Leaf, Program, Step, difference  # noqa: F401 (eval)
    assert difference(eval(globals()[program])) is None


SEED27_TWICE = "Program(leaves=[Leaf(shape=(1,), dtype='float32', requires_grad=True, seed=513, scale=3.0), Leaf(shape=(1, 1, 1), dtype='bool', requires_grad=False, seed=963, scale=1.0), Leaf(shape=(), dtype='float64', requires_grad=True, seed=2, scale=1.0), Leaf(shape=(), dtype='int64', requires_grad=False, seed=7729, scale=1.0)], steps=[Step(op='pad', seed=3687, no_grad=False), Step(op='where', seed=9138, no_grad=False), Step(op='matmul', seed=292, no_grad=False), Step(op='pointwise_extra', seed=255, no_grad=False), Step(op='matmul', seed=395, no_grad=False), Step(op='triangular', seed=300, no_grad=False), Step(op='sgn', seed=14426, no_grad=False)], ending=Ending(kind='backward', seed=1047, retain_graph=True, create_graph=False, twice=True, allow_unused=True, give_gradient=False))"  # noqa: E501
SEED27_GRAD = "Program(leaves=[Leaf(shape=(2,), dtype='int64', requires_grad=False, seed=65535, scale=3.0), Leaf(shape=(3, 1, 1, 1), dtype='float64', requires_grad=True, seed=38966, scale=3.0)], steps=[Step(op='pointwise_extra', seed=43867, no_grad=False), Step(op='isclose', seed=65536, no_grad=False), Step(op='linalg_products', seed=29222, no_grad=False), Step(op='loss_extra', seed=9142, no_grad=False), Step(op='narrow_split', seed=12684, no_grad=False), Step(op='reduce_dim', seed=1605, no_grad=False), Step(op='sgn', seed=8258, no_grad=False)], ending=Ending(kind='grad', seed=255, retain_graph=True, create_graph=True, twice=False, allow_unused=None, give_gradient=True))"  # noqa: E501
