"""Session 9, zt9: ZeroTensor corners (einsum's gradients, promotion, in-place ops) and
saved-tensor-hook pack sets, each statement run on leafgrad and torch and compared."""
from __future__ import annotations

import numpy as np
import pytest
from oracle import same_on_both


def _zt(t, signs=True):
    """What a user sees: the zero-tensor flag, dtype, values with the signs of zeros (a zero
    tensor's values cannot be read in torch), requires_grad, the grad_fn's name."""
    if t is None:
        return None
    zero = t._is_zerotensor()
    vals = None if zero else [(v, str(v) if signs else None)
                              for v in t.detach().flatten().tolist()]
    return (zero, str(t.dtype), tuple(t.shape), vals, t.requires_grad,
            None if t.grad_fn is None else t.grad_fn.name())


# -- (a) einsum's gradients of a zero-tensor output gradient: PyTorch's einsum is views, sums,
# multiplies (a zero tensor stays one unless its broadcast is summed back) and bmm (ordinary
# gradients, for every operand before it too). (The signs of those ordinary zeros are not
# compared: PyTorch's come from its bmm's +0 times the operands multiplied after it; leafgrad
# gives +0) ------------------------------------------------------------------------------------
_EQS = {"i,i->": [(3,), (3,)], "ij,jk->ik": [(2, 3), (3, 4)], "ij,j->i": [(2, 3), (3,)],
        "ij,ij->": [(2, 3), (2, 3)], "ij,ij->i": [(2, 3), (2, 3)], "ij,k->": [(2, 3), (4,)],
        "ij,k->i": [(2, 3), (4,)], "ij,k->k": [(2, 3), (4,)], "ij,jk->ijk": [(2, 3), (3, 4)],
        "ij,j->j": [(2, 3), (3,)], "ij,i->j": [(2, 3), (2,)],
        "ij,jk,kl->il": [(2, 3), (3, 2), (2, 2)], "i,i,i->": [(3,), (3,), (3,)],
        "i,i,i->i": [(3,), (3,), (3,)], "ij,jk,k->i": [(2, 3), (3, 4), (4,)],
        "bij,bjk->bik": [(2, 2, 3), (2, 3, 2)], "ij,j,k->": [(2, 3), (3,), (2,)],
        "ij->j": [(2, 3)], "ij->": [(2, 3)], "ii->": [(3, 3)], "ii->i": [(3, 3)],
        "ij->ji": [(2, 3)], "i,j->": [(2,), (3,)], "ij,ij->j": [(2, 3), (2, 3)],
        "ij,kj->i": [(2, 3), (4, 3)], "...i,...i->...": [(2, 3), (2, 3)],
        "i,i->i": [(3,), (3,)], "ij,i->ij": [(2, 3), (2,)], "ij,ij->ij": [(2, 3), (1, 3)],
        "ij,jk->ik ": [(2, 1), (1, 4)]}


@pytest.mark.parametrize("eq", list(_EQS))
@pytest.mark.parametrize("how", ["backward", "grad", "create_graph"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_einsum_zero_tensor_gradients(eq, how, dtype):
    def run(L):
        ts = [L.tensor(np.random.RandomState(i).randn(*s), dtype=getattr(L, dtype),
                       requires_grad=True) for i, s in enumerate(_EQS[eq])]
        y = L.einsum(eq.strip(), *ts)
        if how == "backward":
            y.sgn().sum().backward()
            return [_zt(t.grad, False) for t in ts]
        gs = L.autograd.grad(y.sgn().sum(), ts, create_graph=how == "create_graph")
        return [_zt(g, False) for g in gs]
    same_on_both(run)


def test_einsum_permutation_of_zero_tensor():
    same_on_both(lambda L: [_zt(L.einsum(eq, L._efficientzerotensor((2, 3))))
                            for eq in ("ij->ji", "ij->ij", "ij->j", "ij->")])


# -- (b) type promotion keeps the mark: a zero tensor times / over / plus an operand of
# another dtype is a zero tensor of the promoted dtype; z / z is 0/0 (ordinary NaN);
# a zero tensor's sub skips the bool-operand check ------------------------------------------
_OTHERS = ["float32", "float64", "float16", "int64", "bool", "z32", "z64", "z16", 1.5, 2,
           True, "0d64", "0d32"]


def _other(L, o):
    if not isinstance(o, str):
        return o
    if o.startswith("z"):
        return L._efficientzerotensor(2, dtype=getattr(L, "float" + o[1:]))
    if o.startswith("0d"):
        return L.tensor(2.0, dtype=getattr(L, "float" + o[2:]))
    return L.ones(2, dtype=getattr(L, o)) * (2 if o != "bool" else 1)


@pytest.mark.parametrize("zd", ["float32", "float64", "float16"])
@pytest.mark.parametrize("o", _OTHERS)
@pytest.mark.parametrize("op", ["mul", "rmul", "div", "rdiv", "add", "sub", "rsub"])
def test_zero_tensor_promotion(zd, o, op):
    fns = {"mul": lambda a, b: a * b, "rmul": lambda a, b: b * a, "div": lambda a, b: a / b,
           "rdiv": lambda a, b: b / a, "add": lambda a, b: a + b, "sub": lambda a, b: a - b,
           "rsub": lambda a, b: b - a}

    def run(L):
        z = L._efficientzerotensor(2, dtype=getattr(L, zd))
        r = fns[op](z, _other(L, o))
        return _zt(r) if r._is_zerotensor() else (False, str(r.dtype), str(r.tolist()))
    same_on_both(run)


def test_zero_tensor_sgn_grad_times_float64():
    def run(L):
        x = L.tensor([0.5, -1.5], requires_grad=True)
        g, = L.autograd.grad(x.sgn().sum(), x)
        return _zt(g * L.ones(2, dtype=L.float64)), _zt(g.mul(L.tensor(3.0, dtype=L.float64)))
    same_on_both(run)


# -- (c) in-place ops take a zero-tensor operand as plain zeros: x.mul_(z) is x * 0 --------------
_INPLACE = {
    "mul_": lambda L, x, z: x.mul_(z), "imul": lambda L, x, z: x.__imul__(z),
    "mul_64": lambda L, x, z: x.mul_(z.double()),
    "mul_z64": lambda L, x, z: x.mul_(L._efficientzerotensor(2, dtype=L.float64)),
    "div_": lambda L, x, z: x.div_(z), "add_": lambda L, x, z: x.add_(z, alpha=2),
    "sub_": lambda L, x, z: x.sub_(z), "addcmul_": lambda L, x, z: x.addcmul_(z, x),
    "lerp_": lambda L, x, z: x.lerp_(z, 0.5), "copy_": lambda L, x, z: x.copy_(z),
    "clamp_": lambda L, x, z: x.clamp_(z), "bcast": lambda L, x, z: L.ones(3, 2).mul_(z),
    "z.mul_": lambda L, x, z: z.mul_(x), "z.add_": lambda L, x, z: z.add_(1),
}


@pytest.mark.parametrize("name", list(_INPLACE))
def test_inplace_with_zero_tensor_operand(name):
    def run(L):
        x = L.tensor([1.5, -2.0, float("inf"), float("-inf")][:2], dtype=L.float32)
        return _zt(_INPLACE[name](L, x, L._efficientzerotensor(2)))
    same_on_both(run)


def test_inplace_mul_by_sgn_gradient():
    def run(L):
        x0 = L.tensor([1.5, -2.0, 0.5], requires_grad=True)
        x = x0 * 1
        g, = L.autograd.grad(x.sgn().sum(), x, retain_graph=True)
        y = x0.detach().clone().mul_(g)
        w = x0.clone()
        w.mul_(g)
        return _zt(y), _zt(w), _zt(L.autograd.grad(w.sum(), x0)[0])
    same_on_both(run)


# -- (d) create_graph: zero tensors with history accumulate and differentiate as PyTorch's ----
def test_create_graph_zero_tensors_with_history():
    def run(L):
        x = L.tensor([1.5, -2.0, 0.5], requires_grad=True)
        w = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        gx, gw = L.autograd.grad((x * w).sgn().sum(), (x, w), create_graph=True)
        g2 = L.autograd.grad(gx.sum() + gw.sum(), (x, w), allow_unused=True)
        e, = L.autograd.grad((x.exp()).sgn().sum(), x, create_graph=True)
        return _zt(gx), _zt(gw), [_zt(v) for v in g2], _zt(e), _zt(e * x), _zt(e + 1)
    same_on_both(run)


# -- saved-tensor hooks see the statistics PyTorch's norm and loss nodes save after their
# arguments (layer_norm's mean / rstd, batch_norm's save_mean / save_invstd, group_norm's
# mean / rstd outputs, nll_loss's total_weight): count, shapes, dtypes, order --------------------
def _fn(L):
    return L.nn.functional


_HOOKED = {
    "layer_norm": lambda L, x, w, b: _fn(L).layer_norm(x, (3,), w, b),
    "layer_norm_nowb": lambda L, x, w, b: _fn(L).layer_norm(x, (3,)),
    "layer_norm_w": lambda L, x, w, b: _fn(L).layer_norm(x, (3,), w),
    "layer_norm_2d": lambda L, x, w, b: _fn(L).layer_norm(x, (2, 3)),
    "batch_norm_train": lambda L, x, w, b: _fn(L).batch_norm(x, L.zeros(3), L.ones(3), w, b,
                                                             training=True),
    "batch_norm_no_running": lambda L, x, w, b: _fn(L).batch_norm(x, None, None, w, b,
                                                                  training=True),
    "batch_norm_eval": lambda L, x, w, b: _fn(L).batch_norm(x, L.zeros(3), L.ones(3), w, b,
                                                            training=False),
    "batch_norm_nowb": lambda L, x, w, b: _fn(L).batch_norm(x, L.zeros(3), L.ones(3),
                                                            training=True),
    "nll_loss": lambda L, x, w, b: _fn(L).nll_loss(x.log_softmax(1), L.tensor([0, 2])),
    "nll_loss_weight": lambda L, x, w, b: _fn(L).nll_loss(
        x.log_softmax(1), L.tensor([0, 2]), weight=L.tensor([1.0, 2.0, 3.0]), ignore_index=2),
    "nll_loss_none": lambda L, x, w, b: _fn(L).nll_loss(x, L.tensor([0, 2]), reduction="none"),
    "nll_loss_sum": lambda L, x, w, b: _fn(L).nll_loss(x, L.tensor([0, 2]), reduction="sum"),
    "nll_loss_1d": lambda L, x, w, b: _fn(L).nll_loss(x[0], L.tensor(1)),
    "cross_entropy": lambda L, x, w, b: _fn(L).cross_entropy(x, L.tensor([0, 2])),
    "group_norm": lambda L, x, w, b: _fn(L).group_norm(x.reshape(2, 3, 1), 3, w, b),
    "instance_norm": lambda L, x, w, b: _fn(L).instance_norm(x.reshape(1, 2, 3)),
    "layer_norm_double": lambda L, x, w, b: _fn(L).layer_norm(x.double(), (3,)),
}


@pytest.mark.parametrize("name", list(_HOOKED))
def test_saved_tensor_hooks_pack_statistics(name):
    def run(L):
        events = []

        def pack(t):
            # (PyTorch packs the inputs before its kernel updates the running statistics in
            # place, leafgrad after: their values are not compared)
            values = None if name.startswith("batch_norm") else np.round(
                t.detach().numpy().astype(np.float64), 4).tolist()
            events.append(("pack", tuple(t.shape), str(t.dtype), t.requires_grad,
                           None if t.grad_fn is None else type(t.grad_fn).__name__, values))
            return t

        def unpack(t):
            events.append(("unpack", tuple(t.shape), str(t.dtype)))
            return t
        x = L.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
        w = L.tensor([0.3, -0.2, 0.9], requires_grad=True)
        b = L.tensor([0.1, 0.2, 0.3], requires_grad=True)
        with L.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = _HOOKED[name](L, x, w, b)
        y.sum().backward()
        return events, type(y.grad_fn).__name__, x.grad
    same_on_both(run)


# -- in-place ops under hooks: the old self PyTorch saves is ``self.clone()`` (CloneBackward0),
# and a saved output is ``self`` itself after the op (version bumped), not a temporary ---------
_INPLACE_HOOKED = {
    "mul_": lambda L, y, w: y.mul_(w), "div_": lambda L, y, w: y.div_(w),
    "pow_": lambda L, y, w: y.pow_(2), "clamp_": lambda L, y, w: y.clamp_(0, 1),
    "exp_": lambda L, y, w: y.exp_(), "sigmoid_": lambda L, y, w: y.sigmoid_(),
    "tanh_": lambda L, y, w: y.tanh_(), "relu_": lambda L, y, w: y.relu_(),
    "sqrt_": lambda L, y, w: y.abs_().sqrt_(), "addcmul_": lambda L, y, w: y.addcmul_(y, w),
    "mul_view": lambda L, y, w: y[0].mul_(w), "exp_view": lambda L, y, w: y[1].exp_(),
    "hardtanh_": lambda L, y, w: L.nn.functional.hardtanh(y, inplace=True),
    "silu_": lambda L, y, w: L.nn.functional.silu(y, inplace=True),
    "leaky_relu_": lambda L, y, w: L.nn.functional.leaky_relu(y, 0.1, inplace=True),
}


@pytest.mark.parametrize("name", list(_INPLACE_HOOKED))
@pytest.mark.parametrize("create_graph", [False, True])
def test_saved_tensor_hooks_inplace_ops(name, create_graph):
    def run(L):
        x = L.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
        w = L.tensor([0.3, -0.2, 0.9], requires_grad=True)
        y = x * 1
        events = []

        def pack(t):
            events.append(("pack", t is y, t._version, tuple(t.shape), t.requires_grad,
                           None if t.grad_fn is None else type(t.grad_fn).__name__))
            return t

        def unpack(t):
            events.append(("unpack", tuple(t.shape)))
            return t
        with L.autograd.graph.saved_tensors_hooks(pack, unpack):
            _INPLACE_HOOKED[name](L, y, w)
        gx, gw = L.autograd.grad(y.sum(), (x, w), create_graph=create_graph,
                                 allow_unused=True)
        return events, type(y.grad_fn).__name__, gx, gw
    same_on_both(run)


# -- float32 gelu: a contiguous input of two elements or more goes through oneDNN's gelu_erf
# (bit for bit, its A&S erf and exp), one element or a 0-d through ATen's kernels ---------------

@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 17, 300])
def test_gelu_float32_bits(n):
    xs = [(np.random.RandomState(n).randn(n) * scale).astype(np.float32)
          for scale in (0.5, 3.0, 12.0)]

    def run(L):
        return [L.nn.functional.gelu(L.tensor(x)).numpy().view(np.int32).tolist() for x in xs]
    same_on_both(run)


def test_gelu_float32_special_values():
    vals = [-0.0, 1.0, float("inf"), float("-inf"), float("nan"), -100.0, 100.0, -1e-30,
            1e-45, -10.0, -5.0, -87.0, -88.0, -89.0, -120.0]

    def run(L):
        out = L.nn.functional.gelu(L.tensor(vals)).numpy()
        return out.view(np.int32).tolist(), L.nn.functional.gelu(L.tensor(-0.0)).item()
    same_on_both(run)


# -- float16 logit: PyTorch's half kernel clamps and forms x / (1 - x) in half arithmetic, the
# log in float (fuzz seed 220); an eps above 1/2 clamps as its ternary does --------------------
@pytest.mark.parametrize("eps", [None, 0.01, 0.2, 0.6])
@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_logit_half_and_eps(eps, dtype):
    x = np.concatenate([np.random.RandomState(0).rand(300),
                        [0.0, 1.0, -0.5, 1.5, 0.999, 0.001, 0.5]])

    def run(L):
        out = L.logit(L.tensor(x, dtype=getattr(L, dtype)), eps=eps)
        return [str(v) for v in out.tolist()]
    same_on_both(run)
