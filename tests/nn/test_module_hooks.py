"""Module backward hooks (full, pre, deprecated, global) and forward-hook details against
PyTorch: each scenario runs once per library, and everything it logs (grad_input and
grad_output tuples, gradients, grad_fn names, warnings, errors) must agree."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import leafgrad

DTYPES = ["float64", "float32"]


def tol(dtype):
    return {"atol": 1e-12, "rtol": 1e-10} if dtype == "float64" else {"atol": 1e-5,
                                                                      "rtol": 1e-4}


def fill(lib, module, dtype, seed=0):
    """The same weights in both libraries: module cast to dtype, parameters from a seed."""
    module.to(getattr(lib, dtype))
    rng = np.random.default_rng(seed)
    module.load_state_dict({name: lib.tensor(rng.standard_normal(tuple(p.shape)).astype(dtype))
                            for name, p in module.named_parameters()})
    return module


def arr(lib, shape, dtype, seed=1, requires_grad=True):
    data = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return lib.tensor(data, requires_grad=requires_grad)


def plain(value):
    """Tensors -> (dtype name, array), containers recursively; for comparing logs."""
    if isinstance(value, (torch.Tensor, leafgrad.Tensor)):
        return ("tensor", str(value.dtype).split(".")[-1], value.detach().numpy().copy())
    if isinstance(value, (tuple, list)):
        return type(value)(plain(v) for v in value)
    return value


def assert_same(a, b, t, where="log"):
    if isinstance(a, tuple) and a and a[0] == "tensor":
        assert isinstance(b, tuple) and b[0] == "tensor", f"{where}: {a!r} vs {b!r}"
        assert a[1] == b[1], f"{where}: dtype {a[1]} vs {b[1]}"
        assert a[2].shape == b[2].shape, f"{where}: shape {a[2].shape} vs {b[2].shape}"
        np.testing.assert_allclose(a[2], b[2], err_msg=where, **t)
        return
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), f"{where}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, t, f"{where}[{i}]")
        return
    assert a == b, f"{where}: {a!r} vs {b!r}"


def run_both(scenario, dtype="float64"):
    """Run ``scenario(lib, log, dtype)`` for both; compare the logs, warnings and error."""
    results = []
    for lib in (leafgrad, torch):
        log = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                scenario(lib, log, dtype)
                error = None
            except Exception as e:  # noqa: BLE001  the scenario's error is part of what must agree
                error = (type(e).__name__, str(e))
        seen = [(w.category.__name__, str(w.message)) for w in caught]
        results.append((plain(log), seen, error))
    (log_m, warn_m, err_m), (log_t, warn_t, err_t) = results
    assert err_m == err_t
    assert warn_m == warn_t
    assert_same(log_m, log_t, tol(dtype))
    return log_t


def custom(lib, forward):
    """A module of class ``Custom`` with the given forward, in ``lib``."""
    return type("Custom", (lib.nn.Module,), {"forward": forward})()


def recorder(log, tag):
    # snapshots (plain): what the hook sees at the time, whatever later happens to the tensors
    def hook(module, grad_input, grad_output):
        log.append((tag, type(module).__name__, plain(grad_input), plain(grad_output)))
    return hook


def pre_recorder(log, tag):
    def hook(module, grad_output):
        log.append((tag, type(module).__name__, plain(grad_output)))
    return hook


def grads_of(log, module, *inputs):
    log.append(("inputs", tuple(x.grad for x in inputs)))
    log.append(("params", [(n, p.grad) for n, p in module.named_parameters()]))


# -- full backward hooks ------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_full_hook_on_a_network(dtype):
    def scenario(lib, log, dtype):
        nn = lib.nn
        net = fill(lib, nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)), dtype)
        for m in net.modules():
            m.register_full_backward_hook(recorder(log, "hook"))
            m.register_full_backward_pre_hook(pre_recorder(log, "pre"))
        x = arr(lib, (5, 3), dtype)
        out = net(x)
        log.append(("grad_fn", type(out.grad_fn).__name__))
        (out * arr(lib, (5, 2), dtype, seed=2, requires_grad=False)).sum().backward()
        grads_of(log, net, x)
    run_both(scenario, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_full_hook_replaces_grad_input(dtype):
    def scenario(lib, log, dtype):
        lin = fill(lib, lib.nn.Linear(3, 2), dtype)
        lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 3,))
        lin.register_full_backward_hook(recorder(log, "after"))  # sees the replaced grad
        x = arr(lib, (4, 3), dtype)
        y = x * 2
        lin(y).pow(2).sum().backward()
        grads_of(log, lin, x)
    run_both(scenario, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_pre_hook_replaces_grad_output(dtype):
    def scenario(lib, log, dtype):
        lin = fill(lib, lib.nn.Linear(3, 2), dtype)
        lin.register_full_backward_pre_hook(lambda m, go: (go[0] * -2,))
        lin.register_full_backward_pre_hook(pre_recorder(log, "second pre"))
        lin.register_full_backward_hook(recorder(log, "hook"))
        x = arr(lib, (4, 3), dtype)
        lin(x).exp().sum().backward()
        grads_of(log, lin, x)
    run_both(scenario, dtype)


def test_several_inputs_outputs_and_non_tensors():
    def forward(self, a, b, scale, c=None):
        return a * b * scale, "tag", b.exp(), a.detach()

    def scenario(lib, log, dtype):
        m = custom(lib, forward)
        m.register_full_backward_hook(recorder(log, "hook"))
        m.register_full_backward_pre_hook(pre_recorder(log, "pre"))
        a = arr(lib, (3,), dtype)
        b = arr(lib, (3,), dtype, seed=2, requires_grad=False)
        p, tag, q, d = m(a, b, 2.0, c=arr(lib, (1,), dtype))
        log.append((tag, type(p.grad_fn).__name__, q.requires_grad, d.requires_grad))
        p.sum().backward()
        grads_of(log, m, a)
    run_both(scenario)


def test_input_not_needing_grad_shows_zeros_and_unused_output_none():
    def scenario(lib, log, dtype):
        bil = fill(lib, lib.nn.Bilinear(2, 3, 2), dtype)
        bil.register_full_backward_hook(recorder(log, "hook"))
        x1 = arr(lib, (4, 2), dtype)
        x2 = arr(lib, (4, 3), dtype, requires_grad=False)
        bil(x1, x2).sum().backward()
        grads_of(log, bil, x1)
    run_both(scenario)


def test_no_input_requires_grad_warns_and_calls_with_none():
    def scenario(lib, log, dtype):
        lin = fill(lib, lib.nn.Linear(2, 2), dtype)
        lin.register_full_backward_hook(recorder(log, "hook"))
        lin(arr(lib, (3, 2), dtype, requires_grad=False)).sum().backward()
        grads_of(log, lin)
        lin.register_full_backward_hook(lambda m, gi, go: (gi[0],))   # (None,) is allowed
        lin(arr(lib, (3, 2), dtype, requires_grad=False)).sum().backward()
        lin.register_full_backward_hook(lambda m, gi, go: go)
        lin(arr(lib, (3, 2), dtype, requires_grad=False)).sum().backward()
    run_both(scenario)


@pytest.mark.parametrize("which", ["hook", "pre"])
def test_wrong_number_of_grads_returned(which):
    def scenario(lib, log, dtype):
        lin = fill(lib, lib.nn.Linear(2, 2), dtype)
        if which == "hook":
            lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
        else:
            lin.register_full_backward_pre_hook(lambda m, go: ())
        lin(arr(lib, (3, 2), dtype)).sum().backward()
    run_both(scenario)


def test_handles_remove_and_prepend_orders():
    def scenario(lib, log, dtype):
        lin = fill(lib, lib.nn.Linear(2, 2), dtype)
        h1 = lin.register_full_backward_hook(lambda m, gi, go: log.append("first"))
        lin.register_full_backward_hook(lambda m, gi, go: log.append("second"))
        lin.register_full_backward_hook(lambda m, gi, go: log.append("prepended"),
                                        prepend=True)
        p1 = lin.register_full_backward_pre_hook(lambda m, go: log.append("pre1"))
        lin.register_full_backward_pre_hook(lambda m, go: log.append("pre0"), prepend=True)
        x = arr(lib, (3, 2), dtype)
        lin(x).sum().backward()
        h1.remove()
        p1.remove()
        lin(x).sum().backward()
        log.append(len(lin._backward_hooks))
    run_both(scenario)


def test_not_called_under_no_grad_or_when_output_unused():
    def scenario(lib, log, dtype):
        lin = fill(lib, lib.nn.Linear(2, 2), dtype)
        lin.register_full_backward_hook(recorder(log, "hook"))
        x = arr(lib, (3, 2), dtype)
        with lib.no_grad():
            out = lin(x)
        log.append(out.grad_fn is None)
        out = lin(x)
        (x * 2).sum().backward()   # the gradient never passes through the module
    run_both(scenario)


def test_inplace_on_hooked_output_raises():
    def scenario(lib, log, dtype):
        lin = fill(lib, lib.nn.Linear(2, 2), dtype)
        lin.register_full_backward_hook(recorder(log, "hook"))
        out = lin(arr(lib, (3, 2), dtype))
        out.relu_()
    run_both(scenario)


def test_module_returning_a_list_warns_and_skips_hooks():
    def scenario(lib, log, dtype):
        m = custom(lib, lambda self, x: [x * 2])
        m.register_full_backward_hook(recorder(log, "hook"))
        x = arr(lib, (2,), dtype)
        m(x)[0].sum().backward()
        grads_of(log, m, x)
    run_both(scenario)


def test_mixing_full_and_deprecated_hooks_raises():
    def scenario(lib, log, dtype):
        lin = lib.nn.Linear(2, 2)
        lin.register_full_backward_hook(recorder(log, "hook"))
        lin.register_backward_hook(recorder(log, "old"))
    run_both(scenario)

    def scenario2(lib, log, dtype):
        lin = lib.nn.Linear(2, 2)
        lin.register_backward_hook(recorder(log, "old"))
        lin.register_full_backward_hook(recorder(log, "hook"))
    run_both(scenario2)


# -- the deprecated register_backward_hook ------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_deprecated_backward_hook_sees_the_last_node(dtype):
    def scenario(lib, log, dtype):
        nn = lib.nn
        act = nn.Tanh()
        act.register_backward_hook(recorder(log, "old"))
        x = arr(lib, (3, 2), dtype)
        act(x * 1).sum().backward()
        grads_of(log, act, x)
        seq = fill(lib, nn.Sequential(nn.Linear(2, 2), nn.Sigmoid()), dtype)
        seq.register_backward_hook(lambda m, gi, go: tuple(g * 0.5 for g in gi))
        seq(x).sum().backward()
        grads_of(log, seq, x)
    run_both(scenario, dtype)


# -- global hooks ---------------------------------------------------------------------------
def test_global_hooks_run_for_every_module_first():
    from torch.nn.modules import module as t_module

    from leafgrad.nn.modules import module as lg_module

    def scenario(lib, log, dtype):
        mod = lg_module if lib is leafgrad else t_module
        nn = lib.nn
        net = fill(lib, nn.Sequential(nn.Linear(2, 3), nn.ReLU()), dtype)
        net[0].register_full_backward_hook(lambda m, gi, go: log.append("own"))
        handles = [
            mod.register_module_full_backward_hook(recorder(log, "global")),
            mod.register_module_full_backward_pre_hook(pre_recorder(log, "global pre")),
            mod.register_module_forward_pre_hook(lambda m, a: log.append(("fpre", len(a)))),
            mod.register_module_forward_hook(lambda m, a, o: log.append(("fwd", o))),
        ]
        try:
            x = arr(lib, (2, 2), dtype)
            net(x).sum().backward()
            grads_of(log, net, x)
            mod.register_module_backward_hook(recorder(log, "old"))
        finally:
            for h in handles:
                h.remove()
        net(x).sum().backward()   # nothing global any more
        log.append("done")
    run_both(scenario)


# -- forward hooks with always_call --------------------------------------------------------
def test_always_call_forward_hook_runs_when_forward_raises():
    def scenario(lib, log, dtype):
        def forward(self, x):
            raise ValueError("bad input")
        m = custom(lib, forward)
        m.register_forward_hook(lambda m, a, o: log.append(("always", a, o)), always_call=True)
        m.register_forward_hook(lambda m, a, o: log.append("not this one"))
        m.register_forward_hook(lambda m, a, k, o: log.append(("kw", k)), always_call=True,
                                with_kwargs=True)
        m.register_forward_hook(lambda m, a, o: 1 / 0, always_call=True)
        m(arr(lib, (3,), dtype))
    run_both(scenario)


def test_inplace_on_an_input_returned_by_a_custom_function_raises():
    # the rule behind the hooked-output error, for any custom Function
    def scenario(lib, log, dtype):
        class Ident(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.mark_non_differentiable(b)
                return a, b

            @staticmethod
            def backward(ctx, ga, gb):
                return ga, None

        x = arr(lib, (2,), dtype) * 1
        a, b = Ident.apply(x, arr(lib, (2,), dtype, requires_grad=False))
        b.add_(1)   # needs no gradient: allowed
        log.append((b.requires_grad, a._base is x))
        a.add_(1)
    run_both(scenario)


def test_identity_modules_retain_graph_and_double_backward():
    def scenario(lib, log, dtype):
        nn = lib.nn
        seq = nn.Sequential(nn.Identity(), nn.Tanh(), nn.Identity())
        for m in seq.modules():
            m.register_full_backward_hook(recorder(log, "hook"))
        x = arr(lib, (3,), dtype)
        y = seq(x)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        log.append(("twice", x.grad))
        t = nn.Tanh()
        t.register_full_backward_hook(recorder(log, "tanh"))
        x.grad = None
        (g,) = lib.autograd.grad(t(x).sum(), x, create_graph=True)
        g.sum().backward()   # the second pass reaches the input without the output hook
        log.append(("double", g, x.grad))
        out = t(x)
        lib.autograd.grad(out.sum(), out)   # stops at the output: no hook
        log.append("grad wrt output")
    run_both(scenario)


def test_kwargs_are_not_hooked_and_two_calls_before_backward():
    def scenario(lib, log, dtype):
        m = custom(lib, lambda self, a, b=None: a * b)
        m.register_full_backward_hook(recorder(log, "kw"))
        a, b = arr(lib, (2,), dtype), arr(lib, (2,), dtype, seed=2)
        m(a, b=b).sum().backward()
        grads_of(log, m, a, b)
        t = lib.nn.Tanh()
        t.register_full_backward_hook(recorder(log, "call"))
        (t(a).sum() + t(a * 2).sum()).backward()
    run_both(scenario)


@pytest.mark.parametrize("bad", ["pre not tuple", "hook not tuple", "resized", "pre resized"])
def test_bad_hook_results(bad):
    def scenario(lib, log, dtype):
        t = lib.nn.Tanh()
        if bad == "pre not tuple":
            t.register_full_backward_pre_hook(lambda m, go: go[0] * 2)
        elif bad == "hook not tuple":
            t.register_full_backward_hook(lambda m, gi, go: gi[0] * 2)
        elif bad == "resized":
            t.register_full_backward_hook(lambda m, gi, go: (lib.ones(3, dtype=gi[0].dtype),))
        else:
            t.register_full_backward_pre_hook(lambda m, go: (lib.ones(3, dtype=go[0].dtype),))
        t(arr(lib, (2,), dtype)).sum().backward()
    run_both(scenario)


@pytest.mark.parametrize("dtype", DTYPES)
def test_full_hooks_on_layers_with_tuple_outputs(dtype):
    def scenario(lib, log, dtype):
        nn = lib.nn
        mha = fill(lib, nn.MultiheadAttention(4, 2), dtype)
        lstm = fill(lib, nn.LSTM(4, 3), dtype)
        for m in (mha, lstm):
            m.register_full_backward_hook(recorder(log, "hook"))
            m.register_full_backward_pre_hook(pre_recorder(log, "pre"))
        q = arr(lib, (3, 2, 4), dtype)
        kv = arr(lib, (5, 2, 4), dtype, seed=2, requires_grad=False)
        out, weights = mha(q, kv, kv)
        seq, (h, _c) = lstm(out)
        log.append((type(out.grad_fn).__name__, type(weights.grad_fn).__name__,
                    type(seq.grad_fn).__name__, type(h.grad_fn).__name__))
        (seq.sum() + h.sum() + weights.sum()).backward()
        grads_of(log, mha, q)
        grads_of(log, lstm)
    run_both(scenario, dtype)
