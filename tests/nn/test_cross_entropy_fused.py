"""``F.cross_entropy``'s one-frame path (Note [Fused cross_entropy] in ops/ce_fused.py) and
nll_loss's backward shortcut: each case runs on leafgrad and PyTorch 2.13 and compares
values, gradients, grad_fn chains, saved values, double backward, hooks and errors; and the
fused path is compared bit for bit and node for node with the general path
(``nll_loss(log_softmax(x, 1), y)`` through the public ops)."""
from __future__ import annotations

import numpy as np
import pytest
from oracle import grad_fn_names, same_on_both

import leafgrad
from leafgrad.ops import ce_fused


def _data(dtype="float32", n=4, c=5, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((n, c)) * 3).astype(dtype)
    y = rng.integers(0, c, n).astype(np.int64)
    return x, y


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 5), (1, 1), (7, 2)])
@pytest.mark.parametrize("rg", [True, False])
def test_cross_entropy_like_torch(dtype, shape, rg):
    x0, y0 = _data(dtype, *shape)

    def program(lib):
        x = lib.tensor(x0, requires_grad=rg)
        loss = lib.nn.functional.cross_entropy(x, lib.tensor(y0))
        obs = [loss, grad_fn_names(loss), loss.requires_grad]
        if rg:
            nll = loss.grad_fn
            lsm = nll.next_functions[0][0]
            # (not _saved_ignore_index: torch shows -100 as 2**64 - 100, on either path)
            obs += [nll._saved_self, nll._saved_target, nll._saved_reduction,
                    nll._saved_weight, lsm._saved_result, lsm._saved_dim]
            loss.backward()
            obs.append(x.grad)
        return obs

    same_on_both(program)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_entropy_double_backward_like_torch(dtype):
    x0, y0 = _data(dtype)

    def program(lib):
        x = lib.tensor(x0, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(x, lib.tensor(y0))
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        names = grad_fn_names(g)
        (g * g).sum().backward()
        loss2 = lib.nn.functional.cross_entropy(x * 2, lib.tensor(y0))
        loss2.backward(create_graph=True)
        return [g, names, x.grad, grad_fn_names(x.grad)]

    same_on_both(program)


@pytest.mark.parametrize("case", [
    "ignored", "ignore_2_present", "ignore_2_absent", "out_of_range", "negative",
    "target_changed", "transposed", "view_input", "int32_target", "uint8_target",
    "no_grad", "inference", "input_inplace", "hooks", "saved_hooks",
    "retain_graph", "neg_inf_row", "nan_input", "inf_input", "batch_mismatch",
    "target_2d", "one_d_input", "empty_batch", "parameter", "requires_grad_target",
    "anomaly", "sum_reduction", "weight"])
def test_cross_entropy_cases_like_torch(case):
    x0, y0 = _data()

    def program(lib):
        F = lib.nn.functional
        x = lib.tensor(x0, requires_grad=True)
        y = lib.tensor(y0)
        out = []
        if case == "ignored":
            y = lib.tensor([0, -100, 3, -100])
        elif case == "ignore_2_present":
            y = lib.tensor([2, 1, 2, 0])
            loss = F.cross_entropy(x, y, ignore_index=2)
            loss.backward()
            return [loss, x.grad]
        elif case == "ignore_2_absent":
            y = lib.tensor([3, 1, 4, 0])
            loss = F.cross_entropy(x, y, ignore_index=2)
            loss.backward()
            return [loss, x.grad]
        elif case == "out_of_range":
            y = lib.tensor([0, 5, 1, 1])
        elif case == "negative":
            y = lib.tensor([0, -1, 1, 1])
        elif case == "target_changed":
            loss = F.cross_entropy(x, y)
            y.numpy()[1] = 9   # through NumPy: no version bump, backward checks again
            loss.backward()
            return [loss, x.grad]
        elif case == "transposed":
            x = lib.tensor(np.ascontiguousarray(x0.T).copy(), requires_grad=True)
            xt = x.t()
            loss = F.cross_entropy(xt, y)
            loss.backward()
            return [loss, grad_fn_names(loss), x.grad]
        elif case == "view_input":
            big = lib.tensor(np.concatenate([x0, x0], 1), requires_grad=True)
            loss = F.cross_entropy(big[:, :5], y)
            loss.backward()
            return [loss, grad_fn_names(loss), big.grad]
        elif case == "int32_target":
            y = lib.tensor(y0.astype(np.int32))
        elif case == "uint8_target":
            y = lib.tensor(y0.astype(np.uint8))
        elif case == "no_grad":
            with lib.no_grad():
                loss = F.cross_entropy(x, y)
            return [loss, loss.requires_grad, loss.grad_fn is None]
        elif case == "inference":
            with lib.inference_mode():
                loss = F.cross_entropy(x, y)
            return [loss, loss.is_inference(), loss.requires_grad]
        elif case == "input_inplace":
            xi = x * 1
            loss = F.cross_entropy(xi, y)
            xi.mul_(2)   # log_softmax saves its result, not its input: backward runs
            loss.backward()
            return [loss, x.grad]
        elif case == "hooks":
            seen = []
            x.register_hook(lambda g: seen.append(g.clone()))
            loss = F.cross_entropy(x, y)
            loss.grad_fn.register_hook(lambda gi, go: seen.append(gi[0].clone()))
            loss.grad_fn.next_functions[0][0].register_prehook(
                lambda go: seen.append(go[0].clone()))
            loss.backward()
            return [loss, x.grad, seen]
        elif case == "saved_hooks":
            packed = []

            def pack(t):
                packed.append(tuple(t.shape))
                return t * 2

            # (unpacking keeps the dtype: a float target's error differs on either path)
            with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t // 2):
                loss = F.cross_entropy(x, y)
            loss.backward()
            # (torch also packs nll_loss's 0-d total_weight, which leafgrad's node does not
            # save: Note [Total weight] in ops/nll_loss.py, on either path)
            return [loss, x.grad, sorted(p for p in packed if p)]
        elif case == "retain_graph":
            loss = F.cross_entropy(x, y)
            loss.backward(retain_graph=True)
            loss.backward()
            return [loss, x.grad]
        elif case == "neg_inf_row":
            x = lib.tensor(np.where(np.arange(5) < 5, x0, 0).astype(np.float32))
            x[1] = float("-inf")
            x.requires_grad_()
        elif case == "nan_input":
            x = lib.tensor(x0)
            x[2, 3] = float("nan")
            x.requires_grad_()
        elif case == "inf_input":
            x = lib.tensor(x0)
            x[0, 1] = float("inf")
            x.requires_grad_()
        elif case == "batch_mismatch":
            y = lib.tensor([0, 1, 2])
        elif case == "target_2d":
            y = lib.tensor([[0, 1, 2, 3]])
        elif case == "one_d_input":
            x = lib.tensor(x0[0], requires_grad=True)
            y = lib.tensor(2)
        elif case == "empty_batch":
            x = lib.tensor(np.zeros((0, 5), np.float32), requires_grad=True)
            y = lib.tensor(np.zeros(0, np.int64))
        elif case == "parameter":
            x = lib.nn.Parameter(lib.tensor(x0))
        elif case == "requires_grad_target":
            y = lib.tensor(y0.astype(np.float32), requires_grad=True)
        elif case == "anomaly":
            x = lib.tensor(x0)
            x[0, 0] = float("nan")
            x.requires_grad_()
            with lib.autograd.detect_anomaly(check_nan=True):
                loss = F.cross_entropy(x, y)
                try:
                    loss.backward()
                except RuntimeError as exc:
                    out.append(str(exc).split("\n")[0])
            return [_finite(lib, loss), out]
        elif case == "sum_reduction":
            loss = F.cross_entropy(x, y, reduction="sum")
            loss.backward()
            return [loss, x.grad]
        elif case == "weight":
            loss = F.cross_entropy(x, y, weight=lib.tensor([1.0, 2.0, 0.5, 1.0, 3.0]))
            loss.backward()
            return [loss, x.grad]
        loss = F.cross_entropy(x, y)
        out += [_finite(lib, loss), grad_fn_names(loss)]
        if loss.requires_grad:
            loss.backward()
            out.append(_finite(lib, x.grad))
        return out

    same_on_both(program)


def _finite(lib, t):
    """NaN and infinities as numbers (observations are compared with ==)."""
    return lib.nan_to_num(t.detach(), nan=777.0, posinf=888.0, neginf=-999.0)


def _node_fields(node):
    edges = [(type(fn).__name__, nr) for fn, nr in node._edges]
    saved = [(type(v).__name__, getattr(v, "shape", v)) for v in (node._saved or ())]
    return (type(node).__name__, edges, saved, node._versions, node._args)


def _general(x, y, ignore_index=-100):
    F = leafgrad.nn.functional
    return F.nll_loss(F.log_softmax(x, 1), y, ignore_index=ignore_index)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_bits_and_nodes_equal_general_path(seed, dtype):
    """Loss, gradient and second-order gradient bit for bit against the general path, over
    inputs with large values, -inf rows and infinities; nodes field by field."""
    rng = np.random.default_rng(seed)
    n, c = int(rng.integers(1, 40)), int(rng.integers(1, 30))
    x0 = (rng.standard_normal((n, c)) * 10 ** rng.integers(0, 4)).astype(dtype)
    if seed == 3:
        x0[0] = -np.inf
    if seed == 4:
        x0[-1, 0] = np.inf
    y0 = rng.integers(0, c, n).astype(np.int64)
    results = []
    if seed == 5:
        x0 = x0.astype(np.float16)
    for fused in (True, False):
        x = leafgrad.tensor(x0, requires_grad=True)
        y = leafgrad.tensor(y0)
        loss = leafgrad.nn.functional.cross_entropy(x, y) if fused else _general(x, y)
        nll = loss.grad_fn
        lsm = nll.next_functions[0][0]
        (g,) = leafgrad.autograd.grad(loss, x, create_graph=True)
        (gg,) = leafgrad.autograd.grad((g * g).sum(), x)
        results.append((loss.detach().numpy(), g.detach().numpy(), gg.numpy(),
                        _node_fields(nll), _node_fields(lsm)))
    (l1, g1, gg1, n1, s1), (l2, g2, gg2, n2, s2) = results
    assert l1.tobytes() == l2.tobytes() and l1.dtype == l2.dtype and l1.shape == l2.shape
    assert g1.tobytes() == g2.tobytes()
    assert gg1.tobytes() == gg2.tobytes()
    assert n1 == n2 and s1 == s2


def test_fused_path_taken():
    """The everyday call goes through the fused frame (the cases above would pass on the
    general path too): its result is built without the public log_softmax."""
    calls = []
    real = ce_fused.cross_entropy_2d

    def spy(*args):
        out = real(*args)
        calls.append(out is not None)
        return out

    x0, y0 = _data()
    import leafgrad.nn.functional.loss as loss_mod
    loss_mod._cross_entropy_2d = spy
    try:
        x = leafgrad.tensor(x0, requires_grad=True)
        leafgrad.nn.functional.cross_entropy(x, leafgrad.tensor(y0))
        leafgrad.nn.functional.cross_entropy(x, leafgrad.tensor(y0), reduction="sum")
        leafgrad.nn.functional.cross_entropy(x.t(), leafgrad.tensor(y0[:1].repeat(5)))
    finally:
        loss_mod._cross_entropy_2d = real
    assert calls == [True, False]


def test_nll_backward_shortcut_bits():
    """nll_loss's backward shortcut (mean over class indices) against the general kernel."""
    from leafgrad.ops import nll_loss as N
    rng = np.random.default_rng(1)
    for dtype in ("float32", "float64"):
        for n, c in ((1, 1), (5, 3), (64, 10)):
            x = leafgrad.tensor(rng.standard_normal((n, c)).astype(dtype))
            t = leafgrad.tensor(rng.integers(0, c, n).astype(np.int64))
            grad = leafgrad.tensor(np.asarray(rng.standard_normal(), dtype))
            with leafgrad.no_grad():
                fast = N.nll_loss_self(grad, x, t, None, 1, -100)
            slow = N.nll_loss_backward(grad._data, x._data, t._data, None, 1, -100)
            assert fast._data.tobytes() == slow.tobytes() and fast.dtype == x.dtype
